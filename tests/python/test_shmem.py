"""The OpenSHMEM C API (include/shmem.h) with the conformance programs of tests/shmem/:

- every program at each PE count of its `/* pes: ... */` first line, on the shm and
  the tcp fabric, under `interlace run -n N`, expecting exit 0, "OK <program>" and no
  "FAIL" line;
- the same C sources built by Open MPI's `oshcc` and run by `oshrun` (OSHMEM,
  OpenSHMEM 1.4): proves the expectations (1.5-only parts are compiled out there,
  see tests/shmem/check.h); skipped when oshcc is not installed;
- errors.c: faults that must end the job cleanly, with an error naming the bad value
  and within bounded time (PE out of range, non-symmetric address, heap exhausted,
  misaligned atomic, shmem_global_exit from a barrier, a lost PE over tcp).

The programs are built by CMake into $INTERLACE_BUILD_DIR/tests/shmem (default build/).
Every subprocess has a timeout: a hang fails the test instead of blocking the run."""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from functools import lru_cache
from pathlib import Path

import pytest

from conftest import REPO, launcher_env, run_interlace

BUILD = Path(os.environ.get("INTERLACE_BUILD_DIR", REPO / "build"))
SRC_DIR, BIN_DIR = REPO / "tests" / "shmem", BUILD / "tests" / "shmem"
RUN_S = 60  # the launcher's limit for one program; the subprocess limit is above it
FABRICS = ["shm", "tcp"]
OSHMEM_ENV = {"OMPI_MCA_osc": "^rdma", "OMPI_ALLOW_RUN_AS_ROOT": "1",
              "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


def pes_of(src: Path) -> list[int]:
    """The PE counts named by the first line, `/* pes: 1 2 3 4 8 */` (or `// pes:`)."""
    lines = src.read_text().splitlines()
    first = lines[0] if lines else ""
    m = re.match(r"\s*(?:/\*|//)\s*pes:\s*([0-9 ]+)(?:\*/)?\s*$", first)
    return [int(x) for x in m.group(1).split()] if m else []


C_SRCS = sorted(s for s in SRC_DIR.glob("*.c") if s.stem != "errors")
ALL_SRCS = C_SRCS + sorted(SRC_DIR.glob("*.cpp"))
CASES = [(s.stem, n) for s in ALL_SRCS for n in (pes_of(s) or [0])]
OSHMEM_CASES = [(s.stem, n) for s in C_SRCS for n in (pes_of(s) or [0])]


def binary(name: str) -> Path:
    path = BIN_DIR / name
    if not path.exists():
        if not any((REPO / "src" / "compat" / "shmem").glob("*.cpp")):
            pytest.skip("the shmem layer (src/compat/shmem/*.cpp) is not in this tree")
        pytest.fail(f"{path} is missing: build the tree first (make build); the shmem "
                    "programs are built once src/compat/shmem/ has sources")
    return path


def interlace_run(n, prog, *args, fabric=None, timeout=RUN_S, extra=(), env=None):
    opts = ["--fabric", fabric] if fabric else []
    return run_interlace("run", "-n", n, *opts, *extra, "--timeout", timeout, prog, *args,
                         timeout=timeout + 30, env=env)


def run_bounded(cmd, timeout=RUN_S, env=None) -> subprocess.CompletedProcess:
    """Runs oshrun in its own session, so that on a timeout the whole process group
    (launcher, daemons, PEs) is killed, not only the launcher."""
    p = subprocess.Popen([str(c) for c in cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=env, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        pytest.fail(f"{' '.join(map(str, cmd))} hung for {timeout} s:\n{out}\n{err}")
    return subprocess.CompletedProcess(cmd, p.returncode, out, err)


def tail(r) -> str:
    return (r.stdout + r.stderr)[-4000:]


# ---- the conformance programs under interlace -------------------------------------------

@pytest.mark.parametrize("src", ALL_SRCS + [SRC_DIR / "errors.c"], ids=lambda s: s.name)
def test_program_declares_its_pe_counts(src):
    assert pes_of(src), f"{src}: first line must be /* pes: 1 2 3 4 8 */"


@pytest.mark.timeout(RUN_S + 60)
@pytest.mark.parametrize("fabric", FABRICS)
@pytest.mark.parametrize("name,n", CASES)
def test_program(name, n, fabric):
    if n == 0:
        pytest.fail(f"{name} has no /* pes: ... */ first line")
    r = interlace_run(n, binary(name), fabric=fabric)
    assert r.returncode == 0, tail(r)
    assert f"OK {name}" in r.stdout, tail(r)
    assert "FAIL" not in r.stdout + r.stderr, tail(r)


# ---- the same sources under Open MPI's OSHMEM ---------------------------------------------

@lru_cache(maxsize=None)
def oshmem_build(src: Path, out_dir: str) -> Path | None:
    if shutil.which("oshcc") is None or shutil.which("oshrun") is None:
        return None
    out = Path(out_dir) / f"{src.stem}.oshmem"
    r = subprocess.run(["oshcc", "-O2", str(src), "-o", str(out), "-lm"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"oshcc {src}:\n{r.stderr}"
    return out


@pytest.fixture(scope="module")
def oshmem_dir(tmp_path_factory) -> str:
    return str(tmp_path_factory.mktemp("oshmem"))


@pytest.mark.timeout(RUN_S + 150)
@pytest.mark.parametrize("name,n", OSHMEM_CASES)
def test_program_passes_under_oshmem(name, n, oshmem_dir):
    """The same source under OSHMEM: proves the program's expectations are right."""
    exe = oshmem_build(SRC_DIR / f"{name}.c", oshmem_dir)
    if exe is None:
        pytest.skip("Open MPI's OSHMEM (oshcc, oshrun) is not installed")
    r = run_bounded(["oshrun", "--allow-run-as-root", "--oversubscribe", "-np", n, exe],
                    env=launcher_env(**OSHMEM_ENV))
    assert r.returncode == 0, tail(r)
    assert f"OK {name}" in r.stdout, tail(r)


# ---- faults: a clean error naming the value, never a hang ---------------------------------

def address_in(stdout: str) -> str:
    """The address the program printed ("addr 0x7ff..."), as bare lowercase hex."""
    m = re.search(r"addr (?:0x)?([0-9a-fA-F]+)", stdout)
    assert m, f"the program printed no address:\n{stdout}"
    return m.group(1).lower().lstrip("0")


@pytest.mark.timeout(RUN_S + 60)
@pytest.mark.parametrize("fabric", FABRICS)
def test_put_to_a_pe_out_of_range_names_it(fabric):
    r = interlace_run(2, binary("errors"), "pe_range", fabric=fabric)
    assert r.returncode not in (0, 124), tail(r)
    assert "1000" in r.stderr, tail(r)


@pytest.mark.timeout(RUN_S + 60)
@pytest.mark.parametrize("fabric", FABRICS)
def test_put_to_a_non_symmetric_address_names_it(fabric):
    r = interlace_run(2, binary("errors"), "nonsymmetric", fabric=fabric)
    assert r.returncode not in (0, 124), tail(r)
    assert address_in(r.stdout) in r.stderr.lower(), tail(r)


@pytest.mark.timeout(RUN_S + 60)
@pytest.mark.parametrize("fabric", FABRICS)
def test_allocation_beyond_the_heap_names_shmem_symmetric_size(fabric):
    env = launcher_env(SHMEM_SYMMETRIC_SIZE="1M")
    r = interlace_run(2, binary("errors"), "heap", fabric=fabric, env=env)
    assert r.returncode not in (0, 124), tail(r)
    assert "SHMEM_SYMMETRIC_SIZE" in r.stderr, tail(r)
    assert re.search(r"\b1M\b|1048576", r.stderr), tail(r)


@pytest.mark.timeout(RUN_S + 60)
@pytest.mark.parametrize("fabric", FABRICS)
def test_misaligned_atomic_names_the_address(fabric):
    r = interlace_run(2, binary("errors"), "misaligned", fabric=fabric)
    assert r.returncode not in (0, 124), tail(r)
    assert address_in(r.stdout) in r.stderr.lower(), tail(r)


@pytest.mark.timeout(RUN_S + 60)
@pytest.mark.parametrize("fabric", FABRICS)
@pytest.mark.parametrize("n", [2, 4])
def test_global_exit_ends_pes_blocked_in_a_barrier(fabric, n):
    """A long --grace: the launcher does not stop the others, global_exit must."""
    start = time.monotonic()
    r = interlace_run(n, binary("errors"), "global_exit", fabric=fabric,
                      extra=("--grace", RUN_S))
    took = time.monotonic() - start
    assert r.returncode == 3, tail(r)
    assert took < 15, f"the job took {took:.1f} s to end after shmem_global_exit(3)"
    assert "passed the barrier" not in r.stderr, tail(r)


@pytest.mark.timeout(RUN_S + 60)
def test_get_from_a_lost_pe_fails_in_bounded_time():
    """PE 1 exits; PE 0's blocking gets from it must fail on their own (a long
    --grace keeps the launcher from killing PE 0 for it)."""
    start = time.monotonic()
    r = interlace_run(2, binary("errors"), "lost_pe", fabric="tcp", extra=("--grace", RUN_S))
    took = time.monotonic() - start
    assert r.returncode not in (0, 124), tail(r)
    assert took < 40, f"PE 0 noticed the lost PE only after {took:.1f} s"
    assert "all returned" not in r.stderr, tail(r)
    assert not re.search(r"rank 0 .*(killed by signal|timed out)", r.stderr), tail(r)
