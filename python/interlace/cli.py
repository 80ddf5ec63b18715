"""The `interlace` command:

  interlace run [-n N] [options] PROGRAM [ARGS] [: -n M PROGRAM2 ...]
  interlace run --cluster FILE [options] PROGRAM.c | PROGRAM | DIR [ARGS]
  interlace run -n N --topology T.json [--routes DIR] [--fabric sim --preset NAME] PROGRAM
  interlace info [--collectives]
  interlace config --cflags | --libs | --cmake-prefix | --pkg-config-path | --prefix | ...
  interlace transpile PROG.c --cluster FILE [--tree|--no-tree] [--emit DIR] [--report FILE]
                      [-I DIR] [-D NAME[=V]]
  interlace routes gen|check|show|topo ...   (interlace routes --help)
"""
from __future__ import annotations

import argparse
import os
import sys

USAGE = __doc__.split("\n", 2)[2]


def _version() -> str:
    try:
        from ._build_info import version
        return version
    except ImportError:
        return "unknown (source checkout, not built)"


def cmd_run(argv: list[str]) -> int:
    from . import launcher, _supervisor
    if argv in ([], ["-h"], ["--help"]):
        launcher._group_parser(full=True).print_help()
        return 0 if argv else 2
    try:
        opts = launcher.parse_args(argv)
        if opts.cluster is not None:
            from . import _cluster_launch
            try:
                _cluster_launch.apply(opts)
            except _cluster_launch.BuildError as e:
                print(e, file=sys.stderr)
                return 1
        from .routes import launch
        cleanup = launch.apply(opts)
        try:
            return _supervisor.run(opts)
        finally:
            cleanup()
    except launcher.UsageError as e:
        print(e, file=sys.stderr)
        return 2


def cmd_info(argv: list[str]) -> int:
    if argv == ["--collectives"]:  # collective algorithms and selection rules (docs/collectives.md)
        from . import _core
        print(_core.coll_describe(), end="")
        return 0
    if argv:
        print(f"interlace info: takes no arguments, got {' '.join(argv)!r}", file=sys.stderr)
        return 2
    print(f"interlace {_version()}")
    try:
        from . import _core
    except ImportError as e:
        print(f"native core: not available ({e})")
        return 1
    print(f"library: {_core.version()}")
    print(f"fabrics: {', '.join(_core.builtin_fabrics())}")
    from . import _binding  # the host as `interlace run --bind-to` sees it
    for line in _binding.topology_lines():
        print(line)
    try:
        cfg = _core.config_description()
    except (RuntimeError, ValueError) as e:
        print(f"configuration: invalid: {e}")
        return 1
    try:
        _core.coll_check_config()  # INTERLACE_COLL's names: only the collective module knows them
        peers = _core.fabric_check_config()  # INTERLACE_FABRIC's names: the fabric registry
    except (RuntimeError, ValueError) as e:
        print(f"configuration: invalid: {e}")
        return 1
    # Per peer (docs/fabrics.md "Two tiers"); a running rank logs its own choice.
    print(f"fabric per peer: {peers}")
    for name, scope, summary, options in _core.fabric_registry():
        print(f"  {name} ({scope}): {summary}")
        for var, default, meaning in options:
            print(f"    {var} (default {default}): {meaning}")
    print("configuration (INTERLACE_* in effect):")
    # Fabric options the backends read themselves (not core's Config): their value
    # when set, else the registry's default.
    fabric_opts = {var: os.environ.get(var) or default
                   for _n, _s, _m, options in _core.fabric_registry()
                   for var, default, _meaning in options if var not in cfg}
    for k in sorted({**cfg, **fabric_opts}):
        print(f"  {k}={cfg[k] if k in cfg else fabric_opts[k]}")
    launcher = _core.launcher_variables()
    print("set by the launcher for each rank (docs/configuration.md):")
    for k in sorted(launcher):
        print(f"  {k}={_shown(k)}  # {launcher[k]}")
    print("read by the interlace-cc/-c++ wrappers and `interlace config`:")
    for k in sorted(TOOL_VARIABLES):
        print(f"  {k}={_shown(k)}  # {TOOL_VARIABLES[k]}")
    # Anything else is not an interlace variable: most likely a typo.
    known = set(cfg) | set(fabric_opts) | set(launcher) | set(TOOL_VARIABLES)
    others = sorted(k for k in os.environ if k.startswith("INTERLACE_") and k not in known)
    if others:
        print("unknown INTERLACE_* in the environment (typos?):")
        for k in others:
            print(f"  {k}={os.environ[k]}")
    return 0


# Variables of the Python tools and the test harness, not of the library
# (docs/configuration.md).
TOOL_VARIABLES = {
    "INTERLACE_THREADS_FABRIC": "tests only: the fabric of run_ranks_as_threads in place of shm",
    "INTERLACE_CC": "C compiler of interlace-cc (default cc)",
    "INTERLACE_CXX": "C++ compiler of interlace-c++ (default c++)",
    "INTERLACE_PREFIX": "install prefix of interlace config and the compiler wrappers",
}


