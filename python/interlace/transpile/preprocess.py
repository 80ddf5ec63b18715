"""Preprocessing for pycparser, which reads preprocessed C without GNU extensions.

The system's C headers are full of GNU extensions, so the program is run through
the C preprocessor with the system include path switched off (-nostdinc -undef)
and this package's stand-in headers (fake_include/) in its place: they declare
the type names (size_t, FILE, MPI_Status, ...) and nothing else, so NULL,
MPI_COMM_WORLD or INT_MAX stay identifiers in the tree. The emitted files
include the real headers again: each `#include <...>` of the source that the
stand-ins answered is copied to the top of every variant, and everything else
(the program's own headers and macros) is emitted expanded, as the parser saw it.
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

from .errors import TranspileError

FAKE_INCLUDE = Path(__file__).resolve().parent / "fake_include"
_INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
_CPP_ERR_RE = re.compile(r"^(.*?):(\d+):(?:\d+:)?\s*(?:fatal )?error:\s*(.*)$")


def _cpp_command() -> list[str]:
    # The compiler interlace-cc uses, so one setting (INTERLACE_CC) covers both.
    return shlex.split(os.environ.get("INTERLACE_CC", "cc")) + ["-E"]


def preprocess(path: Path, include_dirs=(), defines=()) -> str:
    cmd = _cpp_command() + ["-nostdinc", "-undef", "-D__STDC__=1", f"-I{FAKE_INCLUDE}"]
    cmd += [f"-I{d}" for d in include_dirs]
    cmd += [f"-D{d}" for d in defines]
    cmd.append(str(path))
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    except OSError as e:
        raise TranspileError(str(path), 0, "preprocessor",
                             f"cannot run {cmd[0]!r} ({e.strerror}); set INTERLACE_CC") from None
    if res.returncode != 0:
        for line in res.stderr.splitlines():
            m = _CPP_ERR_RE.match(line)
            if m:
                why = m.group(3)
                if "No such file" in why:
                    why += (" (the transpiler parses against its own stand-in headers; "
                            "pass the program's header directories with -I)")
                raise TranspileError(m.group(1), int(m.group(2)), "preprocessor", why)
        raise TranspileError(str(path), 0, "preprocessor", res.stderr.strip() or
                             f"{cmd[0]} failed with status {res.returncode}")
    return res.stdout


def kept_includes(path: Path, include_dirs=()) -> list[str]:
    """The source's `#include` lines that the stand-in headers answered, in order:
    the emitted files include these (the real headers) instead of their contents."""
    src_dir = path.resolve().parent
    out: list[str] = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        m = _INCLUDE_RE.match(line)
        if not m:
            continue
        name = m.group(2)
        if not (FAKE_INCLUDE / name).is_file():
            continue
        searched = ([src_dir] if m.group(1) == '"' else []) + [Path(d) for d in include_dirs]
        if any((d / name).is_file() for d in searched):
            continue  # the program's own header of that name: emitted expanded
        inc = f"#include <{name}>"
        if inc not in out:
            out.append(inc)
    return out


def is_fake(file: str | None) -> bool:
    return file is not None and Path(file).resolve().is_relative_to(FAKE_INCLUDE)
