"""OpenSHMEM for Python, in the style of shmem4py, over interlace's PGAS model.

NumPy arrays live in the symmetric heap (``zeros``, ``empty``, ``full``,
``array``; collective, ``free`` releases them); other PEs read and write them with
``put``/``get``, ``p``/``g``, atomics and ``put_signal`` without taking part. On
one host a put is a copy into the peer's mapped heap; over tcp an active message
the peer's progress serves. Teams are communicators (``split_strided`` splits
the world) and their collectives run on interlace's collective engine.

    from interlace import shmem
    shmem.init()
    a = shmem.zeros(4, dtype="i8")
    shmem.put(a, np.arange(4), (shmem.my_pe() + 1) % shmem.n_pes())
    shmem.barrier_all()

Waits and large copies release the GIL. See docs/python.md#pgas-interlaceshmem.
"""
from __future__ import annotations

import atexit
import enum
import operator
import threading
from typing import Any

import numpy as np

from . import _core
from . import _shmem_state as _st
from . import _shmem_team
from . import comm as _comm
from ._shmem_team import (OP, TEAM_INVALID, TEAM_SHARED, TEAM_WORLD, Team, alltoall, broadcast,
                          collect, fcollect, reduce, sync)
from .coll import IN_PLACE, MAX
from .errors import ArgumentError, FinalizedError

__all__ = [
    "init", "finalize", "initialized", "my_pe", "n_pes", "pe_accessible", "addr_accessible",
    "info_get_version", "info_get_name",
    "new_array", "empty", "zeros", "ones", "full", "array", "free",
    "put", "get", "put_nbi", "get_nbi", "iput", "iget", "p", "g", "fence", "quiet", "Ctx",
    "atomic_fetch", "atomic_set", "atomic_swap", "atomic_compare_swap", "atomic_fetch_inc",
    "atomic_inc", "atomic_fetch_add", "atomic_add", "atomic_fetch_and", "atomic_and",
    "atomic_fetch_or", "atomic_or", "atomic_fetch_xor", "atomic_xor",
    "put_signal", "put_signal_nbi", "signal_fetch", "signal_wait_until",
    "wait_until", "test", "CMP", "CMP_EQ", "CMP_NE", "CMP_GT", "CMP_GE", "CMP_LT", "CMP_LE",
    "SIGNAL_SET", "SIGNAL_ADD", "barrier_all", "sync_all",
    "Team", "TEAM_WORLD", "TEAM_SHARED", "TEAM_INVALID", "OP", "sync",
    "broadcast", "collect", "fcollect", "alltoall", "reduce",
]

MAJOR_VERSION, MINOR_VERSION = 1, 5
VENDOR_STRING = "interlace"


class CMP(enum.IntEnum):
    """Comparisons of wait_until/test (the values of SHMEM_CMP_*)."""
    EQ = 0
    NE = 1
    GT = 2
    GE = 3
    LT = 4
    LE = 5


CMP_EQ, CMP_NE, CMP_GT, CMP_GE, CMP_LT, CMP_LE = CMP.EQ, CMP.NE, CMP.GT, CMP.GE, CMP.LT, CMP.LE
SIGNAL_SET, SIGNAL_ADD = 0, 1
_CMP_NAMES = {"eq": 0, "==": 0, "ne": 1, "!=": 1, "gt": 2, ">": 2, "ge": 3, ">=": 3,
              "lt": 4, "<": 4, "le": 5, "<=": 5}
# pgas::AmoOp numbers.
_FETCH, _SET, _SWAP, _CSWAP, _FADD, _ADD, _FAND, _AND, _FOR, _OR, _FXOR, _XOR = range(12)

_lock = threading.Lock()


# -- setup and queries ---------------------------------------------------------------

def init(heap_size: int = 0) -> None:
    """Starts interlace (``interlace.init()``, if not yet) and attaches the PGAS model
    with a symmetric heap of ``heap_size`` bytes (0: SHMEM_SYMMETRIC_SIZE, default
    256 MiB). Collective over all PEs; later calls do nothing."""
    with _lock:
        if _st.pgas is not None and not _st.finalized:
            return
        if _st.finalized:
            raise FinalizedError("shmem.init: called after shmem.finalize()")
        world = _comm.init()
        runtime = _comm._runtime
        assert runtime is not None  # set by interlace.init()
        _st.pgas = _core.Pgas.attach(runtime, operator.index(heap_size))
        _st.world = world.Dup()
        _shmem_team._init_teams(_st.world)
        _st.barrier_all("init")  # every PE attached before anyone reaches it
        atexit.register(_at_exit)


