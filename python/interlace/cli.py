"""The `interlace` command:

  interlace run [-n N] [options] PROGRAM [ARGS] [: -n M PROGRAM2 ...]
  interlace info [--collectives]
  interlace config --cflags | --libs | --cmake-prefix | --pkg-config-path | --prefix
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
        return _supervisor.run(opts)
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
    try:
        cfg = _core.config_description()
    except (RuntimeError, ValueError) as e:
        print(f"configuration: invalid: {e}")
        return 1
    try:
        _core.coll_check_config()  # INTERLACE_COLL's names: only the collective module knows them
        _core.fabric_check_config()  # INTERLACE_FABRIC's names: the fabric registry
    except (RuntimeError, ValueError) as e:
        print(f"configuration: invalid: {e}")
        return 1
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


# Variables of the Python tools, not of the library (docs/configuration.md).
TOOL_VARIABLES = {
    "INTERLACE_CC": "C compiler of interlace-cc (default cc)",
    "INTERLACE_CXX": "C++ compiler of interlace-c++ (default c++)",
    "INTERLACE_PREFIX": "install prefix interlace config reports (default: this environment's)",
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
    g.add_argument("--includedir", action="store_true")
    ns = p.parse_args(argv)
    try:
        if ns.cflags:
            print(f"-I{_paths.includedir()} -pthread")
        elif ns.libs:
            lib = _paths.libdir()
            print(f"-L{lib} -Wl,-rpath,{lib} -linterlace -pthread")
        elif ns.cmake_prefix or ns.prefix:
            print(_paths.prefix())
        elif ns.pkg_config_path:
            print(_paths.pkgconfig_dir())
        elif ns.libdir:
            print(_paths.libdir())
        else:
            print(_paths.includedir())
    except _paths.NotInstalledError as e:
        print(f"interlace config: {e}", file=sys.stderr)
        return 1
    return 0


COMMANDS = {"run": cmd_run, "info": cmd_info, "config": cmd_config}


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
