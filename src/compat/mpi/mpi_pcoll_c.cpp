// The large-count (`_c`) forms of the persistent collectives of MPI 4.
#include "mpi_coll_api.hpp"

using namespace interlace;
using namespace interlace::mpi;
using namespace interlace::mpi::collimpl;

extern "C" {

int MPI_Bcast_init_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                     MPI_Info info, MPI_Request* request) {
  const char* call = "MPI_Bcast_init_c";
  return persistent(call, comm, info, request, [&]() -> Starter {
    check_root_arg(call, comm, root);
    const int count_ = count_c(call, count, "count");
    const auto datatype_ = keep_type(datatype);
    return [=] { return start_bcast(call, buffer, count_, datatype_.h, root, comm); };
  });
}

int MPI_Reduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                      int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const char* call = "MPI_Reduce_init_c";
  return persistent(call, comm, info, request, [&]() -> Starter {
    check_root_arg(call, comm, root);
    const int count_ = count_c(call, count, "count");
    const auto datatype_ = keep_type(datatype);
    return [=] { return start_reduce(call, coll::Kind::reduce, sendbuf, recvbuf, count_, datatype_.h, op, root,
        comm); };
  });
}

int MPI_Allreduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                         MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const char* call = "MPI_Allreduce_init_c";
  return persistent(call, comm, info, request, [&]() -> Starter {
    const int count_ = count_c(call, count, "count");
    const auto datatype_ = keep_type(datatype);
    return [=] { return start_reduce(call, coll::Kind::allreduce, sendbuf, recvbuf, count_, datatype_.h, op, 0,
        comm); };
  });
}

int MPI_Gather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                      MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                      MPI_Request* request) {
  const char* call = "MPI_Gather_init_c";
  return persistent(call, comm, info, request, [&]() -> Starter {
    check_root_arg(call, comm, root);
    const int sendcount_ = count_c(call, sendcount, "sendcount");
    const auto sendtype_ = keep_type(sendtype);
    const int recvcount_ = count_c(call, recvcount, "recvcount");
    const auto recvtype_ = keep_type(recvtype);
    return [=] { return start_gather(call, sendbuf, sendcount_, sendtype_.h, recvbuf, recvcount_, recvtype_.h,
        root, comm); };
  });
}

int MPI_Gatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                       const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const char* call = "MPI_Gatherv_init_c";
  return persistent(call, comm, info, request, [&]() -> Starter {
    check_root_arg(call, comm, root);
    const int sendcount_ = count_c(call, sendcount, "sendcount");
    const auto sendtype_ = keep_type(sendtype);
    const auto recvcounts_ = counts_c(call, recvcounts, root_n(comm, root), "recvcounts");
    const auto displs_ = displs_c(call, displs, root_n(comm, root), "displs");
    const auto recvtype_ = keep_type(recvtype);
    return [=] { return start_gatherv(call, sendbuf, sendcount_, sendtype_.h, recvbuf, recvcounts_.get(),
        displs_.get(), recvtype_.h, root, comm); };
  });
}

int MPI_Scatter_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                       MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                       MPI_Request* request) {
  const char* call = "MPI_Scatter_init_c";
  return persistent(call, comm, info, request, [&]() -> Starter {
    check_root_arg(call, comm, root);
    const int sendcount_ = count_c(call, sendcount, "sendcount");
    const auto sendtype_ = keep_type(sendtype);
    const int recvcount_ = count_c(call, recvcount, "recvcount");
    const auto recvtype_ = keep_type(recvtype);
    return [=] { return start_scatter(call, sendbuf, sendcount_, sendtype_.h, recvbuf, recvcount_, recvtype_.h,
        root, comm); };
  });
}

int MPI_Scatterv_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                        MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                        int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const char* call = "MPI_Scatterv_init_c";
  return persistent(call, comm, info, request, [&]() -> Starter {
    check_root_arg(call, comm, root);
    const auto sendcounts_ = counts_c(call, sendcounts, root_n(comm, root), "sendcounts");
    const auto displs_ = displs_c(call, displs, root_n(comm, root), "displs");
    const auto sendtype_ = keep_type(sendtype);
    const int recvcount_ = count_c(call, recvcount, "recvcount");
    const auto recvtype_ = keep_type(recvtype);
    return [=] { return start_scatterv(call, sendbuf, sendcounts_.get(), displs_.get(), sendtype_.h, recvbuf,
        recvcount_, recvtype_.h, root, comm); };
  });
}

int MPI_Allgather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                         MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                         MPI_Request* request) {
  const char* call = "MPI_Allgather_init_c";
  return persistent(call, comm, info, request, [&]() -> Starter {
    const int sendcount_ = count_c(call, sendcount, "sendcount");
    const auto sendtype_ = keep_type(sendtype);
    const int recvcount_ = count_c(call, recvcount, "recvcount");
    const auto recvtype_ = keep_type(recvtype);
    return [=] { return start_allgather(call, sendbuf, sendcount_, sendtype_.h, recvbuf, recvcount_,
        recvtype_.h, comm); };
  });
}

