"""Topologies: ranks joined by undirected links between numbered ports.

Three input forms (docs/routing.md): SMI's own topology JSON ("fpgas" and
"connections" between `host:device:channel` endpoints), interlace's compact form
({"ranks": N, "links": [[a, pa, b, pb] | [a, b], ...]}) and a generator form
({"generator": "torus", "dims": [4, 4]}).
"""
from __future__ import annotations

import json
import re
from collections import deque
from dataclasses import dataclass, field

SMI_PORTS = 4  # QSFP channels per FPGA in SMI's hardware (and in its tables)


class RoutesError(ValueError):
    """Bad topology, bad routing tables or routes that cannot be made; the message
    names the file and the bad value."""


@dataclass(frozen=True)
class Link:
    a: int
    pa: int
    b: int
    pb: int


@dataclass
class Topology:
    ranks: int
    links: list[Link] = field(default_factory=list)
    names: list[str] | None = None  # SMI device names, rank order (sorted)
    port_limit: int | None = None   # ports per rank, where the form has a limit
    source: str = "topology"

    def name(self, r: int) -> str:
        return f"rank {r} ({self.names[r]})" if self.names else f"rank {r}"

    def ports(self, r: int) -> dict[int, tuple[int, int]]:
        """port -> (neighbour, neighbour's port) of rank r."""
        key = (self.ranks, tuple(self.links))
        if getattr(self, "_ports_key", None) != key:
            # Routing asks for every rank's ports many times: index the links once.
            table: list[dict[int, tuple[int, int]]] = [{} for _ in range(self.ranks)]
            for ln in self.links:
                if 0 <= ln.a < self.ranks:
                    table[ln.a][ln.pa] = (ln.b, ln.pb)
                if 0 <= ln.b < self.ranks:
                    table[ln.b][ln.pb] = (ln.a, ln.pa)
            self._ports_key, self._ports = key, table
        return self._ports[r]

    def neighbours(self, r: int) -> list[tuple[int, int]]:
        """(port, neighbour) of rank r, one per neighbour: with parallel links the one
        on r's lowest port (the link routes use), sorted by port."""
        best: dict[int, int] = {}
        for port, (nb, _) in sorted(self.ports(r).items()):
            best.setdefault(nb, port)
        return sorted((p, nb) for nb, p in best.items())

    def route_links(self) -> list[Link]:
        """One link per linked pair (lower rank first): the one routes use."""
        out = []
        for a in range(self.ranks):
            for pa, b in self.neighbours(a):
                if a < b:
                    out.append(Link(a, pa, b, self.ports(a)[pa][1]))
        return out

    def distances(self, dst: int) -> list[int]:
        """Hops from every rank to dst (-1: unreachable)."""
        dist = [-1] * self.ranks
        dist[dst] = 0
        adj = [[nb for _, nb in self.neighbours(r)] for r in range(self.ranks)]
        q = deque([dst])
        while q:
            u = q.popleft()
            for v in adj[u]:
                if dist[v] < 0:
                    dist[v] = dist[u] + 1
                    q.append(v)
        return dist

    def validate(self) -> "Topology":
        if self.ranks < 1:
            raise RoutesError(f"{self.source}: a topology needs at least 1 rank, got {self.ranks}")
        used: dict[tuple[int, int], Link] = {}
        for ln in self.links:
            for r, p in ((ln.a, ln.pa), (ln.b, ln.pb)):
                if not 0 <= r < self.ranks:
                    raise RoutesError(f"{self.source}: link {_show(ln)} names rank {r}, "
                                      f"outside the {self.ranks} ranks")
                if p < 0 or (self.port_limit is not None and p >= self.port_limit):
                    raise RoutesError(f"{self.source}: port {p} of {self.name(r)} is outside "
                                      f"0..{(self.port_limit or 1 << 30) - 1}")
            if ln.a == ln.b:
                raise RoutesError(f"{self.source}: link from {self.name(ln.a)} to itself "
                                  f"(ports {ln.pa} and {ln.pb})")
            for r, p in ((ln.a, ln.pa), (ln.b, ln.pb)):
                if (r, p) in used:
                    raise RoutesError(f"{self.source}: port {p} of {self.name(r)} is used twice "
                                      f"(links {_show(used[(r, p)])} and {_show(ln)})")
                used[(r, p)] = ln
        dist = self.distances(0)
        lost = [r for r in range(self.ranks) if dist[r] < 0]
        if lost:
            raise RoutesError(f"{self.source}: disconnected: {', '.join(self.name(r) for r in lost)} "
                              f"cannot be reached from {self.name(0)}")
        return self

    def to_compact(self) -> dict:
        return {"ranks": self.ranks, "links": [[ln.a, ln.pa, ln.b, ln.pb] for ln in self.links]}

    def to_smi(self) -> dict:
        """SMI's topology JSON, devices named so that sorting them keeps rank order."""
        width = max(4, len(str(self.ranks - 1)))
        names = [f"node{r:0{width}d}:acl0" for r in range(self.ranks)]
        for ln in self.links:
            for r, p in ((ln.a, ln.pa), (ln.b, ln.pb)):
                if p >= SMI_PORTS:
                    raise RoutesError(f"{self.source}: port {p} of rank {r} does not fit SMI's "
                                      f"{SMI_PORTS} channels per FPGA (ports 0..{SMI_PORTS - 1})")
        return {"fpgas": {n: "program.json" for n in names},
                "connections": {f"{names[ln.a]}:ch{ln.pa}": f"{names[ln.b]}:ch{ln.pb}"
                                for ln in self.links}}


