"""2D Jacobi 4-point stencil, SPMD on PX x PY ranks, halos through streaming channels
(SMI §5.4.2): every time step each rank opens a send and a receive channel per
existing neighbour (one port per direction of travel); ranks on the grid's edge use
the fixed boundary instead. Rank 0 prints the largest difference from a single-rank
NumPy run.

    interlace run -n 4 python examples/python/stencil.py [NX NY T PX PY]
ends with "max error 0: OK" (exit status 1 on FAILED).
"""
import math
import sys
import time

import numpy as np

import interlace
from interlace.stream import RecvChannel, SendChannel

EAST, WEST, SOUTH, NORTH, RESULT = 1, 2, 3, 4, 5  # direction the data travels
TOP = np.float32(1.0)  # boundary value above the grid; 0 on the other sides


def initial(nx, ny):
    i, j = np.indices((nx, ny))
    return (((i * 3 + j * 5) % 7) / 7).astype(np.float32)


def jacobi(p):
    """One update of the interior of a padded array (same order as the C example)."""
    return np.float32(0.25) * ((p[:-2, 1:-1] + p[2:, 1:-1]) + (p[1:-1, :-2] + p[1:-1, 2:]))


def reference(nx, ny, steps):
    p = np.zeros((nx + 2, ny + 2), np.float32)
    p[0, 1:-1] = TOP
    p[1:-1, 1:-1] = initial(nx, ny)
    for _ in range(steps):
        p[1:-1, 1:-1] = jacobi(p)
    return p[1:-1, 1:-1]


def main():
    comm = interlace.init()
    rank, size = comm.rank, comm.size
    args = [int(a) for a in sys.argv[1:]]
    nx, ny, steps = (args + [256, 256, 50][len(args):])[:3]
    px = max(d for d in range(1, math.isqrt(size) + 1) if size % d == 0)
    px, py = (args[3:5] + [px, size // px][len(args[3:5]):])[:2]
    if px * py != size or nx % px or ny % py:
        raise SystemExit(f"stencil.py: PX x PY = {px} x {py} must equal the {size} ranks "
                         f"and divide the {nx} x {ny} grid")
    bx, by, rx, ry = nx // px, ny // py, rank // py, rank % py
    # Neighbour ranks and the ports their halos arrive on (None: grid edge).
    nbr = {"n": (rank - py, SOUTH, NORTH) if rx > 0 else None,
           "s": (rank + py, NORTH, SOUTH) if rx < px - 1 else None,
           "w": (rank - 1, EAST, WEST) if ry > 0 else None,
           "e": (rank + 1, WEST, EAST) if ry < py - 1 else None}
    p = np.zeros((bx + 2, by + 2), np.float32)
    p[1:-1, 1:-1] = initial(nx, ny)[rx * bx:(rx + 1) * bx, ry * by:(ry + 1) * by]
    if rx == 0:
        p[0, 1:-1] = TOP
    edges = {"n": lambda: p[1, 1:-1], "s": lambda: p[-2, 1:-1],
             "w": lambda: p[1:-1, 1], "e": lambda: p[1:-1, -2]}
    halos = {"n": (0, slice(1, -1)), "s": (-1, slice(1, -1)),
             "w": (slice(1, -1), 0), "e": (slice(1, -1), -1)}

    t0 = time.perf_counter()
    for _ in range(steps):
        for d, info in nbr.items():  # degree = count: eager, so pushing first is safe
            if info:
                edge = np.ascontiguousarray(edges[d]())
                SendChannel(comm, info[0], info[2], edge.size, "float32", degree=edge.size).push_n(edge)
        for d, info in nbr.items():
            if info:
                count = by if d in "ns" else bx
                p[halos[d]] = RecvChannel(comm, info[0], info[1], count, "float32", degree=count).pop_n(count)
        p[1:-1, 1:-1] = jacobi(p)
    elapsed = time.perf_counter() - t0

    ref = reference(nx, ny, steps)[rx * bx:(rx + 1) * bx, ry * by:(ry + 1) * by]
    err = float(np.max(np.abs(p[1:-1, 1:-1] - ref)))
    if rank:
        SendChannel(comm, 0, RESULT, 2, "float64").push_n(np.array([err, elapsed]))
        return
    for r in range(1, size):
        e, t = RecvChannel(comm, r, RESULT, 2, "float64").pop_n(2)
        err, elapsed = max(err, e), max(elapsed, t)
    ok = err <= 1e-5
    print(f"stencil.py {nx}x{ny}, {steps} steps on {px}x{py} ranks: {elapsed * 1e3:.1f} ms; "
          f"max error {err:.3g}: {'OK' if ok else 'FAILED'}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