int MPI_Allgatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                          const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                          MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const char* call = "MPI_Allgatherv_init_c";
  return persistent(call, comm, info, request, [&]() -> Starter {
    const int sendcount_ = count_c(call, sendcount, "sendcount");
    const auto sendtype_ = keep_type(sendtype);
    const auto recvcounts_ = counts_c(call, recvcounts, all_n(comm), "recvcounts");
    const auto displs_ = displs_c(call, displs, all_n(comm), "displs");
    const auto recvtype_ = keep_type(recvtype);
    return [=] { return start_allgatherv(call, sendbuf, sendcount_, sendtype_.h, recvbuf, recvcounts_.get(),
        displs_.get(), recvtype_.h, comm); };
  });
}

int MPI_Alltoall_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                        MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request* request) {
  const char* call = "MPI_Alltoall_init_c";
  return persistent(call, comm, info, request, [&]() -> Starter {
    const int sendcount_ = count_c(call, sendcount, "sendcount");
    const auto sendtype_ = keep_type(sendtype);
    const int recvcount_ = count_c(call, recvcount, "recvcount");
    const auto recvtype_ = keep_type(recvtype);
    return [=] { return start_alltoall(call, sendbuf, sendcount_, sendtype_.h, recvbuf, recvcount_, recvtype_.h,
        comm); };
  });
}

int MPI_Alltoallv_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                         MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                         const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                         MPI_Request* request) {
  const char* call = "MPI_Alltoallv_init_c";
  return persistent(call, comm, info, request, [&]() -> Starter {
    const auto sendcounts_ = counts_c(call, sendcounts, send_n(comm, sendbuf), "sendcounts");
    const auto sdispls_ = displs_c(call, sdispls, send_n(comm, sendbuf), "sdispls");
    const auto sendtype_ = keep_type(sendtype);
    const auto recvcounts_ = counts_c(call, recvcounts, all_n(comm), "recvcounts");
    const auto rdispls_ = displs_c(call, rdispls, all_n(comm), "rdispls");
    const auto recvtype_ = keep_type(recvtype);
    return [=] { return start_alltoallv(call, sendbuf, sendcounts_.get(), sdispls_.get(), sendtype_.h, recvbuf,
        recvcounts_.get(), rdispls_.get(), recvtype_.h, comm); };
  });
}

int MPI_Reduce_scatter_init_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                              MPI_Request* request) {
  const char* call = "MPI_Reduce_scatter_init_c";
  return persistent(call, comm, info, request, [&]() -> Starter {
    const auto recvcounts_ = counts_c(call, recvcounts, local_n(comm), "recvcounts");
    const auto datatype_ = keep_type(datatype);
    return [=] { return start_reduce_scatter(call, sendbuf, recvbuf, recvcounts_.get(), datatype_.h, op,
        comm); };
  });
}

int MPI_Reduce_scatter_block_init_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                    MPI_Request* request) {
  const char* call = "MPI_Reduce_scatter_block_init_c";
  return persistent(call, comm, info, request, [&]() -> Starter {
    const int recvcount_ = count_c(call, recvcount, "recvcount");
    const auto datatype_ = keep_type(datatype);
    return [=] { return start_reduce_scatter_block(call, sendbuf, recvbuf, recvcount_, datatype_.h, op,
        comm); };
  });
}

int MPI_Scan_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const char* call = "MPI_Scan_init_c";
  return persistent(call, comm, info, request, [&]() -> Starter {
    const int count_ = count_c(call, count, "count");
    const auto datatype_ = keep_type(datatype);
    return [=] { return start_reduce(call, coll::Kind::scan, sendbuf, recvbuf, count_, datatype_.h, op, 0,
        comm); };
  });
}

int MPI_Exscan_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                      MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const char* call = "MPI_Exscan_init_c";
  return persistent(call, comm, info, request, [&]() -> Starter {
    const int count_ = count_c(call, count, "count");
    const auto datatype_ = keep_type(datatype);
    return [=] { return start_reduce(call, coll::Kind::exscan, sendbuf, recvbuf, count_, datatype_.h, op, 0,
        comm); };
  });
}

