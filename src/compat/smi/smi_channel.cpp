// Channel opening and the slow paths behind the inline SMI_Push/SMI_Pop of smi.h.
//
// The inline push writes into the C++ channel's packet through the SMI_Channel's own
// cursor, so the C++ channel's cursor lags behind. Before the library may block (or
// send partly filled packets of every channel, which the stream engine does before a
// rank blocks) the lagging cursors are written back, and afterwards read again. For
// that the library needs the descriptor's address, which it learns at the channel's
// first push: a freshly opened send channel has push_left = 0.
#include <memory>
#include <string>
#include <vector>

#include "compat/smi/smi_state.hpp"
#include "interlace/stream/channel.hpp"

using namespace interlace;
using namespace interlace::compat::smi;

namespace {

struct SendImpl {
  stream::SendChannel ch;
  SMI_Channel* desc = nullptr;  // known after the first push
  size_t slot = 0;              // index in the thread's registry
};

// Send channels whose descriptors hold cursors ahead of the library's. Per thread:
// all SMI channels of a rank are used from one thread (docs/smi.md).
thread_local std::vector<SendImpl*> t_open_sends;

void sync_out() {
  for (SendImpl* s : t_open_sends)
    if (s->desc->impl == s) s->ch.set_window_pos(reinterpret_cast<std::byte*>(s->desc->cur));
}

void load_send_window(SMI_Channel* c, const stream::SendChannel& ch) {
  std::byte* cur = ch.window_pos();
  const size_t w = static_cast<size_t>(ch.window_end() - cur) / c->size;
  c->cur = reinterpret_cast<unsigned char*>(cur);
  // The element that fills the packet goes through the library, which sends it.
  c->push_left = w > 0 ? static_cast<uint32_t>(w - 1) : 0;
}

void sync_in() {
  for (SendImpl* s : t_open_sends)
    if (s->desc->impl == s) load_send_window(s->desc, s->ch);
}

void unregister(SendImpl* s) {
  if (!s->desc) return;
  t_open_sends[s->slot] = t_open_sends.back();
  t_open_sends[s->slot]->slot = s->slot;
  t_open_sends.pop_back();
}

// Channel objects are recycled per thread: opening a channel in a loop (one per
// message, as SMI code does) then allocates nothing, like the C++ channels.
thread_local std::vector<std::unique_ptr<SendImpl>> t_free_sends;
thread_local std::vector<std::unique_ptr<stream::RecvChannel>> t_free_recvs;

SendImpl* new_send(stream::SendChannel ch) {
  if (t_free_sends.empty()) return new SendImpl{std::move(ch)};
  SendImpl* s = t_free_sends.back().release();
  t_free_sends.pop_back();
  s->ch = std::move(ch);
  return s;
}

stream::RecvChannel* new_recv(stream::RecvChannel ch) {
  if (t_free_recvs.empty()) return new stream::RecvChannel(std::move(ch));
  stream::RecvChannel* r = t_free_recvs.back().release();
  t_free_recvs.pop_back();
  *r = std::move(ch);
  return r;
}

void close_send(SMI_Channel* c, SendImpl* s) {
  unregister(s);
  s->ch = stream::SendChannel();  // releases the engine state now
  s->desc = nullptr;
  s->slot = 0;
  t_free_sends.emplace_back(s);
  c->impl = nullptr;
  c->cur = nullptr;
  c->push_left = 0;
}

void close_recv(SMI_Channel* c, stream::RecvChannel* r) {
  *r = stream::RecvChannel();
  t_free_recvs.emplace_back(r);
  c->impl = nullptr;
  c->cur = nullptr;
  c->pop_left = 0;
}

std::string describe(const SMI_Channel* c) {
  const bool send = c->op == SMI_SEND;
  return std::string(send ? "send" : "receive") + " channel (port " + std::to_string(c->port) +
         (send ? " to rank " : " from rank ") + std::to_string(c->peer) + ", " +
         std::to_string(c->count) + " x " + SMI_Type_name(c->type) + ")";
}

// Checks shared by both directions; returns false after reporting (return mode).
bool usable(const char* call, SMI_Channel* c, int op, const void* data) {
  if (!c) return fail(call, SMI_ERR_ARG, "the channel pointer is NULL"), false;
  if (c->op == 0)
    return fail(call, SMI_ERR_CHANNEL, "the channel failed to open (see the open's error)"), false;
  if (c->op != op)
    return fail(call, SMI_ERR_CHANNEL,
                std::string(op == SMI_SEND ? "push on a " : "pop from a ") + describe(c)),
           false;
  if (!c->impl)
    return fail(call, SMI_ERR_COUNT,
                describe(c) + " is closed: all " + std::to_string(c->count) + " elements moved"),
           false;
  if (!data) return fail(call, SMI_ERR_ARG, "the data pointer is NULL"), false;
  return true;
}

// Returns the descriptor; on failure op = 0 (every push/pop on it then fails).
SMI_Channel open_channel(const char* call, int op, int count, SMI_Datatype type, int peer,
                         int port, SMI_Comm comm, bool has_degree, int degree) {
  SMI_Channel c{};
  c.peer = peer;
  c.port = port;
  c.count = count;
  c.type = type;
  try {
    const size_t es = SMI_Type_size(type);
    if (es == 0)
      throw_error(Errc::invalid_datatype, "type " + std::to_string(int(type)) + " is not an SMI_Datatype");
    if (count < 0) throw_error(Errc::invalid_count, "count " + std::to_string(count) + " is negative");
    if (has_degree && degree < 0)
      throw_error(Errc::invalid_argument, "asynchronicity degree " + std::to_string(degree) + " is negative");
    const size_t k = !has_degree ? std::max<size_t>(1, SMI_DEFAULT_DEGREE_BYTES / es)
                                  : static_cast<size_t>(degree);
    Communicator world = resolve(comm, call);
    c.size = static_cast<uint32_t>(es);
    if (op == SMI_SEND) {
      SendImpl* s = new_send(stream::SendChannel(world, peer, port, static_cast<size_t>(count),
                                                 static_cast<Datatype>(type), k));
      c.op = SMI_SEND;
      c.impl = s;
      if (count == 0) close_send(&c, s);
    } else {
      stream::RecvChannel* r = new_recv(stream::RecvChannel(world, peer, port, static_cast<size_t>(count),
                                                             static_cast<Datatype>(type), k));
      c.op = SMI_RECEIVE;
      c.impl = r;
      if (count == 0) close_recv(&c, r);
    }
  } catch (...) {
    c.op = 0;
    c.impl = nullptr;
    fail_current(call);
  }
  return c;
}

}  // namespace

