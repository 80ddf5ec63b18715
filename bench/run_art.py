#!/usr/bin/env python3
"""Automatic result transfer (issue 9): matrix multiply time on 1 rank and on 2 ranks
with ART, rounds interleaved (1 rank, 2 ranks owner-issued, 2 ranks producer-issued,
2 ranks without ART, then the next round), median of each run's repeats, then the
median over rounds. The target is a speedup of at least 1.9 on 2 ranks where each
rank has a core of its own (kernel thread busy, main thread asleep while it waits).

  bench/run_art.py [--n 1024] [--rounds 5] [--reps 3] [--batch-rows 4] [--build-dir build]

Needs bench/art_matmul built (ninja -C build art_matmul_bench). Prints a markdown
table and writes bench/results/art-<date>.json with every repeat.
"""
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
LINE = re.compile(r"art_matmul n=(\d+) ranks=(\d+) mode=(\w+) rep=(\d+) seconds=([\d.]+)")

CONFIGS = [  # label, ranks, mode, extra environment
    ("1 rank", 1, "owner", {}),
    ("2 ranks, ART (owner issues)", 2, "owner", {}),
    ("2 ranks, ART (producer issues, progress thread)", 2, "producer", {"INTERLACE_PROGRESS": "thread"}),
    ("2 ranks, one put at the end (no ART)", 2, "bulk", {}),
]


def run(prog: Path, ranks: int, mode: str, env_extra: dict, args) -> list:
    env = {k: v for k, v in os.environ.items() if not k.startswith("INTERLACE_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "python"), env.get("PYTHONPATH")]))
    env.update(env_extra)
    cmd = [sys.executable, "-m", "interlace", "run", "-n", str(ranks), "--fabric", args.fabric,
           str(prog), str(args.n), str(args.reps), str(args.batch_rows), mode]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    return [float(m.group(5)) for m in LINE.finditer(r.stdout)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=1024)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--batch-rows", type=int, default=4)
    ap.add_argument("--fabric", default="shm")
    ap.add_argument("--build-dir", type=Path, default=REPO / "build")
    args = ap.parse_args()
    prog = args.build_dir / "bench" / "art_matmul"
    if not prog.exists():
        sys.exit(f"{prog} is missing: ninja -C {args.build_dir} art_matmul_bench")

    runs = {label: [] for label, *_ in CONFIGS}
    raw = []
    for rnd in range(args.rounds):
        for label, ranks, mode, env in CONFIGS:
            times = run(prog, ranks, mode, env, args)
            runs[label].append(statistics.median(times))
            raw.append({"round": rnd, "config": label, "seconds": times})
            print(f"round {rnd} {label}: {statistics.median(times):.4f} s", file=sys.stderr)

    base = statistics.median(runs[CONFIGS[0][0]])
    print(f"\nn = {args.n}, batch = {args.batch_rows} rows, fabric {args.fabric}, {args.rounds} rounds x "
          f"{args.reps} repeats, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}\n")
    print("| configuration | median (s) | min..max of round medians (s) | speedup vs 1 rank |")
    print("|---|---|---|---|")
    for label, *_ in CONFIGS:
        v = runs[label]
        med = statistics.median(v)
        print(f"| {label} | {med:.4f} | {min(v):.4f}..{max(v):.4f} | {base / med:.2f}x |")
    out = REPO / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"art-{datetime.datetime.now():%Y%m%d-%H%M%S}.json"
    path.write_text(json.dumps({"n": args.n, "batch_rows": args.batch_rows, "fabric": args.fabric,
                                "cpus": os.cpu_count(), "runs": raw}, indent=1))
    print(f"\nraw repeats: {path.relative_to(REPO)}", file=sys.stderr)


if __name__ == "__main__":
    main()
