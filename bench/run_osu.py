#!/usr/bin/env python3
"""The OSU micro-benchmarks as third parties run them: osu_latency, osu_bw and osu_bibw
on 2 unbound ranks, beside each other. The programs are not ours: this script neither
fetches nor builds them. Build them yourself from the OSU sources, unchanged, once per
MPI, into one directory each (docs/mpi.md, "Third-party programs"):

  openmpi    mpicc.openmpi -O2 osu_X.c osu_pt2pt.c      run by `mpirun.openmpi -np 2
             --bind-to none --mca pml ob1 --mca btl self,vader`
  mpich      mpicc.mpich -O2 osu_X.c osu_pt2pt.c        run by `mpiexec.mpich -n 2`
  interlace  interlace-cc -O2 osu_X.c osu_pt2pt.c (or cc -Iinclude ... -Lbuild -linterlace,
             no rpath)                                   run by `interlace run -n 2`

and name the directories with --osu-bin. --interlace NAME=LIBDIR runs the interlace
programs once per libinterlace.so copy (LD_LIBRARY_PATH picks it), e.g. a copy built
before a change and the build after it, in one run.

Rounds are interleaved (every implementation once per round, every program) and bracketed
by the placement probe as in run_mpi.py; a run whose probes disagree is left out. Tables:
median over rounds of OSU's own figure, per placement.

  bench/run_osu.py --osu-bin openmpi=/tmp/osu/ompi,mpich=/tmp/osu/mpich,interlace=/tmp/osu/il \\
      --interlace before=/tmp/lib-before,after=build [--rounds 3] [--programs latency,bw,bibw]
"""
import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_mpi import LAUNCH, PROBE_SRC, REPO, environment, measured, sh  # noqa: E402

PROGRAMS = ("latency", "bw", "bibw")


def locate(bin_dirs, impls, programs, work: Path):
    """The placement probe and {impl: {program: exe}}; impls maps a name to None (an MPI)
    or a library directory (interlace: the programs of --osu-bin interlace=DIR)."""
    work.mkdir(parents=True, exist_ok=True)
    sh(["cc", "-O2", "-o", work / "placement-probe", PROBE_SRC])
    bins = {}
    for impl, lib in impls.items():
        key = "interlace" if lib is not None else impl
        if key not in bin_dirs:
            raise SystemExit(f"--osu-bin names no directory for {key}")
        bins[impl] = {}
        for p in programs:
            exe = Path(bin_dirs[key]) / f"osu_{p}"
            if not exe.is_file():
                raise SystemExit(f"{exe} is missing: build osu_{p} for {key} first (see --help)")
            bins[impl][p] = exe
    return work / "placement-probe", bins


def parse(stdout):
    """[(bytes, value)] from OSU's "size value" lines."""
    out = []
    for line in stdout.splitlines():
        f = line.split()
        if len(f) == 2 and f[0].isdigit():
            out.append((int(f[0]), float(f[1])))
    return out


def command(impl, lib, exe):
    if lib is None:
        return [*LAUNCH[impl], exe]
    return [sys.executable, "-m", "interlace", "run", "-n", "2", "--timeout", "280", exe]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--osu-bin", required=True,
                    help="NAME=DIR[,NAME=DIR...]: where each MPI's (and interlace's) OSU programs are")
    ap.add_argument("--interlace", default=f"interlace={REPO / 'build'}",
                    help="NAME=LIBDIR[,NAME=LIBDIR...]: libinterlace.so copies to compare")
    ap.add_argument("--mpis", default="openmpi,mpich")
    ap.add_argument("--programs", default="latency,bw,bibw")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--sizes", default="", help="only these sizes in the tables (bytes, comma list)")
    ap.add_argument("--work-dir", default=str(REPO / "build-bench" / "osu"))
    ap.add_argument("--quiet-wait", type=float, default=5.0)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()

    impls = {m: None for m in a.mpis.split(",") if m}
    for spec in a.interlace.split(","):
        name, _, lib = spec.partition("=")
        impls[name] = str(Path(lib).resolve())
    programs = [p for p in a.programs.split(",") if p]
    for p in programs:
        if p not in PROGRAMS:
            ap.error(f"--programs: '{p}' is not one of {', '.join(PROGRAMS)}")
    bin_dirs = dict(spec.partition("=")[::2] for spec in a.osu_bin.split(",") if spec)
    probe_exe, bins = locate(bin_dirs, impls, programs, Path(a.work_dir))
    runs = []
    for rnd in range(a.rounds):
        for prog in programs:
            for impl, lib in impls.items():
                env = environment("interlace" if lib else impl)
                if lib:
                    env["LD_LIBRARY_PATH"] = lib
                rec = measured(f"round {rnd + 1} osu_{prog}", impl, command(impl, lib, bins[impl][prog]),
                               env, probe_exe, 600, a.quiet_wait, parse)
                rec["program"] = prog
                runs.append(rec)
    out = Path(a.out or REPO / "bench" / "results" / f"osu-{time.strftime('%Y%m%d-%H%M%S')}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"date": time.strftime("%Y-%m-%dT%H:%M:%S"), "rounds": a.rounds,
                               "impls": {k: v for k, v in impls.items()}, "runs": runs}, indent=1))
    print(f"wrote {out}", file=sys.stderr)
    only = {int(s) for s in a.sizes.split(",") if s}
    for prog in programs:
        # "busy": the probe itself was slowed by other processes (a loaded machine);
        # such figures compare only with each other, as the runs were interleaved.
        for placement in ("near", "far", "busy"):
            per = {}
            for r in runs:
                if r["program"] != prog or r["placement"] != placement or r["error"]:
                    continue
                for size, v in r["results"]:
                    per.setdefault(size, {}).setdefault(r["impl"], []).append(v)
            if not per:
                continue
            unit = "us, lower is better" if prog == "latency" else "MB/s, higher is better"
            names = list(impls)
            print(f"\n**osu_{prog}, {placement} placement ({unit}; median of rounds, runs)**\n")
            print("| size | " + " | ".join(names) + " |")
            print("|---" * (len(names) + 1) + "|")
            for size in sorted(per):
                if only and size not in only:
                    continue
                cells = [f"{statistics.median(per[size][n]):.2f} ({len(per[size][n])})"
                         if n in per[size] else "-" for n in names]
                print(f"| {size} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
