"""Topology generators: ring, mesh, torus, fully connected, random.

Port numbering (documented in docs/routing.md): on meshes and tori port 2k leads
along dimension k upwards and port 2k+1 downwards (a ring is a 1-D torus: port 0
to rank+1, port 1 to rank-1); fully connected ranks reach peer p on port p; random
graphs take each end's lowest free port.
"""
from __future__ import annotations

import json
import random as _random
from itertools import product

from .topology import Link, RoutesError, Topology

RANDOM_PORTS = 4


def _grid(dims: list[int], wrap: bool, what: str) -> Topology:
    if not dims or any(isinstance(d, bool) or not isinstance(d, int) or d < 1 for d in dims):
        raise RoutesError(f"{what}: dimensions must be positive integers, got {dims}")
    n = 1
    for d in dims:
        n *= d
    stride = [1] * len(dims)
    for k in range(1, len(dims)):
        stride[k] = stride[k - 1] * dims[k - 1]
    links = []
    for coord in product(*(range(d) for d in reversed(dims))):
        coord = tuple(reversed(coord))  # dimension 0 varies fastest
        r = sum(c * s for c, s in zip(coord, stride))
        for k, size in enumerate(dims):
            up = coord[k] + 1
            if up == size:
                # Wrap-around only where it adds a link: a dimension of 2 is one link.
                if not wrap or size <= 2:
                    continue
                up = 0
            links.append(Link(r, 2 * k, r + (up - coord[k]) * stride[k], 2 * k + 1))
    return Topology(n, sorted(links, key=lambda ln: (ln.a, ln.pa)), source=what)


def ring(n: int) -> Topology:
    _count(n, 2, "ring")
    return _grid([n], True, f"ring {n}")


def mesh(dims: list[int]) -> Topology:
    return _grid(list(dims), False, f"mesh {'x'.join(map(str, dims))}")


def torus(dims: list[int]) -> Topology:
    return _grid(list(dims), True, f"torus {'x'.join(map(str, dims))}")


def full(n: int) -> Topology:
    _count(n, 1, "full")
    return Topology(n, [Link(a, b, b, a) for a in range(n) for b in range(a + 1, n)],
                    source=f"full {n}")


def random_graph(n: int, seed: int = 0, ports: int = RANDOM_PORTS, extra: float = 0.5) -> Topology:
    """A connected graph with at most `ports` links per rank: a random spanning tree
    plus about extra*n further links; the same (n, seed) always gives the same graph."""
    _count(n, 1, "random")
    if ports < 2 and n > 2:
        raise RoutesError(f"random {n}: {ports} ports per rank cannot connect {n} ranks")
    rng = _random.Random(f"interlace-routes-{n}-{seed}-{ports}")
    degree = [0] * n
    pairs: set[tuple[int, int]] = set()
    order = list(range(n))
    rng.shuffle(order)
    for i in range(1, n):
        free = [r for r in order[:i] if degree[r] < ports]
        a, b = rng.choice(free), order[i]
        pairs.add((min(a, b), max(a, b)))
        degree[a] += 1
        degree[b] += 1
    for _ in range(int(extra * n)):
        a, b = rng.randrange(n), rng.randrange(n)
        key = (min(a, b), max(a, b))
        if a != b and key not in pairs and degree[a] < ports and degree[b] < ports:
            pairs.add(key)
            degree[a] += 1
            degree[b] += 1
    used = [0] * n
    links = []
    for a, b in sorted(pairs):
        links.append(Link(a, used[a], b, used[b]))
        used[a] += 1
        used[b] += 1
    return Topology(n, links, port_limit=ports, source=f"random {n} seed {seed}")


def _count(n: object, least: int, what: str) -> None:
    if isinstance(n, bool) or not isinstance(n, int) or n < least:
        raise RoutesError(f"{what}: the rank count must be an integer of at least {least}, got {n!r}")


def parse_dims(text: str, what: str) -> list[int]:
    try:
        dims = [int(x) for x in text.lower().split("x")]
    except ValueError:
        raise RoutesError(f"{what}: dimensions {text!r} are not like 4x4 or 2x2x2") from None
    if any(d < 1 for d in dims):
        raise RoutesError(f"{what}: dimensions {text!r} must be positive")
    return dims


GENERATORS = ("ring", "mesh", "torus", "full", "random")


def generate(kind: str, size: str, seed: int = 0) -> Topology:
    """From the command line's words: ring 8, mesh 2x2x2, torus 4x4, full 5, random 8."""
    if kind in ("mesh", "torus"):
        dims = parse_dims(size, kind)
        return (mesh if kind == "mesh" else torus)(dims)
    if kind not in GENERATORS:
        raise RoutesError(f"unknown generator {kind!r} (known: {', '.join(GENERATORS)})")
    try:
        n = int(size)
    except ValueError:
        raise RoutesError(f"{kind}: rank count {size!r} is not an integer") from None
    if kind == "ring":
        return ring(n)
    if kind == "full":
        return full(n)
    return random_graph(n, seed)


def from_spec(obj: dict, where: str) -> Topology:
    """The generator form: {"generator": "torus", "dims": [4, 4]}, {"generator":
    "ring", "ranks": 8}, {"generator": "random", "ranks": 8, "seed": 1}."""
    kind = obj.get("generator")
    unknown = set(obj) - {"generator", "dims", "ranks", "seed"}
    if unknown:
        raise RoutesError(f"{where}: unknown key(s) {', '.join(sorted(unknown))} "
                          "(generator form: generator, dims, ranks, seed)")
    try:
        if kind in ("mesh", "torus"):
            dims = obj.get("dims")
            if not isinstance(dims, list):
                raise RoutesError(f"'dims' must be a list like [4, 4], got {json.dumps(dims)}")
            topo = (mesh if kind == "mesh" else torus)(dims)
        elif kind in ("ring", "full", "random"):
            n = obj.get("ranks")
            if isinstance(n, bool) or not isinstance(n, int):
                raise RoutesError(f"'ranks' must be an integer, got {json.dumps(n)}")
            if kind == "ring":
                topo = ring(n)
            elif kind == "full":
                topo = full(n)
            else:
                seed = obj.get("seed", 0)
                if isinstance(seed, bool) or not isinstance(seed, int):
                    raise RoutesError(f"'seed' must be an integer, got {json.dumps(seed)}")
                topo = random_graph(n, seed)
        else:
            raise RoutesError(f"unknown generator {json.dumps(kind)} (known: {', '.join(GENERATORS)})")
    except RoutesError as e:
        raise RoutesError(f"{where}: {e}") from None
    topo.source = where
    return topo
