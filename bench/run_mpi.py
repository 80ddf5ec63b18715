#!/usr/bin/env python3
"""MPI compatibility benchmark: the SAME benchmark sources (bench/mpi_pingpong.c and
bench/mpi_coll_bench.c) built three ways and run on 2 ranks:

  interlace  cc -I include/ ... -linterlace (the MPI library of this tree), `interlace run -n 2 --bind-to none`
  openmpi    mpicc.openmpi, `mpirun.openmpi -np 2 --bind-to none --mca pml ob1 --mca btl self,vader`
  mpich      mpicc.mpich,   `mpiexec.mpich -n 2`

Rounds are interleaved (A B C, A B C, ...) and every run is bracketed by the placement probe
(/work/shared/tools/placement-probe.c), because this machine's two vCPUs move between a near
and a far placement that changes small-message latency several times over: a run whose two
probes disagree is "mixed" and left out, and so is one during which other processes used
more than 10% of the machine (the cores are shared; --include-busy keeps those); the rest
are tabulated per placement, as the median over rounds of each program's own median.

  bench/run_mpi.py [--rounds 3] [--lib-dir build] [--quick] [--only interlace,openmpi]
                   [--binding pinned,unbound,bound]

--binding: `pinned` (the default) starts every launcher unbound and each program pins
rank r to CPU r itself (bench_common.h); `unbound` leaves the ranks unbound
(BENCH_NO_PIN=1), as the OSU programs run; `bound` lets each launcher bind to cores
(`interlace run --bind-to core`, `--bind-to core`, `-bind-to core`). Several run
interleaved in one round; the columns are then named impl/unbound, impl/bound.

Writes bench/results/mpi-<date>.json (every run) and prints markdown tables.
"""
import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_p2p import QUIET, cpu_snapshot, others_share, wait_quiet  # noqa: E402  (same accounting)

REPO = Path(__file__).resolve().parent.parent
PROBE_SRC = Path("/work/shared/tools/placement-probe.c")
OMPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
LAUNCH = {
    "openmpi": ["mpirun.openmpi", "-np", "2", "--bind-to", "none", "--mca", "pml", "ob1",
                "--mca", "btl", "self,vader"],
    "mpich": ["mpiexec.mpich", "-n", "2"],
}
BUSY_NS = 350  # a probe figure above this means another process shared a CPU


def sh(cmd, **kw):
    print("+", " ".join(map(str, cmd)), file=sys.stderr)
    return subprocess.run([str(c) for c in cmd], check=True, **kw)


def build(work: Path, lib_dir: Path, impls, programs=("mpi_pingpong", "mpi_coll_bench")):
    """{impl: {program: path}} plus the probe; an MPI whose compiler is missing is skipped.
    programs: sources bench/<program>.c (run_rma.py builds its own with this too)."""
    work.mkdir(parents=True, exist_ok=True)
    sh(["cc", "-O2", "-o", work / "placement-probe", PROBE_SRC])
    flags = ["-O2", "-Wall", "-Wno-stringop-overflow", f"-I{REPO / 'bench'}"]
    bins = {}
    for impl in impls:
        if impl == "interlace":
            lib = lib_dir / "libinterlace.so"
            if not lib.exists():
                print(f"warning: {lib} missing, interlace skipped", file=sys.stderr)
                continue
            cc = ["cc", f"-I{REPO / 'include'}"]
            tail = [f"-L{lib_dir}", f"-Wl,-rpath,{lib_dir}", "-linterlace"]
        else:
            if not shutil.which(f"mpicc.{impl}"):
                print(f"warning: mpicc.{impl} missing, {impl} skipped", file=sys.stderr)
                continue
            cc, tail = [f"mpicc.{impl}"], []
        bins[impl] = {}
        for prog in programs:
            out = work / f"{prog}.{impl}"
            sh([*cc, *flags, "-o", out, REPO / "bench" / f"{prog}.c", *tail])
            bins[impl][prog] = out
    return work / "placement-probe", bins


def probe(exe):
    out = subprocess.run([exe], capture_output=True, text=True, check=True, timeout=300).stdout.split()
    return ("busy" if float(out[1]) > BUSY_NS else out[0]), float(out[1])


