// ZRLMPI's 32-byte packet header (docs/zrlmpi.md has the byte layout and a test
// vector). The 32-bit fields go least-significant byte first, as ZRLMPI's own
// encoder writes them; bytes 18-27 must be zero or ZRLMPI rejects the packet.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "fabric/udp/zrl_link.hpp"

namespace interlace::fabric::udp {

// The `call` byte (ZRLMPI's mpi_call). A sender puts its send call, the receiver
// answers with the matching receive call (send + 1).
enum ZrlCall : uint8_t {
  kZrlSendInt = 0,
  kZrlRecvInt = 1,
  kZrlSendFloat = 2,
  kZrlRecvFloat = 3,
  kZrlBarrier = 4,
};

// The `type` byte (ZRLMPI's packet_type).
enum ZrlType : uint8_t {
  kZrlSendRequest = 1,
  kZrlClearToSend = 2,
  kZrlData = 3,
  kZrlAck = 4,
  kZrlError = 5,
};

inline constexpr size_t kZrlFirstPayload = kZrlMaxDatagram - kZrlHeaderBytes;  // 1384
inline constexpr double kZrlTimeoutS = 0.1;  // ZRLMPI_PROTOCOL_TIMEOUT_MS

struct ZrlHeader {
  uint32_t dst = 0;
  uint32_t src = 0;
  uint32_t words = 0;  // payload size in 32-bit words (DATA); 0 for handshake packets
  uint8_t call = 0;
  uint8_t type = 0;
};

void zrl_encode(const ZrlHeader& h, std::byte out[kZrlHeaderBytes]) noexcept;

// Decodes a header as ZRLMPI does (markers, zero reserved bytes). Returns "" if
// valid, else the fault named with its value ("end marker byte 29 = 0x00 (must be
// 0x96)"); a datagram without markers is how continuations of DATA look.
std::string zrl_decode(const std::byte* data, size_t len, ZrlHeader* out) noexcept;
// Checks a decoded header's fields: known type and call, dst == `self`, src ==
// `expect_src` (the rank whose address sent it), no size on handshake packets.
std::string zrl_check(const ZrlHeader& h, uint32_t self, uint32_t expect_src);

const char* zrl_type_name(uint8_t type) noexcept;
const char* zrl_call_name(uint8_t call) noexcept;

}  // namespace interlace::fabric::udp
