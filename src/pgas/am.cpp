// Active messages: the handler table, sending (blocking for room, except inside a
// handler where frames queue in the engine's backlog so a handler never blocks),
// dispatch of arrived frames, and the user-facing request/reply calls.
#include "interlace/pgas/am.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "interlace/core/log.hpp"
#include "pgas/pgas_state.hpp"

namespace interlace::pgas {

namespace {
thread_local bool t_in_handler = false;
thread_local std::vector<std::byte> t_frame;  // staging: arguments then payload

struct HandlerScope {
  HandlerScope() { t_in_handler = true; }
  ~HandlerScope() { t_in_handler = false; }
};

void check_args(std::span<const AmArg> args, const char* what) {
  if (args.size() > kMaxArgs)
    throw_error(Errc::invalid_argument, std::string(what) + ": " + std::to_string(args.size()) +
                                            " arguments (at most " + std::to_string(kMaxArgs) + ")");
}

void check_user_handler(const PgasState& s, unsigned h, const char* what) {
  if (h < kFirstUserHandler || h > kLastHandler)
    throw_error(Errc::invalid_argument, std::string(what) + ": handler index " + std::to_string(h) +
                                            " is outside the user range " +
                                            std::to_string(kFirstUserHandler) + "-" +
                                            std::to_string(kLastHandler));
  if (!s.handlers[h].fn)
    throw_error(Errc::invalid_argument, std::string(what) + ": handler index " + std::to_string(h) +
                                            " is not registered");
}
}  // namespace

bool& in_handler_flag() noexcept { return t_in_handler; }
bool Pgas::in_handler() noexcept { return t_in_handler; }

void forbid_in_handler(const char* what) {
  if (t_in_handler)
    throw_error(Errc::invalid_argument,
                std::string(what) + " was called from an active-message handler: handlers may "
                                    "not block (they may only send one reply)");
}

void send_am(PgasState& s, int pe, uint8_t kind, unsigned handler, Category cat,
             const AmArg* args, unsigned nargs, const void* data, size_t len, uint64_t dest,
             uint64_t cookie) {
  fabric::FrameHeader h;
  h.kind = kind;
  h.tag = static_cast<int32_t>(handler);
  h.flags = cat;
  h.seq = nargs;
  h.aux = dest;
  h.comm = cookie;
  const size_t alen = nargs * sizeof(AmArg);
  t_frame.resize(alen + len);
  if (alen) std::memcpy(t_frame.data(), args, alen);
  if (len) std::memcpy(t_frame.data() + alen, data, len);
  if (pe == s.rank) {
    h.src = h.dst = static_cast<uint32_t>(s.rank);
    h.len = t_frame.size();
    s.loopback.push_back({h, t_frame});
    s.ctx->wake_progress();  // only a progress round serves the loopback queue
    return;
  }
  engine::Context& ctx = *s.ctx;
  if (t_in_handler) {  // replies from handlers queue instead of waiting for room
    const Errc rc = ctx.send_frame(pe, h, t_frame.data(), t_frame.size());
    if (rc != Errc::ok) throw_error(rc, "pgas: reply to PE " + std::to_string(pe));
    return;
  }
  for (;;) {
    const Errc rc = ctx.try_send_frame(pe, h, t_frame.data(), t_frame.size());
    if (rc == Errc::ok) return;
    if (rc != Errc::would_block)
      throw_error(rc, "pgas: message to PE " + std::to_string(pe) + " (" + errc_name(rc) + ")");
    // No room towards pe: progress (which serves our own incoming messages, so two
    // PEs sending to each other cannot deadlock) before retrying. The wait must
    // progress at least once: "pe is not backlogged" is already true here (try_send
    // queues nothing), so waiting for it returned at once and both PEs spun forever.
    std::vector<std::byte> keep;  // progress may run handlers that reuse t_frame
    keep.swap(t_frame);
    bool moved;
    {
      std::lock_guard<engine::OptionalLock> g(ctx.lock());
      moved = ctx.progress();
    }
    if (!moved) {
      // Nothing moved: sleep in the fabric briefly (it wakes on arrival) instead of
      // spinning, so a slow peer does not cost a core.
      const Errc w = ctx.wait_until([] { return false; }, Deadline::after(0.0002));
      (void)w;
    }
    keep.swap(t_frame);
    if (ctx.peer_lost(pe)) throw_error(Errc::lost_peer, "pgas: PE " + std::to_string(pe) + " is lost");
  }
}

unsigned register_handler(Pgas& p, unsigned index, AmHandler fn, void* user, const char* name) {
  PgasState& s = state_of(p);
  std::lock_guard<engine::OptionalLock> g(s.ctx->lock());
  if (!fn) throw_error(Errc::invalid_argument, "register_handler: null handler function");
  if (index == 0) {
    for (unsigned i = kFirstUserHandler; i <= kLastHandler; ++i)
      if (!s.handlers[i].fn) { index = i; break; }
    if (index == 0) throw_error(Errc::invalid_argument, "register_handler: all user indices 128-255 are taken");
  }
  if (index < kFirstUserHandler || index > kLastHandler)
    throw_error(Errc::invalid_argument, "register_handler: index " + std::to_string(index) +
                                            " is outside the user range 128-255 (0 picks one)");
  if (s.handlers[index].fn && s.handlers[index].fn != fn)
    throw_error(Errc::invalid_argument, "register_handler: index " + std::to_string(index) +
                                            " is already registered (" + s.handlers[index].name + ")");
  s.handlers[index] = HandlerEntry{fn, user, name ? name : "handler " + std::to_string(index)};
  return index;
}

namespace {
void user_send(Pgas& p, int pe, uint8_t kind, unsigned handler, Category cat, const void* buf,
               size_t nbytes, void* dest, std::span<const AmArg> args, const char* what) {
  PgasState& s = state_of(p);
  std::lock_guard<engine::OptionalLock> g(s.ctx->lock());
  if (kind == kKindRequest) forbid_in_handler(what);
  check_pe(s, pe, what);
  check_args(args, what);
  check_user_handler(s, handler, what);
  uint64_t d = 0;
  if (cat == kMedium && nbytes > s.max_medium)
    throw_error(Errc::invalid_count, std::string(what) + ": " + std::to_string(nbytes) +
                                         " bytes exceed the medium limit of " + std::to_string(s.max_medium));
  if (cat == kLong) {
    if (nbytes > s.max_long)
      throw_error(Errc::invalid_count, std::string(what) + ": " + std::to_string(nbytes) +
                                           " bytes exceed the long limit of " + std::to_string(s.max_long));
    const Sym sym = translate(s, dest, nbytes, what);
    d = pack_dest(sym.region, sym.off);
  }
  if (nbytes && !buf) throw_error(Errc::invalid_argument, std::string(what) + ": null payload");
  send_am(s, pe, kind, handler, cat, args.data(), static_cast<unsigned>(args.size()), buf, nbytes, d, 0);
}

Token& reply_token(Token& t, const char* what) {
  if (!t.is_request)
    throw_error(Errc::invalid_argument, std::string(what) + ": a reply handler may not communicate");
  if (t.replied)
    throw_error(Errc::invalid_argument, std::string(what) + ": this request was already replied to (at most one reply)");
  if (!t.internal || !t_in_handler)
    throw_error(Errc::invalid_argument, std::string(what) + ": the token is not that of a running request handler");
  t.replied = true;
  return t;
}
}  // namespace

void request_short(Pgas& p, int pe, unsigned h, std::span<const AmArg> args) {
  user_send(p, pe, kKindRequest, h, kShort, nullptr, 0, nullptr, args, "request_short");
}
void request_medium(Pgas& p, int pe, unsigned h, const void* buf, size_t n, std::span<const AmArg> args) {
  user_send(p, pe, kKindRequest, h, kMedium, buf, n, nullptr, args, "request_medium");
}
void request_long(Pgas& p, int pe, unsigned h, const void* buf, size_t n, void* dest,
                  std::span<const AmArg> args) {
  user_send(p, pe, kKindRequest, h, kLong, buf, n, dest, args, "request_long");
}
void reply_short(Token& t, unsigned h, std::span<const AmArg> args) {
  reply_token(t, "reply_short");
  user_send(*static_cast<PgasState*>(t.internal)->api, t.src, kKindReply, h, kShort, nullptr, 0,
            nullptr, args, "reply_short");
}
void reply_medium(Token& t, unsigned h, const void* buf, size_t n, std::span<const AmArg> args) {
  reply_token(t, "reply_medium");
  user_send(*static_cast<PgasState*>(t.internal)->api, t.src, kKindReply, h, kMedium, buf, n,
            nullptr, args, "reply_medium");
}
void reply_long(Token& t, unsigned h, const void* buf, size_t n, void* dest, std::span<const AmArg> args) {
  reply_token(t, "reply_long");
  user_send(*static_cast<PgasState*>(t.internal)->api, t.src, kKindReply, h, kLong, buf, n, dest,
            args, "reply_long");
}

namespace {
void dispatch(PgasState& s, const fabric::FrameHeader& h, const std::byte* payload) {
  if (h.kind == kKindExit) {
    std::fflush(nullptr);
    _exit(static_cast<int>(h.aux));
  }
  const unsigned handler = static_cast<unsigned>(h.tag);
  const unsigned nargs = h.seq;
  const size_t alen = size_t{nargs} * sizeof(AmArg);
  if (handler > kLastHandler || nargs > kMaxArgs || alen > h.len || !s.handlers[handler].fn) {
    IL_LOG(error, "pgas: dropped an active message from PE " << h.src << ": handler index " << handler
                  << (handler <= kLastHandler && !s.handlers[handler].fn ? " is not registered here" : " is invalid")
                  << " (" << nargs << " arguments, " << h.len << " bytes)");
    return;
  }
  AmArg args[kMaxArgs];
  if (alen) std::memcpy(args, payload, alen);
  const std::byte* data = payload + alen;
  const size_t len = h.len - alen;
  void* buf = nullptr;
  thread_local std::vector<std::byte> medium;  // operator new: 16-byte aligned
  if (h.flags == kLong) {
    const uint8_t region = static_cast<uint8_t>(h.aux >> 56);
    const uint64_t off = h.aux & ((uint64_t{1} << 56) - 1);
    std::byte* dst = nullptr;
    if (region == kRegionLocal) {
      auto it = s.pending.find(h.comm);
      if (it != s.pending.end() && off <= it->second.len && len <= it->second.len - off)
        dst = static_cast<std::byte*>(it->second.dest) + off;
    } else {
      dst = local_address(s, region, off, len);
    }
    if (!dst && len && handler >= kFirstUserHandler) {
      IL_LOG(error, "pgas: dropped a long message from PE " << h.src << ": " << len
                    << " bytes at offset " << off << " of region " << int(region) << " fall outside it");
      return;
    }
    // interlace's own handlers see buf == nullptr with nbytes > 0 and report the failure.
    if (dst && len) std::memcpy(dst, data, len);
    buf = dst;
  } else if (h.flags == kMedium && len) {
    medium.assign(data, data + len);  // aligned, and valid for the whole handler
    buf = medium.data();
  }
  Token t;
  t.src = static_cast<int>(h.src);
  t.is_request = h.kind == kKindRequest;
  t.internal = &s;
  t.cookie = h.comm;
  const HandlerEntry& e = s.handlers[handler];
  HandlerScope scope;
  e.fn(t, buf, len, args, nargs, e.user ? e.user : &s);
}
}  // namespace

void on_pgas_frame(void* self, const fabric::FrameHeader& h, const std::byte* payload) {
  dispatch(*static_cast<PgasState*>(self), h, payload);
}

void maybe_poll(PgasState& s) {
  if (++s.direct_ops < kPollEvery || t_in_handler) return;
  s.direct_ops = 0;
  std::lock_guard<engine::OptionalLock> g(s.ctx->lock());
  s.ctx->progress();
}

void flush_notify(PgasState& s) {
  if (!s.any_dirty.load(std::memory_order_relaxed)) return;
  s.any_dirty.store(false, std::memory_order_relaxed);
  // Pairs with the fence in the target's wait (Fabric::wait_unless): either it sees
  // our stores or we see that it sleeps.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  for (int pe = 0; pe < s.size; ++pe)
    if (s.dirty[pe].load(std::memory_order_relaxed) && s.dirty[pe].exchange(0)) s.ctx->fabric().notify(pe);
}

bool pgas_progress_hook(void* self) {
  auto& s = *static_cast<PgasState*>(self);
  flush_notify(s);
  if (s.loopback.empty()) return false;
  // Handlers may queue more loopback messages: take the current batch only.
  std::deque<PgasState::Loop> batch;
  batch.swap(s.loopback);
  for (auto& m : batch) dispatch(s, m.h, m.payload.data());
  return true;
}

}  // namespace interlace::pgas
