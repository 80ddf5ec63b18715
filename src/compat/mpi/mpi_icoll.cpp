// The non-blocking MPI collectives: the collective is started on the engine and handed
// out as a request of kind coll; Wait/Test (mpi_request.cpp) run its on_complete, which
// unpacks derived-type results. Buffers and temps stay alive through ReqObj::keep.
#include "mpi_coll_impl.hpp"

using namespace interlace;
using namespace interlace::mpi;
using namespace interlace::mpi::collimpl;

extern "C" {

int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  const char* call = "MPI_Ibarrier";
  return guard(call, comm, [&] {
    check_request_arg(call, request);
    to_request(start_barrier(call, comm), comm, request);
  });
}

int MPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
               MPI_Request* request) {
  const char* call = "MPI_Ibcast";
  return guard(call, comm, [&] {
    check_request_arg(call, request);
    to_request(start_bcast(call, buffer, count, datatype, root, comm), comm, request);
  });
}

int MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                MPI_Comm comm, MPI_Request* request) {
  const char* call = "MPI_Ireduce";
  return guard(call, comm, [&] {
    check_request_arg(call, request);
    to_request(start_reduce(call, coll::Kind::reduce, sendbuf, recvbuf, count, datatype, op, root, comm),
        comm, request);
  });
}

int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Request* request) {
  const char* call = "MPI_Iallreduce";
  return guard(call, comm, [&] {
    check_request_arg(call, request);
    to_request(start_reduce(call, coll::Kind::allreduce, sendbuf, recvbuf, count, datatype, op, 0, comm),
        comm, request);
  });
}

int MPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  const char* call = "MPI_Igather";
  return guard(call, comm, [&] {
    check_request_arg(call, request);
    to_request(start_gather(call, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm),
        comm, request);
  });
}

int MPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request* request) {
  const char* call = "MPI_Igatherv";
  return guard(call, comm, [&] {
    check_request_arg(call, request);
    to_request(start_gatherv(call, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
        comm), comm, request);
  });
}

int MPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  const char* call = "MPI_Iscatter";
  return guard(call, comm, [&] {
    check_request_arg(call, request);
    to_request(start_scatter(call, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm),
        comm, request);
  });
}

int MPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                  void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request* request) {
  const char* call = "MPI_Iscatterv";
  return guard(call, comm, [&] {
    check_request_arg(call, request);
    to_request(start_scatterv(call, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
        comm), comm, request);
  });
}

int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  const char* call = "MPI_Iallgather";
  return guard(call, comm, [&] {
    check_request_arg(call, request);
    to_request(start_allgather(call, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm), comm,
        request);
  });
}

int MPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request* request) {
  const char* call = "MPI_Iallgatherv";
  return guard(call, comm, [&] {
    check_request_arg(call, request);
    to_request(start_allgatherv(call, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
        comm), comm, request);
  });
}

int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  const char* call = "MPI_Ialltoall";
  return guard(call, comm, [&] {
    check_request_arg(call, request);
    to_request(start_alltoall(call, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm), comm,
        request);
  });
}

int MPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                   void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                   MPI_Comm comm, MPI_Request* request) {
  const char* call = "MPI_Ialltoallv";
  return guard(call, comm, [&] {
    check_request_arg(call, request);
    to_request(start_alltoallv(call, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
        recvtype, comm), comm, request);
  });
}

int MPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  const char* call = "MPI_Ireduce_scatter";
  return guard(call, comm, [&] {
    check_request_arg(call, request);
    to_request(start_reduce_scatter(call, sendbuf, recvbuf, recvcounts, datatype, op, comm), comm, request);
  });
}

int MPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  const char* call = "MPI_Ireduce_scatter_block";
  return guard(call, comm, [&] {
    check_request_arg(call, request);
    to_request(start_reduce_scatter_block(call, sendbuf, recvbuf, recvcount, datatype, op, comm), comm,
        request);
  });
}

int MPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
              MPI_Request* request) {
  const char* call = "MPI_Iscan";
  return guard(call, comm, [&] {
    check_request_arg(call, request);
    to_request(start_reduce(call, coll::Kind::scan, sendbuf, recvbuf, count, datatype, op, 0, comm), comm,
        request);
  });
}

int MPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm, MPI_Request* request) {
  const char* call = "MPI_Iexscan";
  return guard(call, comm, [&] {
    check_request_arg(call, request);
    to_request(start_reduce(call, coll::Kind::exscan, sendbuf, recvbuf, count, datatype, op, 0, comm), comm,
        request);
  });
}

}  // extern "C"
