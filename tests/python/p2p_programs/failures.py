"""Errors: bad arguments name the bad value, truncation, cancelling a pending
receive, use after finalize; `lostpeer` and `timeout` modes for the runtime's
failure reports (argv[1])."""
import builtins
import os
import sys
import time

import numpy as np

import interlace
from common import barrier, ok, raises

mode = sys.argv[1] if len(sys.argv) > 1 else "basic"
comm = interlace.init()
rank, size = comm.rank, comm.size

if mode == "lostpeer":
    # The last rank dies without a word; rank 0's pending receive must fail.
    # (It says hello first: a peer that never exchanged a frame is not yet
    # watched by every fabric.)
    if rank == size - 1:
        comm.Send(b"bye", 0, 1)
        os._exit(0)
    if rank == 0:
        comm.Recv(bytearray(3), size - 1, 1)
        e = raises(interlace.LostPeerError, comm.Recv, np.zeros(4), size - 1, 0)
        assert e.code == interlace.ErrorCode.lost_peer and isinstance(e, interlace.Error)
        print("OK lostpeer rank 0", flush=True)
    os._exit(0)  # finalize would wait on the dead peer's link too

if mode == "timeout":
    t0 = time.monotonic()
    e = raises(builtins.TimeoutError, comm.Recv, bytearray(4), rank, 77)
    assert isinstance(e, interlace.Error) and e.code == interlace.ErrorCode.timeout
    assert time.monotonic() - t0 < 20
    ok(comm, "timeout")
    sys.exit(0)

buf = np.zeros(4, np.int32)
raises(ValueError, comm.Send, buf, size, contains=[str(size)])
raises(ValueError, comm.Send, buf, -7, contains=["-7"])
raises(ValueError, comm.Recv, buf, size + 3, contains=[str(size + 3)])
raises(ValueError, comm.Send, buf, 0, -3, contains=["-3"])
raises(ValueError, comm.Send, buf, 0, 2**31, contains=[str(2**31)])
raises(ValueError, comm.Isend, buf, 0, interlace.ANY_TAG, contains=["-1"])
e = raises(interlace.Error, comm.Send, buf, size)
assert e.code == interlace.ErrorCode.invalid_rank, e.code
raises(ValueError, comm.Recv, b"read-only", 0, contains=["read-only", "bytes"])
raises(ValueError, comm.Recv, np.frombuffer(b"abcd", np.uint8), 0, contains=["read-only"])
raises(ValueError, comm.Recv, np.zeros((4, 4))[:, 1], 0, contains=["contiguous", "(4,)"])
raises(ValueError, comm.Irecv, np.zeros(8)[::2], 0, contains=["contiguous"])
raises(TypeError, comm.Send, 3.5, 0, contains=["float"])
raises(TypeError, comm.Send, [buf, 1, 2, 3], 0, contains=["4 items"])
raises(ValueError, comm.Send, [buf, "int33"], 0, contains=["int33"])
raises(ValueError, comm.Send, [buf, 5], 0, contains=["count 5"])
raises(ValueError, comm.Send, [buf, -1], 0, contains=["-1"])
raises(TypeError, comm.Recv, buf, 0, 0, "not a status", contains=["str"])
raises(ValueError, comm.Split, -5, 0, contains=["-5"])
raises(TypeError, interlace.Request.Waitall, [object()], contains=["object"])
ok(comm, "arguments")

# Truncation: what fits is written, the error names both sizes.
right, left = (rank + 1) % size, (rank - 1) % size
req = comm.Isend(np.arange(100, dtype=np.int32), right, 5)
small = np.zeros(10, np.int32)
e = raises(interlace.TruncationError, comm.Recv, small, left, 5, contains=["400", "40"])
assert e.code == interlace.ErrorCode.truncated and isinstance(e, RuntimeError)
req.Wait()
comm.send(list(range(50)), right, 6)
e = raises(interlace.TruncationError, comm.Recv, bytearray(3), left, 6)
ok(comm, "truncation")

# Cancelling receives that have not matched; a later message still arrives.
st = interlace.Status()
r = comm.Irecv(np.zeros(8), left, 99)
assert r.Test() is False
r.Cancel()
assert r.Wait(st) is True and st.Is_cancelled()
o = comm.irecv(source=left, tag=98)
assert o.test() == (False, None)
o.cancel()
assert o.wait(st) is None and st.cancelled
barrier(comm)  # the left neighbour sends only now, after the cancel
comm.send("after", right, 98)
assert comm.recv(source=left, tag=98) == "after"
ok(comm, "cancel")

barrier(comm)
interlace.finalize()
interlace.finalize()  # idempotent
e = raises(interlace.Error, comm.Send, buf, 0)
assert e.code == interlace.ErrorCode.finalized
raises(interlace.Error, interlace.init)
ok(comm, "failures")
