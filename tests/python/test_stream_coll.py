"""SMI streaming collectives in real processes under `interlace run`: the C API program
(tests/multiproc/smi_coll_check.c) and the Python channels
(stream_programs/collectives.py), on several rank counts and both fabrics."""
from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import launcher_env
from test_stream import PROGRAMS, built, expect_ok, run

needs_core = pytest.mark.skipif(
    subprocess.run([sys.executable, "-c", "import interlace._core"], env=launcher_env(),
                   capture_output=True).returncode != 0,
    reason="the interlace extension is not built")


@pytest.mark.timeout(120)
@pytest.mark.parametrize("n,fabric", [(1, "shm"), (2, "shm"), (3, "shm"), (5, "shm"), (3, "tcp")])
def test_smi_collectives_c(n, fabric):
    r = run("-n", n, "--fabric", fabric, built("tests", "multiproc", "smi_coll_check"))
    expect_ok(r, f"smi_coll_check OK on {n} ranks")


@needs_core
@pytest.mark.timeout(120)
@pytest.mark.parametrize("n,fabric", [(1, "shm"), (3, "shm"), (4, "tcp")])
def test_python_collectives(n, fabric):
    r = run("-n", n, "--fabric", fabric, sys.executable, PROGRAMS / "collectives.py")
    out = r.stdout + r.stderr
    assert r.returncode == 0, out[-4000:]
    for k in range(n):
        assert f"OK errors rank {k}" in r.stdout, out[-4000:]
