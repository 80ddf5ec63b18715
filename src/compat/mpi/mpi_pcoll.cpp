// The persistent collectives of MPI 4 (MPI_*_init): arguments are checked and the
// arrays copied at init; each MPI_Start runs the collective again (mpi_coll_api.cpp).
#include "mpi_coll_forms.hpp"

using namespace interlace;
using namespace interlace::mpi;
using namespace interlace::mpi::collimpl;

extern "C" {

int MPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const char* call = "MPI_Barrier_init";
  return persistent(call, comm, info, request, [&]() -> Starter {
    return [=] { return start_barrier(call, comm); };
  });
}

int MPI_Bcast_init(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info,
                   MPI_Request* request) {
  return bcast_form(Persistent{"MPI_Bcast_init", comm, info, request}, buffer, count, datatype, root);
}

int MPI_Reduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                    MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return reduce_form(Persistent{"MPI_Reduce_init", comm, info, request}, coll::Kind::reduce, sendbuf, recvbuf,
      count, datatype, op, root);
}

int MPI_Allreduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return reduce_form(Persistent{"MPI_Allreduce_init", comm, info, request}, coll::Kind::allreduce, sendbuf, recvbuf,
      count, datatype, op, 0);
}

int MPI_Gather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return rooted_form(Persistent{"MPI_Gather_init", comm, info, request}, start_gather, sendbuf, sendcount, sendtype,
      recvbuf, recvcount, recvtype, root);
}

int MPI_Gatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm,
                     MPI_Info info, MPI_Request* request) {
  return gatherv_form(Persistent{"MPI_Gatherv_init", comm, info, request}, sendbuf, sendcount, sendtype, recvbuf,
      recvcounts, displs, recvtype, root);
}

int MPI_Scatter_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return rooted_form(Persistent{"MPI_Scatter_init", comm, info, request}, start_scatter, sendbuf, sendcount,
      sendtype, recvbuf, recvcount, recvtype, root);
}

int MPI_Scatterv_init(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                      void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                      MPI_Info info, MPI_Request* request) {
  return scatterv_form(Persistent{"MPI_Scatterv_init", comm, info, request}, sendbuf, sendcounts, displs, sendtype,
      recvbuf, recvcount, recvtype, root);
}

int MPI_Allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return pair_form(Persistent{"MPI_Allgather_init", comm, info, request}, start_allgather, sendbuf, sendcount,
      sendtype, recvbuf, recvcount, recvtype);
}

int MPI_Allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Info info, MPI_Request* request) {
  return allgatherv_form(Persistent{"MPI_Allgatherv_init", comm, info, request}, false, sendbuf, sendcount,
      sendtype, recvbuf, recvcounts, displs, recvtype);
}

int MPI_Alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return pair_form(Persistent{"MPI_Alltoall_init", comm, info, request}, start_alltoall, sendbuf, sendcount,
      sendtype, recvbuf, recvcount, recvtype);
}

int MPI_Alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                       void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                       MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return alltoallv_form(Persistent{"MPI_Alltoallv_init", comm, info, request}, false, sendbuf, sendcounts, sdispls,
      sendtype, recvbuf, recvcounts, rdispls, recvtype);
}

int MPI_Reduce_scatter_init(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype,
                            MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return reduce_scatter_form(Persistent{"MPI_Reduce_scatter_init", comm, info, request}, sendbuf, recvbuf,
      recvcounts, datatype, op);
}

int MPI_Reduce_scatter_block_init(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype,
                                  MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return reduce_scatter_block_form(Persistent{"MPI_Reduce_scatter_block_init", comm, info, request}, sendbuf,
      recvbuf, recvcount, datatype, op);
}

int MPI_Scan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return reduce_form(Persistent{"MPI_Scan_init", comm, info, request}, coll::Kind::scan, sendbuf, recvbuf, count,
      datatype, op, 0);
}

int MPI_Exscan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return reduce_form(Persistent{"MPI_Exscan_init", comm, info, request}, coll::Kind::exscan, sendbuf, recvbuf,
      count, datatype, op, 0);
}

int MPI_Alltoallw_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                       const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                       const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                       MPI_Request* request) {
  return alltoallw_form(Persistent{"MPI_Alltoallw_init", comm, info, request}, sendbuf, sendcounts, sdispls,
      sendtypes, recvbuf, recvcounts, rdispls, recvtypes);
}

int MPI_Neighbor_allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                MPI_Request* request) {
  return pair_form(Persistent{"MPI_Neighbor_allgather_init", comm, info, request}, start_neighbor_allgather,
      sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
}

int MPI_Neighbor_allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                 MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return allgatherv_form(Persistent{"MPI_Neighbor_allgatherv_init", comm, info, request}, true, sendbuf, sendcount,
      sendtype, recvbuf, recvcounts, displs, recvtype);
}

int MPI_Neighbor_alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                               int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                               MPI_Request* request) {
  return pair_form(Persistent{"MPI_Neighbor_alltoall_init", comm, info, request}, start_neighbor_alltoall, sendbuf,
      sendcount, sendtype, recvbuf, recvcount, recvtype);
}

int MPI_Neighbor_alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                MPI_Request* request) {
  return alltoallv_form(Persistent{"MPI_Neighbor_alltoallv_init", comm, info, request}, true, sendbuf, sendcounts,
      sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype);
}

int MPI_Neighbor_alltoallw_init(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                MPI_Info info, MPI_Request* request) {
  return neighbor_alltoallw_form(Persistent{"MPI_Neighbor_alltoallw_init", comm, info, request}, sendbuf,
      sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes);
}

}  // extern "C"
