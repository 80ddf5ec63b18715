// Registers the TCP fabric (see interlace/fabric/registry.hpp).
#include "interlace/fabric/registry.hpp"

namespace interlace::fabric {

void register_fabric_tcp(Registry& r) {
  r.add(FabricInfo{
      "tcp",
      "TCP connections between any hosts; epoll, authenticated with the job secret",
      FabricScope::network,
      10,
      {{"INTERLACE_TCP_ADDR", "(the hostname's address)", "address this rank listens on"}},
      make_tcp_fabric});
}

}  // namespace interlace::fabric
