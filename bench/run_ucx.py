#!/usr/bin/env python3
"""The ucx fabric against interlace's tcp fabric and against Open MPI over UCX, on the
same UCX transports (issue 14): bench/mpi_pingpong.c (latency 8 B-64 KiB, windowed
bandwidth 1 KiB-64 MiB) on 2 unbound ranks, built once per MPI:

  interlace-tcp        `interlace run -n 2 --bind-to none`, INTERLACE_FABRIC=tcp
  interlace-ucx/T      the same with INTERLACE_FABRIC=ucx and UCX_TLS=<T's transports>
  openmpi-ucx/T        `mpirun.openmpi -np 2 --bind-to none --mca pml ucx` with the same
                       UCX_TLS (pml_ucx_tls/devices "any": without an RDMA device Open MPI
                       4.1 otherwise refuses its ucx pml)

T: tcp (UCX_TLS=tcp), sm (posix,sysv,self) or cma (posix,cma,self). Rounds are
interleaved and every run is bracketed by the placement probe, as in run_mpi.py (whose
building, measuring and tables this reuses); a run whose probes disagree is left out.

  bench/run_ucx.py [--rounds 3] [--tls tcp,sm,cma] [--quick] [--lib-dir build]

Writes bench/results/ucx-<date>.json and prints one markdown table per placement.
"""
import argparse
import datetime
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_mpi import REPO, benches, build, command, environment, measured, parse, save, tables  # noqa: E402

TLS = {"tcp": "tcp", "sm": "posix,sysv,self", "cma": "posix,cma,self"}
OMPI_UCX = ["mpirun.openmpi", "-np", "2", "--bind-to", "none", "--mca", "pml", "ucx",
            "--mca", "pml_ucx_tls", "any", "--mca", "pml_ucx_devices", "any"]


def variants(tls_names):
    """[(name, impl, fabric or None, UCX_TLS or None)] in the order each round runs them."""
    out = [("interlace-tcp", "interlace", "tcp", None)]
    for t in tls_names:
        out.append((f"interlace-ucx/{t}", "interlace", "ucx", TLS[t]))
        out.append((f"openmpi-ucx/{t}", "openmpi", None, TLS[t]))
    return out


def launch(impl, exe, args, tls):
    if impl == "interlace":
        return command(impl, exe, args)
    return [*OMPI_UCX, "-x", f"UCX_TLS={tls}", exe, *args]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--tls", default="tcp,sm,cma", help="comma list of " + ", ".join(TLS))
    ap.add_argument("--quick", action="store_true", help="fewer sizes and repetitions")
    ap.add_argument("--lib-dir", default=str(REPO / "build"))
    ap.add_argument("--work-dir", default=str(REPO / "build-bench" / "ucx"))
    ap.add_argument("--timeout", type=int, default=300, help="seconds per run")
    ap.add_argument("--quiet-wait", type=float, default=20.0)
    ap.add_argument("--benches", default="pingpong-lat,pingpong-bw")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    names = [t for t in args.tls.split(",") if t]
    for t in names:
        if t not in TLS:
            ap.error(f"--tls: '{t}' is not one of {', '.join(TLS)}")
    probe_exe, bins = build(Path(args.work_dir), Path(args.lib_dir).resolve(), ["interlace", "openmpi"],
                            programs=("mpi_pingpong",))
    vs = [v for v in variants(names) if v[1] in bins]
    out = Path(args.out) if args.out else REPO / "bench/results" / f"ucx-{datetime.date.today()}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    runs, t0 = [], time.time()
    chosen = {b: spec for b, spec in benches(args.quick).items() if b in args.benches.split(",")}
    for rnd in range(args.rounds):
        for bench, (prog, pargs) in chosen.items():
            for name, impl, fabric, tls in vs:
                env = environment(impl)
                if fabric:
                    env["INTERLACE_FABRIC"] = fabric
                if tls:
                    env["UCX_TLS"] = tls
                cmd = launch(impl, bins[impl][prog], pargs, tls)
                runs.append(measured(f"round {rnd + 1}/{args.rounds} {bench:12}", name, cmd, env,
                                     probe_exe, args.timeout, args.quiet_wait,
                                     lambda stdout, b=bench: parse(b, stdout)))
                runs[-1].update(round=rnd, bench=bench)
                save(out, runs, args.rounds, args.quick, t0)
    print(tables(runs, [v[0] for v in vs], False))
    print(f"\nraw results: {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
