// Placeholder until the shm backend lands.
#include "interlace/fabric/fabric.hpp"
namespace interlace::fabric {
std::unique_ptr<Fabric> make_shm_fabric(const FabricInit&) {
  throw_error(Errc::unsupported, "shm fabric not built yet");
}
}  // namespace interlace::fabric
