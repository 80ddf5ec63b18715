#include "fabric/udp/zrl_header.hpp"

#include <cstdio>

namespace interlace::fabric::udp {

namespace {

void put32(std::byte* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::byte>((v >> (8 * i)) & 0xff);
}

uint32_t get32(const std::byte* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(p[i]) << (8 * i);
  return v;
}

std::string byte_fault(const char* what, size_t at, std::byte got, const char* must) {
  char b[128];
  std::snprintf(b, sizeof b, "%s byte %zu = 0x%02x (must be %s)", what, at,
                static_cast<unsigned>(got), must);
  return b;
}

}  // namespace

void zrl_encode(const ZrlHeader& h, std::byte out[kZrlHeaderBytes]) noexcept {
  for (size_t i = 0; i < kZrlHeaderBytes; ++i) out[i] = std::byte{0};
  for (int i = 0; i < 4; ++i) out[i] = out[28 + i] = std::byte{kZrlMarker};
  put32(out + 4, h.dst);
  put32(out + 8, h.src);
  put32(out + 12, h.words);
  out[16] = std::byte{h.call};
  out[17] = std::byte{h.type};
}

std::string zrl_decode(const std::byte* data, size_t len, ZrlHeader* out) noexcept {
  if (len < kZrlHeaderBytes)
    return "datagram of " + std::to_string(len) + " bytes is shorter than the 32-byte header";
  for (size_t i = 0; i < 4; ++i)
    if (data[i] != std::byte{kZrlMarker}) return byte_fault("start marker", i, data[i], "0x96");
  for (size_t i = 18; i < 28; ++i)
    if (data[i] != std::byte{0}) return byte_fault("reserved", i, data[i], "0x00");
  for (size_t i = 28; i < 32; ++i)
    if (data[i] != std::byte{kZrlMarker}) return byte_fault("end marker", i, data[i], "0x96");
  out->dst = get32(data + 4);
  out->src = get32(data + 8);
  out->words = get32(data + 12);
  out->call = static_cast<uint8_t>(data[16]);
  out->type = static_cast<uint8_t>(data[17]);
  return {};
}

std::string zrl_check(const ZrlHeader& h, uint32_t self, uint32_t expect_src) {
  if (h.type < kZrlSendRequest || h.type > kZrlError)
    return "packet type " + std::to_string(h.type) + " is unknown (must be 1..5)";
  if (h.call > kZrlBarrier) return "call " + std::to_string(h.call) + " is unknown (must be 0..4)";
  if (h.dst != self)
    return "destination rank " + std::to_string(h.dst) + " is not this rank (" + std::to_string(self) + ")";
  if (h.src != expect_src)
    return "source rank " + std::to_string(h.src) + " does not match the sender's address (rank " +
           std::to_string(expect_src) + ")";
  if (h.type != kZrlData && h.type != kZrlError && h.words != 0)
    return std::string(zrl_type_name(h.type)) + " with size " + std::to_string(h.words) +
           " words (handshake packets carry none)";
  return {};
}

const char* zrl_type_name(uint8_t type) noexcept {
  switch (type) {
    case kZrlSendRequest: return "SEND_REQUEST";
    case kZrlClearToSend: return "CLEAR_TO_SEND";
    case kZrlData: return "DATA";
    case kZrlAck: return "ACK";
    case kZrlError: return "ERROR";
    default: return "unknown";
  }
}

const char* zrl_call_name(uint8_t call) noexcept {
  switch (call) {
    case kZrlSendInt: return "MPI_SEND_INT";
    case kZrlRecvInt: return "MPI_RECV_INT";
    case kZrlSendFloat: return "MPI_SEND_FLOAT";
    case kZrlRecvFloat: return "MPI_RECV_FLOAT";
    case kZrlBarrier: return "MPI_BARRIER";
    default: return "unknown";
  }
}

}  // namespace interlace::fabric::udp
