// The persistent collectives of MPI 4 (MPI_*_init): arguments are checked and the
// arrays copied at init; each MPI_Start runs the collective again (mpi_coll_api.cpp).
#include "mpi_coll_api.hpp"

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
  const char* call = "MPI_Bcast_init";
  return persistent(call, comm, info, request, [&]() -> Starter {
    check_root_arg(call, comm, root);
    const auto datatype_ = keep_type(datatype);
    return [=] { return start_bcast(call, buffer, count, datatype_.h, root, comm); };
  });
}

int MPI_Reduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                    MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const char* call = "MPI_Reduce_init";
  return persistent(call, comm, info, request, [&]() -> Starter {
    check_root_arg(call, comm, root);
    const auto datatype_ = keep_type(datatype);
    return [=] { return start_reduce(call, coll::Kind::reduce, sendbuf, recvbuf, count, datatype_.h, op, root,
        comm); };
  });
}

int MPI_Allreduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const char* call = "MPI_Allreduce_init";
  return persistent(call, comm, info, request, [&]() -> Starter {
    const auto datatype_ = keep_type(datatype);
    return [=] { return start_reduce(call, coll::Kind::allreduce, sendbuf, recvbuf, count, datatype_.h, op, 0,
        comm); };
  });
}

int MPI_Gather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const char* call = "MPI_Gather_init";
  return persistent(call, comm, info, request, [&]() -> Starter {
    check_root_arg(call, comm, root);
    const auto sendtype_ = keep_type(sendtype);
    const auto recvtype_ = keep_type(recvtype);
    return [=] { return start_gather(call, sendbuf, sendcount, sendtype_.h, recvbuf, recvcount, recvtype_.h,
        root, comm); };
  });
}

int MPI_Gatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm,
                     MPI_Info info, MPI_Request* request) {
  const char* call = "MPI_Gatherv_init";
  return persistent(call, comm, info, request, [&]() -> Starter {
    check_root_arg(call, comm, root);
    const auto sendtype_ = keep_type(sendtype);
    const auto recvcounts_ = arr(recvcounts, root_n(comm, root));
    const auto displs_ = arr(displs, root_n(comm, root));
    const auto recvtype_ = keep_type(recvtype);
    return [=] { return start_gatherv(call, sendbuf, sendcount, sendtype_.h, recvbuf, recvcounts_.get(),
        displs_.get(), recvtype_.h, root, comm); };
  });
}

int MPI_Scatter_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const char* call = "MPI_Scatter_init";
  return persistent(call, comm, info, request, [&]() -> Starter {
    check_root_arg(call, comm, root);
    const auto sendtype_ = keep_type(sendtype);
    const auto recvtype_ = keep_type(recvtype);
    return [=] { return start_scatter(call, sendbuf, sendcount, sendtype_.h, recvbuf, recvcount, recvtype_.h,
        root, comm); };
  });
}

int MPI_Scatterv_init(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                      void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                      MPI_Info info, MPI_Request* request) {
  const char* call = "MPI_Scatterv_init";
  return persistent(call, comm, info, request, [&]() -> Starter {
    check_root_arg(call, comm, root);
    const auto sendcounts_ = arr(sendcounts, root_n(comm, root));
    const auto displs_ = arr(displs, root_n(comm, root));
    const auto sendtype_ = keep_type(sendtype);
    const auto recvtype_ = keep_type(recvtype);
    return [=] { return start_scatterv(call, sendbuf, sendcounts_.get(), displs_.get(), sendtype_.h, recvbuf,
        recvcount, recvtype_.h, root, comm); };
  });
}

int MPI_Allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const char* call = "MPI_Allgather_init";
  return persistent(call, comm, info, request, [&]() -> Starter {
    const auto sendtype_ = keep_type(sendtype);
    const auto recvtype_ = keep_type(recvtype);
    return [=] { return start_allgather(call, sendbuf, sendcount, sendtype_.h, recvbuf, recvcount, recvtype_.h,
        comm); };
  });
}

