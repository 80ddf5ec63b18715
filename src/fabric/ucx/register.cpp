// Registers the UCX fabric (see interlace/fabric/registry.hpp, docs/ucx.md). This
// folder is built only when CMake finds libucx (fabric.cmake).
#include "fabric/ucx/ucx_fabric.hpp"
#include "interlace/fabric/registry.hpp"

namespace interlace::fabric {

void register_fabric_ucx(Registry& r) {
  r.add(FabricInfo{
      "ucx",
      "UCX (UCP active messages): RDMA networks, eager and zero-copy rendezvous",
      FabricScope::network,
      // Below tcp (10): auto never picks ucx. Where only UCX's tcp transport exists
      // (this machine) it is slower than the tcp fabric; on an RDMA cluster say
      // INTERLACE_FABRIC=ucx (docs/ucx.md).
      3,
      {{"INTERLACE_UCX_RNDV_THRESH", "65536",
        "frames above this many bytes go by zero-copy rendezvous (send() waits for it)"},
       {"UCX_TLS", "(UCX's: all)", "UCX transports, e.g. tcp; sm,self; posix,cma,self; rc,ud"},
       {"UCX_KEEPALIVE_INTERVAL", "1s (set by interlace)", "how soon a dead peer is found"}},
      [](const FabricInit& init) -> std::unique_ptr<Fabric> {
        return std::make_unique<ucx::UcxFabric>(init);
      }});
}

}  // namespace interlace::fabric
