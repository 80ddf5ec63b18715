"""Put/get on symmetric NumPy arrays: a ring at several sizes (large ones release the
GIL), 2-D arrays, rows and strided columns, iput/iget, p/g, nbi with quiet and
contexts, fence ordering; the interlace API used in the same program."""
import numpy as np

import interlace
from interlace import shmem
from common import ok, raises

shmem.init()
world = interlace.init()  # the runtime shmem.init() started
me, n = shmem.my_pe(), shmem.n_pes()
assert (world.rank, world.size) == (me, n)
right, left = (me + 1) % n, (me - 1) % n

for count in (1, 7, 1000, 300_000):
    a = shmem.zeros(count, dtype=np.int64)
    src = np.arange(count, dtype=np.int64) + me * 1_000_000
    shmem.put(a, src, right)
    shmem.barrier_all()
    assert (a == np.arange(count) + left * 1_000_000).all(), (count, a[:4])
    back = np.empty(count, np.int64)
    shmem.get(back, a, right)
    assert (back == src).all(), (count, back[:4])
    shmem.barrier_all()
    shmem.free(a)
ok("ring")

m = shmem.zeros((3, 4), dtype=np.float32)
shmem.put(m[1], np.full(4, me, np.float32), right)            # a row: contiguous
shmem.put(m[:, 0], np.array([7, 8, 9], np.float32), right)    # a column: strided
shmem.barrier_all()
expect = np.zeros((3, 4), np.float32)
expect[1] = left
expect[:, 0] = [7, 8, 9]
assert (m == expect).all(), m
v = shmem.zeros(10, dtype=np.int32)
shmem.iput(v, np.arange(5, dtype=np.int32) + me * 10, right, tst=2)
shmem.barrier_all()
assert (v[::2] == np.arange(5) + left * 10).all() and (v[1::2] == 0).all(), v
out = np.full(10, -1, np.int32)
shmem.iget(out, v, right, tst=2, sst=2, size=5)
assert (out[::2] == np.arange(5) + me * 10).all() and (out[1::2] == -1).all(), out
part = np.zeros(4, np.int32)
shmem.get(part, v, right, size=2)
assert part.tolist() == [me * 10, 0, 0, 0], part
s = shmem.array([0, 0], dtype=np.int64)
shmem.p(s[1:], me + 100, right)
shmem.barrier_all()
assert s.tolist() == [0, left + 100], s
assert shmem.g(s[1:], right) == me + 100
shmem.barrier_all()
ok("shapes")

nb = shmem.zeros(64, np.int64)
for i in range(64):
    shmem.put_nbi(nb[i:i + 1], np.array([me * 64 + i], np.int64), right)
shmem.quiet()
shmem.barrier_all()
assert (nb == left * 64 + np.arange(64)).all(), nb
got = np.zeros(64, np.int64)
ctx = shmem.Ctx()
for i in range(64):
    shmem.get_nbi(got[i:i + 1], nb[i:i + 1], right, ctx=ctx)
ctx.quiet()
ctx.destroy()
assert (got == me * 64 + np.arange(64)).all(), got
# The rest of interlace, on the same data, in the same process.
assert world.allreduce(int(nb.sum())) == sum(range(n * 64))
ok("nbi")

data = shmem.zeros(1, np.int64)
flag = shmem.zeros(1, np.int64)
shmem.barrier_all()
if n > 1:
    for r in range(1, 301):
        if me == 0:
            shmem.p(data, r, 1)
            shmem.fence()
            shmem.p(flag, r, 1)
        elif me == 1:
            # The writer runs ahead: flag >= r must come with data >= flag.
            shmem.wait_until(flag, shmem.CMP_GE, r)
            f = int(flag[0])
            assert int(data[0]) >= f, (int(data[0]), f)
shmem.barrier_all()
ok("fence")
shmem.finalize()
raises(interlace.FinalizedError, shmem.put, nb, got, right, contains=["shmem.finalize"])
raises(interlace.FinalizedError, shmem.my_pe, contains=["shmem.finalize"])
raises(interlace.FinalizedError, shmem.TEAM_WORLD.sync, contains=["shmem.finalize"])
assert world.allreduce(1) == n  # the rest of interlace still runs
ok("rma")
