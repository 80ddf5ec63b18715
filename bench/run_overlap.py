#!/usr/bin/env python3
"""OSU-style overlap of non-blocking collectives (ibcast, iallreduce, ialltoall): the
SAME program, bench/mpi_overlap.c, built against interlace's mpi.h and with Open MPI's
mpicc, run at 2 and 4 ranks in three configurations:

  interlace         the default inline progress (the library moves only inside calls)
  interlace-thread  INTERLACE_PROGRESS=thread (the progress thread, docs/progress.md)
  openmpi           mpirun.openmpi --bind-to none --oversubscribe, pml ob1, btl self,vader

Runs are interleaved (A B C, A B C, ...) and bracketed by the placement probe as in
bench/run_mpi.py (same helpers); tables give the median over rounds of the overlap %
and of the pure communication time per cell.

  bench/run_overlap.py [--rounds 2] [--ranks 2,4] [--lib-dir build] [--quick]

Writes bench/results/overlap-<date>.json (every run) and prints markdown tables.
"""
import argparse
import datetime
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_mpi import OMPI_ENV, build, environment, measured  # noqa: E402  (same build, probe, accounting)

REPO = Path(__file__).resolve().parent.parent
IMPLS = ("interlace", "interlace-thread", "openmpi")


def command(impl, exe, n, args):
    if impl.startswith("interlace"):
        return [sys.executable, "-m", "interlace", "run", "-n", str(n), "--timeout", "280", exe, *args]
    return ["mpirun.openmpi", "-np", str(n), "--bind-to", "none", "--oversubscribe",
            "--mca", "pml", "ob1", "--mca", "btl", "self,vader", exe, *args]


def env_for(impl):
    env = environment("interlace" if impl.startswith("interlace") else impl)
    if impl == "interlace-thread":
        env["INTERLACE_PROGRESS"] = "thread"
    if impl == "openmpi":
        env.update(OMPI_ENV)
    return env


def parse(stdout):
    """[(op, bytes, t_pure_us, overlap_pct)] from the program's `overlap` lines."""
    recs = []
    for line in stdout.splitlines():
        f = line.split()
        if len(f) == 7 and f[0] == "overlap":
            recs.append((f[1], int(f[2]), float(f[3]), float(f[6])))
    return recs


def tables(runs, impls, include_busy):
    cells = {}
    for r in runs:
        # Overlap needs a core for the progress thread: runs that shared the cores with
        # other processes (or moved between placements) only with --include-busy. The
        # overlap is a ratio of two times of one run, so near and far runs both count.
        if r["error"] or (not include_busy and (r["disturbed"] or r["placement"] not in ("near", "far"))):
            continue
        for op, nbytes, pure, ov in r["results"]:
            cells.setdefault((op, r["ranks"], nbytes), {}).setdefault(r["impl"], []).append((ov, pure))
    out = ["| op | ranks | bytes | " + " | ".join(f"{i} overlap % (t_pure us)" for i in impls) + " |",
           "|---|---:|---:|" + "---:|" * len(impls)]
    for key in sorted(cells):
        row = []
        for impl in impls:
            xs = cells[key].get(impl, [])
            row.append(f"{statistics.median(x[0] for x in xs):.0f} ({statistics.median(x[1] for x in xs):.1f})"
                       if xs else "-")
        out.append(f"| {key[0]} | {key[1]} | {key[2]} | " + " | ".join(row) + " |")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--ranks", default="2,4")
    ap.add_argument("--quick", action="store_true", help="two sizes, fewer iterations")
    ap.add_argument("--lib-dir", default=str(REPO / "build"))
    ap.add_argument("--work-dir", default=str(REPO / "build-bench" / "overlap"))
    ap.add_argument("--only", default=",".join(IMPLS))
    ap.add_argument("--timeout", type=int, default=300, help="seconds per run")
    ap.add_argument("--quiet-wait", type=float, default=5.0,
                    help="seconds to wait for other processes to go quiet before each run")
    ap.add_argument("--include-busy", action="store_true",
                    help="also tabulate runs during which other processes used the machine "
                         "or the placement was far, busy or mixed")
    ap.add_argument("--out", default=None)
    ap.add_argument("--report", nargs="+", metavar="JSON", help="run nothing: tabulate earlier results")
    args = ap.parse_args()
    wanted = [s for s in args.only.split(",") if s]
    if args.report:
        runs = [r for f in args.report for r in json.loads(Path(f).read_text())["runs"]]
        print(tables(runs, [i for i in wanted if any(r["impl"] == i for r in runs)], args.include_busy))
        return
    unknown = [i for i in wanted if i not in IMPLS]
    if unknown:
        sys.exit(f"run_overlap: --only names {unknown}; choose from {', '.join(IMPLS)}")
    builds = sorted({"interlace" if i.startswith("interlace") else i for i in wanted})
    probe_exe, bins = build(Path(args.work_dir), Path(args.lib_dir).resolve(), builds, programs=("mpi_overlap",))
    impls = [i for i in wanted if ("interlace" if i.startswith("interlace") else i) in bins]
    pargs = ["--sizes", "8,65536" if args.quick else "8,1024,65536,1048576"]
    if args.quick:
        pargs += ["--iters", "20"]
    out = Path(args.out) if args.out else REPO / "bench/results" / f"overlap-{datetime.date.today()}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    runs, t0 = [], time.time()
    for rnd in range(args.rounds):
        for n in [int(x) for x in args.ranks.split(",")]:
            for impl in impls:
                exe = bins["interlace" if impl.startswith("interlace") else impl]["mpi_overlap"]
                rec = measured(f"round {rnd + 1}/{args.rounds} n={n}", impl, command(impl, exe, n, pargs),
                               env_for(impl), probe_exe, args.timeout, args.quiet_wait, parse)
                rec.update(round=rnd, ranks=n)
                runs.append(rec)
                out.write_text(json.dumps({"date": datetime.datetime.now().isoformat(timespec="seconds"),
                                           "rounds": args.rounds, "quick": args.quick,
                                           "elapsed_s": round(time.time() - t0, 1), "runs": runs}, indent=1))
    print(tables(runs, impls, args.include_busy))
    print(f"\nraw results: {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
