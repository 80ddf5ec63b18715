// The tcp fabric's connection handshake (docs/wire.md, "TCP fabric handshake").
// The connecting rank sends a hello; the accepting rank checks every field and
// closes the socket on any mismatch. There is no reply: frames follow the hello
// at once, and a rejected connector sees its connection close.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace interlace::fabric::tcp {

inline constexpr uint32_t kHelloMagic = 0x48544c49;   // bytes "ILTH"
inline constexpr uint16_t kHandshakeVersion = 1;
inline constexpr size_t kHelloFixedBytes = 24;
inline constexpr size_t kMaxHelloField = 256;  // job id and secret length bound

std::vector<std::byte> encode_hello(const std::string& job_id, const std::string& secret,
                                    uint32_t rank, uint32_t target, uint32_t size);

struct HelloCheck {
  enum Result { need_more, ok, bad } result = need_more;
  size_t consumed = 0;  // hello length when ok
  uint32_t rank = 0;    // the connecting rank when ok
  std::string why;      // what was wrong when bad (names the values, never the secret)
};
// Checks a (possibly incomplete) hello at p[0..n) against this job and rank.
HelloCheck check_hello(const std::byte* p, size_t n, const std::string& job_id,
                       const std::string& secret, uint32_t self, uint32_t size);

// Compares without an early exit so timing does not reveal the matching prefix.
bool constant_time_equal(const std::string& a, const std::string& b) noexcept;

}  // namespace interlace::fabric::tcp
