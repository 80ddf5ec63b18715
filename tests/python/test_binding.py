"""Rank binding of `interlace run` (--bind-to, --map-by, --report-bindings;
docs/launcher.md): the report agrees with the masks the ranks really have, the
default keeps crowded hosts working, and the engine's wait policy still sees a
bound job's cores."""
from __future__ import annotations

import os
import re
import sys

import pytest

from conftest import launcher_env, run_interlace

from interlace import _binding
from interlace._binding import Binding, Topology

# Prints what the rank really runs on, for comparison with the launcher's report.
PROBE = """\
import os, sys
if "--init" in sys.argv:
    import interlace
    interlace.init().barrier()
cpus = ",".join(map(str, sorted(os.sched_getaffinity(0))))
print(f"RANK {os.environ['INTERLACE_RANK']} PID {os.getpid()} CPUS {cpus} "
      f"BIND_TO {os.environ['INTERLACE_BIND_TO']} BIND_CPUS [{os.environ['INTERLACE_BIND_CPUS']}] "
      f"HOST_CPUS {os.environ['INTERLACE_HOST_CPUS']}", flush=True)
"""
_REPORT = re.compile(r"^interlace: \[([^:\]]+):(\d+)\] rank (\d+) (.*)$", re.M)
_LINE = re.compile(r"^RANK (\d+) PID (\d+) CPUS (\S+) BIND_TO (\S+) BIND_CPUS \[(\S*)\] "
                   r"HOST_CPUS (\S+)$", re.M)


