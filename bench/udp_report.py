#!/usr/bin/env python3
"""Tables of bench/run_udp.py's JSON: latency, bandwidth, goodput under loss, what the
link and the kernel counted, and issue 11's targets.

  bench/udp_report.py bench/results/udp-*.json [--include-disturbed] [--by-placement]

A cell is the median over runs of each run's own figure (latency: the mean half round
trip of a repetition, median over repetitions; bandwidth: median over repetitions), the
number of runs in brackets. Placements are pooled unless --by-placement: on this link a
round trip is tens of microseconds of kernel networking, against 0.1-0.2 us that the
placement moves a cache line, and the runs are interleaved anyway.
"""
import argparse
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path

IMPLS = ("tcp", "udp", "ompi")
NAMES = {"tcp": "interlace tcp", "udp": "interlace udp", "ompi": "Open MPI TCP"}


INCLUDE_MIXED = False  # --include-mixed: also runs whose placement changed during the run


def usable(run, include_disturbed):
    placements = ("near", "far", "mixed") if INCLUDE_MIXED else ("near", "far")
    return run["placement"] in placements and (include_disturbed or not run["disturbed"])


def aggregate(runs, include_disturbed, key=lambda r: "all"):
    """{group: {(metric, bytes, loss, impl): [per-run values]}} plus per-run extras."""
    out = defaultdict(lambda: defaultdict(list))
    for run in runs:
        if not usable(run, include_disturbed):
            continue
        for rec in run["results"]:
            k = (rec["metric"], rec["bytes"], run["loss_pct"], run["impl"])
            out[key(run)][k].append(rec)
    return out


def med(recs, field="median"):
    xs = [r[field] for r in recs if field in r]
    return statistics.median(xs) if xs else None


def fmt(v, digits=2):
    if v is None:
        return "-"
    return f"{v:.{digits}f}" if abs(v) < 1000 else f"{v:.0f}"


def size(b):
    return f"{b >> 20} MiB" if b >= 1 << 20 else f"{b >> 10} KiB" if b >= 1 << 10 else f"{b} B"


def ratio(a, b):
    return a / b if a is not None and b else None


def tables(cells, impls):
    losses = sorted({k[2] for k in cells})
    lines = []
    lat = sorted({k[1] for k in cells if k[0] == "latency_us"})
    bw = sorted({k[1] for k in cells if k[0] == "bandwidth_MBps"})

    def cell(metric, b, loss, impl, field="median"):
        recs = cells.get((metric, b, loss, impl), [])
        v = med(recs, field)
        return v, len(recs)

    lines += ["**Latency, half round trip, mean over a repetition (us, lower is better)**", "",
              "| size | loss | " + " | ".join(NAMES.get(i, i) for i in impls) + " | udp / tcp | udp / ompi |",
              "|---|---:|" + "---:|" * (len(impls) + 2)]
    for b in lat:
        for loss in losses:
            vals = {i: cell("latency_us", b, loss, i) for i in impls}
            row = [f"{fmt(v)} ({n})" if n else "-" for v, n in vals.values()]
            u, t, o = (vals.get(i, (None, 0))[0] for i in ("udp", "tcp", "ompi"))
            lines.append(f"| {size(b)} | {loss:g}% | " + " | ".join(row)
                         + f" | {fmt(ratio(u, t))} | {fmt(ratio(u, o))} |")
    lines += ["", "**Latency percentiles of single round trips, p50 / p99 (us)**", "",
              "| size | loss | " + " | ".join(NAMES.get(i, i) for i in impls) + " |",
              "|---|---:|" + "---:|" * len(impls)]
    for b in lat:
        for loss in losses:
            row = []
            for i in impls:
                recs = cells.get(("latency_us", b, loss, i), [])
                row.append(f"{fmt(med(recs, 'p50'), 1)} / {fmt(med(recs, 'p99'), 0)}" if recs else "-")
            lines.append(f"| {size(b)} | {loss:g}% | " + " | ".join(row) + " |")
    lines += ["", "**Bandwidth, window of isend/irecv (MB/s = 10^6 B/s, higher is better)**", "",
              "| size | loss | " + " | ".join(NAMES.get(i, i) for i in impls) + " | udp / tcp | udp / ompi |",
              "|---|---:|" + "---:|" * (len(impls) + 2)]
    for b in bw:
        for loss in losses:
            vals = {i: cell("bandwidth_MBps", b, loss, i) for i in impls}
            row = [f"{fmt(v, 1)} ({n})" if n else "-" for v, n in vals.values()]
            u, t, o = (vals.get(i, (None, 0))[0] for i in ("udp", "tcp", "ompi"))
            lines.append(f"| {size(b)} | {loss:g}% | " + " | ".join(row)
                         + f" | {fmt(ratio(u, t))} | {fmt(ratio(u, o))} |")
    if any(loss > 0 for loss in losses) and 0.0 in losses:
        lines += ["", "**Goodput under loss: bandwidth at p% / bandwidth at 0% (ideal: 1 - p)**", "",
                  "| size | loss | ideal | " + " | ".join(NAMES.get(i, i) for i in impls) + " |",
                  "|---|---:|---:|" + "---:|" * len(impls)]
        for b in bw:
            for loss in losses:
                if loss == 0:
                    continue
                row = [fmt(ratio(cell("bandwidth_MBps", b, loss, i)[0],
                                 cell("bandwidth_MBps", b, 0.0, i)[0])) for i in impls]
                lines.append(f"| {size(b)} | {loss:g}% | {1 - loss / 100:.2f} | " + " | ".join(row) + " |")
    return lines


