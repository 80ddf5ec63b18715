"""Exceptions raised by interlace.

Every failure reported by the C++ runtime arrives as an :class:`Error` (a
``RuntimeError``) whose ``code`` is an :class:`ErrorCode`. The binding layer
(python/src/bind_p2p.cpp) builds them through :func:`_from_core`, which picks
the subclass from the code, so that callers can catch the cases they handle
differently with the exception types they already know: bad arguments are also
``ValueError``, timeouts also the built-in ``TimeoutError``.
"""
from __future__ import annotations

import builtins

from ._core import ErrorCode

__all__ = [
    "ErrorCode",
    "Error",
    "ArgumentError",
    "LostPeerError",
    "TruncationError",
    "TimeoutError",
    "FinalizedError",
]


class Error(RuntimeError):
    """A failure reported by the interlace runtime; ``code`` says which kind."""

    # The code when none is given (Python code raising a subclass by name), so
    # that e.g. FinalizedError always carries ErrorCode.finalized.
    _default_code = ErrorCode.internal

    def __init__(self, message: str, code: ErrorCode | int | None = None):
        super().__init__(message)
        self.code = ErrorCode(self._default_code if code is None else code)


class ArgumentError(Error, ValueError):
    """An argument the runtime rejected (rank, tag, count, communicator...)."""

    _default_code = ErrorCode.invalid_argument


class LostPeerError(Error):
    """A peer process died or its link broke."""

    _default_code = ErrorCode.lost_peer


class TruncationError(Error):
    """A message was longer than the receive buffer (what fit was written)."""

    _default_code = ErrorCode.truncated


class TimeoutError(Error, builtins.TimeoutError):  # noqa: A001 - deliberately shadows
    """An operation ran past INTERLACE_TIMEOUT; also a built-in TimeoutError."""

    _default_code = ErrorCode.timeout


class FinalizedError(Error):
    """interlace was used after finalize()."""

    _default_code = ErrorCode.finalized


_BY_CODE = {
    ErrorCode.invalid_argument: ArgumentError,
    ErrorCode.invalid_rank: ArgumentError,
    ErrorCode.invalid_tag: ArgumentError,
    ErrorCode.invalid_count: ArgumentError,
    ErrorCode.invalid_datatype: ArgumentError,
    ErrorCode.invalid_op: ArgumentError,
    ErrorCode.invalid_comm: ArgumentError,
    ErrorCode.lost_peer: LostPeerError,
    ErrorCode.truncated: TruncationError,
    ErrorCode.timeout: TimeoutError,
    ErrorCode.finalized: FinalizedError,
}


def _from_core(code: int, message: str) -> Error:
    """Called by the C++ exception translator; returns the exception to raise."""
    try:
        code = ErrorCode(code)
    except ValueError:
        code = ErrorCode.internal
    return _BY_CODE.get(code, Error)(message, code)
