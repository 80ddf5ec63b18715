// Internal: collective checking (INTERLACE_COLL_CHECK=1), as MPICH's collective
// checking does: before a collective, the ranks exchange its signature and every
// rank raises the same error when they disagree.
#pragma once
#include <memory>

#include "interlace/coll/coll.hpp"
#include "interlace/groups/comm_state.hpp"

namespace interlace::coll {

// Exchanges (kind, count, datatype, op, root, algorithm, segment, compression,
// INTERLACE_COLL rules) of this call with every rank of the communicator; throws
// Errc::protocol on every rank, naming the values of two ranks that differ.
// `reduction`: the op takes part; `rooted`: the root does; `uniform_count`: the
// count must be equal on every rank (false for the vector forms).
void agree_on_call(const std::shared_ptr<groups::CommState>& c, const Args& a, const Options& o, bool reduction,
                   bool rooted, bool uniform_count);

}  // namespace interlace::coll
