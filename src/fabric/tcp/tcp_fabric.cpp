// Placeholder until the tcp backend lands.
#include "interlace/fabric/fabric.hpp"
namespace interlace::fabric {
std::unique_ptr<Fabric> make_tcp_fabric(const FabricInit&) {
  throw_error(Errc::unsupported, "tcp fabric not built yet");
}
}  // namespace interlace::fabric
