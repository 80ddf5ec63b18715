"""Streaming channels (SMI) in real processes under `interlace run`: the C API battery
(tests/multiproc/smi_check.c), the C and C++ applications with their numerical checks
at several rank counts and grid shapes, MPMD launch, and the Python channels
(stream_programs/ and examples/python/). C/C++ programs are built by CMake into
$INTERLACE_BUILD_DIR (default build/)."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, launcher_env, run_interlace

BUILD = Path(os.environ.get("INTERLACE_BUILD_DIR", REPO / "build"))
PROGRAMS = Path(__file__).resolve().parent / "stream_programs"
EXAMPLES = REPO / "examples" / "python"


def built(*parts: str) -> Path:
    path = BUILD.joinpath(*parts)
    if not path.exists():
        pytest.fail(f"{path} is missing: build the C++ tree first (make build)")
    return path


def run(*args, timeout=100):
    return run_interlace("run", "--timeout", timeout - 10, *args, timeout=timeout)


def expect_ok(r, text):
    out = r.stdout + r.stderr
    assert r.returncode == 0, out[-4000:]
    assert text in r.stdout, out[-4000:]


# -- the C API ------------------------------------------------------------------

@pytest.mark.timeout(120)
@pytest.mark.parametrize("n,fabric", [(1, "shm"), (2, "shm"), (3, "shm"), (4, "shm"), (2, "tcp"),
                                      (3, "tcp"), (3, "udp")])
def test_smi_c_api_battery(n, fabric):
    r = run("-n", n, "--fabric", fabric, built("tests", "multiproc", "smi_check"))
    expect_ok(r, f"smi_check OK on {n} ranks (battery)")


@pytest.mark.timeout(60)
def test_smi_errors_returned():
    r = run("-n", 2, built("tests", "multiproc", "smi_check"), "errors")
    expect_ok(r, "smi_check OK on 2 ranks (errors)")


@pytest.mark.timeout(60)
def test_smi_errors_fatal_by_default_and_named():
    r = run("-n", 2, built("tests", "multiproc", "smi_check"), "fatal")
    out = r.stdout + r.stderr
    assert r.returncode != 0, out
    assert re.search(r"SMI error on rank [01] in SMI_Open_send_channel: .*rank 42 .*size 2", out), out
    assert "did not end" not in out, out


@pytest.mark.timeout(60)
def test_listing1_spmd():
    r = run("-n", 2, built("examples", "c", "listing1"), 200000)
    expect_ok(r, "listing1: rank 1 received 200000 integers, 0 wrong: OK")


# -- applications ----------------------------------------------------------------

@pytest.mark.timeout(120)
@pytest.mark.parametrize("n,fabric", [(1, "shm"), (300, "shm"), (1024, "shm"), (257, "tcp")])
def test_gesummv_mpmd(n, fabric):
    r = run("--fabric", fabric, "-n", 1, built("examples", "c", "gesummv_rank0"), n, ":",
            "-n", 1, built("examples", "c", "gesummv_rank1"), n)
    expect_ok(r, f"gesummv N={n}:")
    assert "max error 0: OK" in r.stdout, r.stdout


@pytest.mark.timeout(60)
def test_gesummv_mpmd_rejects_a_wrong_layout():
    r = run("-n", 2, built("examples", "c", "gesummv_rank1"), 64)
    assert r.returncode != 0
    assert "must be rank 1 of 2" in r.stderr + r.stdout


@pytest.mark.timeout(120)
@pytest.mark.parametrize("px,py", [(1, 1), (2, 1), (1, 2), (2, 2), (4, 2), (1, 3)])
def test_stencil_c(px, py):
    r = run("-n", px * py, built("examples", "c", "stencil"), 48, 96, 12, px, py)
    expect_ok(r, f"on {px}x{py} ranks")
    assert "max error 0: OK" in r.stdout, r.stdout


@pytest.mark.timeout(60)
def test_stencil_c_rejects_a_shape_that_does_not_divide():
    r = run("-n", 2, built("examples", "c", "stencil"), 49, 96, 2, 2, 1)
    assert r.returncode != 0
    assert "2 x 1 must equal the 2 ranks and divide the 49 x 96 grid" in r.stderr, r.stderr


@pytest.mark.timeout(60)
def test_stencil_c_over_tcp():
    r = run("-n", 4, "--fabric", "tcp", built("examples", "c", "stencil"), 64, 64, 8)
    expect_ok(r, "on 2x2 ranks")
    assert "OK" in r.stdout


@pytest.mark.timeout(60)
@pytest.mark.parametrize("n", [1, 100, 1024])
def test_gesummv_kernels(n):
    r = run("-n", 2, built("examples", "cpp", "interlace-example-gesummv_kernels"), n)
    expect_ok(r, f"gesummv_kernels N={n}:")
    assert "max error 0: OK" in r.stdout


# -- Python ------------------------------------------------------------------------

needs_core = pytest.mark.skipif(
    subprocess.run([sys.executable, "-c", "import interlace._core"], env=launcher_env(),
                   capture_output=True).returncode != 0,
    reason="the interlace extension is not built")


@needs_core
@pytest.mark.timeout(120)
@pytest.mark.parametrize("n,fabric", [(1, "shm"), (2, "shm"), (3, "shm"), (4, "shm"), (2, "tcp")])
def test_python_channels(n, fabric):
    r = run("-n", n, "--fabric", fabric, sys.executable, PROGRAMS / "channels.py")
    out = r.stdout + r.stderr
    assert r.returncode == 0, out[-4000:]
    for k in range(n):
        assert f"OK errors rank {k}" in r.stdout, out[-4000:]


@needs_core
@pytest.mark.timeout(120)
def test_python_gesummv():
    r = run("-n", 2, sys.executable, EXAMPLES / "gesummv.py", 500)
    expect_ok(r, "max error 0: OK")


@needs_core
@pytest.mark.timeout(120)
@pytest.mark.parametrize("px,py", [(1, 1), (2, 1), (1, 2), (2, 2)])
def test_python_stencil(px, py):
    r = run("-n", px * py, sys.executable, EXAMPLES / "stencil.py", 32, 64, 6, px, py)
    expect_ok(r, f"on {px}x{py} ranks")
    assert "max error 0: OK" in r.stdout


# -- the compiler wrappers ----------------------------------------------------------

@pytest.mark.timeout(120)
def test_paper_listing_builds_with_interlace_cc(tmp_path):
    """SMI code as in the paper's listings compiles with interlace-cc and runs."""
    from conftest import installed_script
    cc = installed_script("interlace-cc")
    if cc is None:
        pytest.skip("interlace-cc is not installed (make install)")
    show = subprocess.run([cc, "--showme"], capture_output=True, text=True, env=launcher_env())
    inc = re.search(r"-I(\S+)", show.stdout)
    if show.returncode != 0 or not inc or not (Path(inc.group(1)) / "smi.h").exists():
        pytest.skip("the installed interlace predates smi.h (make install)")
    exe = tmp_path / "listing1"
    b = subprocess.run([cc, "-O2", REPO / "examples" / "c" / "listing1.c", "-o", exe],
                       capture_output=True, text=True, env=launcher_env())
    assert b.returncode == 0, b.stderr
    expect_ok(run("-n", 2, exe, 5000), "0 wrong: OK")
