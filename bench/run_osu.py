#!/usr/bin/env python3
"""The OSU micro-benchmarks as third parties run them: osu_latency, osu_bw and osu_bibw
(OSU 5.x sources, fetched OUTSIDE this repository: they are not ours and never committed)
built unchanged with each MPI's compiler and run unbound on 2 ranks, beside each other:

  openmpi    mpicc.openmpi, `mpirun.openmpi -np 2 --bind-to none --mca pml ob1 --mca btl self,vader`
  mpich      mpicc.mpich,   `mpiexec.mpich -n 2`
  NAME=DIR   cc -I include/ -L DIR -linterlace (no rpath: LD_LIBRARY_PATH=DIR picks that
             libinterlace.so), `interlace run -n 2`; give several (e.g. a copy of the library
             before a change and the build after it) to compare them in one run.

Rounds are interleaved (every implementation once per round, every program) and bracketed
by the placement probe as in run_mpi.py; a run whose probes disagree is left out. Tables:
median over rounds of OSU's own figure, per placement.

  bench/run_osu.py --osu-src /work/osu-src/5 --interlace before=/tmp/lib-before,after=build \\
      [--rounds 3] [--programs latency,bw,bibw] [--sizes 8,65536,4194304]
"""
import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_mpi import LAUNCH, PROBE_SRC, REPO, environment, measured, sh  # noqa: E402


def build(osu: Path, work: Path, impls):
    """{impl: {program: exe}}; impls maps a name to None (an MPI) or a library directory."""
    work.mkdir(parents=True, exist_ok=True)
    sh(["cc", "-O2", "-o", work / "placement-probe", PROBE_SRC])
    pt = osu / "pt2pt"
    bins = {}
    for impl, lib in impls.items():
        if lib is None:
            cc, tail = [f"mpicc.{impl}"], []
        else:
            cc, tail = ["cc", f"-I{REPO / 'include'}", "-pthread"], [f"-L{lib}", "-linterlace"]
        # One interlace build serves every library copy: LD_LIBRARY_PATH picks the copy.
        d = work / ("interlace" if lib is not None else impl)
        fresh = not d.exists()
        d.mkdir(exist_ok=True)
        bins[impl] = {}
        for p in ("latency", "bw", "bibw"):
            exe = d / f"osu_{p}"
            if fresh or not exe.exists():
                sh([*cc, "-O2", f"-I{pt}", "-o", exe, pt / f"osu_{p}.c", pt / "osu_pt2pt.c", *tail])
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
    ap.add_argument("--osu-src", default="/work/osu-src/5",
                    help="OSU 5.x tree holding pt2pt/osu_{latency,bw,bibw,pt2pt}.c and osu_pt2pt.h")
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
    probe_exe, bins = build(Path(a.osu_src), Path(a.work_dir), impls)
    runs = []
    for rnd in range(a.rounds):
        for prog in a.programs.split(","):
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
    for prog in a.programs.split(","):
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
