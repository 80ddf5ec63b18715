"""The fidelity programs (bench/fidelity/, docs/fidelity.md) run and print well-formed
result lines. On shm, with the wall clock: no timing is asserted (the figures only mean
something in virtual time on the sim fabric); what is checked is that every program of
bench/run_fidelity.py --quick finishes, prints its JSON fields with sane values, that the
data checks inside the programs pass (their exit status), and that bad options are
refused naming the value. Programs are built by CMake into $INTERLACE_BUILD_DIR/bench/
fidelity (default build/); the test is skipped, naming the target, when they are not."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, launcher_env, run_interlace

BUILD = Path(os.environ.get("INTERLACE_BUILD_DIR", REPO / "build"))
EXE = BUILD / "bench" / "fidelity"
PROGRAMS = ["smi_micro", "smi_gesummv", "smi_stencil", "fshmem_putget", "accl_coll", "nbody_scaling",
            "zrlmpi_jacobi"]
# bench -> fields each of its lines must carry (numbers, > 0 unless listed in ZERO_OK)
FIELDS = {
    "smi_latency": ["latency_us"], "smi_bandwidth": ["gbit_s", "seconds"], "smi_inject": ["seconds_per_msg"],
    "smi_inject_recv": ["seconds_per_msg"],
    "smi_gesummv": ["seconds"], "smi_stencil": ["seconds"], "fshmem_latency": ["put_us", "get_us"],
    "fshmem_bandwidth": ["put_mb_s", "get_mb_s"], "accl_sendrecv": ["gbit_s"], "accl_coll": ["us"],
    "nbody_scaling": ["gpairs_s"], "zrlmpi_jacobi": ["ms_per_iter"],
}


@pytest.fixture(scope="module")
def built():
    missing = [p for p in PROGRAMS if not (EXE / p).exists()]
    if missing:
        pytest.skip(f"not built: {', '.join(missing)} (ninja -C {BUILD} " + " ".join(f"fid_{p}" for p in missing) + ")")


def test_quick_set_prints_every_figure(built, tmp_path):
    out = tmp_path / "rows.json"
    r = subprocess.run([sys.executable, str(REPO / "bench" / "run_fidelity.py"), "--fabric", "shm", "--quick",
                        "--timeout", "120", "--build-dir", str(BUILD), "--json", str(out)],
                       capture_output=True, text=True, timeout=600, env=launcher_env())
    assert r.returncode == 0, r.stderr[-3000:]
    rows = json.loads(out.read_text())
    seen = {row["bench"] for row in rows}
    assert seen == set(FIELDS), f"benches missing: {set(FIELDS) - seen}"
    for row in rows:
        assert row["virtual"] == 0  # shm: wall clock, and the rows say so
        for f in FIELDS[row["bench"]]:
            v = row[f]
            assert isinstance(v, (int, float)) and v >= 0, (f, row)
    # the tables name every paper section even from a wall-clock run, flagged as not simulated
    for title in ("### SMI", "### FSHMEM", "### ACCL+", "### OmpSs@cloudFPGA", "### ZRLMPI", "Not simulated"):
        assert title in r.stdout


@pytest.mark.parametrize("prog,args,needle", [
    ("smi_micro", ["--mode", "nope"], "unknown --mode 'nope'"),
    ("smi_micro", ["--peer", "5"], "--peer 5"),
    ("smi_stencil", ["--rx", "3", "--ry", "1"], "--rx 3"),
    ("zrlmpi_jacobi", ["--dim", "7"], "--dim 7"),
    ("nbody_scaling", ["--bs", "x"], "'x'"),
])
def test_bad_options_are_named(built, prog, args, needle):
    r = run_interlace("run", "-n", "2", "--fabric", "shm", str(EXE / prog), *args, timeout=60)
    assert r.returncode != 0
    assert needle in r.stderr, r.stderr
