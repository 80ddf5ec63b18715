"""interlace native core (C++ runtime bindings)"""

# Stubs for the extension. The p2p part (ErrorCode .. Request) is kept by the
# p2p bindings (python/src/bind_p2p*.cpp); regenerate with
#   python -m nanobind.stubgen -m interlace._core
# and restore the buffer/status annotations below.
import enum
from typing import Any, Sequence, Union, overload

# A buffer-protocol object (NumPy array, bytes, bytearray, memoryview) or an
# mpi4py-style [buf, datatype] / [buf, count] / [buf, count, datatype] list.
BufSpec = Any
DatatypeLike = Union["Datatype", str, int, Any]  # Any: numpy.dtype or scalar type


class ErrorCode(enum.IntEnum):
    """Error codes of interlace::Errc (interlace/core/error.hpp)."""

    ok = 0

    would_block = 1

    invalid_argument = 2

    invalid_rank = 3

    invalid_tag = 4

    invalid_count = 5

    invalid_datatype = 6

    invalid_op = 7

    invalid_comm = 8

    truncated = 9

    lost_peer = 10

    timeout = 11

    finalized = 12

    cancelled = 13

    protocol = 14

    unsupported = 15

    system = 16

    internal = 17

ANY_SOURCE: int = -1

ANY_TAG: int = -1

PROC_NULL: int = -2

UNDEFINED: int = -32766

TAG_UB: int = 2147483647

class Status:
    """Outcome of a receive or probe: who sent, which tag, how much."""

    def __init__(self) -> None: ...

    @property
    def source(self) -> int: ...

    @source.setter
    def source(self, arg: int, /) -> None: ...

    @property
    def tag(self) -> int: ...

    @tag.setter
    def tag(self, arg: int, /) -> None: ...

    @property
    def error(self) -> ErrorCode: ...

    @error.setter
    def error(self, arg: ErrorCode, /) -> None: ...

    @property
    def cancelled(self) -> bool: ...

    @cancelled.setter
    def cancelled(self, arg: bool, /) -> None: ...

    @property
    def count(self) -> int:
        """Bytes received."""

    @count.setter
    def count(self, arg: int, /) -> None: ...

    def Get_source(self) -> int: ...

    def Get_tag(self) -> int: ...

    def Get_error(self) -> ErrorCode: ...

    def Get_count(self, datatype: DatatypeLike | None = None) -> int:
        """Elements of `datatype` received (bytes when None)."""

    def Get_elements(self, datatype: DatatypeLike) -> int: ...

    def Is_cancelled(self) -> bool: ...

    def __repr__(self) -> str: ...

class Runtime:
    """One per process: the engine context and p2p state."""

    @staticmethod
    def init() -> Runtime: ...

    def world(self) -> Comm: ...

    def self(self) -> Comm: ...

    def finalize(self) -> None: ...

    @property
    def finalized(self) -> bool: ...

class Datatype(enum.IntEnum):
    """Element types, numbered as on the wire (interlace/core/datatype.hpp)."""

    bytes = 0

    int8 = 1

    int16 = 2

    int32 = 3

    int64 = 4

    uint8 = 5

    uint16 = 6

    uint32 = 7

    uint64 = 8

    float16 = 9

    bfloat16 = 10

    float32 = 11

    float64 = 12

def datatype_size(datatype: DatatypeLike) -> int:
    """Bytes per element of a datatype."""

def buffer_info(buf: BufSpec, writable: bool = False) -> tuple[Datatype, int, int]:
    """(datatype, count, nbytes) that a p2p call would use for `buf`."""

class Comm:
    """Communicator: buffer point-to-point operations."""

    @overload
    def __init__(self) -> None: ...

    @overload
    def __init__(self, arg: Comm, /) -> None: ...

    @property
    def rank(self) -> int: ...

    @property
    def size(self) -> int: ...

    @property
    def id(self) -> int: ...

    @property
    def is_null(self) -> bool: ...

    def Get_rank(self) -> int: ...

    def Get_size(self) -> int: ...

    def world_rank_of(self, rank: int) -> int: ...

    def __bool__(self) -> bool: ...

    def __eq__(self, arg: object, /) -> bool: ...

    def __hash__(self) -> int: ...

    def __repr__(self) -> str: ...

    def Send(self, buf: BufSpec, dest: int, tag: int = 0) -> None: ...

    def Ssend(self, buf: BufSpec, dest: int, tag: int = 0) -> None: ...

    def Isend(self, buf: BufSpec, dest: int, tag: int = 0) -> Request: ...

    def Issend(self, buf: BufSpec, dest: int, tag: int = 0) -> Request: ...

    def Recv(self, buf: BufSpec, source: int = -1, tag: int = -1, status: Status | None = None) -> None: ...

    def Irecv(self, buf: BufSpec, source: int = -1, tag: int = -1) -> Request: ...

    def Sendrecv(self, sendbuf: BufSpec, dest: int, sendtag: int = 0, recvbuf: BufSpec | None = None, source: int = -1, recvtag: int = -1, status: Status | None = None) -> None: ...

    def Probe(self, source: int = -1, tag: int = -1, status: Status | None = None) -> bool: ...

    def Iprobe(self, source: int = -1, tag: int = -1, status: Status | None = None) -> bool: ...

    def Free(self) -> None: ...

