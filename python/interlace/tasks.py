"""Tasks with dependencies on NumPy arrays (OmpSs-2 semantics; docs/python.md#tasks).

A task declares, per argument, how it accesses the argument's memory: ``in``,
``out``, ``inout``, ``commutative`` or ``concurrent``. Tasks spawned by the same
parent run in spawn order where their regions overlap with a conflicting access,
and in parallel elsewhere::

    @interlace.tasks.task(a="in", b="inout")
    def axpy(a, b):
        b += 2 * a

    axpy(x[:100], y[:100])            # spawns a task; returns at once
    axpy(x[100:], y[100:])            # disjoint sections: may run concurrently
    interlace.tasks.taskwait()        # both done; a task's exception is raised here

A dependency is the memory of an array or any buffer-protocol object (a slice
is its own sub-range; a strided view declares the range from its lowest to its
highest byte) or an explicit :class:`Region`. Bodies run on the executor's
worker threads and hold the GIL while they run Python; see docs/python.md for
what runs in parallel.
"""
from __future__ import annotations

import atexit
import functools
import inspect
import pickle
import threading
from typing import Any, Callable, Sequence, TypeVar

from . import _core
from .errors import ArgumentError

__all__ = [
    "ACCESSES",
    "Executor",
    "Region",
    "Session",
    "default_executor",
    "default_workers",
    "in_task",
    "spawn",
    "task",
    "taskwait",
]

ACCESSES = ("in", "out", "inout", "commutative", "concurrent")

F = TypeVar("F", bound=Callable[..., Any])


class Region:
    """An explicit dependency region: ``nbytes`` bytes from the integer address
    ``address`` (e.g. ``array.ctypes.data``). Negative values raise ArgumentError."""

    __slots__ = ("address", "nbytes")

    def __init__(self, address: int, nbytes: int):
        for name, v in (("address", address), ("nbytes", nbytes)):
            if not isinstance(v, int) or isinstance(v, bool):
                raise TypeError(f"Region: {name} must be an int, got {v!r}")
        if address < 0:
            raise ArgumentError(f"Region: negative address {address}")
        if nbytes < 0:
            raise ArgumentError(f"Region: negative length {nbytes} (address {address:#x})")
        self.address, self.nbytes = address, nbytes

    def __repr__(self) -> str:
        return f"Region(address={self.address:#x}, nbytes={self.nbytes})"


# A dependency target: an array / buffer, a Region, or a list or tuple of those.
Target = Any
_Triple = tuple  # (access, buffer-or-(address, nbytes), what) for _core


def _deps(access: str, value: Target, what: str) -> list[_Triple]:
    if value is None:
        return []
    if isinstance(value, Region):
        return [(access, (value.address, value.nbytes), what)]
    if isinstance(value, (list, tuple)):
        out: list[_Triple] = []
        for i, v in enumerate(value):
            out += _deps(access, v, f"{what}[{i}]")
        return out
    return [(access, value, what)]


def _check_access(access: str, what: str) -> None:
    if access not in ACCESSES:
        raise ValueError(f"{what}: access {access!r} is not one of {', '.join(ACCESSES)}")


_local = threading.local()  # .running: the Executor whose task this thread runs; .stack


