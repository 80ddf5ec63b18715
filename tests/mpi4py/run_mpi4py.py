#!/usr/bin/env python3
"""Builds mpi4py from PyPI's source distribution against the installed interlace
(MPICC=interlace-cc) and runs mpi4py's own test suite under `interlace run` at 1-4
ranks. Exits non-zero on any failure, error, hang or crash.

The source distribution is downloaded by pip (it is a dependency, like numpy); nothing
of mpi4py is kept in this repository. The built wheel is cached under
~/.cache/interlace/mpi4py, keyed by the mpi4py version and by a hash of interlace's MPI
headers and of the MPI symbols libinterlace exports (the two things mpi4py's build
probes), so a rebuild happens exactly when the MPI interface changed.

Tests that are excluded are listed in tests/mpi4py/excluded.txt, each with its reason
(docs/mpi.md lists the features as not provided).

  python3 tests/mpi4py/run_mpi4py.py [--ranks 1,2,3,4] [--timeout 900] [--workdir DIR]
"""
from __future__ import annotations

import argparse
import hashlib
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import time

MPI4PY_VERSION = "4.1.2"
HERE = pathlib.Path(__file__).resolve().parent
CACHE = pathlib.Path(os.environ.get("XDG_CACHE_HOME", pathlib.Path.home() / ".cache"))


def run(cmd, **kw):
    print("+", " ".join(map(str, cmd)), flush=True)
    return subprocess.run(cmd, check=True, **kw)


def interlace_prefix() -> pathlib.Path:
    out = subprocess.run([shutil.which("interlace-cc") or "interlace-cc", "--showme", "x.c"],
                         check=True, capture_output=True, text=True).stdout
    m = re.search(r"-I(\S+)/include\b", out)
    if not m:
        sys.exit(f"run_mpi4py: cannot find interlace's prefix in `interlace-cc --showme`: {out}")
    return pathlib.Path(m.group(1))


def interface_key(prefix: pathlib.Path) -> str:
    h = hashlib.sha256(MPI4PY_VERSION.encode())
    inc = prefix / "include"
    # mpi.h is in the private interlace/compat/ (docs/building.md); the per-group
    # headers it includes are in interlace/mpi/.
    mpi_h = inc / "interlace" / "compat" / "mpi.h"
    if not mpi_h.is_file():
        sys.exit(f"run_mpi4py: no mpi.h at {mpi_h}; reinstall interlace")
    for f in sorted([mpi_h, *(inc / "interlace" / "mpi").glob("*.h")]):
        h.update(f.relative_to(inc).as_posix().encode())
        h.update(f.read_bytes())
    libs = sorted((prefix / "lib").glob("libinterlace.so*"))
    if not libs:
        sys.exit(f"run_mpi4py: no libinterlace.so under {prefix / 'lib'}")
    syms = subprocess.run(["nm", "-D", "--defined-only", str(libs[0])], check=True,
                          capture_output=True, text=True).stdout
    h.update("\n".join(sorted(l.split()[-1] for l in syms.splitlines()
                              if " MPI_" in l or " PMPI_" in l)).encode())
    return h.hexdigest()[:16]


def build_wheel(workdir: pathlib.Path, prefix: pathlib.Path) -> pathlib.Path:
    key = interface_key(prefix)
    cached = CACHE / "interlace" / "mpi4py" / key
    wheels = list(cached.glob("mpi4py-*.whl")) if cached.exists() else []
    if wheels:
        print(f"run_mpi4py: wheel for interface {key} from the cache: {wheels[0]}")
        return wheels[0]
    sdist_dir = workdir / "sdist"
    sdist_dir.mkdir(parents=True, exist_ok=True)
    run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
         f"mpi4py=={MPI4PY_VERSION}", "-d", str(sdist_dir)])
    tmp = workdir / "wheel-tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    env = dict(os.environ, MPICC=shutil.which("interlace-cc") or "interlace-cc")
    t0 = time.time()
    # No build isolation: pip's isolated build hides the site-packages of the Python that
    # runs pip from every Python it starts, interlace-cc included when interlace is
    # installed there (docs/mpi.md, "mpi4py"). mpi4py needs only setuptools to build.
    run([sys.executable, "-m", "pip", "wheel", "-q", "--no-build-isolation", "--no-cache-dir",
         "--no-deps", "-w", str(tmp),
         str(next(sdist_dir.glob(f"mpi4py-{MPI4PY_VERSION}.tar.gz")))], env=env)
    print(f"run_mpi4py: built mpi4py in {time.time() - t0:.0f} s")
    cached.mkdir(parents=True, exist_ok=True)
    wheel = next(tmp.glob("mpi4py-*.whl"))
    shutil.copy2(wheel, cached / wheel.name)
    return cached / wheel.name


