"""interlace.shmem (OpenSHMEM for Python over the PGAS model): the programs in
shmem_programs/ run on 1, 2 and 4 PEs under `interlace run`, over shared memory
(direct copies into mapped heaps) and TCP (active messages). Each program prints
'OK <section> rank <r>' per passed section and checks exact values itself."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("numpy")
pytest.importorskip("interlace._core", reason="the interlace extension is not built")

PROGRAMS = Path(__file__).resolve().parent / "shmem_programs"
# The last section of each program.
LAST = {"rma": "rma", "atomics": "atomics", "signals": "wait", "teams": "coll", "errors": "errors"}
# Small heaps keep 4 PEs cheap; errors.py checks that the size is the one given here.
HEAP = "SHMEM_SYMMETRIC_SIZE=32M"

CASES = [(p, n, f) for p in LAST for f in ("shm", "tcp") for n in (1, 2, 4)]


def run_program(cli, name, n, fabric, timeout=110):
    return cli("run", "-n", n, "--fabric", fabric, "--timeout", timeout - 10, "-x", HEAP,
               sys.executable, PROGRAMS / f"{name}.py", timeout=timeout)


@pytest.mark.timeout(130)
@pytest.mark.parametrize("program,n,fabric", CASES, ids=[f"{p}-{n}-{f}" for p, n, f in CASES])
def test_program(interlace_cli, program, n, fabric):
    proc = run_program(interlace_cli, program, n, fabric)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    for r in range(n):
        assert f"OK {LAST[program]} rank {r}" in proc.stdout, out[-4000:]
