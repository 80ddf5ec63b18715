"""Teams and collectives on symmetric arrays, checked against NumPy: the world
team, split_strided (even PEs), split_2d, translate_pe; broadcast, collect,
fcollect, alltoall and reduce with every op, on the world and on a split team."""
import numpy as np

import interlace
from interlace import shmem
from common import ok, raises

shmem.init()
me, n = shmem.my_pe(), shmem.n_pes()
W = shmem.TEAM_WORLD
assert (W.my_pe(), W.n_pes()) == (me, n) and W.translate_pe(me) == me
assert shmem.TEAM_SHARED.n_pes() == n  # one host

evens = W.split_strided(0, 2, (n + 1) // 2)
odds = W.split_strided(1, 2, n // 2) if n > 1 else shmem.TEAM_INVALID
if me % 2 == 0:
    assert (evens.my_pe(), evens.n_pes()) == (me // 2, (n + 1) // 2)
    assert [evens.translate_pe(k) for k in range(evens.n_pes())] == list(range(0, n, 2))
    assert W.translate_pe(me, evens) == me // 2
else:
    assert not evens and evens.my_pe() == -1 and evens is shmem.TEAM_INVALID
    assert W.translate_pe(me, odds) == me // 2 and odds.translate_pe(me // 2) == me
xt, yt = W.split_2d(2)
assert (xt.my_pe(), yt.my_pe()) == (me % 2, me // 2), (xt, yt)
raises(interlace.ArgumentError, W.split_strided, 0, 1, n + 1, contains=[f"size {n + 1}", f"{n} PEs"])
ok("teams")


def check_collectives(team, tn, tag):
    """Allocations are collective over the world, so every PE makes them (with the
    team's size tn); only the team's members run its collectives."""
    member = bool(team)
    tme = max(team.my_pe(), 0)
    src = shmem.array(np.arange(5, dtype=np.int64) + tme * 10)
    dst = shmem.zeros(5 * tn, np.int64)
    var = shmem.zeros(tn * (tn + 1) // 2, np.int64)
    a2a_src = shmem.array(np.arange(2 * tn, dtype=np.int32) + tme * 100)
    a2a_dst = shmem.zeros(2 * tn, np.int32)
    bsrc = shmem.array(np.full(6, tme + 0.5))
    bdst = shmem.zeros(6)
    rows = [np.array([p + 1, 3 * p + 2, p ^ 5, 7], np.int64) for p in range(tn)]
    rsrc = shmem.array(rows[tme])
    rdst = shmem.zeros(4, np.int64)
    fsrc = shmem.array(np.linspace(0, 1, 8) + tme)
    if member:
        shmem.fcollect(dst, src, team=team)
        assert (dst == np.concatenate([np.arange(5) + p * 10 for p in range(tn)])).all(), (tag, dst)
        shmem.collect(var, src, size=tme + 1, team=team)
        assert (var == np.concatenate([np.arange(p + 1) + p * 10 for p in range(tn)])).all(), (tag, var)
        shmem.alltoall(a2a_dst, a2a_src, team=team)
        want = np.concatenate([np.arange(2 * tme, 2 * tme + 2) + p * 100 for p in range(tn)])
        assert (a2a_dst == want).all(), (tag, a2a_dst)
        root = tn - 1
        shmem.broadcast(bdst, bsrc, root, team=team)
        assert (bdst == root + 0.5).all(), (tag, bdst)
        for op, fold in ((shmem.OP.SUM, np.add), (shmem.OP.PROD, np.multiply),
                         (shmem.OP.MIN, np.minimum), (shmem.OP.MAX, np.maximum),
                         (shmem.OP.AND, np.bitwise_and), ("or", np.bitwise_or), ("xor", np.bitwise_xor)):
            shmem.reduce(rdst, rsrc, op, team=team)
            assert (rdst == fold.reduce(rows)).all(), (tag, op, rdst)
        shmem.reduce(fsrc, fsrc, "max", team=team)  # in place
        assert np.allclose(fsrc, np.linspace(0, 1, 8) + tn - 1), (tag, fsrc)
        team.sync()
    for arr in (fsrc, rdst, rsrc, bdst, bsrc, a2a_dst, a2a_src, var, dst, src):
        shmem.free(arr)


check_collectives(W, n, "world")
ok("world")
check_collectives(evens, (n + 1) // 2, "evens")
ok("coll")
shmem.finalize()
