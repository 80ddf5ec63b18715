"""Atomics on symmetric arrays: N PEs x M fetch_adds on one counter give exactly
N x M for every AMO integer type, compare_swap has one winner, bitwise ops and
their fetch forms, fetch/set/swap on floats, and typed errors."""
import numpy as np

import interlace
from interlace import shmem
from common import ok, raises

shmem.init()
me, n = shmem.my_pe(), shmem.n_pes()
right, left = (me + 1) % n, (me - 1) % n
M = 200

for dt in (np.int32, np.int64, np.uint32, np.uint64):
    cnt = shmem.zeros(2, dtype=dt)
    olds = [shmem.atomic_fetch_add(cnt, 1, n - 1) for _ in range(M)]
    assert all(a < b for a, b in zip(olds, olds[1:])), (dt, olds[:5])
    for _ in range(M):
        shmem.atomic_inc(cnt[1:], 0)
    shmem.atomic_add(cnt[1:], 3, 0)
    seen = shmem.atomic_fetch_inc(cnt[1:], 0)
    assert 0 <= seen < n * (M + 4), seen
    shmem.barrier_all()
    if me == n - 1:
        assert cnt[0] == n * M, (dt, cnt)
    if me == 0:
        assert cnt[1] == n * (M + 4), (dt, cnt)
    assert shmem.atomic_fetch(cnt, n - 1) == n * M
    shmem.barrier_all()
    shmem.free(cnt)
ok("counts")

word = shmem.zeros(1, np.int32)
old = shmem.atomic_compare_swap(word, 0, me + 1, 0)
shmem.barrier_all()
winners = shmem.zeros(n, np.int64)
shmem.fcollect(winners, shmem.array([1 if old == 0 else 0], np.int64))
assert winners.sum() == 1, winners
final = shmem.atomic_fetch(word, 0)
assert final == int(np.flatnonzero(winners)[0]) + 1, (final, winners)
shmem.barrier_all()
ok("cswap")

bits = shmem.zeros(1, np.uint64)
shmem.atomic_or(bits, 1 << me, 0)
shmem.barrier_all()
full_mask = (1 << n) - 1
assert shmem.atomic_fetch(bits, 0) == full_mask
shmem.barrier_all()
before = shmem.atomic_fetch_and(bits, ~(1 << me) & 0xFFFFFFFFFFFFFFFF, 0)
assert before & (1 << me)
shmem.barrier_all()
assert shmem.atomic_fetch(bits, 0) == 0
shmem.barrier_all()
shmem.atomic_xor(bits, 0b11 << (2 * me), 0)
shmem.barrier_all()
assert shmem.atomic_fetch_xor(bits, 0, 0) == sum(0b11 << (2 * p) for p in range(n))
i32 = shmem.zeros(1, np.int32)
shmem.atomic_fetch_or(i32, 1 << me, 0)
shmem.atomic_and(i32, -1, 0)
shmem.barrier_all()
assert shmem.atomic_fetch(i32, 0) == full_mask
ok("bitwise")

for dt in (np.float32, np.float64):
    f = shmem.zeros(1, dt)
    shmem.atomic_set(f, me + 0.5, right)
    shmem.barrier_all()
    assert f[0] == left + 0.5, f
    assert shmem.atomic_fetch(f, right) == me + 0.5
    shmem.barrier_all()
    assert shmem.atomic_swap(f, -1.25, right) == me + 0.5
    shmem.barrier_all()
    assert f[0] == -1.25
    raises(TypeError, shmem.atomic_add, f, 1, 0, contains=["integer", np.dtype(dt).name])
    raises(TypeError, shmem.atomic_xor, f, 1, 0, contains=["bitwise"])
small = shmem.zeros(1, np.int8)
raises(TypeError, shmem.atomic_inc, small, 0, contains=["int8"])
raises(ValueError, shmem.atomic_add, i32, 1 << 40, 0, contains=[str(1 << 40), "int32"])
raises(ValueError, shmem.atomic_set, bits, -1, 0, contains=["-1", "uint64"])
raises(interlace.ArgumentError, shmem.atomic_inc, i32, n + 3, contains=[f"PE {n + 3}"])
raises(interlace.ArgumentError, shmem.atomic_inc, np.zeros(1, np.int32), 0, contains=["not symmetric"])
shmem.barrier_all()
ok("atomics")
shmem.finalize()
