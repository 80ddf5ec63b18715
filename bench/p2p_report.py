#!/usr/bin/env python3
"""Aggregation and markdown tables for run_p2p.py's JSON; also a CLI that re-prints the
tables of one or more result files (several files are pooled, e.g. a baseline run taken
before interlace's p2p layer existed plus a later run):

  bench/p2p_report.py [--include-disturbed] bench/results/p2p-*.json
"""
import json
import platform
import statistics
import subprocess
import sys
from collections import defaultdict

# interlace-shm is held against the best of these; interlace-tcp against ompi-tcp.
SHM_BASELINES = ("ompi-vader", "ompi-ucx", "mpich")
ORDER = ("interlace-shm", "interlace-tcp", "ompi-vader", "ompi-ucx", "mpich", "ompi-tcp", "memcpy")
METRICS = (("latency_us", "Latency, half round trip (us, lower is better)", False),
           ("bandwidth_GBps", "Streaming bandwidth, window of 64 (GB/s, higher is better)", True))


def machine_info():
    def cmd(*a):
        try:
            return subprocess.run(a, capture_output=True, text=True).stdout
        except FileNotFoundError:
            return ""
    lscpu = dict(l.split(":", 1) for l in cmd("lscpu").splitlines() if ":" in l)
    return {"cpu": lscpu.get("Model name", "?").strip(), "cpus": lscpu.get("CPU(s)", "?").strip(),
            "hypervisor": lscpu.get("Hypervisor vendor", "").strip(),
            "kernel": platform.release(),
            "openmpi": cmd("ompi_info", "--version").splitlines()[0:1],
            "mpich": [l for l in cmd("mpichversion").splitlines() if "Version" in l][0:1]}


def usable(run, include_disturbed):
    return run["placement"] in ("near", "far", "smt") and (include_disturbed or not run.get("disturbed"))


def aggregate(runs, include_disturbed=False):
    """(placement, impl, metric, bytes) -> median of the per-run medians and best of bests.
    Partial output of a failed run is kept: every JSON line is a complete measurement."""
    groups = defaultdict(list)
    for run in runs:
        if not usable(run, include_disturbed):
            continue
        for r in run["results"]:
            groups[(run["placement"], r["impl"], r["metric"], r["bytes"])].append(r)
    agg = []
    for (pl, impl, metric, nbytes), rs in sorted(groups.items()):
        hib = metric.startswith("bandwidth")
        bests = [r["best"] for r in rs]
        agg.append({"placement": pl, "impl": impl, "metric": metric, "bytes": nbytes,
                    "median": statistics.median(r["median"] for r in rs),
                    "best": max(bests) if hib else min(bests), "runs": len(rs)})
    return agg


def size_name(n):
    for unit, k in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= k and n % k == 0:
            return f"{n // k} {unit}"
    return f"{n} B"


def table(agg, placement, metric, title, hib, stat="median"):
    cells = {(a["impl"], a["bytes"]): a for a in agg
             if a["placement"] == placement and a["metric"] == metric}
    if not cells:
        return ""
    impls = [i for i in ORDER if any(k[0] == i for k in cells)]
    impls += sorted({k[0] for k in cells} - set(impls))
    sizes = sorted({k[1] for k in cells})
    ratios = []
    if "interlace-shm" in impls and any(b in impls for b in SHM_BASELINES):
        ratios.append(("shm / best MPI", "interlace-shm", SHM_BASELINES))
    if "interlace-tcp" in impls and "ompi-tcp" in impls:
        ratios.append(("tcp / ompi-tcp", "interlace-tcp", ("ompi-tcp",)))
    head = ["size"] + impls + [r[0] for r in ratios]
    what = ("median of per-run medians" if stat == "median" else
            "best repetition of all runs: the least disturbed figure")
    lines = [f"**{title}, {placement} placement** ({what})",
             "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    fmt = (lambda v: f"{v:.2f}") if hib else (lambda v: f"{v:.3f}" if v < 10 else f"{v:.2f}")
    for s in sizes:
        row = [size_name(s)] + [fmt(cells[(i, s)][stat]) if (i, s) in cells else "-" for i in impls]
        for _, mine, base in ratios:
            vals = [cells[(b, s)][stat] for b in base if (b, s) in cells]
            if (mine, s) in cells and vals:
                ref = max(vals) if hib else min(vals)
                row.append(f"{cells[(mine, s)][stat] / ref:.2f}")
            else:
                row.append("-")
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


def markdown(doc, include_disturbed=False, stats=("median", "best")):
    agg = doc["aggregate"]
    out = []
    for stat in stats:
        for pl in ("near", "far", "smt"):
            for metric, title, hib in METRICS:
                t = table(agg, pl, metric, title, hib, stat)
                if t:
                    out.append(t)
    mixed = sum(1 for r in doc["runs"] if r["placement"] == "mixed")
    busy = sum(1 for r in doc["runs"] if r["placement"] == "busy" or
               (r.get("disturbed") and not include_disturbed))
    errors = [f"{r['impl']} ({r['phase']}, round {r['round'] + 1}): {r['error']}"
              for r in doc["runs"] if r["error"]]
    out.append(f"{len(doc['runs'])} runs, {mixed} left out because the placement changed during them, "
               f"{busy} because other processes used the CPUs"
               + (" (disturbed runs included)." if include_disturbed else "."))
    if errors:
        out.append("Failed runs:\n" + "\n".join("- " + e for e in errors))
    return "\n".join(out)


def main(argv):
    inc = "--include-disturbed" in argv
    runs = []
    for p in [a for a in argv if not a.startswith("--")]:
        with open(p) as f:
            runs += json.load(f)["runs"]
    print(markdown({"runs": runs, "aggregate": aggregate(runs, inc)}, inc))


if __name__ == "__main__":
    main(sys.argv[1:])