def _at_exit() -> None:
    # Completes this PE's operations only: a barrier here could wait forever
    # for a PE that ended with an exception.
    if _st.pgas is not None and not _st.finalized:
        _st.pgas.quiet_all()


def finalize() -> None:
    """Completes outstanding operations and synchronizes all PEs; shmem calls
    raise FinalizedError afterwards. The interlace runtime (and the rest of the
    interlace API) stays up until ``interlace.finalize()`` or exit. Idempotent."""
    with _lock:
        if _st.pgas is None or _st.finalized:
            return
        _st.barrier_all("finalize")
        _st.finalized = True


def initialized() -> bool:
    return _st.pgas is not None and not _st.finalized


def my_pe() -> int:
    return _st.p("my_pe").my_pe


def n_pes() -> int:
    return _st.p("n_pes").n_pes


def pe_accessible(pe: int) -> bool:
    return _st.p("pe_accessible").pe_accessible(pe)


def addr_accessible(addr: Any, pe: int) -> bool:
    return _st.p("addr_accessible").addr_accessible(_st.first(addr, "addr_accessible"), pe)


def info_get_version() -> tuple[int, int]:
    return (MAJOR_VERSION, MINOR_VERSION)


def info_get_name() -> str:
    return VENDOR_STRING


# -- symmetric memory ------------------------------------------------------------------

def _shape(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, (tuple, list)):
        return tuple(operator.index(s) for s in shape)
    return (operator.index(shape),)


def new_array(shape: Any, dtype: Any = float, order: str = "C", *, align: int | None = None,
              clear: bool = True, fill: Any = None) -> np.ndarray:
    """A NumPy array in the symmetric heap. Collective: every PE must allocate
    the same sizes in the same order (checked: a mismatch raises ArgumentError
    on every PE). Ends with a barrier, so peers may access it at once."""
    pg = _st.p("new_array")
    dt = np.dtype(dtype)
    shp = _shape(shape)
    if any(s < 0 for s in shp):
        raise ValueError(f"shmem.new_array: negative dimension in shape {shp}")
    n = int(np.prod(shp, dtype=np.int64))
    nbytes = n * dt.itemsize
    alignment = max(16, dt.alignment, 0 if align is None else operator.index(align))
    addr = pg.malloc(max(nbytes, 1), alignment)  # malloc(0) would give no address
    _st.blocks[addr] = nbytes
    a = np.frombuffer(pg.view(addr, nbytes), dtype=dt, count=n).reshape(shp, order=order)  # type: ignore[call-overload]
    if fill is not None:
        a[...] = fill
    elif clear:
        a.fill(0)
    pg.quiet_all()
    sizes = np.array([nbytes, -nbytes], dtype=np.int64)
    _st.world_comm("new_array").Allreduce(IN_PLACE, sizes, MAX)  # also the barrier
    if sizes[0] != nbytes or -sizes[1] != nbytes:
        del _st.blocks[addr]
        pg.free(addr)  # so that the allocators of all PEs agree again
        raise ArgumentError(f"shmem.new_array: the allocation is not symmetric: PEs asked for "
                            f"between {-sizes[1]} and {sizes[0]} bytes (this PE {nbytes})")
    return a


def empty(shape: Any, dtype: Any = float, order: str = "C", *, align: int | None = None) -> np.ndarray:
    return new_array(shape, dtype, order, align=align, clear=False)


def zeros(shape: Any, dtype: Any = float, order: str = "C", *, align: int | None = None) -> np.ndarray:
    return new_array(shape, dtype, order, align=align)


def ones(shape: Any, dtype: Any = float, order: str = "C", *, align: int | None = None) -> np.ndarray:
    return new_array(shape, dtype, order, align=align, fill=1)


def full(shape: Any, fill_value: Any, dtype: Any = None, order: str = "C", *,
         align: int | None = None) -> np.ndarray:
    dt = np.asarray(fill_value).dtype if dtype is None else dtype
    return new_array(shape, dt, order, align=align, fill=fill_value)


