// Internal: collectives that are a set of point-to-point transfers with a datatype
// each (MPI_Alltoallw, the neighbour collectives), run as one engine schedule
// (coll::start) so they are kept apart from other collectives and from p2p traffic.
#pragma once
#include <vector>

#include "mpi_coll_stage.hpp"

namespace interlace::mpi::collimpl {

// One transfer: count elements of type at buf to / from peer (MPI_PROC_NULL: none).
struct Part {
  int peer;
  const void* buf;
  int count;
  MPI_Datatype type;
};

// Posts every send, then the receives in recv_order (indices into recvs; empty: in
// order). Between two ranks the k-th send meets the k-th receive; transfers to the
// rank itself are copies matched the same way. Non-contiguous data is packed before
// and unpacked by Pending::finish.
Pending run_exchange(const Ctx& k, const char* label, const std::vector<Part>& sends, const std::vector<Part>& recvs,
                     const std::vector<int>& recv_order = {});

}  // namespace interlace::mpi::collimpl