class Executor:
    """A pool of task workers. ``workers=0`` takes INTERLACE_TASK_WORKERS, else the
    cores this process may use. ``communicate=True`` starts interlace's progress
    thread (``interlace.init()`` first) so that tasks may send and receive at once.
    As a context manager it is the default for spawns on this thread inside the
    ``with`` block, and waits for its tasks and closes on exit."""

    def __init__(self, workers: int = 0, *, communicate: bool = False,
                 _core_executor: _core.TaskExecutor | None = None):
        if _core_executor is not None:
            self._ex = _core_executor
            return
        if not isinstance(workers, int) or isinstance(workers, bool) or workers < 0:
            raise ValueError(f"Executor: workers must be an int >= 0 (0: the default), got {workers!r}")
        runtime = None
        if communicate:
            from . import comm
            comm.init()
            runtime = comm._runtime
        self._ex = _core.TaskExecutor(workers, runtime)

    @property
    def workers(self) -> int:
        return self._ex.workers

    @property
    def closed(self) -> bool:
        return self._ex.closed

    def stats(self) -> dict[str, int]:
        """Counters: spawned, executed, cancelled, blocked, threads."""
        return self._ex.stats()

    def _spawn(self, fn: Callable[..., Any], args: Sequence[Any], kwargs: dict[str, Any],
               deps: list[_Triple], priority: int) -> None:
        if not callable(fn):
            raise TypeError(f"spawn: the task body must be callable, got a {type(fn).__name__}")
        if not isinstance(priority, int) or isinstance(priority, bool) or not -2**31 <= priority < 2**31:
            raise ValueError(f"spawn: priority must be a 32-bit int, got {priority!r}")

        def body() -> None:
            prev = getattr(_local, "running", None)
            _local.running = self
            try:
                fn(*args, **kwargs)
            finally:
                _local.running = prev

        self._ex.spawn(body, deps, priority)

    def spawn(self, fn: Callable[..., Any], *args: Any, in_: Target = None, out: Target = None,
              inout: Target = None, commutative: Target = None, concurrent: Target = None,
              priority: int = 0) -> None:
        """Spawns ``fn(*args)`` as a task accessing the given arrays (each clause
        one array, buffer or Region, or a list of them)."""
        deps: list[_Triple] = []
        for access, value in (("in", in_), ("out", out), ("inout", inout),
                              ("commutative", commutative), ("concurrent", concurrent)):
            deps += _deps(access, value, f"spawn argument {access}_" if access == "in"
                          else f"spawn argument {access}")
        self._spawn(fn, args, {}, deps, priority)

    def taskwait(self, on: Target = None) -> None:
        """Waits for the calling task's children (at top level, every task spawned
        outside a task); with ``on``, only for the earlier ones that access those
        arrays. Raises the first exception a covered task raised."""
        if on is None:
            self._ex.taskwait()
        else:
            self._ex.taskwait_on(_deps("inout", on, "taskwait on"))

    def close(self) -> None:
        """Waits for every task and stops the workers (not for the process executor)."""
        self._ex.close()

    def __enter__(self) -> Executor:
        _stack().append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        _stack().pop()
        try:
            self.taskwait()
        finally:
            self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"workers={self.workers}"
        return f"<interlace.tasks.Executor {state}>"


def _stack() -> list[Executor]:
    if not hasattr(_local, "stack"):
        _local.stack = []
    return _local.stack


_process: Executor | None = None
_process_lock = threading.Lock()


def default_executor() -> Executor:
    """The process's shared executor (created on first use; waited for at exit)."""
    global _process
    with _process_lock:
        if _process is None:
            _process = Executor(_core_executor=_core.task_process_executor())
            atexit.register(_wait_at_exit)
        return _process


def _wait_at_exit() -> None:
    # Bodies need the interpreter: the process executor must be idle before it goes.
    if _process is not None and not _process.closed:
        try:
            _process.taskwait()
        except Exception as e:  # nobody is left to catch it
            import sys
            print(f"interlace.tasks: a task failed and was never waited for: {e!r}", file=sys.stderr)


def _current(executor: Executor | None) -> Executor:
    if executor is not None:
        return executor
    running = getattr(_local, "running", None)
    if running is not None:
        return running
    stack = _stack()
    return stack[-1] if stack else default_executor()


def spawn(fn: Callable[..., Any], *args: Any, in_: Target = None, out: Target = None,
          inout: Target = None, commutative: Target = None, concurrent: Target = None,
          priority: int = 0, executor: Executor | None = None) -> None:
    """Spawns ``fn(*args)`` on the current executor (the running task's, the
    innermost ``with Executor()`` of this thread, else the process's)."""
    _current(executor).spawn(fn, *args, in_=in_, out=out, inout=inout, commutative=commutative,
                             concurrent=concurrent, priority=priority)


def taskwait(on: Target = None, executor: Executor | None = None) -> None:
    """Waits for the current task's children (or the top-level tasks); with
    ``on``, only for the earlier tasks that access those arrays. Releases the GIL."""
    _current(executor).taskwait(on)


def task(_fn: Callable[..., Any] | None = None, /, *, priority: int = 0,
         **accesses: str) -> Any:
    """Decorator: calling the function spawns it as a task whose dependencies are
    the named arguments' memory, ``@task(a="in", b="inout")``. An argument given
    as a list or tuple declares each element; None declares nothing. The call
    returns None at once; the original function is ``__wrapped__``."""
    def decorate(fn: F) -> F:
        sig = inspect.signature(fn)
        for name, access in accesses.items():
            if name not in sig.parameters:
                raise TypeError(f"task: {fn.__qualname__} has no parameter {name!r} "
                                f"(parameters: {', '.join(sig.parameters) or 'none'})")
            if not isinstance(access, str):
                raise TypeError(f"task: access of {name!r} must be a string, got {access!r}")
            _check_access(access, f"task: parameter {name!r}")

        @functools.wraps(fn)
        def spawner(*args: Any, **kwargs: Any) -> None:
            bound = sig.bind(*args, **kwargs)
            deps: list[_Triple] = []
            for name, access in accesses.items():
                if name in bound.arguments:
                    deps += _deps(access, bound.arguments[name], f"argument {name!r}")
            _current(None)._spawn(fn, args, kwargs, deps, priority)

        spawner.accesses = dict(accesses)  # type: ignore[attr-defined]
        return spawner  # type: ignore[return-value]

    if _fn is not None:
        if accesses:
            raise TypeError("task: use @task(name='access', ...) or a bare @task, not both")
        return decorate(_fn)
    return decorate


