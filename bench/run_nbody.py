#!/usr/bin/env python3
"""N-body weak scaling (issue 10; examples/nbody, docs/nbody.md, docs/benchmarks.md):
Gpairs/s (n^2 x iterations / seconds) and parallel efficiency from 1 to P ranks, with
n = per-rank particles x ranks, for

  ompif       examples/nbody/nbody_ompif under `interlace run`, OMPIF + tasks, one task
              worker per rank (INTERLACE_TASK_WORKERS=1: one core per rank, as MPI has)
  mpi         examples/nbody/nbody_mpi (the same algorithm in plain MPI) on interlace's MPI
  ompi        the same nbody_mpi.c built with mpicc.openmpi, run with mpirun.openmpi
  serial      examples/nbody/nbody_serial (1 rank only: the reference)
  ompif-threads  nbody_ompif on ONE rank with P task workers and the P-rank problem size:
              the same parallelism from tasks alone, no messages

Efficiency at P ranks = Gpairs/s(P) / (P x Gpairs/s(1 rank of the same version)).
Runs are interleaved (every version at every P, then the next round), bracketed by the
placement probe; a run where other processes used over 10% of the CPUs is labelled busy
and left out unless --include-busy. Every version is first run small with --check.

  bench/run_nbody.py [--per-rank 4096] [--bs 256] [--iters 16] [--max-ranks 2] [--rounds 3]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import task_common as tc  # noqa: E402

VERSIONS = ("ompif", "ompif-threads", "mpi", "ompi", "serial")


def commands(args):
    ex = args.build_dir / "examples" / "nbody"
    cmds = {}
    if (ex / "nbody_ompif").exists():
        cmds["ompif"] = lambda p, a: tc.interlace_cmd(p, [ex / "nbody_ompif"] + a)
        cmds["ompif-threads"] = lambda p, a: tc.interlace_cmd(1, [ex / "nbody_ompif"] + a)
    if (ex / "nbody_mpi").exists():
        cmds["mpi"] = lambda p, a: tc.interlace_cmd(p, [ex / "nbody_mpi"] + a)
    if not args.no_ompi:
        exe = ex / "nbody_mpi_ompi"
        src = tc.REPO / "examples" / "nbody" / "nbody_mpi.c"
        subprocess.run(["mpicc.openmpi", "-O3", "-fopenmp-simd", "-fno-math-errno", "-o", str(exe),
                        str(src), "-lm"], check=True)
        cmds["ompi"] = lambda p, a: tc.ompi_cmd(p, [exe] + a)
    if (ex / "nbody_serial").exists():
        cmds["serial"] = lambda p, a: [str(ex / "nbody_serial")] + [str(x) for x in a]
    missing = [v for v in VERSIONS if v not in cmds and not (v == "ompi" and args.no_ompi)]
    if missing:
        print(f"not built (left out): {', '.join(missing)}", file=sys.stderr)
    return cmds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--per-rank", type=int, default=4096, help="particles per rank")
    ap.add_argument("--bs", type=int, default=256)
    ap.add_argument("--iters", type=int, default=16)
    ap.add_argument("--max-ranks", type=int, default=os.cpu_count())
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-ompi", action="store_true")
    ap.add_argument("--quiet-wait", type=float, default=20.0)
    ap.add_argument("--include-busy", action="store_true")
    ap.add_argument("--build-dir", type=Path, default=tc.REPO / "build")
    args = ap.parse_args()
    cmds = commands(args)
    env = tc.base_env({"INTERLACE_TASK_WORKERS": "1"})
    probe_exe = tc.build_probe(args.build_dir / "bench")
    print(f"machine: {tc.machine()}")

    for name, cmd in cmds.items():  # correctness first, small
        if name == "ompif-threads":
            continue
        p = 1 if name == "serial" else min(2, args.max_ranks)
        r = subprocess.run([str(x) for x in cmd(p, ["--n", 512 * p, "--bs", 128, "--iters", 3, "--check"])],
                           capture_output=True, text=True, env=env, timeout=300)
        if r.returncode != 0 or " ok" not in r.stdout:
            sys.exit(f"{name} --check failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
        print(f"check {name}: {r.stdout.splitlines()[-1]}", file=sys.stderr)

    raw, gp = [], defaultdict(list)
    ranks = list(range(1, args.max_ranks + 1))
    for rnd in range(args.rounds):
        for p in ranks:
            for name, cmd in cmds.items():
                if name == "serial" and p != 1:
                    continue
                argv = ["--n", args.per_rank * p, "--bs", args.bs, "--iters", args.iters]
                env_v = tc.base_env({"INTERLACE_TASK_WORKERS": str(p if name == "ompif-threads" else 1)})
                run = tc.measured_run([str(x) for x in cmd(p, argv)], env_v, probe_exe, args.quiet_wait)
                line = next(tc.parse_kv(ln) for ln in run["stdout"].splitlines() if ln.startswith("nbody "))
                run.pop("stdout")
                raw.append({"round": rnd, "version": name, "ranks": p, **run, **line})
                print(f"round {rnd + 1}/{args.rounds} {name:6} {p} ranks: {line['gpairs']:.3f} Gpairs/s "
                      f"{run['placement']} others={run['others']:.2f}", file=sys.stderr)
                if args.include_busy or not run["busy"]:
                    gp[(name, p)].append(line["gpairs"])

    print(f"\n### N-body weak scaling: {args.per_rank} particles per rank, block {args.bs}, "
          f"{args.iters} iterations (median Gpairs/s over {args.rounds} rounds)\n")
    names = [n for n in VERSIONS if n in cmds]
    print("| ranks | n | " + " | ".join(f"{n} Gpairs/s | {n} eff." for n in names if n != "serial") + " |")
    print("|---|---|" + "---|---|" * len([n for n in names if n != "serial"]))
    for p in ranks:
        cells = []
        for n in names:
            if n == "serial":
                continue
            v, one = gp.get((n, p)), gp.get(("ompif" if n == "ompif-threads" else n, 1))
            if not v:
                cells += ["-", "-"]
                continue
            g = statistics.median(v)
            cells += [f"{g:.3f}", f"{g / (p * statistics.median(one)):.0%}" if one else "-"]
        print(f"| {p} | {args.per_rank * p} | " + " | ".join(cells) + " |")
    if gp.get(("serial", 1)):
        print(f"\nserial reference, {args.per_rank} particles: {statistics.median(gp[('serial', 1)]):.3f} Gpairs/s")
    if gp.get(("ompif", ranks[-1])) and gp.get(("ompi", ranks[-1])):
        a, b = statistics.median(gp[("ompif", ranks[-1])]), statistics.median(gp[("ompi", ranks[-1])])
        print(f"interlace OMPIF+tasks / Open MPI at {ranks[-1]} ranks: {a / b:.2f}")
    path = tc.save("nbody", {"args": {k: str(v) for k, v in vars(args).items()}, "runs": raw})
    print(f"\nraw runs: {path.relative_to(tc.REPO)}", file=sys.stderr)


if __name__ == "__main__":
    main()
