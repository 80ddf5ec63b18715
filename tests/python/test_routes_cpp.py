"""The C++ reader (interlace::fabric::load_route_table) accepts what `interlace
routes gen` writes, agrees on VCs, diameter and acyclicity, and finds the same cycle
in a deliberately cyclic table."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conftest import installed_script, launcher_env, run_interlace

from interlace.routes import compute_routes, write_dir
from interlace.routes import generators as gen

SRC = Path(__file__).parent / "routes_data" / "route_table_reader.cpp"


@pytest.fixture(scope="module")
def reader(tmp_path_factory):
    cxx = installed_script("interlace-c++")
    if cxx is None:
        pytest.skip("needs the installed package's interlace-c++")
    exe = tmp_path_factory.mktemp("reader") / "reader"
    r = subprocess.run([cxx, "-std=c++20", "-O1", str(SRC), "-o", str(exe)],
                       capture_output=True, text=True, timeout=300, env=launcher_env())
    if r.returncode != 0 and "route_table.hpp" in r.stderr:
        pytest.skip("the installed headers have no route_table.hpp")
    assert r.returncode == 0, r.stderr
    return str(exe)


@pytest.mark.parametrize("topo", [gen.ring(2), gen.ring(8), gen.mesh([3, 3]), gen.torus([4, 4]),
                                  gen.torus([3, 3, 3]), gen.full(6), gen.random_graph(12, 3)],
                         ids=lambda t: t.source.replace(" ", "-"))
def test_cpp_reader_accepts_generated_tables(tmp_path, reader, topo):
    routes = compute_routes(topo)
    write_dir(topo, routes, str(tmp_path))
    diameter = max((len(routes.path(s, d)) - 1 for s in range(topo.ranks)
                    for d in range(topo.ranks) if s != d), default=0)
    r = subprocess.run([reader, str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout == f"ranks {topo.ranks} vcs {routes.vcs} diameter {diameter} cycle []\n"


def test_cpp_reader_finds_the_same_cycle(tmp_path, reader):
    links = "link 0 0 1 1\nlink 0 1 3 0\nlink 1 0 2 1\nlink 2 0 3 1\n"
    nexts = "".join(f"next {c} {d} {(c + 1) % 4}\n" for c in range(4) for d in range(4) if c != d)
    vcs = "".join(f"vc {s} {d} 0\n" for s in range(4) for d in range(4) if s != d)
    (tmp_path / "routes.txt").write_text(f"interlace-routes 1\nranks 4\nvcs 1\n{links}{nexts}{vcs}")
    r = subprocess.run([reader, str(tmp_path)], capture_output=True, text=True, timeout=60)
    cycle = "0->1 vc0, 1->2 vc0, 2->3 vc0, 3->0 vc0"
    assert f"cycle [{cycle}]" in r.stdout, r.stdout
    run_interlace("routes", "topo", "ring", "4", "-o", tmp_path / "r4.json")
    py = run_interlace("routes", "check", tmp_path / "r4.json", tmp_path)
    assert py.returncode == 1 and cycle in py.stdout
