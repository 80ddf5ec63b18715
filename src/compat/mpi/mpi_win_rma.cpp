// The communication calls of MPI windows: Put, Get, Accumulate, Get_accumulate,
// Fetch_and_op, Compare_and_swap, their request forms and large-count variants.
// Each call checks its epoch and the target range here, at the origin, so errors name
// the call's own arguments; the target type is flattened to byte segments of the
// target window and the origin data packed, so derived types on either side work.
#include <atomic>
#include <climits>
#include <cstdint>
#include <cstring>

#include "compat/mpi/mpi_op_kernels.hpp"
#include "compat/mpi/mpi_win.hpp"

namespace interlace::mpi {
namespace {

std::string num(long long v) { return std::to_string(v); }

void send(WinObj& w, MPI_Win win, WinData&& d) {
  if (w.direct) win_direct(w, std::move(d));
  else win_send_data(w, win, std::move(d));
}

// The window of `win` with an access epoch to `target` (MPI_ERR_RMA_SYNC otherwise).
WinObj& access(const char* call, MPI_Win win, int target, bool passive_only = false) {
  WinObj& w = win_obj(win);
  win_check_rank(call, w, target);
  if (target == MPI_PROC_NULL) return w;
  const bool passive = w.locked[target] != 0;
  if (passive_only ? !passive : !(passive || w.fence_open || w.started[target]))
    raise(MPI_ERR_RMA_SYNC,
          std::string(call) + ": no " + (passive_only ? "passive-target" : "access") + " epoch to target rank " +
              num(target) + " of window " + num(win) +
              (passive_only ? " (request-based operations need MPI_Win_lock or MPI_Win_lock_all)"
                            : " (call MPI_Win_fence, MPI_Win_start, MPI_Win_lock or MPI_Win_lock_all first)"));
  return w;
}

// The target side of an operation as segments of the target window, checked against
// the target's window size (MPI_ERR_RMA_RANGE naming offset and size).
std::vector<Seg> target_segs(const char* call, const WinObj& w, int target, MPI_Aint disp, int count,
                             MPI_Datatype type) {
  check_count(count, "target_count");
  const TypeObj& t = type_obj(type);
  const WinObj::Peer& p = w.peers[target];
  const bool dynamic = w.flavor == MPI_WIN_FLAVOR_DYNAMIC;
  if (!dynamic && disp < 0)
    raise(MPI_ERR_DISP, std::string(call) + ": target_disp " + num(disp) + " is negative");
  const long long base = dynamic ? static_cast<long long>(disp) : static_cast<long long>(disp) * p.disp_unit;
  std::vector<Seg> segs;
  long long lo = LLONG_MAX, hi = LLONG_MIN;
  auto add = [&](long long off, size_t len) {
    if (len == 0) return;
    lo = std::min(lo, off);
    hi = std::max(hi, off + static_cast<long long>(len));
    if (!segs.empty() && static_cast<long long>(segs.back().off + segs.back().len) == off) segs.back().len += len;
    else segs.push_back(Seg{static_cast<uint64_t>(off), len});
  };
  if (t.contiguous()) {
    add(base, static_cast<size_t>(count) * t.size);
  } else {
    for (int i = 0; i < count; ++i)
      for (const Block& b : t.blocks) add(base + static_cast<long long>(i) * t.extent + b.offset, b.len);
  }
  if (!dynamic && !segs.empty() && (lo < 0 || hi > static_cast<long long>(p.bytes)))
    raise(MPI_ERR_RMA_RANGE, std::string(call) + ": target rank " + num(target) + ": bytes [" + num(lo) + ", " +
                                 num(hi) + ") (target_disp " + num(disp) + " x disp_unit " + num(p.disp_unit) +
                                 ", " + num(count) + " x " + t.name + ") lie outside its window of " +
                                 num(p.bytes) + " bytes");
  return segs;
}

void same_bytes(const char* call, size_t origin, size_t target, const char* what) {
  if (origin != target)
    raise(MPI_ERR_TYPE, std::string(call) + ": the " + what + " carries " + num(static_cast<long long>(origin)) +
                            " bytes but the target datatype " + num(static_cast<long long>(target)));
}

MPI_Datatype basic_of(MPI_Datatype h) { return h < IL_MPI_PREDEFINED_TYPES ? h : type_obj(h).basic; }

// Checks an accumulate's op against the types; returns the basic type and its size.
std::pair<MPI_Datatype, size_t> acc_types(const char* call, MPI_Op op, MPI_Datatype origin, MPI_Datatype target) {
  const OpObj& o = op_obj(op);
  if (!o.predefined)
    raise(MPI_ERR_OP, std::string(call) + ": op " + num(op) + " is user-defined; one-sided accumulates take "
                                              "only predefined operations");
  const MPI_Datatype tb = basic_of(target);
  if (tb == MPI_DATATYPE_NULL)
    raise(MPI_ERR_TYPE, std::string(call) + ": the target datatype " + type_obj(target).name +
                            " is not made of one predefined type");
  if (origin != MPI_DATATYPE_NULL && op != MPI_NO_OP && basic_of(origin) != tb)
    raise(MPI_ERR_TYPE, std::string(call) + ": origin datatype " + type_obj(origin).name + " and target datatype " +
                            type_obj(target).name + " are not made of the same predefined type");
  if (op != MPI_REPLACE && op != MPI_NO_OP && !op_allows(op, tb))
    raise(MPI_ERR_OP, std::string(call) + ": " + o.name + " is not defined for " + type_obj(tb).name);
  return {tb, std::max<size_t>(1, type_obj(tb).size)};
}

// The size of a predefined datatype whose element is contiguous, else 0. Predefined
// types never change, so each is looked up once (the per-call lookups showed in the
// 8-byte put+flush).
size_t predefined_size(MPI_Datatype t) {
  static std::atomic<size_t> cache[IL_MPI_PREDEFINED_TYPES];
  if (t <= 0 || t >= IL_MPI_PREDEFINED_TYPES) return 0;
  size_t v = cache[t].load(std::memory_order_relaxed);
  if (v == 0) {
    const TypeObj& o = type_obj(t);
    v = o.contiguous() && o.size ? o.size : SIZE_MAX;
    cache[t].store(v, std::memory_order_relaxed);
  }
  return v == SIZE_MAX ? 0 : v;
}

// Where `bytes` at target_disp lie in a direct window's target segment, or nullptr
// when the general path must handle (or report) it.
std::byte* direct_at(const WinObj& w, int target, MPI_Aint disp, size_t bytes) {
  const WinObj::Peer& p = w.peers[target];
  const long long off = static_cast<long long>(disp) * p.disp_unit;
  if (disp < 0 || off + static_cast<long long>(bytes) > static_cast<long long>(p.bytes)) return nullptr;
  return static_cast<std::byte*>(p.shared) + off;
}

// Predefined contiguous types on both sides of a direct window: one copy, no segment
// list. False: take the general path (which also raises the errors).
bool direct_copy(WinObj& w, int target, MPI_Aint disp, const void* from_origin, void* to_origin, int ocount,
                 MPI_Datatype otype, int tcount, MPI_Datatype ttype) {
  if (!w.direct || ocount < 0 || tcount < 0) return false;
  const size_t os = predefined_size(otype), ts = predefined_size(ttype);
  const size_t bytes = static_cast<size_t>(ocount) * os;
  if (!os || !ts || bytes != static_cast<size_t>(tcount) * ts) return false;
  std::byte* at = direct_at(w, target, disp, bytes);
  if (!at) return false;
  if (bytes == 0) return true;
  if (from_origin) std::memcpy(at, from_origin, bytes);
  else std::memcpy(to_origin, at, bytes);
  return true;
}

// The same for an accumulate of one predefined type throughout (Fetch_and_op's case).
bool direct_acc(WinObj& w, int target, MPI_Aint disp, const void* oaddr, int ocount, MPI_Datatype otype,
                void* raddr, int rcount, MPI_Datatype rtype, int tcount, MPI_Datatype ttype, MPI_Op op, bool fetch) {
  if (!w.direct || op <= 0 || op >= IL_MPI_PREDEFINED_OPS || tcount < 0) return false;
  if (op != MPI_NO_OP && (otype != ttype || ocount != tcount)) return false;
  if (fetch && (rtype != ttype || rcount != tcount)) return false;
  const size_t ts = predefined_size(ttype);
  if (!ts || (op != MPI_REPLACE && op != MPI_NO_OP && !op_allows(op, ttype))) return false;
  const size_t bytes = static_cast<size_t>(tcount) * ts;
  std::byte* at = direct_at(w, target, disp, bytes);
  if (!at) return false;
  win_direct_acc(w, target, at, static_cast<const std::byte*>(op == MPI_NO_OP ? nullptr : oaddr),
                 static_cast<std::byte*>(fetch ? raddr : nullptr), bytes, op, ttype, ts);
  return true;
}

void put(const char* call, const void* oaddr, int ocount, MPI_Datatype otype, int target, MPI_Aint disp,
         int tcount, MPI_Datatype ttype, MPI_Win win, bool passive_only) {
  require_initialized(call);
  check_count(ocount, "origin_count");
  WinObj& w = access(call, win, target, passive_only);
  if (target == MPI_PROC_NULL) return;
  if (direct_copy(w, target, disp, oaddr, nullptr, ocount, otype, tcount, ttype)) return;
  const TypeObj& ot = type_obj(otype);
  WinData d{WinOp::put, target, target_segs(call, w, target, disp, tcount, ttype)};
  Packed pk = pack_view(oaddr, ocount, ot);
  same_bytes(call, pk.bytes, data_bytes(type_obj(ttype), tcount), "origin buffer");
  d.data = static_cast<const std::byte*>(pk.data);
  d.bytes = pk.bytes;
  send(w, win, std::move(d));
}

void get(const char* call, void* oaddr, int ocount, MPI_Datatype otype, int target, MPI_Aint disp, int tcount,
         MPI_Datatype ttype, MPI_Win win, bool passive_only) {
  require_initialized(call);
  check_count(ocount, "origin_count");
  WinObj& w = access(call, win, target, passive_only);
  if (target == MPI_PROC_NULL) return;
  if (direct_copy(w, target, disp, nullptr, oaddr, ocount, otype, tcount, ttype)) return;
  const TypeObj& ot = type_obj(otype);
  WinData d{WinOp::get, target, target_segs(call, w, target, disp, tcount, ttype)};
  Unpacked u = unpack_view(oaddr, ocount, ot);
  same_bytes(call, u.bytes, data_bytes(type_obj(ttype), tcount), "origin buffer");
  d.bytes = u.bytes;
  d.result = static_cast<std::byte*>(u.data);
  if (u.tmp) d.on_result = [u] { u.finish(u.bytes); };
  send(w, win, std::move(d));
}

void accumulate(const char* call, const void* oaddr, int ocount, MPI_Datatype otype, void* raddr, int rcount,
                MPI_Datatype rtype, int target, MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Op op,
                MPI_Win win, bool fetch, bool passive_only) {
  require_initialized(call);
  if (op != MPI_NO_OP) check_count(ocount, "origin_count");
  WinObj& w = access(call, win, target, passive_only);
  if (target == MPI_PROC_NULL) return;
  // Zero target elements move nothing: the op/type pairing is not checked then (mpi4py's
  // tests accumulate zero MPI_BYTEs with MPI_SUM; Open MPI and MPICH accept it).
  if (tcount == 0) {
    (void)op_obj(op);
    return;
  }
  if (direct_acc(w, target, disp, oaddr, ocount, otype, raddr, rcount, rtype, tcount, ttype, op, fetch)) return;
  auto [basic, unit] = acc_types(call, op, op == MPI_NO_OP ? MPI_DATATYPE_NULL : otype, ttype);
  const size_t tbytes = data_bytes(type_obj(ttype), tcount);
  WinData d{fetch ? WinOp::get_acc : WinOp::acc, target, target_segs(call, w, target, disp, tcount, ttype)};
  d.mop = op;
  d.basic = basic;
  d.unit = unit;
  d.bytes = tbytes;
  Packed pk;
  if (op != MPI_NO_OP) {
    pk = pack_view(oaddr, ocount, type_obj(otype));
    same_bytes(call, pk.bytes, tbytes, "origin buffer");
    d.data = static_cast<const std::byte*>(pk.data);
  }
  if (fetch) {
    check_count(rcount, "result_count");
    Unpacked u = unpack_view(raddr, rcount, type_obj(rtype));
    same_bytes(call, u.bytes, tbytes, "result buffer");
    d.result = static_cast<std::byte*>(u.data);
    if (u.tmp) d.on_result = [u] { u.finish(u.bytes); };
  } else if (op == MPI_NO_OP) {
    return;  // an accumulate that changes nothing and fetches nothing
  }
  send(w, win, std::move(d));
}

// A request for an operation that is locally complete (Rput, Raccumulate) or made
// complete (Rget, Rget_accumulate: flushed to the target first).
MPI_Request done_request(MPI_Win win) {
  ReqObj r;
  r.kind = ReqObj::Kind::done;
  empty_status(&r.status);
  r.status.MPI_ERROR = MPI_SUCCESS;
  r.comm = win_comm(win);
  return new_request(std::move(r));
}

int narrow(MPI_Count c, const char* what) {
  if (c > INT_MAX)
    raise(MPI_ERR_COUNT, std::string(what) + " " + num(c) + " exceeds what interlace carries per call (" +
                             num(INT_MAX) + ")");
  if (c < 0) raise(MPI_ERR_COUNT, std::string(what) + " " + num(c) + " is negative");
  return static_cast<int>(c);
}
}  // namespace
}  // namespace interlace::mpi

