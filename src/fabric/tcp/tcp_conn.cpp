#include "fabric/tcp/tcp_conn.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "fabric/tcp/tcp_hello.hpp"

namespace interlace::fabric::tcp {
namespace {
// Fits every eager message and header-only control frame; bigger frames get
// their own buffer, so this bounds memory per connection, not frame size.
constexpr size_t kInboundBuffer = 128 * 1024;
// Before authentication only a hello (at most 24 + 2 * 256 bytes) is expected:
// strangers' connections should not cost 128 KiB each.
constexpr size_t kHelloBuffer = 1024;
// After a big frame drains, give its memory back rather than pin it per peer.
constexpr size_t kKeepOutCapacity = 8 * 1024 * 1024;
}  // namespace

void OutQueue::append(const void* data, size_t len) {
  const auto* b = static_cast<const std::byte*>(data);
  buf_.insert(buf_.end(), b, b + len);
}

int OutQueue::flush(int fd) {
  while (pending() > 0) {
    ssize_t n = ::send(fd, buf_.data() + head_, pending(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      head_ += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    return n < 0 ? errno : EPIPE;
  }
  if (head_ == buf_.size()) {
    head_ = 0;
    buf_.clear();
    if (buf_.capacity() > kKeepOutCapacity) buf_.shrink_to_fit();
  } else if (head_ > buf_.size() / 2) {
    buf_.erase(buf_.begin(), buf_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
  }
  return 0;
}

Connection::Connection(int fd, std::string remote, int rank, uint64_t hello_deadline_ns)
    : fd_(fd), remote_(std::move(remote)), hello_deadline_ns_(hello_deadline_ns), rank_(rank),
      buf_(rank < 0 ? kHelloBuffer : kInboundBuffer) {}

Connection::~Connection() {
  if (fd_ >= 0) ::close(fd_);
}

void Connection::admit(uint32_t rank) {
  rank_ = static_cast<int>(rank);
  rpos_ += hello_len_;
  buf_.resize(kInboundBuffer);  // keeps frame bytes that came with the hello
}

// Returns false when pump must stop (hello ready or failure); r says why.
bool Connection::parse(FrameSink& sink, const InboundRules& rules, PumpResult& r) {
  if (rank_ < 0) {
    HelloCheck c = check_hello(buf_.data() + rpos_, rend_ - rpos_, rules.job_id, rules.secret,
                               rules.self, rules.size);
    if (c.result == HelloCheck::need_more) return true;
    if (c.result == HelloCheck::bad) {
      r.kind = PumpResult::malformed;
      r.why = c.why;
      return false;
    }
    hello_len_ = c.consumed;
    r.kind = PumpResult::hello_ready;
    r.hello_rank = c.rank;
    return false;
  }
  while (rend_ - rpos_ >= sizeof(FrameHeader)) {
    FrameHeader h;
    std::memcpy(&h, buf_.data() + rpos_, sizeof h);
    std::string bad = validate_header(h, rules.self, rules.size, rules.max_payload, rules.transit);
    if (!bad.empty()) {
      r.kind = PumpResult::malformed;
      r.why = "malformed frame: " + bad;
      return false;
    }
    size_t total = sizeof h + h.len;
    if (total <= rend_ - rpos_) {
      rpos_ += total;
      sink.on_frame(h, buf_.data() + rpos_ - h.len);
      ++r.delivered;
      ++frames_read;
      if (doomed) return false;  // the sink's send() found this peer dead
      continue;
    }
    if (total > buf_.size()) {
      // Move the payload prefix we already have; the rest is read in place.
      large_ = true;
      large_h_ = h;
      large_buf_.resize(h.len);
      large_got_ = rend_ - rpos_ - sizeof h;
      std::memcpy(large_buf_.data(), buf_.data() + rpos_ + sizeof h, large_got_);
      rpos_ = rend_;
    }
    break;
  }
  if (rpos_ == rend_) {
    rpos_ = rend_ = 0;
  } else if (rpos_ > 0) {
    // At most one partial frame remains; moving it once lets it complete in place.
    std::memmove(buf_.data(), buf_.data() + rpos_, rend_ - rpos_);
    rend_ -= rpos_;
    rpos_ = 0;
  }
  return true;
}

// Returns false when the socket has nothing more now or failed (r.kind says).
bool Connection::read_large(FrameSink& sink, PumpResult& r) {
  while (large_got_ < large_buf_.size()) {
    ssize_t n = ::recv(fd_, large_buf_.data() + large_got_, large_buf_.size() - large_got_, 0);
    if (n > 0) {
      large_got_ += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return false;
    r.kind = n == 0 ? PumpResult::closed : PumpResult::failed;
    r.why = "connection " + std::string(n == 0 ? "closed" : std::strerror(errno)) +
            " in the middle of a " + std::to_string(large_buf_.size()) + "-byte frame";
    return false;
  }
  large_ = false;
  sink.on_frame(large_h_, large_buf_.data());
  ++r.delivered;
  ++frames_read;
  std::vector<std::byte>().swap(large_buf_);
  return !doomed;
}

PumpResult Connection::pump(FrameSink& sink, const InboundRules& rules) {
  PumpResult r;
  if (!parse(sink, rules, r)) return r;  // frames left over from the last pump / hello
  for (;;) {
    if (large_) {
      if (!read_large(sink, r)) return r;
      continue;
    }
    size_t room = buf_.size() - rend_;
    ssize_t n = ::recv(fd_, buf_.data() + rend_, room, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return r;
    if (n <= 0) {
      r.kind = n == 0 ? PumpResult::closed : PumpResult::failed;
      r.why = n == 0 ? "connection closed" : std::string("connection error: ") + std::strerror(errno);
      if (rend_ > rpos_)
        r.why += " with " + std::to_string(rend_ - rpos_) + " bytes of an incomplete " +
                 (rank_ < 0 ? "hello" : "frame");
      return r;
    }
    rend_ += static_cast<size_t>(n);
    if (!parse(sink, rules, r)) return r;
    // A short read means the socket is drained; skip the recv that would say EAGAIN.
    if (static_cast<size_t>(n) < room && !large_) return r;
  }
}

}  // namespace interlace::fabric::tcp
