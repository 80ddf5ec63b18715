// Barrier, bcast and the reducing collectives of the MPI layer on the collective engine.
// Reductions run on the engine datatype/count/op that reduction_for() gives for the
// MPI (op, datatype) pair, over packed bytes when the MPI datatype is not contiguous.
#include <algorithm>
#include <climits>

#include "mpi_coll_stage.hpp"
#include "mpi_inter.hpp"  // intercommunicators dispatch to inter::*

namespace interlace::mpi::collimpl {

namespace {

// An op over an MPI element that spans several engine elements (Reduction::unit > 1:
// a derived or pair type reduced as bytes) must see whole MPI elements: algorithms that cut the buffer
// into per-rank parts could split one. Such reductions use whole-buffer algorithms and
// segments that are a multiple of the element.
coll::Options options_for(const Reduction& r, coll::Kind kind) {
  coll::Options o;
  if (r.unit <= 1) return o;
  const size_t unit = r.unit * datatype_size(r.dt);
  o.segment_bytes = unit * std::max<size_t>(1, (64 * 1024) / unit);
  switch (kind) {
    case coll::Kind::allreduce: o.algorithm = "reduce_bcast"; break;
    case coll::Kind::reduce_scatter:
    case coll::Kind::reduce_scatter_block: o.algorithm = "reduce_scatterv"; break;
    default: o.algorithm = "linear"; break;  // reduce, scan, exscan
  }
  return o;
}

}  // namespace

Pending start_barrier(const char* call, MPI_Comm comm) {
  if (is_inter(comm)) return inter::barrier(call, comm);
  Ctx k = open(call, comm);
  return Pending{coll::ibarrier(*k.comm), {}, {}};
}

Pending start_bcast(const char* call, void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  if (is_inter(comm)) return inter::bcast(call, buf, count, type, root, comm);
  Ctx k = open(call, comm);
  check_nonneg(k, count, "count");
  check_root(k, root);
  const TypeObj& t = type_obj(type);
  const bool is_root = k.rank == root;
  Stage s = is_root ? stage_in(buf, count, t) : stage_out(buf, count, t, false);
  Pending p;
  p.req = coll::ibcast(*k.comm, s.data, s.bytes, Datatype::bytes, root);
  if (!is_root) p.finish = finisher(s, buf, count, t);
  hold(p, s.tmp);
  return p;
}

Pending start_reduce(const char* call, coll::Kind kind, const void* sendbuf, void* recvbuf, int count,
                     MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm) {
  if (is_inter(comm)) return inter::reduce(call, kind, sendbuf, recvbuf, count, type, op, root, comm);
  Ctx k = open(call, comm);
  check_nonneg(k, count, "count");
  const bool rooted = kind == coll::Kind::reduce;
  if (rooted) check_root(k, root);
  const TypeObj& t = type_obj(type);
  const Reduction r = reduction_for(op, type, count);
  const bool receives = !rooted || k.rank == root;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (in_place && !receives)
    raise(MPI_ERR_BUFFER, std::string(call) + ": MPI_IN_PLACE is only valid at the root (rank " +
                              std::to_string(root) + "), not at rank " + std::to_string(k.rank));
  Stage out, in;
  if (receives) out = stage_out(recvbuf, count, t, in_place);
  if (!in_place) in = stage_in(sendbuf, count, t);
  const void* send = in_place ? coll::IN_PLACE : in.data;
  const coll::Options o = options_for(r, kind);
  Pending p;
  switch (kind) {
    case coll::Kind::reduce: p.req = coll::ireduce(*k.comm, send, out.data, r.count, r.dt, r.op, root, o); break;
    case coll::Kind::allreduce: p.req = coll::iallreduce(*k.comm, send, out.data, r.count, r.dt, r.op, o); break;
    case coll::Kind::scan: p.req = coll::iscan(*k.comm, send, out.data, r.count, r.dt, r.op, o); break;
    case coll::Kind::exscan: p.req = coll::iexscan(*k.comm, send, out.data, r.count, r.dt, r.op, o); break;
    default: raise(MPI_ERR_INTERN, std::string(call) + ": not a reduction");
  }
  if (receives) p.finish = finisher(out, recvbuf, count, t);
  hold(p, in.tmp, out.tmp);
  return p;
}

namespace {

Pending reduce_scatter_common(const Ctx& k, const void* sendbuf, void* recvbuf, const std::vector<int>& counts,
                              bool block_form, MPI_Datatype type, MPI_Op op) {
  long long sum = 0;
  for (int c : counts) sum += c;
  if (sum > INT_MAX)
    raise(MPI_ERR_COUNT, std::string(k.call) + ": the counts add up to " + std::to_string(sum) +
                             " elements, more than an int can count");
  const int total = static_cast<int>(sum);
  const TypeObj& t = type_obj(type);
  const Reduction r = reduction_for(op, type, total);
  const size_t per = total > 0 ? r.count / static_cast<size_t>(total) : 1;  // engine elements per element
  const int mine = counts[k.rank];
  const bool in_place = sendbuf == MPI_IN_PLACE;
  Stage in, out;
  if (in_place) {
    out = stage_out(recvbuf, total, t, true);  // input is all of recvbuf; result its first block
  } else {
    in = stage_in(sendbuf, total, t);
    out = stage_out(recvbuf, mine, t, false);
  }
  const void* send = in_place ? coll::IN_PLACE : in.data;
  const coll::Kind kind = block_form ? coll::Kind::reduce_scatter_block : coll::Kind::reduce_scatter;
  const coll::Options o = options_for(r, kind);
  Pending p;
  if (block_form) {
    p.req = coll::ireduce_scatter_block(*k.comm, send, out.data, static_cast<size_t>(mine) * per, r.dt, r.op, o);
  } else {
    std::vector<size_t> ecounts(counts.size());
    for (size_t i = 0; i < counts.size(); ++i) ecounts[i] = static_cast<size_t>(counts[i]) * per;
    p.req = coll::ireduce_scatter(*k.comm, send, out.data, ecounts, r.dt, r.op, o);
  }
  p.finish = finisher(out, recvbuf, mine, t);  // unpacks only this rank's block
  hold(p, in.tmp, out.tmp);
  return p;
}

}  // namespace

Pending start_reduce_scatter(const char* call, const void* sendbuf, void* recvbuf, const int* recvcounts,
                             MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  if (is_inter(comm)) return inter::reduce_scatter(call, sendbuf, recvbuf, recvcounts, type, op, comm);
  Ctx k = open(call, comm);
  if (!recvcounts) raise(MPI_ERR_ARG, std::string(call) + ": recvcounts is null");
  std::vector<int> counts(recvcounts, recvcounts + k.size);
  for (int i = 0; i < k.size; ++i)
    if (counts[i] < 0)
      raise(MPI_ERR_COUNT, std::string(call) + ": recvcounts[" + std::to_string(i) + "] " +
                               std::to_string(counts[i]) + " is negative");
  return reduce_scatter_common(k, sendbuf, recvbuf, counts, false, type, op);
}

Pending start_reduce_scatter_block(const char* call, const void* sendbuf, void* recvbuf, int recvcount,
                                   MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  if (is_inter(comm)) return inter::reduce_scatter_block(call, sendbuf, recvbuf, recvcount, type, op, comm);
  Ctx k = open(call, comm);
  check_nonneg(k, recvcount, "recvcount");
  return reduce_scatter_common(k, sendbuf, recvbuf, std::vector<int>(k.size, recvcount), true, type, op);
}

}  // namespace interlace::mpi::collimpl
