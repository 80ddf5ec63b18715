"""DIR/routes.txt (interlace's tables, read by include/interlace/fabric/route_table.hpp)
and the routes directory as a whole (routes.txt plus SMI's files)."""
from __future__ import annotations

import os

from .routing import MAX_VCS, Routes
from .smi_format import write_smi_files
from .topology import Link, RoutesError, Topology

HEADER = "interlace-routes 1"


def format_routes(routes: Routes, comment: str = "") -> str:
    n = routes.ranks
    out = [HEADER]
    if comment:
        out += [f"# {line}" for line in comment.splitlines()]
    out += [f"ranks {n}", f"vcs {routes.vcs}", f"scheme {routes.scheme}"]
    out += [f"link {ln.a} {ln.pa} {ln.b} {ln.pb}" for ln in routes.links]
    out += [f"next {c} {d} {routes.next[c][d]}" for c in range(n) for d in range(n) if c != d]
    out += [f"vc {s} {d} {routes.vc[s][d]}" for s in range(n) for d in range(n) if s != d]
    return "\n".join(out) + "\n"


def parse_routes(text: str, name: str) -> Routes:
    """Parses routes.txt. Syntax errors raise RoutesError naming file:line; missing
    entries stay -1 for the checker to report."""
    routes = None
    header = False
    vcs, scheme = 1, "unknown"
    pending: list[tuple[str, list[int], str]] = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        where = f"{name}:{lineno}"
        tok = raw.split("#", 1)[0].split()
        if not tok:
            continue
        key, args = tok[0], tok[1:]
        if not header:
            if tok != HEADER.split():
                raise RoutesError(f"{where}: expected the header '{HEADER}', got {raw.strip()!r}")
            header = True
            continue
        want = {"ranks": 1, "vcs": 1, "scheme": 1, "link": 4, "next": 3, "vc": 3}.get(key)
        if want is None:
            raise RoutesError(f"{where}: unknown entry {key!r} (expected ranks, vcs, scheme, "
                              "link, next or vc)")
        if len(args) != want:
            raise RoutesError(f"{where}: {key!r} takes {want} values, got {len(args)}")
        if key == "scheme":
            scheme = args[0]
            continue
        try:
            vals = [int(a) for a in args]
        except ValueError:
            raise RoutesError(f"{where}: {key} values {' '.join(args)!r} are not integers") from None
        if any(v < 0 for v in vals):
            raise RoutesError(f"{where}: negative value in {raw.strip()!r}")
        if key == "ranks":
            if routes is not None:
                raise RoutesError(f"{where}: 'ranks' given twice")
            if vals[0] < 1:
                raise RoutesError(f"{where}: ranks must be at least 1")
            n = vals[0]
            routes = Routes(n, [], [[-1] * n for _ in range(n)], [[-1] * n for _ in range(n)])
        elif key == "vcs":
            vcs = vals[0]
            if not 1 <= vcs <= MAX_VCS:
                raise RoutesError(f"{where}: vcs {vcs} is outside 1..{MAX_VCS}")
        else:
            pending.append((key, vals, where))
    if not header:
        raise RoutesError(f"{name}: empty: expected the header '{HEADER}'")
    if routes is None:
        raise RoutesError(f"{name}: no 'ranks N' line")
    routes.vcs, routes.scheme = vcs, scheme
    n = routes.ranks
    for key, vals, where in pending:
        ranks = vals if key == "next" else vals[:2] if key == "vc" else [vals[0], vals[2]]
        bad = [r for r in ranks if r >= n]
        if bad:
            raise RoutesError(f"{where}: rank {bad[0]} is outside the {n} ranks")
        if key == "link":
            routes.links.append(Link(*vals))
            continue
        a, b, v = vals
        if a == b:
            raise RoutesError(f"{where}: a {key} entry from rank {a} to itself")
        table = routes.next if key == "next" else routes.vc
        if table[a][b] >= 0:
            raise RoutesError(f"{where}: {key} {a} -> {b} given twice")
        if key == "vc" and v >= vcs:
            raise RoutesError(f"{where}: vc {v} is not below vcs {vcs}")
        table[a][b] = v
    return routes


def read_routes(path: str) -> Routes:
    """DIR/routes.txt, or the file itself."""
    name = os.path.join(path, "routes.txt") if os.path.isdir(path) else path
    try:
        with open(name, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise RoutesError(f"{name}: cannot read the routes: {e.strerror}") from None
    return parse_routes(text, name)


def write_dir(topo: Topology, routes: Routes, out_dir: str, comment: str = "",
              smi_ops: list[tuple[str, int]] | None = None) -> list[str]:
    """Writes DIR/routes.txt and SMI's cks-/ckr- files; returns the paths."""
    try:
        os.makedirs(out_dir, exist_ok=True)
        name = os.path.join(out_dir, "routes.txt")
        with open(name, "w", encoding="utf-8") as f:
            f.write(format_routes(routes, comment))
        written = [name]
        # SMI's tables exist only for FPGAs with its 4 channels.
        if all(p < 4 for ln in topo.links for p in (ln.pa, ln.pb)):
            written += write_smi_files(topo, routes.next, out_dir, smi_ops)
    except OSError as e:
        raise RoutesError(f"{out_dir}: cannot write the routes: {e.strerror}") from None
    return written
