// Per-socket state of the tcp fabric: the outgoing byte queue and the frame
// reader of one connection.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "interlace/fabric/fabric.hpp"

namespace interlace::fabric::tcp {

// Bytes the kernel did not take yet, in send order. Whole frames are appended;
// the socket may take any prefix.
class OutQueue {
 public:
  size_t pending() const noexcept { return buf_.size() - head_; }
  void append(const void* data, size_t len);
  // Writes what the socket takes now. Returns 0, or the errno that broke it.
  int flush(int fd);
 private:
  std::vector<std::byte> buf_;
  size_t head_ = 0;
};

// What an accepted connection must satisfy.
struct InboundRules {
  std::string job_id;
  std::string secret;
  uint32_t self = 0;
  uint32_t size = 1;
  uint64_t max_payload = 0;
  bool transit = false;  // routed job: frames for other ranks pass through (validate_header)
};

struct PumpResult {
  // failed: the socket broke; malformed: the peer broke the protocol.
  enum Kind { open, hello_ready, closed, failed, malformed } kind = open;
  int delivered = 0;
  uint32_t hello_rank = 0;  // when hello_ready
  std::string why;          // when closed/failed/malformed
};

// One socket to a peer. Reads the hello (on connections this rank accepted),
// then frames: small ones are parsed in place from a fixed buffer, a frame that
// does not fit is read straight into a buffer of its own size. Holds the queue
// of bytes to send when this socket is the one the rank sends to that peer on.
class Connection {
 public:
  // rank < 0: an accepted connection that owes a hello. rank >= 0: one this
  // rank opened to `rank` (authenticated by construction).
  Connection(int fd, std::string remote, int rank, uint64_t hello_deadline_ns);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  int fd() const noexcept { return fd_; }
  const std::string& remote() const noexcept { return remote_; }
  bool authenticated() const noexcept { return rank_ >= 0; }
  int rank() const noexcept { return rank_; }
  uint64_t hello_deadline_ns() const noexcept { return hello_deadline_ns_; }

  // Delivers buffered then newly readable frames. Stops at hello_ready (the
  // fabric decides whether to admit that rank), at EAGAIN, or on close/failure.
  PumpResult pump(FrameSink& sink, const InboundRules& rules);
  // Admits the rank named by the hello; frames after it are parsed next pump.
  void admit(uint32_t rank);

  uint64_t frames_read = 0;  // frames delivered from this socket
  OutQueue out;
  bool out_polled = false;  // EPOLLOUT registered
  bool doomed = false;      // closed at the fabric's next sweep (never mid-callback)

 private:
  bool parse(FrameSink& sink, const InboundRules& rules, PumpResult& r);
  bool read_large(FrameSink& sink, PumpResult& r);

  int fd_;
  std::string remote_;
  uint64_t hello_deadline_ns_;
  int rank_ = -1;
  size_t hello_len_ = 0;
  std::vector<std::byte> buf_;
  size_t rpos_ = 0, rend_ = 0;
  // A frame larger than buf_ in flight.
  bool large_ = false;
  FrameHeader large_h_{};
  std::vector<std::byte> large_buf_;
  size_t large_got_ = 0;
};

}  // namespace interlace::fabric::tcp
