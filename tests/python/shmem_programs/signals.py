"""put_signal: who sees the signal sees the data (large puts, SIGNAL_ADD and
SIGNAL_SET); wait_until wakes on a peer's put while the waiter's GIL is released
(a Python thread runs meanwhile); test before and after."""
import threading
import time

import numpy as np

from interlace import shmem
from common import ok

shmem.init()
me, n = shmem.my_pe(), shmem.n_pes()
right, left = (me + 1) % n, (me - 1) % n
N = 1 << 16

data = shmem.zeros(N, np.int64)
sig = shmem.zeros(1, np.uint64)
for r in range(1, 11):
    shmem.put_signal(data, np.full(N, r * 1000 + me, np.int64), right, sig, 1, shmem.SIGNAL_ADD)
    assert shmem.signal_wait_until(sig, shmem.CMP_GE, r) == r
    assert data[0] == r * 1000 + left and data[-1] == r * 1000 + left, (r, data[0], data[-1])
    shmem.barrier_all()  # nobody overwrites data before its owner checked it
for r in (5, 9):
    shmem.put_signal_nbi(data[:8], np.full(8, -r, np.int64), right, sig, r, shmem.SIGNAL_SET)
    shmem.quiet()
    shmem.signal_wait_until(sig, "==", r)
    assert (data[:8] == -r).all() and shmem.signal_fetch(sig) == r, data[:8]
    shmem.barrier_all()
ok("signal")

ivar = shmem.zeros(1, np.int32)
ticks = []
stop = threading.Event()


def ticker():
    while not stop.is_set():
        ticks.append(1)
        time.sleep(0.01)


shmem.barrier_all()
if me == 0:
    time.sleep(1.0)
    for pe in range(1, n):
        shmem.p(ivar, 7, pe)
    shmem.quiet()
else:
    assert not shmem.test(ivar, shmem.CMP.EQ, 7)
    t = threading.Thread(target=ticker)
    t.start()
    before, t0 = len(ticks), time.monotonic()
    shmem.wait_until(ivar, shmem.CMP.EQ, 7)
    waited, during = time.monotonic() - t0, len(ticks) - before
    stop.set()
    t.join()
    assert ivar[0] == 7 and shmem.test(ivar, "eq", 7)
    # Only a wait that lasted can show it: then the GIL must have been free.
    assert waited < 0.2 or during > 0, f"no Python thread ran during a {waited:.2f} s wait_until"
shmem.barrier_all()
ok("wait")
shmem.finalize()
