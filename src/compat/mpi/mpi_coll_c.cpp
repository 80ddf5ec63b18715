// The large-count (`_c`) forms of the blocking collectives of MPI 4: the counts and
// displacements are narrowed to what interlace carries (mpi_coll_api.hpp).
#include "mpi_coll_forms.hpp"

using namespace interlace;
using namespace interlace::mpi;
using namespace interlace::mpi::collimpl;

extern "C" {

int MPI_Bcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return bcast_form(Blocking{{"MPI_Bcast_c", comm}}, buffer, count, datatype, root);
}

int MPI_Reduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                 int root, MPI_Comm comm) {
  return reduce_form(Blocking{{"MPI_Reduce_c", comm}}, coll::Kind::reduce, sendbuf, recvbuf, count, datatype, op,
      root);
}

int MPI_Allreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm) {
  return reduce_form(Blocking{{"MPI_Allreduce_c", comm}}, coll::Kind::allreduce, sendbuf, recvbuf, count, datatype,
      op, 0);
}

int MPI_Gather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                 MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return rooted_form(Blocking{{"MPI_Gather_c", comm}}, start_gather, sendbuf, sendcount, sendtype, recvbuf,
      recvcount, recvtype, root);
}

int MPI_Gatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                  const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                  MPI_Comm comm) {
  return gatherv_form(Blocking{{"MPI_Gatherv_c", comm}}, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
      recvtype, root);
}

int MPI_Scatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return rooted_form(Blocking{{"MPI_Scatter_c", comm}}, start_scatter, sendbuf, sendcount, sendtype, recvbuf,
      recvcount, recvtype, root);
}

int MPI_Scatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                   MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                   MPI_Comm comm) {
  return scatterv_form(Blocking{{"MPI_Scatterv_c", comm}}, sendbuf, sendcounts, displs, sendtype, recvbuf,
      recvcount, recvtype, root);
}

int MPI_Allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return pair_form(Blocking{{"MPI_Allgather_c", comm}}, start_allgather, sendbuf, sendcount, sendtype, recvbuf,
      recvcount, recvtype);
}

int MPI_Allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                     const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                     MPI_Comm comm) {
  return allgatherv_form(Blocking{{"MPI_Allgatherv_c", comm}}, false, sendbuf, sendcount, sendtype, recvbuf,
      recvcounts, displs, recvtype);
}

int MPI_Alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return pair_form(Blocking{{"MPI_Alltoall_c", comm}}, start_alltoall, sendbuf, sendcount, sendtype, recvbuf,
      recvcount, recvtype);
}

int MPI_Alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                    MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                    const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoallv_form(Blocking{{"MPI_Alltoallv_c", comm}}, false, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
      recvcounts, rdispls, recvtype);
}

int MPI_Reduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return reduce_scatter_form(Blocking{{"MPI_Reduce_scatter_c", comm}}, sendbuf, recvbuf, recvcounts, datatype, op);
}

int MPI_Reduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
                               MPI_Op op, MPI_Comm comm) {
  return reduce_scatter_block_form(Blocking{{"MPI_Reduce_scatter_block_c", comm}}, sendbuf, recvbuf, recvcount,
      datatype, op);
}

int MPI_Scan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm) {
  return reduce_form(Blocking{{"MPI_Scan_c", comm}}, coll::Kind::scan, sendbuf, recvbuf, count, datatype, op, 0);
}

int MPI_Exscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm) {
  return reduce_form(Blocking{{"MPI_Exscan_c", comm}}, coll::Kind::exscan, sendbuf, recvbuf, count, datatype, op, 0);
}

int MPI_Alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                    const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  return alltoallw_form(Blocking{{"MPI_Alltoallw_c", comm}}, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
      recvcounts, rdispls, recvtypes);
}

int MPI_Neighbor_allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                             MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return pair_form(Blocking{{"MPI_Neighbor_allgather_c", comm}}, start_neighbor_allgather, sendbuf, sendcount,
      sendtype, recvbuf, recvcount, recvtype);
}

int MPI_Neighbor_allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                              const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                              MPI_Comm comm) {
  return allgatherv_form(Blocking{{"MPI_Neighbor_allgatherv_c", comm}}, true, sendbuf, sendcount, sendtype, recvbuf,
      recvcounts, displs, recvtype);
}

int MPI_Neighbor_alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                            MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return pair_form(Blocking{{"MPI_Neighbor_alltoall_c", comm}}, start_neighbor_alltoall, sendbuf, sendcount,
      sendtype, recvbuf, recvcount, recvtype);
}

int MPI_Neighbor_alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                             MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                             const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoallv_form(Blocking{{"MPI_Neighbor_alltoallv_c", comm}}, true, sendbuf, sendcounts, sdispls, sendtype,
      recvbuf, recvcounts, rdispls, recvtype);
}

int MPI_Neighbor_alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                             const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  return neighbor_alltoallw_form(Blocking{{"MPI_Neighbor_alltoallw_c", comm}}, sendbuf, sendcounts, sdispls,
      sendtypes, recvbuf, recvcounts, rdispls, recvtypes);
}

}  // extern "C"
