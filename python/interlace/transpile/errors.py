"""The one error the transpiler raises for input it cannot handle."""
from __future__ import annotations


class TranspileError(Exception):
    """Input the transpiler rejects. str(e) is "FILE:LINE: CONSTRUCT: why", the
    form compilers use, so editors jump to the place."""

    def __init__(self, file: str, line: int, construct: str, why: str):
        self.file = file
        self.line = line
        self.construct = construct
        self.why = why
        super().__init__(f"{file}:{line}: {construct}: {why}")


def at(node, construct: str, why: str, default_file: str = "<input>") -> TranspileError:
    """A TranspileError placed at a pycparser node's source position."""
    coord = getattr(node, "coord", None)
    file = getattr(coord, "file", None) or default_file
    line = getattr(coord, "line", None) or 0
    return TranspileError(file, line, construct, why)
