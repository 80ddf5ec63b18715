// The collective entry points: check arguments (naming bad values), resolve
// IN_PLACE, pick the algorithm, build its schedule and launch it.
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>

#include "coll/check.hpp"
#include "coll/compression.hpp"
#include "coll/executor.hpp"
#include "coll/registry.hpp"
#include "interlace/coll/coll.hpp"
#include "interlace/core/error.hpp"

namespace interlace::coll {

namespace {

using Keep = std::vector<std::shared_ptr<void>>;

// No process addresses more than 2^48 bytes on the machines interlace runs on (x86-64
// and AArch64 user space is 2^47-2^48; 5-level paging allows more, no node has the
// memory): a buffer claimed larger can only be a bad count.
constexpr size_t kMaxBufferBytes = size_t{1} << 48;

struct Call {
  const std::shared_ptr<groups::CommState>* comm;
  Args a;
  Keep keep;
  const char* name;
  bool check_op = false;  // a.op must be checked against a.dt (done once per plan)
};

Call begin(const Communicator& c, Kind k, Datatype dt, const Options& o) {
  const char* name = kind_name(k).data();
  Call call{&comm_state(c, name), {}, {}, name};
  // Checked only where the job has foreign ranks: the call builds a std::string of the name.
  if ((*call.comm)->ctx().foreign_count() > 0) (*call.comm)->ctx().require_no_foreign((*call.comm)->world_of, name);
  if (static_cast<unsigned>(dt) >= static_cast<unsigned>(kDatatypeCount))
    throw_error(Errc::invalid_datatype, std::string(name) + ": datatype code " +
                                            std::to_string(static_cast<int>(dt)) + " is not a valid datatype");
  Args& a = call.a;
  a.kind = k;
  a.rank = (*call.comm)->rank;
  a.size = (*call.comm)->size();
  a.dt = dt;
  a.esize = datatype_size(dt);
  a.segment_bytes = o.segment_bytes;  // 0: the rank's default, resolved in go()
  return call;
}

void check_root(const Call& c, int root) {
  if (root < 0 || root >= c.a.size)
    throw_error(Errc::invalid_rank, std::string(c.name) + ": root " + std::to_string(root) +
                                        " is out of range for a communicator of size " + std::to_string(c.a.size));
}

void check_buf(const Call& c, const void* p, size_t count, const char* what) {
  if (count > 0 && p == nullptr)
    throw_error(Errc::invalid_argument, std::string(c.name) + ": " + what + " is null but holds " +
                                            std::to_string(count) + " elements");
}

std::vector<size_t> check_counts(const Call& c, Counts v, const char* what) {
  if (v.size() != static_cast<size_t>(c.a.size))
    throw_error(Errc::invalid_count, std::string(c.name) + ": " + what + " has " + std::to_string(v.size()) +
                                         " entries but the communicator has " + std::to_string(c.a.size) + " ranks");
  return {v.begin(), v.end()};
}

// Counts are checked before anything is allocated or sent, from the arguments alone,
// so every rank that passed the same values refuses them the same way and the
// communicator stays usable. Without this a count whose byte size overflowed size_t
// (2^62 doubles) became a tiny buffer and every rank crashed, and a huge one failed
// to allocate on some ranks while the others waited for them forever.
[[noreturn]] void too_large(const Call& c, const std::string& what) {
  throw_error(Errc::invalid_count, std::string(c.name) + ": " + what + " exceeds the " +
                                       std::to_string(kMaxBufferBytes) +
                                       " bytes (2^48) a process can address");
}

// Bytes of `count` elements times `times` (ranks), refused when beyond kMaxBufferBytes.
size_t checked_bytes(const Call& c, size_t count, size_t times, const char* what) {
  const size_t limit = kMaxBufferBytes / c.a.esize;
  if (count > limit || (times > 1 && count > limit / times))
    too_large(c, std::string(what) + " " + std::to_string(count) + " of " +
                     std::string(datatype_name(c.a.dt)) +
                     (times > 1 ? " times " + std::to_string(times) + " ranks" : std::string()));
  return count * times * c.a.esize;
}

// A vector layout: every block [displs[i], displs[i] + counts[i]) must be addressable.
void check_layout(const Call& c, const std::vector<size_t>& counts, const std::vector<size_t>& displs,
                  const char* cname, const char* dname) {
  const size_t limit = kMaxBufferBytes / c.a.esize;
  for (size_t i = 0; i < counts.size(); ++i) {
    const std::string at = "[" + std::to_string(i) + "]";
    if (counts[i] > limit) too_large(c, std::string(cname) + at + " = " + std::to_string(counts[i]) + " elements");
    if (i < displs.size() && displs[i] > limit - counts[i])
      too_large(c, std::string(dname) + at + " + " + cname + at + " = " + std::to_string(displs[i]) + " + " +
                       std::to_string(counts[i]) + " elements");
  }
}

// An in-place input some algorithms would overwrite while still reading it: copy it.
const void* private_copy(Call& c, const void* src, size_t bytes) {
  std::shared_ptr<std::byte[]> p(new std::byte[bytes ? bytes : 1]);
  if (bytes) std::memcpy(p.get(), src, bytes);
  c.keep.push_back(std::shared_ptr<void>(p, p.get()));
  return p.get();
}

// One rank, nothing user-chosen (no requested or registered algorithm, no selection
// rules, no compression, no call check, a built-in op): there is nobody to exchange
// with, so the call completes here as the copy its schedule would make, without the
// plan cache, its lock and a Run (issue 14: a one-rank barrier cost ~600 instructions).
// The op is still checked against the datatype, as on any other size.
bool alone(const Call& c, const Options& o) {
  if (c.a.size != 1 || !o.algorithm.empty() || !o.compression.empty() || !c.a.op.is_builtin()) return false;
  switch (c.a.kind) {
    case Kind::barrier: case Kind::reduce: case Kind::allreduce: case Kind::alltoall: break;
    default: return false;
  }
  const Config& cfg = (*c.comm)->rt->ctx->config();
  return !cfg.coll_check && cfg.coll_rules.empty() && registry_generation() == 1;
}

Request finish_alone(Call& c) {
  if (c.check_op) c.a.op.check(c.a.dt);
  const size_t bytes = c.a.count * c.a.esize;  // one rank: reduce and alltoall move one block
  if (bytes && c.a.sendbuf != c.a.recvbuf) std::memmove(c.a.recvbuf, c.a.sendbuf, bytes);
  return {};  // a null Request is complete: wait() and test() return at once
}

Request go(Call& c, const Options& o, size_t sel_bytes) {
  if (alone(c, o)) return finish_alone(c);
  // A repeated call reuses its cached schedule (plan_cache.cpp); private copies of
  // in-place inputs and compressed messages differ per call, so those are built anew.
  const bool eligible = o.compression.empty() && c.keep.empty();
  if ((*c.comm)->rt->ctx->config().coll_check) {
    const Kind k = c.a.kind;
    const bool rooted = k == Kind::bcast || k == Kind::reduce || k == Kind::scatter || k == Kind::scatterv ||
                        k == Kind::gather || k == Kind::gatherv;
    const bool uniform = (c.a.counts.empty() && c.a.rcounts.empty()) || k == Kind::reduce_scatter_block;
    agree_on_call(*c.comm, c.a, o, c.check_op, rooted, uniform);
  }
  if (Request r = reuse_plan(*c.comm, c.a, o.algorithm, eligible); !r.is_null()) return r;
  // A cached plan's op was checked when it was built; a new schedule's is checked here,
  // still before any message moves.
  if (c.check_op) c.a.op.check(c.a.dt);
  bool builtin = false;
  const Algorithm alg = choose(c.a.kind, sel_bytes, c.a.size, c.a.op.commutative(), o.algorithm, &builtin,
                               (*c.comm)->rt->ctx->config().coll_rules);
  auto s = std::make_shared<Schedule>(c.a.dt, c.a.op);
  if (!o.compression.empty()) s->set_compressor(find_compressor(o.compression, c.a.dt, c.name));
  alg.build(c.a, *s);
  if (eligible && builtin) return launch_cached(*c.comm, c.a, o.algorithm, std::move(s), alg.name);
  return launch(*c.comm, std::move(s), c.a.kind, alg.name, std::move(c.keep));
}

Request reducing(const Communicator& comm, Kind k, const void* sendbuf, void* recvbuf, size_t count,
                 Datatype dt, const Op& op, int root, bool root_only, const Options& o) {
  Call c = begin(comm, k, dt, o);
  if (root_only) check_root(c, root);
  c.check_op = true;
  c.a.op = op;
  c.a.root = root;
  c.a.count = count;
  const size_t bytes = checked_bytes(c, count, 1, "count");
  const bool receives = !root_only || c.a.rank == root;
  if (sendbuf == IN_PLACE) {
    if (!receives)
      throw_error(Errc::invalid_argument, std::string(c.name) + ": IN_PLACE is only valid at the root");
    check_buf(c, recvbuf, count, "recvbuf");
    sendbuf = (k == Kind::allreduce || k == Kind::scan) ? recvbuf : private_copy(c, recvbuf, bytes);
  }
  check_buf(c, sendbuf, count, "sendbuf");
  if (receives) check_buf(c, recvbuf, count, "recvbuf");
  c.a.sendbuf = sendbuf;
  c.a.recvbuf = recvbuf;
  return go(c, o, bytes);
}

}  // namespace

Request ibarrier(const Communicator& comm, const Options& o) {
  Call c = begin(comm, Kind::barrier, Datatype::bytes, o);
  return go(c, o, 0);
}

Request ibcast(const Communicator& comm, void* buf, size_t count, Datatype dt, int root, const Options& o) {
  Call c = begin(comm, Kind::bcast, dt, o);
  check_root(c, root);
  const size_t bytes = checked_bytes(c, count, 1, "count");
  check_buf(c, buf, count, "buffer");
  c.a.root = root;
  c.a.count = count;
  c.a.recvbuf = buf;
  c.a.sendbuf = buf;
  return go(c, o, bytes);
}

Request ireduce(const Communicator& c, const void* s, void* r, size_t count, Datatype dt, const Op& op, int root,
                const Options& o) {
  return reducing(c, Kind::reduce, s, r, count, dt, op, root, true, o);
}
Request iallreduce(const Communicator& c, const void* s, void* r, size_t count, Datatype dt, const Op& op,
                   const Options& o) {
  return reducing(c, Kind::allreduce, s, r, count, dt, op, 0, false, o);
}
Request iscan(const Communicator& c, const void* s, void* r, size_t count, Datatype dt, const Op& op,
              const Options& o) {
  return reducing(c, Kind::scan, s, r, count, dt, op, 0, false, o);
}
Request iexscan(const Communicator& c, const void* s, void* r, size_t count, Datatype dt, const Op& op,
                const Options& o) {
  return reducing(c, Kind::exscan, s, r, count, dt, op, 0, false, o);
}

Request iscatter(const Communicator& comm, const void* sendbuf, void* recvbuf, size_t count, Datatype dt,
                 int root, const Options& o) {
  Call c = begin(comm, Kind::scatter, dt, o);
  check_root(c, root);
  checked_bytes(c, count, static_cast<size_t>(c.a.size), "count");
  const size_t bb = count * c.a.esize;
  if (c.a.rank == root) {
    check_buf(c, sendbuf, count * c.a.size, "sendbuf");
    if (recvbuf == IN_PLACE) recvbuf = const_cast<std::byte*>(static_cast<const std::byte*>(sendbuf) + root * bb);
  } else if (recvbuf == IN_PLACE) {
    throw_error(Errc::invalid_argument, "scatter: IN_PLACE is only valid at the root");
  }
  check_buf(c, recvbuf, count, "recvbuf");
  c.a.root = root;
  c.a.count = count;
  c.a.sendbuf = sendbuf;
  c.a.recvbuf = recvbuf;
  return go(c, o, bb);
}

Request iscatterv(const Communicator& comm, const void* sendbuf, Counts sendcounts, Counts displs, void* recvbuf,
                  size_t recvcount, Datatype dt, int root, const Options& o) {
  Call c = begin(comm, Kind::scatterv, dt, o);
  check_root(c, root);
  if (c.a.rank == root) {
    c.a.counts = check_counts(c, sendcounts, "sendcounts");
    c.a.displs = check_counts(c, displs, "displs");
    check_layout(c, c.a.counts, c.a.displs, "sendcounts", "displs");
    for (int i = 0; i < c.a.size; ++i) check_buf(c, sendbuf, c.a.counts[i], "sendbuf");
    if (recvbuf == IN_PLACE) {
      recvbuf = const_cast<std::byte*>(static_cast<const std::byte*>(sendbuf) + c.a.displs[root] * c.a.esize);
      recvcount = c.a.counts[root];
    }
    if (recvcount != c.a.counts[root])
      throw_error(Errc::invalid_count, "scatterv: the root receives " + std::to_string(recvcount) +
                                           " elements but sendcounts[root] is " + std::to_string(c.a.counts[root]));
  } else if (recvbuf == IN_PLACE) {
    throw_error(Errc::invalid_argument, "scatterv: IN_PLACE is only valid at the root");
  }
  checked_bytes(c, recvcount, 1, "recvcount");
  check_buf(c, recvbuf, recvcount, "recvbuf");
  c.a.root = root;
  c.a.count = recvcount;
  c.a.sendbuf = sendbuf;
  c.a.recvbuf = recvbuf;
  return go(c, o, 0);
}

Request igather(const Communicator& comm, const void* sendbuf, void* recvbuf, size_t count, Datatype dt, int root,
                const Options& o) {
  Call c = begin(comm, Kind::gather, dt, o);
  check_root(c, root);
  checked_bytes(c, count, static_cast<size_t>(c.a.size), "count");
  const size_t bb = count * c.a.esize;
  if (c.a.rank == root) {
    check_buf(c, recvbuf, count * c.a.size, "recvbuf");
    if (sendbuf == IN_PLACE) sendbuf = static_cast<std::byte*>(recvbuf) + root * bb;
  } else if (sendbuf == IN_PLACE) {
    throw_error(Errc::invalid_argument, "gather: IN_PLACE is only valid at the root");
  }
  check_buf(c, sendbuf, count, "sendbuf");
  c.a.root = root;
  c.a.count = count;
  c.a.sendbuf = sendbuf;
  c.a.recvbuf = recvbuf;
  return go(c, o, bb);
}

Request igatherv(const Communicator& comm, const void* sendbuf, size_t sendcount, void* recvbuf, Counts recvcounts,
                 Counts displs, Datatype dt, int root, const Options& o) {
  Call c = begin(comm, Kind::gatherv, dt, o);
  check_root(c, root);
  if (c.a.rank == root) {
    c.a.counts = check_counts(c, recvcounts, "recvcounts");
    c.a.displs = check_counts(c, displs, "displs");
    check_layout(c, c.a.counts, c.a.displs, "recvcounts", "displs");
    for (int i = 0; i < c.a.size; ++i) check_buf(c, recvbuf, c.a.counts[i], "recvbuf");
    if (sendbuf == IN_PLACE) {
      sendbuf = static_cast<std::byte*>(recvbuf) + c.a.displs[root] * c.a.esize;
      sendcount = c.a.counts[root];
    }
    if (sendcount != c.a.counts[root])
      throw_error(Errc::invalid_count, "gatherv: the root sends " + std::to_string(sendcount) +
                                           " elements but recvcounts[root] is " + std::to_string(c.a.counts[root]));
  } else if (sendbuf == IN_PLACE) {
    throw_error(Errc::invalid_argument, "gatherv: IN_PLACE is only valid at the root");
  }
  checked_bytes(c, sendcount, 1, "sendcount");
  check_buf(c, sendbuf, sendcount, "sendbuf");
  c.a.root = root;
  c.a.count = sendcount;
  c.a.sendbuf = sendbuf;
  c.a.recvbuf = recvbuf;
  return go(c, o, 0);
}

Request iallgather(const Communicator& comm, const void* sendbuf, void* recvbuf, size_t count, Datatype dt,
                   const Options& o) {
  Call c = begin(comm, Kind::allgather, dt, o);
  checked_bytes(c, count, static_cast<size_t>(c.a.size), "count");
  const size_t bb = count * c.a.esize;
  check_buf(c, recvbuf, count * c.a.size, "recvbuf");
  if (sendbuf == IN_PLACE) sendbuf = static_cast<std::byte*>(recvbuf) + c.a.rank * bb;
  check_buf(c, sendbuf, count, "sendbuf");
  c.a.count = count;
  c.a.sendbuf = sendbuf;
  c.a.recvbuf = recvbuf;
  return go(c, o, bb);
}

Request iallgatherv(const Communicator& comm, const void* sendbuf, size_t sendcount, void* recvbuf,
                    Counts recvcounts, Counts displs, Datatype dt, const Options& o) {
  Call c = begin(comm, Kind::allgatherv, dt, o);
  c.a.counts = check_counts(c, recvcounts, "recvcounts");
  c.a.displs = check_counts(c, displs, "displs");
  check_layout(c, c.a.counts, c.a.displs, "recvcounts", "displs");
  for (int i = 0; i < c.a.size; ++i) check_buf(c, recvbuf, c.a.counts[i], "recvbuf");
  if (sendbuf == IN_PLACE) {
    sendbuf = static_cast<std::byte*>(recvbuf) + c.a.displs[c.a.rank] * c.a.esize;
    sendcount = c.a.counts[c.a.rank];
  }
  if (sendcount != c.a.counts[c.a.rank])
    throw_error(Errc::invalid_count, "allgatherv: rank " + std::to_string(c.a.rank) + " sends " +
                                         std::to_string(sendcount) + " elements but recvcounts[" +
                                         std::to_string(c.a.rank) + "] is " + std::to_string(c.a.counts[c.a.rank]));
  check_buf(c, sendbuf, sendcount, "sendbuf");
  c.a.count = sendcount;
  c.a.sendbuf = sendbuf;
  c.a.recvbuf = recvbuf;
  return go(c, o, 0);
}

namespace {
Request reduce_scatter_common(const Communicator& comm, Kind k, const void* sendbuf, void* recvbuf,
                              std::vector<size_t> counts, Datatype dt, const Op& op, const Options& o) {
  Call c = begin(comm, k, dt, o);
  c.check_op = true;
  c.a.op = op;
  c.a.counts = check_counts(c, counts, "recvcounts");
  c.a.displs.assign(c.a.size, 0);
  for (int i = 1; i < c.a.size; ++i)  // saturating: check_layout refuses what does not fit
    c.a.displs[i] = c.a.counts[i - 1] > SIZE_MAX - c.a.displs[i - 1] ? SIZE_MAX : c.a.displs[i - 1] + c.a.counts[i - 1];
  check_layout(c, c.a.counts, c.a.displs, "recvcounts", "the sum of the recvcounts before it");
  const size_t total = c.a.displs.back() + c.a.counts.back();
  check_buf(c, recvbuf, sendbuf == IN_PLACE ? total : c.a.counts[c.a.rank], "recvbuf");
  if (sendbuf == IN_PLACE) sendbuf = private_copy(c, recvbuf, total * c.a.esize);
  check_buf(c, sendbuf, total, "sendbuf");
  c.a.count = c.a.counts[c.a.rank];
  c.a.sendbuf = sendbuf;
  c.a.recvbuf = recvbuf;
  return go(c, o, k == Kind::reduce_scatter_block ? c.a.count * c.a.esize : total * c.a.esize);
}
}  // namespace

Request ireduce_scatter(const Communicator& comm, const void* sendbuf, void* recvbuf, Counts recvcounts,
                        Datatype dt, const Op& op, const Options& o) {
  return reduce_scatter_common(comm, Kind::reduce_scatter, sendbuf, recvbuf,
                               std::vector<size_t>(recvcounts.begin(), recvcounts.end()), dt, op, o);
}

Request ireduce_scatter_block(const Communicator& comm, const void* sendbuf, void* recvbuf, size_t count,
                              Datatype dt, const Op& op, const Options& o) {
  const int n = comm_state(comm, "reduce_scatter_block")->size();
  return reduce_scatter_common(comm, Kind::reduce_scatter_block, sendbuf, recvbuf, std::vector<size_t>(n, count),
                               dt, op, o);
}

Request ialltoall(const Communicator& comm, const void* sendbuf, void* recvbuf, size_t count, Datatype dt,
                  const Options& o) {
  Call c = begin(comm, Kind::alltoall, dt, o);
  checked_bytes(c, count, static_cast<size_t>(c.a.size), "count");
  const size_t bb = count * c.a.esize;
  check_buf(c, recvbuf, count * c.a.size, "recvbuf");
  if (sendbuf == IN_PLACE) sendbuf = private_copy(c, recvbuf, bb * c.a.size);
  check_buf(c, sendbuf, count * c.a.size, "sendbuf");
  c.a.count = count;
  c.a.sendbuf = sendbuf;
  c.a.recvbuf = recvbuf;
  return go(c, o, bb);
}

Request ialltoallv(const Communicator& comm, const void* sendbuf, Counts sendcounts, Counts sdispls, void* recvbuf,
                   Counts recvcounts, Counts rdispls, Datatype dt, const Options& o) {
  Call c = begin(comm, Kind::alltoallv, dt, o);
  c.a.rcounts = check_counts(c, recvcounts, "recvcounts");
  c.a.rdispls = check_counts(c, rdispls, "rdispls");
  check_layout(c, c.a.rcounts, c.a.rdispls, "recvcounts", "rdispls");
  size_t rextent = 0;
  for (int i = 0; i < c.a.size; ++i) {
    check_buf(c, recvbuf, c.a.rcounts[i], "recvbuf");
    rextent = std::max(rextent, c.a.rdispls[i] + c.a.rcounts[i]);
  }
  if (sendbuf == IN_PLACE) {  // MPI: the send layout is the receive layout
    sendbuf = private_copy(c, recvbuf, rextent * c.a.esize);
    c.a.counts = c.a.rcounts;
    c.a.displs = c.a.rdispls;
  } else {
    c.a.counts = check_counts(c, sendcounts, "sendcounts");
    c.a.displs = check_counts(c, sdispls, "sdispls");
    check_layout(c, c.a.counts, c.a.displs, "sendcounts", "sdispls");
  }
  for (int i = 0; i < c.a.size; ++i) check_buf(c, sendbuf, c.a.counts[i], "sendbuf");
  c.a.sendbuf = sendbuf;
  c.a.recvbuf = recvbuf;
  return go(c, o, 0);
}

Request start(const Communicator& comm, std::shared_ptr<Schedule> s, const std::string& label) {
  if (!s) throw_error(Errc::invalid_argument, "coll::start: the schedule is null");
  const auto& cs = comm_state(comm, "coll::start");
  cs->ctx().require_no_foreign(cs->world_of, "coll::start");
  return launch(cs, std::move(s), static_cast<Kind>(0), label);
}

void copy(void* dst, const void* src, size_t count, Datatype dt) {
  if (count) std::memmove(dst, src, count * datatype_size(dt));
}

void combine(void* inout, const void* in, size_t count, Datatype dt, const Op& op) {
  op.check(dt);
  op.apply(in, inout, count, dt);
}

}  // namespace interlace::coll
