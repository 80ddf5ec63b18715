// The large-count (`_c`) forms of the non-blocking collectives of MPI 4 (MPI_I*_c).
#include "mpi_coll_forms.hpp"

using namespace interlace;
using namespace interlace::mpi;
using namespace interlace::mpi::collimpl;

extern "C" {

int MPI_Ibcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                 MPI_Request* request) {
  return bcast_form(NonBlocking{{"MPI_Ibcast_c", comm}, request}, buffer, count, datatype, root);
}

int MPI_Ireduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                  int root, MPI_Comm comm, MPI_Request* request) {
  return reduce_form(NonBlocking{{"MPI_Ireduce_c", comm}, request}, coll::Kind::reduce, sendbuf, recvbuf, count,
      datatype, op, root);
}

int MPI_Iallreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                     MPI_Comm comm, MPI_Request* request) {
  return reduce_form(NonBlocking{{"MPI_Iallreduce_c", comm}, request}, coll::Kind::allreduce, sendbuf, recvbuf,
      count, datatype, op, 0);
}

int MPI_Igather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  return rooted_form(NonBlocking{{"MPI_Igather_c", comm}, request}, start_gather, sendbuf, sendcount, sendtype,
      recvbuf, recvcount, recvtype, root);
}

int MPI_Igatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                   MPI_Comm comm, MPI_Request* request) {
  return gatherv_form(NonBlocking{{"MPI_Igatherv_c", comm}, request}, sendbuf, sendcount, sendtype, recvbuf,
      recvcounts, displs, recvtype, root);
}

int MPI_Iscatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  return rooted_form(NonBlocking{{"MPI_Iscatter_c", comm}, request}, start_scatter, sendbuf, sendcount, sendtype,
      recvbuf, recvcount, recvtype, root);
}

int MPI_Iscatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                    MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                    MPI_Comm comm, MPI_Request* request) {
  return scatterv_form(NonBlocking{{"MPI_Iscatterv_c", comm}, request}, sendbuf, sendcounts, displs, sendtype,
      recvbuf, recvcount, recvtype, root);
}

int MPI_Iallgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return pair_form(NonBlocking{{"MPI_Iallgather_c", comm}, request}, start_allgather, sendbuf, sendcount,
      sendtype, recvbuf, recvcount, recvtype);
}

int MPI_Iallgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                      const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                      MPI_Comm comm, MPI_Request* request) {
  return allgatherv_form(NonBlocking{{"MPI_Iallgatherv_c", comm}, request}, false, sendbuf, sendcount, sendtype,
      recvbuf, recvcounts, displs, recvtype);
}

int MPI_Ialltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return pair_form(NonBlocking{{"MPI_Ialltoall_c", comm}, request}, start_alltoall, sendbuf, sendcount, sendtype,
      recvbuf, recvcount, recvtype);
}

int MPI_Ialltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return alltoallv_form(NonBlocking{{"MPI_Ialltoallv_c", comm}, request}, false, sendbuf, sendcounts, sdispls,
      sendtype, recvbuf, recvcounts, rdispls, recvtype);
}

int MPI_Ireduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return reduce_scatter_form(NonBlocking{{"MPI_Ireduce_scatter_c", comm}, request}, sendbuf, recvbuf, recvcounts,
      datatype, op);
}

int MPI_Ireduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
                                MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return reduce_scatter_block_form(NonBlocking{{"MPI_Ireduce_scatter_block_c", comm}, request}, sendbuf, recvbuf,
      recvcount, datatype, op);
}

int MPI_Iscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm, MPI_Request* request) {
  return reduce_form(NonBlocking{{"MPI_Iscan_c", comm}, request}, coll::Kind::scan, sendbuf, recvbuf, count,
      datatype, op, 0);
}

int MPI_Iexscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm, MPI_Request* request) {
  return reduce_form(NonBlocking{{"MPI_Iexscan_c", comm}, request}, coll::Kind::exscan, sendbuf, recvbuf, count,
      datatype, op, 0);
}

int MPI_Ialltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                     MPI_Request* request) {
  return alltoallw_form(NonBlocking{{"MPI_Ialltoallw_c", comm}, request}, sendbuf, sendcounts, sdispls, sendtypes,
      recvbuf, recvcounts, rdispls, recvtypes);
}

int MPI_Ineighbor_allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                              MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                              MPI_Request* request) {
  return pair_form(NonBlocking{{"MPI_Ineighbor_allgather_c", comm}, request}, start_neighbor_allgather, sendbuf,
      sendcount, sendtype, recvbuf, recvcount, recvtype);
}

int MPI_Ineighbor_allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                               const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                               MPI_Comm comm, MPI_Request* request) {
  return allgatherv_form(NonBlocking{{"MPI_Ineighbor_allgatherv_c", comm}, request}, true, sendbuf, sendcount,
      sendtype, recvbuf, recvcounts, displs, recvtype);
}

int MPI_Ineighbor_alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                             MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return pair_form(NonBlocking{{"MPI_Ineighbor_alltoall_c", comm}, request}, start_neighbor_alltoall, sendbuf,
      sendcount, sendtype, recvbuf, recvcount, recvtype);
}

int MPI_Ineighbor_alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                              MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                              const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                              MPI_Request* request) {
  return alltoallv_form(NonBlocking{{"MPI_Ineighbor_alltoallv_c", comm}, request}, true, sendbuf, sendcounts,
      sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype);
}

int MPI_Ineighbor_alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                              const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                              const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                              MPI_Request* request) {
  return neighbor_alltoallw_form(NonBlocking{{"MPI_Ineighbor_alltoallw_c", comm}, request}, sendbuf, sendcounts,
      sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes);
}

}  // extern "C"
