#include "interlace/fabric/fabric.hpp"

namespace interlace::fabric {

const char* const* builtin_fabrics() {
  static const char* const names[] = {"shm", "tcp", nullptr};
  return names;
}

}  // namespace interlace::fabric