class Request:
    """Handle to a non-blocking operation."""

    def __init__(self) -> None: ...

    def Wait(self, status: Status | None = None) -> bool: ...

    def wait(self, status: Status | None = None) -> Any:
        """
        Completes the operation; returns the received object for object receives, else None.
        """

    def Test(self, status: Status | None = None) -> bool: ...

    def test(self, status: Status | None = None) -> tuple[bool, Any]: ...

    def Cancel(self) -> None: ...

    def cancel(self) -> None:
        """
        Cancels a receive that has not matched yet; wait() then reports status.cancelled.
        """

    @staticmethod
    def Waitall(requests: Sequence[Request], statuses: list[Status] | None = None) -> bool: ...

    @staticmethod
    def Waitany(requests: Sequence[Request], status: Status | None = None) -> int:
        """Index of a completed request; UNDEFINED when none is active."""

    @staticmethod
    def Testall(requests: Sequence[Request], statuses: list[Status] | None = None) -> bool: ...

    @staticmethod
    def waitall(requests: Sequence[Request], statuses: list[Status] | None = None) -> list[Any]:
        """
        Waits for all; returns each request's wait() result (objects for object receives).
        """

def version() -> str:
    """Version of the C++ library this extension was built from."""

def builtin_fabrics() -> list[str]:
    """Names of the fabric backends compiled in, e.g. ['shm', 'tcp']."""

def config_description() -> dict[str, str]:
    """
    Every INTERLACE_* setting with its effective value; raises on malformed values.
    """

class TcpStoreServer:
    """Serves a job's key-value store over TCP until closed."""

    def __init__(self, host: str, port: int, secret: str) -> None:
        """
        Binds host:port (port 0 picks a free one); clients must present secret.
        """

    @property
    def port(self) -> int:
        """The port actually bound."""

    @property
    def closed(self) -> bool: ...

    def close(self) -> None:
        """Stops serving; idempotent."""

    def __enter__(self) -> TcpStoreServer: ...

    def __exit__(self, *args) -> None: ...

# -- streaming channels (python/src/bind_stream.cpp; interlace/stream.py) --

DEFAULT_DEGREE_BYTES: int
"""Default asynchronicity degree in bytes: degree = DEFAULT_DEGREE_BYTES // element size."""

class SendChannel:
    """Sending end of a streaming channel (SMI)."""

    def __init__(self, comm: Comm, dest: int, port: int, count: int, dtype: DatatypeLike,
                 degree: int | None = None) -> None: ...
    def push(self, value: int | float) -> None:
        """Pushes one element; blocks (GIL released) only when out of credits."""
    def push_n(self, buf: Any) -> None:
        """Pushes every element of a buffer of the channel's type (GIL released)."""
    def flush(self) -> None:
        """Sends the partly filled packet now."""
    @property
    def count(self) -> int: ...
    @property
    def remaining(self) -> int: ...
    @property
    def closed(self) -> bool: ...
    @property
    def eager(self) -> bool: ...
    @property
    def dtype(self) -> Datatype: ...

class RecvChannel:
    """Receiving end of a streaming channel (SMI)."""

    def __init__(self, comm: Comm, source: int, port: int, count: int, dtype: DatatypeLike,
                 degree: int | None = None) -> None: ...
    def pop(self) -> int | float:
        """Pops one element; blocks (GIL released) until it has arrived."""
    def pop_into(self, buf: Any) -> None:
        """Fills a writable buffer of the channel's type (GIL released)."""
    @property
    def count(self) -> int: ...
    @property
    def remaining(self) -> int: ...
    @property
    def closed(self) -> bool: ...
    @property
    def dtype(self) -> Datatype: ...
