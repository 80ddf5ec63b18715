"""p2p through the Python API: the programs in p2p_programs/ run on 1..8 ranks
under `interlace run`, over shared memory and over TCP. Each program prints
'OK <section> rank <r>' per passed section; a test passes when every rank
reached the last section."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("numpy")
pytest.importorskip("interlace._core", reason="the interlace extension is not built")

PROGRAMS = Path(__file__).resolve().parent / "p2p_programs"


def run_program(cli, name, n, *args, fabric=None, env=(), timeout=90):
    opts = ["run", "-n", n, "--timeout", timeout - 10]
    if fabric:
        opts += ["--fabric", fabric]
    for e in env:
        opts += ["-x", e]
    return cli(*opts, sys.executable, PROGRAMS / f"{name}.py", *args, timeout=timeout)


def expect_ok(proc, last, n, ranks=None):
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    for r in ranks if ranks is not None else range(n):
        assert f"OK {last} rank {r}" in proc.stdout, out[-4000:]


CASES = [(p, n, "shm") for p in ("buffers", "matching", "objects", "comms")
         for n in (1, 2, 3, 4, 8)]
CASES += [("buffers", 2, "tcp"), ("buffers", 4, "tcp"), ("matching", 3, "tcp"),
          ("objects", 4, "tcp"), ("comms", 4, "tcp")]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("program,n,fabric", CASES, ids=[f"{p}-{n}-{f}" for p, n, f in CASES])
def test_program(interlace_cli, program, n, fabric):
    proc = run_program(interlace_cli, program, n, fabric=fabric)
    expect_ok(proc, program, n)


@pytest.mark.timeout(180)
@pytest.mark.parametrize("fabric", ["shm", "tcp"])
def test_64mib_messages(interlace_cli, fabric):
    proc = run_program(interlace_cli, "buffers", 2, "--big", fabric=fabric, timeout=170)
    expect_ok(proc, "buffers", 2)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("n,fabric", [(1, "shm"), (2, "shm"), (3, "shm"), (2, "tcp")])
def test_failures(interlace_cli, n, fabric):
    proc = run_program(interlace_cli, "failures", n, fabric=fabric)
    expect_ok(proc, "failures", n)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("fabric", ["shm", "tcp"])
def test_lost_peer(interlace_cli, fabric):
    proc = run_program(interlace_cli, "failures", 3, "lostpeer", fabric=fabric)
    assert "OK lostpeer rank 0" in proc.stdout, (proc.stdout + proc.stderr)[-4000:]


@pytest.mark.timeout(60)
def test_timeout(interlace_cli):
    proc = run_program(interlace_cli, "failures", 1, "timeout", env=["INTERLACE_TIMEOUT=0.5"],
                       timeout=40)
    expect_ok(proc, "timeout", 1)


EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "python"


@pytest.mark.timeout(120)
@pytest.mark.parametrize("example,expect", [
    ("hello.py", "hello: 4 ranks OK"),
    ("ping_pong.py", "ping_pong: OK"),
    ("ring.py", "ring: token 18 after 3 laps of 4 ranks, expected 18 OK"),
])
def test_examples(interlace_cli, example, expect):
    proc = interlace_cli("run", "-n", 4, "--timeout", 100, sys.executable, EXAMPLES / example,
                         timeout=110)
    assert proc.returncode == 0 and expect in proc.stdout, (proc.stdout + proc.stderr)[-4000:]