def _expand(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out += range(int(lo), int(hi or lo) + 1)
    return out


def _host_topology() -> Topology:
    core = pytest.importorskip("interlace._core")
    if not core.topology_available():
        pytest.skip("built without hwloc: no binding")
    topo, why = _binding.load_topology()
    assert topo is not None, why
    return topo


def _run(tmp_path, *opts, init=False, env=None):
    prog = tmp_path / "probe.py"
    prog.write_text(PROBE)
    args = [*opts, "python", prog] + (["--init"] if init else [])
    r = run_interlace("run", "--timeout", 120, *args, timeout=180, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    ranks = {int(m[0]): m for m in _LINE.findall(r.stdout)}
    reports = {int(m[2]): m for m in _REPORT.findall(r.stderr)}
    return r, ranks, reports


def test_bind_to_core_is_reported_and_honoured(tmp_path):
    topo = _host_topology()
    if len(topo.cores) < 2:
        pytest.skip(f"needs 2 cores, the launcher has {len(topo.cores)}")
    r, ranks, reports = _run(tmp_path, "-n", 2, "--bind-to", "core", "--report-bindings")
    assert sorted(ranks) == [0, 1] and sorted(reports) == [0, 1], r.stdout + r.stderr
    masks = []
    for rank in (0, 1):
        _r, pid, cpus, bind_to, bind_cpus, _host_cpus = ranks[rank]
        host, rpid, _rr, what = reports[rank]
        m = re.fullmatch(r"bound to core, cpus (\S+): (\[.*\])", what)
        assert m, what
        assert rpid == pid, "the report names the rank's own process"
        reported = _expand(m[1])
        assert _expand(cpus) == reported, f"rank {rank} runs on {cpus}, report says {m[1]}"
        assert _expand(bind_cpus) == reported and bind_to == "core"
        assert reported in topo.cores, f"{reported} is not one core of {topo.cores}"
        assert m[2].count("B") == len(reported) and m[2].startswith("[")
        masks.append(reported)
    assert masks[0] != masks[1], "two ranks on one core with free cores left"


def test_bind_to_none_gives_the_full_mask(tmp_path):
    full = sorted(os.sched_getaffinity(0))
    r, ranks, reports = _run(tmp_path, "-n", 2, "--bind-to", "none", "--report-bindings")
    for rank in (0, 1):
        assert _expand(ranks[rank][2]) == full
        assert ranks[rank][3] == "none" and ranks[rank][4] == ""
        assert reports[rank][3].startswith("not bound (--bind-to none)"), r.stderr


@pytest.mark.parametrize("flag,value", [("--bind-to", "foo"), ("--map-by", "bar"),
                                        ("--bind-to", "")])
def test_bad_values_are_refused_by_name(flag, value):
    r = run_interlace("run", flag, value, "true")
    assert r.returncode == 2
    assert f"{flag} value {value!r}" in r.stderr and "known:" in r.stderr, r.stderr


def test_crowded_host_runs_unbound_by_default(tmp_path):
    """8 ranks on a host with fewer cores: the default binds none and the
    engine sees the crowd (it yields rather than spins)."""
    topo = _host_topology()
    r, ranks, reports = _run(tmp_path, "-n", 8, "--report-bindings", init=True,
                             env=launcher_env(INTERLACE_LOG="debug"))
    assert sorted(ranks) == list(range(8)), r.stdout + r.stderr
    if len(topo.cores) >= 8:
        return  # not crowded here: the binding test above covers it
    full = sorted(os.sched_getaffinity(0))
    for rank in range(8):
        assert _expand(ranks[rank][2]) == full
        assert "crowded: 8 ranks on" in reports[rank][3], reports[rank][3]
    policies = re.findall(r"wait policy: 8 local ranks on (\d+) cores: spin (\d+), yield (\d+)",
                          r.stderr)
    assert len(policies) == 8 and all(int(y) > 0 for _c, _s, y in policies), r.stderr


def test_bound_ranks_are_not_taken_for_a_crowd(tmp_path):
    """Each bound rank's own mask holds one core; the wait policy must count
    the job's cores (INTERLACE_HOST_CPUS), not that one."""
    topo = _host_topology()
    if len(topo.cores) < 2:
        pytest.skip(f"needs 2 cores, the launcher has {len(topo.cores)}")
    r, ranks, _reports = _run(tmp_path, "-n", 2, "--bind-to", "core", init=True,
                              env=launcher_env(INTERLACE_LOG="debug"))
    full = sorted(os.sched_getaffinity(0))
    assert all(_expand(ranks[k][5]) == full for k in (0, 1))
    policies = re.findall(r"wait policy: 2 local ranks on (\d+) cores: spin (\d+), yield (\d+)",
                          r.stderr)
    assert policies == [(str(len(full)), "2000", "0")] * 2, r.stderr


@pytest.mark.parametrize("value", ["many", "0-", "3-1", "0,,1", "99999999"])
def test_bad_host_cpus_is_named(tmp_path, value):
    pytest.importorskip("interlace._core")
    import subprocess
    prog = tmp_path / "init.py"
    prog.write_text("import interlace\ninterlace.init()\n")
    r = subprocess.run([sys.executable, prog], capture_output=True, text=True, timeout=60,
                       env=launcher_env(INTERLACE_HOST_CPUS=value))
    assert r.returncode != 0 and f"INTERLACE_HOST_CPUS={value}:" in r.stderr, r.stderr


# -- the mapping policy on made-up hosts ------------------------------------------

def _two_sockets() -> Topology:
    """2 packages x 2 cores x 2 hardware threads; PUs numbered as Linux often
    does (siblings far apart)."""
    cores = [[0, 4], [1, 5], [2, 6], [3, 7]]
    return Topology(pus=[[p] for c in cores for p in c], cores=cores,
                    packages=[[0, 1, 4, 5], [2, 3, 6, 7]], numa=[[0, 1, 4, 5], [2, 3, 6, 7]])


def test_map_by_core_packs_and_map_by_socket_deals():
    topo = _two_sockets()
    packed = _binding.plan(topo, "", 3, "core", "core")
    assert [b.cpus for b in packed] == [[0, 4], [1, 5], [2, 6]]
    dealt = _binding.plan(topo, "", 3, "core", "socket")
    assert [b.cpus for b in dealt] == [[0, 4], [2, 6], [1, 5]]
    assert [b.cpus for b in _binding.plan(topo, "", 2, "socket", "core")] == \
        [[0, 1, 4, 5], [0, 1, 4, 5]]
    assert [b.cpus for b in _binding.plan(topo, "", 2, "numa", "socket")] == \
        [[0, 1, 4, 5], [2, 3, 6, 7]]
    assert [b.cpus for b in _binding.plan(topo, "", 2, "hwthread", "hwthread")] == [[0], [4]]
    assert [b.cpus for b in _binding.plan(topo, "", 3, "hwthread", None)] == [[0], [4], [1]]
    assert [b.cpus for b in _binding.plan(topo, "", 2, "hwthread", "core")] == [[0], [1]]
    assert [b.cpus for b in _binding.plan(topo, "", 2, None, "slot")] == [[0, 4], [1, 5]]


def test_crowding_default_unbinds_explicit_wraps():
    topo = _two_sockets()
    default = _binding.plan(topo, "", 5, None, None)
    assert all(b.cpus is None and "crowded: 5 ranks on 4 cores" in b.why for b in default)
    wrapped = _binding.plan(topo, "", 5, "core", None)
    assert [b.cpus for b in wrapped] == [[0, 4], [1, 5], [2, 6], [3, 7], [0, 4]]
    # Without hwloc the default quietly binds none; the reason is kept for the report.
    assert _binding.plan(None, "no hwloc", 2, None, None) == [Binding(None, "none", "no hwloc")] * 2


def test_restriction_and_pictures():
    topo = _two_sockets().restricted({0, 1, 4})
    assert topo.cores == [[0, 4], [1]] and topo.packages == [[0, 1, 4]]
    assert _binding.mask(_two_sockets(), {1, 5}) == "[../BB][../..]"
    assert _binding.cpulist([7, 0, 1, 2, 5]) == "0-2,5,7"
    assert _binding.parse_map_by("package") == "socket"
    with pytest.raises(ValueError, match="'bar'"):
        _binding.parse_map_by("bar")


def test_without_hwloc_default_is_none_and_explicit_is_refused(monkeypatch):
    from interlace import launcher
    monkeypatch.setattr(_binding, "load_topology", lambda: (None, "this build has no hwloc"))

    def planned(*opts):
        o = launcher.parse_args([*opts, "-n", "2", "true"])
        plans = [launcher.RankPlan(r, "h", r, True, ["true"], {}) for r in range(2)]
        launcher.bind_local_ranks(o, plans)
        return plans

    plans = planned()
    assert [p.env["INTERLACE_BIND_TO"] for p in plans] == ["none", "none"]
    assert plans[0].binding.why == "this build has no hwloc"
    with pytest.raises(launcher.UsageError, match="--bind-to core is not possible: this build has no hwloc"):
        planned("--bind-to", "core")


def test_spawned_children_are_not_squeezed_onto_the_parents_core(tmp_path):
    """MPI_Comm_spawn's children inherit the spawning thread's mask; the spawn
    widens it to the job's CPUs first, so a rank bound to one core does not
    put all its children on that core."""
    import subprocess
    from conftest import REPO, installed_script
    topo = _host_topology()
    if len(topo.cores) < 2:
        pytest.skip(f"needs 2 cores, the launcher has {len(topo.cores)}")
    cc = installed_script("interlace-cc")
    if cc is None:
        pytest.skip("interlace-cc is not installed")
    exe = tmp_path / "spawn_affinity"
    src = REPO / "tests" / "python" / "binding_programs" / "spawn_affinity.c"
    b = subprocess.run([cc, "-O1", "-o", exe, src], capture_output=True, text=True, timeout=120)
    assert b.returncode == 0, b.stderr
    r = run_interlace("run", "-n", 1, "--bind-to", "core", "--timeout", 120, exe, timeout=180)
    assert r.returncode == 0, r.stdout + r.stderr
    got = re.findall(r"^(PARENT|CHILD) (\d+) CPUS ([\d ]+) BIND_TO (\S+)$", r.stdout, re.M)
    parents = [g for g in got if g[0] == "PARENT"]
    children = [g for g in got if g[0] == "CHILD"]
    assert len(parents) == 1 and len(children) == 2, r.stdout + r.stderr
    assert parents[0][2].split() == [str(c) for c in topo.cores[0]] and parents[0][3] == "core"
    full = [str(c) for c in sorted(os.sched_getaffinity(0))]
    for c in children:
        assert c[2].split() == full and c[3] == "none", c
