// Internal: the collectives of the MPI layer, shared by the blocking (mpi_coll.cpp) and
// non-blocking (mpi_icoll.cpp) entry points. Each start_* checks its arguments, stages
// derived-type buffers as packed bytes, starts the engine collective and returns what
// completion needs; the blocking form waits at once, the non-blocking one wraps it in a
// request whose on_complete runs `finish`.
#pragma once
#include <functional>
#include <memory>
#include <vector>

#include "mpi_impl.hpp"

namespace interlace::mpi::collimpl {

struct Pending {
  coll::Request req;
  std::function<void()> finish;               // unpacks staged results into user buffers
  std::vector<std::shared_ptr<void>> keep;    // temps that must outlive the collective
};

// Blocking: waits for the collective and finishes it.
void complete(Pending p);
// Non-blocking: MPI_ERR_ARG for a null request pointer (checked before starting), and
// handing the started collective out as an MPI request.
void check_request_arg(const char* call, const MPI_Request* request);
void to_request(Pending p, MPI_Comm comm, MPI_Request* request);

Pending start_barrier(const char* call, MPI_Comm comm);
Pending start_bcast(const char* call, void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm);

// Reductions: kind is reduce, allreduce, scan or exscan (root only used by reduce).
Pending start_reduce(const char* call, coll::Kind kind, const void* sendbuf, void* recvbuf, int count,
                     MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm);
Pending start_reduce_scatter(const char* call, const void* sendbuf, void* recvbuf, const int* recvcounts,
                             MPI_Datatype type, MPI_Op op, MPI_Comm comm);
Pending start_reduce_scatter_block(const char* call, const void* sendbuf, void* recvbuf, int recvcount,
                                   MPI_Datatype type, MPI_Op op, MPI_Comm comm);

Pending start_gather(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                     void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
Pending start_gatherv(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                      void* recvbuf, const int* recvcounts, const int* displs, MPI_Datatype recvtype,
                      int root, MPI_Comm comm);
Pending start_scatter(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                      void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
Pending start_scatterv(const char* call, const void* sendbuf, const int* sendcounts, const int* displs,
                       MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                       int root, MPI_Comm comm);
Pending start_allgather(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                        void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
Pending start_allgatherv(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                         void* recvbuf, const int* recvcounts, const int* displs, MPI_Datatype recvtype,
                         MPI_Comm comm);
Pending start_alltoall(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                       void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
Pending start_alltoallv(const char* call, const void* sendbuf, const int* sendcounts, const int* sdispls,
                        MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* rdispls,
                        MPI_Datatype recvtype, MPI_Comm comm);

// Alltoallw and the neighbour collectives (mpi_coll_exchange.cpp, mpi_neighbor.cpp):
// point-to-point exchanges run as one engine schedule. Displacements of the w forms
// are in bytes; those of the v forms in extents of the datatype.
Pending start_alltoallw(const char* call, const void* sendbuf, const int* sendcounts, const int* sdispls,
                        const MPI_Datatype* sendtypes, void* recvbuf, const int* recvcounts, const int* rdispls,
                        const MPI_Datatype* recvtypes, MPI_Comm comm);
Pending start_neighbor_allgather(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
Pending start_neighbor_allgatherv(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void* recvbuf, const int* recvcounts, const int* displs, MPI_Datatype recvtype,
                                  MPI_Comm comm);
Pending start_neighbor_alltoall(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
Pending start_neighbor_alltoallv(const char* call, const void* sendbuf, const int* sendcounts, const int* sdispls,
                                 MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* rdispls,
                                 MPI_Datatype recvtype, MPI_Comm comm);
Pending start_neighbor_alltoallw(const char* call, const void* sendbuf, const int* sendcounts,
                                 const MPI_Aint* sdispls, const MPI_Datatype* sendtypes, void* recvbuf,
                                 const int* recvcounts, const MPI_Aint* rdispls, const MPI_Datatype* recvtypes,
                                 MPI_Comm comm);

}  // namespace interlace::mpi::collimpl
