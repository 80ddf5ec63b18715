#!/usr/bin/env python3
"""Which of mpi4py's tests does interlace skip that Open MPI does not?

Issue 13 lets mpi4py's suite skip, on interlace, only what it also skips on Open MPI
and what docs/mpi.md lists as not provided. This runs the suite (with the exclusions
of excluded.txt) at N ranks once on each, asks mpi4py for JUnit XML reports (its
`--xml`), and prints the skipped tests of each with mpi4py's reason, and the
difference.

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
import xml.etree.ElementTree as ET

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import run_mpi4py  # noqa: E402  (exclusions(), the test sources)

OMPI = ["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none"]


def skipped(xml_dir: pathlib.Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for f in xml_dir.rglob("*.xml"):
        for case in ET.parse(f).getroot().iter("testcase"):
            s = case.find("skipped")
            if s is not None:
                name = f"{case.get('classname')}.{case.get('name')}"
                msg = (s.get("message") or s.text or "").strip()
                out[name] = msg.split("\n")[0][:120]
    return out


def run(kind: str, n: int, site: str, lib_dir: str, tests: pathlib.Path, xml_dir: pathlib.Path) -> int:
    args, env_extra = run_mpi4py.exclusions()
    env = dict(os.environ, PYTHONPATH=site, **env_extra)
    if kind == "interlace":
        env["LD_LIBRARY_PATH"] = f"{lib_dir}{os.pathsep}{env.get('LD_LIBRARY_PATH', '')}"
        launch = ["interlace", "run", "-n", str(n)]
    else:
        env.update(OMPI_MCA_osc="^rdma,ucx", OMPI_MCA_btl="self,vader", OMPI_MCA_pml="ob1")
        launch = OMPI + ["-np", str(n), "-x", "PYTHONPATH", "-x", "OMPI_MCA_osc", "-x", "OMPI_MCA_btl",
                         "-x", "OMPI_MCA_pml"] + [f"-x{k}" for k in env_extra]
    cmd = launch + [sys.executable, str(tests / "main.py"), "--no-builddir", "--xml", str(xml_dir), *args]
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