int MPI_Allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Info info, MPI_Request* request) {
  const char* call = "MPI_Allgatherv_init";
  return persistent(call, comm, info, request, [&]() -> Starter {
    const auto sendtype_ = keep_type(sendtype);
    const auto recvcounts_ = arr(recvcounts, all_n(comm));
    const auto displs_ = arr(displs, all_n(comm));
    const auto recvtype_ = keep_type(recvtype);
    return [=] { return start_allgatherv(call, sendbuf, sendcount, sendtype_.h, recvbuf, recvcounts_.get(),
        displs_.get(), recvtype_.h, comm); };
  });
}

int MPI_Alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const char* call = "MPI_Alltoall_init";
  return persistent(call, comm, info, request, [&]() -> Starter {
    const auto sendtype_ = keep_type(sendtype);
    const auto recvtype_ = keep_type(recvtype);
    return [=] { return start_alltoall(call, sendbuf, sendcount, sendtype_.h, recvbuf, recvcount, recvtype_.h,
        comm); };
  });
}

int MPI_Alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                       void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                       MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const char* call = "MPI_Alltoallv_init";
  return persistent(call, comm, info, request, [&]() -> Starter {
    const auto sendcounts_ = arr(sendcounts, send_n(comm, sendbuf));
    const auto sdispls_ = arr(sdispls, send_n(comm, sendbuf));
    const auto sendtype_ = keep_type(sendtype);
    const auto recvcounts_ = arr(recvcounts, all_n(comm));
    const auto rdispls_ = arr(rdispls, all_n(comm));
    const auto recvtype_ = keep_type(recvtype);
    return [=] { return start_alltoallv(call, sendbuf, sendcounts_.get(), sdispls_.get(), sendtype_.h, recvbuf,
        recvcounts_.get(), rdispls_.get(), recvtype_.h, comm); };
  });
}

int MPI_Reduce_scatter_init(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype,
                            MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const char* call = "MPI_Reduce_scatter_init";
  return persistent(call, comm, info, request, [&]() -> Starter {
    const auto recvcounts_ = arr(recvcounts, local_n(comm));
    const auto datatype_ = keep_type(datatype);
    return [=] { return start_reduce_scatter(call, sendbuf, recvbuf, recvcounts_.get(), datatype_.h, op,
        comm); };
  });
}

int MPI_Reduce_scatter_block_init(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype,
                                  MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const char* call = "MPI_Reduce_scatter_block_init";
  return persistent(call, comm, info, request, [&]() -> Starter {
    const auto datatype_ = keep_type(datatype);
    return [=] { return start_reduce_scatter_block(call, sendbuf, recvbuf, recvcount, datatype_.h, op, comm); };
  });
}

int MPI_Scan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const char* call = "MPI_Scan_init";
  return persistent(call, comm, info, request, [&]() -> Starter {
    const auto datatype_ = keep_type(datatype);
    return [=] { return start_reduce(call, coll::Kind::scan, sendbuf, recvbuf, count, datatype_.h, op, 0,
        comm); };
  });
}

int MPI_Exscan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const char* call = "MPI_Exscan_init";
  return persistent(call, comm, info, request, [&]() -> Starter {
    const auto datatype_ = keep_type(datatype);
    return [=] { return start_reduce(call, coll::Kind::exscan, sendbuf, recvbuf, count, datatype_.h, op, 0,
        comm); };
  });
}

