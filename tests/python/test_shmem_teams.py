"""OpenSHMEM teams and collectives (include/interlace/shmem_teams.h) with real programs:

- every program tests/shmem_teams/*.c and *.cpp (but team_errors.c) at each PE count of its
  `/* pes: ... */` first line, on shm and on tcp, under `interlace run`, expecting
  exit 0 and "OK <name>";
- the programs marked `/* oshmem */` (OpenSHMEM 1.4 API only) also built with Open
  MPI's oshcc and run by oshrun at the same PE counts: proves the expectations
  (skipped where oshcc/oshrun are absent);
- team_errors.c: each bad argument ends the job with a nonzero status and a message
  naming the routine and the value, within the launcher's timeout (never a hang).

The programs are built by CMake into $INTERLACE_BUILD_DIR/tests/shmem_teams (default
build/). Every subprocess has a timeout."""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
from functools import lru_cache
from pathlib import Path

import pytest

from conftest import REPO, launcher_env, run_interlace

BUILD = Path(os.environ.get("INTERLACE_BUILD_DIR", REPO / "build"))
SRC_DIR = REPO / "tests" / "shmem_teams"
BIN_DIR = BUILD / "tests" / "shmem_teams"
RUN_S = 90
OSHMEM_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
              "OMPI_MCA_rmaps_base_oversubscribe": "1", "OMPI_MCA_osc": "^rdma"}


def pes_of(src: Path) -> list[int]:
    """The PE counts named by the program's first line, `/* pes: 1 2 3 4 8 */`."""
    lines = src.read_text().splitlines()
    m = re.match(r"\s*/\*\s*pes:\s*([0-9 ]+)\*/", lines[0] if lines else "")
    return [int(x) for x in m.group(1).split()] if m else []


def oshmem_compatible(src: Path) -> bool:
    return "/* oshmem */" in src.read_text().splitlines()[1:2]


SOURCES = sorted([*SRC_DIR.glob("*.c"), *SRC_DIR.glob("*.cpp")])
PROGRAMS = [s for s in SOURCES if s.stem != "team_errors"]
CASES = [(s.stem, n) for s in PROGRAMS for n in (pes_of(s) or [0])]
OSHMEM_CASES = [(s.stem, n) for s in PROGRAMS if oshmem_compatible(s) for n in pes_of(s)]


def binary(name: str) -> Path:
    path = BIN_DIR / name
    if not path.exists():
        pytest.fail(f"{path} is missing: build the tree first (make build); the programs are "
                    "built once src/compat/shmem/ has sources")
    return path


def interlace_run(n, prog, *args, fabric=None, timeout=RUN_S, env=None):
    opts = ["--fabric", fabric] if fabric else []
    return run_interlace("run", "-n", n, *opts, "--timeout", timeout, prog, *args,
                         timeout=timeout + 20, env=env)


def run_bounded(cmd, timeout=RUN_S, env=None) -> subprocess.CompletedProcess:
    """Runs oshrun in its own session so that a timeout kills the whole process group."""
    p = subprocess.Popen([str(c) for c in cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=env, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        pytest.fail(f"{' '.join(map(str, cmd))} hung for {timeout} s:\n{out}\n{err}")
    return subprocess.CompletedProcess(cmd, p.returncode, out, err)


@lru_cache(maxsize=None)
def oshmem_build(src: Path, out_dir: str) -> Path | None:
    if shutil.which("oshcc") is None or shutil.which("oshrun") is None:
        return None
    out = Path(out_dir) / f"{src.stem}.oshmem"
    r = subprocess.run(["oshcc", "-std=c11", "-O2", str(src), "-o", str(out), "-lm"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"oshcc {src}:\n{r.stderr}"
    return out


@pytest.fixture(scope="module")
def oshmem_dir(tmp_path_factory) -> str:
    return str(tmp_path_factory.mktemp("oshmem"))


@pytest.mark.parametrize("src", SOURCES, ids=lambda s: s.stem)
def test_program_declares_its_pe_counts(src):
    assert pes_of(src), f"{src}: first line must be /* pes: 1 2 3 4 8 */"


@pytest.mark.timeout(RUN_S + 30)
@pytest.mark.parametrize("fabric", ["shm", "tcp"])
@pytest.mark.parametrize("name,n", CASES)
def test_program(name, n, fabric):
    # The shared team is every PE on shm (one host, mapped heaps) and the PE alone on tcp.
    expect = {"EXPECT_SHARED_ALL": "1"} if fabric == "shm" else {"EXPECT_SHARED_SELF": "1"}
    r = interlace_run(n, binary(name), fabric=fabric, env=launcher_env(**expect))
    out = r.stdout + r.stderr
    assert r.returncode == 0, out[-4000:]
    assert f"OK {name}" in r.stdout, out[-4000:]
    assert "FAIL" not in out


@pytest.mark.timeout(RUN_S + 150)
@pytest.mark.parametrize("name,n", OSHMEM_CASES)
def test_program_passes_under_oshmem(name, n, oshmem_dir):
    """The same source under Open MPI's OpenSHMEM: proves the program's expectations."""
    prog = oshmem_build(SRC_DIR / f"{name}.c", oshmem_dir)
    if prog is None:
        pytest.skip("Open MPI's OpenSHMEM (oshcc, oshrun) is not installed")
    r = run_bounded(["oshrun", "--allow-run-as-root", "--oversubscribe", "-np", n, prog],
                    env=launcher_env(**OSHMEM_ENV))
    assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]
    assert f"OK {name}" in r.stdout


ERRORS = {  # case -> what the report says (after "interlace shmem: <routine>: ")
    "root": r"shmem_long_broadcast: PE_root 2 is out of range for a team of 2 PEs",
    "invalid_team": r"shmem_team_sync: the team is SHMEM_TEAM_INVALID",
    "destroyed": r"shmem_team_my_pe: team handle \d+ was destroyed",
    "nelems": r"shmem_long_fcollect: nelems 18446744073709551615 \(-1 as a signed value\)",
    "stride": r"shmem_long_alltoalls: dst 0 must be at least 1",
    "active_set": r"shmem_broadcast64: active set \(PE_start 0, logPE_stride 0, PE_size 3\): "
                  r"its last PE 2 is beyond the 2 PEs",
    "not_member": r"shmem_broadcast64: PE 1 is not in the active set \(PE_start 0, "
                  r"logPE_stride 0, PE_size 1\)",
    "overlap": r"shmem_int_sum_reduce: source and dest overlap",
    "nreduce": r"shmem_int_sum_to_all: nreduce -1 is negative",
    "destroy_world": r"shmem_team_destroy: the predefined team SHMEM_TEAM_WORLD cannot be destroyed",
    "config_mask": r"shmem_team_split_strided: config_mask 32 has bits other than "
                   r"SHMEM_TEAM_NUM_CONTEXTS",
}


@pytest.mark.timeout(RUN_S + 30)
@pytest.mark.parametrize("case", sorted(ERRORS))
def test_bad_argument_is_a_clear_error(case):
    r = interlace_run(2, binary("team_errors"), case, timeout=60)
    out = r.stdout + r.stderr
    assert r.returncode != 0, out[-4000:]
    assert re.search("interlace shmem: " + ERRORS[case], out), out[-4000:]
    assert "unknown case" not in out
