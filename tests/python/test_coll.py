"""Collectives: the C++ battery (tests/multiproc/coll_check.cpp) as real processes
under `interlace run`, and the Python API (buffer and object collectives, requests,
IN_PLACE, user ops, algorithm=, bad input) through a program run on 1-5 ranks."""
from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import REPO, launcher_env, run_interlace

BUILD = Path(os.environ.get("INTERLACE_BUILD_DIR", REPO / "build"))
CHECK = BUILD / "tests" / "multiproc" / "coll_check"


def _check_binary() -> Path:
    if not CHECK.exists():
        pytest.fail(f"{CHECK} is missing: build the C++ tree first (make build)")
    return CHECK


@pytest.mark.timeout(150)
@pytest.mark.parametrize("n,fabric,extra", [
    (1, "shm", ()), (2, "shm", ()), (3, "shm", ()), (5, "shm", ()), (8, "shm", ()),
    (3, "tcp", ()), (4, "tcp", ()), (3, "shm", ("--big",)), (2, "tcp", ("--big",)),
    (4, "udp", ()), (2, "udp", ("--big",)),
])
def test_cpp_battery(n, fabric, extra):
    r = run_interlace("run", "-n", n, "--fabric", fabric, "--timeout", 120, _check_binary(), *extra,
                      timeout=140)
    assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]
    assert f"coll_check OK on {n} ranks" in r.stdout


@pytest.mark.timeout(150)
def test_cpp_battery_progress_thread():
    r = run_interlace("run", "-n", 4, "--timeout", 120, _check_binary(), timeout=140,
                      env=launcher_env(INTERLACE_PROGRESS="thread"))
    assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]


