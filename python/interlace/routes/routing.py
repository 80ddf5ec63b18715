"""Shortest, destination-based, deadlock-free routes (layered shortest paths).

next[cur][dst] is the neighbour on a shortest path to dst: of cur's neighbours one
hop closer, the one on cur's lowest port (so every frame of a pair takes one path
and per-pair order holds). Each (src, dst) pair's path is then put into the first
virtual channel ("layer") whose channel dependency graph stays acyclic with it,
LASH-style; a pair keeps its VC on every hop. Why this choice: docs/routing.md.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .topology import Link, RoutesError, Topology

MAX_VCS = 8


@dataclass
class Routes:
    ranks: int
    links: list[Link]                 # one per linked pair, the ones next hops use
    next: list[list[int]]             # next[cur][dst]; -1 on the diagonal (or missing)
    vc: list[list[int]]               # vc[src][dst]; -1 on the diagonal (or missing)
    vcs: int = 1
    scheme: str = "lash"
    notes: list[str] = field(default_factory=list)  # comments kept from a file

    def path(self, src: int, dst: int) -> list[int]:
        """src first, dst last; raises RoutesError on a loop or a missing entry."""
        p = [src]
        while p[-1] != dst:
            nxt = self.next[p[-1]][dst]
            if nxt < 0:
                raise RoutesError(f"no route from rank {p[-1]} to {dst} (on the way from {src})")
            p.append(nxt)
            if len(p) > self.ranks:
                raise RoutesError(f"routes from {src} to {dst} loop: {' -> '.join(map(str, p))}")
        return p


class _Layer:
    """One VC's channel dependency graph over directed links (u, v)."""

    def __init__(self) -> None:
        self.succ: dict[tuple[int, int], set[tuple[int, int]]] = {}

    def _reaches(self, start, goal) -> bool:
        seen, stack = {start}, [start]
        while stack:
            x = stack.pop()
            if x == goal:
                return True
            for y in self.succ.get(x, ()):
                if y not in seen:
                    seen.add(y)
                    stack.append(y)
        return False

    def try_add(self, deps: list[tuple[tuple[int, int], tuple[int, int]]]) -> bool:
        new = [(a, b) for a, b in deps if b not in self.succ.get(a, ())]
        for a, b in new:
            self.succ.setdefault(a, set()).add(b)
        # The graph was acyclic before, so any cycle now runs through a new edge a->b,
        # i.e. b reaches a.
        if any(self._reaches(b, a) for a, b in new):
            for a, b in new:
                self.succ[a].discard(b)
            return False
        return True


def next_hops(topo: Topology) -> list[list[int]]:
    n = topo.ranks
    nbrs = [topo.neighbours(r) for r in range(n)]
    nxt = [[-1] * n for _ in range(n)]
    for d in range(n):
        dist = topo.distances(d)
        for cur in range(n):
            if cur == d:
                continue
            if dist[cur] < 0:
                raise RoutesError(f"{topo.source}: {topo.name(cur)} cannot reach {topo.name(d)}")
            nxt[cur][d] = next(nb for _, nb in nbrs[cur] if dist[nb] == dist[cur] - 1)
    return nxt


def compute_routes(topo: Topology, max_vcs: int = MAX_VCS) -> Routes:
    """Routes for a validated topology. Raises RoutesError when more than max_vcs
    virtual channels would be needed."""
    n = topo.ranks
    nxt = next_hops(topo)
    routes = Routes(n, topo.route_links(), nxt, [[-1] * n for _ in range(n)])
    paths = {(s, d): routes.path(s, d) for s in range(n) for d in range(n) if s != d}
    layers: list[_Layer] = []
    # Longest paths first: they are the hardest to fit, and placing them while the
    # layers are empty keeps the VC count low. Ties in rank order: deterministic.
    for (s, d), p in sorted(paths.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        deps = [((p[i], p[i + 1]), (p[i + 1], p[i + 2])) for i in range(len(p) - 2)]
        for k, layer in enumerate(layers):
            if layer.try_add(deps):
                routes.vc[s][d] = k
                break
        else:
            if len(layers) == max_vcs:
                raise RoutesError(
                    f"{topo.source}: deadlock-free shortest routes need more than {max_vcs} "
                    f"virtual channels (the pair {s} -> {d}, path "
                    f"{' -> '.join(map(str, p))}, fits in none of them)")
            layers.append(_Layer())
            layers[-1].try_add(deps)
            routes.vc[s][d] = len(layers) - 1
    routes.vcs = max(1, len(layers))
    return routes
