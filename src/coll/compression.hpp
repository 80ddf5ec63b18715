// Internal: compressor lookup for the collective entry points.
#pragma once
#include <memory>
#include <string>

#include "interlace/coll/schedule.hpp"

namespace interlace::coll {

// invalid_argument naming the compressor (and the known ones) or the datatype.
std::shared_ptr<const Compressor> find_compressor(const std::string& name, Datatype dt, const char* op);

}  // namespace interlace::coll
