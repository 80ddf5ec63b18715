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
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run_mpi  # noqa: E402  (build, probe-bracketed runs, launch commands, tables)

REPO = Path(__file__).resolve().parent.parent
OSC = {"OMPI_MCA_osc": "^rdma,ucx"}
PROG = "mpi_rma_bench"


def parse(stdout):
    return [(j["metric"], j["bytes"], j["median"]) for j in
            (json.loads(line) for line in stdout.splitlines() if line.startswith("{"))]


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
        print(run_mpi.report(args.report, args.include_busy))
        return
    wanted = [i for i in args.only.split(",") if i]
    probe_exe, bins = run_mpi.build(Path(args.work_dir), Path(args.lib_dir).resolve(), wanted, (PROG,))
    impls = [i for i in wanted if i in bins]
    out = Path(args.out) if args.out else REPO / "bench/results" / f"rma-{datetime.date.today()}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    pargs = ["--quick"] if args.quick else []
    runs, t0 = [], time.time()
    for rnd in range(args.rounds):
        for impl in impls:
            env = run_mpi.environment(impl)
            if impl == "openmpi":
                env.update(OSC)
            cmd = run_mpi.command(impl, bins[impl][PROG], [*pargs, "--label", impl])
            runs.append(run_mpi.measured(f"round {rnd + 1}/{args.rounds}", impl, cmd, env, probe_exe,
                                         args.timeout, args.quiet_wait, parse))
            runs[-1].update(round=rnd, bench="rma")
            run_mpi.save(out, runs, args.rounds, args.quick, t0)
    print(run_mpi.tables(runs, impls, args.include_busy))
    print(f"\nraw results: {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
