"""Routed jobs on every kind of topology (issue 12): `interlace run --topology` generates
the tables on the fly (rings, meshes, tori, full and random graphs) and the p2p battery
(every pair of ranks exchanges messages of every protocol) runs through them with one
credit per link and virtual channel, the smallest buffers, where a routing deadlock
would show. Also the collective battery (alltoall among others) on a torus, and the
p2p battery on the simulated fabric over a random graph."""
from __future__ import annotations

import pytest

from conftest import launcher_env, run_interlace
from test_multiproc import program

TOPOLOGIES = [
    ("ring", "5", None), ("mesh", "2x3", None), ("torus", "2x3", None), ("torus", "3x3", None),
    ("mesh", "2x2x2", None), ("full", "4", None), ("random", "6", "1"), ("random", "7", "2"),
]


def topology(tmp_path, kind: str, size: str, seed: str | None):
    path = tmp_path / f"{kind}-{size}.json"
    extra = ["--seed", seed] if seed else []
    r = run_interlace("routes", "topo", kind, size, *extra, "-o", path)
    assert r.returncode == 0, r.stdout + r.stderr
    r = run_interlace("routes", "show", path)
    ranks = int(r.stdout.split("ranks ", 1)[1].split(",", 1)[0])
    return path, ranks


def routed(tmp_path, prog: str, kind: str, size: str, seed: str | None, fabric: str = "shm"):
    path, n = topology(tmp_path, kind, size, seed)
    r = run_interlace("run", "-n", n, "--fabric", fabric, "--topology", path, "--timeout", 120,
                      program(prog), timeout=150, env=launcher_env(INTERLACE_ROUTE_CREDITS="1"))
    return r, n


@pytest.mark.timeout(160)
@pytest.mark.parametrize("kind,size,seed", TOPOLOGIES, ids=lambda v: str(v))
def test_p2p_battery_routed_with_one_credit(tmp_path, kind, size, seed):
    r, n = routed(tmp_path, "p2p_check", kind, size, seed)
    assert f"p2p_check OK on {n} ranks" in r.stdout, r.stdout + r.stderr


@pytest.mark.timeout(160)
def test_collective_battery_routed_on_a_torus(tmp_path):
    r, n = routed(tmp_path, "coll_check", "torus", "2x3", None)
    assert f"coll_check OK on {n} ranks" in r.stdout, r.stdout + r.stderr


@pytest.mark.timeout(160)
def test_p2p_battery_on_the_simulator_over_a_random_graph(tmp_path):
    r, n = routed(tmp_path, "p2p_check", "random", "6", "3", fabric="sim")
    assert f"p2p_check OK on {n} ranks" in r.stdout, r.stdout + r.stderr
