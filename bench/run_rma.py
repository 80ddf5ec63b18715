#!/usr/bin/env python3
"""One-sided MPI benchmark: bench/mpi_rma_bench.c built three ways from the same source
and run on 2 ranks, interleaved (interlace, Open MPI, MPICH; then again), with the
placement probe around every run and the same accounting as bench/run_mpi.py (runs
whose probes disagree or that shared the CPUs with other processes are left out).

  interlace  cc -I include/ ... -linterlace, `interlace run -n 2`
  openmpi    mpicc.openmpi, `mpirun.openmpi -np 2 --bind-to none` with OMPI_MCA_osc=^rdma,ucx
             (osc/rdma needs hardware this machine lacks; osc/ucx crashes on dynamic
             windows here), so Open MPI uses its osc/sm component on one host
  mpich      mpicc.mpich, `mpiexec.mpich -n 2`

  bench/run_rma.py [--rounds 3] [--quick] [--lib-dir build] [--only interlace,openmpi,mpich]

Writes bench/results/rma-<date>.json and prints markdown tables (median over rounds).
"""
import argparse
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run_mpi  # noqa: E402  (probe, launch commands, environment, tables)
from run_p2p import QUIET, cpu_snapshot, others_share, wait_quiet  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
OSC = {"OMPI_MCA_osc": "^rdma,ucx"}


def build(work: Path, lib_dir: Path, impls):
    work.mkdir(parents=True, exist_ok=True)
    run_mpi.sh(["cc", "-O2", "-o", work / "placement-probe", run_mpi.PROBE_SRC])
    flags = ["-O2", "-Wall", f"-I{REPO / 'bench'}"]
    bins = {}
    for impl in impls:
        if impl == "interlace":
            lib = lib_dir / "libinterlace.so"
            if not lib.exists():
                print(f"warning: {lib} missing, interlace skipped", file=sys.stderr)
                continue
            cc = ["cc", f"-I{REPO / 'include'}"]
            tail = [f"-L{lib_dir}", f"-Wl,-rpath,{lib_dir}", "-linterlace"]
        else:
            if not shutil.which(f"mpicc.{impl}"):
                print(f"warning: mpicc.{impl} missing, {impl} skipped", file=sys.stderr)
                continue
            cc, tail = [f"mpicc.{impl}"], []
        out = work / f"mpi_rma_bench.{impl}"
        run_mpi.sh([*cc, *flags, "-o", out, REPO / "bench" / "mpi_rma_bench.c", *tail])
        bins[impl] = out
    return work / "placement-probe", bins


def parse(stdout):
    recs = []
    for line in stdout.splitlines():
        if line.startswith("{"):
            j = json.loads(line)
            recs.append((j["metric"], j["bytes"], j["median"]))
    return recs


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--lib-dir", default=str(REPO / "build"))
    ap.add_argument("--work-dir", default=str(REPO / "build-bench" / "rma"))
    ap.add_argument("--only", default="interlace,openmpi,mpich")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--quiet-wait", type=float, default=20.0)
    ap.add_argument("--out", default=None)
    ap.add_argument("--include-busy", action="store_true")
    ap.add_argument("--report", nargs="+", metavar="JSON", help="print tables of earlier result files")
    args = ap.parse_args()
    if args.report:
        runs, impls = [], []
        for f in args.report:
            for r in json.loads(Path(f).read_text())["runs"]:
                runs.append(r)
                if r["impl"] not in impls:
                    impls.append(r["impl"])
        print(run_mpi.tables(runs, impls, args.include_busy))
        return
    probe_exe, bins = build(Path(args.work_dir), Path(args.lib_dir).resolve(), args.only.split(","))
    impls = [i for i in args.only.split(",") if i in bins]
    out = Path(args.out) if args.out else REPO / "bench/results" / f"rma-{datetime.date.today()}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    pargs = ["--quick"] if args.quick else []
    runs, t0 = [], time.time()
    for rnd in range(args.rounds):
        for impl in impls:
            cmd = run_mpi.command(impl, bins[impl], [*pargs, "--label", impl])
            env = run_mpi.environment(impl)
            if impl == "openmpi":
                env.update(OSC)
            wait_quiet(args.quiet_wait)
            before = run_mpi.probe(probe_exe)
            start, c0 = time.time(), cpu_snapshot()
            try:
                cp = subprocess.run([str(c) for c in cmd], capture_output=True, text=True,
                                    timeout=args.timeout, env=env)
                err = None if cp.returncode == 0 else f"exit {cp.returncode}: {cp.stderr[-400:]}"
                recs = parse(cp.stdout)
            except subprocess.TimeoutExpired:
                err, recs = f"timeout after {args.timeout}s", []
            wall = time.time() - start
            others = others_share(c0, cpu_snapshot(), wall)
            after = run_mpi.probe(probe_exe)
            placement = before[0] if before[0] == after[0] else "mixed"
            print(f"round {rnd + 1}/{args.rounds} {impl:9} {placement:5} (probe {before[1]:.0f}/"
                  f"{after[1]:.0f} ns, others {others:4.0%}) {wall:5.1f}s" + (f"  ERROR {err}" if err else ""),
                  file=sys.stderr)
            runs.append({"round": rnd, "bench": "rma", "impl": impl, "placement": placement,
                         "probe_ns": [before[1], after[1]], "others_share": round(others, 3),
                         "disturbed": others > QUIET + 0.02 / max(wall, 0.01), "wall_s": round(wall, 2),
                         "command": [str(c) for c in cmd], "error": err, "results": recs})
            doc = {"date": datetime.datetime.now().isoformat(timespec="seconds"),
                   "machine": {"node": platform.node(), "cpus": os.cpu_count(), "kernel": platform.release()},
                   "rounds": args.rounds, "quick": args.quick, "elapsed_s": round(time.time() - t0, 1),
                   "runs": runs}
            out.write_text(json.dumps(doc, indent=1))
    print(run_mpi.tables(runs, impls, args.include_busy))
    print(f"\nraw results: {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
