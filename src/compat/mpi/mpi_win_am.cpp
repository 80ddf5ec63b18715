// The wire protocol of MPI windows: every operation is an active message (medium
// request) that the target applies to its window from its progress, answered by a
// reply the origin counts for flush/unlock/fence. Why messages and not mapped memory:
// MPI_Win_create and MPI_Win_attach expose arbitrary user memory, which no fabric has
// mapped, and one target applying accumulates one message at a time makes them atomic
// per element from any number of origins without CPU atomics for every MPI type.
#include <cstring>

#include "compat/mpi/mpi_op_kernels.hpp"
#include "compat/mpi/mpi_win.hpp"
#include "interlace/core/log.hpp"
#include "interlace/engine/context.hpp"
#include "interlace/pgas/am.hpp"

namespace interlace::mpi {
using pgas::AmArg;

namespace {
// Handler indices of the user range (the same on every process); docs/mpi-rma.md
// lists them as taken by MPI windows.
constexpr unsigned kHRequest = 250, kHReply = 251;
constexpr size_t kHdr = 32;  // keeps the payload after the header 16-byte aligned
// Flow control per target: at most kWindowBytes of requests and their answers in
// flight, in pieces of at most kPiece. A shm ring holds 256 KiB per direction and a
// sender whose ring is full does not serve its own inbound messages meanwhile, so two
// ranks streaming to each other must never fill both rings: requests and answers of
// one direction stay under half of it.
constexpr size_t kPiece = 32 << 10, kWindowBytes = 96 << 10, kMinCost = 256;

// Status a target reports back.
enum : uint32_t { kOk = 0, kOutside = 1, kNoWindow = 2 };

struct Hdr {
  int32_t mop;
  int32_t basic;
  uint32_t nseg;
  uint32_t unit;
  uint64_t start;  // where this piece's result lands in the packed result
  uint64_t has_data;
};
static_assert(sizeof(Hdr) == kHdr);

// A fetching operation in flight: pieces copy their result in; the last one finishes.
struct Pending {
  std::byte* result = nullptr;
  std::function<void()> on_result;
  std::shared_ptr<void> keep;
  std::atomic<int> left{1};  // 1 for the sender until every piece went out
};

AmArg lo(uint64_t v) { return static_cast<AmArg>(v); }
AmArg hi(uint64_t v) { return static_cast<AmArg>(v >> 32); }
uint64_t join(AmArg l, AmArg h) { return uint64_t{l} | (uint64_t{h} << 32); }

void finish_piece(Pending* p) {
  if (p->left.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  if (p->on_result) p->on_result();
  delete p;
}

// The window memory a segment names on this target, or nullptr (reported back).
std::byte* resolve(WinObj& w, const Seg& s) {
  if (w.flavor == MPI_WIN_FLAVOR_DYNAMIC) {
    std::lock_guard<std::mutex> g(w.region_mu);
    for (auto& [b, n] : w.regions)
      if (s.off >= b && s.off - b <= n && s.len <= n - (s.off - b))
        return reinterpret_cast<std::byte*>(s.off);
    return nullptr;
  }
  const auto size = static_cast<uint64_t>(w.bytes);
  if (s.off > size || s.len > size - s.off) return nullptr;
  return static_cast<std::byte*>(w.base) + s.off;
}


void reply_status(pgas::Token& t, const AmArg* a, uint32_t status, const Seg& bad, const void* data,
                  size_t n, uint64_t start) {
  const AmArg r[13] = {a[0], a[2], static_cast<AmArg>(a[7]), status, a[4], a[5], lo(start), hi(start),
                       lo(bad.off), hi(bad.off), lo(bad.len), hi(bad.len), a[8]};
  if (data || n) pgas::reply_medium(t, kHReply, data, n, r);
  else pgas::reply_short(t, kHReply, r);
}

// args: op, target key, origin key, origin rank, cookie lo/hi, lock type, target rank, cost
void on_request(pgas::Token& t, void* buf, size_t nbytes, const AmArg* a, unsigned nargs, void*) {
  if (nargs < 9) return;
  const auto op = static_cast<WinOp>(a[0]);
  WinObj* w = win_find(static_cast<int>(a[1]));
  const Seg none{0, 0};
  if (!w) {
    IL_LOG(error, "MPI window: a one-sided message from rank " << t.src << " names window " << a[1]
                  << ", which does not exist here");
    if (op != WinOp::post && op != WinOp::complete) reply_status(t, a, kNoWindow, none, nullptr, 0, 0);
    return;
  }
  switch (op) {
    case WinOp::post: w->posts[a[3]].fetch_add(1, std::memory_order_acq_rel); return;
    case WinOp::complete: w->completes.fetch_add(1, std::memory_order_acq_rel); return;
    case WinOp::lock: {
      const bool excl = a[6] == MPI_LOCK_EXCLUSIVE;
      const bool ok = excl ? (!w->lock_excl && w->lock_shared == 0) : !w->lock_excl;
      if (ok) (excl ? (void)(w->lock_excl = true) : (void)++w->lock_shared);
      reply_status(t, a, ok ? 1 : 0, none, nullptr, 0, 0);
      return;
    }
    case WinOp::unlock:
      if (a[6] == MPI_LOCK_EXCLUSIVE) w->lock_excl = false;
      else if (w->lock_shared > 0) --w->lock_shared;
      reply_status(t, a, kOk, none, nullptr, 0, 0);
      return;
    default: break;
  }
  const auto* p = static_cast<const std::byte*>(buf);
  Hdr h;
  std::memcpy(&h, p, kHdr);
  // Reused per thread, not allocated per message: a handler nested in this one (the
  // reply below may progress when the ring is full) starts only after the last use.
  thread_local std::vector<Seg> segs;
  thread_local std::vector<std::byte*> at;
  segs.resize(h.nseg);
  at.resize(h.nseg);
  std::memcpy(segs.data(), p + kHdr, h.nseg * sizeof(Seg));
  const std::byte* data = p + kHdr + h.nseg * sizeof(Seg);
  (void)nbytes;
  size_t total = 0;
  for (uint32_t i = 0; i < h.nseg; ++i) {
    at[i] = resolve(*w, segs[i]);
    if (!at[i] && segs[i].len) return reply_status(t, a, kOutside, segs[i], nullptr, 0, h.start);
    total += segs[i].len;
  }
  thread_local std::vector<std::byte> out;
  const bool fetch = op == WinOp::get || op == WinOp::get_acc || op == WinOp::cas;
  if (fetch) {
    out.resize(total);
    size_t o = 0;
    for (uint32_t i = 0; i < h.nseg; ++i) {
      std::memcpy(out.data() + o, at[i], segs[i].len);
      o += segs[i].len;
    }
  }
  size_t o = 0;
  for (uint32_t i = 0; i < h.nseg; ++i) {
    const size_t n = segs[i].len;
    if (op == WinOp::put) std::memcpy(at[i], data + o, n);
    else if ((op == WinOp::acc || op == WinOp::get_acc) && h.has_data)
      win_apply(h.mop, h.basic, h.unit, data + o, at[i], n);
    else if (op == WinOp::cas && std::memcmp(at[i], data, n) == 0) std::memcpy(at[i], data + n, n);
    o += n;
  }
  reply_status(t, a, kOk, none, fetch ? out.data() : nullptr, fetch ? total : 0, h.start);
}

// args: op, origin key, target rank, status, cookie lo/hi, start lo/hi, bad off lo/hi,
// len lo/hi, cost
void on_reply(pgas::Token&, void* buf, size_t nbytes, const AmArg* a, unsigned nargs, void*) {
  if (nargs < 13) return;
  const auto op = static_cast<WinOp>(a[0]);
  const uint64_t cookie = join(a[4], a[5]);
  if (op == WinOp::lock) {  // 1 granted, 2 denied (ask again), 3 no such window there
    const int answer = a[3] == 1 ? 1 : a[3] == kNoWindow ? 3 : 2;
    reinterpret_cast<std::atomic<int>*>(cookie)->store(answer, std::memory_order_release);
    return;
  }
  WinObj* w = win_find(static_cast<int>(a[1]));
  if (!w) return;
  const int target = static_cast<int>(a[2]);
  if (a[3] != kOk) {
    std::lock_guard<std::mutex> g(w->err_mu);
    w->has_err.store(true, std::memory_order_release);
    if (w->err_class == MPI_SUCCESS) {
      const uint64_t off = join(a[8], a[9]), len = join(a[10], a[11]);
      if (a[3] == kOutside) {
        w->err_class = MPI_ERR_RMA_RANGE;
        w->err_msg = "target rank " + std::to_string(target) + ": " + std::to_string(len) + " bytes at " +
                     (w->flavor == MPI_WIN_FLAVOR_DYNAMIC ? "address " : "offset ") + std::to_string(off) +
                     (w->flavor == MPI_WIN_FLAVOR_DYNAMIC ? " are not in memory attached to the window"
                                                          : " lie outside its window");
      } else {
        w->err_class = MPI_ERR_WIN;
        w->err_msg = "target rank " + std::to_string(target) + " has no such window (freed?)";
      }
    }
  }
  if (cookie) {
    auto* p = reinterpret_cast<Pending*>(cookie);
    if (buf && nbytes) std::memcpy(p->result + join(a[6], a[7]), buf, nbytes);
    finish_piece(p);
  }
  w->in_flight[target].fetch_sub(a[12], std::memory_order_acq_rel);
  w->outstanding[target].fetch_sub(1, std::memory_order_acq_rel);
}

void send_request(WinObj& w, MPI_Win h, WinOp op, int target, uint64_t cookie, AmArg extra,
                  const std::vector<std::byte>* payload, size_t cost = 0) {
  const AmArg a[9] = {static_cast<AmArg>(op), static_cast<AmArg>(w.peers[target].key), static_cast<AmArg>(h),
                      static_cast<AmArg>(w.rank), lo(cookie), hi(cookie), extra, static_cast<AmArg>(target),
                      static_cast<AmArg>(cost)};
  pgas::Pgas& p = win_pgas();
  if (payload) pgas::request_medium(p, w.world[target], kHRequest, payload->data(), payload->size(), a);
  else pgas::request_short(p, w.world[target], kHRequest, a);
}
}  // namespace

namespace {
// MPI_SUM of the common types in a loop the compiler vectorises (the general kernel
// dispatches per element, which caps accumulate bandwidth far below a copy's).
template <class T>
void sum(const std::byte* in, std::byte* at, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    T a, b;
    std::memcpy(&a, in + i * sizeof(T), sizeof(T));
    std::memcpy(&b, at + i * sizeof(T), sizeof(T));
    b += a;
    std::memcpy(at + i * sizeof(T), &b, sizeof(T));
  }
}

bool fast_sum(MPI_Datatype t, const std::byte* in, std::byte* at, size_t len) {
  switch (t) {
    case MPI_DOUBLE: sum<double>(in, at, len / sizeof(double)); return true;
    case MPI_FLOAT: sum<float>(in, at, len / sizeof(float)); return true;
    case MPI_INT: sum<int>(in, at, len / sizeof(int)); return true;
    case MPI_UNSIGNED: sum<unsigned>(in, at, len / sizeof(unsigned)); return true;
    case MPI_LONG: sum<long>(in, at, len / sizeof(long)); return true;
    case MPI_UNSIGNED_LONG: sum<unsigned long>(in, at, len / sizeof(unsigned long)); return true;
    case MPI_LONG_LONG: sum<long long>(in, at, len / sizeof(long long)); return true;
    default: return false;
  }
}
}  // namespace

void win_apply(MPI_Op op, MPI_Datatype basic, size_t unit, const std::byte* in, std::byte* at, size_t len) {
  if (op == MPI_NO_OP) return;
  if (op == MPI_REPLACE) {
    std::memcpy(at, in, len);
    return;
  }
  if (op == MPI_SUM && fast_sum(basic, in, at, len)) return;
  apply_predefined(op, basic, in, at, len / unit);
}

pgas::Pgas& win_pgas() {
  // Attached once per runtime: a session after the runtime ended starts a new one, and
  // the PGAS object of the old one went with it.
  static pgas::Pgas* p = nullptr;
  static int attached_to = 0;
  State& s = state();
  if (attached_to != s.runtime_starts) {
    pgas::Pgas& q = pgas::Pgas::attach(s.rt);
    pgas::register_handler(q, kHRequest, on_request, nullptr, "MPI window request");
    pgas::register_handler(q, kHReply, on_reply, nullptr, "MPI window reply");
    p = &q;
    attached_to = s.runtime_starts;
  }
  return *p;
}

void win_wait(const char* call, const std::function<bool()>& cond) {
  if (cond()) return;
  engine::Context& ctx = win_pgas().context();
  const Errc rc = ctx.wait_until(cond, Deadline::after(ctx.config().op_timeout_s));
  if (rc == Errc::timeout)
    raise(MPI_ERR_OTHER, std::string(call) + ": one-sided operations still incomplete after INTERLACE_TIMEOUT");
  if (rc != Errc::ok) raise(error_class_of(rc), std::string(call) + ": " + errc_name(rc));
}

void win_send_data(WinObj& w, MPI_Win h, WinData&& d) {
  pgas::Pgas& pg = win_pgas();
  const size_t cap = std::min(pg.max_medium(), kPiece) - kHdr;
  const bool fetch = d.op == WinOp::get || d.op == WinOp::get_acc || d.op == WinOp::cas;
  Pending* pend = nullptr;
  if (fetch) {
    pend = new Pending;
    pend->result = d.result;
    pend->on_result = std::move(d.on_result);
    pend->keep = std::move(d.keep);
  }
  thread_local std::vector<std::byte> msg;
  std::vector<Seg> segs;
  size_t piece_data = 0, piece_start = 0;
  const bool carries = d.data != nullptr;
  auto flush = [&](const std::byte* data, size_t data_len) {
    if (segs.empty()) return;
    Hdr hd{d.mop, d.basic, static_cast<uint32_t>(segs.size()), static_cast<uint32_t>(d.unit), piece_start,
           carries ? 1u : 0u};
    msg.resize(kHdr + segs.size() * sizeof(Seg) + (carries ? data_len : 0));
    std::memcpy(msg.data(), &hd, kHdr);
    std::memcpy(msg.data() + kHdr, segs.data(), segs.size() * sizeof(Seg));
    if (carries && data_len) std::memcpy(msg.data() + kHdr + segs.size() * sizeof(Seg), data, data_len);
    const size_t cost = std::max(kMinCost, msg.size() + (fetch ? piece_data : 0));
    auto& fly = w.in_flight[d.target];
    if (fly.load(std::memory_order_acquire) + cost > kWindowBytes)
      win_wait("one-sided operation", [&] { return fly.load(std::memory_order_acquire) + cost <= kWindowBytes; });
    fly.fetch_add(cost, std::memory_order_acq_rel);
    w.outstanding[d.target].fetch_add(1, std::memory_order_acq_rel);
    if (pend) pend->left.fetch_add(1, std::memory_order_acq_rel);
    try {
      send_request(w, h, d.op, d.target, reinterpret_cast<uint64_t>(pend), 0, &msg, cost);
    } catch (...) {
      fly.fetch_sub(cost, std::memory_order_acq_rel);
      w.outstanding[d.target].fetch_sub(1, std::memory_order_acq_rel);
      if (pend) pend->left.fetch_sub(1, std::memory_order_acq_rel);
      throw;
    }
    segs.clear();
    piece_start += piece_data;
    piece_data = 0;
  };
  if (d.op == WinOp::cas) {  // one element: compare and origin travel together
    segs = d.segs;
    piece_data = d.bytes;
    flush(d.data, 2 * d.bytes);
  } else {
    for (const Seg& s : d.segs) {
      uint64_t done = 0;
      while (done < s.len) {
        const size_t used = (segs.size() + 1) * sizeof(Seg) + piece_data;
        size_t room = cap > used ? (cap - used) / d.unit * d.unit : 0;
        if (room == 0) {
          flush(carries ? d.data + piece_start : nullptr, piece_data);
          continue;
        }
        const size_t take = std::min<uint64_t>(room, s.len - done);
        segs.push_back(Seg{s.off + done, take});
        piece_data += take;
        done += take;
      }
    }
    flush(carries ? d.data + piece_start : nullptr, piece_data);
  }
  if (pend) finish_piece(pend);
}

bool win_send_lock(WinObj& w, MPI_Win h, int target, int type) {
  std::atomic<int> answer{0};
  send_request(w, h, WinOp::lock, target, reinterpret_cast<uint64_t>(&answer), static_cast<AmArg>(type), nullptr);
  win_wait("MPI_Win_lock", [&] { return answer.load(std::memory_order_acquire) != 0; });
  if (answer.load() == 3)
    raise(MPI_ERR_WIN, "target rank " + std::to_string(target) + " has no such window (freed?)");
  return answer.load() == 1;
}

void win_send_ctl(WinObj& w, MPI_Win h, WinOp op, int target) {
  const int type = op == WinOp::unlock ? w.locked[target] : 0;
  if (op == WinOp::unlock) w.outstanding[target].fetch_add(1, std::memory_order_acq_rel);
  send_request(w, h, op, target, 0, static_cast<AmArg>(type), nullptr);
}

}  // namespace interlace::mpi
