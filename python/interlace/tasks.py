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
import threading
from typing import Any, Callable, Sequence, TypeVar

from . import _core
from .errors import ArgumentError

__all__ = [
    "ACCESSES",
    "Executor",
    "Region",
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
