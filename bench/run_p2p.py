#!/usr/bin/env python3
"""Builds and runs the p2p comparison: interlace (shm, tcp) against Open MPI (vader, UCX,
TCP), MPICH and the memcpy limit.

Runs are interleaved (A B C ... A B C ...) and every run is bracketed by the placement
probe, because this machine's two vCPUs move between a near and a far placement that
changes small-message latency 2.5-4x: only figures taken in one placement are compared.
A run whose two probes disagree is kept in the JSON as "mixed", and one during which other
processes took more than 10% of the machine as "disturbed"; both are left out of the
tables (--include-disturbed keeps the latter, on a machine that is never quiet).

  bench/run_p2p.py [--quick] [--rounds N] [--only a,b] [--build-dir DIR] [--launch auto|cli|manual]

Writes bench/results/p2p-<date>.json (raw runs + aggregates) and prints markdown tables.
"""
import argparse
import datetime
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import p2p_report  # noqa: E402  (sibling module: aggregation and tables)

REPO = Path(__file__).resolve().parent.parent
PROBE_SRC = Path("/work/shared/tools/placement-probe.c")
OMPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
# Open MPI binds by default and MPICH does not; the programs pin themselves (rank r to
# cpu r), so every launcher is told to leave placement alone.
OMPI = ["mpirun.openmpi", "-np", "2", "--bind-to", "none"]
MPICH = ["mpiexec.mpich", "-n", "2"]
BUSY_NS = 350    # probe figure above which a CPU was shared with another process
QUIET = 0.10     # others' share of the machine under which a run counts as undisturbed


def sh(cmd, **kw):
    print("+", " ".join(map(str, cmd)), file=sys.stderr)
    return subprocess.run(cmd, check=True, **kw)


def build(bdir: Path, want_interlace: bool):
    """Returns {name: path}; interlace programs are missing when the library does not build."""
    bdir.mkdir(parents=True, exist_ok=True)
    bins = {}
    cflags = ["-O2", "-Wall", "-Wno-stringop-overflow", f"-I{REPO / 'bench'}"]
    sh(["cc", "-O2", "-o", bdir / "placement-probe", PROBE_SRC])
    bins["probe"] = bdir / "placement-probe"
    for mpi in ("openmpi", "mpich"):
        if shutil.which(f"mpicc.{mpi}"):
            out = bdir / f"mpi_pingpong.{mpi}"
            sh([f"mpicc.{mpi}", *cflags, "-o", out, REPO / "bench/mpi_pingpong.c"])
            bins[f"mpi.{mpi}"] = out
    cm = bdir / "cmake"
    targets = ["memcpy_bw"] + (["p2p_pingpong"] if want_interlace else [])
    try:
        sh(["cmake", "-S", REPO, "-B", cm, "-DCMAKE_BUILD_TYPE=Release",
            "-DINTERLACE_BUILD_TESTS=OFF", "-DINTERLACE_BUILD_EXAMPLES=OFF"],
           stdout=subprocess.DEVNULL)
        sh(["cmake", "--build", cm, "-j2", "--target", "memcpy_bw"])
        bins["memcpy"] = cm / "bench/memcpy_bw"
        if want_interlace:
            sh(["cmake", "--build", cm, "-j2", "--target", "p2p_pingpong"])
            bins["p2p"] = cm / "bench/p2p_pingpong"
    except subprocess.CalledProcessError as e:
        print(f"warning: cmake build failed ({e}); targets {targets} may be missing",
              file=sys.stderr)
        if "memcpy" not in bins:  # the limit needs no library
            sh(["cc", *cflags, "-o", bdir / "memcpy_bw", REPO / "bench/memcpy_bw.c"])
            bins["memcpy"] = bdir / "memcpy_bw"
    return bins


def ompi_has_ucx():
    try:
        out = subprocess.run(["ompi_info"], capture_output=True, text=True).stdout
    except FileNotFoundError:
        return False
    return any("MCA pml: ucx" in line for line in out.splitlines())


