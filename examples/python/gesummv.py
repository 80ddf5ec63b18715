"""GESUMMV (y = alpha*A*x + beta*B*x) on 2 ranks with streaming channels (SMI Fig. 12):
rank 0 computes alpha*A*x and streams it to rank 1 block by block while rank 1 computes
beta*B*x and adds each arriving block. Checked against a single-rank computation.

    interlace run -n 2 python examples/python/gesummv.py [N]
ends with "max error 0: OK" (exit status 1 on FAILED).
"""
import sys
import time

import numpy as np

import interlace
from interlace.stream import RecvChannel, SendChannel

ALPHA, BETA, PORT, ROWS = np.float32(1.5), np.float32(-0.75), 0, 64


def inputs(n):
    # Multiples of 1/8 with small sums: float32 results are exact, so 0 error is expected.
    i, j = np.indices((n, n))
    a = (((i * 7 + j * 3) % 11 - 5) / 8).astype(np.float32)
    b = (((i * 5 + j * 13) % 9 - 4) / 8).astype(np.float32)
    x = ((np.arange(n) % 7 - 3) / 8).astype(np.float32)
    return a, b, x


def main():
    comm = interlace.init()
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2048
    if comm.size != 2:
        raise SystemExit(f"gesummv.py needs 2 ranks, got {comm.size}")
    a, b, x = inputs(n)
    if comm.rank == 0:
        ch = SendChannel(comm, 1, PORT, n, "float32")
        for r in range(0, n, ROWS):  # one GEMV block of rows per push_n
            ch.push_n(ALPHA * (a[r:r + ROWS] @ x))
        return
    t0 = time.perf_counter()
    ch = RecvChannel(comm, 0, PORT, n, "float32")
    y = np.empty(n, np.float32)
    for r in range(0, n, ROWS):
        bx = BETA * (b[r:r + ROWS] @ x)
        y[r:r + ROWS] = ch.pop_n(len(bx)) + bx  # AXPY as the elements arrive
    t = time.perf_counter() - t0
    ref = ALPHA * (a @ x) + BETA * (b @ x)
    err = float(np.max(np.abs(y - ref))) if n else 0.0
    ok = err <= 1e-4
    print(f"gesummv.py N={n}: {t * 1e3:.2f} ms; max error {err:.3g}: {'OK' if ok else 'FAILED'}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
