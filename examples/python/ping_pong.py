"""Rank 0 and rank 1 bounce a NumPy buffer of growing size and report the
round-trip time and bandwidth; other ranks sit out. The payload is checked on
every bounce.

    interlace run -n 4 python examples/python/ping_pong.py
ends with "ping_pong: OK".
"""
import time

import numpy as np

import interlace

comm = interlace.init()
rank = comm.rank
if comm.size < 2:
    raise SystemExit("ping_pong needs at least 2 ranks")

if rank < 2:
    peer = 1 - rank
    if rank == 0:
        print(f"{'bytes':>10} {'round trip us':>14} {'MB/s':>10}")
    for nbytes in [8, 1024, 64 * 1024, 1 << 20, 16 << 20]:
        reps = 200 if nbytes <= 65536 else 10
        buf = np.arange(nbytes, dtype=np.uint8)  # wraps every 256: a checkable pattern
        back = np.empty_like(buf)
        t0 = time.perf_counter()
        for _ in range(reps):
            if rank == 0:
                comm.Send(buf, peer, tag=1)
                comm.Recv(back, peer, tag=2)
            else:
                comm.Recv(back, peer, tag=1)
                comm.Send(back, peer, tag=2)
        dt = (time.perf_counter() - t0) / reps
        assert np.array_equal(back, buf)
        if rank == 0:
            print(f"{nbytes:>10} {dt * 1e6:>14.1f} {2 * nbytes / dt / 1e6:>10.1f}")
    if rank == 0:
        print("ping_pong: OK")
