"""`interlace routes gen|check|show|topo` (docs/routing.md)."""
from __future__ import annotations

import argparse
import json
import os
import sys

from .check import check_routes, check_smi
from .generators import GENERATORS, generate
from .routing import MAX_VCS, Routes, compute_routes
from .smi_format import has_smi_files, load_program, read_cks_files
from .tables import read_routes, write_dir
from .topology import RoutesError, Topology, load_topology

USAGE = """\
  interlace routes gen TOPOLOGY.json -o DIR [--max-vcs K] [--smi-program PROG.json]
  interlace routes check TOPOLOGY.json DIR [--smi]
  interlace routes show TOPOLOGY.json|DIR [--from R] [--to D]
  interlace routes topo ring N | mesh AxB[xC] | torus AxB[xC] | full N | random N [--seed S]
                        [-o FILE] [--smi]
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise RoutesError(f"{self.prog}: {message}")


def cmd_gen(argv: list[str]) -> int:
    p = _Parser(prog="interlace routes gen",
                description="Shortest deadlock-free routes: DIR/routes.txt and SMI's files.")
    p.add_argument("topology")
    p.add_argument("-o", "--output", required=True, metavar="DIR")
    p.add_argument("--max-vcs", type=int, default=MAX_VCS, metavar="K",
                   help=f"virtual channels allowed (1..{MAX_VCS}, default {MAX_VCS})")
    p.add_argument("--smi-program", metavar="PROG.json",
                   help="SMI program (its 'operations') whose ports SMI's ckr- tables serve")
    ns = p.parse_args(argv)
    if not 1 <= ns.max_vcs <= MAX_VCS:
        raise RoutesError(f"interlace routes gen: --max-vcs {ns.max_vcs} is outside 1..{MAX_VCS}")
    topo = load_topology(ns.topology)
    routes = compute_routes(topo, ns.max_vcs)
    ops = load_program(ns.smi_program) if ns.smi_program else None
    written = write_dir(topo, routes, ns.output, f"from {ns.topology} by interlace routes gen", ops)
    print(f"{ns.output}: {topo.ranks} ranks, {len(routes.links)} links, {routes.vcs} vc(s), "
          f"diameter {diameter(routes)}; {len(written)} files")
    if len(written) > 1 and routes.vcs > 1:
        print(f"note: SMI's files carry no VCs; on SMI's hardware (one VC) these routes "
              f"can deadlock (`interlace routes check {ns.topology} {ns.output} --smi`)")
    return 0


def cmd_check(argv: list[str]) -> int:
    p = _Parser(prog="interlace routes check",
                description="Exit 0 only when DIR's tables are correct and deadlock-free.")
    p.add_argument("topology")
    p.add_argument("dir")
    p.add_argument("--smi", action="store_true",
                   help="check SMI's cks- files (one VC) instead of routes.txt")
    ns = p.parse_args(argv)
    topo = load_topology(ns.topology)
    has_txt = os.path.exists(os.path.join(ns.dir, "routes.txt")) or os.path.isfile(ns.dir)
    if ns.smi or (not has_txt and has_smi_files(ns.dir)):
        rep = check_smi(topo, read_cks_files(ns.dir, topo.ranks), f"{ns.dir} (SMI tables)")
    else:
        routes = read_routes(ns.dir)
        rep = check_routes(topo, routes, os.path.join(ns.dir, "routes.txt")
                           if os.path.isdir(ns.dir) else ns.dir)
    for w in rep.warnings:
        print(f"warning: {w}")
    for e in rep.errors:
        print(f"error: {e}")
    print("ok: correct and deadlock-free" if rep.ok else f"failed: {len(rep.errors)} error(s)")
    return 0 if rep.ok else 1


def diameter(routes: Routes) -> int:
    n = routes.ranks
    return max((len(routes.path(s, d)) - 1 for s in range(n) for d in range(n) if s != d),
               default=0)


def cmd_show(argv: list[str]) -> int:
    p = _Parser(prog="interlace routes show", description="Links, paths, VCs and diameter.")
    p.add_argument("source", help="a topology (routes computed) or a routes DIR")
    p.add_argument("--from", dest="src", type=int, metavar="R")
    p.add_argument("--to", dest="dst", type=int, metavar="D")
    ns = p.parse_args(argv)
    if os.path.isdir(ns.source) or ns.source.endswith(".txt"):
        routes = read_routes(ns.source)
        names = None
    else:
        topo = load_topology(ns.source)
        routes, names = compute_routes(topo), topo.names
    n = routes.ranks
    for r in (ns.src, ns.dst):
        if r is not None and not 0 <= r < n:
            raise RoutesError(f"interlace routes show: rank {r} is outside the {n} ranks")
    print(f"ranks {n}, links {len(routes.links)}, scheme {routes.scheme}, "
          f"vcs used {routes.vcs}, diameter {diameter(routes)}")
    if names:
        print("devices: " + ", ".join(f"{i}={nm}" for i, nm in enumerate(names)))
    if ns.src is None and ns.dst is None:
        for ln in routes.links:
            print(f"link {ln.a}:{ln.pa} <-> {ln.b}:{ln.pb}")
    for s in range(n):
        for d in range(n):
            if s == d or (ns.src is not None and s != ns.src) or (ns.dst is not None and d != ns.dst):
                continue
            path = routes.path(s, d)
            print(f"{s} -> {d}: {' -> '.join(map(str, path))}  "
                  f"({len(path) - 1} hop{'s' if len(path) != 2 else ''}, vc {routes.vc[s][d]})")
    return 0


def cmd_topo(argv: list[str]) -> int:
    p = _Parser(prog="interlace routes topo", description="Write a generated topology.")
    p.add_argument("kind", choices=GENERATORS)
    p.add_argument("size", help="N, or dimensions like 4x4 / 2x2x2")
    p.add_argument("--seed", type=int, default=0, help="random graphs: the seed (default 0)")
    p.add_argument("-o", "--output", metavar="FILE", help="default: standard output")
    p.add_argument("--smi", action="store_true", help="in SMI's JSON form (ports 0..3 only)")
    ns = p.parse_args(argv)
    topo: Topology = generate(ns.kind, ns.size, ns.seed).validate()
    text = _dump(topo.to_smi() if ns.smi else topo.to_compact())
    if ns.output:
        try:
            with open(ns.output, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as e:
            raise RoutesError(f"{ns.output}: cannot write: {e.strerror}") from None
    else:
        sys.stdout.write(text)
    return 0


def _dump(obj: dict) -> str:
    """JSON with one link or connection a line: readable and diffable."""
    lines = []
    for key, val in obj.items():
        if isinstance(val, list):
            inner = ",\n".join(f"  {json.dumps(v)}" for v in val)
        elif isinstance(val, dict):
            inner = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in val.items())
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(val)}")
            continue
        open_, close = ("[", "]") if isinstance(val, list) else ("{", "}")
        lines.append(f" {json.dumps(key)}: {open_}\n{inner}\n {close}" if val
                     else f" {json.dumps(key)}: {open_}{close}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


COMMANDS = {"gen": cmd_gen, "check": cmd_check, "show": cmd_show, "topo": cmd_topo}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print("usage:\n" + USAGE, end="")
        return 0 if argv else 2
    cmd = COMMANDS.get(argv[0])
    if cmd is None:
        print(f"interlace routes: unknown command {argv[0]!r} (commands: {', '.join(COMMANDS)})",
              file=sys.stderr)
        return 2
    try:
        return cmd(argv[1:])
    except RoutesError as e:
        print(f"interlace routes: {e}" if not str(e).startswith("interlace routes") else str(e),
              file=sys.stderr)
        return 1
    except SystemExit as e:  # --help
        return 0 if e.code in (0, None) else 2
