"""Communicators: Dup and Split isolate traffic, Split orders by key and
opts out with UNDEFINED, Free ends a communicator."""
import numpy as np

import interlace
from common import barrier, ok

world = interlace.init()
rank, size = world.rank, world.size

# The same (source, tag) on world and on a duplicate never cross.
dup = world.Dup()
assert dup.size == size and dup.rank == rank and dup != world and dup.id != world.id
right, left = (rank + 1) % size, (rank - 1) % size
world.send("world", right, 1)
dup.send("dup", right, 1)
assert dup.recv(source=left, tag=1) == "dup"
assert not dup.Iprobe(interlace.ANY_SOURCE, 1)
assert world.recv(source=left, tag=1) == "world"
ok(world, "dup")

# Split by parity; key reverses the order inside each half.
half = world.Split(color=rank % 2, key=-rank)
members = [r for r in range(size) if r % 2 == rank % 2]
assert half.size == len(members)
assert half.rank == sorted(members, reverse=True).index(rank)
assert [half.world_rank_of(i) for i in range(half.size)] == sorted(members, reverse=True)
token = half.sendrecv(rank, (half.rank + 1) % half.size, 5,
                      source=(half.rank - 1) % half.size, recvtag=5)
assert token == half.world_rank_of((half.rank - 1) % half.size)
got = np.zeros(1, np.int64)
half.Sendrecv(np.array([rank], np.int64), (half.rank + 1) % half.size, 6, got,
              interlace.ANY_SOURCE, 6)
assert got[0] % 2 == rank % 2  # only same-parity ranks can be heard
ok(world, "split")

# UNDEFINED opts out: that rank gets COMM_NULL (falsy, equal to COMM_NULL).
sub = world.Split(interlace.UNDEFINED if rank == 0 else 1, rank)
if rank == 0:
    assert not sub and sub == interlace.COMM_NULL and sub.is_null
else:
    assert sub and sub.size == size - 1 and sub.rank == rank - 1
    sub.Free()
    assert not sub
ok(world, "undefined")

dup.Free()
try:
    dup.Send(b"x", 0)
except interlace.Error as e:
    assert e.code == interlace.ErrorCode.invalid_comm, e.code
else:
    raise AssertionError("send on a freed communicator did not raise")
half.Free()
barrier(world)
ok(world, "comms")
