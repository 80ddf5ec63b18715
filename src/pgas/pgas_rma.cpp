// Put, get, put-with-signal and atomics: a store into a mapped peer heap where the
// fabric shares memory, cross-memory attach for a host peer's static data, and
// active messages otherwise (served by the target's progress).
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>

#include "pgas/pgas_state.hpp"

namespace interlace::pgas {

namespace {
using Lock = std::lock_guard<engine::OptionalLock>;

void stored(PgasState& s, int pe) {
  std::atomic_thread_fence(std::memory_order_release);  // orders later stores (fence)
  mark_stored(s, pe);
  maybe_poll(s);
}

std::byte* heap_at(PgasState& s, int pe) {
  if (s.peer_heap_state[pe] > 0) [[likely]] return s.peer_heap[pe];
  if (s.peer_heap_state[pe] < 0) return nullptr;
  Lock g(s.ctx->lock());
  std::byte* b = mapped_heap(s, pe);
  if (b && pe != s.rank) s.ctx->fabric().notify(pe);  // opens the peer's doorbell now
  return b;
}

void threads_static(const PgasState& s, int pe, const char* what) {
  throw_error(Errc::unsupported,
              std::string(what) + ": PE " + std::to_string(pe) +
                  " is a thread of this process, so the program's static data is shared, not "
                  "symmetric; use the symmetric heap");
}

// Static data of a host peer through process_vm_writev/readv; false: use messages.
bool cma(PgasState& s, int pe, uint64_t off, void* local, size_t len, bool write, const char* what) {
  if (s.peer_cma[pe] < 0) return false;
  Lock g(s.ctx->lock());
  const auto& info = peer_info(s, pe);
  if (info.pid == static_cast<long>(getpid())) threads_static(s, pe, what);
  const uint64_t addr = info.static_lo + off;
  fabric::Fabric& f = s.ctx->fabric();
  const Errc rc = write ? f.remote_write(pe, addr, local, len) : f.remote_read(pe, addr, local, len);
  if (rc == Errc::ok) {
    s.peer_cma[pe] = 1;
    return true;
  }
  if (rc == Errc::unsupported) {
    s.peer_cma[pe] = -1;
    return false;
  }
  throw_error(rc, std::string(what) + ": static data of PE " + std::to_string(pe) + " (" +
                      errc_name(rc) + ")");
}

// Registers a get or atomic awaiting its reply; returns the cookie its reply names.
uint64_t start_pending(PgasState& s, DomainState& d, void* dest, size_t len, int pe) {
  const uint64_t cookie = s.next_cookie++;
  s.pending[cookie] = PendingOp{dest, len, &d, pe};
  op_issued(s, d, pe);
  return cookie;
}

// A target could not serve an operation (the range is outside its memory: the PEs'
// layouts differ): the origin's domain carries the error to the waiter or to quiet.
void failed_at_target(PgasState& s, uint32_t domain, int pe, const char* what) {
  auto it = s.domains.find(domain);
  if (it == s.domains.end()) return;
  it->second->error_code = Errc::invalid_argument;
  it->second->error = std::string(what) + " at PE " + std::to_string(pe) +
                      " failed: the address range is outside that PE's symmetric memory "
                      "(do all PEs run the same program with the same SHMEM_SYMMETRIC_SIZE?)";
}

void raise_domain_error(PgasState& s, DomainState& d, const char* what) {
  std::string e;
  Errc code;
  {
    Lock g(s.ctx->lock());
    e.swap(d.error);
    code = d.error_code;
  }
  if (!e.empty()) throw_error(code, std::string(what) + ": " + e);
}

void wait_pending(PgasState& s, DomainState& d, uint64_t cookie, int pe, const char* what) {
  forbid_in_handler(what);
  const Errc rc = s.ctx->wait_until(
      [&] { return !s.pending.count(cookie) || s.ctx->peer_lost(pe); },
      Deadline::after(s.ctx->config().op_timeout_s));
  if (s.ctx->peer_lost(pe))
    throw_error(Errc::lost_peer, std::string(what) + ": PE " + std::to_string(pe) + " was lost");
  if (rc == Errc::timeout)
    throw_error(Errc::timeout, std::string(what) + ": no answer from PE " + std::to_string(pe) +
                                   " within INTERLACE_TIMEOUT");
  raise_domain_error(s, d, what);
}

uint64_t split_lo(uint64_t v) { return v & 0xffffffffu; }
uint64_t join(AmArg lo, AmArg hi) { return uint64_t{lo} | uint64_t{hi} << 32; }

void am_put(PgasState& s, DomainState& d, Sym sym, const void* src, size_t bytes, int pe) {
  const auto* p = static_cast<const std::byte*>(src);
  op_issued(s, d, pe);
  for (size_t done = 0;;) {
    const size_t n = std::min(bytes - done, s.max_long);
    const bool last = done + n == bytes;
    const AmArg args[2] = {d.id, last ? 1u : 0u};
    send_am(s, pe, kKindRequest, kHPut, kLong, args, 2, p + done, n,
            pack_dest(sym.region, sym.off + done), 0);
    done += n;
    if (last) break;
  }
}

// --- handlers run at the target (requests) and at the origin (replies) ---
// Acks: args domain, failed, completes (the last piece of an operation).
void ack(PgasState& s, int to, AmArg domain, bool failed, bool completes) {
  if (!failed && !completes) return;
  const AmArg r[3] = {domain, failed ? 1u : 0u, completes ? 1u : 0u};
  send_am(s, to, kKindReply, kHAck, kShort, r, 3, nullptr, 0, 0, 0);
}

// buf is null with nbytes > 0 when the deposit fell outside this PE's memory.
void h_put(Token& t, void* buf, size_t nbytes, const AmArg* a, unsigned, void* self) {
  ack(*static_cast<PgasState*>(self), t.src, a[0], !buf && nbytes, a[1] != 0);
}

void h_ack(Token& t, void*, size_t, const AmArg* a, unsigned, void* self) {
  auto& s = *static_cast<PgasState*>(self);
  if (a[1]) failed_at_target(s, a[0], t.src, "put");
  if (a[2]) op_completed(s, a[0], t.src);
}

void h_get(Token& t, void*, size_t, const AmArg* a, unsigned, void* self) {
  auto& s = *static_cast<PgasState*>(self);
  const uint64_t off = join(a[1], a[2]), len = join(a[3], a[4]);
  const std::byte* src = local_address(s, static_cast<uint8_t>(a[0]), off, len);
  if (!src) {  // the origin checked the range against its own layout: a mismatch
    const AmArg fail[2] = {1u, 1u};
    send_am(s, t.src, kKindReply, kHGetData, kLong, fail, 2, nullptr, 0, pack_dest(kRegionLocal, 0), t.cookie);
    return;
  }
  for (uint64_t done = 0;;) {
    const size_t n = std::min<uint64_t>(len - done, s.max_long);
    const bool last = done + n == len;
    const AmArg args[2] = {last ? 1u : 0u, 0u};
    send_am(s, t.src, kKindReply, kHGetData, kLong, args, 2, src + done, n,
            pack_dest(kRegionLocal, done), t.cookie);
    done += n;
    if (last) break;
  }
}

void h_get_data(Token& t, void*, size_t, const AmArg* a, unsigned, void* self) {
  auto& s = *static_cast<PgasState*>(self);
  if (!a[0]) return;
  auto it = s.pending.find(t.cookie);
  if (it == s.pending.end()) return;
  const uint32_t domain = it->second.dom->id;
  if (a[1]) failed_at_target(s, domain, t.src, "get");
  op_completed(s, domain, t.src);
  s.pending.erase(it);
}

void h_amo(Token& t, void*, size_t, const AmArg* a, unsigned, void* self) {
  auto& s = *static_cast<PgasState*>(self);
  const auto type = static_cast<AmoType>(a[1]);
  std::byte* addr = local_address(s, static_cast<uint8_t>(a[2]), join(a[3], a[4]), amo_size(type));
  uint64_t old = 0;
  if (addr) old = apply_amo(static_cast<AmoOp>(a[0]), type, addr, join(a[5], a[6]), join(a[7], a[8]));
  const AmArg r[4] = {static_cast<AmArg>(split_lo(old)), static_cast<AmArg>(old >> 32), a[9],
                      addr ? 0u : 1u};
  send_am(s, t.src, kKindReply, kHAmoDone, kShort, r, 4, nullptr, 0, 0, t.cookie);
}

void h_amo_done(Token& t, void*, size_t, const AmArg* a, unsigned, void* self) {
  auto& s = *static_cast<PgasState*>(self);
  if (a[3]) failed_at_target(s, a[2], t.src, "atomic");
  auto it = s.pending.find(t.cookie);
  if (it == s.pending.end()) return;
  const uint64_t old = join(a[0], a[1]);
  if (it->second.dest && !a[3]) {
    if (it->second.len == 4) {
      const uint32_t w = static_cast<uint32_t>(old);
      std::memcpy(it->second.dest, &w, 4);
    } else {
      std::memcpy(it->second.dest, &old, 8);
    }
  }
  op_completed(s, a[2], t.src);
  s.pending.erase(it);
}

void h_put_signal(Token& t, void* buf, size_t nbytes, const AmArg* a, unsigned, void* self) {
  auto& s = *static_cast<PgasState*>(self);
  auto* sig = reinterpret_cast<uint64_t*>(local_address(s, static_cast<uint8_t>(a[1]), join(a[2], a[3]), 8));
  const bool failed = !sig || (!buf && nbytes);
  if (!failed) apply_signal(sig, join(a[4], a[5]), static_cast<SignalOp>(a[6]));
  ack(s, t.src, a[0], failed, true);
}

void need_buffer(const void* p, size_t bytes, const char* what, const char* name) {
  if (bytes && !p) throw_error(Errc::invalid_argument, std::string(what) + ": " + name + " is a null pointer");
}
}  // namespace

void register_internal_handlers(PgasState& s) {
  s.handlers[kHPut] = {h_put, nullptr, "put"};
  s.handlers[kHAck] = {h_ack, nullptr, "ack"};
  s.handlers[kHGet] = {h_get, nullptr, "get"};
  s.handlers[kHGetData] = {h_get_data, nullptr, "get data"};
  s.handlers[kHAmo] = {h_amo, nullptr, "atomic"};
  s.handlers[kHAmoDone] = {h_amo_done, nullptr, "atomic result"};
  s.handlers[kHPutSignal] = {h_put_signal, nullptr, "put with signal"};
}

void Pgas::put(Domain& d, void* dest, const void* src, size_t bytes, int pe, bool nbi) {
  PgasState& s = *s_;
  check_pe(s, pe, "put");
  const Sym sym = translate(s, dest, bytes, "put");
  need_buffer(src, bytes, "put", "the source");
  if (bytes == 0) return;
  if (sym.region == kRegionHeap) {
    if (std::byte* base = heap_at(s, pe)) {
      std::memcpy(base + sym.off, src, bytes);
      stored(s, pe);
      return;
    }
  } else if (pe == s.rank) {
    std::memmove(dest, src, bytes);
    return;
  } else if (cma(s, pe, sym.off, const_cast<void*>(src), bytes, true, "put")) {
    stored(s, pe);
    return;
  }
  (void)nbi;  // a message put returns once the source is copied out: nbi or not
  Lock g(s.ctx->lock());
  forbid_in_handler("put");
  am_put(s, dom(s, d), sym, src, bytes, pe);
}

void Pgas::get(Domain& d, void* dest, const void* src, size_t bytes, int pe, bool nbi) {
  PgasState& s = *s_;
  check_pe(s, pe, "get");
  const Sym sym = translate(s, src, bytes, "get");
  need_buffer(dest, bytes, "get", "the destination");
  if (bytes == 0) return;
  if (sym.region == kRegionHeap) {
    if (std::byte* base = heap_at(s, pe)) {
      std::atomic_thread_fence(std::memory_order_acquire);
      std::memcpy(dest, base + sym.off, bytes);
      maybe_poll(s);
      return;
    }
  } else if (pe == s.rank) {
    std::memmove(dest, src, bytes);
    maybe_poll(s);
    return;
  } else if (cma(s, pe, sym.off, dest, bytes, false, "get")) {
    return;
  }
  uint64_t cookie;
  {
    Lock g(s.ctx->lock());
    forbid_in_handler("get");
    DomainState& ds = dom(s, d);
    cookie = start_pending(s, ds, dest, bytes, pe);
    const AmArg args[6] = {sym.region, static_cast<AmArg>(split_lo(sym.off)),
                           static_cast<AmArg>(sym.off >> 32), static_cast<AmArg>(split_lo(bytes)),
                           static_cast<AmArg>(uint64_t{bytes} >> 32), ds.id};
    send_am(s, pe, kKindRequest, kHGet, kShort, args, 6, nullptr, 0, 0, cookie);
  }
  if (!nbi) wait_pending(s, dom(s, d), cookie, pe, "get");
}

void Pgas::iput(Domain& d, void* dest, const void* src, ptrdiff_t dst_stride, ptrdiff_t src_stride,
                size_t n, size_t elem, int pe) {
  auto* dp = static_cast<std::byte*>(dest);
  auto* sp = static_cast<const std::byte*>(src);
  for (size_t i = 0; i < n; ++i)
    put(d, dp + static_cast<ptrdiff_t>(i) * dst_stride * static_cast<ptrdiff_t>(elem),
        sp + static_cast<ptrdiff_t>(i) * src_stride * static_cast<ptrdiff_t>(elem), elem, pe, true);
}

void Pgas::iget(Domain& d, void* dest, const void* src, ptrdiff_t dst_stride, ptrdiff_t src_stride,
                size_t n, size_t elem, int pe) {
  auto* dp = static_cast<std::byte*>(dest);
  auto* sp = static_cast<const std::byte*>(src);
  for (size_t i = 0; i < n; ++i)
    get(d, dp + static_cast<ptrdiff_t>(i) * dst_stride * static_cast<ptrdiff_t>(elem),
        sp + static_cast<ptrdiff_t>(i) * src_stride * static_cast<ptrdiff_t>(elem), elem, pe, true);
  quiet(d);  // iget returns with the data in place
}

void Pgas::put_signal(Domain& d, void* dest, const void* src, size_t bytes, uint64_t* sig_addr,
                      uint64_t signal, SignalOp op, int pe, bool nbi) {
  PgasState& s = *s_;
  check_pe(s, pe, "put_signal");
  const Sym sym = translate(s, dest, bytes, "put_signal");
  const Sym sig = translate(s, sig_addr, 8, "put_signal (signal)");
  need_buffer(src, bytes, "put_signal", "the source");
  if (reinterpret_cast<uintptr_t>(sig_addr) % 8)
    throw_error(Errc::invalid_argument, "put_signal: the signal address is not 8-byte aligned");
  if (op != SignalOp::set && op != SignalOp::add)
    throw_error(Errc::invalid_argument, "put_signal: signal operation " + std::to_string(int(op)) +
                                            " is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD");
  std::byte* base = heap_at(s, pe);
  uint64_t* sig_direct = nullptr;
  if (sig.region == kRegionHeap && base) sig_direct = reinterpret_cast<uint64_t*>(base + sig.off);
  else if (sig.region == kRegionStatic && pe == s.rank) sig_direct = sig_addr;
  if (sig_direct && (sym.region == kRegionHeap ? base != nullptr : pe == s.rank)) {
    if (bytes) std::memcpy(sym.region == kRegionHeap ? base + sym.off : static_cast<std::byte*>(dest), src, bytes);
    apply_signal(sig_direct, signal, op);  // seq_cst: the data above is visible first
    stored(s, pe);
    return;
  }
  (void)nbi;
  Lock g(s.ctx->lock());
  forbid_in_handler("put_signal");
  DomainState& ds = dom(s, d);
  const auto* p = static_cast<const std::byte*>(src);
  size_t done = 0;
  // All but the last piece travel as plain puts; the last carries the signal.
  while (bytes - done > s.max_long) {
    const AmArg a[2] = {ds.id, 0u};
    send_am(s, pe, kKindRequest, kHPut, kLong, a, 2, p + done, s.max_long, pack_dest(sym.region, sym.off + done), 0);
    done += s.max_long;
  }
  op_issued(s, ds, pe);
  const AmArg a[7] = {ds.id, sig.region, static_cast<AmArg>(split_lo(sig.off)), static_cast<AmArg>(sig.off >> 32),
                      static_cast<AmArg>(split_lo(signal)), static_cast<AmArg>(signal >> 32),
                      static_cast<AmArg>(op)};
  send_am(s, pe, kKindRequest, kHPutSignal, kLong, a, 7, p + done, bytes - done,
          pack_dest(sym.region, sym.off + done), 0);
}

uint64_t Pgas::signal_fetch(const uint64_t* sig_addr) {
  translate(*s_, sig_addr, 8, "signal_fetch");
  return std::atomic_ref<uint64_t>(*const_cast<uint64_t*>(sig_addr)).load(std::memory_order_seq_cst);
}

void Pgas::atomic(Domain& d, AmoOp op, AmoType type, void* target, const void* operand,
                  const void* compare_v, void* fetched, int pe, bool nbi) {
  PgasState& s = *s_;
  check_pe(s, pe, "atomic");
  const size_t size = amo_size(type);
  const Sym sym = translate(s, target, size, "atomic");
  if (reinterpret_cast<uintptr_t>(target) % size) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%p", target);
    throw_error(Errc::invalid_argument, std::string("atomic: address ") + buf + " is not aligned to " +
                                            std::to_string(size) + " bytes (atomics need natural alignment)");
  }
  uint64_t v = 0, c = 0;
  if (op != AmoOp::fetch) {
    need_buffer(operand, 1, "atomic", "the operand");
    std::memcpy(&v, operand, size);
  }
  if (op == AmoOp::cswap) {
    need_buffer(compare_v, 1, "atomic", "the comparand");
    std::memcpy(&c, compare_v, size);
  }
  std::byte* local = nullptr;
  if (sym.region == kRegionHeap) {
    if (std::byte* base = heap_at(s, pe)) local = base + sym.off;
  } else if (pe == s.rank) {
    local = static_cast<std::byte*>(target);
  }
  if (local) {
    const uint64_t old = apply_amo(op, type, local, v, c);
    if (fetched) std::memcpy(fetched, &old, size);
    if (op != AmoOp::fetch) stored(s, pe);
    else maybe_poll(s);
    return;
  }
  uint64_t cookie;
  {
    Lock g(s.ctx->lock());
    forbid_in_handler("atomic");
    DomainState& ds = dom(s, d);
    cookie = start_pending(s, ds, fetched, size, pe);
    const AmArg a[10] = {static_cast<AmArg>(op), static_cast<AmArg>(type), sym.region,
                         static_cast<AmArg>(split_lo(sym.off)), static_cast<AmArg>(sym.off >> 32),
                         static_cast<AmArg>(split_lo(v)), static_cast<AmArg>(v >> 32),
                         static_cast<AmArg>(split_lo(c)), static_cast<AmArg>(c >> 32), ds.id};
    send_am(s, pe, kKindRequest, kHAmo, kShort, a, 10, nullptr, 0, 0, cookie);
  }
  // Non-fetching atomics complete at quiet, like puts; fetching ones wait unless nbi.
  const bool fetching = op == AmoOp::fetch || op == AmoOp::swap || op == AmoOp::cswap ||
                        op == AmoOp::fetch_add || op == AmoOp::fetch_and || op == AmoOp::fetch_or ||
                        op == AmoOp::fetch_xor;
  if (fetching && !nbi) wait_pending(s, dom(s, d), cookie, pe, "atomic");
}

}  // namespace interlace::pgas
