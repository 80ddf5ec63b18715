#!/usr/bin/env python3
"""Collective latency, interlace against Open MPI and MPICH, side by side.

Runs bench/coll_bench (interlace, default selection) and bench/mpi_coll_bench.c built with
mpicc.openmpi and mpicc.mpich, interleaved (A B C A B C ...), for barrier, bcast, reduce,
allreduce, allgather and alltoall from 8 B to --max bytes, and keeps for every cell the best
of the rounds' medians (each program reports the median of 5 repetitions of the mean call
time, slowest rank). Writes JSON and prints the ratio table of issue #4: per collective the
geometric mean over sizes of interlace / best MPI and the worst single size.

    python3 bench/run_coll.py -n 2 --rounds 2 --max 16777216 --out bench/results/coll-2.json
    python3 bench/plot_coll.py bench/results/coll-2.json docs/img/coll-2ranks
"""
from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def probe() -> str:
    exe = Path(tempfile.gettempdir()) / "interlace-placement-probe"
    src = REPO.parent / "shared" / "tools" / "placement-probe.c"
    if not exe.exists() and src.exists():
        subprocess.run(["cc", "-O2", "-o", str(exe), str(src)], check=True)
    if not exe.exists():
        return "unknown"
    return subprocess.run([str(exe)], capture_output=True, text=True).stdout.strip()


def parse(out: str) -> dict[tuple[str, int], float]:
    cells = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 5 and f[3].isdigit():
            try:
                cells[(f[0], int(f[2]))] = float(f[4])
            except ValueError:
                continue
    return cells


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=2, help="ranks")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--max", type=int, default=16 << 20)
    ap.add_argument("--iters", type=int, default=100)
    ap.add_argument("--build", default=str(REPO / "build"))
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="coll-bench-"))
    args = ["--max", str(a.max), "--iters", str(a.iters)]
    impls: dict[str, list[str]] = {
        # Unbound like the MPIs below (`interlace run` binds to cores by default).
        "interlace": ["interlace", "run", "-n", str(a.n), "--bind-to", "none",
                      str(Path(a.build) / "bench" / "coll_bench"), *args]}
    for mpi, run in (("openmpi", ["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none"]),
                     ("mpich", ["mpiexec.mpich"])):
        if shutil.which(f"mpicc.{mpi}") is None:
            print(f"# {mpi}: mpicc.{mpi} not found, skipped", file=sys.stderr)
            continue
        exe = tmp / f"mpi_coll_{mpi}"
        subprocess.run([f"mpicc.{mpi}", "-O2", "-o", str(exe), str(REPO / "bench" / "mpi_coll_bench.c")], check=True)
        impls[mpi] = [*run, "-n", str(a.n), str(exe), *args, "--step", "2"]

    placements = [probe()]
    results: dict[str, dict[tuple[str, int], list[float]]] = {k: {} for k in impls}
    for r in range(a.rounds):
        for name, cmd in impls.items():
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout)
                out, rc = p.stdout, p.returncode
            except subprocess.TimeoutExpired as e:
                # TimeoutExpired keeps bytes even with text=True.
                out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
                rc = "timeout"
            print(f"# round {r + 1} {name}: exit {rc}", file=sys.stderr)
            for key, v in parse(out).items():
                results[name].setdefault(key, []).append(v)
        placements.append(probe())

    best = {name: {k: min(v) for k, v in cells.items()} for name, cells in results.items()}
    table = []
    for kind in ("barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall"):
        ratios = []
        for (k, size), t in sorted(best["interlace"].items()):
            if k != kind:
                continue
            others = [best[m][(k, size)] for m in best if m != "interlace" and (k, size) in best[m]]
            if others:
                ratios.append((size, t / min(others)))
        if ratios:
            gm = math.exp(sum(math.log(x) for _, x in ratios) / len(ratios))
            worst = max(ratios, key=lambda x: x[1])
            table.append({"collective": kind, "geomean": gm, "worst": worst[1], "worst_bytes": worst[0],
                          "sizes": len(ratios)})
    doc = {"ranks": a.n, "rounds": a.rounds, "placements": placements, "command": " ".join(sys.argv),
           "machine": os.uname().nodename, "cores": os.cpu_count(),
           "cells": {name: [{"collective": k, "bytes": s, "us": v} for (k, s), v in sorted(c.items())]
                     for name, c in best.items()},
           "ratios": table}
    out = Path(a.out) if a.out else REPO / "bench" / "results" / f"coll-{a.n}ranks.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1))
    print(f"placements: {' -> '.join(placements)}; written {out}")
    print("| collective | geometric mean interlace / best MPI | worst size (ratio) |")
    print("|---|---:|---:|")
    for row in table:
        print(f"| {row['collective']} | {row['geomean']:.2f} | {row['worst_bytes']} B ({row['worst']:.2f}) |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