BINDINGS = ("pinned", "unbound", "bound")


def command(impl, exe, args, binding="pinned"):
    bound = binding == "bound"
    if impl == "interlace":
        # Unbound like the MPIs below unless asked (`interlace run` binds by default).
        return [sys.executable, "-m", "interlace", "run", "-n", "2", "--bind-to",
                "core" if bound else "none", "--timeout", "280", exe, *args]
    launch = list(LAUNCH[impl])
    if bound and impl == "openmpi":
        launch[launch.index("none")] = "core"
    elif bound:
        launch += ["-bind-to", "core"]
    return [*launch, exe, *args]


def column(impl, binding):
    return impl if binding == "pinned" else f"{impl}/{binding}"


def environment(impl, binding="pinned"):
    env = {k: v for k, v in os.environ.items() if not k.startswith("INTERLACE_")}
    if binding != "pinned":
        env["BENCH_NO_PIN"] = "1"
    if impl == "interlace":
        try:
            import interlace  # noqa: F401  (the installed launcher)
        except ImportError:
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "python"),
                                                              env.get("PYTHONPATH")]))
    if impl == "openmpi":
        env.update(OMPI_ENV)
    return env


def parse(bench, stdout):
    """[(metric, bytes, value)]: pingpong JSON lines, or coll_bench's columns."""
    recs = []
    for line in stdout.splitlines():
        if bench.startswith("pingpong") and line.startswith("{"):
            j = json.loads(line)
            recs.append((j["metric"], j["bytes"], j["median"]))
        elif bench == "coll":
            f = line.split()
            if len(f) == 5 and f[1] == "mpi":
                recs.append((f"{f[0]}_us", int(f[2]), float(f[4])))
    return recs


def benches(quick):
    pp = ["--quick"] if quick else []
    coll = ["--max", "65536", "--iters", "50" if quick else "200", "--step", "8"]
    return {"pingpong-lat": ("mpi_pingpong", pp + ["--lat", "--label", "mpi"]),
            "pingpong-bw": ("mpi_pingpong", pp + ["--bw", "--label", "mpi"]),
            "coll": ("mpi_coll_bench", coll)}


