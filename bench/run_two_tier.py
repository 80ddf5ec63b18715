#!/usr/bin/env python3
"""Two-tier job against all-tcp: an allreduce across two network namespaces
("hosts") with two ranks each (docs/benchmarks.md, "Two tiers").

    sudo python3 bench/run_two_tier.py [--build build] [--rounds 5] [--max 4194304]

Each round runs bench/coll_bench --only allreduce under `interlace run` over the two
namespaces twice, once with INTERLACE_FABRIC=auto (shm inside a namespace, tcp
between them) and once with INTERLACE_FABRIC=tcp, alternating which goes first, and
prints the median over rounds per size as a markdown table. Needs root (namespaces)
and a Python that imports interlace. The namespaces (tb-ns1, tb-ns2 on bridge tb-br,
10.80.0.0/24) are removed at exit.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

P, NET = "tb-", "10.80.0"


def sh(*cmd, check=True):
    return subprocess.run([str(c) for c in cmd], check=check, capture_output=True, text=True)


def teardown():
    for i in (1, 2):
        sh("ip", "link", "del", f"{P}v{i}", check=False)
        sh("ip", "netns", "del", f"{P}ns{i}", check=False)
    sh("ip", "link", "del", f"{P}br", check=False)


def setup():
    teardown()
    sh("ip", "link", "add", f"{P}br", "type", "bridge")
    sh("ip", "addr", "add", f"{NET}.1/24", "dev", f"{P}br")
    sh("ip", "link", "set", f"{P}br", "up")
    for i in (1, 2):
        ns = f"{P}ns{i}"
        sh("ip", "netns", "add", ns)
        sh("ip", "link", "add", f"{P}v{i}", "type", "veth", "peer", "name", f"{P}w{i}")
        sh("ip", "link", "set", f"{P}w{i}", "netns", ns)
        sh("ip", "link", "set", f"{P}v{i}", "master", f"{P}br")
        sh("ip", "link", "set", f"{P}v{i}", "up")
        sh("ip", "-n", ns, "addr", "add", f"{NET}.{i + 1}/24", "dev", f"{P}w{i}")
        sh("ip", "-n", ns, "link", "set", f"{P}w{i}", "up")
        sh("ip", "-n", ns, "link", "set", "lo", "up")


def run_once(build: str, fabric: str, max_bytes: int) -> dict[int, float]:
    env = dict(os.environ, INTERLACE_FABRIC=fabric)
    cmd = [sys.executable, "-m", "interlace", "run", "--hosts", f"{P}ns1,{P}ns2",
           "--rsh", "ip netns exec {host}", "--store-addr", f"{NET}.1", "-n", "4", "--timeout", "300",
           os.path.join(build, "bench", "coll_bench"), "--only", "allreduce", "--max", str(max_bytes)]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=330)
    if r.returncode != 0:
        raise SystemExit(f"{fabric}: exit {r.returncode}\n{r.stdout}\n{r.stderr}")
    out = {}
    for line in r.stdout.splitlines():
        f = line.split()
        # "collective algorithm bytes ranks usec"
        if len(f) == 5 and f[0] == "allreduce" and f[2].isdigit():
            out[int(f[2])] = float(f[4])
    if not out:
        raise SystemExit(f"{fabric}: no allreduce lines in\n{r.stdout}")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--max", type=int, default=4 << 20)
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("run_two_tier.py: needs root (network namespaces)", file=sys.stderr)
        return 2
    setup()
    try:
        results: dict[str, list[dict[int, float]]] = {"auto": [], "tcp": []}
        for rnd in range(a.rounds):
            order = ["auto", "tcp"] if rnd % 2 == 0 else ["tcp", "auto"]
            for fabric in order:
                results[fabric].append(run_once(a.build, fabric, a.max))
            print(f"round {rnd + 1}/{a.rounds} done", file=sys.stderr)
    finally:
        teardown()
    sizes = sorted(set.intersection(*(set(r) for rs in results.values() for r in rs)))
    print("| bytes | two tiers (shm+tcp) us | all tcp us | tcp / two tiers |")
    print("|---:|---:|---:|---:|")
    for s in sizes:
        t2 = statistics.median(r[s] for r in results["auto"])
        tc = statistics.median(r[s] for r in results["tcp"])
        print(f"| {s} | {t2:.1f} | {tc:.1f} | {tc / t2:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