def unpack_tests(workdir: pathlib.Path) -> pathlib.Path:
    sdist = next((workdir / "sdist").glob(f"mpi4py-{MPI4PY_VERSION}.tar.gz"), None)
    if sdist is None:
        run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary",
             ":all:", f"mpi4py=={MPI4PY_VERSION}", "-d", str(workdir / "sdist")])
        sdist = next((workdir / "sdist").glob(f"mpi4py-{MPI4PY_VERSION}.tar.gz"))
    src = workdir / f"mpi4py-{MPI4PY_VERSION}"
    if not (src / "test").exists():
        with tarfile.open(sdist) as tf:
            tf.extractall(workdir, filter="data")
    return src / "test"


def exclusions() -> tuple[list[str], dict[str, str]]:
    """excluded.txt: `module REGEX  # reason`, `test PATTERN  # reason` or
    `env NAME=VALUE  # reason` per line."""
    args, env = [], {}
    for line in (HERE / "excluded.txt").read_text().splitlines():
        body = line.split("#", 1)[0].strip()
        if not body:
            continue
        kind, value = body.split(None, 1)
        if kind == "module":
            args += ["-e", value]
        elif kind == "test":
            args += ["-x", value]
        elif kind == "env":
            k, v = value.split("=", 1)
            env[k] = v
        else:
            sys.exit(f"run_mpi4py: excluded.txt: unknown kind {kind!r} in {line!r}")
    return args, env


SUMMARY = re.compile(r"^(OK|FAILED)\b.*$", re.M)
RAN = re.compile(r"^Ran (\d+) tests? in", re.M)


def run_suite(n: int, site: pathlib.Path, tests: pathlib.Path, timeout: float,
              extra: list[str], env_extra: dict[str, str], log: pathlib.Path,
              libdir: pathlib.Path) -> bool:
    # The extension's run path lists Python's own lib directory first (setuptools adds
    # it), where an older libinterlace may lie; the library mpi4py was built against wins.
    env = dict(os.environ, PYTHONPATH=f"{site}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
               LD_LIBRARY_PATH=f"{libdir}{os.pathsep}{os.environ.get('LD_LIBRARY_PATH', '')}",
               **env_extra)
    cmd = ["interlace", "run", "-n", str(n), sys.executable, str(tests / "main.py"),
           "--no-builddir", *extra]
    print("+", " ".join(cmd), flush=True)
    t0 = time.time()
    with open(log, "w") as out:
        p = subprocess.Popen(cmd, cwd=tests, env=env, stdout=out, stderr=subprocess.STDOUT,
                             start_new_session=True)
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            rc = None
    text = log.read_text(errors="replace")
    summaries = SUMMARY.findall(text)
    ran = RAN.findall(text)
    took = time.time() - t0
    if rc is None:
        print(f"run_mpi4py: {n} ranks: HANG, killed after {timeout:.0f} s (log {log})")
        print("\n".join(text.splitlines()[-40:]))
        return False
    lines = [m.group(0) for m in SUMMARY.finditer(text)]
    print(f"run_mpi4py: {n} ranks: exit {rc} in {took:.0f} s; per rank: ran {ran}; {lines}")
    ok = rc == 0 and len(lines) == n and all(l.startswith("OK") for l in lines)
    if not ok:
        # The failing tests' names and tracebacks, for the CI log.
        for block in re.findall(r"^(?:ERROR|FAIL): .*?(?=^(?:ERROR|FAIL): |^-{50,}\nRan |\Z)",
                                text, re.M | re.S)[:30]:
            print(block.rstrip()[:3000])
        print(f"run_mpi4py: full log in {log}")
    return ok and bool(summaries)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ranks", default="1,2,3,4")
    ap.add_argument("--timeout", type=float, default=900, help="seconds per rank count")
    ap.add_argument("--workdir", default="build/mpi4py")
    ap.add_argument("tests", nargs="*", help="extra arguments for mpi4py's test/main.py")
    a = ap.parse_args()
    workdir = pathlib.Path(a.workdir).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    prefix = interlace_prefix()
    wheel = build_wheel(workdir, prefix)
    site = workdir / "site"
    shutil.rmtree(site, ignore_errors=True)
    run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site),
         str(wheel)])
    tests = unpack_tests(workdir)
    extra, env_extra = exclusions()
    extra += a.tests
    results = {}
    for n in (int(x) for x in a.ranks.split(",")):
        results[n] = run_suite(n, site, tests, a.timeout, extra, env_extra,
                               workdir / f"suite-{n}.log", prefix / "lib")
    bad = [n for n, ok in results.items() if not ok]
    print(f"run_mpi4py: mpi4py {MPI4PY_VERSION} test suite on interlace: "
          + ", ".join(f"{n} ranks {'passed' if ok else 'FAILED'}" for n, ok in results.items()))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
