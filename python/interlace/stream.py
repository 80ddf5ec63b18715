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

__all__ = ["SendChannel", "RecvChannel", "DEFAULT_DEGREE_BYTES", "BcastChannel", "ReduceChannel",
           "ScatterChannel", "GatherChannel"]

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


# -- streaming collectives (docs/stream.md, "Streaming collectives") -------------------
#
# Every rank opens the same collective with the same count, dtype, port and root and
# calls its operation once per element: bcast/reduce `count` times everywhere,
# scatter/gather `count` times on non-roots and `count * size` times at the root
# (its calls walk the ranks in rank order, its own part included). Collective ports
# are separate from those of SendChannel/RecvChannel.

import struct as _struct

from ._core import _BcastChannel, _GatherChannel, _ReduceChannel, _ScatterChannel

_STRUCT = {
    "bytes": "B", "uint8": "B", "int8": "b", "int16": "h", "int32": "i", "int64": "q",
    "uint16": "H", "uint32": "I", "uint64": "Q", "float16": "e", "float32": "f", "float64": "d",
}


def _encode(dtype, value) -> bytes:
    name = dtype.name
    if name == "bfloat16":
        # Round to nearest even, as the C++ conversion does.
        (bits,) = _struct.unpack("=I", _struct.pack("=f", float(value)))
        return _struct.pack("=H", ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF)
    try:
        return _struct.pack("=" + _STRUCT[name], value)
    except _struct.error as e:
        raise ValueError(f"{value!r} is not a valid {name} element ({e})") from None


def _decode(dtype, raw: bytes):
    name = dtype.name
    if name == "bfloat16":
        (bits,) = _struct.unpack("=H", raw)
        return _struct.unpack("=f", _struct.pack("=I", bits << 16))[0]
    return _struct.unpack("=" + _STRUCT[name], raw)[0]


class BcastChannel(_BcastChannel):
    """BcastChannel(comm, count, dtype, port, root, degree=None): the root's
    ``bcast(value)`` sends value to every rank; elsewhere ``bcast()`` returns the
    root's element. Receivers announce readiness before the root streams."""

    def bcast(self, value=None):
        raw = self._bcast(_encode(self.dtype, value) if self.is_root else None)
        return value if self.is_root else _decode(self.dtype, raw)


class ReduceChannel(_ReduceChannel):
    """ReduceChannel(comm, count, dtype, op, port, root, tile=None): every rank calls
    ``reduce(value)``; the root gets the element reduced over all ranks (in rank
    order), the others None. ``op`` is a built-in op (``interlace.SUM``, ``MAX``, ...) or its name ("sum").
    A contributor runs at most ``tile`` elements ahead of the root."""

    def reduce(self, value):
        raw = self._reduce(_encode(self.dtype, value))
        return None if raw is None else _decode(self.dtype, raw)


class ScatterChannel(_ScatterChannel):
    """ScatterChannel(comm, count, dtype, port, root, degree=None): ``count`` elements
    per rank. Non-roots call ``scatter()`` count times and get their elements; the
    root calls ``scatter(value)`` count * size times with the elements in rank order
    and gets its own back (None for the other ranks' elements)."""

    def scatter(self, value=None):
        raw = self._scatter(_encode(self.dtype, value) if self.is_root else None)
        return None if raw is None else _decode(self.dtype, raw)


class GatherChannel(_GatherChannel):
    """GatherChannel(comm, count, dtype, port, root, degree=None): non-roots call
    ``gather(value)`` count times (returning None); the root calls it count * size
    times and gets the elements in rank order (its ``value`` is read during its own
    part only; pass None elsewhere)."""

    def gather(self, value=None):
        raw = self._gather(None if value is None else _encode(self.dtype, value))
        return None if raw is None else _decode(self.dtype, raw)