def implementations(bins, launch):
    """name -> (kind, argv prefix, extra env). kind "interlace" is started by run_interlace."""
    impls = {}
    if "p2p" in bins:
        for fabric in ("shm", "tcp"):
            impls[f"interlace-{fabric}"] = ("interlace", [bins["p2p"]], {"INTERLACE_FABRIC": fabric})
    if "mpi.openmpi" in bins:
        prog = [bins["mpi.openmpi"]]
        impls["ompi-vader"] = ("mpi", OMPI + ["--mca", "pml", "ob1", "--mca", "btl", "self,vader"] + prog, OMPI_ENV)
        if ompi_has_ucx():
            # Open MPI only selects UCX for InfiniBand-class transports by default; "any"
            # lets it use UCX's shared-memory transports (posix/sysv/cma) on one host.
            impls["ompi-ucx"] = ("mpi", OMPI + ["--mca", "pml", "ucx", "--mca", "pml_ucx_tls", "any",
                                                "--mca", "pml_ucx_devices", "any"] + prog, OMPI_ENV)
        impls["ompi-tcp"] = ("mpi", OMPI + ["--mca", "pml", "ob1", "--mca", "btl", "self,tcp"] + prog, OMPI_ENV)
    if "mpi.mpich" in bins:
        impls["mpich"] = ("mpi", MPICH + [bins["mpi.mpich"]], {})
    if "memcpy" in bins:
        impls["memcpy"] = ("local", [bins["memcpy"]], {})
    return impls


def probe(bins):
    out = subprocess.run([bins["probe"]], capture_output=True, text=True, check=True).stdout.split()
    # The probe calls anything over 60 ns "far"; far alone is 100-250 ns, so several
    # hundred ns means another process shared a CPU with the probe, not a placement.
    return ("busy" if float(out[1]) > BUSY_NS else out[0]), float(out[1])


def cpu_snapshot():
    """(busy seconds of all CPUs, CPU seconds of this driver's finished children)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    # user + nice + system only: softirq time (TCP loopback receive work) is nobody's
    # rusage, and would make our own TCP runs look disturbed.
    busy = (v[0] + v[1] + v[2]) / os.sysconf("SC_CLK_TCK")
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return busy, ru.ru_utime + ru.ru_stime


def others_share(before, after, wall):
    """Fraction of the machine that processes other than ours used in between: the
    cores are shared with other people's builds, which would distort any figure."""
    busy = after[0] - before[0]
    ours = after[1] - before[1]
    return max(0.0, busy - ours) / (wall * os.cpu_count())


def wait_quiet(limit_s):
    """Waits (up to limit_s) until nobody else uses more than QUIET of the machine."""
    deadline = time.time() + limit_s
    while True:
        a, t0 = cpu_snapshot(), time.time()
        time.sleep(0.3)
        share = others_share(a, cpu_snapshot(), time.time() - t0)
        if share < QUIET or time.time() > deadline:
            return share
        time.sleep(1.0)


def run_interlace(argv, env, launch, timeout):
    """Starts 2 ranks: through `interlace run` when installed, else by setting the
    bootstrap variables ourselves (the launcher's contract, see environment.hpp)."""
    fabric = env["INTERLACE_FABRIC"]
    if launch == "cli" or (launch == "auto" and shutil.which("interlace")):
        return subprocess.run(["interlace", "run", "-n", "2", "--bind-to", "none", "--fabric", fabric, *argv],
                              capture_output=True, text=True, timeout=timeout)
    store = tempfile.mkdtemp(prefix="interlace-bench-")
    job = f"bench-{os.getpid()}-{time.monotonic_ns()}"
    procs = []
    for rank in range(2):
        e = dict(os.environ, INTERLACE_RANK=str(rank), INTERLACE_SIZE="2", INTERLACE_JOB_ID=job,
                 INTERLACE_STORE=f"file://{store}", INTERLACE_FABRIC=fabric, INTERLACE_LOCAL_RANK=str(rank))
        procs.append(subprocess.Popen(argv, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True, start_new_session=True))
    try:
        outs = [p.communicate(timeout=timeout) for p in procs]
    except subprocess.TimeoutExpired:
        for p in procs:  # only the ranks this driver started
            os.killpg(p.pid, 9)
        raise
    finally:
        shutil.rmtree(store, ignore_errors=True)
    rc = next((p.returncode for p in procs if p.returncode), 0)
    return subprocess.CompletedProcess(argv, rc, outs[0][0], outs[0][1] + outs[1][1])


