#!/usr/bin/env python3
"""Jacobi-2D, transpiled against original, and ZRLMPI's tree optimisation (ZRLMPI
Table I: 1.27x on CPUs for 256x256 at 8 ranks; docs/cluster.md, docs/benchmarks.md).

Versions, all of examples/jacobi2d/jacobi2d.c with -DDIM=D, run under `interlace run`:

  original      built once with interlace-cc, `interlace run -n N`
  cpu           transpiled for N cpu ranks (no tree)
  cpu-tree      transpiled for N cpu ranks, tree optimisation ("tree": true)
  hetero        transpiled for 1 cpu + N-1 fpga ranks (ZRLMPI's ReH2PC layout; here the
                accelerator variants run as CPU processes)
  hetero-tree   the same with "optimization": 1 (ZRLMPI's cluster_jacobi.json)

The figure is the program's own ms per iteration at rank 0 (scatter, halo, compute,
gather), so launch and build time do not count. Rounds are interleaved (every version,
then the next round) and the table gives medians and ratios against `original`, and of
each tree version against its twin without the tree.

  bench/run_jacobi.py [--dim 256] [--iters 20] [--ranks 8] [--rounds 5] [--fabric F] [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "examples" / "jacobi2d" / "jacobi2d.c"
LINE = re.compile(r"checksum=(\d+) ms_per_iter=([\d.]+)")
VERSIONS = ("original", "cpu", "cpu-tree", "hetero", "hetero-tree")


def interlace(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "interlace", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout)


def cluster(tmp: Path, name: str, n: int) -> Path:
    hetero = name.startswith("hetero")
    nodes = {"cpu": [0], "fpga": list(range(1, n))} if hetero else {"cpu": list(range(n))}
    config = ({"optimization": 1} if hetero else {"tree": True}) if name.endswith("tree") else {}
    p = tmp / f"{name}{n}.json"
    p.write_text(json.dumps({"nodes": nodes, "config": config}))
    return p


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dim", type=int, default=256)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--ranks", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--fabric", help="the fabric of every run (e.g. udp; default: auto)")
    ap.add_argument("--json", type=Path)
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="jacobi-bench-"))
    cache = tmp / "cache"
    orig = tmp / "jacobi2d"
    cc = subprocess.run(["interlace-cc", "-O2", f"-DDIM={a.dim}", str(SRC), "-o", str(orig)],
                        capture_output=True, text=True)
    if cc.returncode != 0:
        sys.exit(f"building the original failed:\n{cc.stderr}")
    fab = ["--fabric", a.fabric] if a.fabric else []
    cmds = {"original": ["run", *fab, "-n", a.ranks, orig, a.iters]}
    for v in VERSIONS[1:]:
        cmds[v] = ["run", *fab, "--cluster", cluster(tmp, v, a.ranks), f"-DDIM={a.dim}",
                   "--build-dir", cache, SRC, a.iters]
    times: dict[str, list[float]] = {v: [] for v in VERSIONS}
    sums = {}
    for rnd in range(a.rounds + 1):  # round 0 builds the variants and warms up; not counted
        for v in VERSIONS:
            r = interlace(*cmds[v])
            m = LINE.search(r.stdout)
            if r.returncode != 0 or not m:
                sys.exit(f"{v} failed (exit {r.returncode}):\n{r.stdout}\n{r.stderr}")
            sums.setdefault(v, m.group(1))
            if sums[v] != m.group(1):
                sys.exit(f"{v}: checksum {m.group(1)} differs from its first run's {sums[v]}")
            if rnd:
                times[v].append(float(m.group(2)))
    if len(set(sums.values())) != 1:
        sys.exit(f"the versions disagree on the result: {sums}")
    med = {v: statistics.median(t) for v, t in times.items()}
    print(f"# Jacobi-2D {a.dim}x{a.dim}, {a.iters} iterations, {a.ranks} ranks, "
          f"{a.rounds} interleaved rounds, fabric {a.fabric or 'auto'}; {os.cpu_count()} CPUs ({platform.processor() or platform.machine()})")
    print(f"# checksum {sums['original']} (identical for every version)")
    print("| version | median ms/iter | min | max | original / version |")
    print("|---|---:|---:|---:|---:|")
    for v in VERSIONS:
        t = times[v]
        print(f"| {v} | {med[v]:.2f} | {min(t):.2f} | {max(t):.2f} | "
              f"{med['original'] / med[v]:.2f}x |")
    print(f"tree speed-up: cpu / cpu-tree = {med['cpu'] / med['cpu-tree']:.2f}x, "
          f"hetero / hetero-tree = {med['hetero'] / med['hetero-tree']:.2f}x")
    if a.json:
        a.json.write_text(json.dumps({"dim": a.dim, "iters": a.iters, "ranks": a.ranks,
                                      "rounds": a.rounds, "ms_per_iter": times,
                                      "median": med, "checksum": sums["original"]}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
