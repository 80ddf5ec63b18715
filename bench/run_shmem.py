#!/usr/bin/env python3
"""OpenSHMEM benchmarks (issue 9): the SAME sources (bench/shmem_latency.c, shmem_bw.c,
shmem_coll.c) built two ways and run interleaved:

  interlace  cc -I include ... -linterlace (this tree's shmem.h), or --interlace-cc
             interlace-oshcc; run with `interlace run -n N --fabric shm`
  oshmem     oshcc (Open MPI's OSHMEM, OpenSHMEM 1.4); run with
             `OMPI_MCA_osc=^rdma oshrun --allow-run-as-root --oversubscribe --bind-to none -np N`

plus bench/shmem_floor.c (cc), the copy between two local buffers behind a call that a
put or get on one host should match. Rounds are interleaved (A B, A B, ...), every run is
bracketed by the placement probe (/work/shared/tools/placement-probe.c) and by the CPU
share of other processes, as in run_mpi.py; 2 PEs get the full sweeps, 4 and 8 PEs (more
than this machine's cores: oversubscribed) the --quick ones.

  bench/run_shmem.py [--rounds 3] [--quick] [--npes 2,4,8] [--lib-dir build]
  bench/run_shmem.py --report bench/results/shmem-*.json      # tables of earlier runs

Writes bench/results/shmem-<date>.json (every run) and .md (the tables and the targets).
A full run takes about 6 minutes on the 2-core machine, --quick about 1.
"""
import argparse
import datetime
import json
import os
import platform
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_mpi import measured  # noqa: E402  (one probe-bracketed run, the same accounting)
from shmem_report import load, markdown, verdicts  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
PROBE_SRC = Path("/work/shared/tools/placement-probe.c")
PROGS = ("shmem_latency", "shmem_bw", "shmem_coll")
OSHRUN = ["oshrun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none"]
# The same heap for both (the programs need about 4 MiB per PE).
COMMON_ENV = {"SHMEM_SYMMETRIC_SIZE": "64M"}
OSHMEM_ENV = {"OMPI_MCA_osc": "^rdma", "OMPI_ALLOW_RUN_AS_ROOT": "1",
              "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


def sh(cmd):
    print("+", " ".join(map(str, cmd)), file=sys.stderr)
    subprocess.run([str(c) for c in cmd], check=True)


def build(work: Path, lib_dir: Path, impls, interlace_cc, progs):
    """{impl: {program: path}} plus the probe and the floor; an implementation that cannot
    be built here is skipped with a warning (interlace before its shmem.h exists)."""
    work.mkdir(parents=True, exist_ok=True)
    sh(["cc", "-O2", "-o", work / "placement-probe", PROBE_SRC])
    flags = ["-O2", "-Wall", "-Werror=implicit-function-declaration", "-Wno-deprecated-declarations",
             f"-I{REPO / 'bench'}"]
    sh(["cc", *flags, "-o", work / "shmem_floor", REPO / "bench/shmem_floor.c"])
    bins = {}
    for impl in impls:
        if impl.startswith("interlace"):
            if interlace_cc:
                cc, tail = shlex.split(interlace_cc), []
            elif not (REPO / "include/shmem.h").exists() or not (lib_dir / "libinterlace.so").exists():
                print(f"warning: {REPO / 'include/shmem.h'} or {lib_dir / 'libinterlace.so'} "
                      f"missing, {impl} skipped", file=sys.stderr)
                continue
            else:
                cc = ["cc", f"-I{REPO / 'include'}"]
                tail = [f"-L{lib_dir}", f"-Wl,-rpath,{lib_dir}", "-linterlace"]
        else:
            if not shutil.which("oshcc"):
                print("warning: oshcc missing, oshmem skipped", file=sys.stderr)
                continue
            cc, tail = ["oshcc"], []
        bins[impl] = {}
        for prog in progs:
            out = work / f"{prog}.{impl.split('-')[0]}"
            if out in (p for b in bins.values() for p in b.values()):
                bins[impl][prog] = out
                continue
            try:
                sh([*cc, *flags, "-o", out, REPO / "bench" / f"{prog}.c", *tail])
            except subprocess.CalledProcessError:
                # e.g. interlace before its collectives exist: the other programs still run
                print(f"warning: {prog} does not build for {impl}; its runs are skipped",
                      file=sys.stderr)
                continue
            bins[impl][prog] = out
    return work / "placement-probe", work / "shmem_floor", bins


def command(impl, exe, npes, args, timeout):
    if impl == "floor":
        return [exe, *args]
    if impl.startswith("interlace"):
        fabric = impl.split("-")[1] if "-" in impl else "shm"
        return [sys.executable, "-m", "interlace", "run", "-n", str(npes), "--bind-to", "none", "--fabric", fabric,
                "--timeout", str(timeout), exe, *args]
    return [*OSHRUN, "-np", str(npes), exe, *args]


def environment(impl):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("INTERLACE_", "SHMEM_", "OMPI_MCA_"))}
    env.update(COMMON_ENV)
    if impl.startswith("interlace"):
        try:
            import interlace  # noqa: F401  (the installed launcher)
        except ImportError:
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "python"), env.get("PYTHONPATH")]))
    elif impl == "oshmem":
        env.update(OSHMEM_ENV)
    return env


