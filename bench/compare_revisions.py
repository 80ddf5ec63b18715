#!/usr/bin/env python3
"""Before/after check of a change: the same benchmark programs from two build trees
(say the last release and the working tree), run interleaved in one session.

Each round runs every benchmark once per build, alternating which build goes first,
and brackets each run with the placement probe (this machine's vCPUs move between a
near and a far placement that changes small-message latency 2.5-4x). Only runs whose
two probes agree are kept; the report gives, per figure and placement, the median
of each build and the ratio new/base (for bandwidths, base/new: above 1 is slower).

  bench/compare_revisions.py --base DIR --new DIR [--rounds N] [--out FILE]

DIR is a CMake build tree with bench/ programs. The launcher is the installed
`interlace` (both builds must speak its environment protocol).
"""
import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

PROBE_SRC = Path("/work/shared/tools/placement-probe.c")

# (name, program, arguments, parser). Figures are "lower is better" unless the
# key ends in "GB/s" or "/s".
BENCHES = [
    ("p2p", "p2p_pingpong", ["--quick"], "p2p"),
    ("coll", "coll_bench", ["--max", "65536"], "coll"),
    ("stream", "stream_latency", ["--quick"], "stream"),
]


def probe(exe: Path) -> str:
    out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60).stdout.split()
    return out[0] if out else "unknown"


def parse_p2p(text):
    figs = {}
    for line in text.splitlines():
        if line.startswith("{"):
            d = json.loads(line)
            unit = "GB/s" if "bandwidth" in d["metric"] else "us"
            figs[f"p2p {d['metric']} {d['bytes']} B ({unit})"] = d["median"]
    return figs


def parse_coll(text):
    figs = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 5 and parts[2].isdigit():
            figs[f"coll {parts[0]} {parts[1]} {parts[2]} B (us)"] = float(parts[4])
    return figs


def parse_stream(text):
    figs = {}
    for line in text.splitlines():
        if line.startswith("{"):
            d = json.loads(line)
            figs[f"stream {d['bench']} {d['impl']} {d['size']} ({d['unit']})"] = d["value"]
    return figs


PARSERS = {"p2p": parse_p2p, "coll": parse_coll, "stream": parse_stream}


def run(build: Path, prog: str, args, timeout=300):
    cmd = [sys.executable, "-m", "interlace", "run", "-n", "2", "--bind-to", "none",
           str(build / "bench" / prog), *args]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stderr[-2000:]}")
    return r.stdout


def higher_is_better(key: str) -> bool:
    return "GB/s" in key or "/s)" in key


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", type=Path, required=True)
    ap.add_argument("--new", type=Path, required=True)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--only", default="", help="comma-separated bench names (p2p,coll,stream)")
    ap.add_argument("--out", type=Path, help="raw results as JSON")
    ap.add_argument("--report", type=Path, help="only print the tables of an earlier --out file")
    a = ap.parse_args()
    if a.report:
        report(json.loads(a.report.read_text()))
        return
    probe_exe = Path("/tmp/placement-probe")
    subprocess.run(["cc", "-O2", "-o", str(probe_exe), str(PROBE_SRC)], check=True)
    only = set(filter(None, a.only.split(",")))
    builds = {"base": a.base, "new": a.new}
    raw = []  # {build, placement, figs}
    for rnd in range(a.rounds):
        order = ["base", "new"] if rnd % 2 == 0 else ["new", "base"]
        for name, prog, args, parser in BENCHES:
            if only and name not in only:
                continue
            for b in order:
                before = probe(probe_exe)
                out = run(builds[b], prog, args)
                after = probe(probe_exe)
                placement = before if before == after else "mixed"
                raw.append({"round": rnd, "build": b, "bench": name, "placement": placement,
                            "figs": PARSERS[parser](out)})
                print(f"round {rnd} {name} {b}: {placement}", file=sys.stderr)
    if a.out:
        a.out.write_text(json.dumps(raw, indent=1))
    report(raw)


def report(raw):
    for placement in ("near", "far"):
        rows = {}
        for r in raw:
            if r["placement"] != placement:
                continue
            for k, v in r["figs"].items():
                rows.setdefault(k, {"base": [], "new": []})[r["build"]].append(v)
        rows = {k: v for k, v in rows.items() if v["base"] and v["new"]}
        if not rows:
            continue
        print(f"\n### {placement} placement\n")
        print("| figure | base (median, n) | new (median, n) | slowdown new/base |")
        print("|---|---|---|---|")
        for k in sorted(rows):
            mb, mn = statistics.median(rows[k]["base"]), statistics.median(rows[k]["new"])
            ratio = (mb / mn if higher_is_better(k) else mn / mb) if mb and mn else float("nan")
            print(f"| {k} | {mb:.4g} ({len(rows[k]['base'])}) | {mn:.4g} ({len(rows[k]['new'])}) | {ratio:.2f} |")


if __name__ == "__main__":
    main()
