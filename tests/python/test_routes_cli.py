"""`interlace routes gen|check|show|topo` and `interlace run --topology/--routes/--preset`."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import launcher_env, run_interlace


def routes_module(*args, cwd=None):
    """`python -m interlace.routes`, the fixture generator other tests can use."""
    return subprocess.run([sys.executable, "-m", "interlace.routes", *map(str, args)],
                          capture_output=True, text=True, timeout=120, env=launcher_env(), cwd=cwd)


@pytest.fixture
def ring4(tmp_path):
    r = run_interlace("routes", "topo", "ring", "4", "-o", tmp_path / "r4.json")
    assert r.returncode == 0, r.stderr
    return tmp_path / "r4.json"


RING4_LINKS = "link 0 0 1 1\nlink 0 1 3 0\nlink 1 0 2 1\nlink 2 0 3 1\n"


def _table(tmp_path, nxt, vcs=1, vc=lambda s, d: 0, links=RING4_LINKS, drop=()):
    lines = ["interlace-routes 1", "ranks 4", f"vcs {vcs}", "scheme hand", links.strip()]
    lines += [f"next {c} {d} {nxt(c, d)}" for c in range(4) for d in range(4)
              if c != d and ("next", c, d) not in drop]
    lines += [f"vc {s} {d} {vc(s, d)}" for s in range(4) for d in range(4)
              if s != d and ("vc", s, d) not in drop]
    out = tmp_path / "hand"
    out.mkdir(exist_ok=True)
    (out / "routes.txt").write_text("\n".join(lines) + "\n")
    return out


@pytest.mark.parametrize("kind,size,ranks", [("ring", "8", 8), ("torus", "4x4", 16),
                                              ("mesh", "2x2x2", 8), ("full", "5", 5),
                                              ("random", "8", 8)])
def test_topo_gen_check_show(tmp_path, kind, size, ranks):
    topo = tmp_path / "t.json"
    r = routes_module("topo", kind, size, "--seed", "1", "-o", topo)
    assert r.returncode == 0, r.stderr
    assert json.loads(topo.read_text())["ranks"] == ranks
    r = routes_module("gen", topo, "-o", tmp_path / "d")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "d" / "routes.txt").read_text().startswith("interlace-routes 1\n")
    r = run_interlace("routes", "check", topo, tmp_path / "d")
    assert r.returncode == 0 and "ok: correct and deadlock-free" in r.stdout, r.stdout + r.stderr
    r = run_interlace("routes", "show", tmp_path / "d", "--from", 0, "--to", ranks - 1)
    assert r.returncode == 0 and f"0 -> {ranks - 1}: 0 -> " in r.stdout, r.stdout + r.stderr


def test_show_reports_links_paths_vcs_and_diameter(tmp_path):
    topo = tmp_path / "r8.json"
    routes_module("topo", "ring", "8", "-o", topo)
    r = run_interlace("routes", "show", topo)
    assert r.returncode == 0, r.stderr
    assert "ranks 8, links 8, scheme lash, vcs used 2, diameter 4" in r.stdout
    assert "link 0:0 <-> 1:1" in r.stdout
    assert "0 -> 3: 0 -> 1 -> 2 -> 3  (3 hops, vc " in r.stdout
    r = run_interlace("routes", "show", topo, "--from", 9)
    assert r.returncode == 1 and "rank 9 is outside the 8 ranks" in r.stderr


def test_smi_topology_gen_and_check(tmp_path):
    topo = tmp_path / "smi.json"
    assert routes_module("topo", "torus", "4x4", "--smi", "-o", topo).returncode == 0
    assert "connections" in json.loads(topo.read_text())
    assert routes_module("gen", topo, "-o", tmp_path / "d").returncode == 0
    assert (tmp_path / "d" / "cks-rank15-channel3").stat().st_size == 16
    r = run_interlace("routes", "check", topo, tmp_path / "d", "--smi")
    # A torus has rings: SMI's single VC closes a dependency cycle.
    assert r.returncode == 1 and "channel dependency cycle with SMI's single VC" in r.stdout
    r = routes_module("topo", "torus", "2x2x3", "--smi")
    assert r.returncode == 1 and "port 4 of rank 0 does not fit SMI's 4 channels" in r.stderr


def test_check_rejects_a_cyclic_table_naming_the_cycle(tmp_path, ring4):
    hand = _table(tmp_path, lambda c, d: (c + 1) % 4)  # all clockwise, one VC
    r = run_interlace("routes", "check", ring4, hand)
    assert r.returncode == 1
    assert "channel dependency cycle (can deadlock): 0->1 vc0, 1->2 vc0, 2->3 vc0, 3->0 vc0" \
        in r.stdout, r.stdout
    assert "warning:" in r.stdout and "0 -> 3 takes 3 hops, the shortest path has 1" in r.stdout


def test_check_accepts_a_hand_written_two_vc_table(tmp_path, ring4):
    # Shortest paths, opposite ranks clockwise: 0->2, 1->3, 2->0 and 3->1 close a cycle
    # on one VC; moving the pair 3->1 to vc 1 breaks it.
    shortest = lambda c, d: d if abs(c - d) != 2 else (c + 1) % 4  # noqa: E731
    hand = _table(tmp_path, shortest)
    r = run_interlace("routes", "check", ring4, hand)
    assert r.returncode == 1 and "0->1 vc0, 1->2 vc0, 2->3 vc0, 3->0 vc0" in r.stdout, r.stdout
    hand = _table(tmp_path, shortest, vcs=2, vc=lambda s, d: int((s, d) == (3, 1)))
    r = run_interlace("routes", "check", ring4, hand)
    assert r.returncode == 0 and "warning:" not in r.stdout, r.stdout


def test_check_rejects_a_link_that_does_not_exist(tmp_path, ring4):
    hand = _table(tmp_path, lambda c, d: d if abs(c - d) != 2 else (c + 1) % 4,
                  links=RING4_LINKS + "link 0 2 2 2\n")
    r = run_interlace("routes", "check", ring4, hand)
    assert r.returncode == 1 and "link 0:2 - 2:2 is not in the topology" in r.stdout, r.stdout
    hand = _table(tmp_path, lambda c, d: d)  # 0 -> 2 directly: no such link
    r = run_interlace("routes", "check", ring4, hand)
    assert r.returncode == 1
    assert "rank 0 forwards frames for 2 to rank 2, but no link joins 0 and 2" in r.stdout


def test_check_rejects_missing_entries(tmp_path, ring4):
    good = lambda c, d: d if abs(c - d) != 2 else (c + 1) % 4  # noqa: E731
    hand = _table(tmp_path, good, drop={("next", 1, 3), ("vc", 2, 0)})
    r = run_interlace("routes", "check", ring4, hand)
    assert r.returncode == 1
    assert "no next hop from rank 1 to 3" in r.stdout and "no vc for the pair 2 -> 0" in r.stdout


def test_check_rejects_a_loop_and_a_size_mismatch(tmp_path, ring4):
    hand = _table(tmp_path, lambda c, d: 1 if (c, d) == (0, 2) else 0 if (c, d) == (1, 2)
                  else d if abs(c - d) != 2 else (c + 1) % 4)
    r = run_interlace("routes", "check", ring4, hand)
    assert r.returncode == 1 and "routes from 0 to 2 loop: 0 -> 1 -> 0" in r.stdout, r.stdout
    routes_module("topo", "ring", "5", "-o", tmp_path / "r5.json")
    r = run_interlace("routes", "check", tmp_path / "r5.json", hand)
    assert r.returncode == 1 and "4 ranks, the topology" in r.stdout


@pytest.mark.parametrize("obj,msg", [
    ({"ranks": 3, "links": [[0, 0, 1, 0], [0, 0, 2, 0]]}, "port 0 of rank 0 is used twice"),
    ({"ranks": 3, "links": [[0, 1]]}, "disconnected: rank 2 cannot be reached from rank 0"),
    ({"connections": {"a:b:ch0": "a:b:ch1"}}, "link from rank 0 (a:b) to itself"),
])
def test_gen_bad_topology_exits_1_naming_the_value(tmp_path, obj, msg):
    (tmp_path / "bad.json").write_text(json.dumps(obj))
    r = run_interlace("routes", "gen", tmp_path / "bad.json", "-o", tmp_path / "d")
    assert r.returncode == 1 and msg in r.stderr, r.stderr
    assert not (tmp_path / "d").exists()


def test_routes_usage_errors(tmp_path):
    r = run_interlace("routes", "frobnicate")
    assert r.returncode == 2 and "unknown command 'frobnicate'" in r.stderr
    r = run_interlace("routes", "topo", "torus", "4by4")
    assert r.returncode == 1 and "dimensions '4by4' are not like 4x4" in r.stderr
    r = run_interlace("routes", "gen", tmp_path / "missing.json", "-o", tmp_path / "d")
    assert r.returncode == 1 and "missing.json: cannot read the topology" in r.stderr
    assert run_interlace("routes", "--help").returncode == 0


def test_run_sets_interlace_routes_and_removes_generated_tables(tmp_path, ring4):
    prog = "echo ROUTES=$INTERLACE_ROUTES; test -f $INTERLACE_ROUTES/routes.txt"
    r = run_interlace("run", "-n", 4, "--topology", ring4, "sh", "-c", prog)
    assert r.returncode == 0, r.stdout + r.stderr
    dirs = {line.split("=", 1)[1] for line in r.stdout.splitlines() if line.startswith("ROUTES=")}
    assert len(dirs) == 1
    assert not os.path.exists(dirs.pop())  # the temporary tables are gone after the job
    assert routes_module("gen", ring4, "-o", tmp_path / "d").returncode == 0
    r = run_interlace("run", "-n", 4, "--topology", ring4, "--routes", tmp_path / "d",
                      "sh", "-c", "echo ROUTES=$INTERLACE_ROUTES", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.count(f"ROUTES={tmp_path / 'd'}\n") == 4, r.stdout


def test_run_topology_errors(tmp_path, ring4):
    r = run_interlace("run", "-n", 3, "--topology", ring4, "true")
    assert r.returncode == 2 and "-n 3 does not match the topology" in r.stderr
    assert "which has 4 ranks" in r.stderr
    (tmp_path / "bad.json").write_text('{"ranks": 2, "links": []}')
    r = run_interlace("run", "-n", 2, "--topology", tmp_path / "bad.json", "true")
    assert r.returncode == 2 and "disconnected: rank 1" in r.stderr
    r = run_interlace("run", "-n", 4, "--preset", "vax", "true")
    assert r.returncode == 2 and "unknown preset 'vax' (known: smi, fshmem, accl, cloudfpga)" in r.stderr
    r = run_interlace("run", "-n", 4, "--preset", "smi", "true")
    assert r.returncode == 2 and "--preset smi goes with --fabric sim" in r.stderr