def _shown(name: str) -> str:
    if name not in os.environ:
        return "(unset)"
    return "(set)" if name == "INTERLACE_SECRET" else os.environ[name]


def cmd_config(argv: list[str]) -> int:
    from . import _paths
    p = argparse.ArgumentParser(prog="interlace config",
                                description="Build flags and paths of the installed library.")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--cflags", action="store_true", help="compiler flags (C++: add -std=c++20)")
    g.add_argument("--libs", action="store_true", help="linker flags")
    g.add_argument("--cmake-prefix", action="store_true",
                   help="for -DCMAKE_PREFIX_PATH=... so find_package(interlace) works")
    g.add_argument("--pkg-config-path", action="store_true",
                   help="for PKG_CONFIG_PATH so `pkg-config interlace` works")
    g.add_argument("--prefix", action="store_true", help="the install prefix")
    g.add_argument("--libdir", action="store_true")
    g.add_argument("--includedir", action="store_true",
                   help="the directory of the C++ headers (interlace/...)")
    g.add_argument("--compat-includedir", action="store_true",
                   help="the private directory of mpi.h, shmem.h and the other C "
                        "compatibility headers (--cflags names both)")
    ns = p.parse_args(argv)
    try:
        if ns.cflags:
            print(f"-I{_paths.compat_includedir()} -I{_paths.includedir()} -pthread")
        elif ns.libs:
            lib = _paths.libdir()
            print(f"-L{lib} -Wl,-rpath,{lib} -linterlace -pthread")
        elif ns.cmake_prefix or ns.prefix:
            print(_paths.prefix())
        elif ns.pkg_config_path:
            print(_paths.pkgconfig_dir())
        elif ns.libdir:
            print(_paths.libdir())
        elif ns.compat_includedir:
            print(_paths.compat_includedir())
        else:
            print(_paths.includedir())
    except _paths.NotInstalledError as e:
        print(f"interlace config: {e}", file=sys.stderr)
        return 1
    return 0


def cmd_transpile(argv: list[str]) -> int:
    """Specialise an MPI C program per rank of a cluster (docs/transpile.md)."""
    import json
    p = argparse.ArgumentParser(prog="interlace transpile",
                                description="Specialise an MPI C program for the ranks of a "
                                "cluster description (docs/transpile.md).")
    p.add_argument("program", help="the MPI C source")
    p.add_argument("--cluster", required=True, help="cluster description (JSON)")
    t = p.add_mutually_exclusive_group()
    t.add_argument("--tree", dest="tree", action="store_true", default=None,
                   help="tree optimisation of scatter/gather (default: the cluster's config)")
    t.add_argument("--no-tree", dest="tree", action="store_false")
    p.add_argument("--emit", metavar="DIR", help="write one C file per variant into DIR")
    p.add_argument("--report", metavar="FILE", help="write the report as JSON to FILE")
    p.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR")
    p.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=V]")
    try:
        ns = p.parse_args(argv)
    except SystemExit as e:
        return 0 if e.code == 0 else 2
    from .cluster import ClusterError, load_cluster
    from .transpile import TranspileError, transpile
    try:
        cluster = load_cluster(ns.cluster)
        report = transpile(ns.program, cluster, tree=ns.tree, emit_dir=ns.emit,
                           include_dirs=ns.include_dirs, defines=ns.defines)
    except ClusterError as e:
        print(f"interlace transpile: {e}", file=sys.stderr)
        return 1
    except TranspileError as e:
        print(e, file=sys.stderr)
        return 1
    if ns.report:
        try:
            with open(ns.report, "w", encoding="utf-8") as f:
                json.dump(report.to_json(), f, indent=2)
                f.write("\n")
        except OSError as e:
            print(f"interlace transpile: cannot write the report {ns.report}: {e.strerror}",
                  file=sys.stderr)
            return 1
    print(report.text(), end="")
    return 0


def cmd_routes(argv: list[str]) -> int:
    """Topologies and routing tables (docs/routing.md)."""
    from .routes.cli import main as routes_main
    return routes_main(argv)


COMMANDS = {"run": cmd_run, "info": cmd_info, "config": cmd_config,
            "transpile": cmd_transpile, "routes": cmd_routes}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print("usage:\n" + USAGE, end="")
        return 0 if argv else 2
    if argv[0] in ("-V", "--version"):
        print(f"interlace {_version()}")
        return 0
    cmd = COMMANDS.get(argv[0])
    if cmd is None:
        print(f"interlace: unknown command {argv[0]!r} (commands: {', '.join(COMMANDS)})",
              file=sys.stderr)
        return 2
    return cmd(argv[1:])


if __name__ == "__main__":
    sys.exit(main())
