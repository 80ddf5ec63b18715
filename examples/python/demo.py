"""`make demo`: every programming model of interlace, a few lines each.

    python examples/python/demo.py [-n RANKS] [SECTION ...]

Runs the sections of examples/python/showcase/ in order (see showcase.py): the
in-rank ones as `interlace run -n RANKS python showcase.py NAME`, the others
(compiled C/C++/MPI programs) through their `run_programs(tools)`, which build
with the installed interlace-cc / interlace-c++ as a user would. Each section
shows the commands it ran; the last line is "demo OK" when every section
passed (exit status 0), else "demo FAILED" naming the sections.
Needs the installed package (`make install`); tests/python/test_demo.py runs it.
"""
from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))
import showcase  # noqa: E402  (examples/python/showcase.py)

TIMEOUT = 300  # seconds per command; generous for a loaded 2-core machine


class DemoError(Exception):
    pass


def shown(path) -> str:
    """A path as a user in the repository root would type it."""
    p = Path(path)
    try:
        return str(p.resolve().relative_to(REPO))
    except ValueError:
        return str(p)


def script(name: str) -> list[str]:
    """An installed console script of this interpreter's environment (not PATH's)."""
    cand = Path(sysconfig.get_path("scripts")) / name
    if cand.exists():
        return [str(cand)]
    fn = {"interlace-cc": "main_cc", "interlace-c++": "main_cxx"}[name]
    return [sys.executable, "-c", f"import sys; from interlace.wrappers import {fn}; sys.exit({fn}())"]


class Tools:
    """What a compiled-program section gets: build with the wrappers, run under the launcher."""

    def __init__(self, ranks: int, workdir: Path):
        self.ranks, self.workdir, self.repo = ranks, workdir, REPO

    def _call(self, cmd: list[str], display: str) -> str:
        print(f"  $ {display}", flush=True)
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, cwd=REPO)
        except subprocess.TimeoutExpired:
            raise DemoError(f"`{display}` did not finish within {TIMEOUT} s") from None
        if r.returncode != 0:
            raise DemoError(f"`{display}` exited with {r.returncode}:\n{r.stdout}{r.stderr}")
        return r.stdout

    def _build(self, wrapper: str, source: str, flags) -> Path:
        exe = self.workdir / Path(source).stem
        args = [str(REPO / source), "-o", str(exe), *flags]
        self._call(script(wrapper) + args, f"{wrapper} {source} -o {exe.name} {' '.join(flags)}".rstrip())
        return exe

    def cc(self, source: str, *flags: str) -> Path:
        return self._build("interlace-cc", source, flags)

    def cxx(self, source: str, *flags: str) -> Path:
        return self._build("interlace-c++", source, flags)

    def oshcc(self, source: str, *flags: str) -> Path:
        return self._build("interlace-oshcc", source, flags)

    def interlace(self, *args: str) -> str:
        """Runs an `interlace` subcommand (transpile, run --cluster, ...); paths shown short."""
        shown_args = [shown(a) if isinstance(a, Path) else a for a in args]
        return self._call([sys.executable, "-m", "interlace", *map(str, args)],
                          shlex.join(["interlace", *shown_args]))

    def run(self, exe, *args: str, ranks: int | None = None) -> str:
        n = str(ranks or self.ranks)
        cmd = [sys.executable, "-m", "interlace", "run", "-n", n, str(exe), *args]
        return self._call(cmd, shlex.join(["interlace", "run", "-n", n, f"./{Path(exe).name}", *args]))


def run_in_ranks(path: Path, ranks: int) -> None:
    cmd = [sys.executable, "-m", "interlace", "run", "-n", str(ranks), sys.executable,
           str(HERE / "showcase.py"), "--bare", path.stem]
    display = f"interlace run -n {ranks} python {shown(HERE / 'showcase.py')} {path.stem.split('_', 1)[1]}"
    print(f"  $ {display}", flush=True)
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, cwd=REPO)
    except subprocess.TimeoutExpired:
        raise DemoError(f"`{display}` did not finish within {TIMEOUT} s") from None
    print(r.stdout, end="", flush=True)
    if r.returncode != 0:
        raise DemoError(f"`{display}` exited with {r.returncode}:\n{r.stderr}")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", "--ranks", type=int, default=4, help="ranks per job (default 4)")
    ap.add_argument("sections", nargs="*", help="section names (default: all)")
    opts = ap.parse_args(argv)
    if opts.ranks < 1:
        ap.error(f"-n must be at least 1, got {opts.ranks}")
    # A demo started from inside a job must not join that job.
    for k in [k for k in os.environ if k.startswith("INTERLACE_") and k not in ("INTERLACE_FABRIC",)]:
        del os.environ[k]
    print(f"interlace demo: {opts.ranks} ranks per job", flush=True)
    failed = []
    with tempfile.TemporaryDirectory(prefix="interlace-demo-") as tmp:
        tools = Tools(opts.ranks, Path(tmp))
        for path in showcase.section_files(opts.sections):
            mod = showcase.load(path)
            print(f"== {mod.TITLE}", flush=True)
            try:
                if hasattr(mod, "run"):
                    run_in_ranks(path, opts.ranks)
                else:
                    for line in mod.run_programs(tools):
                        print(f"  {line}")
            except (DemoError, AssertionError) as e:
                print(f"  FAILED: {e}", flush=True)
                failed.append(path.stem)
    if failed:
        print(f"demo FAILED: {', '.join(failed)}")
        return 1
    print("demo OK")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
