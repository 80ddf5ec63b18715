"""Python streaming collectives on any number of ranks: bcast, reduce, scatter and
gather with every root, ints and floats, a bcast and a reduce interleaved on two
ports, and back-to-back collectives on one port. Prints 'OK <section> rank <r>'."""
import interlace
from interlace.stream import BcastChannel, GatherChannel, ReduceChannel, ScatterChannel

comm = interlace.init()
rank, size = comm.rank, comm.size


def ok(section):
    print(f"OK {section} rank {rank}", flush=True)


def val(r, i):
    return i * 5 + r * 1000 - 7


def bcast(n, root, port, dtype="int64", degree=None):
    ch = BcastChannel(comm, n, dtype, port, root, degree)
    got = [ch.bcast(val(root, i) if rank == root else None) for i in range(n)]
    assert got == [val(root, i) for i in range(n)], (root, got[:5])


def reduce(n, root, port, op, tile=None):
    ch = ReduceChannel(comm, n, "int32", op, port, root, tile)
    fn = {"sum": sum, "max": max, "min": min}[op]
    for i in range(n):
        y = ch.reduce(val(rank, i))
        if rank == root:
            assert y == fn(val(r, i) for r in range(size)), (op, root, i, y)
        else:
            assert y is None


def scatter(n, root, port):
    ch = ScatterChannel(comm, n, "int64", port, root, 4)
    calls = n * size if rank == root else n
    got = [ch.scatter(val(j // n, j % n) if rank == root else None) for j in range(calls)]
    got = [g for g in got if g is not None]
    assert got == [val(rank, i) for i in range(n)], (root, got[:5])


def gather(n, root, port):
    ch = GatherChannel(comm, n, "int64", port, root, 4)
    if rank != root:
        for i in range(n):
            assert ch.gather(val(rank, i)) is None
        return
    got = [ch.gather(val(rank, j % n) if j // n == root else None) for j in range(n * size)]
    assert got == [val(j // n, j % n) for j in range(n * size)], (root, got[:5])


for root in range(size):
    bcast(300, root, 1)
    bcast(300, root, 1, degree=3)
    reduce(300, root, 2, "sum", tile=7)
    reduce(100, root, 2, "max")
    reduce(100, root, 2, "min")
    scatter(100, root, 3)
    gather(100, root, 4)
ok("roots")

f = BcastChannel(comm, 3, "float32", 5, 0)
assert [f.bcast(1.5 * i if rank == 0 else None) for i in range(3)] == [0.0, 1.5, 3.0]
r = ReduceChannel(comm, 2, "float64", interlace.SUM, 5, size - 1)
y = [r.reduce(0.25 * (rank + 1)) for _ in range(2)]
if rank == size - 1:
    assert y == [0.25 * size * (size + 1) / 2] * 2, y
ok("floats")

b = BcastChannel(comm, 200, "int32", 10, 0, 2)
s = ReduceChannel(comm, 200, "int32", "sum", 11, size - 1, 2)
for i in range(200):
    x = b.bcast(i if rank == 0 else None)
    t = s.reduce(x)
    if rank == size - 1:
        assert t == size * i, (i, t)
ok("two ports")

for rnd in range(10):
    bcast(5 + rnd, rnd % size, 20)
    reduce(5 + rnd, (rnd + 1) % size, 20, "sum")
    scatter(5 + rnd, rnd % size, 20)
    gather(5 + rnd, (rnd + 1) % size, 20)
ok("one port")

try:
    BcastChannel(comm, 1, "int32", 0, size)
except interlace.Error as e:
    assert f"root {size}" in str(e), str(e)
else:
    raise AssertionError("a root out of range was accepted")
ok("errors")
import sys
sys.stdout.flush()
