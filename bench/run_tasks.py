#!/usr/bin/env python3
"""Task runtime benchmarks (issue 10; figures in docs/benchmarks.md):

1. per-task overhead (bench/task_overhead): ns per task with 0, 1, 3 and 8 dependencies
   and tasks/s from 1 to all workers, interlace tasks against OpenMP tasks (libgomp)
   and oneTBB's flow graph, interleaved inside each run; the median over all runs.
   Target: interlace's ns per task with one dependency at most libgomp's.
2. Task Bench style patterns (bench/taskbench): efficiency against task granularity and
   METG (the smallest granularity with efficiency >= 50%) for interlace tasks, OpenMP
   tasks (one process, interleaved) and interlace MPI (one rank per core; with --ompi
   the same source on Open MPI as well).

Each run is bracketed by /work/shared/tools/placement-probe.c and by the other
processes' CPU share (a run with more than 10% is labelled busy and, unless
--include-busy, left out of the tables; on a machine that never goes quiet, say so).

  bench/run_tasks.py [--only overhead|patterns] [--rounds 3] [--build-dir build] [--quick]

Needs: ninja -C build task_overhead taskbench_tasks taskbench_mpi
"""
from __future__ import annotations

import argparse
import math
import os
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import task_common as tc  # noqa: E402


def need(path: Path, target: str, bdir: Path) -> Path:
    if not path.exists():
        sys.exit(f"{path} is missing: ninja -C {bdir} {target}")
    return path


def keep(run, args) -> bool:
    return args.include_busy or not run["busy"]


# ---------------------------------------------------------------- per-task overhead
def overhead(args, probe_exe, raw):
    exe = need(args.build_dir / "bench" / "task_overhead", "task_overhead", args.build_dir)
    argv = [exe, "--tasks", args.tasks, "--reps", args.reps]
    if args.workers:
        argv += ["--workers", args.workers]
    rows = []
    for rnd in range(args.rounds):
        run = tc.measured_run([str(a) for a in argv], tc.base_env(), probe_exe, args.quiet_wait)
        lines = [tc.parse_kv(ln) for ln in run["stdout"].splitlines() if ln.startswith("task_overhead ")]
        run.pop("stdout")
        raw.append({"bench": "overhead", "round": rnd, **run, "lines": lines})
        print(f"overhead round {rnd + 1}/{args.rounds}: {run['placement']} others={run['others']:.2f}",
              file=sys.stderr)
        if keep(run, args):
            rows += lines
    if not rows:
        print("\nper-task overhead: every run was busy (see --include-busy)")
        return
    med, spawn = defaultdict(list), defaultdict(list)
    for r in rows:
        med[(r["impl"], r["workers"], r["deps"])].append(r["ns_per_task"])
        if "spawn_ns_per_task" in r and r["impl"] != "serial":
            spawn[(r["impl"], r["workers"], r["deps"])].append(r["spawn_ns_per_task"])
    samples = min(len(v) for k, v in med.items() if k[0] != "serial")
    med = {k: statistics.median(v) for k, v in med.items()}
    spawn = {k: statistics.median(v) for k, v in spawn.items()}
    impls = [i for i in ("interlace", "openmp", "tbb") if any(k[0] == i for k in med)]
    workers = sorted({k[1] for k in med if k[0] != "serial"})
    deps = sorted({k[2] for k in med})
    print(f"\n### Per-task overhead: ns per task (median of {samples} runs), "
          f"{args.tasks} tasks per run\n")
    head = "| workers | deps | " + " | ".join(impls) + " | " + " | ".join(
        f"interlace / {i}" for i in impls if i != "interlace") + " |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for w in workers:
        for k in deps:
            vals = [med.get((i, w, k)) for i in impls]
            cells = [f"{v:.0f}" if v else "-" for v in vals]
            il = med.get(("interlace", w, k))
            ratios = [f"{il / med[(i, w, k)]:.2f}" if il and (i, w, k) in med else "-"
                      for i in impls if i != "interlace"]
            print(f"| {w} | {k} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")
    if spawn:
        print("\n### Of which the spawning thread's loop (ns per task; TBB: building the graph)\n")
        print("| workers | deps | " + " | ".join(impls) + " |")
        print("|---|---|" + "---|" * len(impls))
        for w in workers:
            for k in deps:
                print(f"| {w} | {k} | " + " | ".join(f"{spawn[(i, w, k)]:.0f}" if (i, w, k) in spawn else "-"
                                                   for i in impls) + " |")
    print("\n### Throughput: million tasks/s with 1 dependency\n")
    print("| workers | " + " | ".join(impls) + " |")
    print("|---|" + "---|" * len(impls))
    for w in workers:
        print(f"| {w} | " + " | ".join(f"{1e3 / med[(i, w, 1)]:.2f}" if (i, w, 1) in med else "-"
                                       for i in impls) + " |")
    if "interlace" in impls and "openmp" in impls:
        print("\nTarget (ns per task with 1 dependency, interlace <= libgomp):")
        for w in workers:
            il, om = med.get(("interlace", w, 1)), med.get(("openmp", w, 1))
            if il and om:
                verdict = "met" if il <= om else f"missed by {il / om:.2f}x ({il - om:.0f} ns)"
                print(f"- {w} worker(s): interlace {il:.0f} ns, libgomp {om:.0f} ns: {verdict}")


