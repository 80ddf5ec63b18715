// Registers the shared-memory fabric (see interlace/fabric/registry.hpp).
#include "interlace/fabric/registry.hpp"

namespace interlace::fabric {

void register_fabric_shm(Registry& r) {
  r.add(FabricInfo{
      "shm",
      "shared-memory rings between the ranks of one host; futex wake-ups",
      FabricScope::host,
      10,
      {{"INTERLACE_SHM_RING_BYTES", "256k", "ring size per ordered pair of ranks (at least 4k)"},
       {"INTERLACE_SHM_SINGLE_COPY", "0", "1: rendezvous reads the sender's buffer with process_vm_readv"}},
      make_shm_fabric});
}

}  // namespace interlace::fabric
