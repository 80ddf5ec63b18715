// Contract: SMI-style streaming messages over transient channels (docs/stream.md).
//  - A channel is (communicator, peer, port) plus a count and a datatype. The sender
//    opens a SendChannel(comm, dest, port, count, dt, k), the receiver a
//    RecvChannel(comm, source, port, count, dt, k); then push()/pop() move one element
//    at a time (push_n/pop_n many). Elements arrive in push order. The channel is
//    closed once `count` elements went through; its last packet is sent at once.
//    Pushing or popping past the count raises Errc::invalid_count naming the count.
//  - Asynchronicity degree k (elements): the sender runs at most k elements ahead of
//    what the receiver has popped, then stalls inside push (credit-based flow
//    control: the receiver grants min(k, count) credits when it opens and returns
//    them in batches as it pops). k = 0 is treated as 1.
//    When the sender's k >= count the channel is eager: no handshake, the data may
//    arrive before the receiver opens and is buffered for it.
//  - Ports are 0..2^31-1 (negative ports are reserved for streaming collectives);
//    any number of channels may be open at once on different ports and peers.
//    Consecutive channels on one (comm, peer, port) are distinct messages: both ends
//    number them per (comm, peer, port) and match the n-th send with the n-th recv.
//    A rank may open channels to itself.
//  - The two ends must agree on datatype and count, else the receiver's pop (and a
//    credit-mode sender's push) raise Errc::invalid_datatype / Errc::invalid_count
//    naming both sides: "stream port 3 from rank 0: sender has 100 x int32,
//    receiver expects 100 x float32". Degrees may differ (the receiver's k bounds
//    its buffering, the sender's k its run-ahead and whether it is eager).
//  - A lost peer makes a push/pop that has to wait for it raise LostPeerError; data
//    the peer sent before dying is still delivered.
//  - Speed: push/pop are inline; their fast path is a copy into (out of) a packet
//    buffer and a pointer compare. Packets go out when full, when the count is
//    reached, on flush(), and whenever the rank is about to block in a push or pop
//    (then every partly filled packet and every batch of unreturned credits of the
//    rank goes out first, so pipelines across ranks cannot deadlock on buffering).
//    Opening a channel allocates nothing in steady state.
//  - One thread uses a channel at a time (channels of one rank may be used by the
//    rank's thread; with INTERLACE_PROGRESS=thread the slow paths take the context
//    lock). A channel must not outlive its Runtime. Destroying a channel before its
//    count is reached abandons it: the peer's side may then wait forever.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>

#include "interlace/core/datatype.hpp"
#include "interlace/core/error.hpp"
#include "interlace/p2p/communicator.hpp"

namespace interlace::stream {

namespace detail {
struct SendState;
struct RecvState;
class StreamEngine;

// Element copy with a constant size for the common widths, so the runtime-typed
// channels compile to one load and one store instead of a memcpy call. GCC checks
// every branch against the caller's object after inlining (an int meets the 8-byte
// case) and warns about branches that the element size rules out.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif
inline void copy_elem(void* dst, const void* src, uint32_t es) noexcept {
  switch (es) {
    case 4: std::memcpy(dst, src, 4); break;
    case 8: std::memcpy(dst, src, 8); break;
    case 2: std::memcpy(dst, src, 2); break;
    case 1: std::memcpy(dst, src, 1); break;
    default: std::memcpy(dst, src, es); break;
  }
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
}  // namespace detail

// Starts this rank's stream engine now instead of at its first channel, so that a
// peer's early channel frames are handled from the start (the C API's SMI_Init).
void start_engine(engine::Context& ctx);

class SendChannel {
 public:
  SendChannel() = default;  // not open: push raises invalid_argument
  SendChannel(const Communicator& comm, int dest, int port, size_t count, Datatype dt,
              size_t degree);
  ~SendChannel();
  SendChannel(SendChannel&& o) noexcept { take(o); }
  SendChannel& operator=(SendChannel&& o) noexcept;
  SendChannel(const SendChannel&) = delete;
  SendChannel& operator=(const SendChannel&) = delete;

  // Blocks only when out of credits (or the fabric is full).
  void push(const void* elem) {
    if (cur_ == end_) [[unlikely]] make_room();
    detail::copy_elem(cur_, elem, esz_);
    cur_ += esz_;
    if (cur_ == end_) [[unlikely]] packet_done();
  }
  void push_n(const void* elems, size_t n);
  // Sends the partly filled packet now (SMI_Push_flush); a no-op when it is empty.
  void flush();

  size_t count() const noexcept;
  size_t remaining() const noexcept;  // elements still to push
  bool closed() const noexcept { return remaining() == 0; }
  bool is_open() const noexcept { return st_ != nullptr; }
  bool eager() const noexcept;
  Datatype datatype() const noexcept;

