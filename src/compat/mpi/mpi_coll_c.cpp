// The large-count (`_c`) forms of the blocking collectives of MPI 4: the counts and
// displacements are narrowed to what interlace carries (mpi_coll_api.hpp).
#include "mpi_coll_api.hpp"

using namespace interlace;
using namespace interlace::mpi;
using namespace interlace::mpi::collimpl;

extern "C" {

int MPI_Bcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  const char* call = "MPI_Bcast_c";
  return blocking(call, comm, [&] {
    const int count_ = count_c(call, count, "count");
    return start_bcast(call, buffer, count_, datatype, root, comm);
  });
}

int MPI_Reduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                 int root, MPI_Comm comm) {
  const char* call = "MPI_Reduce_c";
  return blocking(call, comm, [&] {
    const int count_ = count_c(call, count, "count");
    return start_reduce(call, coll::Kind::reduce, sendbuf, recvbuf, count_, datatype, op, root, comm);
  });
}

int MPI_Allreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm) {
  const char* call = "MPI_Allreduce_c";
  return blocking(call, comm, [&] {
    const int count_ = count_c(call, count, "count");
    return start_reduce(call, coll::Kind::allreduce, sendbuf, recvbuf, count_, datatype, op, 0, comm);
  });
}

int MPI_Gather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                 MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const char* call = "MPI_Gather_c";
  return blocking(call, comm, [&] {
    const int sendcount_ = count_c(call, sendcount, "sendcount");
    const int recvcount_ = count_c(call, recvcount, "recvcount");
    return start_gather(call, sendbuf, sendcount_, sendtype, recvbuf, recvcount_, recvtype, root, comm);
  });
}

int MPI_Gatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                  const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                  MPI_Comm comm) {
  const char* call = "MPI_Gatherv_c";
  return blocking(call, comm, [&] {
    const int sendcount_ = count_c(call, sendcount, "sendcount");
    const auto recvcounts_ = counts_c(call, recvcounts, root_n(comm, root), "recvcounts");
    const auto displs_ = displs_c(call, displs, root_n(comm, root), "displs");
    return start_gatherv(call, sendbuf, sendcount_, sendtype, recvbuf, recvcounts_.get(), displs_.get(),
        recvtype, root, comm);
  });
}

int MPI_Scatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const char* call = "MPI_Scatter_c";
  return blocking(call, comm, [&] {
    const int sendcount_ = count_c(call, sendcount, "sendcount");
    const int recvcount_ = count_c(call, recvcount, "recvcount");
    return start_scatter(call, sendbuf, sendcount_, sendtype, recvbuf, recvcount_, recvtype, root, comm);
  });
}

int MPI_Scatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                   MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                   MPI_Comm comm) {
  const char* call = "MPI_Scatterv_c";
  return blocking(call, comm, [&] {
    const auto sendcounts_ = counts_c(call, sendcounts, root_n(comm, root), "sendcounts");
    const auto displs_ = displs_c(call, displs, root_n(comm, root), "displs");
    const int recvcount_ = count_c(call, recvcount, "recvcount");
    return start_scatterv(call, sendbuf, sendcounts_.get(), displs_.get(), sendtype, recvbuf, recvcount_,
        recvtype, root, comm);
  });
}

int MPI_Allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const char* call = "MPI_Allgather_c";
  return blocking(call, comm, [&] {
    const int sendcount_ = count_c(call, sendcount, "sendcount");
    const int recvcount_ = count_c(call, recvcount, "recvcount");
    return start_allgather(call, sendbuf, sendcount_, sendtype, recvbuf, recvcount_, recvtype, comm);
  });
}

int MPI_Allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                     const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                     MPI_Comm comm) {
  const char* call = "MPI_Allgatherv_c";
  return blocking(call, comm, [&] {
    const int sendcount_ = count_c(call, sendcount, "sendcount");
    const auto recvcounts_ = counts_c(call, recvcounts, all_n(comm), "recvcounts");
    const auto displs_ = displs_c(call, displs, all_n(comm), "displs");
    return start_allgatherv(call, sendbuf, sendcount_, sendtype, recvbuf, recvcounts_.get(), displs_.get(),
        recvtype, comm);
  });
}

int MPI_Alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const char* call = "MPI_Alltoall_c";
  return blocking(call, comm, [&] {
    const int sendcount_ = count_c(call, sendcount, "sendcount");
    const int recvcount_ = count_c(call, recvcount, "recvcount");
    return start_alltoall(call, sendbuf, sendcount_, sendtype, recvbuf, recvcount_, recvtype, comm);
  });
}

int MPI_Alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                    MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                    const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  const char* call = "MPI_Alltoallv_c";
  return blocking(call, comm, [&] {
    const auto sendcounts_ = counts_c(call, sendcounts, send_n(comm, sendbuf), "sendcounts");
    const auto sdispls_ = displs_c(call, sdispls, send_n(comm, sendbuf), "sdispls");
    const auto recvcounts_ = counts_c(call, recvcounts, all_n(comm), "recvcounts");
    const auto rdispls_ = displs_c(call, rdispls, all_n(comm), "rdispls");
    return start_alltoallv(call, sendbuf, sendcounts_.get(), sdispls_.get(), sendtype, recvbuf,
        recvcounts_.get(), rdispls_.get(), recvtype, comm);
  });
}

