#!/usr/bin/env python3
"""Bound against unbound ranks: the 8-byte ping-pong of bench/p2p_pingpong.cpp
(half round trip, blocking send/recv) under `interlace run -n 2 --bind-to none`
and `--bind-to core` (and `--bind-to hwthread` where a core has several),
interleaved round by round so that both see the same machine load.

  bench/run_binding.py [--build build/rel] [--rounds 10] [--fabric shm] [--size 8]

Needs p2p_pingpong built (`ninja -C BUILD p2p_pingpong`) and interlace installed
with hwloc. Writes bench/results/binding-<date>.json and prints a Markdown table:
per setting, the median over rounds of each run's median, and the best and worst
run, then each bound setting's ratio to `none` within a round. Each round runs
the settings in a rotated order, so neither always goes first.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run_once(exe: Path, bind: str, fabric: str, size: int) -> dict:
    cmd = [sys.executable, "-m", "interlace", "run", "-n", "2", "--bind-to", bind,
           "--report-bindings", "--fabric", fabric, "--timeout", "120",
           str(exe), "--lat", "--size", str(size), "--label", bind]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    if r.returncode != 0:
        raise SystemExit(f"run_binding: {' '.join(cmd)} failed ({r.returncode}):\n{r.stderr}")
    lines = [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{")]
    lat = [l for l in lines if l.get("metric") == "latency_us" and l.get("bytes") == size]
    if not lat:
        raise SystemExit(f"run_binding: no {size}-byte latency in the output of {' '.join(cmd)}")
    report = [l.split("] ", 1)[1] for l in r.stderr.splitlines() if l.startswith("interlace: [")]
    return {"bind": bind, "median_us": lat[0]["median"], "bindings": report}


def settings() -> list[str]:
    out = ["none", "core"]
    try:
        from interlace import _binding
        topo, _why = _binding.load_topology()
        if topo is not None and any(len(c) > 1 for c in topo.cores):
            out.append("hwthread")
    except ImportError:
        pass
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=str(REPO / "build" / "rel"))
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--fabric", default="shm")
    ap.add_argument("--size", type=int, default=8)
    a = ap.parse_args()
    exe = Path(a.build) / "bench" / "p2p_pingpong"
    if not exe.exists():
        raise SystemExit(f"run_binding: {exe} not built: ninja -C {a.build} p2p_pingpong")
    modes = settings()
    runs = []
    for rnd in range(a.rounds):
        k = rnd % len(modes)
        for bind in modes[k:] + modes[:k]:
            res = run_once(exe, bind, a.fabric, a.size)
            res["round"] = rnd
            runs.append(res)
            print(f"round {rnd} {bind}: {res['median_us']:.3f} us", file=sys.stderr)
    doc = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "machine": {"cpus": os.cpu_count(), "platform": platform.platform()},
           "command": " ".join(sys.argv), "fabric": a.fabric, "bytes": a.size, "runs": runs}
    out_dir = REPO / "bench" / "results"
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / f"binding-{doc['date'][:19].replace(':', '')}.json"
    out.write_text(json.dumps(doc, indent=1))
    print(f"| `--bind-to` | median of {a.rounds} run medians (us) | best run | worst run |")
    print("|---|---|---|---|")
    for bind in modes:
        v = [r["median_us"] for r in runs if r["bind"] == bind]
        print(f"| `{bind}` | {statistics.median(v):.3f} | {min(v):.3f} | {max(v):.3f} |")
    # Neighbouring runs share the machine's state (this VM's vCPUs move between
    # placements that change latency 2x): the per-round ratio cancels most of it.
    for bind in modes[1:]:
        ratios = []
        for rnd in range(a.rounds):
            got = {r["bind"]: r["median_us"] for r in runs if r["round"] == rnd}
            ratios.append(got[bind] / got["none"])
        print(f"\n`{bind}` / `none` within a round: median {statistics.median(ratios):.2f}, "
              f"range {min(ratios):.2f}-{max(ratios):.2f}")
    print(f"\nwritten {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
