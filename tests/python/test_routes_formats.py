"""Topology forms (SMI's JSON, compact, generator), their errors, and round trips of
routes.txt and SMI's table files."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from interlace.routes import RoutesError, compute_routes, load_topology, read_routes, write_dir
from interlace.routes import generators as gen
from interlace.routes.check import check_smi
from interlace.routes.smi_format import ckr_table, read_cks_files
from interlace.routes.tables import format_routes, parse_routes

DATA = Path(__file__).parent / "routes_data"


def _write(tmp_path, obj, name="t.json"):
    p = tmp_path / name
    p.write_text(obj if isinstance(obj, str) else json.dumps(obj))
    return str(p)


def test_smi_json_ranks_by_sorted_device_name():
    t = load_topology(str(DATA / "smi_two_nodes.json"))
    assert t.ranks == 4
    assert t.names == ["nodeA:acl0", "nodeA:acl1", "nodeB:acl0", "nodeB:acl1"]
    # nodeA:acl0 ch1 <-> nodeB:acl0 ch0 is rank 0 port 1 <-> rank 2 port 0.
    assert t.ports(0)[1] == (2, 0)
    assert t.ports(1)[2] == (0, 3) and t.ports(1)[3] == (0, 2)  # parallel links
    routes = compute_routes(t)
    # With two links between ranks 0 and 1, routes take rank 0's lowest port (2).
    assert t.neighbours(0) == [(1, 2), (2, 1)]
    assert len([ln for ln in routes.links if {ln.a, ln.b} == {0, 1}]) == 1


def test_compact_form_assigns_free_ports_and_generator_form(tmp_path):
    t = load_topology(_write(tmp_path, {"ranks": 3, "links": [[0, 1], [1, 0, 2, 0], [2, 0]]}))
    assert t.ports(0) == {0: (1, 1), 1: (2, 1)}
    assert t.ports(1) == {0: (2, 0), 1: (0, 0)}
    g = load_topology(_write(tmp_path, {"generator": "torus", "dims": [4, 4]}))
    assert g.ranks == 16 and len(g.links) == 32
    r = load_topology(_write(tmp_path, {"generator": "random", "ranks": 8, "seed": 1}))
    assert r.links == gen.random_graph(8, 1).links


@pytest.mark.parametrize("obj,msg", [
    ({"ranks": 3, "links": [[0, 0, 1, 0], [0, 0, 2, 0]]}, r"port 0 of rank 0 is used twice"),
    ({"ranks": 3, "links": [[0, 1]]}, r"disconnected: rank 2 cannot be reached"),
    ({"ranks": 2, "links": [[1, 0, 1, 1]]}, r"link from rank 1 to itself"),
    ({"ranks": 2, "links": [[0, 0, 5, 0]]}, r"names rank 5, outside the 2 ranks"),
    ({"ranks": 2, "links": [[0, 4, 1, 0]], "ports": 4}, r"port 4 of rank 0 is outside 0..3"),
    ({"ranks": 2, "links": [[0, "x"]]}, r"link 0 \(\[0, \"x\"\]\) must be an integer"),
    ({"fpgas": {"n:a": "p"}, "connections": {"n:a:ch0": "n:b:ch0"}}, r"unknown device 'n:b'"),
    ({"connections": {"n:a:ch4": "n:b:ch0"}}, r"channel 4 is beyond SMI's 4 channels"),
    ({"connections": {"n:a:ch0": "n:b:ch0", "n:a:ch1": "n:b:ch0"}},
     r"port 0 of rank 1 \(n:b\) is used twice"),
    ({"fpgas": {"n:a": "p", "n:b": "p", "n:c": "p"}, "connections": {"n:a:ch0": "n:b:ch0"}},
     r"rank 2 \(n:c\) cannot be reached"),
    ({"generator": "hypercube", "ranks": 4}, r"unknown generator \"hypercube\""),
    ({"nodes": 3}, r"not a topology"),
])
def test_bad_topologies_name_the_value(tmp_path, obj, msg):
    with pytest.raises(RoutesError, match=msg):
        load_topology(_write(tmp_path, obj))


def test_bad_json_names_file_line_and_column(tmp_path):
    p = _write(tmp_path, '{\n  "ranks": 2,\n  "links": [[0, 1],]\n}')
    with pytest.raises(RoutesError, match=r"t\.json:3:20: bad JSON: Expecting value"):
        load_topology(p)


def test_random_generator_keeps_the_port_limit():
    t = gen.random_graph(30, 3)
    assert t.port_limit == 4 and max(len(t.ports(r)) for r in range(30)) <= 4


@pytest.mark.parametrize("topo", [gen.ring(8), gen.torus([4, 4]), gen.random_graph(12, 2),
                                  gen.mesh([3, 3])], ids=lambda t: t.source)
def test_routes_txt_and_smi_files_round_trip(tmp_path, topo):
    routes = compute_routes(topo)
    write_dir(topo, routes, str(tmp_path))
    back = read_routes(str(tmp_path))
    assert (back.ranks, back.vcs, back.scheme) == (routes.ranks, routes.vcs, "lash")
    assert back.next == routes.next and back.vc == routes.vc and back.links == routes.links
    assert format_routes(back) == format_routes(routes)
    tables = read_cks_files(str(tmp_path), topo.ranks)
    # SMI's tables, followed from any channel a packet enters on, take routes' next hops.
    from interlace.routes.smi_format import smi_step
    for r in range(topo.ranks):
        for d in range(topo.ranks):
            if r == d:
                continue
            for ch in range(4):
                kind, port = smi_step(tables, r, ch, d)
                if kind == "cks":
                    kind, port = smi_step(tables, r, port, d)
                assert kind == "qsfp" and topo.ports(r)[port][0] == routes.next[r][d]
            assert smi_step(tables, d, 0, d) == ("ckr", 0)
    # Rewriting what was read gives the same bytes.
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    write_dir(topo, back, str(tmp_path / "again"))
    after = {p.name: p.read_bytes() for p in (tmp_path / "again").iterdir()}
    assert before == after


def test_smi_file_layout_byte_for_byte(tmp_path):
    # 2x2 mesh: rank 0 reaches 1 on port 0 (+x) and 2 on port 2 (+y); 3 via 1.
    topo = gen.mesh([2, 2])
    write_dir(topo, compute_routes(topo), str(tmp_path))
    assert (tmp_path / "cks-rank0-channel0").read_bytes() == bytes([1, 0, 3, 0])
    assert (tmp_path / "cks-rank0-channel2").read_bytes() == bytes([1, 2, 0, 2])
    assert (tmp_path / "cks-rank3-channel1").read_bytes() == bytes([0, 4, 0, 1])
    # No SMI program: one logical port, nothing for the CK_R to deliver.
    assert (tmp_path / "ckr-rank0-channel0").read_bytes() == bytes([0, 0])
    assert len([p for p in os.listdir(tmp_path) if p.startswith(("cks-", "ckr-"))]) == 32


def test_ckr_tables_follow_smis_round_robin_allocation():
    # SMI's own expectation for push 0, pop 1, push 2, pop 3, pop 4 (its codegen tests).
    ops = [("push", 0), ("pop", 1), ("push", 2), ("pop", 3), ("pop", 4)]
    assert list(ckr_table(ops, 0)) == [0, 3, 4, 0, 0, 5, 1, 0, 2, 0]
    assert list(ckr_table(ops, 1)) == [0, 3, 1, 0, 0, 1, 4, 0, 2, 0]
    assert list(ckr_table(ops, 2)) == [0, 3, 1, 0, 0, 1, 2, 0, 4, 0]
    assert list(ckr_table(ops, 3)) == [0, 4, 1, 0, 0, 1, 2, 0, 3, 0]


def test_smi_tables_checked_with_one_vc(tmp_path):
    mesh = gen.mesh([2, 3])
    write_dir(mesh, compute_routes(mesh), str(tmp_path / "m"))
    assert check_smi(mesh, read_cks_files(str(tmp_path / "m"), 6)).ok
    ring = gen.ring(4)
    write_dir(ring, compute_routes(ring), str(tmp_path / "r"))
    rep = check_smi(ring, read_cks_files(str(tmp_path / "r"), 4))
    assert any("0->1 vc0, 1->2 vc0, 2->3 vc0, 3->0 vc0" in e for e in rep.errors), rep.errors


def test_smi_tables_errors(tmp_path):
    topo = gen.mesh([2, 2])
    write_dir(topo, compute_routes(topo), str(tmp_path))
    (tmp_path / "cks-rank0-channel1").write_bytes(bytes([1, 0, 1, 0]))  # port 1 unlinked
    rep = check_smi(topo, read_cks_files(str(tmp_path), 4))
    assert any("cks-rank0-channel1 sends packets for rank 1 out of channel 1, which has no link"
               in e for e in rep.errors), rep.errors
    assert any("hands packets for rank 2 to its CK_R" in e for e in rep.errors), rep.errors
    (tmp_path / "cks-rank2-channel3").write_bytes(bytes([1, 0]))
    with pytest.raises(RoutesError, match=r"cks-rank2-channel3: 2 bytes, want one per rank \(4\)"):
        read_cks_files(str(tmp_path), 4)


@pytest.mark.parametrize("text,msg", [
    ("ranks 2\n", r"r:1: expected the header"),
    ("interlace-routes 1\nranks 2\nnext 0 1\n", r"r:3: 'next' takes 3 values, got 2"),
    ("interlace-routes 1\nranks 2\nvcs 9\n", r"r:3: vcs 9 is outside 1..8"),
    ("interlace-routes 1\nranks 2\nnext 0 5 1\n", r"r:3: rank 5 is outside the 2 ranks"),
    ("interlace-routes 1\nranks 2\nvc 0 1 1\n", r"r:3: vc 1 is not below vcs 1"),
    ("interlace-routes 1\nranks 2\nhop 0 1 1\n", r"r:3: unknown entry 'hop'"),
])
def test_routes_txt_syntax_errors(text, msg):
    with pytest.raises(RoutesError, match=msg):
        parse_routes(text, "r")
