"""PGAS: NumPy arrays in the symmetric heap, written one-sidedly by other PEs."""
import numpy as np

from interlace import shmem

TITLE = "PGAS: one-sided put and atomics on NumPy arrays in the symmetric heap (interlace.shmem)"


def run(comm):
    shmem.init()  # attaches to the runtime that `comm` belongs to
    me, n = shmem.my_pe(), shmem.n_pes()
    # Each PE writes straight into its right neighbour's array: nobody receives.
    ring = shmem.zeros(4, dtype=np.int64)
    shmem.put(ring, np.full(4, me, dtype=np.int64), (me + 1) % n)
    shmem.barrier_all()
    assert (ring == (me - 1) % n).all(), ring
    sums = shmem.zeros(4, dtype=np.int64)
    shmem.reduce(sums, ring, shmem.OP.SUM)  # a team collective, on the collective engine
    # One counter on PE 0 that every PE increments, without PE 0 taking part.
    counter = shmem.zeros(1, dtype=np.int64)
    for _ in range(100):
        shmem.atomic_inc(counter, 0)
    shmem.barrier_all()
    total = shmem.atomic_fetch(counter, 0)
    assert total == 100 * n, total
    lines = [f"put ring of 4 int64 into the right neighbour's heap, reduce SUM over {n} PEs: {sums.tolist()}",
             f"atomic_inc x 100 from each of {n} PEs on a counter of PE 0: {total}"]
    for a in (counter, sums, ring):
        shmem.free(a)
    shmem.finalize()
    return lines if me == 0 else []
