// interlace._core: the extension module. The bind functions to call come from
// bind_list.inc, generated from the python/src/bind_*.cpp file names, so the
// module builds whichever binding files exist right now.
#include <string_view>

#include "bindings.hpp"

namespace interlace::python {
// Declares every listed function; repeats of those in bindings.hpp are harmless.
#define INTERLACE_BIND(name) void bind_##name(nanobind::module_& m);
#include "bind_list.inc"
#undef INTERLACE_BIND
}  // namespace interlace::python

NB_MODULE(_core, m) {
  m.doc() = "interlace native core (C++ runtime bindings)";
  // Error types first: other bind functions' docstrings and translators may use them.
#define INTERLACE_BIND(name) \
  if (std::string_view(#name) == "errors") interlace::python::bind_##name(m);
#include "bind_list.inc"
#undef INTERLACE_BIND
#define INTERLACE_BIND(name) \
  if (std::string_view(#name) != "errors") interlace::python::bind_##name(m);
#include "bind_list.inc"
#undef INTERLACE_BIND
}
