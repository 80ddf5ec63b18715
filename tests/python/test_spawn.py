"""MPI_Comm_spawn beyond tests/mpi/conf_spawn.c's conformance run (test_mpi.py runs that
at 1-3 ranks, over tcp and under Open MPI): its fault modes, which only interlace runs,
and mpi4py.futures.MPIPoolExecutor when mpi4py can be imported here (built for this
interlace; docs/mpi.md, "mpi4py"). Every run is bounded: a hang fails the test."""
from __future__ import annotations

import importlib.util
import os
import textwrap
import time

import pytest

from conftest import launcher_env, run_interlace
from test_mpi import CONF_BIN, BUILD, binary

RUN_S = 90


def run_mode(n: int, *args, **env):
    prog = binary(CONF_BIN, "conf_spawn")
    return run_interlace("run", "-n", n, "--timeout", RUN_S, prog, *args, timeout=RUN_S + 20,
                         env=launcher_env(**env))


@pytest.mark.parametrize("n", [1, 2])
def test_children_that_never_call_mpi_init_fail_the_spawn(n):
    # `true` exits at once: the parents must get MPI_ERR_SPAWN once the connection
    # times out (5 s here), not wait forever.
    t0 = time.monotonic()
    r = run_mode(n, "fault-unstarted", INTERLACE_CONNECT_TIMEOUT="5")
    assert r.returncode == 0 and "OK fault-unstarted" in r.stdout, r.stdout + r.stderr
    assert time.monotonic() - t0 < RUN_S


@pytest.mark.parametrize("n", [1, 2])
def test_a_child_that_dies_fails_a_receive_from_it(n):
    r = run_mode(n, "fault-lost")
    assert r.returncode == 0 and "OK fault-lost" in r.stdout, r.stdout + r.stderr


@pytest.mark.parametrize("n", [1, 2])
def test_parents_may_finalize_and_exit_before_their_children(n, tmp_path):
    marker = tmp_path / "child-finalized"
    r = run_mode(n, "independent", marker)
    assert r.returncode == 0 and "OK independent" in r.stdout, r.stdout + r.stderr
    # The spawning process waits for its children at exit, so the file is there by now.
    assert marker.exists(), "a child did not get through MPI_Finalize after its parents left:\n" + r.stderr


POOL = textwrap.dedent("""\
    import sys
    from mpi4py import MPI
    from mpi4py.futures import MPIPoolExecutor

    def main():
        try:
            with MPIPoolExecutor(max_workers=2) as ex:
                got = list(ex.map(pow, range(16), [2] * 16))
        except NotImplementedError:
            print("mpi4py was built without MPI_Comm_spawn")
            sys.exit(77)
        assert got == [i * i for i in range(16)], got
        MPI.COMM_WORLD.Barrier()
        if MPI.COMM_WORLD.Get_rank() == 0:
            print("OK pool")

    if __name__ == "__main__":
        main()
    """)


@pytest.mark.parametrize("n", [1, 2])
def test_mpi4py_pool_executor_spawns_workers(n, tmp_path):
    if importlib.util.find_spec("mpi4py") is None:
        pytest.skip("mpi4py is not importable here (PYTHONPATH to an mpi4py built for interlace)")
    lib = BUILD / "libinterlace.so"
    if not lib.exists():
        pytest.skip(f"{lib} is missing (build the tree first)")
    script = tmp_path / "pool.py"
    script.write_text(POOL)
    ld = os.pathsep.join(filter(None, [str(BUILD), os.environ.get("LD_LIBRARY_PATH")]))
    r = run_interlace("run", "-n", n, "--timeout", RUN_S, "python", script, timeout=RUN_S + 20,
                      env=launcher_env(LD_LIBRARY_PATH=ld))
    if r.returncode == 77:
        pytest.skip(r.stdout.strip())
    assert r.returncode == 0 and "OK pool" in r.stdout, r.stdout + r.stderr
