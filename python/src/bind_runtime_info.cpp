// What `interlace info` shows: the library version, the fabrics compiled in,
// and the configuration the INTERLACE_* environment produces right now.
#include <map>
#include <string>
#include <vector>

#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "interlace/core/config.hpp"
#include "interlace/fabric/fabric.hpp"

namespace nb = nanobind;

namespace interlace::python {

void bind_runtime_info(nb::module_& m) {
  m.def("version", [] { return std::string(INTERLACE_VERSION); },
        "Version of the C++ library this extension was built from.");
  m.def(
      "builtin_fabrics",
      [] {
        std::vector<std::string> names;
        for (const char* const* p = fabric::builtin_fabrics(); p && *p; ++p) names.emplace_back(*p);
        return names;
      },
      "Names of the fabric backends compiled in, e.g. ['shm', 'tcp'].");
  // Re-reads the environment on each call so a changed os.environ shows up.
  m.def(
      "config_description",
      [] { return Config::from_env().describe(); },
      "Every INTERLACE_* setting with its effective value; raises on malformed values.");
}

}  // namespace interlace::python
