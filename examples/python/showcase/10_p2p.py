"""Point-to-point messaging: objects and NumPy buffers between ranks."""
import numpy as np

import interlace

TITLE = "p2p: point-to-point messages (interlace.Comm, mpi4py names)"


def run(comm):
    n, me = comm.size, comm.rank
    right, left = (me + 1) % n, (me - 1) % n
    # Objects: every rank passes a token to its right neighbour.
    got = comm.sendrecv(f"token {me}", dest=right, source=left)
    assert got == f"token {left}", got
    tokens = comm.gather(got)

    # Buffers: 1 MiB of float64 from every rank to rank 0, received in place (no copy).
    block = np.arange(1 << 17, dtype=np.float64) + me
    firsts = []
    if me == 0:
        buf = np.empty_like(block)
        for _ in range(n - 1):
            st = interlace.Status()
            comm.Recv(buf, source=interlace.ANY_SOURCE, tag=1, status=st)
            assert buf[12345] == 12345 + st.source and st.count == block.nbytes, st
            firsts.append(int(buf[0]))
    else:
        comm.Send(block, dest=0, tag=1)

    # Communicators: split into even and odd ranks; each half sums its world ranks.
    half = comm.Split(color=me % 2, key=me)
    sums = comm.gather((me % 2, half.size, half.allreduce(me)))
    half.Free()
    if me != 0:
        return []
    return [
        f"sendrecv ring of objects: rank r got {tokens[0]!r} ... {tokens[-1]!r}",
        f"Send/Recv 1 MiB float64 arrays to rank 0 from ranks {sorted(firsts)}",
        "Split even/odd: " + ", ".join(f"color {c}: {s} ranks, sum of world ranks {t}"
                                       for c, s, t in sorted(set(sums))),
    ]
