#!/usr/bin/env python3
"""Plots latency against size from a bench/run_coll.py JSON file: one PNG with a panel per
collective (log-log, one line per implementation; barrier as bars).

    python3 bench/plot_coll.py bench/results/coll-2ranks.json docs/img/coll-2ranks

Needs matplotlib (pip install matplotlib); only the benchmark tooling uses it.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

KINDS = ("barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall")
STYLE = {"interlace": dict(color="tab:blue", marker="o"), "openmpi": dict(color="tab:orange", marker="s"),
         "mpich": dict(color="tab:green", marker="^")}


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    doc = json.loads(Path(sys.argv[1]).read_text())
    prefix = Path(sys.argv[2])
    prefix.parent.mkdir(parents=True, exist_ok=True)
    fig, axes = plt.subplots(2, 3, figsize=(15, 8.5))
    for ax, kind in zip(axes.flat, KINDS):
        for impl, cells in doc["cells"].items():
            pts = sorted((c["bytes"], c["us"]) for c in cells if c["collective"] == kind)
            if not pts:
                continue
            if kind == "barrier":
                ax.bar(impl, pts[0][1], color=STYLE.get(impl, {}).get("color"))
                continue
            ax.plot([p[0] for p in pts], [p[1] for p in pts], label=impl, **STYLE.get(impl, {}))
        ax.set_title(f"{kind}, {doc['ranks']} ranks")
        ax.set_ylabel("µs per call")
        if kind != "barrier":
            ax.set_xscale("log", base=2)
            ax.set_xlabel("bytes" + (" per rank" if kind in ("allgather", "alltoall") else ""))
            ax.legend()
        ax.set_yscale("log")
        ax.grid(True, which="both", alpha=0.3)
    fig.suptitle(f"Collective latency, {doc['ranks']} ranks on {doc['cores']} cores "
                 f"(placement {' -> '.join(doc['placements'])})")
    fig.tight_layout()
    out = prefix.with_suffix(".png")
    fig.savefig(out, dpi=80)
    print(f"written {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