PROGRAM = textwrap.dedent('''
    import sys
    import numpy as np
    import interlace
    from interlace import IN_PLACE, SUM, PROD, MIN, MAX, BAND, BOR, BXOR, LAND, LOR

    c = interlace.init()
    n, r = c.size, c.rank
    ok = lambda name: print(f"OK {name} rank {r}", flush=True)

    c.Barrier(); c.Barrier(algorithm="tree"); c.Ibarrier().wait()
    ok("barrier")

    for alg in interlace._core.coll_algorithms("bcast"):
        for root in range(n):
            a = np.arange(1000, dtype=np.float64) * (root + 1) if r == root else np.zeros(1000)
            c.Bcast(a, root=root, algorithm=alg)
            assert (a == np.arange(1000) * (root + 1)).all(), alg
    ok("bcast")

    x = np.full(77, r + 1, dtype=np.int64)
    for alg in interlace._core.coll_algorithms("allreduce"):
        y = np.zeros_like(x)
        c.Allreduce(x, y, op=SUM, algorithm=alg)
        assert (y == n * (n + 1) // 2).all(), (alg, y[:3])
    for op, want in [(PROD, np.prod(np.arange(1, n + 1))), (MIN, 1), (MAX, n),
                     (BAND, np.bitwise_and.reduce(np.arange(1, n + 1))),
                     (BOR, np.bitwise_or.reduce(np.arange(1, n + 1))),
                     (BXOR, np.bitwise_xor.reduce(np.arange(1, n + 1))), (LAND, 1), (LOR, 1)]:
        y = np.zeros_like(x)
        c.Allreduce(x, y, op=op)
        assert (y == want).all(), (op, y[:3], want)
    y = x.copy().astype(np.float32)
    c.Allreduce(IN_PLACE, y)
    assert (y == n * (n + 1) / 2).all()
    h = np.full(9, 0.5, dtype=np.float16); ho = np.zeros_like(h)
    c.Allreduce(h, ho)
    assert (ho == 0.5 * n).all()
    ok("allreduce")

    for root in range(n):
        out = np.zeros(5, np.int32) if r == root else None
        c.Reduce(np.full(5, r, np.int32), out, op=MAX, root=root)
        if r == root:
            assert (out == n - 1).all()
    req = c.Iallreduce(np.ones(100000), big := np.zeros(100000))
    req.wait()
    assert big[-1] == n and req.test()
    ok("reduce")

    g = np.zeros(3 * n, np.int16) if r == 0 else None
    c.Gather(np.full(3, r, np.int16), g, root=0)
    if r == 0:
        assert (g == np.repeat(np.arange(n), 3)).all()
    s = np.zeros(2, np.int32)
    c.Scatter(np.arange(2 * n, dtype=np.int32) if r == 0 else None, s, root=0)
    assert (s == [2 * r, 2 * r + 1]).all()
    ag = np.zeros(n, np.float64)
    c.Allgather(np.array([r * 1.5]), ag)
    assert (ag == np.arange(n) * 1.5).all()
    at = np.zeros(n, np.int32)
    c.Alltoall(np.arange(n, dtype=np.int32) + 10 * r, at)
    assert (at == np.arange(n) * 10 + r).all()
    ok("gather")

    counts = [i + 1 for i in range(n)]
    rs = np.zeros(counts[r], np.int32)
    c.Reduce_scatter(np.ones(sum(counts), np.int32), rs, recvcounts=counts)
    assert (rs == n).all()
    rb = np.zeros(2, np.int32)
    c.Reduce_scatter_block(np.ones(2 * n, np.int32), rb)
    assert (rb == n).all()
    sc = np.zeros(1, np.int64)
    c.Scan(np.array([r + 1]), sc)
    assert sc[0] == (r + 1) * (r + 2) // 2
    ex = np.zeros(1, np.int64)
    c.Exscan(np.array([r + 1]), ex)
    assert r == 0 or ex[0] == r * (r + 1) // 2
    ok("reduce_scatter")

    gv = np.zeros(sum(counts), np.int32)
    c.Allgatherv(np.full(counts[r], r, np.int32), [gv, counts])
    assert (gv == np.repeat(np.arange(n), counts)).all()
    gv2 = np.zeros(sum(counts), np.int32) if r == 1 % n else None
    c.Gatherv(np.full(counts[r], r, np.int32), [gv2, counts] if r == 1 % n else None, root=1 % n)
    if r == 1 % n:
        assert (gv2 == np.repeat(np.arange(n), counts)).all()
    sv = np.zeros(counts[r], np.int32)
    c.Scatterv([np.repeat(np.arange(n), counts).astype(np.int32), counts] if r == 0 else None, sv, root=0)
    assert (sv == r).all()
    # alltoallv: rank r sends j+1 elements of value r to rank j.
    scounts = [j + 1 for j in range(n)]
    rcounts = [r + 1] * n
    rv = np.zeros(sum(rcounts), np.int32)
    c.Alltoallv([np.repeat(np.full(n, r), scounts).astype(np.int32), scounts], [rv, rcounts])
    assert (rv == np.repeat(np.arange(n), r + 1)).all()
    ok("vector")

    # user ops: a ufunc, a callable, a non-commutative one (string-like concatenation in rank order)
    y = np.zeros(4)
    c.Allreduce(np.full(4, r + 1.0), y, op=np.maximum)
    assert (y == n).all()
    c.Allreduce(np.full(4, r + 1.0), y, op=lambda a, b: a + b)
    assert (y == n * (n + 1) / 2).all()
    cat = interlace.Op(lambda a, b: a * 10 + b, commute=False)
    z = np.zeros(1, np.int64)
    c.Allreduce(np.array([r + 1], np.int64), z, op=cat)
    assert z[0] == int("".join(str(i + 1) for i in range(n))), z
    f = np.full(1000, 0.25 * (r + 1), np.float32); fo = np.zeros_like(f)
    c.Allreduce(f, fo, compression="fp16")
    assert np.allclose(fo, 0.25 * n * (n + 1) / 2, rtol=1e-2)
    raises_ok = False
    try:
        c.Allreduce(np.zeros(2, np.int32), np.zeros(2, np.int32), compression="fp16")
    except ValueError as e:
        raises_ok = "int32" in str(e)
    assert raises_ok
    ok("user_ops")

    assert c.bcast({"k": [1, 2]} if r == 0 else None, root=0) == {"k": [1, 2]}
    assert c.allgather(("x", r)) == [("x", i) for i in range(n)]
    gathered = c.gather(r * r, root=n - 1)
    assert gathered == ([i * i for i in range(n)] if r == n - 1 else None)
    assert c.scatter([f"p{i}" for i in range(n)] if r == 0 else None, root=0) == f"p{r}"
    assert c.alltoall([(r, j) for j in range(n)]) == [(j, r) for j in range(n)]
    assert c.allreduce(r + 1) == n * (n + 1) // 2
    assert c.allreduce([r], op=SUM) == list(range(n))
    assert c.reduce(r, op=MAX, root=0) == (n - 1 if r == 0 else None)
    assert c.scan(1) == r + 1 and c.exscan(1) == (r if r else None)
    ok("objects")

    # an algorithm written in Python, registered at run time: star through rank 0
    def star(args, s):
        nbytes = args["count"] * args["itemsize"]
        c0 = s.copy("recv", 0, "send", 0, nbytes)
        if args["rank"] != 0:
            s.send(0, "recv", 0, nbytes, [c0])
            s.recv(0, "recv", 0, nbytes, [c0])
            return
        last = c0
        for i in range(1, args["size"]):
            last = s.recv_reduce(i, "recv", 0, args["count"], [last])
        for i in range(1, args["size"]):
            s.send(i, "recv", 0, nbytes, [last])
    interlace.register_algorithm("allreduce", "py_star", star, about="star through rank 0")
    assert "py_star" in interlace.coll.describe()
    y = np.zeros(5, np.int64)
    req = c.Iallreduce(np.full(5, r + 1, np.int64), y, algorithm="py_star")
    req.wait()
    assert req.algorithm == "py_star" and (y == n * (n + 1) // 2).all(), y
    c.Bcast(np.zeros(1), root=np.int64(0))
    ok("registered")

    # bad input
    def raises(exc, fn, text):
        try:
            fn()
        except exc as e:
            assert text in str(e), (text, str(e))
            return
        raise AssertionError(f"no {exc.__name__} for {text}")
    raises(ValueError, lambda: c.Bcast(np.zeros(1), root=n), f"root {n}")
    raises(ValueError, lambda: c.Allreduce(np.zeros(1), np.zeros(1), algorithm="fastest"), "ring")
    raises(ValueError, lambda: c.Allreduce(np.zeros(4), np.zeros(2)), "recvbuf holds 2")
    raises(ValueError, lambda: c.Allgatherv(np.zeros(1), [np.zeros(n), [-1] * n]), "-1")
    raises(TypeError, lambda: c.Allreduce(np.zeros(2, np.int32), np.zeros(2)), "one datatype")
    c.Barrier()
    ok("errors")
    c.Barrier()
    ok("done")
''')


