"""Tables and target verdicts for bench/run_shmem.py's JSON (also usable on its own:
`bench/shmem_report.py bench/results/shmem-*.json` prints the markdown of the pooled runs).

A cell is the median over runs of each run's own median (runs per cell in brackets). Runs
whose placement probes disagreed ("mixed") or during which other processes used the CPUs
("disturbed") are left out unless include_busy. The copy floor is one process on one core,
so its runs are pooled over placements.
"""
import json
import statistics
import sys
from pathlib import Path

# Which floor figure bounds which metric (same bytes).
FLOOR_OF = {"put_us": "copy_us", "get_us": "copy_us",
            "put_bw_MBps": "copy_bw_MBps", "get_bw_MBps": "copy_bw_MBps"}
HIGHER_IS_BETTER = ("_MBps", "_Mmsgs", "_Mops")
ORDER = ["put_us", "get_us", "p_us", "g_us", "pingpong_us", "put_bw_MBps", "get_bw_MBps",
         "put_rate_Mmsgs", "p_rate_Mmsgs", "fadd_rate_Mops", "barrier_all_us", "bcast64_us",
         "broadcastmem_us", "sum_to_all_us", "sum_reduce_us"]


def higher_better(metric):
    return metric.endswith(HIGHER_IS_BETTER)


def fmt(v):
    if v is None:
        return "-"
    a = abs(v)
    return f"{v:.0f}" if a >= 1000 else f"{v:.1f}" if a >= 100 else f"{v:.2f}" if a >= 1 else f"{v:.3f}"


def size(n):
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB" if n >= 1 << 10 else f"{n} B"


def usable(r, include_busy):
    return not r["error"] and r["placement"] != "mixed" and (include_busy or not r["disturbed"])


def cells(runs, include_busy):
    """{(placement, npes): {(metric, bytes): {impl: [per-run medians]}}} and the floor
    {(metric, bytes): [medians]}."""
    table, floor = {}, {}
    for r in runs:
        if not usable(r, include_busy):
            continue
        for metric, nbytes, med, _best in r["results"]:
            if r["impl"] == "floor":
                floor.setdefault((metric, nbytes), []).append(med)
            else:
                key = (r["placement"], r["npes"])
                table.setdefault(key, {}).setdefault((metric, nbytes), {}) \
                     .setdefault(r["impl"], []).append(med)
    return table, floor


def _med(xs):
    return statistics.median(xs) if xs else None


def ratio(a, b):
    return a / b if a is not None and b else None


def markdown(runs, impls, include_busy=False):
    """One table per (placement, PE count): rows (metric, size), a column per
    implementation, interlace/OSHMEM, and for put/get the floor and "x floor": how many
    times slower than the floor the best implementation is (time ratio for latency,
    inverse bandwidth ratio for bandwidth)."""
    table, floor = cells(runs, include_busy)
    out = []
    base, new = "oshmem", next((i for i in impls if i.startswith("interlace")), None)
    for (placement, npes) in sorted(table, key=lambda k: (k[0] != "near", k[1])):
        rows = table[(placement, npes)]
        over = " (oversubscribed: more PEs than cores)" if npes > 2 else ""
        out.append(f"\n**{npes} PEs, {placement} placement{over}** "
                   "(median over runs of each run's median; runs in brackets)\n")
        head = ["metric", "size", *impls]
        if new and base in impls:
            head.append(f"{new} / {base}")
        head += ["floor", "x floor"]
        out.append("| " + " | ".join(head) + " |")
        out.append("|---|---:|" + "---:|" * (len(head) - 2))
        for metric, nbytes in sorted(rows, key=lambda k: (ORDER.index(k[0]) if k[0] in ORDER else 99, k[1])):
            cell = rows[(metric, nbytes)]
            vals = {i: _med(cell.get(i, [])) for i in impls}
            line = [metric, size(nbytes) if nbytes else "-"]
            line += [f"{fmt(vals[i])} ({len(cell.get(i, []))})" if vals[i] is not None else "-" for i in impls]
            if new and base in impls:
                line.append(fmt(ratio(vals[new], vals[base])))
            fl = _med(floor.get((FLOOR_OF.get(metric), nbytes), [])) if npes == 2 else None
            best = [v for v in vals.values() if v is not None]
            best = (max(best) if higher_better(metric) else min(best)) if best else None
            fr = ratio(fl, best) if higher_better(metric) else ratio(best, fl)
            line += [fmt(fl), fmt(fr) if fl else "-"]
            out.append("| " + " | ".join(line) + " |")
    return "\n".join(out)


