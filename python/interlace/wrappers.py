"""interlace-cc / interlace-c++: compiler wrappers in the manner of mpicc;
interlace-oshcc / interlace-oshc++ are the same for OpenSHMEM programs (like oshcc:
shmem.h is in the same include directory and the same library implements it; that
directory, <includedir>/interlace/compat, is private to the wrappers, see _paths).
They run the real compiler (INTERLACE_CC / INTERLACE_CXX, else cc / c++) with
interlace's include path, library path, run-time path and library added, so
`interlace-c++ app.cpp -o app` builds a program that runs without
LD_LIBRARY_PATH. `--showme` prints the command instead of running it.

The installed commands are sh scripts generated from
cmake/compiler-wrapper.sh.in, which needs no Python (pip's isolated builds
hide this package from the Python that installed it). This module builds the
same command for `interlace cluster` and for running a source tree's wrapper
(`python -c "from interlace.wrappers import main_cc; main_cc()"`);
tests/python/test_wrappers.py checks that the two agree.
"""
from __future__ import annotations

import os
import shlex
import sys

from . import _paths

# With any of these the compiler does not link, so link flags would only
# provoke "linker input unused" warnings.
_NO_LINK = {"-c", "-E", "-S", "-M", "-MM", "-fsyntax-only"}


class BadCompilerError(ValueError):
    pass


def command(lang: str, args: list[str]) -> list[str]:
    var, default = ("INTERLACE_CXX", "c++") if lang == "c++" else ("INTERLACE_CC", "cc")
    compiler = os.environ.get(var) or default
    compat, inc = str(_paths.compat_includedir()), str(_paths.includedir())
    lib = str(_paths.libdir())
    try:
        cmd = shlex.split(compiler)
    except ValueError as e:
        raise BadCompilerError(f"{var}={compiler!r} cannot be split into words: {e}") from None
    if not cmd:
        raise BadCompilerError(f"{var}={compiler!r} names no compiler")
    # The public headers use C++20; a user's own -std= wins.
    if lang == "c++" and not any(a.startswith("-std=") for a in args):
        cmd.append("-std=c++20")
    cmd += [f"-I{compat}", f"-I{inc}", "-pthread", *args]
    if not _NO_LINK.intersection(args):
        cmd += [f"-L{lib}", f"-Wl,-rpath,{lib}", "-linterlace"]
    return cmd


def _main(lang: str, name: str | None = None) -> int:
    name = name or f"interlace-{lang}"
    args = sys.argv[1:]
    show = "--showme" in args
    args = [a for a in args if a != "--showme"]
    try:
        cmd = command(lang, args)
    except (_paths.NotInstalledError, BadCompilerError) as e:
        print(f"{name}: {e}", file=sys.stderr)
        return 1
    if show:
        print(" ".join(shlex.quote(c) for c in cmd))
        return 0
    try:
        os.execvp(cmd[0], cmd)
    except OSError as e:
        print(f"{name}: cannot run compiler {cmd[0]!r}: {e.strerror}", file=sys.stderr)
        return 127


def main_cc() -> int:
    return _main("cc")


def main_cxx() -> int:
    return _main("c++")


def main_oshcc() -> int:
    return _main("cc", "interlace-oshcc")


def main_oshcxx() -> int:
    return _main("c++", "interlace-oshc++")
