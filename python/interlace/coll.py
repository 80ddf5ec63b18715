"""mpi4py-style collectives, mixed into :class:`interlace.Comm`.

Capitalised methods move buffers in place through the C++ collective engine
(python/src/bind_coll.cpp); ``I``-prefixed ones return a request with
``wait()``/``test()``. Lowercase methods move picklable objects on top of the
buffer collectives (a size exchange, then the pickles). Every method takes
``algorithm=`` to force an algorithm by name (``interlace info --collectives``
lists them).

Vector collectives take mpi4py buffer specs: ``[buf, counts]`` or
``[buf, counts, displs]`` (displacements default to the packed layout).
"""
from __future__ import annotations

import atexit
import operator
import pickle
from functools import reduce as _fold

from . import _core

__all__ = ["IN_PLACE", "SUM", "PROD", "MIN", "MAX", "BAND", "BOR", "BXOR", "LAND", "LOR",
           "Op", "CollectivesMixin", "register_algorithm"]

IN_PLACE = _core.IN_PLACE
_R = _core.ReduceOp
SUM, PROD, MIN, MAX = _R.sum, _R.prod, _R.min, _R.max
BAND, BOR, BXOR, LAND, LOR = _R.band, _R.bor, _R.bxor, _R.land, _R.lor

# Python equivalents for the object (lowercase) reductions.
_PYOPS = {
    _R.sum: operator.add, _R.prod: operator.mul, _R.min: min, _R.max: max,
    _R.band: operator.and_, _R.bor: operator.or_, _R.bxor: operator.xor,
    _R.land: lambda a, b: a and b, _R.lor: lambda a, b: a or b,
}

_NP_DTYPES = {"bfloat16": "uint16", "bytes": "uint8"}


class Op:
    """A user reduction: ``fn(invec, inoutvec)`` must set ``inoutvec = invec ∘ inoutvec``
    (NumPy arrays; lower ranks' data is ``invec``), or a NumPy ufunc such as
    ``numpy.add``. ``commute=False`` restricts the engine to rank-ordered algorithms.
    bfloat16 data is handed over as its raw uint16 bits."""

    def __init__(self, fn, commute: bool = True):
        self.fn, self.commute = fn, commute

    @classmethod
    def Create(cls, fn, commute: bool = True) -> Op:
        """mpi4py's spelling of the constructor."""
        return cls(fn, commute)

    def _native(self):
        import numpy as np
        fn = self.fn
        ufunc = isinstance(fn, np.ufunc)

        def call(inv, inoutv, dtname):
            dt = np.dtype(_NP_DTYPES.get(dtname, dtname))
            a = np.frombuffer(inv, dt)
            b = np.frombuffer(inoutv, dt)
            if ufunc:
                fn(a, b, out=b)
                return
            res = fn(a, b)
            if res is not None and res is not b:
                b[...] = res
        return (call, self.commute)

    def _python(self):
        return lambda a, b: self.fn(a, b)


def _native_op(op):
    if isinstance(op, _R):
        return op
    if isinstance(op, Op):
        return op._native()
    try:
        import numpy as np
        if isinstance(op, np.ufunc):
            return Op(op)._native()
    except ImportError:
        pass
    if callable(op):
        return Op(op)._native()
    raise TypeError(f"op must be an interlace op (SUM, MAX, ...), an interlace.Op or a callable, got {op!r}")


def _py_op(op):
    if isinstance(op, _R):
        return _PYOPS[op]
    if isinstance(op, Op):
        return op._python()
    if callable(op):
        return op
    raise TypeError(f"op must be an interlace op (SUM, MAX, ...) or a callable, got {op!r}")


def _check_counts(counts, what):
    out = [int(c) for c in counts]
    for i, c in enumerate(out):
        if c < 0:
            raise ValueError(f"{what}[{i}] is {c}; counts must not be negative")
    return out


def _vspec(spec, what):
    """[buf, counts] or [buf, counts, displs] -> (buf, counts, displs)."""
    if spec is None or spec is IN_PLACE:
        return spec, [], []
    if not isinstance(spec, (list, tuple)) or len(spec) not in (2, 3):
        raise TypeError(f"{what} must be [buffer, counts] or [buffer, counts, displs], got {spec!r}")
    buf, counts = spec[0], _check_counts(spec[1], f"{what} counts")
    if len(spec) == 3 and spec[2] is not None:
        displs = _check_counts(spec[2], f"{what} displs")
    else:
        displs, off = [], 0
        for c in counts:
            displs.append(off)
            off += c
    return buf, counts, displs


def _check_root(comm, root):
    if isinstance(root, bool):
        raise TypeError(f"root must be an int, got {root!r}")
    try:
        root = operator.index(root)
    except TypeError:
        raise TypeError(f"root must be an int, got {root!r}") from None
    if root < 0 or root >= comm.size:
        raise ValueError(f"root {root} is out of range for a communicator of size {comm.size}")
    return root


