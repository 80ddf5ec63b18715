"""Checks routing tables against a topology: every pair reached, no loops, only
links that exist, shortest paths (a warning otherwise), a VC for every pair, and an
acyclic channel dependency graph (a cycle is reported as its channels)."""
from __future__ import annotations

from dataclasses import dataclass, field

from .routing import Routes
from .smi_format import SMI_PORTS, smi_step
from .topology import Topology

Channel = tuple[int, int, int]  # (from rank, to rank, vc)


@dataclass
class Report:
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors


def describe(cycle: list[Channel]) -> str:
    return ", ".join(f"{u}->{v} vc{c}" for u, v, c in cycle)


def find_cycle(succ: dict) -> list:
    """A cycle of a directed graph {node: iterable of nodes}, in order; [] if none."""
    color: dict = {}
    for root in sorted(succ):
        if root in color:
            continue
        stack = [(root, iter(sorted(succ.get(root, ()))))]
        color[root], trail = 1, [root]
        while stack:
            node, it = stack[-1]
            for nb in it:
                if color.get(nb) == 1:
                    return trail[trail.index(nb):]
                if nb not in color:
                    color[nb] = 1
                    trail.append(nb)
                    stack.append((nb, iter(sorted(succ.get(nb, ())))))
                    break
            else:
                color[node] = 2
                trail.pop()
                stack.pop()
    return []


def check_routes(topo: Topology, routes: Routes, name: str = "routes") -> Report:
    rep = Report()
    n = topo.ranks
    if routes.ranks != n:
        rep.errors.append(f"{name}: {routes.ranks} ranks, the topology {topo.source} has {n}")
        return rep
    linked = {(r, nb) for r in range(n) for _, nb in topo.neighbours(r)}
    ports = {r: topo.ports(r) for r in range(n)}
    for ln in routes.links:
        if ports[ln.a].get(ln.pa) != (ln.b, ln.pb):
            rep.errors.append(f"{name}: link {ln.a}:{ln.pa} - {ln.b}:{ln.pb} is not in the "
                              f"topology {topo.source}")
    for c in range(n):
        for d in range(n):
            if c != d and routes.next[c][d] >= 0 and (c, routes.next[c][d]) not in linked:
                rep.errors.append(f"{name}: rank {c} forwards frames for {d} to rank "
                                  f"{routes.next[c][d]}, but no link joins {c} and "
                                  f"{routes.next[c][d]}")
    missing = [(c, d) for c in range(n) for d in range(n) if c != d and routes.next[c][d] < 0]
    rep.errors += [f"{name}: no next hop from rank {c} to {d}" for c, d in missing]
    rep.errors += [f"{name}: no vc for the pair {s} -> {d}" for s in range(n) for d in range(n)
                   if s != d and routes.vc[s][d] < 0]
    if rep.errors:
        return rep
    succ: dict[Channel, set[Channel]] = {}
    for d in range(n):
        dist = topo.distances(d)
        for s in range(n):
            if s == d:
                continue
            p = [s]
            while p[-1] != d and len(p) <= n:
                p.append(routes.next[p[-1]][d])
            if p[-1] != d:
                rep.errors.append(f"{name}: routes from {s} to {d} loop: "
                                  f"{' -> '.join(map(str, p))} ...")
                continue
            if len(p) - 1 > dist[s]:
                rep.warnings.append(f"{name}: {s} -> {d} takes {len(p) - 1} hops, "
                                    f"the shortest path has {dist[s]}")
            v = routes.vc[s][d]
            for i in range(len(p) - 2):
                succ.setdefault((p[i], p[i + 1], v), set()).add((p[i + 1], p[i + 2], v))
    if not rep.errors:
        cycle = find_cycle(succ)
        if cycle:
            rep.errors.append(f"{name}: channel dependency cycle (can deadlock): {describe(cycle)}")
    return rep


def check_smi(topo: Topology, tables: list[list[bytes]], name: str = "SMI tables") -> Report:
    """SMI's cks- files: a packet for d entering any CK_S of any rank must reach d.
    SMI has no virtual channels, so the dependency check is over links alone."""
    rep = Report()
    n = topo.ranks
    succ: dict[Channel, set[Channel]] = {}
    for d in range(n):
        dist = topo.distances(d)
        for r in range(n):
            for ch in range(SMI_PORTS):
                err, hops, prev, rank, cur = None, 0, None, r, ch
                seen = set()
                while err is None:
                    if (rank, cur) in seen:
                        err = f"packets for rank {d} loop (back at rank {rank} channel {cur})"
                        break
                    seen.add((rank, cur))
                    kind, nxt = smi_step(tables, rank, cur, d)
                    if kind == "ckr":
                        if rank != d:
                            err = (f"cks-rank{rank}-channel{cur} hands packets for rank {d} "
                                   f"to its CK_R, but they are not for rank {rank}")
                        break
                    if kind == "cks":
                        cur = nxt
                        continue
                    far = topo.ports(rank).get(cur)
                    if far is None:
                        err = (f"cks-rank{rank}-channel{cur} sends packets for rank {d} out of "
                               f"channel {cur}, which has no link")
                        break
                    link = (rank, far[0], 0)
                    if prev is not None:
                        succ.setdefault(prev, set()).add(link)
                    prev, hops, (rank, cur) = link, hops + 1, far
                    seen = set()  # a new rank: its CK_S may be visited afresh
                    if hops > n:
                        err = f"packets for rank {d} from rank {r} loop"
                if err:
                    if f"{name}: {err}" not in rep.errors:
                        rep.errors.append(f"{name}: {err}")
                elif hops > dist[r]:
                    msg = (f"{name}: {r} -> {d} (entering channel {ch}) takes {hops} hops, "
                           f"the shortest path has {dist[r]}")
                    rep.warnings.append(msg)
    if not rep.errors:
        cycle = find_cycle(succ)
        if cycle:
            rep.errors.append(f"{name}: channel dependency cycle with SMI's single VC "
                              f"(can deadlock): {describe(cycle)}")
    return rep
