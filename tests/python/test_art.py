"""Automatic result transfer (FSHMEM III-B) in real processes: the matrix multiply and
convolution examples through the launcher on both fabrics, each checking its result
against a serial computation (a mismatch exits nonzero). Built by CMake into
$INTERLACE_BUILD_DIR/examples/cpp (default: build/)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import REPO, launcher_env, run_interlace

BUILD = Path(os.environ.get("INTERLACE_BUILD_DIR", REPO / "build"))


def example(name: str) -> Path:
    path = BUILD / "examples" / "cpp" / f"interlace-example-{name}"
    if not path.exists():
        pytest.fail(f"{path} is missing: build the C++ tree first (make build)")
    return path


def run(n, fabric, prog, *args, **env):
    r = run_interlace("run", "-n", n, "--fabric", fabric, "--timeout", 90, prog, *args,
                      timeout=110, env=launcher_env(**env))
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


@pytest.mark.timeout(120)
@pytest.mark.parametrize("fabric", ["shm", "tcp"])
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_matmul(n, fabric):
    # 61 rows over n ranks: uneven row blocks; batches of 4 rows leave a partial one.
    assert f"art_matmul OK: 61x61 on {n} ranks" in run(n, fabric, example("art_matmul"), 61, 4)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("fabric", ["shm", "tcp"])
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_conv(n, fabric):
    out = run(n, fabric, example("art_conv"), 53, 40, 5, 3)
    assert f"art_conv OK: 53x40, 5x5 filter, on {n} ranks" in out


@pytest.mark.timeout(120)
def test_conv_halo_spans_ranks():
    """7 rows over 8 ranks with a 7x7 filter: some ranks own no row, halos cross several."""
    assert "art_conv OK: 7x11, 7x7 filter, on 8 ranks" in run(8, "shm", example("art_conv"), 7, 11, 7, 1)


@pytest.mark.timeout(120)
def test_matmul_with_progress_thread():
    out = run(2, "shm", example("art_matmul"), 64, 2, INTERLACE_PROGRESS="thread")
    assert "art_matmul OK: 64x64 on 2 ranks" in out


@pytest.mark.timeout(60)
def test_bad_arguments_fail_cleanly():
    r = run_interlace("run", "-n", 2, "--timeout", 30, example("art_conv"), 8, 8, 4,
                      timeout=50, env=launcher_env())
    assert r.returncode != 0
    assert "k odd" in r.stderr
