"""Python streaming channels on any number of ranks: scalars of every type, NumPy
bulk transfers, degrees, flush, self channels, a ring, and errors naming values.
Prints 'OK <section> rank <r>' per passed section."""
import sys

import numpy as np

import interlace
from interlace.stream import DEFAULT_DEGREE_BYTES, RecvChannel, SendChannel

comm = interlace.init()
rank, size = comm.rank, comm.size
nxt, prv = (rank + 1) % size, (rank - 1) % size


def ok(section):
    print(f"OK {section} rank {rank}", flush=True)


def expect(exc, words, fn):
    try:
        fn()
    except exc as e:
        for w in words:
            assert w in str(e), (w, str(e))
        return
    raise AssertionError(f"{fn} did not raise {exc.__name__}")


# Scalars of every type through a self channel (works on one rank too).
SCALARS = {"int8": [-128, 127], "int16": [-3, 30000], "int32": [2**31 - 1, -5], "int64": [-2**63, 7],
           "uint8": [0, 255], "uint16": [65535, 1], "uint32": [2**32 - 1, 0], "uint64": [2**64 - 1, 3],
           "float16": [0.5, -1024.0], "bfloat16": [1.0, -2.5], "float32": [0.25, 2.0**100],
           "float64": [1e-300, -3.5], "bytes": [0, 200]}
for port, (dt, vals) in enumerate(SCALARS.items()):
    s = SendChannel(comm, rank, port, len(vals), dt)
    r = RecvChannel(comm, rank, port, len(vals), dt)
    for v in vals:
        s.push(v)
    got = [r.pop() for _ in vals]
    assert got == vals, (dt, got, vals)
    assert s.closed and r.closed and r.remaining == 0
ok("scalars")

# NumPy bulk around a ring, element-wise and bulk mixed, several degrees.
for n, degree in [(1, None), (1000, 1), (100000, None), (100000, 64), (300000, 300000)]:
    a = (np.arange(n, dtype=np.int64) * (rank + 1)).astype(np.float32)
    s = SendChannel(comm, nxt, 100, n, np.float32, degree=degree)
    r = RecvChannel(comm, prv, 100, n, "float32", degree=degree)
    assert s.eager == ((degree or DEFAULT_DEGREE_BYTES // 4) >= n)
    half = n // 2
    out = np.empty(n, np.float32)
    # Alternate pushes and pops so credit-based channels also complete on a ring.
    step = max(1, min(n, 4096, degree or 4096) // 2)
    done_s = done_r = 0
    while done_r < n:
        if done_s < n:
            k = min(step, n - done_s)
            if done_s < half:
                s.push_n(a[done_s:done_s + k])
            else:
                for v in a[done_s:done_s + k]:
                    s.push(v)
            done_s += k
        k = min(step, done_s - done_r)
        r.pop_n(out=out[done_r:done_r + k])
        done_r += k
    want = (np.arange(n, dtype=np.int64) * (prv + 1)).astype(np.float32)
    assert np.array_equal(out, want), (n, degree)
ok("ring")

# flush: a partial packet reaches the peer before the count is reached.
if size >= 2 and rank < 2:
    peer = 1 - rank
    if rank == 0:
        s = SendChannel(comm, peer, 200, 10, "int32", degree=10)
        s.push(7)
        s.flush()
        back = RecvChannel(comm, peer, 201, 1, "int32")
        assert back.pop() == 7
        for v in range(9):
            s.push(v)
    else:
        r = RecvChannel(comm, peer, 200, 10, "int32", degree=10)
        v = r.pop()
        SendChannel(comm, peer, 201, 1, "int32").push(v)
        assert list(r.pop_n(9)) == list(range(9))
ok("flush")

# Errors name the bad values.
expect(ValueError, ["count -1"], lambda: SendChannel(comm, rank, 0, -1, "int32"))
expect(ValueError, ["degree -3"], lambda: SendChannel(comm, rank, 0, 1, "int32", degree=-3))
expect(interlace.Error, [str(size + 3)], lambda: SendChannel(comm, size + 3, 0, 1, "int32"))
expect(interlace.Error, ["port -2"], lambda: RecvChannel(comm, rank, -2, 1, "int32"))
expect(ValueError, ["int33"], lambda: RecvChannel(comm, rank, 0, 1, "int33"))
s = SendChannel(comm, rank, 300, 2, "uint8")
expect(ValueError, ["300", "uint8"], lambda: s.push(300))
expect(TypeError, ["float64", "uint8"], lambda: s.push_n(np.zeros(2)))
s.push_n(np.array([1, 2], np.uint8))
expect(interlace.Error, ["closed"], lambda: s.push(1))
r = RecvChannel(comm, rank, 300, 2, "uint8")
assert list(r.pop_n()) == [1, 2]
expect(interlace.Error, ["closed"], lambda: r.pop())
# Type mismatch between the ends, named on both sides' terms.
s = SendChannel(comm, rank, 301, 1, "int32")
s.push(5)
r = RecvChannel(comm, rank, 301, 1, "float32")
expect(interlace.Error, ["int32", "float32"], lambda: r.pop())
ok("errors")
sys.stdout.flush()
