// The store named pmix:// or pmi2:// (open_store dispatches here).
#pragma once
#include <memory>
#include <string>

#include "interlace/bootstrap/store.hpp"

namespace interlace::bootstrap::detail {

// Collective: every rank of the job opens it together (a launcher fence inside).
std::unique_ptr<Store> open_launcher_store(const std::string& url, const std::string& secret,
                                           double timeout_s);

}  // namespace interlace::bootstrap::detail