int MPI_Reduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  const char* call = "MPI_Reduce_scatter_c";
  return blocking(call, comm, [&] {
    const auto recvcounts_ = counts_c(call, recvcounts, local_n(comm), "recvcounts");
    return start_reduce_scatter(call, sendbuf, recvbuf, recvcounts_.get(), datatype, op, comm);
  });
}

int MPI_Reduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
                               MPI_Op op, MPI_Comm comm) {
  const char* call = "MPI_Reduce_scatter_block_c";
  return blocking(call, comm, [&] {
    const int recvcount_ = count_c(call, recvcount, "recvcount");
    return start_reduce_scatter_block(call, sendbuf, recvbuf, recvcount_, datatype, op, comm);
  });
}

int MPI_Scan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm) {
  const char* call = "MPI_Scan_c";
  return blocking(call, comm, [&] {
    const int count_ = count_c(call, count, "count");
    return start_reduce(call, coll::Kind::scan, sendbuf, recvbuf, count_, datatype, op, 0, comm);
  });
}

int MPI_Exscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm) {
  const char* call = "MPI_Exscan_c";
  return blocking(call, comm, [&] {
    const int count_ = count_c(call, count, "count");
    return start_reduce(call, coll::Kind::exscan, sendbuf, recvbuf, count_, datatype, op, 0, comm);
  });
}

int MPI_Alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                    const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  const char* call = "MPI_Alltoallw_c";
  return blocking(call, comm, [&] {
    const auto sendcounts_ = counts_c(call, sendcounts, send_n(comm, sendbuf), "sendcounts");
    const auto sdispls_ = displs_c(call, sdispls, send_n(comm, sendbuf), "sdispls");
    const auto recvcounts_ = counts_c(call, recvcounts, all_n(comm), "recvcounts");
    const auto rdispls_ = displs_c(call, rdispls, all_n(comm), "rdispls");
    return start_alltoallw(call, sendbuf, sendcounts_.get(), sdispls_.get(), sendtypes, recvbuf,
        recvcounts_.get(), rdispls_.get(), recvtypes, comm);
  });
}

int MPI_Neighbor_allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                             MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const char* call = "MPI_Neighbor_allgather_c";
  return blocking(call, comm, [&] {
    const int sendcount_ = count_c(call, sendcount, "sendcount");
    const int recvcount_ = count_c(call, recvcount, "recvcount");
    return start_neighbor_allgather(call, sendbuf, sendcount_, sendtype, recvbuf, recvcount_, recvtype, comm);
  });
}

int MPI_Neighbor_allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                              const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                              MPI_Comm comm) {
  const char* call = "MPI_Neighbor_allgatherv_c";
  return blocking(call, comm, [&] {
    const int sendcount_ = count_c(call, sendcount, "sendcount");
    const auto recvcounts_ = counts_c(call, recvcounts, in_n(call, comm), "recvcounts");
    const auto displs_ = displs_c(call, displs, in_n(call, comm), "displs");
    return start_neighbor_allgatherv(call, sendbuf, sendcount_, sendtype, recvbuf, recvcounts_.get(),
        displs_.get(), recvtype, comm);
  });
}

int MPI_Neighbor_alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                            MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const char* call = "MPI_Neighbor_alltoall_c";
  return blocking(call, comm, [&] {
    const int sendcount_ = count_c(call, sendcount, "sendcount");
    const int recvcount_ = count_c(call, recvcount, "recvcount");
    return start_neighbor_alltoall(call, sendbuf, sendcount_, sendtype, recvbuf, recvcount_, recvtype, comm);
  });
}

int MPI_Neighbor_alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                             MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                             const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  const char* call = "MPI_Neighbor_alltoallv_c";
  return blocking(call, comm, [&] {
    const auto sendcounts_ = counts_c(call, sendcounts, out_n(call, comm), "sendcounts");
    const auto sdispls_ = displs_c(call, sdispls, out_n(call, comm), "sdispls");
    const auto recvcounts_ = counts_c(call, recvcounts, in_n(call, comm), "recvcounts");
    const auto rdispls_ = displs_c(call, rdispls, in_n(call, comm), "rdispls");
    return start_neighbor_alltoallv(call, sendbuf, sendcounts_.get(), sdispls_.get(), sendtype, recvbuf,
        recvcounts_.get(), rdispls_.get(), recvtype, comm);
  });
}

int MPI_Neighbor_alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                             const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  const char* call = "MPI_Neighbor_alltoallw_c";
  return blocking(call, comm, [&] {
    const auto sendcounts_ = counts_c(call, sendcounts, out_n(call, comm), "sendcounts");
    const auto recvcounts_ = counts_c(call, recvcounts, in_n(call, comm), "recvcounts");
    return start_neighbor_alltoallw(call, sendbuf, sendcounts_.get(), sdispls, sendtypes, recvbuf,
        recvcounts_.get(), rdispls, recvtypes, comm);
  });
}

}  // extern "C"
