// The udp fabric's datagram header (docs/udp.md, "Datagram format"): 14 bytes,
// little-endian, so that the default 1450-byte MTU leaves OMPIF's 1408-byte payload
// (1450 - 20 IP - 8 UDP - 14). The first byte is 0x1T (T = type), never ZRLMPI's
// 0x96 marker, so the two protocols cannot be confused.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace interlace::fabric::udp {

inline constexpr size_t kDgramHeader = 14;
inline constexpr size_t kIpUdpHeaders = 28;
inline constexpr uint8_t kVersionNibble = 0x10;

enum DgramType : uint8_t {
  kData = 1,  // seq = datagram number; payload = the next bytes of the frame stream
  kAck = 2,   // seq = next expected datagram; payload = optional u64 selective bitmap
  kReq = 3,   // large-frame request; seq = request id; payload = u64 frame bytes
  kCts = 4,   // clear to send; seq = request id; flags bit 0 = granted (0: not yet)
  kPing = 5,  // keepalive; answered by an ack
  kTypeMax = 5,
};

inline constexpr uint8_t kFlagGranted = 1;
inline constexpr uint8_t kFlagSack = 2;
// DATA: a 4-byte cumulative ack (the next datagram expected back) precedes the
// payload, so a reply carries the acknowledgement of the request it answers.
inline constexpr uint8_t kFlagAck = 4;
inline constexpr size_t kPiggyAck = 4;

struct DgramHeader {
  uint8_t type = 0;
  uint8_t flags = 0;
  uint16_t src = 0;
  uint32_t token = 0;
  uint32_t seq = 0;
};

// Writes the 14 header bytes (check included) to out.
void encode_header(const DgramHeader& h, std::byte* out) noexcept;
// Parses and checks a datagram's header; empty string if sound, else what is wrong
// (short, bad check, bad version or type). The token and rank are checked by the caller.
std::string decode_header(const std::byte* data, size_t len, DgramHeader* h);

// The per-job token every datagram carries: proves its sender knows the job secret.
uint32_t job_token(const std::string& job_id, const std::string& secret) noexcept;

}  // namespace interlace::fabric::udp
