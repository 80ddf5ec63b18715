"""interlace's PGAS C API (interlace/pgas.h) in real multi-process programs: each
tests/pgas_c/*.c program at 1, 2, 3 and 4 PEs on shm and tcp under `interlace run`,
expecting exit 0 and "OK <name>" (the program checks its own results)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import REPO, launcher_env, run_interlace

BUILD = Path(os.environ.get("INTERLACE_BUILD_DIR", REPO / "build"))
PROGRAMS = sorted(p.stem for p in (REPO / "tests" / "pgas_c").glob("*.c"))


@pytest.mark.parametrize("fabric", ["shm", "tcp"])
@pytest.mark.parametrize("pes", [1, 2, 3, 4])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program(name, pes, fabric):
    exe = BUILD / "tests" / "pgas_c" / name
    if not exe.exists():
        pytest.fail(f"{exe} is missing: build the tree first (make build)")
    r = run_interlace("run", "-n", pes, exe, env=launcher_env(INTERLACE_FABRIC=fabric), timeout=90)
    assert r.returncode == 0, f"exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    assert f"OK {name}" in r.stdout, r.stdout + r.stderr
