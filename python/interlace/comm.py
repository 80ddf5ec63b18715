"""mpi4py-style point-to-point messaging.

Capitalised methods (``Send``, ``Recv``, ``Isend``...) move buffers in place and
are implemented in C++ (python/src/bind_p2p_comm.cpp). This module adds the
lowercase methods, which move any picklable object, and the process-wide
``init``/``finalize``.

Objects travel as one pickle (protocol 5) per message. A receive learns the
size by probing and then receives exactly the probed message (same source and
tag); since posting a receive never releases the GIL, nothing can take that
message in between. ``irecv`` cannot post a receive before it knows the size,
so its request is matched lazily, in posting order, whenever any pending object
receive on the communicator is tested or waited on.
"""
from __future__ import annotations

import atexit
import pickle
import threading

from . import _core
from ._core import ANY_SOURCE, ANY_TAG, PROC_NULL, TAG_UB, UNDEFINED, Datatype, Request, Status
from .coll import CollectivesMixin
from .errors import FinalizedError

__all__ = [
    "ANY_SOURCE", "ANY_TAG", "PROC_NULL", "UNDEFINED", "TAG_UB",
    "Datatype", "Status", "Request", "Comm", "COMM_NULL",
    "init", "finalize", "is_initialized", "is_finalized", "waitall",
    "BYTE", "INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64",
    "FLOAT16", "BFLOAT16", "FLOAT32", "FLOAT64",
]

BYTE = Datatype.bytes
INT8, INT16, INT32, INT64 = Datatype.int8, Datatype.int16, Datatype.int32, Datatype.int64
UINT8, UINT16, UINT32, UINT64 = Datatype.uint8, Datatype.uint16, Datatype.uint32, Datatype.uint64
FLOAT16, BFLOAT16 = Datatype.float16, Datatype.bfloat16
FLOAT32, FLOAT64 = Datatype.float32, Datatype.float64

_PROTOCOL = 5

# Object receives not yet matched, per communicator id, in posting order.
_unmatched: dict[int, list[_ObjectRecv]] = {}


def _dumps(obj) -> bytes:
    return pickle.dumps(obj, protocol=_PROTOCOL)


def _claim(queue: list[_ObjectRecv], upto: _ObjectRecv | None) -> None:
    """Lets pending object receives take arrived messages, earliest posted first
    (MPI matches receives in posting order), stopping after `upto`."""
    i = 0
    while i < len(queue):
        r = queue[i]
        if r._try_claim():
            queue.pop(i)
        else:
            i += 1
        if r is upto:
            return


class _ObjectRecv(Request):
    """Request of ``Comm.irecv``: wait() returns the received object."""

    def __init__(self, comm: Comm, source: int, tag: int):
        super().__init__()
        self._comm, self._source, self._tag = comm, source, tag
        self._inner: Request | None = None  # the buffer receive, once matched
        self._buf: bytearray | None = None
        self._status = Status()
        self._obj = None
        self._finished = False
        if source == PROC_NULL:
            self._status.source, self._status.tag = PROC_NULL, ANY_TAG
            self._finished = True
        else:
            _unmatched.setdefault(comm.id, []).append(self)

    @property
    def _inactive(self) -> bool:
        return self._finished

    def _try_claim(self) -> bool:
        st = Status()
        if not self._comm.Iprobe(self._source, self._tag, st):
            return False
        self._buf = bytearray(st.count)
        self._inner = self._comm.Irecv(self._buf, st.source, st.tag)
        return True

    def _progress(self, block: bool) -> bool:
        if self._finished:
            return True
        while self._inner is None:
            _claim(_unmatched.get(self._comm.id, []), self)
            if self._inner is not None:
                break
            if not block:
                return False
            self._comm.Probe(self._source, self._tag)  # GIL released while blocked
        try:
            if block:
                self._inner.Wait(self._status)
            elif not self._inner.Test(self._status):
                return False
        except BaseException:
            self._finished = True
            raise
        assert self._buf is not None  # set together with _inner by _try_claim
        self._obj = pickle.loads(self._buf)
        self._buf, self._inner, self._finished = None, None, True
        return True

    def _report(self, status: Status | None) -> None:
        if status is not None:
            st = self._status
            status.source, status.tag, status.count = st.source, st.tag, st.count
            status.error, status.cancelled = st.error, st.cancelled

    def wait(self, status: Status | None = None):
        self._progress(True)
        self._report(status)
        return self._obj

    def Wait(self, status: Status | None = None) -> bool:
        self.wait(status)
        return True

    def test(self, status: Status | None = None):
        done = self._progress(False)
        if done:
            self._report(status)
        return done, (self._obj if done else None)

    def Test(self, status: Status | None = None) -> bool:
        return self.test(status)[0]

    def cancel(self) -> None:
        if self._finished:
            return
        if self._inner is not None:
            self._inner.Cancel()  # already matched: a no-op, as in MPI
            return
        queue = _unmatched.get(self._comm.id, [])
        if self in queue:
            queue.remove(self)
        self._status.cancelled = True
        self._finished = True

    Cancel = cancel