def tables(runs, impls, include_busy):
    """Markdown: one table per placement, rows (metric, bytes), a column per MPI. Runs
    disturbed by other processes (CPU share or a busy probe) only with include_busy."""
    out = []
    for placement in ("near", "far", "busy") if include_busy else ("near", "far"):
        vals = {}
        for r in runs:
            if r["placement"] != placement or r["error"] or (r["disturbed"] and not include_busy):
                continue
            for metric, nbytes, v in r["results"]:
                vals.setdefault((metric, nbytes), {}).setdefault(r["impl"], []).append(v)
        if not vals:
            continue
        out.append(f"\n{placement} placement (median over rounds; runs per cell in brackets)\n")
        out.append("| metric | bytes | " + " | ".join(impls) + " |")
        out.append("|---|---:|" + "---:|" * len(impls))
        for (metric, nbytes) in sorted(vals, key=lambda k: (k[0], k[1])):
            cells = []
            for impl in impls:
                xs = vals[(metric, nbytes)].get(impl, [])
                cells.append(f"{statistics.median(xs):.2f} ({len(xs)})" if xs else "-")
            out.append(f"| {metric} | {nbytes} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def measured(label, impl, cmd, env, probe_exe, timeout, quiet_wait, parse_out):
    """One run bracketed by the placement probe, after waiting for a quiet machine: the
    run's record (placement, probes, others' CPU share, error, parse_out(stdout))."""
    wait_quiet(quiet_wait)
    before = probe(probe_exe)
    start, c0 = time.time(), cpu_snapshot()
    try:
        cp = subprocess.run([str(c) for c in cmd], capture_output=True, text=True,
                            timeout=timeout, env=env)
        err = None if cp.returncode == 0 else f"exit {cp.returncode}: {cp.stderr[-400:]}"
        recs = parse_out(cp.stdout)
    except subprocess.TimeoutExpired:
        err, recs = f"timeout after {timeout}s", []
    wall = time.time() - start
    others = others_share(c0, cpu_snapshot(), wall)
    after = probe(probe_exe)
    placement = before[0] if before[0] == after[0] else "mixed"
    print(f"{label} {impl:9} {placement:5} (probe {before[1]:.0f}/{after[1]:.0f} ns, "
          f"others {others:4.0%}) {wall:5.1f}s" + (f"  ERROR {err}" if err else ""), file=sys.stderr)
    return {"impl": impl, "placement": placement, "probe_ns": [before[1], after[1]],
            "others_share": round(others, 3), "disturbed": others > QUIET + 0.02 / max(wall, 0.01),
            "wall_s": round(wall, 2), "command": [str(c) for c in cmd], "error": err, "results": recs}


def save(out: Path, runs, rounds, quick, t0):
    """Writes every run so far (a run cut short keeps what it measured)."""
    doc = {"date": datetime.datetime.now().isoformat(timespec="seconds"),
           "machine": {"node": platform.node(), "cpus": os.cpu_count(), "kernel": platform.release()},
           "rounds": rounds, "quick": quick, "elapsed_s": round(time.time() - t0, 1), "runs": runs}
    out.write_text(json.dumps(doc, indent=1))


def report(files, include_busy):
    """The tables of earlier result files, pooled."""
    runs, impls = [], []
    for f in files:
        for r in json.loads(Path(f).read_text())["runs"]:
            runs.append(r)
            if r["impl"] not in impls:
                impls.append(r["impl"])
    return tables(runs, impls, include_busy)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="fewer sizes and repetitions")
    ap.add_argument("--lib-dir", default=str(REPO / "build"),
                    help="build directory holding libinterlace.so (with the MPI layer)")
    ap.add_argument("--work-dir", default=str(REPO / "build-bench" / "mpi"))
    ap.add_argument("--only", default="interlace,openmpi,mpich")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per run")
    ap.add_argument("--out", default=None)
    ap.add_argument("--quiet-wait", type=float, default=20.0,
                    help="seconds to wait for other processes to go quiet before each run")
    ap.add_argument("--benches", default="pingpong-lat,pingpong-bw,coll",
                    help="which of pingpong-lat, pingpong-bw, coll to run")
    ap.add_argument("--report", nargs="+", metavar="JSON",
                    help="run nothing: print the tables of earlier result files, merged")
    ap.add_argument("--include-busy", action="store_true",
                    help="also tabulate runs whose probes saw a CPU shared with another process")
    ap.add_argument("--binding", default="pinned",
                    help="comma list of " + ", ".join(BINDINGS) + " (see above)")
    args = ap.parse_args()
    bindings = [b for b in args.binding.split(",") if b]
    for b in bindings:
        if b not in BINDINGS:
            ap.error(f"--binding: '{b}' is not one of {', '.join(BINDINGS)}")
    if args.report:
        print(report(args.report, args.include_busy))
        return
    wanted = [s for s in args.only.split(",") if s]
    probe_exe, bins = build(Path(args.work_dir), Path(args.lib_dir).resolve(), wanted)
    impls = [i for i in wanted if i in bins]
    columns = [column(i, b) for b in bindings for i in impls]
    out = Path(args.out) if args.out else REPO / "bench/results" / f"mpi-{datetime.date.today()}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    runs, t0 = [], time.time()
    for rnd in range(args.rounds):
        for bench, (prog, pargs) in benches(args.quick).items():
            if bench not in args.benches.split(","):
                continue
            for binding in bindings:
                for impl in impls:
                    cmd = command(impl, bins[impl][prog], pargs, binding)
                    runs.append(measured(f"round {rnd + 1}/{args.rounds} {bench:12}",
                                         column(impl, binding), cmd, environment(impl, binding),
                                         probe_exe, args.timeout, args.quiet_wait,
                                         lambda stdout, b=bench: parse(b, stdout)))
                    runs[-1].update(round=rnd, bench=bench, binding=binding)
                    save(out, runs, args.rounds, args.quick, t0)
    print(tables(runs, columns, args.include_busy))
    print(f"\nraw results: {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