extern "C" {

SMI_Channel SMI_Open_send_channel(int count, SMI_Datatype type, int destination, int port,
                                  SMI_Comm comm) {
  return open_channel("SMI_Open_send_channel", SMI_SEND, count, type, destination, port, comm, false, 0);
}
SMI_Channel SMI_Open_send_channel_ad(int count, SMI_Datatype type, int destination, int port,
                                     SMI_Comm comm, int asynch_degree) {
  return open_channel("SMI_Open_send_channel_ad", SMI_SEND, count, type, destination, port, comm,
                      true, asynch_degree);
}
SMI_Channel SMI_Open_recv_channel(int count, SMI_Datatype type, int source, int port, SMI_Comm comm) {
  return open_channel("SMI_Open_recv_channel", SMI_RECEIVE, count, type, source, port, comm, false, 0);
}
SMI_Channel SMI_Open_receive_channel(int count, SMI_Datatype type, int source, int port,
                                     SMI_Comm comm) {
  return open_channel("SMI_Open_receive_channel", SMI_RECEIVE, count, type, source, port, comm, false, 0);
}
SMI_Channel SMI_Open_recv_channel_ad(int count, SMI_Datatype type, int source, int port,
                                     SMI_Comm comm, int asynch_degree) {
  return open_channel("SMI_Open_recv_channel_ad", SMI_RECEIVE, count, type, source, port, comm,
                      true, asynch_degree);
}
SMI_Channel SMI_Open_receive_channel_ad(int count, SMI_Datatype type, int source, int port,
                                        SMI_Comm comm, int asynch_degree) {
  return open_channel("SMI_Open_receive_channel_ad", SMI_RECEIVE, count, type, source, port, comm,
                      true, asynch_degree);
}

void interlace_smi_push_slow(SMI_Channel* c, const void* data, int flush) {
  const char* call = flush ? "SMI_Push_flush" : "SMI_Push";
  if (!usable(call, c, SMI_SEND, data)) return;
  auto* s = static_cast<SendImpl*>(c->impl);
  if (s->desc != c) {
    if (!s->desc) {
      s->slot = t_open_sends.size();
      t_open_sends.push_back(s);
      c->cur = reinterpret_cast<unsigned char*>(s->ch.window_pos());
    }
    // Otherwise the descriptor was copied after use (docs/smi.md: don't); the copy
    // used now takes over with its own cursor.
    s->desc = c;
  }
  try {
    sync_out();
    s->ch.push(data);
    if (flush) s->ch.flush();
  } catch (...) {
    sync_in();
    fail_current(call);
    return;
  }
  if (s->ch.remaining() == 0) {
    sync_in();
    close_send(c, s);
    return;
  }
  sync_in();
}

void interlace_smi_pop_slow(SMI_Channel* c, void* data) {
  if (!usable("SMI_Pop", c, SMI_RECEIVE, data)) return;
  auto* r = static_cast<stream::RecvChannel*>(c->impl);
  try {
    r->set_window_pos(reinterpret_cast<const std::byte*>(c->cur));
    sync_out();
    r->pop(data);
  } catch (...) {
    sync_in();
    c->cur = const_cast<unsigned char*>(reinterpret_cast<const unsigned char*>(r->window_pos()));
    c->pop_left = 0;
    fail_current("SMI_Pop");
    return;
  }
  sync_in();
  const size_t left = r->remaining();
  if (left == 0) {
    close_recv(c, r);
    return;
  }
  const std::byte* cur = r->window_pos();
  size_t w = cur ? static_cast<size_t>(r->window_end() - cur) / c->size : 0;
  c->cur = const_cast<unsigned char*>(reinterpret_cast<const unsigned char*>(cur));
  // The packet's last element goes through the library, which releases the packet.
  c->pop_left = w > 0 ? static_cast<uint32_t>(w - 1) : 0;
}

int SMI_Channel_remaining(const SMI_Channel* c) {
  if (!c || !c->impl) return 0;
  if (c->op == SMI_SEND) {
    auto* s = static_cast<SendImpl*>(c->impl);
    const size_t ahead = s->desc == c ? static_cast<size_t>(c->cur - reinterpret_cast<unsigned char*>(
                                                                         s->ch.window_pos())) / c->size
                                      : 0;
    return static_cast<int>(s->ch.remaining() - ahead);
  }
  auto* r = static_cast<stream::RecvChannel*>(c->impl);
  const std::byte* lib = r->window_pos();
  const size_t ahead =
      lib && c->cur ? static_cast<size_t>(c->cur - reinterpret_cast<const unsigned char*>(lib)) / c->size : 0;
  return static_cast<int>(r->remaining() - ahead);
}

void SMI_Close_channel(SMI_Channel* c) {
  if (!c || !c->impl) return;
  if (c->op == SMI_SEND) close_send(c, static_cast<SendImpl*>(c->impl));
  else close_recv(c, static_cast<stream::RecvChannel*>(c->impl));
}

}  // extern "C"
