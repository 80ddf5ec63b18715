// The host's processor topology for `interlace run`'s rank binding
// (docs/launcher.md): cores, hardware threads, packages and NUMA nodes, each
// as the OS indices of its PUs (what sched_setaffinity takes). hwloc does the
// discovery, so cgroups, offline CPUs and odd /sys layouts are its problem;
// the mapping policy itself lives in Python (interlace/_binding.py), where it
// can be tested on made-up topologies.
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"

#ifdef INTERLACE_HAVE_HWLOC
#include <hwloc.h>
#endif

namespace nb = nanobind;

namespace interlace::python {

namespace {

using Sets = std::vector<std::vector<int>>;

#ifdef INTERLACE_HAVE_HWLOC
class Topology {
 public:
  Topology() {
    if (hwloc_topology_init(&t_) != 0) throw std::runtime_error("hwloc: cannot initialise a topology");
    if (hwloc_topology_load(t_) != 0) {
      hwloc_topology_destroy(t_);
      throw std::runtime_error("hwloc: cannot discover this host's topology");
    }
  }
  ~Topology() { hwloc_topology_destroy(t_); }
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;

  // Objects in hwloc's logical order, which keeps a package's cores together.
  Sets sets_of(hwloc_obj_type_t type) const {
    Sets out;
    const int n = hwloc_get_nbobjs_by_type(t_, type);
    for (int i = 0; i < n; ++i) {
      hwloc_obj_t obj = hwloc_get_obj_by_type(t_, type, static_cast<unsigned>(i));
      if (obj && obj->cpuset) {
        std::vector<int> pus = pus_of(obj->cpuset);
        if (!pus.empty()) out.push_back(std::move(pus));  // a CPU-less NUMA node (memory only)
      }
    }
    return out;
  }

 private:
  static std::vector<int> pus_of(hwloc_const_bitmap_t set) {
    std::vector<int> pus;
    for (int id = hwloc_bitmap_first(set); id >= 0; id = hwloc_bitmap_next(set, id)) pus.push_back(id);
    return pus;
  }
  hwloc_topology_t t_{};
};
#endif

std::map<std::string, Sets> host_topology() {
#ifdef INTERLACE_HAVE_HWLOC
  Topology t;
  return {{"pus", t.sets_of(HWLOC_OBJ_PU)},
          {"cores", t.sets_of(HWLOC_OBJ_CORE)},
          {"packages", t.sets_of(HWLOC_OBJ_PACKAGE)},
          {"numa", t.sets_of(HWLOC_OBJ_NUMANODE)}};
#else
  throw std::runtime_error("interlace was built without hwloc (libhwloc-dev): no topology, no rank binding");
#endif
}

}  // namespace

void bind_topology(nb::module_& m) {
  m.def("topology_available", [] {
#ifdef INTERLACE_HAVE_HWLOC
    return true;
#else
    return false;
#endif
  }, "Whether this build can discover the host topology (it was built with hwloc).");
  m.def("topology_library", [] {
#ifdef INTERLACE_HAVE_HWLOC
    const unsigned v = hwloc_get_api_version();
    return "hwloc " + std::to_string(v >> 16) + "." + std::to_string((v >> 8) & 0xff) + "." +
           std::to_string(v & 0xff);
#else
    return std::string("none (built without hwloc)");
#endif
  }, "The topology library in use, e.g. 'hwloc 2.9.0'.");
  m.def("topology", &host_topology,
        "This host's topology: {'pus', 'cores', 'packages', 'numa'}, each a list of objects "
        "given as the OS indices of their PUs. Raises RuntimeError without hwloc.");
}

}  // namespace interlace::python
