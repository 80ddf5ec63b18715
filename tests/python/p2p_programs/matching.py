"""Matching: ANY_SOURCE/ANY_TAG with Status, Probe/Iprobe, non-overtaking
order, Isend/Irecv with Waitall/Waitany/Testall, a Sendrecv ring."""
import numpy as np

import interlace
from common import barrier, ok

comm = interlace.init()
rank, size = comm.rank, comm.size
ANY_SOURCE, ANY_TAG = interlace.ANY_SOURCE, interlace.ANY_TAG

# Wildcards: rank 0 learns sender and tag from the Status only.
if rank == 0:
    seen = set()
    for _ in range(size - 1):
        st = interlace.Status()
        got = np.zeros(2, np.int64)
        comm.Recv(got, ANY_SOURCE, ANY_TAG, st)
        assert st.Get_source() == got[0] and st.Get_tag() == 100 + got[0], (st, got)
        assert st.Get_count(interlace.INT64) == 2 and st.error == interlace.ErrorCode.ok
        seen.add(st.source)
    assert seen == set(range(1, size))
else:
    comm.Send(np.array([rank, rank * rank], np.int64), 0, 100 + rank)
barrier(comm)
ok(comm, "wildcard")

# Probe tells the size before receiving; Iprobe never blocks.
assert comm.Iprobe(ANY_SOURCE, 9999) is False
if rank == 0:
    for _ in range(size - 1):
        st = interlace.Status()
        assert comm.Probe(ANY_SOURCE, 200, st) is True
        n = st.Get_count(interlace.INT32)
        got = np.empty(n, np.int32)
        comm.Recv(got, st.source, 200)
        assert n == st.source * 1000 and (got == st.source).all()
else:
    comm.Send(np.full(rank * 1000, rank, np.int32), 0, 200)
    st = interlace.Status()
barrier(comm)
if rank == 1 % size:
    comm.Send(b"probe-me", 0, 201)
if rank == 0:
    st = interlace.Status()
    while not comm.Iprobe(ANY_SOURCE, 201, st):
        pass
    assert st.count == 8 and st.source == 1 % size
    buf = bytearray(8)
    comm.Recv(buf, st.source, 201)
    assert buf == b"probe-me"
ok(comm, "probe")

# Non-overtaking: one sender's messages arrive in sending order under ANY_TAG.
if size > 1:
    if rank == 1:
        reqs = [comm.Isend(np.array([i], np.int32), 0, i % 3) for i in range(200)]
        interlace.Request.Waitall(reqs)
    elif rank == 0:
        got = np.zeros(1, np.int32)
        for i in range(200):
            comm.Recv(got, 1, ANY_TAG)
            assert got[0] == i, (got[0], i)
ok(comm, "order")

# Every rank exchanges with every rank (itself included) through requests.
recv = {p: np.zeros(1000 + p, np.float64) for p in range(size)}
rreqs = [comm.Irecv(recv[p], p, 300) for p in range(size)]
sreqs = [comm.Isend(np.full(1000 + rank, rank + 0.5), p, 300) for p in range(size)]
statuses = []
assert interlace.Request.Waitall(rreqs + sreqs, statuses) is True
assert len(statuses) == 2 * size
for p in range(size):
    assert statuses[p].source == p and (recv[p] == p + 0.5).all()
    assert statuses[p].Get_count(interlace.FLOAT64) == 1000 + p
ok(comm, "waitall")

big = 1 << 18  # rendezvous-sized
if rank == 0:
    bufs = [np.zeros(big, np.int32) for _ in range(size)]
    reqs = [comm.Irecv(bufs[p], p, 400) for p in range(1, size)]
    done = set()
    st = interlace.Status()
    while True:
        i = interlace.Request.Waitany(reqs, st)
        if i == interlace.UNDEFINED:
            break
        assert i not in done and st.source == i + 1 and (bufs[i + 1] == i + 1).all()
        done.add(i)
    assert done == set(range(size - 1))
    assert interlace.Request.Testall(reqs) is True
else:
    comm.Send(np.full(big, rank, np.int32), 0, 400)
ok(comm, "waitany")

# Sendrecv around the ring, both directions.
right, left = (rank + 1) % size, (rank - 1) % size
got = np.zeros(3, np.int16)
st = interlace.Status()
comm.Sendrecv(np.array([rank] * 3, np.int16), right, 500, got, left, 500, st)
assert (got == left).all() and st.source == left and st.tag == 500
comm.Sendrecv(np.array([rank] * 3, np.int16), left, 501, got, right, ANY_TAG, st)
assert (got == right).all() and st.source == right and st.tag == 501
barrier(comm)
ok(comm, "matching")
