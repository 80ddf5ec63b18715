"""A streaming pipeline of SMI channels: every rank is one stage."""
import numpy as np

import interlace
from interlace import stream

TITLE = "channels: a streaming pipeline (interlace.stream, SMI)"

COUNT = 10000


def run(comm):
    n, me = comm.size, comm.rank
    # Rank 0 produces 0..COUNT-1; every rank in between adds 1 to each element as
    # it streams past; the last rank sums what arrives. Elements flow while later ones
    # are still being produced: a sender runs at most `degree` elements ahead.
    lines = []
    if n == 1:
        total = int(np.arange(COUNT, dtype=np.int64).sum())
    else:
        out = stream.SendChannel(comm, dest=me + 1, port=0, count=COUNT, dtype="int64") \
            if me < n - 1 else None
        inp = stream.RecvChannel(comm, source=me - 1, port=0, count=COUNT, dtype="int64") \
            if me > 0 else None
        if me == 0:
            out.push_n(np.arange(COUNT, dtype=np.int64))
        elif out is not None:
            for _ in range(COUNT):
                out.push(inp.pop() + 1)
        else:
            total = int(inp.pop_n().sum())
        if me == n - 1:
            comm.send(total, dest=0, tag=2)
        if me == 0:
            total = comm.recv(source=n - 1, tag=2)
    expect = COUNT * (COUNT - 1) // 2 + COUNT * max(n - 2, 0)
    # A streaming collective: every rank contributes one element per step; the root
    # gets the running reduction element by element.
    red = stream.ReduceChannel(comm, count=4, dtype="int32", op=interlace.SUM, port=0, root=0)
    sums = [red.reduce(me * 10 + i) for i in range(4)]
    if me == 0:
        assert total == expect, (total, expect)
        lines.append(f"{COUNT} int64 streamed through " + " -> ".join(f"rank {r}" for r in range(n))
                     + f", +1 at each rank in between: sum {total} (expected {expect})")
        lines.append(f"ReduceChannel SUM over {n} ranks, element by element: {sums}")
    return lines
