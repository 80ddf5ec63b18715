"""`interlace run --topology/--routes/--preset`: the environment of a routed or
simulated job (INTERLACE_ROUTES, INTERLACE_SIM_PRESET; docs/routing.md)."""
from __future__ import annotations

import os
import shutil
import tempfile
from typing import Callable

from .routing import compute_routes
from .tables import read_routes, write_dir
from .topology import RoutesError, load_topology

PRESETS = ("smi", "fshmem", "accl", "cloudfpga")


def apply(opts) -> Callable[[], None]:
    """Validates the options and fills opts.job_env; returns the cleanup to run when
    the job is over (it removes routes generated on the fly)."""
    from ..launcher import UsageError
    if opts.preset is not None:
        if opts.preset not in PRESETS:
            raise UsageError(f"interlace run: unknown preset {opts.preset!r} "
                             f"(known: {', '.join(PRESETS)})")
        if opts.fabric != "sim":
            raise UsageError(f"interlace run: --preset {opts.preset} goes with --fabric sim "
                             f"(the simulated fabric), got --fabric {opts.fabric or '(none)'}")
        opts.job_env["INTERLACE_SIM_PRESET"] = opts.preset
    if opts.topology is None and opts.routes is None:
        return lambda: None
    tmp = None
    try:
        if opts.topology is not None:
            topo = load_topology(opts.topology)
            if topo.ranks != opts.size:
                raise UsageError(f"interlace run: -n {opts.size} does not match the topology "
                                 f"{opts.topology}, which has {topo.ranks} ranks")
        if opts.routes is not None:
            routes = read_routes(opts.routes)
            if routes.ranks != opts.size:
                raise UsageError(f"interlace run: -n {opts.size} does not match the routes "
                                 f"{opts.routes}, which are for {routes.ranks} ranks")
            directory = opts.routes
        else:
            tmp = tempfile.mkdtemp(prefix="interlace-routes-")
            write_dir(topo, compute_routes(topo), tmp, f"from {opts.topology} by interlace run")
            directory = tmp
    except RoutesError as e:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
        raise UsageError(f"interlace run: {e}") from None
    except BaseException:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
        raise
    opts.job_env["INTERLACE_ROUTES"] = os.path.abspath(directory)
    return (lambda: shutil.rmtree(tmp, ignore_errors=True)) if tmp else (lambda: None)
