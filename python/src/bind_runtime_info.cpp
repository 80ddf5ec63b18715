// What `interlace info` shows: the library version, the fabrics compiled in,
// and the configuration the INTERLACE_* environment produces right now.
#include <map>
#include <string>
#include <vector>

#include <nanobind/stl/map.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "interlace/core/config.hpp"
#include "interlace/fabric/fabric.hpp"
#include "interlace/fabric/registry.hpp"
#include "interlace/fabric/tiers.hpp"
#include "interlace/core/error.hpp"

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
  m.def(
      "fabric_registry",
      [] {
        // (name, scope, summary, [(variable, default, meaning)]) per registered fabric.
        using Option = std::tuple<std::string, std::string, std::string>;
        std::vector<std::tuple<std::string, std::string, std::string, std::vector<Option>>> out;
        for (const fabric::FabricInfo* f : fabric::registry().all()) {
          std::vector<Option> opts;
          for (const fabric::FabricOption& o : f->options) opts.emplace_back(o.variable, o.default_value, o.meaning);
          out.emplace_back(f->name, f->scope == fabric::FabricScope::host ? "host" : "network", f->summary,
                           std::move(opts));
        }
        return out;
      },
      "The fabric registry: (name, scope, summary, [(variable, default, meaning)]) per fabric.");
  m.def(
      "fabric_check_config",
      [] {
        // Returns which fabric serves which peers, for `interlace info`.
        const std::string value = Config::from_env().fabric;
        try {
          const fabric::FabricSetting s = fabric::parse_fabric_setting(value, fabric::registry());
          if (!s.tiers()) return s.single + " to every peer";
          return s.host->name + " to ranks on this host, " + s.net->name +
                 " to ranks on other hosts (two tiers; one host: " + s.host->name + " only)";
        } catch (const Error& e) {
          throw nb::value_error(e.what());
        }
      },
      "Checks INTERLACE_FABRIC against the fabric registry (Config checks only its form) and "
      "says which fabric each peer will use.");
  // Re-reads the environment on each call so a changed os.environ shows up.
  m.def(
      "config_description",
      [] { return Config::from_env().describe(); },
      "Every INTERLACE_* setting with its effective value; raises on malformed values.");
}

}  // namespace interlace::python