def array(obj: Any, dtype: Any = None, order: str = "C", *, align: int | None = None) -> np.ndarray:
    """A symmetric copy of `obj` (anything np.asarray accepts)."""
    src = np.asarray(obj, dtype=dtype)
    return new_array(src.shape, src.dtype, order, align=align, fill=src)


def free(obj: Any) -> None:
    """Releases the symmetric allocation `obj` lies in (an array from new_array and
    friends, or a view of one). Collective, with a barrier first; the array and
    its views must not be used afterwards."""
    a = _st.ndarray(obj, "free")
    addr = a.__array_interface__["data"][0]
    start = next((s for s, n in _st.blocks.items() if s <= addr < s + max(n, 1)), None)
    if start is None:
        raise ArgumentError(f"shmem.free: the array at {addr:#x} is not a live symmetric allocation")
    _st.barrier_all("free")
    del _st.blocks[start]
    _st.p("free").free(start)


# -- RMA -----------------------------------------------------------------------------

class Ctx:
    """A communication context: its own set of outstanding operations, completed by
    its quiet() (OpenSHMEM shmem_ctx_*). Pass as ``ctx=`` to RMA and atomics."""

    def __init__(self, options: int = 0):
        self._d: _core.PgasDomain | None = _st.p("Ctx").create_domain()

    @classmethod
    def create(cls, options: int = 0) -> Ctx:
        return cls(options)

    def destroy(self) -> None:
        if self._d is not None:
            _st.p("Ctx.destroy").destroy_domain(self._d)
            self._d = None

    def quiet(self) -> None:
        quiet(self)

    def fence(self) -> None:
        fence(self)


def _dom(ctx: Ctx | None, what: str) -> _core.PgasDomain | None:
    if ctx is None:
        return None
    if ctx._d is None:
        raise ArgumentError(f"shmem.{what}: the context was destroyed")
    return ctx._d


def _rma(is_put: bool, target: Any, source: Any, pe: int, size: Any, nbi: bool, ctx: Ctx | None,
         what: str) -> None:
    pg = _st.p(what)
    t = _st.flat(_st.ndarray(target, what), what)
    s = _st.flat(_st.ndarray(source, what), what)
    _st.same_dtype(t, s, what)
    n = _st.count(size, s.size if is_put else t.size, what)
    t, s = _st.fits(t, n, "target", what), _st.fits(s, n, "source", what)
    d = _dom(ctx, what)
    if t.flags.c_contiguous and s.flags.c_contiguous:
        (pg.put if is_put else pg.get)(t, s, pe, nbi, d)
    elif is_put:
        pg.iput(t, s, pe, d)
    else:
        pg.iget(t, s, pe, d)


def put(target: Any, source: Any, pe: int, size: int | None = None, ctx: Ctx | None = None) -> None:
    """Copies `size` elements (default: all of source) of the local `source` into
    the symmetric `target` at PE `pe`. 1-D strided views are allowed on both sides."""
    _rma(True, target, source, pe, size, False, ctx, "put")


def get(target: Any, source: Any, pe: int, size: int | None = None, ctx: Ctx | None = None) -> None:
    """Copies `size` elements (default: all of target) of the symmetric `source` at
    PE `pe` into the local `target`."""
    _rma(False, target, source, pe, size, False, ctx, "get")


def put_nbi(target: Any, source: Any, pe: int, size: int | None = None, ctx: Ctx | None = None) -> None:
    """put that may return before the data moved: complete after quiet()."""
    _rma(True, target, source, pe, size, True, ctx, "put_nbi")


def get_nbi(target: Any, source: Any, pe: int, size: int | None = None, ctx: Ctx | None = None) -> None:
    """get that may return before the data arrived: target is filled by quiet()."""
    _rma(False, target, source, pe, size, True, ctx, "get_nbi")


def _strided(is_put: bool, target: Any, source: Any, pe: int, tst: int, sst: int, size: Any,
             ctx: Ctx | None, what: str) -> None:
    t = _st.flat(_st.ndarray(target, what), what)[::operator.index(tst)]
    s = _st.flat(_st.ndarray(source, what), what)[::operator.index(sst)]
    n = _st.count(size, s.size if is_put else t.size, what)
    _rma(is_put, _st.fits(t, n, "target", what), _st.fits(s, n, "source", what), pe, None, False,
         ctx, what)


