// Internal: the TCP store wire protocol shared by server and client. The
// format is specified in docs/wire.md ("TCP store protocol"); keep them in step.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace interlace::bootstrap::tcpstore {

inline constexpr uint32_t kMagic = 0x494C5354;  // "ILST"
inline constexpr uint16_t kVersion = 1;
inline constexpr size_t kMaxKey = 4096;
inline constexpr size_t kMaxValue = 16u << 20;
// Largest body any request needs (ADD's delta + key length + key, or SET's key + value).
inline constexpr size_t kMaxBody = 1 + 2 + kMaxKey + 8 + kMaxValue;
// Until a client has authenticated it may only send a hello, which is small;
// this stops an unauthenticated peer from making the server buffer megabytes.
inline constexpr size_t kMaxHelloBody = 1 + 4 + 2 + 2 + 1024;

enum Op : uint8_t { kHello = 1, kSet = 2, kGet = 3, kCheck = 4, kAdd = 5 };
enum Status : uint8_t { kOk = 0, kTimedOut = 1, kFailed = 2, kRejected = 3 };

inline void put_u8(std::string& b, uint8_t v) { b.push_back(static_cast<char>(v)); }
inline void put_u16(std::string& b, uint16_t v) {
  put_u8(b, static_cast<uint8_t>(v >> 8));
  put_u8(b, static_cast<uint8_t>(v));
}
inline void put_u32(std::string& b, uint32_t v) {
  put_u16(b, static_cast<uint16_t>(v >> 16));
  put_u16(b, static_cast<uint16_t>(v));
}
inline void put_u64(std::string& b, uint64_t v) {
  put_u32(b, static_cast<uint32_t>(v >> 32));
  put_u32(b, static_cast<uint32_t>(v));
}

// Bounds-checked big-endian reader; any short read marks it bad instead of throwing,
// so the server can reject a malformed message without unwinding.
class Reader {
 public:
  Reader(const char* p, size_t n) : p_(reinterpret_cast<const uint8_t*>(p)), n_(n) {}
  bool ok() const { return ok_; }
  bool done() const { return ok_ && i_ == n_; }
  uint8_t u8() { return need(1) ? p_[i_++] : 0; }
  uint16_t u16() { uint16_t hi = u8(); return static_cast<uint16_t>((hi << 8) | u8()); }
  uint32_t u32() { uint32_t hi = u16(); return (hi << 16) | u16(); }
  uint64_t u64() { uint64_t hi = u32(); return (hi << 32) | u32(); }
  std::string bytes(size_t n) {
    if (!need(n)) return {};
    std::string s(reinterpret_cast<const char*>(p_ + i_), n);
    i_ += n;
    return s;
  }
  std::string rest() { return bytes(n_ - i_); }

 private:
  bool need(size_t n) {
    if (!ok_ || n_ - i_ < n) ok_ = false;
    return ok_;
  }
  const uint8_t* p_;
  size_t n_;
  size_t i_ = 0;
  bool ok_ = true;
};

inline uint32_t read_be32(const char* p) {
  const auto* u = reinterpret_cast<const uint8_t*>(p);
  return (uint32_t(u[0]) << 24) | (uint32_t(u[1]) << 16) | (uint32_t(u[2]) << 8) | u[3];
}

// Prepends the 4-byte length.
inline std::string frame(const std::string& body) {
  std::string m;
  m.reserve(4 + body.size());
  put_u32(m, static_cast<uint32_t>(body.size()));
  m += body;
  return m;
}

}  // namespace interlace::bootstrap::tcpstore
