// Internal: the built-in algorithms, one per file in this folder.
#pragma once
#include <vector>

#include "interlace/coll/schedule.hpp"

namespace interlace::coll::algo {

#define INTERLACE_COLL_ALGOS(X)                                                                  \
  X(barrier_dissemination) X(barrier_tree) X(bcast_linear) X(bcast_binomial)                   \
  X(bcast_scatter_allgather) X(reduce_linear) X(reduce_binomial) X(reduce_ring)                \
  X(allreduce_recursive_doubling) X(allreduce_ring) X(allreduce_rabenseifner)                  \
  X(allreduce_reduce_bcast) X(gather_linear) X(gather_binomial) X(scatter_linear)              \
  X(scatter_binomial) X(gatherv_linear) X(scatterv_linear) X(allgather_ring)                   \
  X(allgather_recursive_doubling) X(allgather_bruck) X(allgatherv_ring) X(alltoall_linear)     \
  X(alltoall_pairwise) X(alltoall_bruck) X(alltoallv_pairwise) X(alltoallv_linear)             \
  X(reduce_scatter_ring) X(reduce_scatter_recursive_halving) X(reduce_scatter_reduce_scatterv) \
  X(scan_linear) X(exscan_linear)

#define X(name) Algorithm name();
INTERLACE_COLL_ALGOS(X)
#undef X

inline std::vector<Algorithm> builtin() {
  std::vector<Algorithm> v;
#define X(name) v.push_back(name());
  INTERLACE_COLL_ALGOS(X)
#undef X
  return v;
}

}  // namespace interlace::coll::algo
