// Temporary stand-ins so that the udp fabric links before the ZRLMPI wire mode
// (helper "zrl", src/fabric/udp/zrl_*) is merged; deleted at merge.
#include "fabric/udp/zrl_link.hpp"

namespace interlace::fabric::udp {

std::unique_ptr<ZrlLink> make_zrl_link(int, int, std::vector<bool>, ZrlIo&, const Config&) {
  throw_error(Errc::unsupported, "ZRLMPI wire mode is not built");
}

bool is_zrl_header(const std::byte* data, size_t len) noexcept {
  if (len < 4) return false;
  for (int i = 0; i < 4; ++i)
    if (data[i] != std::byte{kZrlMarker}) return false;
  return true;
}

}  // namespace interlace::fabric::udp