def iput(target: Any, source: Any, pe: int, tst: int = 1, sst: int = 1, size: int | None = None,
         ctx: Ctx | None = None) -> None:
    """Strided put: target[i*tst] at `pe` = source[i*sst] for i < size."""
    _strided(True, target, source, pe, tst, sst, size, ctx, "iput")


def iget(target: Any, source: Any, pe: int, tst: int = 1, sst: int = 1, size: int | None = None,
         ctx: Ctx | None = None) -> None:
    """Strided get: target[i*tst] = source[i*sst] at `pe` for i < size."""
    _strided(False, target, source, pe, tst, sst, size, ctx, "iget")


def p(target: Any, value: Any, pe: int, ctx: Ctx | None = None) -> None:
    """Stores `value` into the first element of the symmetric `target` at `pe`."""
    t = _st.first(target, "p")
    _rma(True, t, np.array([value], dtype=t.dtype), pe, None, False, ctx, "p")


def g(source: Any, pe: int, ctx: Ctx | None = None) -> Any:
    """The first element of the symmetric `source` at `pe` (a NumPy scalar)."""
    s = _st.first(source, "g")
    out = np.empty(1, dtype=s.dtype)
    _rma(False, out, s, pe, None, False, ctx, "g")
    return out[0]


def fence(ctx: Ctx | None = None) -> None:
    """Orders this PE's puts to each PE: those before arrive before those after."""
    _st.p("fence").fence(_dom(ctx, "fence"))


def quiet(ctx: Ctx | None = None) -> None:
    """Completes every outstanding put, get, atomic and signal of the context."""
    _st.p("quiet").quiet(_dom(ctx, "quiet"))


def barrier_all() -> None:
    """quiet, then a barrier over all PEs."""
    _st.barrier_all("barrier_all")


def sync_all() -> None:
    """A barrier over all PEs (without completing outstanding operations)."""
    _st.world_comm("sync_all").Barrier()


# -- atomics ---------------------------------------------------------------------------

def _amo(op: int, target: Any, value: Any, cond: Any, pe: int, ctx: Ctx | None, what: str) -> Any:
    pg = _st.p(what)
    t = _st.first(target, what)
    conv = float if t.dtype.kind == "f" else operator.index
    v = None if value is None else conv(value)
    c = None if cond is None else conv(cond)
    return pg.atomic(op, t, v, c, pe, _dom(ctx, what))


def atomic_fetch(source: Any, pe: int, ctx: Ctx | None = None) -> Any:
    return _amo(_FETCH, source, None, None, pe, ctx, "atomic_fetch")


def atomic_set(target: Any, value: Any, pe: int, ctx: Ctx | None = None) -> None:
    _amo(_SET, target, value, None, pe, ctx, "atomic_set")


def atomic_swap(target: Any, value: Any, pe: int, ctx: Ctx | None = None) -> Any:
    return _amo(_SWAP, target, value, None, pe, ctx, "atomic_swap")


def atomic_compare_swap(target: Any, cond: Any, value: Any, pe: int, ctx: Ctx | None = None) -> Any:
    """Sets target to value where it equals cond; returns the old value."""
    return _amo(_CSWAP, target, value, cond, pe, ctx, "atomic_compare_swap")


def atomic_fetch_inc(target: Any, pe: int, ctx: Ctx | None = None) -> Any:
    return _amo(_FADD, target, 1, None, pe, ctx, "atomic_fetch_inc")


def atomic_inc(target: Any, pe: int, ctx: Ctx | None = None) -> None:
    _amo(_ADD, target, 1, None, pe, ctx, "atomic_inc")


def atomic_fetch_add(target: Any, value: Any, pe: int, ctx: Ctx | None = None) -> Any:
    return _amo(_FADD, target, value, None, pe, ctx, "atomic_fetch_add")


def atomic_add(target: Any, value: Any, pe: int, ctx: Ctx | None = None) -> None:
    _amo(_ADD, target, value, None, pe, ctx, "atomic_add")


