"""Bad input raises the interlace exceptions naming the value: a PE out of range, an
array outside the symmetric heap, a heap too small (naming SHMEM_SYMMETRIC_SIZE),
allocations that differ between PEs, a double free, use after interlace.finalize()
(use after shmem.finalize() is rma.py's)."""
import numpy as np

import interlace
from interlace import shmem
from common import ok, raises

shmem.init()
me, n = shmem.my_pe(), shmem.n_pes()
a = shmem.zeros(8, np.int64)
local = np.zeros(8, np.int64)
raises(interlace.ArgumentError, shmem.put, a, local, n, contains=[f"PE {n}", f"{n} PEs"])
raises(interlace.ArgumentError, shmem.get, local, a, -1, contains=["PE -1"])
raises(interlace.ArgumentError, shmem.put, local, a, 0, contains=["not symmetric"])
raises(interlace.ArgumentError, shmem.get, local, local, 0, contains=["not symmetric"])
raises(interlace.ArgumentError, shmem.wait_until, local, shmem.CMP_EQ, 1, contains=["not symmetric"])
raises(interlace.ArgumentError, shmem.reduce, local, a, contains=["target", "not symmetric"])
raises(ValueError, shmem.put, a, np.zeros(9, np.int64), 0, contains=["8 elements", "9 to transfer"])
raises(TypeError, shmem.put, a, np.zeros(8, np.int32), 0, contains=["int64", "int32"])
raises(ValueError, shmem.wait_until, a, "approx", 1, contains=["approx"])
ok("args")

e = raises(interlace.ArgumentError, shmem.zeros, 1 << 30, np.int64,
           contains=["SHMEM_SYMMETRIC_SIZE=33554432", str(8 << 30)])
assert e.code == interlace.ErrorCode.invalid_count
if n > 1:
    raises(interlace.ArgumentError, shmem.zeros, me + 1, contains=["not symmetric", "between 8 and"])
b = shmem.zeros(4, np.int32)  # the allocator still agrees on every PE
shmem.p(b[1:], me, (me + 1) % n)
shmem.barrier_all()
assert b[1] == (me - 1) % n, b
shmem.free(b)
raises(interlace.ArgumentError, shmem.free, b, contains=["not a live symmetric allocation"])
raises(interlace.ArgumentError, shmem.free, local, contains=["not a live symmetric allocation"])
ok("heap")

# interlace.finalize() releases the heap with the runtime: shmem refuses from then on.
interlace.finalize()
raises(interlace.FinalizedError, shmem.put, a, local, 0, contains=["interlace.finalize"])
raises(interlace.FinalizedError, shmem.barrier_all, contains=["interlace.finalize"])
ok("errors")