  // The packet window, for code that writes elements itself (the C API's inline
  // SMI_Push, the Python bindings): [window_pos(), window_end()) is free room in the
  // current packet. After writing whole elements there, set_window_pos() moves past
  // them; push()/flush() go on from that position. An empty window means push() next.
  std::byte* window_pos() const noexcept { return cur_; }
  std::byte* window_end() const noexcept { return end_; }
  void set_window_pos(std::byte* p) noexcept { cur_ = p; }

 private:
  template <class T> friend class Sender;
  friend class detail::StreamEngine;  // sends partly filled packets before a rank blocks
  void make_room();    // out of line: waits for credits, or raises past count
  void packet_done();  // out of line: sends the full packet, opens the next window
  void take(SendChannel& o) noexcept;
  void release() noexcept;

  std::byte* cur_ = nullptr;  // next free byte of the packet window
  std::byte* end_ = nullptr;  // end of the window (packet size, credits, count)
  uint32_t esz_ = 1;
  detail::SendState* st_ = nullptr;
};

class RecvChannel {
 public:
  RecvChannel() = default;  // not open: pop raises invalid_argument
  RecvChannel(const Communicator& comm, int source, int port, size_t count, Datatype dt,
              size_t degree);
  ~RecvChannel();
  RecvChannel(RecvChannel&& o) noexcept { take(o); }
  RecvChannel& operator=(RecvChannel&& o) noexcept;
  RecvChannel(const RecvChannel&) = delete;
  RecvChannel& operator=(const RecvChannel&) = delete;

  // Blocks until the element has arrived.
  void pop(void* elem) {
    if (cur_ == end_) [[unlikely]] refill();
    detail::copy_elem(elem, cur_, esz_);
    cur_ += esz_;
    if (cur_ == end_) [[unlikely]] packet_read();
  }
  void pop_n(void* elems, size_t n);

  size_t count() const noexcept;
  size_t remaining() const noexcept;  // elements still to pop
  bool closed() const noexcept { return remaining() == 0; }
  bool is_open() const noexcept { return st_ != nullptr; }
  Datatype datatype() const noexcept;

  // The packet window (see SendChannel): [window_pos(), window_end()) holds elements
  // that arrived and are not popped yet; set_window_pos() consumes up to a position.
  const std::byte* window_pos() const noexcept { return cur_; }
  const std::byte* window_end() const noexcept { return end_; }
  void set_window_pos(const std::byte* p) noexcept { cur_ = p; }

 private:
  template <class T> friend class Receiver;
  void refill();       // out of line: waits for the next packet, or raises past count
  void packet_read();  // out of line: releases the read packet (returns credits)
  void take(RecvChannel& o) noexcept;
  void release() noexcept;

  const std::byte* cur_ = nullptr;  // next unread byte of the current packet
  const std::byte* end_ = nullptr;
  uint32_t esz_ = 1;
  detail::RecvState* st_ = nullptr;
};

// Typed wrappers: the element size is a compile-time constant in the fast path.
template <class T>
class Sender {
  static_assert(std::is_trivially_copyable_v<T>, "stream elements are copied as bytes");
 public:
  Sender() = default;
  Sender(const Communicator& comm, int dest, int port, size_t count, size_t degree)
      : ch_(comm, dest, port, count, datatype_of<T>::value, degree) {}
  void push(const T& v) {
    if (ch_.cur_ == ch_.end_) [[unlikely]] ch_.make_room();
    std::memcpy(ch_.cur_, &v, sizeof(T));
    ch_.cur_ += sizeof(T);
    if (ch_.cur_ == ch_.end_) [[unlikely]] ch_.packet_done();
  }
  void push_n(std::span<const T> v) { ch_.push_n(v.data(), v.size()); }
  void flush() { ch_.flush(); }
  size_t count() const noexcept { return ch_.count(); }
  size_t remaining() const noexcept { return ch_.remaining(); }
  bool closed() const noexcept { return ch_.closed(); }
  SendChannel& channel() noexcept { return ch_; }

 private:
  SendChannel ch_;
};

template <class T>
class Receiver {
  static_assert(std::is_trivially_copyable_v<T>, "stream elements are copied as bytes");
 public:
  Receiver() = default;
  Receiver(const Communicator& comm, int source, int port, size_t count, size_t degree)
      : ch_(comm, source, port, count, datatype_of<T>::value, degree) {}
  T pop() {
    if (ch_.cur_ == ch_.end_) [[unlikely]] ch_.refill();
    T v;
    std::memcpy(&v, ch_.cur_, sizeof(T));
    ch_.cur_ += sizeof(T);
    if (ch_.cur_ == ch_.end_) [[unlikely]] ch_.packet_read();
    return v;
  }
  void pop_n(std::span<T> v) { ch_.pop_n(v.data(), v.size()); }
  size_t count() const noexcept { return ch_.count(); }
  size_t remaining() const noexcept { return ch_.remaining(); }
  bool closed() const noexcept { return ch_.closed(); }
  RecvChannel& channel() noexcept { return ch_; }

 private:
  RecvChannel ch_;
};

}  // namespace interlace::stream
