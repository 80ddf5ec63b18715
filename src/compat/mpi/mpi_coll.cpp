// The blocking MPI collectives: the engine's non-blocking collective, waited for at
// once (mpi_coll_reduce.cpp and mpi_coll_move.cpp start them).
#include "mpi_coll_impl.hpp"

using namespace interlace;
using namespace interlace::mpi;
using namespace interlace::mpi::collimpl;

extern "C" {

int MPI_Barrier(MPI_Comm comm) {
  const char* call = "MPI_Barrier";
  return guard(call, comm, [&] { complete(start_barrier(call, comm)); });
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  const char* call = "MPI_Bcast";
  return guard(call, comm, [&] { complete(start_bcast(call, buffer, count, datatype, root, comm)); });
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
               MPI_Comm comm) {
  const char* call = "MPI_Reduce";
  return guard(call, comm, [&] { complete(start_reduce(call, coll::Kind::reduce, sendbuf, recvbuf, count,
      datatype, op, root, comm)); });
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm) {
  const char* call = "MPI_Allreduce";
  return guard(call, comm, [&] { complete(start_reduce(call, coll::Kind::allreduce, sendbuf, recvbuf, count,
      datatype, op, 0, comm)); });
}

int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const char* call = "MPI_Gather";
  return guard(call, comm, [&] { complete(start_gather(call, sendbuf, sendcount, sendtype, recvbuf, recvcount,
      recvtype, root, comm)); });
}

int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const char* call = "MPI_Gatherv";
  return guard(call, comm, [&] { complete(start_gatherv(call, sendbuf, sendcount, sendtype, recvbuf,
      recvcounts, displs, recvtype, root, comm)); });
}

int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const char* call = "MPI_Scatter";
  return guard(call, comm, [&] { complete(start_scatter(call, sendbuf, sendcount, sendtype, recvbuf,
      recvcount, recvtype, root, comm)); });
}

int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const char* call = "MPI_Scatterv";
  return guard(call, comm, [&] { complete(start_scatterv(call, sendbuf, sendcounts, displs, sendtype, recvbuf,
      recvcount, recvtype, root, comm)); });
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
  const char* call = "MPI_Allgather";
  return guard(call, comm, [&] { complete(start_allgather(call, sendbuf, sendcount, sendtype, recvbuf,
      recvcount, recvtype, comm)); });
}

int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  const char* call = "MPI_Allgatherv";
  return guard(call, comm, [&] { complete(start_allgatherv(call, sendbuf, sendcount, sendtype, recvbuf,
      recvcounts, displs, recvtype, comm)); });
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm) {
  const char* call = "MPI_Alltoall";
  return guard(call, comm, [&] { complete(start_alltoall(call, sendbuf, sendcount, sendtype, recvbuf,
      recvcount, recvtype, comm)); });
}

int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                  MPI_Comm comm) {
  const char* call = "MPI_Alltoallv";
  return guard(call, comm, [&] { complete(start_alltoallv(call, sendbuf, sendcounts, sdispls, sendtype,
      recvbuf, recvcounts, rdispls, recvtype, comm)); });
}

int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm) {
  const char* call = "MPI_Reduce_scatter";
  return guard(call, comm, [&] { complete(start_reduce_scatter(call, sendbuf, recvbuf, recvcounts, datatype,
      op, comm)); });
}

int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype,
                             MPI_Op op, MPI_Comm comm) {
  const char* call = "MPI_Reduce_scatter_block";
  return guard(call, comm, [&] { complete(start_reduce_scatter_block(call, sendbuf, recvbuf, recvcount,
      datatype, op, comm)); });
}

int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  const char* call = "MPI_Scan";
  return guard(call, comm, [&] { complete(start_reduce(call, coll::Kind::scan, sendbuf, recvbuf, count,
      datatype, op, 0, comm)); });
}

int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm) {
  const char* call = "MPI_Exscan";
  return guard(call, comm, [&] { complete(start_reduce(call, coll::Kind::exscan, sendbuf, recvbuf, count,
      datatype, op, 0, comm)); });
}

}  // extern "C"
