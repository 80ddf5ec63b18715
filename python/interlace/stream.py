"""Streaming channels (SMI, de Matteis et al. SC'19) from Python.

A channel is (communicator, peer, port) plus a count and an element type::

    comm = interlace.init()
    if comm.rank == 0:
        ch = interlace.stream.SendChannel(comm, dest=1, port=0, count=n, dtype="float32")
        for v in values:
            ch.push(v)                    # one element
    else:
        ch = interlace.stream.RecvChannel(comm, source=0, port=0, count=n, dtype="float32")
        data = ch.pop_n(n)                # NumPy array of n float32

Semantics are those of the C++ channels (docs/smi.md): elements arrive in push order;
the sender runs at most ``degree`` elements ahead of the receiver (default
``DEFAULT_DEGREE_BYTES`` bytes' worth); a channel closes itself after ``count``
elements; the two ends must agree on count and dtype. ``dtype`` is anything
``interlace.Datatype`` accepts: a member, a name ("int32"), or a NumPy dtype.

Blocking calls release the GIL. A channel must be used by one thread at a time.
"""
from __future__ import annotations

from ._core import DEFAULT_DEGREE_BYTES
from ._core import RecvChannel as _RecvChannel
from ._core import SendChannel  # noqa: F401  (push/push_n/flush are complete in C++)

__all__ = ["SendChannel", "RecvChannel", "DEFAULT_DEGREE_BYTES"]

# NumPy dtype names for the channel's element types (bfloat16 comes back as its bits).
_NUMPY = {
    "bytes": "uint8", "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
    "uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
    "float16": "float16", "bfloat16": "uint16", "float32": "float32", "float64": "float64",
}


class RecvChannel(_RecvChannel):
    __doc__ = _RecvChannel.__doc__

    def pop_n(self, n: int | None = None, out=None):
        """Pops n elements (all that remain when None) into a new NumPy array, or
        fills `out` (any writable buffer of the channel's type) and returns it."""
        if out is None:
            import numpy as np

            if n is None:
                n = self.remaining
            if n < 0:
                raise ValueError(f"n {n} is negative")
            out = np.empty(n, dtype=_NUMPY[self.dtype.name])
        elif n is not None:
            out = memoryview(out).cast("B")[: n * _itemsize(self)]
            self.pop_into(out)
            return out.obj
        self.pop_into(out)
        return out


def _itemsize(ch) -> int:
    from ._core import datatype_size

    return datatype_size(ch.dtype)
