"""N-body (examples/nbody, docs/nbody.md) against the serial result, small, under the
launcher: the OMPIF + tasks version (every rank a device) with 1 to 3 ranks and one or
two task workers, the same spawned by a host as a distributed task on 1 to 3 devices,
the plain-MPI baseline on interlace's MPI and on Open MPI, each with
--check (max relative error against the serial run <= 1e-3) and with its checksum
compared to the serial program's own. Bad sizes are refused with the values named.

The programs are built by CMake into $INTERLACE_BUILD_DIR/examples/nbody (default
build/); a version that is not built (its layer is missing) is skipped, naming it."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPO, launcher_env, run_interlace

BUILD = Path(os.environ.get("INTERLACE_BUILD_DIR", REPO / "build"))
EX = BUILD / "examples" / "nbody"
SIZE = ["--n", "768", "--bs", "128", "--iters", "3", "--seed", "7"]  # 6 blocks: 1, 2, 3 ranks
LINE = re.compile(r"nbody version=(\w+) ranks=(\d+) .* gpairs=([\d.]+) checksum=(\S+)")
RUN_S = 120


def program(name: str) -> Path:
    exe = EX / name
    if not exe.exists():
        pytest.skip(f"{exe} is not built (ninja -C {BUILD} {name})")
    return exe


def parse(out: str) -> tuple[str, int, float]:
    m = LINE.search(out)
    assert m, f"no result line in:\n{out}"
    assert float(m.group(3)) > 0
    return m.group(1), int(m.group(2)), float(m.group(4))


def checked(r: subprocess.CompletedProcess, version: str, ranks: int) -> float:
    assert r.returncode == 0, f"exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    v, n, checksum = parse(r.stdout)
    assert (v, n) == (version, ranks)
    m = re.search(r"check max_rel_err=(\S+) (ok|FAIL)", r.stdout)
    assert m and m.group(2) == "ok" and float(m.group(1)) <= 1e-3, r.stdout
    return checksum


@pytest.fixture(scope="module")
def serial_checksum() -> float:
    r = subprocess.run([str(program("nbody_serial")), *SIZE, "--check"], capture_output=True,
                       text=True, timeout=RUN_S)
    return checked(r, "serial", 1)


def close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-3 * max(1.0, abs(b))


@pytest.mark.parametrize("ranks,workers", [(1, 1), (1, 2), (2, 1), (2, 2), (3, 1)])
def test_ompif_tasks_match_serial(serial_checksum, ranks, workers):
    exe = program("nbody_ompif")
    env = launcher_env(INTERLACE_TASK_WORKERS=str(workers))
    r = run_interlace("run", "-n", ranks, exe, *SIZE, "--check", env=env, timeout=RUN_S)
    assert close(checked(r, "ompif", ranks), serial_checksum)


@pytest.mark.parametrize("devices", [1, 2, 3])
def test_distributed_task_from_a_host_matches_serial(serial_checksum, devices):
    # rank 0 is the host, the others the devices
    exe = program("nbody_dist")
    env = launcher_env(INTERLACE_TASK_WORKERS="1")
    r = run_interlace("run", "-n", devices + 1, exe, *SIZE, "--check", env=env, timeout=RUN_S)
    assert close(checked(r, "dist", devices), serial_checksum)


@pytest.mark.parametrize("ranks", [1, 2, 3])
def test_mpi_baseline_on_interlace_matches_serial(serial_checksum, ranks):
    r = run_interlace("run", "-n", ranks, program("nbody_mpi"), *SIZE, "--check", timeout=RUN_S)
    assert close(checked(r, "mpi", ranks), serial_checksum)


def test_mpi_baseline_on_open_mpi_matches_serial(serial_checksum, tmp_path):
    if not (shutil.which("mpicc.openmpi") and shutil.which("mpirun.openmpi")):
        pytest.skip("Open MPI (mpicc.openmpi, mpirun.openmpi) is not installed")
    exe = tmp_path / "nbody_mpi_ompi"
    subprocess.run(["mpicc.openmpi", "-O2", "-o", str(exe), str(REPO / "examples/nbody/nbody_mpi.c"), "-lm"],
                   check=True, timeout=RUN_S)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    r = subprocess.run(["mpirun.openmpi", "--oversubscribe", "-n", "2", str(exe), *SIZE, "--check"],
                       capture_output=True, text=True, timeout=RUN_S, env=env)
    assert close(checked(r, "mpi", 2), serial_checksum)


@pytest.mark.parametrize("args,message", [
    (["--n", "1000", "--bs", "128"], "n=1000 is not a multiple of the block size bs=128"),
    (["--n", "0"], "--n 0: expected a positive integer"),
    (["--bs", "x"], "--bs x: expected a positive integer"),
])
def test_serial_bad_sizes_are_named(args, message):
    r = subprocess.run([str(program("nbody_serial")), *args], capture_output=True, text=True, timeout=RUN_S)
    assert r.returncode == 2 and message in r.stderr, r.stderr


@pytest.mark.parametrize("name", ["nbody_ompif", "nbody_mpi"])
def test_blocks_that_do_not_divide_among_ranks_are_named(name):
    # 768 / 128 = 6 blocks among 4 ranks
    r = run_interlace("run", "-n", 4, program(name), *SIZE, timeout=RUN_S)
    assert r.returncode != 0
    assert "6 blocks do not divide among 4 ranks" in r.stdout + r.stderr
