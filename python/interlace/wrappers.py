"""interlace-cc / interlace-c++: compiler wrappers in the manner of mpicc;
interlace-oshcc / interlace-oshc++ are the same for OpenSHMEM programs (like oshcc:
shmem.h is in the same include directory and the same library implements it).
They run the real compiler (INTERLACE_CC / INTERLACE_CXX, else cc / c++) with
interlace's include path, library path, run-time path and library added, so
`interlace-c++ app.cpp -o app` builds a program that runs without
LD_LIBRARY_PATH. `--showme` prints the command instead of running it.
"""
from __future__ import annotations

import os
import shlex
import sys

from . import _paths

# With any of these the compiler does not link, so link flags would only
# provoke "linker input unused" warnings.
_NO_LINK = {"-c", "-E", "-S", "-M", "-MM", "-fsyntax-only"}


def command(lang: str, args: list[str]) -> list[str]:
    if lang == "c++":
        compiler = os.environ.get("INTERLACE_CXX", "c++")
    else:
        compiler = os.environ.get("INTERLACE_CC", "cc")
    inc, lib = str(_paths.includedir()), str(_paths.libdir())
    cmd = shlex.split(compiler)
    # The public headers use C++20; a user's own -std= wins.
    if lang == "c++" and not any(a.startswith("-std=") for a in args):
        cmd.append("-std=c++20")
    cmd += [f"-I{inc}", "-pthread", *args]
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
    except _paths.NotInstalledError as e:
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
