"""SMI-style routing for interlace: topologies (SMI's JSON, a compact form,
generators), shortest deadlock-free routes, interlace's and SMI's table files, and
their checks. The `interlace routes` command; docs/routing.md."""
from __future__ import annotations

from .check import Report, check_routes, check_smi
from .routing import Routes, compute_routes
from .tables import read_routes, write_dir
from .topology import RoutesError, Topology, load_topology

# Documented and raised as interlace.routes.RoutesError (docs/errors.md).
RoutesError.__module__ = __name__

__all__ = ["Report", "Routes", "RoutesError", "Topology", "check_routes", "check_smi",
           "compute_routes", "load_topology", "read_routes", "write_dir"]
