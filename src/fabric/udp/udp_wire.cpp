#include "fabric/udp/udp_wire.hpp"

#include <cstring>

namespace interlace::fabric::udp {
namespace {

uint64_t fnv1a(const void* data, size_t len, uint64_t h = 1469598103934665603ull) noexcept {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < len; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

void put16(std::byte* p, uint16_t v) noexcept {
  p[0] = std::byte(v & 0xff);
  p[1] = std::byte(v >> 8);
}
void put32(std::byte* p, uint32_t v) noexcept {
  for (int i = 0; i < 4; ++i) p[i] = std::byte((v >> (8 * i)) & 0xff);
}
uint16_t get16(const std::byte* p) noexcept {
  return static_cast<uint16_t>(std::to_integer<unsigned>(p[0]) | std::to_integer<unsigned>(p[1]) << 8);
}
uint32_t get32(const std::byte* p) noexcept {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= std::to_integer<uint32_t>(p[i]) << (8 * i);
  return v;
}

// The header's own check: UDP's checksum covers transit, this catches datagrams
// that were never ours (a stranger's bytes that happen to start like ours).
uint16_t header_check(const std::byte* p) noexcept {
  uint64_t h = fnv1a(p, 12);
  return static_cast<uint16_t>(h ^ (h >> 16) ^ (h >> 32) ^ (h >> 48));
}

}  // namespace

void encode_header(const DgramHeader& h, std::byte* out) noexcept {
  out[0] = std::byte(kVersionNibble | h.type);
  out[1] = std::byte(h.flags);
  put16(out + 2, h.src);
  put32(out + 4, h.token);
  put32(out + 8, h.seq);
  put16(out + 12, header_check(out));
}

std::string decode_header(const std::byte* data, size_t len, DgramHeader* h) {
  if (len < kDgramHeader)
    return "short datagram (" + std::to_string(len) + " bytes, header is " +
           std::to_string(kDgramHeader) + ")";
  if (get16(data + 12) != header_check(data)) return "corrupt header (check mismatch)";
  const unsigned b0 = std::to_integer<unsigned>(data[0]);
  if ((b0 & 0xf0) != kVersionNibble) return "unknown version byte " + std::to_string(b0);
  h->type = static_cast<uint8_t>(b0 & 0x0f);
  if (h->type == 0 || h->type > kTypeMax) return "unknown datagram type " + std::to_string(h->type);
  h->flags = std::to_integer<uint8_t>(data[1]);
  h->src = get16(data + 2);
  h->token = get32(data + 4);
  h->seq = get32(data + 8);
  return {};
}

uint32_t job_token(const std::string& job_id, const std::string& secret) noexcept {
  uint64_t h = fnv1a(job_id.data(), job_id.size());
  h = fnv1a("\n", 1, h);
  h = fnv1a(secret.data(), secret.size(), h);
  return static_cast<uint32_t>(h ^ (h >> 32));
}

}  // namespace interlace::fabric::udp