def default_workers() -> int:
    """Workers an Executor() gets: INTERLACE_TASK_WORKERS, else the usable cores."""
    return _core.task_default_workers()


def in_task() -> bool:
    """Whether the calling thread runs a task body."""
    return _core.task_in_task()


_dispatcher_registered: list[bool] = []


class Session:
    """Distributed tasks (docs/python.md#distributed-tasks): a host rank and P device
    ranks running the same script. Collective over the world; the host is world
    rank ``host_rank`` (-1: INTERLACE_TASK_HOST, default 0), every other rank a
    device. The host spawns, the devices ``serve()`` until the host's ``finish()``."""

    def __init__(self, host_rank: int = -1):
        from . import comm
        comm.init()
        assert comm._runtime is not None  # init() made it
        _core.dist_register(_run_on_device)
        if not _dispatcher_registered:  # the C++ registry must not outlive the package
            _dispatcher_registered.append(True)
            atexit.register(_core.dist_register, None)
        self._s = _core.DistSession(comm._runtime, host_rank)
        self._keep: list[Any] = []  # host arrays in flight, until taskwait

    @property
    def is_host(self) -> bool:
        return self._s.is_host

    @property
    def host_rank(self) -> int:
        return self._s.host_rank

    @property
    def num_devices(self) -> int:
        return self._s.num_devices

    @property
    def device_index(self) -> int:
        """This device's number, 0..num_devices-1; -1 on the host."""
        return self._s.device_index

    @property
    def devices(self) -> Any:
        """A Comm of the devices only (device i is rank i); COMM_NULL on the host."""
        from .comm import Comm
        return Comm(self._s.devices())

    def spawn(self, fn: Callable[..., Any], *args: Any, broadcast: Target = None,
              scatter: Target = None, gather: Target = None,
              send: dict[int, Any] | None = None, receive: dict[int, Any] | None = None) -> None:
        """Host: runs ``fn(*arrays, *args)`` on every device, asynchronously. The
        arrays are the device's copies, in the order broadcast, scatter, gather,
        send, receive (each clause one array or a list): a broadcast array whole,
        scatter and gather arrays as the device's chunk (an equal share of the
        first axis), send/receive arrays on the named device (None elsewhere).
        ``fn`` and ``args`` are pickled (``fn`` by name: a module-level function of
        the script or a module every rank imports)."""
        import numpy as np
        clauses, meta = [], []

        def add(kind: str, value: Target, device: int, what: str) -> None:
            for i, a in enumerate(value if isinstance(value, (list, tuple)) else [value]):
                arr = np.asarray(a)
                clauses.append((kind, a, device, f"{what}[{i}]" if isinstance(value, (list, tuple)) else what))
                meta.append((kind, arr.dtype.str, arr.shape))
                self._keep.append(a)

        for kind, value in (("broadcast", broadcast), ("scatter", scatter), ("gather", gather)):
            if value is not None:
                add(kind, value, -1, kind)
        for kind, table in (("send", send), ("receive", receive)):
            for device, value in (table or {}).items():
                if not isinstance(device, int):
                    raise TypeError(f"Session.spawn: {kind} keys are device numbers, got {device!r}")
                add(kind, value, device, f"{kind}[{device}]")
        self._s.spawn(clauses, pickle.dumps((fn, meta, args)))

    def taskwait(self) -> None:
        """Host: waits for the distributed tasks; raises a device's failure (naming
        the device) or LostPeerError for a lost device."""
        try:
            self._s.taskwait()
        finally:
            self._keep.clear()

    def finish(self) -> None:
        """Host: waits for the distributed tasks and releases the devices."""
        try:
            self._s.finish()
        finally:
            self._keep.clear()

    def serve(self) -> None:
        """Device: runs the host's distributed tasks until the host finishes."""
        self._s.serve()


def _run_on_device(regions: list[Any], payload: bytes, device: int, num_devices: int) -> None:
    import numpy as np
    fn, meta, args = pickle.loads(payload)
    arrays: list[Any] = []
    for mv, (kind, dtype, shape) in zip(regions, meta):
        if mv is None:
            arrays.append(None)
            continue
        a = np.frombuffer(mv, dtype=dtype)
        if kind in ("scatter", "gather"):
            if len(shape) > 1 and shape[0] % num_devices == 0:
                a = a.reshape((-1, *shape[1:]))
        else:
            a = a.reshape(shape)
        arrays.append(a)
    fn(*arrays, *args)
