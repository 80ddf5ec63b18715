// The data-moving collectives of the MPI layer (gather, scatter, allgather, alltoall and
// their vector forms) on the collective engine, which moves bytes here. MPI allows the
// send and receive datatypes to differ when their type signatures agree, so each side
// is converted to bytes on its own and the byte counts must match (MPI_ERR_TRUNCATE
// naming both sides otherwise; a mismatch between ranks is found by the engine).
#include <climits>

#include "mpi_coll_stage.hpp"
#include "mpi_inter.hpp"  // intercommunicators dispatch to inter::*

namespace interlace::mpi::collimpl {

namespace {

constexpr Datatype kBytes = Datatype::bytes;

std::function<void()> finisher_v(const VStage& v, void* buf, const int* counts, const int* displs, int n,
                                 const TypeObj& t) {
  if (!v.s.tmp) return {};
  auto type = std::make_shared<TypeObj>(t);
  std::vector<int> c(counts, counts + n), d(displs, displs + n);
  return [v, buf, c, d, n, type] { unstage_v(v, buf, c.data(), d.data(), n, *type); };
}

// count elements per rank for all ranks of the communicator.
int all_ranks(const Ctx& k, int count, const char* what) {
  const long long n = static_cast<long long>(count) * k.size;
  if (n > INT_MAX)
    raise(MPI_ERR_COUNT, std::string(k.call) + ": " + what + " " + std::to_string(count) + " times " +
                             std::to_string(k.size) + " ranks is more elements than an int can count");
  return static_cast<int>(n);
}

[[noreturn]] void mismatch(const Ctx& k, int sc, const TypeObj& st, MPI_Datatype sh, size_t rb, const char* rdesc) {
  raise(MPI_ERR_TRUNCATE, std::string(k.call) + ": rank " + std::to_string(k.rank) + " sends " + describe(sc, st, sh) +
                              " but " + rdesc + " is " + std::to_string(rb) + " bytes");
}

void in_place_only_at_root(const Ctx& k, int root, const char* which) {
  raise(MPI_ERR_BUFFER, std::string(k.call) + ": MPI_IN_PLACE as " + which + " is only valid at the root (rank " +
                            std::to_string(root) + "), not at rank " + std::to_string(k.rank));
}

}  // namespace

Pending start_gather(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (is_inter(comm)) return inter::gather(call, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  Ctx k = open(call, comm);
  check_root(k, root);
  const bool is_root = k.rank == root, in_place = sendbuf == MPI_IN_PLACE;
  if (in_place && !is_root) in_place_only_at_root(k, root, "sendbuf");
  Stage in, out;
  size_t block = 0;
  if (!in_place) {
    check_nonneg(k, sendcount, "sendcount");
    in = stage_in(sendbuf, sendcount, type_obj(sendtype));
    block = in.bytes;
  }
  Pending p;
  if (is_root) {
    check_nonneg(k, recvcount, "recvcount");
    const TypeObj& rt = type_obj(recvtype);
    const size_t rb = data_bytes(rt, recvcount);
    if (!in_place && rb != block) mismatch(k, sendcount, type_obj(sendtype), sendtype, rb, "the root's block per rank");
    block = rb;
    const int n = all_ranks(k, recvcount, "recvcount");
    out = stage_out(recvbuf, n, rt, in_place);
    p.finish = finisher(out, recvbuf, n, rt);
  }
  p.req = coll::igather(*k.comm, in_place ? coll::IN_PLACE : in.data, out.data, block, kBytes, root);
  hold(p, in.tmp, out.tmp);
  return p;
}

Pending start_scatter(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (is_inter(comm)) return inter::scatter(call, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  Ctx k = open(call, comm);
  check_root(k, root);
  const bool is_root = k.rank == root, in_place = recvbuf == MPI_IN_PLACE;
  if (in_place && !is_root) in_place_only_at_root(k, root, "recvbuf");
  Stage in, out;
  size_t block = 0;
  if (is_root) {
    check_nonneg(k, sendcount, "sendcount");
    const TypeObj& st = type_obj(sendtype);
    in = stage_in(sendbuf, all_ranks(k, sendcount, "sendcount"), st);
    block = data_bytes(st, sendcount);
  }
  Pending p;
  if (!in_place) {
    check_nonneg(k, recvcount, "recvcount");
    const TypeObj& rt = type_obj(recvtype);
    out = stage_out(recvbuf, recvcount, rt, false);
    if (is_root && out.bytes != block) mismatch(k, sendcount, type_obj(sendtype), sendtype, out.bytes, "the root's receive");
    block = out.bytes;
    p.finish = finisher(out, recvbuf, recvcount, rt);
  }
  p.req = coll::iscatter(*k.comm, in.data, in_place ? coll::IN_PLACE : out.data, block, kBytes, root);
  hold(p, in.tmp, out.tmp);
  return p;
}

Pending start_allgather(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  if (is_inter(comm)) return inter::allgather(call, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  Ctx k = open(call, comm);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  check_nonneg(k, recvcount, "recvcount");
  const TypeObj& rt = type_obj(recvtype);
  const size_t block = data_bytes(rt, recvcount);
  Stage in, out;
  if (!in_place) {
    check_nonneg(k, sendcount, "sendcount");
    in = stage_in(sendbuf, sendcount, type_obj(sendtype));
    if (in.bytes != block) mismatch(k, sendcount, type_obj(sendtype), sendtype, block, "the block per rank received");
  }
  const int n = all_ranks(k, recvcount, "recvcount");
  out = stage_out(recvbuf, n, rt, in_place);
  Pending p;
  p.req = coll::iallgather(*k.comm, in_place ? coll::IN_PLACE : in.data, out.data, block, kBytes);
  p.finish = finisher(out, recvbuf, n, rt);
  hold(p, in.tmp, out.tmp);
  return p;
}

Pending start_alltoall(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  if (is_inter(comm)) return inter::alltoall(call, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  Ctx k = open(call, comm);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  check_nonneg(k, recvcount, "recvcount");
  const TypeObj& rt = type_obj(recvtype);
  const size_t block = data_bytes(rt, recvcount);
  Stage in, out;
  if (!in_place) {
    check_nonneg(k, sendcount, "sendcount");
    const TypeObj& st = type_obj(sendtype);
    if (data_bytes(st, sendcount) != block) mismatch(k, sendcount, st, sendtype, block, "the block per rank received");
    in = stage_in(sendbuf, all_ranks(k, sendcount, "sendcount"), st);
  }
  const int n = all_ranks(k, recvcount, "recvcount");
  out = stage_out(recvbuf, n, rt, in_place);
  Pending p;
  p.req = coll::ialltoall(*k.comm, in_place ? coll::IN_PLACE : in.data, out.data, block, kBytes);
  p.finish = finisher(out, recvbuf, n, rt);
  hold(p, in.tmp, out.tmp);
  return p;
}

Pending start_gatherv(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                      const int* recvcounts, const int* displs, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (is_inter(comm)) return inter::gatherv(call, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
  Ctx k = open(call, comm);
  check_root(k, root);
  const bool is_root = k.rank == root, in_place = sendbuf == MPI_IN_PLACE;
  if (in_place && !is_root) in_place_only_at_root(k, root, "sendbuf");
  Stage in;
  if (!in_place) {
    check_nonneg(k, sendcount, "sendcount");
    in = stage_in(sendbuf, sendcount, type_obj(sendtype));
  }
  Pending p;
  VStage out;
  if (is_root) {
    check_counts(k, recvcounts, displs, "recvcounts");
    const TypeObj& rt = type_obj(recvtype);
    out = stage_v(recvbuf, recvcounts, displs, k.size, rt, in_place);
    if (!in_place && in.bytes != out.counts[root])
      mismatch(k, sendcount, type_obj(sendtype), sendtype, out.counts[root], "recvcounts[root]");
    p.finish = finisher_v(out, recvbuf, recvcounts, displs, k.size, rt);
  }
  p.req = coll::igatherv(*k.comm, in_place ? coll::IN_PLACE : in.data, in.bytes, out.s.data, out.counts, out.displs,
                         kBytes, root);
  hold(p, in.tmp, out.s.tmp);
  return p;
}

Pending start_scatterv(const char* call, const void* sendbuf, const int* sendcounts, const int* displs,
                       MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm) {
  if (is_inter(comm)) return inter::scatterv(call, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
  Ctx k = open(call, comm);
  check_root(k, root);
  const bool is_root = k.rank == root, in_place = recvbuf == MPI_IN_PLACE;
  if (in_place && !is_root) in_place_only_at_root(k, root, "recvbuf");
  VStage in;
  if (is_root) {
    check_counts(k, sendcounts, displs, "sendcounts");
    in = stage_v(sendbuf, sendcounts, displs, k.size, type_obj(sendtype), true);
  }
  Pending p;
  Stage out;
  if (!in_place) {
    check_nonneg(k, recvcount, "recvcount");
    const TypeObj& rt = type_obj(recvtype);
    out = stage_out(recvbuf, recvcount, rt, false);
    if (is_root && out.bytes != in.counts[root])
      raise(MPI_ERR_TRUNCATE, std::string(call) + ": the root sends itself sendcounts[root] = " +
                                  std::to_string(sendcounts[root]) + " elements (" + std::to_string(in.counts[root]) +
                                  " bytes) but receives " + describe(recvcount, rt, recvtype));
    p.finish = finisher(out, recvbuf, recvcount, rt);
  }
  p.req = coll::iscatterv(*k.comm, in.s.data, in.counts, in.displs, in_place ? coll::IN_PLACE : out.data, out.bytes,
                          kBytes, root);
  hold(p, in.s.tmp, out.tmp);
  return p;
}

Pending start_allgatherv(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                         const int* recvcounts, const int* displs, MPI_Datatype recvtype, MPI_Comm comm) {
  if (is_inter(comm)) return inter::allgatherv(call, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
  Ctx k = open(call, comm);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  check_counts(k, recvcounts, displs, "recvcounts");
  const TypeObj& rt = type_obj(recvtype);
  Stage in;
  if (!in_place) {
    check_nonneg(k, sendcount, "sendcount");
    in = stage_in(sendbuf, sendcount, type_obj(sendtype));
  }
  VStage out = stage_v(recvbuf, recvcounts, displs, k.size, rt, in_place);
  if (!in_place && in.bytes != out.counts[k.rank])
    mismatch(k, sendcount, type_obj(sendtype), sendtype, out.counts[k.rank], "its own block in recvcounts");
  Pending p;
  p.req = coll::iallgatherv(*k.comm, in_place ? coll::IN_PLACE : in.data, in.bytes, out.s.data, out.counts,
                            out.displs, kBytes);
  p.finish = finisher_v(out, recvbuf, recvcounts, displs, k.size, rt);
  hold(p, in.tmp, out.s.tmp);
  return p;
}

Pending start_alltoallv(const char* call, const void* sendbuf, const int* sendcounts, const int* sdispls,
                        MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* rdispls,
                        MPI_Datatype recvtype, MPI_Comm comm) {
  if (is_inter(comm)) return inter::alltoallv(call, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
  Ctx k = open(call, comm);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  check_counts(k, recvcounts, rdispls, "recvcounts");
  const TypeObj& rt = type_obj(recvtype);
  VStage in;
  if (!in_place) {
    check_counts(k, sendcounts, sdispls, "sendcounts");
    in = stage_v(sendbuf, sendcounts, sdispls, k.size, type_obj(sendtype), true);
  }
  VStage out = stage_v(recvbuf, recvcounts, rdispls, k.size, rt, in_place);
  Pending p;
  p.req = coll::ialltoallv(*k.comm, in_place ? coll::IN_PLACE : in.s.data, in.counts, in.displs, out.s.data,
                           out.counts, out.displs, kBytes);
  p.finish = finisher_v(out, recvbuf, recvcounts, rdispls, k.size, rt);
  hold(p, in.s.tmp, out.s.tmp);
  return p;
}

}  // namespace interlace::mpi::collimpl