@pytest.mark.timeout(150)
@pytest.mark.parametrize("n,fabric", [(1, "shm"), (2, "shm"), (3, "shm"), (5, "shm"), (3, "tcp")])
def test_python_api(tmp_path, n, fabric):
    pytest.importorskip("numpy")
    pytest.importorskip("interlace._core", reason="the interlace extension is not built")
    prog = tmp_path / "coll_program.py"
    prog.write_text(PROGRAM)
    r = run_interlace("run", "-n", n, "--fabric", fabric, "--timeout", 120, sys.executable, prog,
                      timeout=140)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out[-4000:]
    for rank in range(n):
        assert f"OK done rank {rank}" in r.stdout, out[-4000:]


def test_describe_lists_algorithms_and_override():
    core = pytest.importorskip("interlace._core", reason="the interlace extension is not built")
    text = core.coll_describe()
    for name in ("recursive_doubling", "rabenseifner", "bruck", "scatter_allgather", "dissemination"):
        assert name in text
    old = os.environ.get("INTERLACE_COLL")
    os.environ["INTERLACE_COLL"] = "allreduce:0-inf:@ring"
    try:
        assert core.coll_select("allreduce", 8, 4) == "ring"
        assert "INTERLACE_COLL  allreduce:0-inf" in core.coll_describe()
    finally:
        if old is None:
            del os.environ["INTERLACE_COLL"]
        else:
            os.environ["INTERLACE_COLL"] = old
    assert core.coll_select("allreduce", 8, 4) == "recursive_doubling"