def counters(runs, impls, include_disturbed):
    """Per (loss, impl): the link's measured drop rate and the kernel's TCP
    retransmissions and UDP receive-buffer overflows, medians per run."""
    acc = defaultdict(list)
    for r in runs:
        if usable(r, include_disturbed) and r.get("snmp"):
            s = [sum(ns[k] for ns in r["snmp"].values())
                 for k in ("Tcp.OutSegs", "Tcp.RetransSegs", "Udp.OutDatagrams", "Udp.RcvbufErrors")]
            acc[(r["loss_pct"], r["impl"])].append(
                (r["link_dropped"] / max(r["link_packets"], 1), *s, r["wall_s"]))
    lines = ["", "**What the link and the kernel counted (median per run, both namespaces)**", "",
             "| loss | impl | dropped / seen | TCP segments out | TCP retransmitted | UDP datagrams out | UDP receive-buffer drops | run (s) |",
             "|---:|---|---:|---:|---:|---:|---:|---:|"]
    for (loss, impl) in sorted(acc, key=lambda k: (k[0], impls.index(k[1]) if k[1] in impls else 9)):
        cols = list(zip(*acc[(loss, impl)]))
        m = [statistics.median(c) for c in cols]
        lines.append(f"| {loss:g}% | {impl} | {m[0]:.2%} | {m[1]:.0f} | {m[2]:.0f} | {m[3]:.0f} | {m[4]:.0f} | {m[5]:.1f} |")
    return lines


def targets(cells, impls):
    """Issue 11: udp at 0% within 1.5x of tcp's latency and >= 0.8x its bandwidth; at 10%
    loss udp's goodput at least half its 0% figure. Latency is judged on the mean (what
    a program sees) and, in brackets, on the median round trip (what a busy machine's
    scheduling spikes do not move)."""
    lines = ["", "**Issue 11 targets**", "", "| target | impl | size | value | met |",
             "|---|---|---|---:|---|"]

    def v(metric, b, loss, impl, field="median"):
        return med(cells.get((metric, b, loss, impl), []), field)

    def met(r, ok):
        return "-" if r is None else "yes" if ok(r) else "no"
    for u in [i for i in impls if i.startswith("udp")]:
        for b in sorted({k[1] for k in cells if k[0] == "latency_us"}):
            r = ratio(v("latency_us", b, 0.0, u), v("latency_us", b, 0.0, "tcp"))
            r50 = ratio(v("latency_us", b, 0.0, u, "p50"), v("latency_us", b, 0.0, "tcp", "p50"))
            lines.append(f"| latency / tcp at 0% <= 1.5 (p50) | {u} | {size(b)} | {fmt(r)} ({fmt(r50)}) "
                         f"| {met(r, lambda x: x <= 1.5)} ({met(r50, lambda x: x <= 1.5)}) |")
        for b in sorted({k[1] for k in cells if k[0] == "bandwidth_MBps"}):
            r = ratio(v("bandwidth_MBps", b, 0.0, u), v("bandwidth_MBps", b, 0.0, "tcp"))
            lines.append(f"| bandwidth / tcp at 0% >= 0.8 | {u} | {size(b)} | {fmt(r)} | {met(r, lambda x: x >= 0.8)} |")
        for b in sorted({k[1] for k in cells if k[0] == "bandwidth_MBps"}):
            r = ratio(v("bandwidth_MBps", b, 10.0, u), v("bandwidth_MBps", b, 0.0, u))
            lines.append(f"| goodput at 10% / at 0% >= 0.5 | {u} | {size(b)} | {fmt(r)} | {met(r, lambda x: x >= 0.5)} |")
    return lines


def markdown(doc, include_disturbed=False, by_placement=False):
    runs = doc["runs"]
    impls = [i for i in IMPLS if any(r["impl"] == i for r in runs)]
    impls += sorted({r["impl"] for r in runs} - set(impls))  # udp variants (--udp-variant)
    n_mixed = sum(r["placement"] == "mixed" for r in runs)
    n_dist = sum(r["disturbed"] and r["placement"] != "mixed" for r in runs)
    n_err = [(r["impl"], r["loss_pct"], r["error"]) for r in runs if r["error"]]
    lines = [f"{len(runs)} runs; {n_mixed} left out as mixed placement, "
             f"{n_dist} as disturbed{' (kept: --include-disturbed)' if include_disturbed else ''}"
             f"{' (mixed kept: --include-mixed)' if INCLUDE_MIXED else ''}; "
             f"{len(n_err)} failed."]
    lines += [f"- failed: {i} at {l:g}%: {e[:200]}" for i, l, e in n_err]
    key = (lambda r: r["placement"]) if by_placement else (lambda r: "all placements pooled" if INCLUDE_MIXED else "near and far pooled")
    for group, cells in sorted(aggregate(runs, include_disturbed, key).items()):
        lines += ["", f"### {group}", ""] + tables(cells, impls) + targets(cells, impls)
    lines += counters(runs, impls, include_disturbed)
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--include-disturbed", action="store_true")
    ap.add_argument("--by-placement", action="store_true")
    ap.add_argument("--include-mixed", action="store_true",
                    help="pool runs whose placement changed too (the placement moves a cache "
                         "line by 0.1-0.2 us; these round trips are 5-15 us)")
    args = ap.parse_args()
    global INCLUDE_MIXED
    INCLUDE_MIXED = args.include_mixed
    docs = [json.loads(Path(f).read_text()) for f in args.files]
    merged = dict(docs[0], runs=[r for d in docs for r in d["runs"]])
    print(markdown(merged, args.include_disturbed, args.by_placement))


if __name__ == "__main__":
    sys.exit(main())