# ---------------------------------------------------------------- patterns and METG
def metg(points):
    """points: [(grain_ns, efficiency)]. Scans from the finest grain up; the METG is
    where efficiency first reaches 50%, interpolated on log(grain) with the finer point
    before it. From this side a slow outlier at a coarse grain (another process took a
    core for a moment) cannot move the figure; efficiency only rises with the grain
    otherwise. Returns (value_ns, qualifier): '' interpolated, '<' already reached at
    the finest grain tried, '>' never reached."""
    pts = sorted(points)
    prev = None
    for g, e in pts:
        if e >= 0.5:
            if prev is None:
                return g, "<"
            g0, e0 = prev
            f = (0.5 - e0) / (e - e0) if e != e0 else 1
            return math.exp(math.log(g0) + f * (math.log(g) - math.log(g0))), ""
        prev = (g, e)
    return pts[-1][0], ">"


def patterns(args, probe_exe, raw):
    bdir = args.build_dir
    common = ["--steps", args.steps, "--iters", args.iters, "--reps", args.reps]
    if args.width:
        common += ["--width", args.width]
    runs = {"tasks": [need(bdir / "bench" / "taskbench" / "taskbench_tasks", "taskbench_tasks", bdir),
                      "--workers", args.ranks] + common}
    mpi = bdir / "bench" / "taskbench" / "taskbench_mpi"
    runs["mpi"] = tc.interlace_cmd(args.ranks, [need(mpi, "taskbench_mpi", bdir)] + common)
    if args.ompi:
        exe = bdir / "bench" / "taskbench" / "taskbench_mpi_ompi"
        src = Path(__file__).resolve().parent / "taskbench" / "taskbench_mpi.c"
        subprocess.run(["mpicc.openmpi", "-O2", "-o", str(exe), str(src)], check=True)
        runs["ompi"] = tc.ompi_cmd(args.ranks, [exe] + common)
    rows = []
    for rnd in range(args.rounds):
        for name, cmd in runs.items():
            run = tc.measured_run([str(a) for a in cmd], tc.base_env(), probe_exe, args.quiet_wait)
            lines = [tc.parse_kv(ln) for ln in run["stdout"].splitlines() if ln.startswith("taskbench ")]
            if name == "ompi":
                for ln in lines:
                    ln["impl"] = "ompi"
            run.pop("stdout")
            raw.append({"bench": "patterns", "round": rnd, "run": name, **run, "lines": lines})
            print(f"patterns round {rnd + 1}/{args.rounds} {name}: {run['placement']} "
                  f"others={run['others']:.2f}", file=sys.stderr)
            if keep(run, args):
                rows += lines
    if not rows:
        print("\npatterns: every run was busy (see --include-busy)")
        return
    eff = defaultdict(list)
    for r in rows:
        eff[(r["impl"], r["pattern"], r["iters"])].append((r["efficiency"], r["iters"] * r["ns_per_iter"]))
    impls = [i for i in ("interlace", "openmp", "mpi", "ompi") if any(k[0] == i for k in eff)]
    pats = [p for p in ("trivial", "stencil_1d", "nearest", "fft", "tree") if any(k[1] == p for k in eff)]
    w = rows[0]["width"]
    print(f"\n### METG (us, efficiency >= 50%), width {w}, {args.steps} steps, {args.ranks} cores\n")
    print("| pattern | " + " | ".join(impls) + " |")
    print("|---|" + "---|" * len(impls))
    for p in pats:
        cells = []
        for i in impls:
            pts = [(statistics.median(g for _, g in v), statistics.median(e for e, _ in v))
                   for (ii, pp, _), v in eff.items() if ii == i and pp == p]
            if not pts:
                cells.append("-")
                continue
            g, q = metg(pts)
            cells.append(f"{q}{g / 1000:.2f}")
        print(f"| {p} | " + " | ".join(cells) + " |")
    print("\n### Efficiency by grain (median), stencil_1d\n")
    grains = sorted({k[2] for k in eff}, reverse=True)
    print("| iters | " + " | ".join(impls) + " |")
    print("|---|" + "---|" * len(impls))
    for it in grains:
        cells = [f"{statistics.median(e for e, _ in eff[(i, 'stencil_1d', it)]):.2f}"
                 if (i, "stencil_1d", it) in eff else "-" for i in impls]
        print(f"| {it} | " + " | ".join(cells) + " |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", choices=["overhead", "patterns"])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=2, help="repetitions inside each run")
    ap.add_argument("--tasks", type=int, default=50000)
    ap.add_argument("--workers", help="worker counts for the overhead run, e.g. 1,2")
    ap.add_argument("--ranks", type=int, default=os.cpu_count(), help="cores for the patterns")
    ap.add_argument("--width", type=int, help="pattern width (default 2 x cores)")
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--iters", default=",".join(str(1 << k) for k in range(18, 3, -1)))
    ap.add_argument("--ompi", action="store_true", help="also run the MPI patterns on Open MPI")
    ap.add_argument("--quick", action="store_true", help="1 round, fewer tasks and grains")
    ap.add_argument("--quiet-wait", type=float, default=20.0)
    ap.add_argument("--include-busy", action="store_true")
    ap.add_argument("--build-dir", type=Path, default=tc.REPO / "build")
    args = ap.parse_args()
    if args.quick:
        args.rounds, args.reps, args.tasks, args.steps = 1, 1, 10000, 30
        args.iters, args.quiet_wait = "65536,8192,1024,128", min(args.quiet_wait, 2.0)
    probe_exe = tc.build_probe(args.build_dir / "bench")
    print(f"machine: {tc.machine()}")
    raw = []
    if args.only in (None, "overhead"):
        overhead(args, probe_exe, raw)
    if args.only in (None, "patterns"):
        patterns(args, probe_exe, raw)
    path = tc.save("tasks", {"args": {k: str(v) for k, v in vars(args).items()}, "runs": raw})
    print(f"\nraw runs: {path.relative_to(tc.REPO)}", file=sys.stderr)


if __name__ == "__main__":
    main()
