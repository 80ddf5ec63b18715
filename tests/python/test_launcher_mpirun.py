"""Jobs started by other launchers (Open MPI's mpirun, MPICH's Hydra) meet in
a store directory under $TMPDIR/interlace-<uid>/; it is gone when the job
ends (with the PMIx client built in, mpirun's jobs meet in rank 0's TCP store
instead and leave nothing either: docs/bootstrap.md). Needs the C++ build
(build/tests/multiproc/p2p_check)."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPO, launcher_env

BUILD = Path(os.environ.get("INTERLACE_BUILD_DIR", REPO / "build"))
PROG = BUILD / "tests" / "multiproc" / "p2p_check"
OMPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
            "OMPI_MCA_rmaps_base_oversubscribe": "1", "OMPI_MCA_osc": "^rdma"}

STARTERS = {
    "openmpi": (["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "-np", "2"], OMPI_ENV),
    "hydra": (["mpiexec.hydra", "-n", "2"], {}),
}


def _leftovers(tmp: Path) -> list[str]:
    """Everything under tmp except the (empty) per-user parent."""
    parent = tmp / f"interlace-{os.geteuid()}"
    out = [str(p) for p in tmp.iterdir() if p != parent]
    if parent.exists():
        assert (parent.stat().st_mode & 0o777) == 0o700, oct(parent.stat().st_mode)
        out += [str(p) for p in parent.iterdir()]
    return out


@pytest.mark.timeout(150)
@pytest.mark.parametrize("starter", sorted(STARTERS))
def test_job_of_another_launcher_leaves_no_store_directory(starter, tmp_path):
    argv, extra = STARTERS[starter]
    if shutil.which(argv[0]) is None:
        pytest.skip(f"{argv[0]} is not installed")
    if not PROG.exists():
        pytest.fail(f"{PROG} is missing: build the C++ tree first (make build)")
    env = launcher_env(TMPDIR=str(tmp_path), **extra)
    r = subprocess.run([*argv, str(PROG)], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "p2p_check OK on 2 ranks" in r.stdout
    assert _leftovers(tmp_path) == []


@pytest.mark.timeout(150)
def test_simulated_pmi_job_leaves_no_store_directory(tmp_path):
    """PMI variables set by hand: the two ranks share this process as parent,
    which is what their job id is derived from."""
    if not PROG.exists():
        pytest.fail(f"{PROG} is missing: build the C++ tree first (make build)")
    procs = [subprocess.Popen([str(PROG)], env=launcher_env(TMPDIR=str(tmp_path), PMI_RANK=str(r),
                                                            PMI_SIZE="2"),
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
             for r in range(2)]
    outs = [p.communicate(timeout=120)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    assert _leftovers(tmp_path) == []
