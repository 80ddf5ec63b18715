"""Collectives: the engine picks an algorithm per call; it can also be forced."""
import numpy as np

import interlace

TITLE = "collectives: algorithms chosen per call (Comm.Allreduce, Ibcast, ...)"

SMALL, LARGE = 8, 1 << 17  # float64 elements: 64 B and 1 MiB


def run(comm):
    n, me = comm.size, comm.rank
    lines = []
    # The I-forms return a request whose .algorithm says what the selection picked
    # for this size and communicator (the table in docs/collectives.md).
    for count in (SMALL, LARGE):
        send = np.full(count, me + 1, dtype=np.float64)
        recv = np.empty_like(send)
        req = comm.Iallreduce(send, recv, interlace.SUM)
        req.wait()
        assert (recv == n * (n + 1) / 2).all(), recv[:4]
        lines.append(f"Iallreduce SUM of {send.nbytes} B per rank: {recv[0]:g} everywhere, "
                     f"algorithm {req.algorithm}")
    # Forcing an algorithm by name (any from `interlace info --collectives`).
    buf = np.arange(SMALL, dtype=np.int32) if me == 0 else np.zeros(SMALL, dtype=np.int32)
    req = comm.Ibcast(buf, root=0, algorithm="binomial")
    req.wait()
    assert (buf == np.arange(SMALL)).all(), buf
    lines.append(f"Ibcast of {buf.nbytes} B from rank 0, forced algorithm {req.algorithm}: "
                 f"{buf.tolist()}")
    # Object collectives move pickles over the buffer ones.
    everyone = comm.allgather({"rank": me})
    lines.append(f"allgather of objects: {[d['rank'] for d in everyone]}")
    return lines if me == 0 else []