def atomic_fetch_and(target: Any, value: Any, pe: int, ctx: Ctx | None = None) -> Any:
    return _amo(_FAND, target, value, None, pe, ctx, "atomic_fetch_and")


def atomic_and(target: Any, value: Any, pe: int, ctx: Ctx | None = None) -> None:
    _amo(_AND, target, value, None, pe, ctx, "atomic_and")


def atomic_fetch_or(target: Any, value: Any, pe: int, ctx: Ctx | None = None) -> Any:
    return _amo(_FOR, target, value, None, pe, ctx, "atomic_fetch_or")


def atomic_or(target: Any, value: Any, pe: int, ctx: Ctx | None = None) -> None:
    _amo(_OR, target, value, None, pe, ctx, "atomic_or")


def atomic_fetch_xor(target: Any, value: Any, pe: int, ctx: Ctx | None = None) -> Any:
    return _amo(_FXOR, target, value, None, pe, ctx, "atomic_fetch_xor")


def atomic_xor(target: Any, value: Any, pe: int, ctx: Ctx | None = None) -> None:
    _amo(_XOR, target, value, None, pe, ctx, "atomic_xor")


# -- signals and point-to-point synchronization -------------------------------------------

def _cmp(cmp: Any, what: str) -> int:
    if isinstance(cmp, str):
        if cmp.lower() not in _CMP_NAMES:
            raise ValueError(f"shmem.{what}: unknown comparison {cmp!r} (use CMP.EQ..CMP.LE or "
                             f"one of {sorted(_CMP_NAMES)})")
        return _CMP_NAMES[cmp.lower()]
    return int(CMP(cmp))


def _value(ivar: np.ndarray, v: Any) -> Any:
    return float(v) if ivar.dtype.kind == "f" else operator.index(v)


def wait_until(ivar: Any, cmp: Any, cmp_value: Any) -> None:
    """Blocks until ivar's first element (symmetric, written by peers) compares true
    with cmp_value; the GIL is released meanwhile."""
    t = _st.first(ivar, "wait_until")
    _st.p("wait_until").wait_until(t, _cmp(cmp, "wait_until"), _value(t, cmp_value))


def test(ivar: Any, cmp: Any, cmp_value: Any) -> bool:
    """Whether ivar's first element compares true with cmp_value now."""
    t = _st.first(ivar, "test")
    return _st.p("test").test(t, _cmp(cmp, "test"), _value(t, cmp_value))


def put_signal(target: Any, source: Any, pe: int, signal: Any, value: int, sig_op: int = SIGNAL_SET,
               size: int | None = None, ctx: Ctx | None = None, *, _nbi: bool = False) -> None:
    """Puts source into target at `pe`, then updates the uint64 `signal` array's first
    element there (SIGNAL_SET or SIGNAL_ADD `value`): who sees the signal sees the data."""
    what = "put_signal_nbi" if _nbi else "put_signal"
    pg = _st.p(what)
    t = _st.flat(_st.ndarray(target, what), what)
    s = _st.flat(_st.ndarray(source, what), what)
    _st.same_dtype(t, s, what)
    n = _st.count(size, s.size, what)
    pg.put_signal(_st.fits(t, n, "target", what), _st.fits(s, n, "source", what),
                  _st.first(signal, what), operator.index(value), operator.index(sig_op), pe, _nbi,
                  _dom(ctx, what))


def put_signal_nbi(target: Any, source: Any, pe: int, signal: Any, value: int,
                   sig_op: int = SIGNAL_SET, size: int | None = None, ctx: Ctx | None = None) -> None:
    put_signal(target, source, pe, signal, value, sig_op, size, ctx, _nbi=True)


def signal_fetch(signal: Any) -> int:
    return _st.p("signal_fetch").signal_fetch(_st.first(signal, "signal_fetch"))


def signal_wait_until(signal: Any, cmp: Any, cmp_value: int) -> int:
    """Waits until the uint64 signal compares true with cmp_value; returns it."""
    s = _st.first(signal, "signal_wait_until")
    if s.dtype != np.uint64:
        raise TypeError(f"shmem.signal_wait_until: the signal must be a uint64 array, got {s.dtype}")
    pg = _st.p("signal_wait_until")
    pg.wait_until(s, _cmp(cmp, "signal_wait_until"), operator.index(cmp_value))
    return pg.signal_fetch(s)
