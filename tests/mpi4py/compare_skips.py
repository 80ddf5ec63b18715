#!/usr/bin/env python3
"""Which of mpi4py's tests does interlace skip that Open MPI does not?

Issue 13 lets mpi4py's suite skip, on interlace, only what it also skips on Open MPI
and what docs/mpi.md lists as not provided. This runs the suite (with the exclusions
of excluded.txt) at N ranks once on each, verbose, keeps each rank's report in a file
of its own, and prints the tests skipped on interlace only, with mpi4py's reason.

  tests/mpi4py/compare_skips.py --interlace-site DIR --openmpi-site DIR [--ranks 1,2]

DIR holds an installed mpi4py (pip install --target DIR) built with MPICC=interlace-cc
or MPICC=mpicc.openmpi. --lib-dir names the libinterlace the first was built against.
Not part of `make test` (it needs an Open MPI build of mpi4py); docs/mpi.md records
its result.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import subprocess
import sys
import tempfile
import re

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import run_mpi4py  # noqa: E402  (exclusions(), the test sources)

OMPI = ["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none"]


SKIP = re.compile(r"^(\w+) \(([\w.]+)\)(?: \.\.\.|\n.*?\.\.\.) skipped '?(.*?)'?$", re.M)


def skipped(out_dir: pathlib.Path) -> dict[str, str]:
    """Test -> reason, over every rank's verbose report (unittest's `name (id) ...
    skipped 'reason'` lines)."""
    out: dict[str, str] = {}
    for f in out_dir.glob("rank*.txt"):
        for m in SKIP.finditer(f.read_text(errors="replace")):
            out[m.group(2)] = m.group(3)[:120]
    return out


def run(kind: str, n: int, site: str, lib_dir: str, tests: pathlib.Path, out_dir: pathlib.Path) -> int:
    args, env_extra = run_mpi4py.exclusions()
    env = dict(os.environ, PYTHONPATH=site, **env_extra)
    if kind == "interlace":
        env["LD_LIBRARY_PATH"] = f"{lib_dir}{os.pathsep}{env.get('LD_LIBRARY_PATH', '')}"
        launch = ["interlace", "run", "-n", str(n)]
    else:
        # Its default transports (tcp among them: spawned processes need it to connect).
        env.update(OMPI_MCA_osc="^rdma,ucx")
        launch = OMPI + ["-np", str(n), "-x", "PYTHONPATH", "-x", "OMPI_MCA_osc"] + [f"-x{k}" for k in env_extra]
    out_dir.mkdir(parents=True)
    # Each rank's verbose report (stderr) to a file of its own: the ranks' lines would
    # interleave on one stream.
    per_rank = f'exec "$@" 2> "{out_dir}/rank${{INTERLACE_RANK:-$OMPI_COMM_WORLD_RANK}}.txt"'
    cmd = launch + ["sh", "-c", per_rank, "sh", sys.executable, str(tests / "main.py"), "--no-builddir",
                    "-v", *args]
    print("+", " ".join(cmd), flush=True)
    return subprocess.run(cmd, cwd=tests, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL, timeout=1800).returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--interlace-site", required=True)
    ap.add_argument("--openmpi-site", required=True)
    ap.add_argument("--lib-dir", default=str(HERE.parent.parent / "build"))
    ap.add_argument("--ranks", default="1,2")
    ap.add_argument("--tests", default="build/mpi4py/mpi4py-4.1.2/test")
    a = ap.parse_args()
    tests = pathlib.Path(a.tests).resolve()
    worst = 0
    for n in map(int, a.ranks.split(",")):
        res = {}
        with tempfile.TemporaryDirectory() as tmp:
            for kind, site in (("interlace", a.interlace_site), ("openmpi", a.openmpi_site)):
                site = str(pathlib.Path(site).resolve())  # the runs' working directory is the tests
                d = pathlib.Path(tmp) / kind
                rc = run(kind, n, site, a.lib_dir, tests, d)
                res[kind] = skipped(d)
                print(f"{n} ranks, {kind}: exit {rc}, {len(res[kind])} skipped")
        only = sorted(set(res["interlace"]) - set(res["openmpi"]))
        print(f"{n} ranks: skipped on interlace only: {len(only)}; on Open MPI only: "
              f"{len(set(res['openmpi']) - set(res['interlace']))}")
        for name in only:
            print(f"  {name}: {res['interlace'][name]}")
        worst = max(worst, len(only))
    return 1 if worst else 0


if __name__ == "__main__":
    sys.exit(main())