using namespace interlace::mpi;

extern "C" {

int MPI_Put(const void* oaddr, int ocount, MPI_Datatype otype, int target, MPI_Aint disp, int tcount,
            MPI_Datatype ttype, MPI_Win win) {
  return win_call("MPI_Put", win, [&] { put("MPI_Put", oaddr, ocount, otype, target, disp, tcount, ttype, win, false); });
}

int MPI_Get(void* oaddr, int ocount, MPI_Datatype otype, int target, MPI_Aint disp, int tcount,
            MPI_Datatype ttype, MPI_Win win) {
  return win_call("MPI_Get", win, [&] { get("MPI_Get", oaddr, ocount, otype, target, disp, tcount, ttype, win, false); });
}

int MPI_Accumulate(const void* oaddr, int ocount, MPI_Datatype otype, int target, MPI_Aint disp, int tcount,
                   MPI_Datatype ttype, MPI_Op op, MPI_Win win) {
  return win_call("MPI_Accumulate", win, [&] {
    accumulate("MPI_Accumulate", oaddr, ocount, otype, nullptr, 0, MPI_DATATYPE_NULL, target, disp, tcount, ttype,
               op, win, false, false);
  });
}

int MPI_Get_accumulate(const void* oaddr, int ocount, MPI_Datatype otype, void* raddr, int rcount,
                       MPI_Datatype rtype, int target, MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Op op,
                       MPI_Win win) {
  return win_call("MPI_Get_accumulate", win, [&] {
    accumulate("MPI_Get_accumulate", oaddr, ocount, otype, raddr, rcount, rtype, target, disp, tcount, ttype, op,
               win, true, false);
  });
}

int MPI_Fetch_and_op(const void* oaddr, void* raddr, MPI_Datatype type, int target, MPI_Aint disp, MPI_Op op,
                     MPI_Win win) {
  return win_call("MPI_Fetch_and_op", win, [&] {
    if (type >= IL_MPI_PREDEFINED_TYPES || type <= 0)
      raise(MPI_ERR_TYPE, "MPI_Fetch_and_op: datatype " + num(type) + " is not a predefined datatype");
    accumulate("MPI_Fetch_and_op", oaddr, 1, type, raddr, 1, type, target, disp, 1, type, op, win, true, false);
  });
}

int MPI_Compare_and_swap(const void* oaddr, const void* caddr, void* raddr, MPI_Datatype type, int target,
                         MPI_Aint disp, MPI_Win win) {
  return win_call("MPI_Compare_and_swap", win, [&] {
    const char* call = "MPI_Compare_and_swap";
    require_initialized(call);
    if (type >= IL_MPI_PREDEFINED_TYPES || type <= 0 || !type_obj(type).contiguous())
      raise(MPI_ERR_TYPE, std::string(call) + ": datatype " + num(type) + " is not a predefined datatype");
    WinObj& w = access(call, win, target);
    if (target == MPI_PROC_NULL) return;
    need(oaddr, call, "origin_addr");
    need(caddr, call, "compare_addr");
    need(raddr, call, "result_addr");
    const size_t n = type_obj(type).size;
    auto both = std::make_shared<std::vector<std::byte>>(2 * n);
    std::memcpy(both->data(), caddr, n);
    std::memcpy(both->data() + n, oaddr, n);
    WinData d{WinOp::cas, target, target_segs(call, w, target, disp, 1, type)};
    d.data = both->data();
    d.bytes = n;
    d.unit = n;
    d.result = static_cast<std::byte*>(raddr);
    send(w, win, std::move(d));
  });
}

int MPI_Rput(const void* oaddr, int ocount, MPI_Datatype otype, int target, MPI_Aint disp, int tcount,
             MPI_Datatype ttype, MPI_Win win, MPI_Request* request) {
  return win_call("MPI_Rput", win, [&] {
    need(request, "MPI_Rput", "request");
    put("MPI_Rput", oaddr, ocount, otype, target, disp, tcount, ttype, win, true);
    *request = done_request(win);
  });
}

int MPI_Rget(void* oaddr, int ocount, MPI_Datatype otype, int target, MPI_Aint disp, int tcount,
             MPI_Datatype ttype, MPI_Win win, MPI_Request* request) {
  return win_call("MPI_Rget", win, [&] {
    need(request, "MPI_Rget", "request");
    get("MPI_Rget", oaddr, ocount, otype, target, disp, tcount, ttype, win, true);
    if (target != MPI_PROC_NULL) win_flush("MPI_Rget", win_obj(win), target);
    *request = done_request(win);
  });
}

int MPI_Raccumulate(const void* oaddr, int ocount, MPI_Datatype otype, int target, MPI_Aint disp, int tcount,
                    MPI_Datatype ttype, MPI_Op op, MPI_Win win, MPI_Request* request) {
  return win_call("MPI_Raccumulate", win, [&] {
    need(request, "MPI_Raccumulate", "request");
    accumulate("MPI_Raccumulate", oaddr, ocount, otype, nullptr, 0, MPI_DATATYPE_NULL, target, disp, tcount, ttype,
               op, win, false, true);
    *request = done_request(win);
  });
}

int MPI_Rget_accumulate(const void* oaddr, int ocount, MPI_Datatype otype, void* raddr, int rcount,
                        MPI_Datatype rtype, int target, MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Op op,
                        MPI_Win win, MPI_Request* request) {
  return win_call("MPI_Rget_accumulate", win, [&] {
    need(request, "MPI_Rget_accumulate", "request");
    accumulate("MPI_Rget_accumulate", oaddr, ocount, otype, raddr, rcount, rtype, target, disp, tcount, ttype, op,
               win, true, true);
    if (target != MPI_PROC_NULL) win_flush("MPI_Rget_accumulate", win_obj(win), target);
    *request = done_request(win);
  });
}

// ---- large-count variants: the same calls once the counts fit -----------------------------
#define IL_NARROW(call, c, what) \
  int c##_i = 0;                 \
  if (int rc = win_call(call, win, [&] { c##_i = narrow(c, what); }); rc != MPI_SUCCESS) return rc

int MPI_Put_c(const void* oaddr, MPI_Count ocount, MPI_Datatype otype, int target, MPI_Aint disp, MPI_Count tcount,
              MPI_Datatype ttype, MPI_Win win) {
  IL_NARROW("MPI_Put_c", ocount, "origin_count");
  IL_NARROW("MPI_Put_c", tcount, "target_count");
  return MPI_Put(oaddr, ocount_i, otype, target, disp, tcount_i, ttype, win);
}
int MPI_Get_c(void* oaddr, MPI_Count ocount, MPI_Datatype otype, int target, MPI_Aint disp, MPI_Count tcount,
              MPI_Datatype ttype, MPI_Win win) {
  IL_NARROW("MPI_Get_c", ocount, "origin_count");
  IL_NARROW("MPI_Get_c", tcount, "target_count");
  return MPI_Get(oaddr, ocount_i, otype, target, disp, tcount_i, ttype, win);
}
int MPI_Accumulate_c(const void* oaddr, MPI_Count ocount, MPI_Datatype otype, int target, MPI_Aint disp,
                     MPI_Count tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win) {
  IL_NARROW("MPI_Accumulate_c", ocount, "origin_count");
  IL_NARROW("MPI_Accumulate_c", tcount, "target_count");
  return MPI_Accumulate(oaddr, ocount_i, otype, target, disp, tcount_i, ttype, op, win);
}
int MPI_Get_accumulate_c(const void* oaddr, MPI_Count ocount, MPI_Datatype otype, void* raddr, MPI_Count rcount,
                         MPI_Datatype rtype, int target, MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype,
                         MPI_Op op, MPI_Win win) {
  IL_NARROW("MPI_Get_accumulate_c", ocount, "origin_count");
  IL_NARROW("MPI_Get_accumulate_c", rcount, "result_count");
  IL_NARROW("MPI_Get_accumulate_c", tcount, "target_count");
  return MPI_Get_accumulate(oaddr, ocount_i, otype, raddr, rcount_i, rtype, target, disp, tcount_i, ttype, op, win);
}
int MPI_Rput_c(const void* oaddr, MPI_Count ocount, MPI_Datatype otype, int target, MPI_Aint disp,
               MPI_Count tcount, MPI_Datatype ttype, MPI_Win win, MPI_Request* request) {
  IL_NARROW("MPI_Rput_c", ocount, "origin_count");
  IL_NARROW("MPI_Rput_c", tcount, "target_count");
  return MPI_Rput(oaddr, ocount_i, otype, target, disp, tcount_i, ttype, win, request);
}
int MPI_Rget_c(void* oaddr, MPI_Count ocount, MPI_Datatype otype, int target, MPI_Aint disp, MPI_Count tcount,
               MPI_Datatype ttype, MPI_Win win, MPI_Request* request) {
  IL_NARROW("MPI_Rget_c", ocount, "origin_count");
  IL_NARROW("MPI_Rget_c", tcount, "target_count");
  return MPI_Rget(oaddr, ocount_i, otype, target, disp, tcount_i, ttype, win, request);
}
int MPI_Raccumulate_c(const void* oaddr, MPI_Count ocount, MPI_Datatype otype, int target, MPI_Aint disp,
                      MPI_Count tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win, MPI_Request* request) {
  IL_NARROW("MPI_Raccumulate_c", ocount, "origin_count");
  IL_NARROW("MPI_Raccumulate_c", tcount, "target_count");
  return MPI_Raccumulate(oaddr, ocount_i, otype, target, disp, tcount_i, ttype, op, win, request);
}
int MPI_Rget_accumulate_c(const void* oaddr, MPI_Count ocount, MPI_Datatype otype, void* raddr,
                          MPI_Count rcount, MPI_Datatype rtype, int target, MPI_Aint disp, MPI_Count tcount,
                          MPI_Datatype ttype, MPI_Op op, MPI_Win win, MPI_Request* request) {
  IL_NARROW("MPI_Rget_accumulate_c", ocount, "origin_count");
  IL_NARROW("MPI_Rget_accumulate_c", rcount, "result_count");
  IL_NARROW("MPI_Rget_accumulate_c", tcount, "target_count");
  return MPI_Rget_accumulate(oaddr, ocount_i, otype, raddr, rcount_i, rtype, target, disp, tcount_i, ttype, op, win,
                             request);
}
#undef IL_NARROW

}  // extern "C"
