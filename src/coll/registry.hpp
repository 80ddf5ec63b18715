// Internal: the algorithm catalogue (process-wide: algorithms are code, shared by
// every rank of the process) and the selection table.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "interlace/coll/schedule.hpp"

namespace interlace::coll {

// The algorithm to run. `requested` non-empty: that name (invalid_argument listing
// the known names otherwise). A non-commutative op needs an order-keeping one.
Algorithm choose(Kind k, size_t bytes, int comm_size, bool commutative, const std::string& requested);
// choose() that also says whether the pick is a built-in algorithm (its builder is a
// pure function of Args, so its schedules may be cached and reused).
Algorithm choose(Kind k, size_t bytes, int comm_size, bool commutative, const std::string& requested,
                 bool* builtin);
// As above under the given INTERLACE_COLL rules (a Context's Config::coll_rules).
Algorithm choose(Kind k, size_t bytes, int comm_size, bool commutative, const std::string& requested,
                 bool* builtin, const std::string& rules);
// Changes whenever an algorithm is registered or removed (cached plans go stale).
uint64_t registry_generation() noexcept;

}  // namespace interlace::coll
