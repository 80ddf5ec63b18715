"""The process state behind interlace.shmem and the argument helpers its modules
share: the attached PGAS model, the world team's communicator, the live symmetric
allocations, and turning arrays into flat views the native calls accept."""
from __future__ import annotations

import operator
from typing import Any

import numpy as np

from . import _core
from . import comm as _comm
from .comm import Comm
from .errors import ArgumentError, FinalizedError

pgas: _core.Pgas | None = None
world: Comm | None = None      # a duplicate of interlace's world: the world team
finalized = False
# Live allocations: start address -> bytes asked for (free() finds them by address).
blocks: dict[int, int] = {}


def p(what: str) -> _core.Pgas:
    """The attached model, or FinalizedError naming `what`."""
    if pgas is None:
        raise FinalizedError(f"shmem.{what}: shmem.init() has not been called")
    if finalized:
        raise FinalizedError(f"shmem.{what}: called after shmem.finalize()")
    if _comm.is_finalized():  # the heap went with the runtime
        raise FinalizedError(f"shmem.{what}: called after interlace.finalize()")
    return pgas


def world_comm(what: str) -> Comm:
    p(what)
    assert world is not None  # set together with pgas by init()
    return world


def barrier_all(what: str = "barrier_all") -> None:
    """Completes this PE's outstanding operations, then a barrier over all PEs."""
    comm = world_comm(what)
    p(what).quiet_all()
    comm.Barrier()


def ndarray(x: Any, what: str) -> np.ndarray:
    """A NumPy view of an array or buffer object (never a copy)."""
    if isinstance(x, np.ndarray):
        return x
    try:
        return np.asarray(memoryview(x))
    except TypeError:
        raise TypeError(f"shmem.{what}: expected a NumPy array or a buffer, got "
                        f"{type(x).__name__}") from None


def flat(a: np.ndarray, what: str) -> np.ndarray:
    """A 1-D view of `a` in memory order: 1-D arrays as they are (strided too),
    contiguous arrays of any shape flattened."""
    if a.ndim == 1:
        return a
    if a.flags.c_contiguous or a.flags.f_contiguous:
        return a.ravel(order="K")
    raise ValueError(f"shmem.{what}: a non-contiguous {a.ndim}-D array (shape {a.shape}, strides "
                     f"{a.strides}) cannot be transferred; pass a contiguous array or a 1-D view")


def first(a: Any, what: str) -> np.ndarray:
    """A one-element view of the first element of `a` (the element atomics and
    waits act on)."""
    arr = ndarray(a, what)
    if arr.size == 0:
        raise ValueError(f"shmem.{what}: the array is empty")
    return arr[(slice(0, 1),) * arr.ndim].reshape(1)


def count(size: Any, default: int, what: str) -> int:
    if size is None:
        return default
    n = operator.index(size)
    if n < 0:
        raise ValueError(f"shmem.{what}: size {n} is negative")
    return n


def fits(a: np.ndarray, n: int, name: str, what: str) -> np.ndarray:
    if a.size < n:
        raise ValueError(f"shmem.{what}: {name} has {a.size} elements, fewer than the {n} to transfer")
    return a[:n]


def same_dtype(t: np.ndarray, s: np.ndarray, what: str) -> None:
    if t.dtype != s.dtype:
        raise TypeError(f"shmem.{what}: target is {t.dtype} and source {s.dtype}; they must match")


def symmetric(a: np.ndarray, name: str, what: str) -> None:
    if not p(what).is_symmetric(a):
        addr = a.__array_interface__["data"][0]
        raise ArgumentError(f"shmem.{what}: {name} at {addr:#x} ({a.nbytes} bytes) is not symmetric: "
                            "it is not in the symmetric heap (allocate it with shmem.zeros, empty, "
                            "full or array)")
