"""Buffer send/receive around a ring: every NumPy dtype, sizes from 0 bytes
to above the eager limit (1 MiB; 64 MiB with --big), generic buffers and
explicit [buf, datatype] specs."""
import sys

import numpy as np

import interlace
from common import barrier, ok

comm = interlace.init()
rank, size = comm.rank, comm.size
right, left = (rank + 1) % size, (rank - 1) % size

DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
          np.uint64, np.float16, np.float32, np.float64]
NBYTES = [0, 8, 1000, 64 * 1024 + 8, 1 << 20]
if "--big" in sys.argv:
    NBYTES.append(64 << 20)


def pattern(dtype, count, seed):
    return ((np.arange(count, dtype=np.int64) * 7 + seed) % 101).astype(dtype)


tag = 0
for dtype in DTYPES:
    for nbytes in NBYTES:
        count = nbytes // np.dtype(dtype).itemsize
        out = pattern(dtype, count, rank)
        got = np.full(count, 99, dtype=dtype)  # not in the pattern at index 0
        st = interlace.Status()
        req = comm.Irecv(got, left, tag)
        comm.Send(out, right, tag)
        assert req.Wait(st) is True
        assert (st.source, st.tag) == (left, tag), st
        assert st.Get_count(interlace.Datatype[np.dtype(dtype).name]) == count, (st, count)
        assert st.count == count * np.dtype(dtype).itemsize
        assert np.array_equal(got, pattern(dtype, count, left)), (dtype, nbytes)
        tag += 1
ok(comm, "dtypes")

# Synchronous sends, blocking receives, 2-D arrays, generic buffers.
for nbytes in (0, 100, 1 << 20):
    out = bytes((rank + i) % 256 for i in range(nbytes)) if nbytes < 1000 else \
        np.full(nbytes, rank % 256, np.uint8).tobytes()
    got = bytearray(nbytes)
    req = comm.Issend(out, right, 1)
    comm.Recv(got, left, 1)
    req.Wait()
    want = bytes((left + i) % 256 for i in range(nbytes)) if nbytes < 1000 else \
        np.full(nbytes, left % 256, np.uint8).tobytes()
    assert bytes(got) == want
ok(comm, "generic")

m = np.arange(12, dtype=np.float32).reshape(3, 4) + rank
got = np.zeros((3, 4), np.float32)
st = interlace.Status()
comm.Sendrecv(m, right, 2, got, left, 2, st)
assert np.array_equal(got, np.arange(12, dtype=np.float32).reshape(3, 4) + left)
assert st.Get_count(interlace.FLOAT32) == 12
f = np.asfortranarray(m)  # contiguous in Fortran order is still one block
comm.Sendrecv(f, right, 3, got, left, 3)

# [buf, datatype] and [buf, count, datatype]: reinterpret and send a prefix.
out = np.arange(8, dtype=np.int32) + rank
got = np.zeros(16, np.int16)
comm.Sendrecv([out, 4, interlace.INT32], right, 4, [got, interlace.INT32], left, 4, st)
assert st.Get_count(interlace.INT32) == 4 and st.Get_count("int16") == 8
assert np.array_equal(got.view(np.int32)[:4], np.arange(4, dtype=np.int32) + left)
ok(comm, "specs")

try:
    import ml_dtypes
except ImportError:
    ml_dtypes = None
if ml_dtypes is not None:
    out = (np.arange(100, dtype=np.float32) + rank).astype(ml_dtypes.bfloat16)
    got = np.zeros(100, ml_dtypes.bfloat16)
    comm.Sendrecv(out, right, 5, got, left, 5, st)
    assert st.Get_count(interlace.BFLOAT16) == 100
    assert np.array_equal(got.astype(np.float32), np.arange(100, dtype=np.float32) + left)
    ok(comm, "bfloat16")

# PROC_NULL peers are no-ops; receives report source PROC_NULL.
comm.Send(np.zeros(3), interlace.PROC_NULL)
comm.Recv(np.zeros(3), interlace.PROC_NULL, 0, st)
assert st.source == interlace.PROC_NULL
barrier(comm)
ok(comm, "buffers")
