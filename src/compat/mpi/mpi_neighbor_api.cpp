// MPI_Alltoallw and the neighbour collectives, blocking and non-blocking (the
// persistent forms are in mpi_pcoll.cpp, the large-count ones in mpi_coll_c*.cpp).
#include "mpi_coll_api.hpp"

using namespace interlace;
using namespace interlace::mpi;
using namespace interlace::mpi::collimpl;

extern "C" {

int MPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const int rdispls[],
                  const MPI_Datatype recvtypes[], MPI_Comm comm) {
  const char* call = "MPI_Alltoallw";
  return blocking(call, comm, [&] { return start_alltoallw(call, sendbuf, sendcounts, sdispls, sendtypes,
      recvbuf, recvcounts, rdispls, recvtypes, comm); });
}

int MPI_Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const int rdispls[],
                   const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request* request) {
  const char* call = "MPI_Ialltoallw";
  return nonblocking(call, comm, request, [&] { return start_alltoallw(call, sendbuf, sendcounts, sdispls,
      sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm); });
}

int MPI_Neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const char* call = "MPI_Neighbor_allgather";
  return blocking(call, comm, [&] { return start_neighbor_allgather(call, sendbuf, sendcount, sendtype, recvbuf,
      recvcount, recvtype, comm); });
}

int MPI_Ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                            int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  const char* call = "MPI_Ineighbor_allgather";
  return nonblocking(call, comm, request, [&] { return start_neighbor_allgather(call, sendbuf, sendcount,
      sendtype, recvbuf, recvcount, recvtype, comm); });
}

int MPI_Neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                            const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  const char* call = "MPI_Neighbor_allgatherv";
  return blocking(call, comm, [&] { return start_neighbor_allgatherv(call, sendbuf, sendcount, sendtype,
      recvbuf, recvcounts, displs, recvtype, comm); });
}

int MPI_Ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request* request) {
  const char* call = "MPI_Ineighbor_allgatherv";
  return nonblocking(call, comm, request, [&] { return start_neighbor_allgatherv(call, sendbuf, sendcount,
      sendtype, recvbuf, recvcounts, displs, recvtype, comm); });
}

int MPI_Neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const char* call = "MPI_Neighbor_alltoall";
  return blocking(call, comm, [&] { return start_neighbor_alltoall(call, sendbuf, sendcount, sendtype, recvbuf,
      recvcount, recvtype, comm); });
}

int MPI_Ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  const char* call = "MPI_Ineighbor_alltoall";
  return nonblocking(call, comm, request, [&] { return start_neighbor_alltoall(call, sendbuf, sendcount,
      sendtype, recvbuf, recvcount, recvtype, comm); });
}

int MPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                           MPI_Datatype recvtype, MPI_Comm comm) {
  const char* call = "MPI_Neighbor_alltoallv";
  return blocking(call, comm, [&] { return start_neighbor_alltoallv(call, sendbuf, sendcounts, sdispls,
      sendtype, recvbuf, recvcounts, rdispls, recvtype, comm); });
}

int MPI_Ineighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  const char* call = "MPI_Ineighbor_alltoallv";
  return nonblocking(call, comm, request, [&] { return start_neighbor_alltoallv(call, sendbuf, sendcounts,
      sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm); });
}

int MPI_Neighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  const char* call = "MPI_Neighbor_alltoallw";
  return blocking(call, comm, [&] { return start_neighbor_alltoallw(call, sendbuf, sendcounts, sdispls,
      sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm); });
}

int MPI_Ineighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                            MPI_Request* request) {
  const char* call = "MPI_Ineighbor_alltoallw";
  return nonblocking(call, comm, request, [&] { return start_neighbor_alltoallw(call, sendbuf, sendcounts,
      sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm); });
}

}  // extern "C"