def _show(ln: Link) -> str:
    return f"{ln.a}:{ln.pa}-{ln.b}:{ln.pb}"


def _int(v, what: str, where: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise RoutesError(f"{where}: {what} must be an integer, got {json.dumps(v)}")
    return v


def from_compact(obj: dict, where: str) -> Topology:
    unknown = set(obj) - {"ranks", "links", "ports"}
    if unknown:
        raise RoutesError(f"{where}: unknown key(s) {', '.join(sorted(unknown))} "
                          "(compact form: ranks, links, ports)")
    n = _int(obj.get("ranks"), "'ranks'", where)
    limit = obj.get("ports")
    topo = Topology(n, [], None, None if limit is None else _int(limit, "'ports'", where), where)
    links = obj.get("links", [])
    if not isinstance(links, list):
        raise RoutesError(f"{where}: 'links' must be a list, got {json.dumps(links)}")
    pending = []
    for i, ln in enumerate(links):
        if not isinstance(ln, list) or len(ln) not in (2, 4):
            raise RoutesError(f"{where}: link {i} is {json.dumps(ln)}; want [a, pa, b, pb] or [a, b]")
        vals = [_int(v, f"link {i} ({json.dumps(ln)})", where) for v in ln]
        pending.append(vals)
    explicit = {(v[0], v[1]) for v in pending if len(v) == 4} | \
               {(v[2], v[3]) for v in pending if len(v) == 4}
    for v in pending:
        if len(v) == 4:
            topo.links.append(Link(*v))
            continue
        # [a, b]: each end takes its lowest port that no link names yet.
        ports = []
        for r in v:
            p = 0
            while (r, p) in explicit:
                p += 1
            explicit.add((r, p))
            ports.append(p)
        topo.links.append(Link(v[0], ports[0], v[1], ports[1]))
    return topo


_CHANNEL = re.compile(r"^(.*?)(\d+)$")


def _endpoint(text, where: str) -> tuple[str, int]:
    parts = text.split(":") if isinstance(text, str) else []
    m = _CHANNEL.match(parts[2]) if len(parts) == 3 else None
    if not m or not parts[0] or not parts[1]:
        raise RoutesError(f"{where}: endpoint {json.dumps(text)} is not 'host:device:chN'")
    ch = int(m.group(2))
    if ch >= SMI_PORTS:
        raise RoutesError(f"{where}: endpoint {text!r}: channel {ch} is beyond SMI's "
                          f"{SMI_PORTS} channels per FPGA (ch0..ch{SMI_PORTS - 1})")
    return f"{parts[0]}:{parts[1]}", ch


def from_smi(obj: dict, where: str) -> Topology:
    fpgas = obj.get("fpgas")
    conns = obj.get("connections", {})
    if not isinstance(conns, dict) or (fpgas is not None and not isinstance(fpgas, dict)):
        raise RoutesError(f"{where}: SMI form wants objects 'fpgas' (device: program) and "
                          "'connections' (endpoint: endpoint)")
    pairs = [(_endpoint(s, where), _endpoint(d, where), s, d) for s, d in conns.items()]
    devices = set(fpgas or {})
    for (sdev, _), (ddev, _), s, d in pairs:
        for dev, text in ((sdev, s), (ddev, d)):
            if fpgas is not None and dev not in devices:
                raise RoutesError(f"{where}: connection {s!r} -> {d!r} names the unknown device "
                                  f"{dev!r} (not in 'fpgas')")
    if fpgas is None:
        devices = {e[0] for p in pairs for e in p[:2]}
    # SMI numbers ranks by the sorted device names (its codegen's rule).
    names = sorted(devices)
    rank = {n: i for i, n in enumerate(names)}
    topo = Topology(len(names), [], names, SMI_PORTS, where)
    for (sdev, sch), (ddev, dch), _, _ in pairs:
        topo.links.append(Link(rank[sdev], sch, rank[ddev], dch))
    return topo


def from_object(obj, where: str) -> Topology:
    if not isinstance(obj, dict):
        raise RoutesError(f"{where}: a topology is a JSON object, got {type(obj).__name__}")
    if "generator" in obj:
        from .generators import from_spec
        return from_spec(obj, where)
    if "connections" in obj or "fpgas" in obj:
        return from_smi(obj, where)
    if "ranks" in obj:
        return from_compact(obj, where)
    raise RoutesError(f"{where}: not a topology: want SMI's 'fpgas'/'connections', "
                      "interlace's 'ranks'/'links' or a 'generator'")


def load_topology(path: str) -> Topology:
    """Reads and validates a topology file in any of the three forms."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise RoutesError(f"{path}: cannot read the topology: {e.strerror}") from None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        raise RoutesError(f"{path}:{e.lineno}:{e.colno}: bad JSON: {e.msg}") from None
    return from_object(obj, path).validate()