def parse(stdout):
    recs = []
    for line in stdout.splitlines():
        if line.startswith("{"):
            j = json.loads(line)
            recs.append((j["metric"], j["bytes"], j["median"], j["best"]))
    return recs


def plan(quick, npes_list, progs):
    """[(program, npes, args)] of one round. More PEs than cores: the quick sweeps (the
    figures say little beyond 'still works, and how it degrades')."""
    out = [("shmem_floor", 1, ["--quick"] if quick else [])]
    for npes in npes_list:
        q = quick or npes > (os.cpu_count() or 1)
        out += [(p, npes, ["--quick"] if q else []) for p in PROGS if p in progs]
    return out


def run_one(rnd, rounds, prog, npes, impl, cmd, args, probe_exe):
    label = f"round {rnd + 1}/{rounds} {prog:13} {npes} PEs"
    rec = measured(label, impl, cmd, environment(impl), probe_exe, args.timeout + 30, args.quiet_wait, parse)
    return {"round": rnd, "bench": prog, "npes": npes, **rec}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=None, help="default 3, --quick 2")
    ap.add_argument("--quick", action="store_true", help="fewer sizes and repetitions, 2 PEs, 2 rounds")
    ap.add_argument("--npes", default=None, help="PE counts, comma-separated (default 2,4,8; --quick: 2)")
    ap.add_argument("--lib-dir", default=str(REPO / "build"), help="directory of libinterlace.so")
    ap.add_argument("--interlace-cc", default=None,
                    help="compiler command for the interlace build instead of cc -I include ... "
                         "-linterlace (e.g. interlace-oshcc)")
    ap.add_argument("--work-dir", default=str(REPO / "build-bench" / "shmem"))
    ap.add_argument("--only", default="interlace,oshmem",
                    help="implementations: interlace (shm), interlace-tcp, oshmem")
    ap.add_argument("--benches", default=",".join(PROGS))
    ap.add_argument("--timeout", type=int, default=240, help="seconds per run")
    ap.add_argument("--quiet-wait", type=float, default=20.0,
                    help="seconds to wait for other processes to go quiet before each run")
    ap.add_argument("--out", default=None, help="JSON path (the .md goes next to it)")
    ap.add_argument("--report", nargs="+", metavar="JSON", help="run nothing: print the tables of earlier runs")
    ap.add_argument("--include-busy", action="store_true")
    args = ap.parse_args()
    if args.report:
        runs, impls = load(args.report)
        print(markdown(runs, impls, args.include_busy))
        for pl in ("near", "far"):
            print(verdicts(runs, impls, args.include_busy, pl))
        return
    rounds = args.rounds if args.rounds is not None else 2 if args.quick else 3
    for name, v in (("--rounds", rounds), ("--timeout", args.timeout)):
        if v < 1:
            ap.error(f"{name} must be at least 1, got {v}")
    try:
        npes_list = [int(x) for x in (args.npes or ("2" if args.quick else "2,4,8")).split(",")]
    except ValueError:
        ap.error(f"--npes takes comma-separated even PE counts, got {args.npes!r}")
    if any(n < 2 or n % 2 for n in npes_list):
        ap.error(f"--npes: the benchmarks pair PEs, so every count must be even and >= 2, got {args.npes}")
    wanted = [s for s in args.only.split(",") if s]
    bad = [s for s in wanted if s not in ("interlace", "interlace-shm", "interlace-tcp", "oshmem")]
    if bad:
        ap.error(f"--only: unknown implementation {bad[0]!r} (interlace, interlace-tcp, oshmem)")
    progs = [p for p in args.benches.split(",") if p]
    if any(p not in PROGS for p in progs):
        ap.error(f"--benches: unknown benchmark in {args.benches!r} (choose from {', '.join(PROGS)})")
    probe_exe, floor_exe, bins = build(Path(args.work_dir), Path(args.lib_dir).resolve(), wanted,
                                       args.interlace_cc, progs)
    impls = [i for i in wanted if i in bins]
    out = Path(args.out) if args.out else REPO / "bench/results" / f"shmem-{datetime.date.today()}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    runs, t0 = [], time.time()
    doc = {"machine": {"node": platform.node(), "cpus": os.cpu_count(), "kernel": platform.release()},
           "argv": sys.argv, "rounds": rounds, "quick": args.quick, "runs": runs}
    for rnd in range(rounds):
        for prog, npes, pargs in plan(args.quick, npes_list, progs):
            for impl in (["floor"] if prog == "shmem_floor" else impls):
                if impl != "floor" and prog not in bins[impl]:
                    continue
                exe = floor_exe if impl == "floor" else bins[impl][prog]
                cmd = command(impl, exe, npes, [*pargs, "--label", impl], args.timeout)
                runs.append(run_one(rnd, rounds, prog, npes, impl, cmd, args, probe_exe))
                doc.update(date=datetime.datetime.now().isoformat(timespec="seconds"),
                           elapsed_s=round(time.time() - t0, 1))
                out.write_text(json.dumps(doc, indent=1))
    text = markdown(runs, impls, args.include_busy) + "\n" + \
        "\n".join(verdicts(runs, impls, args.include_busy, pl) for pl in ("near", "far"))
    out.with_suffix(".md").write_text(text + "\n")
    print(text)
    print(f"\nraw results: {out} (tables: {out.with_suffix('.md')}), {time.time() - t0:.0f} s",
          file=sys.stderr)


if __name__ == "__main__":
    main()