class CollectivesMixin:
    """Collective methods for :class:`interlace.Comm` (needs ``size``/``rank``)."""

    # Declared for type checkers only: interlace._core.Comm, the class this mixin is
    # combined with, provides them (a definition here would shadow its properties).
    rank: int
    size: int

    def _coll(self, kind, sendbuf=None, recvbuf=None, op=None, root=0, algorithm="", nb=False,
              sc=(), sd=(), rc=(), rd=(), compression=""):
        if op is not None:
            op = _native_op(op)
        return _core.coll_start(self, kind, sendbuf, recvbuf, op, root, algorithm or "", nb,
                                list(sc), list(sd), list(rc), list(rd), IN_PLACE, compression or "")

    # -- buffers ------------------------------------------------------------------
    def Barrier(self, *, algorithm: str = ""):
        self._coll("barrier", algorithm=algorithm)

    def Ibarrier(self, *, algorithm: str = ""):
        return self._coll("barrier", algorithm=algorithm, nb=True)

    # compression="fp16"/"bf16": float32/float64 data travels as 16-bit floats (lossy).
    def Bcast(self, buf, root: int = 0, *, algorithm: str = "", compression: str = ""):
        root = _check_root(self, root)
        self._coll("bcast", None, buf, root=root, algorithm=algorithm, compression=compression)

    def Ibcast(self, buf, root: int = 0, *, algorithm: str = "", compression: str = ""):
        root = _check_root(self, root)
        return self._coll("bcast", None, buf, root=root, algorithm=algorithm, nb=True, compression=compression)

    def Reduce(self, sendbuf, recvbuf, op=SUM, root: int = 0, *, algorithm: str = "", compression: str = ""):
        root = _check_root(self, root)
        self._coll("reduce", sendbuf, recvbuf, op, root, algorithm, compression=compression)

    def Ireduce(self, sendbuf, recvbuf, op=SUM, root: int = 0, *, algorithm: str = "", compression: str = ""):
        root = _check_root(self, root)
        return self._coll("reduce", sendbuf, recvbuf, op, root, algorithm, True, compression=compression)

    def Allreduce(self, sendbuf, recvbuf, op=SUM, *, algorithm: str = "", compression: str = ""):
        self._coll("allreduce", sendbuf, recvbuf, op, 0, algorithm, compression=compression)

    def Iallreduce(self, sendbuf, recvbuf, op=SUM, *, algorithm: str = "", compression: str = ""):
        return self._coll("allreduce", sendbuf, recvbuf, op, 0, algorithm, True, compression=compression)

    def Scan(self, sendbuf, recvbuf, op=SUM, *, algorithm: str = ""):
        self._coll("scan", sendbuf, recvbuf, op, 0, algorithm)

    def Iscan(self, sendbuf, recvbuf, op=SUM, *, algorithm: str = ""):
        return self._coll("scan", sendbuf, recvbuf, op, 0, algorithm, True)

    def Exscan(self, sendbuf, recvbuf, op=SUM, *, algorithm: str = ""):
        self._coll("exscan", sendbuf, recvbuf, op, 0, algorithm)

    def Iexscan(self, sendbuf, recvbuf, op=SUM, *, algorithm: str = ""):
        return self._coll("exscan", sendbuf, recvbuf, op, 0, algorithm, True)

    def Gather(self, sendbuf, recvbuf, root: int = 0, *, algorithm: str = ""):
        root = _check_root(self, root)
        self._coll("gather", sendbuf, recvbuf, root=root, algorithm=algorithm)

    def Igather(self, sendbuf, recvbuf, root: int = 0, *, algorithm: str = ""):
        root = _check_root(self, root)
        return self._coll("gather", sendbuf, recvbuf, root=root, algorithm=algorithm, nb=True)

    def Scatter(self, sendbuf, recvbuf, root: int = 0, *, algorithm: str = ""):
        root = _check_root(self, root)
        self._coll("scatter", sendbuf, recvbuf, root=root, algorithm=algorithm)

    def Iscatter(self, sendbuf, recvbuf, root: int = 0, *, algorithm: str = ""):
        root = _check_root(self, root)
        return self._coll("scatter", sendbuf, recvbuf, root=root, algorithm=algorithm, nb=True)

    def Allgather(self, sendbuf, recvbuf, *, algorithm: str = ""):
        self._coll("allgather", sendbuf, recvbuf, algorithm=algorithm)

    def Iallgather(self, sendbuf, recvbuf, *, algorithm: str = ""):
        return self._coll("allgather", sendbuf, recvbuf, algorithm=algorithm, nb=True)

    def Alltoall(self, sendbuf, recvbuf, *, algorithm: str = ""):
        self._coll("alltoall", sendbuf, recvbuf, algorithm=algorithm)

    def Ialltoall(self, sendbuf, recvbuf, *, algorithm: str = ""):
        return self._coll("alltoall", sendbuf, recvbuf, algorithm=algorithm, nb=True)

    def Reduce_scatter_block(self, sendbuf, recvbuf, op=SUM, *, algorithm: str = ""):
        self._coll("reduce_scatter_block", sendbuf, recvbuf, op, 0, algorithm)

    def Ireduce_scatter_block(self, sendbuf, recvbuf, op=SUM, *, algorithm: str = ""):
        return self._coll("reduce_scatter_block", sendbuf, recvbuf, op, 0, algorithm, True)

    def _rs(self, sendbuf, recvbuf, recvcounts, op, algorithm, nb):
        if recvcounts is None:
            raise TypeError("Reduce_scatter needs recvcounts (one count per rank)")
        rc = _check_counts(recvcounts, "recvcounts")
        return self._coll("reduce_scatter", sendbuf, recvbuf, op, 0, algorithm, nb, rc=rc)

    def Reduce_scatter(self, sendbuf, recvbuf, recvcounts=None, op=SUM, *, algorithm: str = ""):
        self._rs(sendbuf, recvbuf, recvcounts, op, algorithm, False)

    def Ireduce_scatter(self, sendbuf, recvbuf, recvcounts=None, op=SUM, *, algorithm: str = ""):
        return self._rs(sendbuf, recvbuf, recvcounts, op, algorithm, True)

    def _gv(self, kind, sendbuf, recvbuf, root, algorithm, nb):
        if kind == "gatherv":
            root = _check_root(self, root)
        if kind == "gatherv" and self.rank != root:
            buf, rc, rd = None, [0] * self.size, [0] * self.size
        else:
            buf, rc, rd = _vspec(recvbuf, "recvbuf")
        return self._coll(kind, sendbuf, buf, root=root, algorithm=algorithm, nb=nb, rc=rc, rd=rd)

    def Gatherv(self, sendbuf, recvbuf, root: int = 0, *, algorithm: str = ""):
        self._gv("gatherv", sendbuf, recvbuf, root, algorithm, False)

    def Igatherv(self, sendbuf, recvbuf, root: int = 0, *, algorithm: str = ""):
        return self._gv("gatherv", sendbuf, recvbuf, root, algorithm, True)

    def Allgatherv(self, sendbuf, recvbuf, *, algorithm: str = ""):
        self._gv("allgatherv", sendbuf, recvbuf, 0, algorithm, False)

    def Iallgatherv(self, sendbuf, recvbuf, *, algorithm: str = ""):
        return self._gv("allgatherv", sendbuf, recvbuf, 0, algorithm, True)

    def _sv(self, sendbuf, recvbuf, root, algorithm, nb):
        root = _check_root(self, root)
        if self.rank == root:
            buf, sc, sd = _vspec(sendbuf, "sendbuf")
        else:
            buf, sc, sd = None, [0] * self.size, [0] * self.size
        return self._coll("scatterv", buf, recvbuf, root=root, algorithm=algorithm, nb=nb, sc=sc, sd=sd)

    def Scatterv(self, sendbuf, recvbuf, root: int = 0, *, algorithm: str = ""):
        self._sv(sendbuf, recvbuf, root, algorithm, False)

    def Iscatterv(self, sendbuf, recvbuf, root: int = 0, *, algorithm: str = ""):
        return self._sv(sendbuf, recvbuf, root, algorithm, True)

    def _av(self, sendbuf, recvbuf, algorithm, nb):
        rbuf, rc, rd = _vspec(recvbuf, "recvbuf")
        if sendbuf is IN_PLACE:
            sbuf, sc, sd = IN_PLACE, rc, rd
        else:
            sbuf, sc, sd = _vspec(sendbuf, "sendbuf")
        return self._coll("alltoallv", sbuf, rbuf, algorithm=algorithm, nb=nb, sc=sc, sd=sd, rc=rc, rd=rd)

    def Alltoallv(self, sendbuf, recvbuf, *, algorithm: str = ""):
        self._av(sendbuf, recvbuf, algorithm, False)

    def Ialltoallv(self, sendbuf, recvbuf, *, algorithm: str = ""):
        return self._av(sendbuf, recvbuf, algorithm, True)

    # -- objects --------------------------------------------------------------------
    def _sizes(self, data: bytes):
        import array
        mine = array.array("q", [len(data)])
        allsz = array.array("q", [0] * self.size)
        self.Allgather(mine, allsz)
        return list(allsz)

    def bcast(self, obj=None, root: int = 0, *, algorithm: str = ""):
        import array
        root = _check_root(self, root)
        data = pickle.dumps(obj, protocol=5) if self.rank == root else b""
        n = array.array("q", [len(data)])
        self.Bcast(n, root)
        buf = bytearray(data) if self.rank == root else bytearray(n[0])
        self.Bcast(buf, root, algorithm=algorithm)
        return obj if self.rank == root else pickle.loads(buf)

    def allgather(self, obj, *, algorithm: str = ""):
        data = pickle.dumps(obj, protocol=5)
        sizes = self._sizes(data)
        out = bytearray(sum(sizes))
        self.Allgatherv(bytearray(data), [out, sizes], algorithm=algorithm)
        objs, off = [], 0
        for s in sizes:
            objs.append(pickle.loads(out[off:off + s]))
            off += s
        return objs

    def gather(self, obj, root: int = 0, *, algorithm: str = ""):
        import array
        root = _check_root(self, root)
        data = pickle.dumps(obj, protocol=5)
        sizes = array.array("q", [0] * self.size)
        self.Gather(array.array("q", [len(data)]), sizes, root)
        if self.rank != root:
            self.Gatherv(bytearray(data), None, root, algorithm=algorithm)
            return None
        out = bytearray(sum(sizes))
        self.Gatherv(bytearray(data), [out, list(sizes)], root, algorithm=algorithm)
        objs, off = [], 0
        for s in sizes:
            objs.append(pickle.loads(out[off:off + s]))
            off += s
        return objs

    def scatter(self, objs=None, root: int = 0, *, algorithm: str = ""):
        import array
        root = _check_root(self, root)
        n = array.array("q", [0])
        if self.rank == root:
            if objs is None or len(objs) != self.size:
                got = "None" if objs is None else f"{len(objs)} items"
                raise ValueError(f"scatter: the root needs a sequence of {self.size} objects, got {got}")
            parts = [pickle.dumps(o, protocol=5) for o in objs]
            sizes = array.array("q", [len(p) for p in parts])
            self.Scatter(sizes, n, root)
            buf = bytearray(n[0])
            self.Scatterv([bytearray(b"".join(parts)), list(sizes)], buf, root, algorithm=algorithm)
        else:
            self.Scatter(None, n, root)
            buf = bytearray(n[0])
            self.Scatterv(None, buf, root, algorithm=algorithm)
        return pickle.loads(buf)

    def alltoall(self, objs, *, algorithm: str = ""):
        import array
        if len(objs) != self.size:
            raise ValueError(f"alltoall needs {self.size} objects (one per rank), got {len(objs)}")
        parts = [pickle.dumps(o, protocol=5) for o in objs]
        ssz = array.array("q", [len(p) for p in parts])
        rsz = array.array("q", [0] * self.size)
        self.Alltoall(ssz, rsz)
        out = bytearray(sum(rsz))
        self.Alltoallv([bytearray(b"".join(parts)), list(ssz)], [out, list(rsz)], algorithm=algorithm)
        res, off = [], 0
        for s in rsz:
            res.append(pickle.loads(out[off:off + s]))
            off += s
        return res

    def reduce(self, obj, op=SUM, root: int = 0, *, algorithm: str = ""):
        fn = _py_op(op)
        objs = self.gather(obj, root, algorithm=algorithm)
        return _fold(fn, objs) if self.rank == root else None

    def allreduce(self, obj, op=SUM, *, algorithm: str = ""):
        return _fold(_py_op(op), self.allgather(obj, algorithm=algorithm))

    def scan(self, obj, op=SUM):
        return _fold(_py_op(op), self.allgather(obj)[: self.rank + 1])

    def exscan(self, obj, op=SUM):
        objs = self.allgather(obj)[: self.rank]
        return _fold(_py_op(op), objs) if objs else None

    def barrier(self):
        self.Barrier()


def register_algorithm(collective: str, name: str, builder, *, keeps_order: bool = False,
                       about: str = "") -> None:
    """Registers a collective algorithm written in Python, selectable at once by
    ``algorithm=name`` or ``INTERLACE_COLL``. ``builder(args, schedule)`` runs when a
    collective starts: ``args`` is a dict (rank, size, count, itemsize, root, datatype,
    counts, displs) and ``schedule`` has send/recv/recv_reduce/copy/combine/join/scratch
    steps on named buffers ("send", "recv", scratch ids) with byte offsets; each step
    returns its id for later ``deps``. See docs/collectives.md."""
    _core.coll_register(collective, name, builder, keeps_order, about)


# Python builders must be released while the interpreter is still alive.
atexit.register(_core.coll_unregister_python)


def describe() -> str:
    """Collective algorithms and selection rules in effect (``interlace info --collectives``)."""
    return _core.coll_describe()
