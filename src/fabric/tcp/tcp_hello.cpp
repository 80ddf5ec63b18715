#include "fabric/tcp/tcp_hello.hpp"

#include <bit>
#include <cstring>

namespace interlace::fabric::tcp {
namespace {

static_assert(std::endian::native == std::endian::little,
              "the wire is little-endian; a big-endian port must byte-swap here");

template <class T> void put(std::vector<std::byte>& v, T x) {
  const auto* b = reinterpret_cast<const std::byte*>(&x);
  v.insert(v.end(), b, b + sizeof x);
}
template <class T> T get(const std::byte* p) {
  T x;
  std::memcpy(&x, p, sizeof x);
  return x;
}

// Keeps bad handshakes readable in logs without echoing arbitrary bytes.
std::string printable(const std::byte* p, size_t n) {
  std::string s;
  for (size_t i = 0; i < n && i < 64; ++i) {
    char c = static_cast<char>(p[i]);
    s += (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  return n > 64 ? s + "..." : s;
}

}  // namespace

std::vector<std::byte> encode_hello(const std::string& job_id, const std::string& secret,
                                    uint32_t rank, uint32_t target, uint32_t size) {
  std::vector<std::byte> v;
  put<uint32_t>(v, kHelloMagic);
  put<uint16_t>(v, kHandshakeVersion);
  put<uint16_t>(v, 0);
  put<uint32_t>(v, rank);
  put<uint32_t>(v, target);
  put<uint32_t>(v, size);
  put<uint16_t>(v, static_cast<uint16_t>(job_id.size()));
  put<uint16_t>(v, static_cast<uint16_t>(secret.size()));
  const auto* j = reinterpret_cast<const std::byte*>(job_id.data());
  const auto* s = reinterpret_cast<const std::byte*>(secret.data());
  v.insert(v.end(), j, j + job_id.size());
  v.insert(v.end(), s, s + secret.size());
  return v;
}

HelloCheck check_hello(const std::byte* p, size_t n, const std::string& job_id,
                       const std::string& secret, uint32_t self, uint32_t size) {
  HelloCheck c;
  auto bad = [&c](std::string why) {
    c.result = HelloCheck::bad;
    c.why = std::move(why);
    return c;
  };
  // Judge the magic as soon as it is here, so garbage is dropped without
  // waiting for 20 bytes that may never come.
  if (n >= 4 && get<uint32_t>(p) != kHelloMagic)
    return bad("bad hello magic (first bytes '" + printable(p, n < 16 ? n : 16) +
               "'; not an interlace tcp fabric client?)");
  if (n < kHelloFixedBytes) return c;
  // Layout: magic u32, version u16, reserved u16, rank u32, target u32, size u32,
  // job id length u16, secret length u16, job id bytes, secret bytes.
  uint16_t version = get<uint16_t>(p + 4);
  uint32_t rank = get<uint32_t>(p + 8);
  uint32_t target = get<uint32_t>(p + 12);
  uint32_t their_size = get<uint32_t>(p + 16);
  uint16_t job_len = get<uint16_t>(p + 20);
  uint16_t secret_len = get<uint16_t>(p + 22);
  if (version != kHandshakeVersion)
    return bad("handshake version " + std::to_string(version) + ", expected " +
               std::to_string(kHandshakeVersion));
  if (job_len > kMaxHelloField || secret_len > kMaxHelloField)
    return bad("hello field too long (job id " + std::to_string(job_len) + " bytes, secret " +
               std::to_string(secret_len) + " bytes; limit " + std::to_string(kMaxHelloField) + ")");
  size_t total = kHelloFixedBytes + job_len + secret_len;
  if (n < total) return c;
  std::string their_job(reinterpret_cast<const char*>(p + kHelloFixedBytes), job_len);
  std::string their_secret(reinterpret_cast<const char*>(p + kHelloFixedBytes + job_len),
                           secret_len);
  if (their_job != job_id)
    return bad("job id '" + printable(p + kHelloFixedBytes, job_len) + "', expected '" +
               job_id + "'");
  if (!constant_time_equal(their_secret, secret)) return bad("wrong job secret");
  if (their_size != size)
    return bad("job size " + std::to_string(their_size) + ", expected " + std::to_string(size));
  if (rank >= size)
    return bad("rank " + std::to_string(rank) + " out of range for size " + std::to_string(size));
  // A stale address (this port now belongs to another rank or job) lands here.
  if (target != self)
    return bad("hello addressed to rank " + std::to_string(target) + ", this is rank " +
               std::to_string(self));
  c.result = HelloCheck::ok;
  c.consumed = total;
  c.rank = rank;
  return c;
}

bool constant_time_equal(const std::string& a, const std::string& b) noexcept {
  // Walk the longer length so a length mismatch costs the same as a content one.
  size_t n = a.size() > b.size() ? a.size() : b.size();
  unsigned diff = a.size() == b.size() ? 0u : 1u;
  for (size_t i = 0; i < n; ++i) {
    unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff |= static_cast<unsigned>(x ^ y);
  }
  return diff == 0;
}

}  // namespace interlace::fabric::tcp
