#include "interlace/fabric/frame.hpp"

namespace interlace::fabric {

namespace {
std::string bad(const char* field, uint64_t value, const std::string& expected) {
  return std::string("frame header field ") + field + " = " + std::to_string(value) + " (" +
         expected + ")";
}
}  // namespace

std::string validate_header(const FrameHeader& h, uint32_t self, uint32_t size, uint64_t max_len,
                            bool transit) {
  // The common, valid case allocates nothing: an empty string is returned.
  if (h.magic != kFrameMagic) [[unlikely]]
    return bad("magic", h.magic, "expected " + std::to_string(kFrameMagic) + " = 'IL'");
  if (h.version != kWireVersion) [[unlikely]]
    return bad("version", h.version, "this build speaks " + std::to_string(kWireVersion));
  if (h.kind == kKindInvalid || h.kind >= kKindCount) [[unlikely]]
    return bad("kind", h.kind, "must be 1.." + std::to_string(kKindCount - 1));
  if (h.dst != self && (!transit || h.dst >= size)) [[unlikely]]
    return bad("dst", h.dst, transit ? "job size is " + std::to_string(size)
                                     : "this rank is " + std::to_string(self));
  if (h.src >= size) [[unlikely]]
    return bad("src", h.src, "job size is " + std::to_string(size));
  if (h.len > max_len) [[unlikely]]
    return bad("len", h.len, "limit is " + std::to_string(max_len));
  return {};
}

}  // namespace interlace::fabric
