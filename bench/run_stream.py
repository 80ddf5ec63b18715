#!/usr/bin/env python3
"""Builds and runs the streaming-channel benchmarks side by side on 2 ranks of one host:
channel throughput (per-element push/pop and push_n vs memcpy), one-element channel
round trip vs p2p ping-pong, channel open rate, a producer/consumer pipeline (streamed
vs compute-then-send with p2p and with Open MPI), and stencil strong scaling on 1, 2
and 4 ranks.

Rounds are interleaved (every program once per round) and every run is bracketed by
/work/shared/tools/placement-probe.c, because this machine's two vCPUs move between a
near and a far placement; runs whose two probes disagree are labelled "mixed", runs
with a probe above 350 ns (CPUs shared with other work) "busy"; both are kept in the
JSON and out of the tables unless --include-busy.

  bench/run_stream.py [--quick] [--rounds N] [--build-dir DIR]

Writes bench/results/stream-<date>.json (raw runs) and prints markdown tables
(medians over runs of each run's median).
"""
import argparse
import datetime
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PROBE_SRC = Path("/work/shared/tools/placement-probe.c")
OMPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
BUSY_NS = 350  # a probe above this: the CPUs were shared with other work during the run
TARGETS = ["stream_throughput", "stream_latency", "stream_pipeline", "smi_stencil"]


def sh(cmd):
    print("+", " ".join(map(str, cmd)), file=sys.stderr)
    r = subprocess.run(list(map(str, cmd)), capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"failed ({r.returncode}):\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")


def build(bdir: Path) -> dict:
    bdir.mkdir(parents=True, exist_ok=True)
    sh(["cc", "-O2", "-o", bdir / "placement-probe", PROBE_SRC])
    cm = bdir / "cmake"
    sh(["cmake", "-S", REPO, "-B", cm, "-DCMAKE_BUILD_TYPE=Release", "-DINTERLACE_BUILD_TESTS=OFF"],
       )
    sh(["cmake", "--build", cm, "-j", "2", "--target", *TARGETS])
    bins = {"probe": bdir / "placement-probe", "stencil": cm / "examples" / "c" / "stencil"}
    for t in TARGETS[:3]:
        bins[t] = cm / "bench" / t
    if shutil.which("mpicc.openmpi"):
        out = bdir / "stream_pipeline_mpi.openmpi"
        sh(["mpicc.openmpi", "-O2", f"-I{REPO / 'bench'}", "-o", out, REPO / "bench" / "stream_pipeline_mpi.c"])
        bins["mpi"] = out
    return bins


def probe(bins) -> tuple[str, float]:
    out = subprocess.run([bins["probe"]], capture_output=True, text=True).stdout.split()
    return (out[0], float(out[1])) if len(out) >= 2 else ("unknown", 0.0)


def launcher(n: int) -> list:
    return [sys.executable, "-m", "interlace", "run", "-n", n, "--bind-to", "none", "--timeout", 600]


def run_one(name, cmd, env=None):
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "python"), e.get("PYTHONPATH")]))
    e.update(env or {})
    r = subprocess.run(list(map(str, cmd)), capture_output=True, text=True, env=e, timeout=900)
    if r.returncode != 0:
        print(f"{name} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}", file=sys.stderr)
        return []
    rows = [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{")]
    m = re.search(r"on (\d+)x(\d+) ranks: ([0-9.]+) ms", r.stdout)
    if m:  # the stencil prints one line, not JSON
        ranks = int(m.group(1)) * int(m.group(2))
        rows.append({"bench": "stencil", "impl": f"{ranks} ranks", "size": ranks,
                     "value": float(m.group(3)), "unit": "ms", "reps": 1})
    return rows


def programs(bins, quick):
    q = ["--quick"] if quick else []
    grid = ["1024", "1024", "20"] if quick else ["2048", "2048", "50"]
    progs = [("throughput", launcher(2) + [bins["stream_throughput"], *q], None),
             ("latency", launcher(2) + [bins["stream_latency"], *q], None),
             ("pipeline", launcher(2) + [bins["stream_pipeline"], *q], None)]
    if "mpi" in bins:
        progs.append(("pipeline-mpi", ["mpirun.openmpi", "-np", 2, "--bind-to", "none",
                                       "--mca", "pml", "ob1", "--mca", "btl", "self,vader",
                                       bins["mpi"], *q], OMPI_ENV))
    for n in (1, 2, 4):
        progs.append((f"stencil-{n}", launcher(n) + [bins["stencil"], *grid], {"STENCIL_NO_CHECK": "1"}))
    return progs


def table(runs, bench, unit, fmt, include_busy=False):
    agg = defaultdict(list)
    for run in runs:
        if run["placement"] in ("mixed", "busy") and not include_busy:
            continue
        for row in run["rows"]:
            if row["bench"] == bench and row["unit"] == unit:
                agg[(run["placement"], row["impl"], row["size"])].append(row["value"])
    lines = []
    for placement in sorted({k[0] for k in agg}):
        lines.append(f"\n{bench} ({unit}), placement {placement}:\n")
        lines.append("| variant | element / size | median | runs |")
        lines.append("|---|---|---|---|")
        for (p, impl, size), vals in sorted(agg.items()):
            if p == placement:
                lines.append(f"| {impl} | {size} | {fmt(statistics.median(vals))} | {len(vals)} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--rounds", type=int, default=None)
    ap.add_argument("--build-dir", type=Path, default=REPO / "build-bench")
    ap.add_argument("--include-busy", action="store_true",
                    help="tabulate busy/mixed runs too (on a machine that is never quiet)")
    a = ap.parse_args()
    rounds = a.rounds or (1 if a.quick else 5)
    bins = build(a.build_dir)
    runs = []
    for rnd in range(rounds):
        for name, cmd, env in programs(bins, a.quick):
            before = probe(bins)
            rows = run_one(name, cmd, env)
            after = probe(bins)
            placement = before[0] if before[0] == after[0] else "mixed"
            if max(before[1], after[1]) > BUSY_NS:
                placement = "busy"
            runs.append({"round": rnd, "program": name, "placement": placement,
                         "probe_ns": [before[1], after[1]], "rows": rows})
            print(f"round {rnd} {name}: {placement} ({before[1]:.0f}/{after[1]:.0f} ns), {len(rows)} results",
                  file=sys.stderr)
    out = REPO / "bench" / "results" / f"stream-{datetime.date.today()}.json"
    out.parent.mkdir(exist_ok=True)
    meta = {"host": os.uname().nodename, "cpus": os.cpu_count(), "rounds": rounds, "quick": a.quick}
    out.write_text(json.dumps({"meta": meta, "runs": runs}, indent=1))
    print(f"raw runs: {out}", file=sys.stderr)
    print(table(runs, "throughput", "elem/s", lambda v: f"{v / 1e9:.3f} G", a.include_busy))
    print(table(runs, "throughput", "GB/s", lambda v: f"{v:.2f}", a.include_busy))
    print(table(runs, "roundtrip", "us", lambda v: f"{v:.3f}", a.include_busy))
    print(table(runs, "open", "channels/s", lambda v: f"{v / 1e6:.2f} M", a.include_busy))
    print(table(runs, "pipeline", "ms", lambda v: f"{v:.2f}", a.include_busy))
    print(table(runs, "stencil", "ms", lambda v: f"{v:.1f}", a.include_busy))


if __name__ == "__main__":
    main()
