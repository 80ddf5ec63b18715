#!/usr/bin/env python3
"""Reruns each seed paper's hardware evaluation on the sim fabric (docs/fidelity.md).

Runs the programs of bench/fidelity/ under `interlace run -n N` with INTERLACE_FABRIC=sim,
INTERLACE_SIM_PRESET=smi|fshmem|accl|cloudfpga and, for the direct-link presets,
INTERLACE_ROUTES=DIR holding a routes.txt this script writes (a linear bus in rank
order, as SMI's section 5.3.1 uses). Collects the JSON lines the programs print, puts
them next to the papers' numbers (paper | sim | ratio | note) and writes the tables
between the markers in docs/fidelity.md (or prints them with --print).

  bench/run_fidelity.py [--build-dir build] [--quick] [--only smi,fshmem,...] [--print]
                        [--fabric sim] [--json OUT.json]

--quick shrinks every sweep (the smoke test uses it with --fabric shm: wall-clock
numbers, tables not written). Compute rates below are derived from the papers' own
numbers; docs/fidelity.md explains each.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BEGIN, END = "<!-- fidelity:begin (bench/run_fidelity.py writes this part) -->", "<!-- fidelity:end -->"

# --- compute rates (docs/fidelity.md, "Compute rates") ---------------------------------
# SMI stencil: 16 floats per cycle from one DDR4-2400 bank (19.2 GB/s) -> 300 MHz x 16.
SMI_BANK_CELLS_S = 16 * 300e6
SMI_EFF_BANKS = 3.5 / 4  # 4 banks on 1 FPGA measured 3.5x of 1 bank (sec. 5.4.2)
SMI_EFF_DIST = 3.5 / 4   # 1 bank on 4 FPGAs measured 3.5x of 1 bank on 1 FPGA
SMI_GESUMMV_MEM_BW = 19.2e9  # one bank per GEMV stream; the speedup does not depend on it
NBODY_RATE = 6.27e9      # OmpSs@cloudFPGA: 1 FPGA = 6.27 Gpairs/s (97% of 32 forces x 200 MHz)
JACOBI_RATE = 156.25e6   # ZRLMPI: one cell per 6.4 ns cycle (the paper gives no kernel rate)


def routes_bus(n: int, d: Path) -> Path:
    """routes.txt for a linear bus 0-1-...-(n-1): port 1 east, port 0 west; one VC
    suffices (shortest paths on a line have an acyclic channel dependency graph)."""
    d.mkdir(parents=True, exist_ok=True)
    lines = ["interlace-routes 1", f"ranks {n}", "vcs 1", "scheme bus"]
    lines += [f"link {i} 1 {i + 1} 0" for i in range(n - 1)]
    lines += [f"next {c} {t} {c + 1 if t > c else c - 1}" for c in range(n) for t in range(n) if c != t]
    lines += [f"vc {s} {t} 0" for s in range(n) for t in range(n) if s != t]
    (d / "routes.txt").write_text("\n".join(lines) + "\n")
    return d


class Runner:
    def __init__(self, args, tmp: Path):
        self.args, self.tmp, self.results = args, tmp, []
        self.exe = args.build_dir / "bench" / "fidelity"

    def run(self, preset: str, n: int, prog: str, argv: list, env_extra: dict | None = None,
            bus: bool = True) -> list[dict]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("INTERLACE_")}
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "python"), env.get("PYTHONPATH")]))
        env["INTERLACE_FABRIC"] = self.args.fabric
        if self.args.fabric == "sim":
            env["INTERLACE_SIM_PRESET"] = preset
            if bus and n > 1:
                env["INTERLACE_ROUTES"] = str(routes_bus(n, self.tmp / f"bus{n}"))
        env.update({k: str(v) for k, v in (env_extra or {}).items()})
        cmd = [sys.executable, "-m", "interlace", "run", "-n", str(n), "--timeout", str(self.args.timeout),
               str(self.exe / prog)] + [str(a) for a in argv]
        t0 = time.time()
        r = subprocess.run(cmd, capture_output=True, text=True, env=env)
        wall = time.time() - t0
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} (env {env_extra}) exited {r.returncode}:\n{r.stderr[-2000:]}")
        rows = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
        for row in rows:
            row.update(preset=preset, wall_s=round(wall, 2), env=env_extra or {})
        if self.args.verbose:
            print(f"[{wall:6.1f}s] {prog} -n {n} {argv} {env_extra or ''}: {len(rows)} rows", file=sys.stderr)
        self.results += rows
        return rows


# --- the experiments --------------------------------------------------------------------
def smi(R: Runner, quick: bool) -> None:
    iters = 20 if quick else 200
    hops = [1, 2] if quick else [1, 4, 7]
    n = 3 if quick else 8
    for h in hops:
        R.run("smi", n, "smi_micro", ["--mode", "latency", "--peer", h, "--iters", iters])
    big = 1 << (16 if quick else 22)
    for h in hops:
        R.run("smi", n, "smi_micro", ["--mode", "bandwidth", "--peer", h, "--bytes", big])
    sizes = [1 << k for k in range(10, 17 if quick else 23, 2)]
    for b in sizes:
        R.run("smi", 2, "smi_micro", ["--mode", "bandwidth", "--peer", 1, "--bytes", b])
    for r in [1, 4, 8, 16]:
        R.run("smi", 2, "smi_micro", ["--mode", "inject", "--peer", 1, "--iters", 500 if quick else 20000],
              {"INTERLACE_SIM_R": r})
    gn = 256 if quick else 4096
    for f in [1, 2]:
        R.run("smi", f, "smi_gesummv", ["--n", gn, "--mem-bw", SMI_GESUMMV_MEM_BW])
    dom, steps = (256, 4) if quick else (4096, 32)
    r1 = SMI_BANK_CELLS_S
    configs = [("1 bank / 1 FPGA", 1, 1, r1), ("4 banks / 1 FPGA", 1, 1, 4 * r1 * SMI_EFF_BANKS),
               ("1 bank / 4 FPGAs", 2, 2, r1 * SMI_EFF_DIST),
               ("4 banks / 4 FPGAs", 2, 2, 4 * r1 * SMI_EFF_BANKS * SMI_EFF_DIST),
               ("4 banks / 8 FPGAs", 2, 4, 4 * r1 * SMI_EFF_BANKS * SMI_EFF_DIST)]
    for label, rx, ry, rate in configs:
        for row in R.run("smi", rx * ry, "smi_stencil", ["--nx", dom, "--ny", dom, "--rx", rx, "--ry", ry,
                                                          "--steps", steps, "--rate", rate]):
            row["config"] = label


def fshmem(R: Runner, quick: bool) -> None:
    R.run("fshmem", 2, "fshmem_putget", ["--mode", "latency", "--iters", 20 if quick else 200])
    for p in [128, 256, 512, 1024]:
        R.run("fshmem", 2, "fshmem_putget", ["--mode", "bandwidth", "--packet", p, "--max", 1 << (16 if quick else 21)],
              {"INTERLACE_SIM_PACKET_BYTES": p} if R.args.fabric == "sim" else None)


def accl(R: Runner, quick: bool) -> None:
    env = {"INTERLACE_SIM_PROTOCOL": "rdma"} if R.args.fabric == "sim" else None
    R.run("accl", 2, "accl_coll", ["--mode", "sendrecv", "--max", 1 << (16 if quick else 24)], env, bus=False)
    ranks = 4 if quick else 8
    R.run("accl", ranks, "accl_coll", ["--mode", "coll", "--max", 1 << (13 if quick else 20), "--reps", 1 if quick else 3],
          env, bus=False)
    for n in ([2, 4] if quick else [2, 3, 4, 5, 6, 7, 8]):
        R.run("accl", n, "accl_coll", ["--mode", "coll", "--only", "reduce", "--min", 8192, "--max", 8192 if quick else 131072,
                                       "--reps", 1 if quick else 3], env, bus=False)


def nbody(R: Runner, quick: bool) -> None:
    # Every iteration costs the same virtual time (deterministic), so one is enough;
    # --full runs the paper's 16 (56 ranks: about 5 minutes of wall time).
    ps = [1, 2, 4] if quick else [1, 2, 4, 8, 16, 32, 56]
    blocks, bs = (2, 64) if quick else (30, 2048)
    for p in ps:
        R.run("cloudfpga", p, "nbody_scaling", ["--blocks", blocks, "--bs", bs, "--iters", 16 if R.args.full else 1,
                                                "--rate", NBODY_RATE], bus=False)


ZRLMPI_CASES = [(16, 2, 0), (256, 4, 0), (256, 8, 0), (1024, 8, 0), (1024, 16, 0), (1024, 32, 0), (256, 8, 1)]


def zrlmpi(R: Runner, quick: bool) -> None:
    cases = [(16, 2, 0), (64, 4, 0), (64, 8, 0), (64, 8, 1)] if quick else ZRLMPI_CASES
    for dim, n, tree in cases:
        R.run("cloudfpga", n, "zrlmpi_jacobi", ["--dim", dim, "--tree", tree, "--iters", 2, "--rate", JACOBI_RATE],
              bus=False)


SUITES = {"smi": smi, "fshmem": fshmem, "accl": accl, "nbody": nbody, "zrlmpi": zrlmpi}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", type=Path, default=REPO / "build")
    ap.add_argument("--fabric", default="sim", help="sim (default) or any fabric, for a wall-clock smoke run")
    ap.add_argument("--only", default=",".join(SUITES), help="comma-separated: " + ", ".join(SUITES))
    ap.add_argument("--quick", action="store_true", help="small sweeps (smoke test)")
    ap.add_argument("--full", action="store_true", help="N-body with the paper's 16 iterations (slow)")
    ap.add_argument("--timeout", type=int, default=600, help="per program run, seconds")
    ap.add_argument("--print", action="store_true", help="print the tables instead of writing docs/fidelity.md")
    ap.add_argument("--json", type=Path, help="also write the raw result rows here")
    ap.add_argument("--from-json", type=Path, help="build the tables from earlier rows, run nothing")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    unknown = [s for s in args.only.split(",") if s and s not in SUITES]
    if unknown:
        ap.error(f"--only: unknown suite(s) {', '.join(unknown)}; known: {', '.join(SUITES)}")
    if args.from_json:
        results = json.loads(args.from_json.read_text())
    else:
        with tempfile.TemporaryDirectory(prefix="fidelity-") as tmp:
            R = Runner(args, Path(tmp))
            for s in args.only.split(","):
                if s:
                    SUITES[s](R, args.quick)
            results = R.results
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    sys.path.insert(0, str(Path(__file__).resolve().parent / "fidelity"))
    from fidelity_tables import tables  # noqa: E402  (kept apart: the paper numbers live there)
    md = tables(results)
    if args.print or args.fabric != "sim" or args.quick:
        print(md)
        return 0
    doc = REPO / "docs" / "fidelity.md"
    text = doc.read_text()
    if BEGIN not in text or END not in text:
        raise SystemExit(f"{doc}: markers {BEGIN!r} / {END!r} not found")
    head, rest = text.split(BEGIN, 1)
    doc.write_text(head + BEGIN + "\n" + md + "\n" + END + rest.split(END, 1)[1])
    print(f"wrote {doc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