def verdicts(runs, impls, include_busy=False, placement="near", npes=2):
    """The issue's targets, per metric: met, or missed at which sizes by how much."""
    table, floor = cells(runs, include_busy)
    rows = table.get((placement, npes), {})
    new = next((i for i in impls if i.startswith("interlace")), None)
    out = [f"\nTargets ({npes} PEs, {placement} placement):\n",
           "| target | metric | verdict |", "|---|---|---|"]
    if not rows:
        return f"\n(no undisturbed {placement}-placement runs with {npes} PEs)"

    def judge(metric, other, is_floor):
        if not new:
            return "pending: no interlace figures (interlace's shmem.h not built)"
        seen = []  # (how many times worse than the reference: > 1 is a miss, bytes, new/ref)
        for (m, nbytes), cell in sorted(rows.items()):
            if m != metric:
                continue
            v = _med(cell.get(new, []))
            ref = _med(floor.get((FLOOR_OF[m], nbytes), [])) if is_floor else _med(cell.get(other, []))
            if v is not None and ref:
                seen.append((ref / v if higher_better(m) else v / ref, nbytes, v / ref))
        if not seen:
            return "no common sizes"
        worst = max(seen)
        misses = sorted((x for x in seen if x[0] > 1.0), reverse=True)
        what = "interlace / " + ("floor" if is_floor else other)
        if not misses:
            return f"**met** at all {len(seen)} sizes ({what} at worst {worst[2]:.2f} at {size(worst[1])})"
        listed = ", ".join(f"{size(b)} {r:.2f}" for _, b, r in misses[:6])
        more = f" and {len(misses) - 6} more" if len(misses) > 6 else ""
        return (f"**missed** at {len(misses)} of {len(seen)} sizes ({what}, worst first: "
                f"{listed}{more})")

    for metric in ("put_us", "get_us", "p_us", "g_us", "pingpong_us"):
        out.append(f"| latency <= OSHMEM | {metric} | {judge(metric, 'oshmem', False)} |")
    for metric in ("put_bw_MBps", "get_bw_MBps"):
        out.append(f"| bandwidth >= OSHMEM | {metric} | {judge(metric, 'oshmem', False)} |")
    for metric in ("put_us", "get_us", "put_bw_MBps", "get_bw_MBps"):
        out.append(f"| as fast as copy + call | {metric} | {judge(metric, None, True)} |")
    return "\n".join(out)


def wide(runs, impls, metrics, placement="near", npes=2, include_busy=False):
    """Sizes down, one column per (metric, implementation), the floor where it applies:
    the compact form for docs/benchmarks.md."""
    table, floor = cells(runs, include_busy)
    rows = table.get((placement, npes), {})
    sizes = sorted({b for (m, b) in rows if m in metrics})
    new = next((i for i in impls if i.startswith("interlace")), None)
    cols = []  # (metric, implementation, or None for the interlace/oshmem ratio)
    for m in metrics:
        have = [i for i in impls if any(i in rows.get((m, b), {}) for b in sizes)]
        cols += [(m, i) for i in have]
        if new in have and "oshmem" in have:
            cols.append((m, None))
    floors = sorted({FLOOR_OF[m] for m in metrics if m in FLOOR_OF})
    head = [f"{m} {i}" if i else f"{m} {new}/oshmem" for m, i in cols] + [f"{f} floor" for f in floors]
    out = ["| size | " + " | ".join(head) + " |", "|---:|" + "---:|" * len(head)]
    for b in sizes:
        line = [size(b) if b else "-"]
        for m, i in cols:
            cell = rows.get((m, b), {})
            if i:
                line.append(fmt(_med(cell.get(i, []))))
            else:
                line.append(fmt(ratio(_med(cell.get(new, [])), _med(cell.get("oshmem", [])))))
        line += [fmt(_med(floor.get((f, b), []))) for f in floors]
        out.append("| " + " | ".join(line) + " |")
    return "\n".join(out)


def load(paths):
    runs, impls = [], []
    for p in paths:
        for r in json.loads(Path(p).read_text())["runs"]:
            runs.append(r)
            if r["impl"] != "floor" and r["impl"] not in impls:
                impls.append(r["impl"])
    impls.sort(key=lambda i: (i != "oshmem", i))
    return runs, impls


if __name__ == "__main__":
    busy = "--include-busy" in sys.argv
    compact = "--wide" in sys.argv
    files = [a for a in sys.argv[1:] if a not in ("--include-busy", "--wide")]
    if not files:
        sys.exit("usage: shmem_report.py [--include-busy] [--wide] RESULT.json...")
    runs, impls = load(files)
    if compact:
        groups = (["put_us", "get_us", "pingpong_us"], ["p_us", "g_us"],
                  ["put_bw_MBps", "get_bw_MBps"], ["put_rate_Mmsgs", "p_rate_Mmsgs", "fadd_rate_Mops"],
                  ["barrier_all_us", "bcast64_us", "broadcastmem_us", "sum_to_all_us", "sum_reduce_us"])
        for npes in sorted({r["npes"] for r in runs if r["impl"] != "floor"}):
            for pl in ("near", "far"):
                for g in groups:
                    t = wide(runs, impls, g, pl, npes, busy)
                    if t.count("\n") > 1:
                        print(f"\n{npes} PEs, {pl}:\n\n{t}")
        sys.exit(0)
    print(markdown(runs, impls, busy))
    for pl in ("near", "far"):
        print(verdicts(runs, impls, busy, pl))