class Comm(CollectivesMixin, _core.Comm):
    """A communicator. Capitalised methods move buffers (NumPy arrays, bytes,
    bytearray, memoryview, or ``[buf, datatype]`` / ``[buf, count, datatype]``
    lists) without copying; lowercase methods move picklable objects."""

    def Dup(self) -> Comm:
        return Comm(self._dup())

    Clone = Dup

    def Split(self, color: int = 0, key: int = 0) -> Comm:
        """Collective; ranks passing color=UNDEFINED get COMM_NULL."""
        return Comm(self._split(color, key))

    # -- objects -----------------------------------------------------------------

    def send(self, obj, dest: int, tag: int = 0) -> None:
        """Sends a picklable object. Returns once the pickle is handed to the
        runtime: a large one is kept until the receiver takes it (buffered mode),
        so a receiver's lazily matched irecv cannot deadlock the sender."""
        self.Isend(_dumps(obj), dest, tag)  # a dropped pending Request keeps its buffer

    def ssend(self, obj, dest: int, tag: int = 0) -> None:
        """Sends a picklable object and returns once the receiver matched it."""
        self.Ssend(_dumps(obj), dest, tag)

    def isend(self, obj, dest: int, tag: int = 0) -> Request:
        return self.Isend(_dumps(obj), dest, tag)

    def issend(self, obj, dest: int, tag: int = 0) -> Request:
        return self.Issend(_dumps(obj), dest, tag)

    def recv(self, buf=None, source: int = ANY_SOURCE, tag: int = ANY_TAG,
             status: Status | None = None):
        """Receives one object. `buf` is accepted for mpi4py compatibility and ignored."""
        if _unmatched.get(self.id):
            return _ObjectRecv(self, source, tag).wait(status)
        if source == PROC_NULL:
            return _ObjectRecv(self, source, tag).wait(status)
        st = Status()
        self.Probe(source, tag, st)
        data = bytearray(st.count)
        self.Recv(data, st.source, st.tag, status)
        return pickle.loads(data)

    def irecv(self, buf=None, source: int = ANY_SOURCE, tag: int = ANY_TAG) -> Request:
        """Non-blocking object receive; its wait() returns the object.
        `buf` is accepted for mpi4py compatibility and ignored."""
        return _ObjectRecv(self, source, tag)

    def sendrecv(self, sendobj, dest: int, sendtag: int = 0, recvbuf=None,
                 source: int = ANY_SOURCE, recvtag: int = ANY_TAG,
                 status: Status | None = None):
        req = self.isend(sendobj, dest, sendtag)
        obj = self.recv(None, source, recvtag, status)
        req.Wait()
        return obj

    def probe(self, source: int = ANY_SOURCE, tag: int = ANY_TAG,
              status: Status | None = None) -> bool:
        return self.Probe(source, tag, status)

    def iprobe(self, source: int = ANY_SOURCE, tag: int = ANY_TAG,
               status: Status | None = None) -> bool:
        return self.Iprobe(source, tag, status)


COMM_NULL = Comm()

_lock = threading.Lock()
_runtime: _core.Runtime | None = None
_world: Comm | None = None
_finalized = False


def init() -> Comm:
    """Starts interlace in this process (once) and returns the world communicator.
    Rank and size come from the launcher (`interlace run`), mpirun, Slurm, or
    default to a singleton."""
    global _runtime, _world
    with _lock:
        if _finalized:
            raise FinalizedError("interlace.init() called after finalize()")
        if _world is None:
            _runtime = _core.Runtime.init()
            _world = Comm(_runtime.world())
            atexit.register(finalize)
        return _world


def finalize() -> None:
    """Completes outgoing traffic and shuts the runtime down. Idempotent; also
    runs at interpreter exit."""
    global _finalized
    with _lock:
        if _runtime is None or _finalized:
            return
        _core._drain_orphans(10.0)
        _unmatched.clear()
        _runtime.finalize()
        _finalized = True


def is_initialized() -> bool:
    return _world is not None


def is_finalized() -> bool:
    return _finalized


def waitall(requests, statuses=None) -> list:
    """Waits for every request; returns their wait() results (objects for
    object receives, None for buffer operations)."""
    return Request.waitall(requests, statuses)
