#!/usr/bin/env python3
"""mpi4py's own ping-pong (`python -m mpi4py.bench pingpong`) on interlace against the same
mpi4py release built on Open MPI, 2 ranks, interleaved rounds, each run bracketed by the
placement probe (this machine's vCPUs move between a near and a far placement).

Two modes, as issue #13 asks: buffers (`Send`/`Recv` of NumPy arrays) and pickled objects
(`send`/`recv`, `-p`). Figures: the median over the rounds kept (both probes agree) of the
one-way time per message size, and interlace / Open MPI.

  bench/run_mpi4py.py --interlace-site DIR --openmpi-site DIR [--rounds 5] [--max 4194304]

DIR is a directory holding an installed `mpi4py` package (pip install --target DIR), built
with MPICC=interlace-cc (tests/mpi4py/run_mpi4py.py leaves one in build/mpi4py/site) or
MPICC=mpicc.openmpi. Writes bench/results/mpi4py-<date>.json and prints markdown.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PROBE_SRC = Path("/work/shared/tools/placement-probe.c")
OMPI = ["mpirun.openmpi", "-np", "2", "--bind-to", "none", "--mca", "pml", "ob1",
        "--mca", "btl", "self,vader"]
OMPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
            "OMPI_MCA_osc": "^rdma,ucx"}
# size, bandwidth (MB/s) | mean one-way time (s) ± stdev, loops (the stats columns)
ROW = re.compile(r"^\s*(\d+)\s+([\d.eE+-]+)\s*\|\s*([\d.eE+-]+)")


def probe(exe: Path) -> str:
    if not exe.exists():
        return "unknown"
    return subprocess.run([str(exe)], capture_output=True, text=True).stdout.split()[0]


def one_run(stack: str, site: str, pickle: bool, max_size: int, libdir: str) -> dict[int, float]:
    args = [sys.executable, "-m", "mpi4py.bench", "pingpong", "-n", str(max_size),
            "-l", "2000", "--loop-large", "200", "--loop-huge", "20", "--no-header"]
    if pickle:
        args.append("-p")
    env = dict(os.environ, PYTHONPATH=site)
    if stack == "interlace":
        env["LD_LIBRARY_PATH"] = libdir
        cmd = ["interlace", "run", "-n", "2", "--bind-to", "none", *args]
    else:
        env.update(OMPI_ENV)
        cmd = [*OMPI, *args]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    if out.returncode:
        sys.exit(f"run_mpi4py: {stack} failed ({out.returncode}):\n{out.stdout}\n{out.stderr}")
    times = {}
    for line in out.stdout.splitlines():
        m = ROW.match(line)
        if m:
            # mpi4py prints size, bandwidth (MB/s) and the mean one-way time (s).
            times[int(m.group(1))] = float(m.group(3)) * 1e6
    if not times:
        sys.exit(f"run_mpi4py: no figures in the output of {stack}:\n{out.stdout}")
    return times


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--interlace-site", required=True)
    ap.add_argument("--openmpi-site", required=True)
    ap.add_argument("--interlace-lib", default="", help="LD_LIBRARY_PATH for interlace's runs")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--max", type=int, default=4 << 20)
    a = ap.parse_args()
    exe = Path("/tmp/placement-probe-mpi4py")
    if PROBE_SRC.exists():
        subprocess.run(["cc", "-O2", "-o", str(exe), str(PROBE_SRC)], check=True)
    runs = []
    for r in range(a.rounds):
        for mode in ("buffer", "pickle"):
            order = ("interlace", "openmpi") if r % 2 == 0 else ("openmpi", "interlace")
            for stack in order:
                before = probe(exe)
                site = a.interlace_site if stack == "interlace" else a.openmpi_site
                t = one_run(stack, site, mode == "pickle", a.max, a.interlace_lib)
                after = probe(exe)
                runs.append({"round": r, "mode": mode, "stack": stack, "before": before,
                             "after": after, "us": t})
                print(f"round {r} {mode:6s} {stack:9s} {before}/{after} "
                      f"8B {t.get(8, float('nan')):.2f} us", file=sys.stderr)
    out = REPO / "bench" / "results" / f"mpi4py-{datetime.date.today()}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(runs, indent=1))
    for placement in ("near", "far"):
        kept = [x for x in runs if x["before"] == x["after"] == placement]
        if not kept:
            continue
        print(f"\n### {placement} placement ({len(kept)} runs kept)\n")
        print("| mode | bytes | interlace (us) | Open MPI (us) | ratio |")
        print("|---|---:|---:|---:|---:|")
        for mode in ("buffer", "pickle"):
            sizes = sorted({s for x in kept if x["mode"] == mode for s in x["us"]})
            for s in sizes:
                med = {}
                for stack in ("interlace", "openmpi"):
                    v = [x["us"][s] for x in kept
                         if x["mode"] == mode and x["stack"] == stack and s in x["us"]]
                    med[stack] = statistics.median(v) if v else float("nan")
                print(f"| {mode} | {s} | {med['interlace']:.2f} | {med['openmpi']:.2f} | "
                      f"{med['interlace'] / med['openmpi']:.2f} |")
    print(f"\nall runs: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