int MPI_Alltoallw_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                         const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                         const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                         MPI_Request* request) {
  const char* call = "MPI_Alltoallw_init_c";
  return persistent(call, comm, info, request, [&]() -> Starter {
    const auto sendcounts_ = counts_c(call, sendcounts, send_n(comm, sendbuf), "sendcounts");
    const auto sdispls_ = displs_c(call, sdispls, send_n(comm, sendbuf), "sdispls");
    const auto sendtypes_ = keep_types(sendtypes, send_n(comm, sendbuf));
    const auto recvcounts_ = counts_c(call, recvcounts, all_n(comm), "recvcounts");
    const auto rdispls_ = displs_c(call, rdispls, all_n(comm), "rdispls");
    const auto recvtypes_ = keep_types(recvtypes, all_n(comm));
    return [=] { return start_alltoallw(call, sendbuf, sendcounts_.get(), sdispls_.get(), sendtypes_.get(),
        recvbuf, recvcounts_.get(), rdispls_.get(), recvtypes_.get(), comm); };
  });
}

int MPI_Neighbor_allgather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                  MPI_Info info, MPI_Request* request) {
  const char* call = "MPI_Neighbor_allgather_init_c";
  return persistent(call, comm, info, request, [&]() -> Starter {
    const int sendcount_ = count_c(call, sendcount, "sendcount");
    const auto sendtype_ = keep_type(sendtype);
    const int recvcount_ = count_c(call, recvcount, "recvcount");
    const auto recvtype_ = keep_type(recvtype);
    return [=] { return start_neighbor_allgather(call, sendbuf, sendcount_, sendtype_.h, recvbuf, recvcount_,
        recvtype_.h, comm); };
  });
}

int MPI_Neighbor_allgatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                   void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const char* call = "MPI_Neighbor_allgatherv_init_c";
  return persistent(call, comm, info, request, [&]() -> Starter {
    const int sendcount_ = count_c(call, sendcount, "sendcount");
    const auto sendtype_ = keep_type(sendtype);
    const auto recvcounts_ = counts_c(call, recvcounts, in_n(call, comm), "recvcounts");
    const auto displs_ = displs_c(call, displs, in_n(call, comm), "displs");
    const auto recvtype_ = keep_type(recvtype);
    return [=] { return start_neighbor_allgatherv(call, sendbuf, sendcount_, sendtype_.h, recvbuf,
        recvcounts_.get(), displs_.get(), recvtype_.h, comm); };
  });
}

int MPI_Neighbor_alltoall_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                 MPI_Request* request) {
  const char* call = "MPI_Neighbor_alltoall_init_c";
  return persistent(call, comm, info, request, [&]() -> Starter {
    const int sendcount_ = count_c(call, sendcount, "sendcount");
    const auto sendtype_ = keep_type(sendtype);
    const int recvcount_ = count_c(call, recvcount, "recvcount");
    const auto recvtype_ = keep_type(recvtype);
    return [=] { return start_neighbor_alltoall(call, sendbuf, sendcount_, sendtype_.h, recvbuf, recvcount_,
        recvtype_.h, comm); };
  });
}

int MPI_Neighbor_alltoallv_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                  MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                                  const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                  MPI_Request* request) {
  const char* call = "MPI_Neighbor_alltoallv_init_c";
  return persistent(call, comm, info, request, [&]() -> Starter {
    const auto sendcounts_ = counts_c(call, sendcounts, out_n(call, comm), "sendcounts");
    const auto sdispls_ = displs_c(call, sdispls, out_n(call, comm), "sdispls");
    const auto sendtype_ = keep_type(sendtype);
    const auto recvcounts_ = counts_c(call, recvcounts, in_n(call, comm), "recvcounts");
    const auto rdispls_ = displs_c(call, rdispls, in_n(call, comm), "rdispls");
    const auto recvtype_ = keep_type(recvtype);
    return [=] { return start_neighbor_alltoallv(call, sendbuf, sendcounts_.get(), sdispls_.get(), sendtype_.h,
        recvbuf, recvcounts_.get(), rdispls_.get(), recvtype_.h, comm); };
  });
}

int MPI_Neighbor_alltoallw_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                  const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                                  const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                  MPI_Info info, MPI_Request* request) {
  const char* call = "MPI_Neighbor_alltoallw_init_c";
  return persistent(call, comm, info, request, [&]() -> Starter {
    const auto sendcounts_ = counts_c(call, sendcounts, out_n(call, comm), "sendcounts");
    const auto sdispls_ = arr(sdispls, out_n(call, comm));
    const auto sendtypes_ = keep_types(sendtypes, out_n(call, comm));
    const auto recvcounts_ = counts_c(call, recvcounts, in_n(call, comm), "recvcounts");
    const auto rdispls_ = arr(rdispls, in_n(call, comm));
    const auto recvtypes_ = keep_types(recvtypes, in_n(call, comm));
    return [=] { return start_neighbor_alltoallw(call, sendbuf, sendcounts_.get(), sdispls_.get(),
        sendtypes_.get(), recvbuf, recvcounts_.get(), rdispls_.get(), recvtypes_.get(), comm); };
  });
}

}  // extern "C"
