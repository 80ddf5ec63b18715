// Contract: each python/src/bind_<x>.cpp defines `void bind_<x>(nanobind::module_& m)`
// that adds its names to interlace._core. module.cpp calls every such function,
// in file-name order, from a list CMake generates from the file names
// (python/CMakeLists.txt), so a new binding file needs no edit elsewhere.
// A bind function must not depend on another having run first, except that
// bind_errors (if present) runs before all others so error types exist.
#pragma once
#include <nanobind/nanobind.h>

namespace interlace::python {

void bind_runtime_info(nanobind::module_& m);  // version, builtin fabrics, config
void bind_store(nanobind::module_& m);         // TcpStoreServer for the launcher
void bind_p2p(nanobind::module_& m);           // defined by python/src/bind_p2p.cpp

}  // namespace interlace::python
