// Exchanges of typed blocks between arbitrary pairs of ranks as one engine schedule
// (see mpi_coll_exchange.hpp), and MPI_Alltoallw on top of them.
#include "mpi_coll_exchange.hpp"
#include "mpi_inter.hpp"  // intercommunicators dispatch to inter::*

#include <algorithm>
#include <climits>
#include <cstdint>
#include <deque>

namespace interlace::mpi::collimpl {

namespace {

// Zero-length transfers still travel (so both sides agree on the message count) and
// need a valid address.
std::byte g_empty[1];

const TypeObj& part_type(const Ctx& k, const Part& p, const char* side) {
  if (p.count < 0)
    raise(MPI_ERR_COUNT, std::string(k.call) + ": the " + side + " count for rank " + std::to_string(p.peer) + " is " +
                             std::to_string(p.count) + ", negative");
  // A count of zero needs no datatype: MPI_DATATYPE_NULL is accepted there.
  static const TypeObj empty = [] {
    TypeObj t;
    t.name = "MPI_DATATYPE_NULL";
    t.committed = true;
    return t;
  }();
  if (p.count == 0 && p.type == MPI_DATATYPE_NULL) return empty;
  return type_obj(p.type);
}

}  // namespace

Pending run_exchange(const Ctx& k, const char* label, const std::vector<Part>& sends, const std::vector<Part>& recvs,
                     const std::vector<int>& recv_order) {
  auto sched = std::make_shared<coll::Schedule>(Datatype::bytes, coll::Op{});
  Pending p;
  struct Local {
    const std::byte* data;
    size_t bytes;
  };
  std::deque<Local> to_self;
  for (const Part& s : sends) {
    if (s.peer == MPI_PROC_NULL) continue;
    Stage st = stage_in(s.buf, s.count, part_type(k, s, "send"));
    hold(p, st.tmp);
    const std::byte* data = st.data ? st.data : g_empty;
    if (s.peer == k.rank) to_self.push_back({data, st.bytes});
    else sched->send(s.peer, data, st.bytes);
  }
  std::vector<std::function<void()>> unpacks;
  for (size_t n = 0; n < recvs.size(); ++n) {
    const Part& r = recvs[recv_order.empty() ? n : static_cast<size_t>(recv_order[n])];
    if (r.peer == MPI_PROC_NULL) continue;
    const TypeObj& t = part_type(k, r, "receive");
    void* buf = const_cast<void*>(r.buf);
    Stage st = stage_out(buf, r.count, t, false);
    if (st.tmp) {
      hold(p, st.tmp);
      unpacks.push_back(finisher(st, buf, r.count, t));
    }
    std::byte* data = st.data ? st.data : g_empty;
    if (r.peer != k.rank) {
      sched->recv(r.peer, data, st.bytes);
      continue;
    }
    if (to_self.empty())
      raise(MPI_ERR_TRUNCATE, std::string(k.call) + ": rank " + std::to_string(k.rank) +
                                  " receives more blocks from itself than it sends to itself");
    const Local l = to_self.front();
    to_self.pop_front();
    if (l.bytes != st.bytes)
      raise(MPI_ERR_TRUNCATE, std::string(k.call) + ": rank " + std::to_string(k.rank) + " sends itself " +
                                  std::to_string(l.bytes) + " bytes but receives " + std::to_string(st.bytes) +
                                  " bytes from itself");
    sched->copy(data, l.data, l.bytes);
  }
  if (!to_self.empty())
    raise(MPI_ERR_TRUNCATE, std::string(k.call) + ": rank " + std::to_string(k.rank) +
                                " sends more blocks to itself than it receives from itself");
  p.req = coll::start(*k.comm, std::move(sched), label);
  if (!unpacks.empty())
    p.finish = [u = std::move(unpacks)] {
      for (const auto& f : u) f();
    };
  return p;
}

namespace {

void need_array(const Ctx& k, const void* a, const char* name) {
  if (!a) raise(MPI_ERR_ARG, std::string(k.call) + ": " + name + " is null");
}

// Integer arithmetic: buf may be MPI_BOTTOM (null) with absolute addresses as displacements.
const void* at(const void* buf, std::ptrdiff_t bytes) {
  return reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(buf) + static_cast<uintptr_t>(bytes));
}

}  // namespace

Pending start_alltoallw(const char* call, const void* sendbuf, const int* sendcounts, const int* sdispls,
                        const MPI_Datatype* sendtypes, void* recvbuf, const int* recvcounts, const int* rdispls,
                        const MPI_Datatype* recvtypes, MPI_Comm comm) {
  if (is_inter(comm))
    return inter::alltoallw(call, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                            recvtypes, comm);
  Ctx k = open(call, comm);
  need_array(k, recvcounts, "recvcounts");
  need_array(k, rdispls, "rdispls");
  need_array(k, recvtypes, "recvtypes");
  const bool in_place = sendbuf == MPI_IN_PLACE;
  std::vector<Part> sends(k.size), recvs(k.size);
  for (int r = 0; r < k.size; ++r) recvs[r] = Part{r, at(recvbuf, rdispls[r]), recvcounts[r], recvtypes[r]};
  std::shared_ptr<std::vector<std::byte>> copy;
  if (in_place) {
    // The data to send is what recvbuf holds now: packed before anything arrives.
    std::vector<size_t> offs(k.size + 1, 0);
    for (int r = 0; r < k.size; ++r) {
      if (recvcounts[r] < 0)
        raise(MPI_ERR_COUNT, std::string(call) + ": recvcounts[" + std::to_string(r) + "] " +
                                 std::to_string(recvcounts[r]) + " is negative");
      const size_t len = recvcounts[r] ? data_bytes(type_obj(recvtypes[r]), recvcounts[r]) : 0;
      if (len > static_cast<size_t>(INT_MAX))
        raise(MPI_ERR_COUNT, std::string(call) + ": the block for rank " + std::to_string(r) + " has " +
                                 std::to_string(len) + " bytes, more than an int counts");
      offs[r + 1] = offs[r] + len;
    }
    copy = std::make_shared<std::vector<std::byte>>(std::max<size_t>(offs[k.size], 1));
    for (int r = 0; r < k.size; ++r) {
      if (recvcounts[r] > 0) pack(recvs[r].buf, recvcounts[r], type_obj(recvtypes[r]), copy->data() + offs[r]);
      sends[r] = Part{r, copy->data() + offs[r], static_cast<int>(offs[r + 1] - offs[r]), MPI_BYTE};
    }
  } else {
    need_array(k, sendcounts, "sendcounts");
    need_array(k, sdispls, "sdispls");
    need_array(k, sendtypes, "sendtypes");
    for (int r = 0; r < k.size; ++r) sends[r] = Part{r, at(sendbuf, sdispls[r]), sendcounts[r], sendtypes[r]};
  }
  Pending p = run_exchange(k, "alltoallw", sends, recvs);
  if (copy) p.keep.push_back(copy);
  return p;
}

}  // namespace interlace::mpi::collimpl