int MPI_Alltoallw_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                       const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                       const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                       MPI_Request* request) {
  const char* call = "MPI_Alltoallw_init";
  return persistent(call, comm, info, request, [&]() -> Starter {
    const auto sendcounts_ = arr(sendcounts, send_n(comm, sendbuf));
    const auto sdispls_ = arr(sdispls, send_n(comm, sendbuf));
    const auto sendtypes_ = keep_types(sendtypes, send_n(comm, sendbuf));
    const auto recvcounts_ = arr(recvcounts, all_n(comm));
    const auto rdispls_ = arr(rdispls, all_n(comm));
    const auto recvtypes_ = keep_types(recvtypes, all_n(comm));
    return [=] { return start_alltoallw(call, sendbuf, sendcounts_.get(), sdispls_.get(), sendtypes_.get(),
        recvbuf, recvcounts_.get(), rdispls_.get(), recvtypes_.get(), comm); };
  });
}

int MPI_Neighbor_allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                MPI_Request* request) {
  const char* call = "MPI_Neighbor_allgather_init";
  return persistent(call, comm, info, request, [&]() -> Starter {
    const auto sendtype_ = keep_type(sendtype);
    const auto recvtype_ = keep_type(recvtype);
    return [=] { return start_neighbor_allgather(call, sendbuf, sendcount, sendtype_.h, recvbuf, recvcount,
        recvtype_.h, comm); };
  });
}

int MPI_Neighbor_allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                 MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const char* call = "MPI_Neighbor_allgatherv_init";
  return persistent(call, comm, info, request, [&]() -> Starter {
    const auto sendtype_ = keep_type(sendtype);
    const auto recvcounts_ = arr(recvcounts, in_n(call, comm));
    const auto displs_ = arr(displs, in_n(call, comm));
    const auto recvtype_ = keep_type(recvtype);
    return [=] { return start_neighbor_allgatherv(call, sendbuf, sendcount, sendtype_.h, recvbuf,
        recvcounts_.get(), displs_.get(), recvtype_.h, comm); };
  });
}

int MPI_Neighbor_alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                               int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                               MPI_Request* request) {
  const char* call = "MPI_Neighbor_alltoall_init";
  return persistent(call, comm, info, request, [&]() -> Starter {
    const auto sendtype_ = keep_type(sendtype);
    const auto recvtype_ = keep_type(recvtype);
    return [=] { return start_neighbor_alltoall(call, sendbuf, sendcount, sendtype_.h, recvbuf, recvcount,
        recvtype_.h, comm); };
  });
}

int MPI_Neighbor_alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                MPI_Request* request) {
  const char* call = "MPI_Neighbor_alltoallv_init";
  return persistent(call, comm, info, request, [&]() -> Starter {
    const auto sendcounts_ = arr(sendcounts, out_n(call, comm));
    const auto sdispls_ = arr(sdispls, out_n(call, comm));
    const auto sendtype_ = keep_type(sendtype);
    const auto recvcounts_ = arr(recvcounts, in_n(call, comm));
    const auto rdispls_ = arr(rdispls, in_n(call, comm));
    const auto recvtype_ = keep_type(recvtype);
    return [=] { return start_neighbor_alltoallv(call, sendbuf, sendcounts_.get(), sdispls_.get(), sendtype_.h,
        recvbuf, recvcounts_.get(), rdispls_.get(), recvtype_.h, comm); };
  });
}

int MPI_Neighbor_alltoallw_init(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                MPI_Info info, MPI_Request* request) {
  const char* call = "MPI_Neighbor_alltoallw_init";
  return persistent(call, comm, info, request, [&]() -> Starter {
    const auto sendcounts_ = arr(sendcounts, out_n(call, comm));
    const auto sdispls_ = arr(sdispls, out_n(call, comm));
    const auto sendtypes_ = keep_types(sendtypes, out_n(call, comm));
    const auto recvcounts_ = arr(recvcounts, in_n(call, comm));
    const auto rdispls_ = arr(rdispls, in_n(call, comm));
    const auto recvtypes_ = keep_types(recvtypes, in_n(call, comm));
    return [=] { return start_neighbor_alltoallw(call, sendbuf, sendcounts_.get(), sdispls_.get(),
        sendtypes_.get(), recvbuf, recvcounts_.get(), rdispls_.get(), recvtypes_.get(), comm); };
  });
}

}  // extern "C"