def run_one(name, impl, phase, args, launch):
    kind, argv, env = impl
    argv = [str(a) for a in argv] + ["--label", name, "--" + phase] + (["--quick"] if args.quick else [])
    try:
        if kind == "interlace":
            cp = run_interlace(argv, env, launch, args.timeout)
        else:
            cp = subprocess.run(argv, env=dict(os.environ, **env), capture_output=True, text=True,
                                timeout=args.timeout, start_new_session=True)
    except subprocess.TimeoutExpired:
        return [], f"timeout after {args.timeout}s"
    recs = [json.loads(l) for l in cp.stdout.splitlines() if l.startswith("{")]
    err = None if cp.returncode == 0 else f"exit {cp.returncode}: {cp.stderr.strip()[-400:]}"
    return recs, err


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="smoke run: 1 round, few sizes (< 1 min)")
    ap.add_argument("--rounds", type=int, default=None, help="interleaved rounds (default 5, quick 1)")
    ap.add_argument("--only", default="", help="comma-separated implementation names")
    ap.add_argument("--build-dir", default=str(REPO / "build-bench"))
    ap.add_argument("--launch", choices=("auto", "cli", "manual"), default="auto")
    ap.add_argument("--quiet-wait", type=float, default=30.0,
                    help="seconds to wait for other processes to go quiet before each run")
    ap.add_argument("--include-disturbed", action="store_true",
                    help="tabulate runs during which other processes used the CPUs too")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per run")
    ap.add_argument("--out", default=None, help="JSON path (default bench/results/p2p-<date>.json)")
    args = ap.parse_args()
    rounds = args.rounds or (1 if args.quick else 5)
    only = [s for s in args.only.split(",") if s]

    want_interlace = not only or any(s.startswith("interlace") for s in only)
    bins = build(Path(args.build_dir), want_interlace)
    impls = implementations(bins, args.launch)
    if only:
        impls = {k: v for k, v in impls.items() if k in only}
    print("implementations:", ", ".join(impls), file=sys.stderr)

    runs = []
    t_start = time.time()
    out = Path(args.out) if args.out else REPO / "bench/results" / f"p2p-{datetime.date.today()}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    machine = p2p_report.machine_info()

    def save():  # after every run, so that an interrupted session keeps what it measured
        doc = {
            "date": datetime.datetime.now().isoformat(timespec="seconds"),
            "machine": machine,
            "quick": args.quick, "rounds": rounds, "elapsed_s": round(time.time() - t_start, 1),
            "commands": {k: [str(a) for a in v[1]] + (["env " + json.dumps(v[2])] if v[2] else [])
                         for k, v in impls.items()},
            "runs": runs,
        }
        doc["aggregate"] = p2p_report.aggregate(runs, args.include_disturbed)
        out.write_text(json.dumps(doc, indent=1))
        return doc

    for rnd in range(rounds):
        # Latency and bandwidth are separate runs: shorter runs are less often split by a
        # placement change, and a change costs only half the figures.
        for phase in ("lat", "bw"):
            for name, impl in impls.items():
                if phase == "lat" and impl[0] == "local":
                    continue
                wait_quiet(args.quiet_wait)
                before = probe(bins)
                t0, c0 = time.time(), cpu_snapshot()
                recs, err = run_one(name, impl, phase, args, args.launch)
                wall, c1 = time.time() - t0, cpu_snapshot()
                after = probe(bins)
                others = others_share(c0, c1, wall)
                placement = before[0] if before[0] == after[0] else "mixed"
                # /proc/stat counts in 10 ms ticks: allow for that on short runs.
                disturbed = others > QUIET + 0.02 / max(wall, 0.01)
                print(f"round {rnd + 1}/{rounds} {phase:3} {name:15} {placement:5} "
                      f"{'DISTURBED ' if disturbed else ''}"
                      f"(probe {before[1]:.0f}/{after[1]:.0f} ns, others {others:4.0%}) {wall:5.1f}s"
                      + (f"  ERROR {err}" if err else ""), file=sys.stderr)
                runs.append({"round": rnd, "phase": phase, "impl": name, "placement": placement,
                             "probe_ns": [before[1], after[1]], "others_share": round(others, 3),
                             "disturbed": disturbed,
                             "wall_s": round(wall, 2), "error": err, "results": recs})
                save()

    doc = save()
    print(p2p_report.markdown(doc, args.include_disturbed))
    print(f"\nraw results: {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
