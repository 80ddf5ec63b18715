"""Route generation on every kind of topology: each destination reached along a
shortest path, no loops, only existing links, and an acyclic channel dependency
graph. The properties are checked here by code independent of interlace.routes."""
from __future__ import annotations

from collections import deque

import pytest

from interlace.routes import RoutesError, compute_routes
from interlace.routes import generators as gen
from interlace.routes.check import check_routes


def _bfs(n, edges, dst):
    adj = {r: set() for r in range(n)}
    for a, b in edges:
        adj[a].add(b)
        adj[b].add(a)
    dist = {dst: 0}
    q = deque([dst])
    while q:
        u = q.popleft()
        for v in adj[u]:
            if v not in dist:
                dist[v] = dist[u] + 1
                q.append(v)
    return dist


def _acyclic(nodes_succ):
    """Kahn's algorithm: True when the graph has no cycle."""
    indeg = {}
    for u, vs in nodes_succ.items():
        indeg.setdefault(u, 0)
        for v in vs:
            indeg[v] = indeg.get(v, 0) + 1
    ready = [u for u, d in indeg.items() if d == 0]
    done = 0
    while ready:
        u = ready.pop()
        done += 1
        for v in nodes_succ.get(u, ()):
            indeg[v] -= 1
            if indeg[v] == 0:
                ready.append(v)
    return done == len(indeg)


def verify(topo, routes):
    """Independent checker; returns the longest path in hops."""
    n = topo.ranks
    edges = {(ln.a, ln.b) for ln in topo.links} | {(ln.b, ln.a) for ln in topo.links}
    assert routes.ranks == n
    assert 1 <= routes.vcs <= 8
    deps = {}
    longest = 0
    for d in range(n):
        dist = _bfs(n, edges, d)
        for s in range(n):
            if s == d:
                continue
            path, seen = [s], {s}
            while path[-1] != d:
                nxt = routes.next[path[-1]][d]
                assert (path[-1], nxt) in edges, f"{path[-1]} -> {nxt} is not a link"
                assert nxt not in seen, f"loop on the way {s} -> {d}: {path + [nxt]}"
                seen.add(nxt)
                path.append(nxt)
            assert len(path) - 1 == dist[s], f"{s} -> {d}: {path} is not shortest ({dist[s]})"
            vc = routes.vc[s][d]
            assert 0 <= vc < routes.vcs
            for i in range(len(path) - 2):
                deps.setdefault((path[i], path[i + 1], vc), set()).add((path[i + 1], path[i + 2], vc))
            longest = max(longest, len(path) - 1)
    assert _acyclic(deps), "channel dependency graph has a cycle"
    return longest


TOPOLOGIES = [
    *(gen.ring(n) for n in (2, 3, 4, 8)),
    gen.mesh([4, 4]), gen.mesh([3, 5]), gen.mesh([2, 2, 2]), gen.mesh([3, 3, 3]),
    gen.torus([4, 4]), gen.torus([3, 4]), gen.torus([5, 5]), gen.torus([2, 2, 2]),
    gen.torus([4, 4, 4]),
    gen.full(1), gen.full(2), gen.full(5), gen.full(9),
    *(gen.random_graph(n, seed) for n, seed in ((5, 0), (8, 1), (12, 2), (16, 3), (24, 4), (40, 5))),
]


@pytest.mark.parametrize("topo", TOPOLOGIES, ids=lambda t: t.source.replace(" ", "-"))
def test_routes_are_shortest_loop_free_and_deadlock_free(topo):
    topo.validate()
    routes = compute_routes(topo)
    verify(topo, routes)
    rep = check_routes(topo, routes)
    assert rep.ok and not rep.warnings, rep.errors + rep.warnings


@pytest.mark.parametrize("n,diameter", [(2, 1), (3, 1), (4, 2), (8, 4)])
def test_ring_needs_two_vcs_from_four_ranks(n, diameter):
    routes = compute_routes(gen.ring(n))
    assert verify(gen.ring(n), routes) == diameter
    # Shortest paths on a ring of 4 or more close a cycle on one VC: the dateline.
    assert routes.vcs == (2 if n >= 4 else 1)


def test_mesh_routes_use_one_vc():
    # Lowest-port tie-breaks are dimension order on meshes: no cycle at all.
    assert compute_routes(gen.mesh([4, 4, 4])).vcs == 1


def test_random_graphs_are_connected_deterministic_and_have_four_ports():
    for seed in range(10):
        a, b = gen.random_graph(20, seed), gen.random_graph(20, seed)
        assert a.links == b.links
        a.validate()
        for r in range(20):
            assert len(a.ports(r)) <= 4
    assert gen.random_graph(20, 1).links != gen.random_graph(20, 2).links


def test_routes_are_deterministic():
    t = gen.random_graph(16, 7)
    a, b = compute_routes(t), compute_routes(gen.random_graph(16, 7))
    assert (a.next, a.vc, a.vcs) == (b.next, b.vc, b.vcs)


def test_vc_cap_names_the_pair():
    with pytest.raises(RoutesError, match=r"need more than 1 virtual channels \(the pair \d+ -> \d+"):
        compute_routes(gen.ring(8), max_vcs=1)
