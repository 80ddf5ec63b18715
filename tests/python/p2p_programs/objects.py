"""Lowercase (pickle) methods: send/recv with wildcards, large objects,
isend/irecv with waitall and test, irecv matching in posting order, the
buffered send that a lazily matched irecv relies on, sendrecv."""
import numpy as np

import interlace
from common import barrier, ok

comm = interlace.init()
rank, size = comm.rank, comm.size
right, left = (rank + 1) % size, (rank - 1) % size
ANY_SOURCE, ANY_TAG = interlace.ANY_SOURCE, interlace.ANY_TAG

payload = {"rank": rank, "list": list(range(rank + 3)), "text": "é" * rank, "none": None}
if rank == 0:
    got = {}
    for _ in range(size - 1):
        st = interlace.Status()
        obj = comm.recv(source=ANY_SOURCE, tag=ANY_TAG, status=st)
        assert st.source == obj["rank"] and st.tag == 7 and st.count > 0
        got[st.source] = obj
    assert sorted(got) == list(range(1, size))
else:
    comm.send(payload, 0, tag=7)
barrier(comm)  # rank 0's wildcards must not meet the next section's messages
ok(comm, "send")

# Objects above the eager limit (rendezvous underneath).
arr = np.arange(1 << 18, dtype=np.float64) * (rank + 1)
obj = comm.sendrecv(("big", arr), dest=right, sendtag=8, source=left, recvtag=8)
assert obj[0] == "big" and np.array_equal(obj[1], np.arange(1 << 18) * (left + 1.0))
ok(comm, "large")

# isend/irecv: every rank sends to every rank, itself included.
rreqs = [comm.irecv(source=p, tag=9) for p in range(size)]
sreqs = [comm.isend((rank, p, "x" * (p * 5000)), p, 9) for p in range(size)]
results = interlace.waitall(rreqs + sreqs)
for p in range(size):
    assert results[p] == (p, rank, "x" * (rank * 5000)), results[p]
assert results[size:] == [None] * size
ok(comm, "waitall")

# Two irecvs for the same (source, tag) are matched in posting order even if
# the later one is waited on first; test() reports (flag, object).
if size > 1:
    if rank == 1:
        comm.send("first", 0, 10)
        comm.send("second", 0, 10)
    elif rank == 0:
        a = comm.irecv(source=1, tag=10)
        b = comm.irecv(source=1, tag=10)
        assert b.wait() == "second"
        flag, obj = a.test()
        assert flag and obj == "first", (flag, obj)
        assert a.wait() == "first"  # repeatable after completion
ok(comm, "order")

# A pending irecv does not block its sender: rank 1's big send returns before
# rank 0 waits for it, so the buffer message behind it can be received first.
if size > 1:
    if rank == 1:
        comm.send(np.ones(1 << 19), 0, 11)
        comm.Send(np.array([42], np.int32), 0, 12)
    elif rank == 0:
        r = comm.irecv(source=1, tag=11)
        x = np.zeros(1, np.int32)
        comm.Recv(x, 1, 12)
        assert x[0] == 42 and r.wait().sum() == 1 << 19
ok(comm, "buffered")

# Waitany over object receives; PROC_NULL peers.
if rank == 0:
    reqs = [comm.irecv(source=p, tag=13) for p in range(1, size)]
    seen = set()
    for _ in range(size - 1):
        i = interlace.Request.Waitany(reqs)
        seen.add(reqs[i].wait())
    assert seen == {f"from {p}" for p in range(1, size)}
    assert interlace.Request.Waitany(reqs) == interlace.UNDEFINED
else:
    comm.ssend(f"from {rank}", 0, 13)
comm.send("nobody", interlace.PROC_NULL)
st = interlace.Status()
assert comm.recv(source=interlace.PROC_NULL, status=st) is None
assert st.source == interlace.PROC_NULL
barrier(comm)
ok(comm, "objects")
