"""The interlace showcase: one section per programming model, run on every rank.

    interlace run -n 4 python examples/python/showcase.py [SECTION ...]

Sections are the files examples/python/showcase/NN_name.py, taken in file-name
order. A section that runs inside the ranks defines

    TITLE = "model: what it shows"
    def run(comm) -> list[str]:   # called on every rank; rank 0's lines are printed

and checks its results itself (an exception fails the section). A section that
builds and runs compiled programs defines `run_programs(tools)` instead; it is
run by examples/python/demo.py (`make demo`), which runs this file for the
others. A new model adds its part by adding one file. SECTION picks sections by
name ("p2p" or "10_p2p"); `--bare` leaves out the headers (demo.py prints them).
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

SECTIONS = Path(__file__).resolve().parent / "showcase"


def load(path: Path):
    spec = importlib.util.spec_from_file_location(f"showcase_{path.stem}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def section_files(names: list[str]) -> list[Path]:
    """Section files in order; `names` (stems with or without the NN_ prefix) filter."""
    files = sorted(p for p in SECTIONS.glob("[0-9]*_*.py"))
    if not names:
        return files
    by_name = {}
    for p in files:
        by_name[p.stem] = by_name[p.stem.split("_", 1)[1]] = p
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise SystemExit(f"showcase: no section {', '.join(map(repr, unknown))} "
                         f"(have {', '.join(p.stem for p in files)})")
    return [by_name[n] for n in names]


def main(argv: list[str]) -> int:
    if not __debug__:
        raise SystemExit("showcase: run without -O (the sections check their results with assert)")
    bare = "--bare" in argv
    names = [a for a in argv if a != "--bare"]
    import interlace

    comm = interlace.init()
    failed = []
    ran = 0
    for path in section_files(names):
        mod = load(path)
        if not hasattr(mod, "run"):
            continue  # a compiled-program section: demo.py runs it
        ran += 1
        try:
            lines, error = mod.run(comm), None
        except Exception as e:  # reported by rank 0 below, with the rank it happened on
            lines, error = [], f"rank {comm.rank}: {type(e).__name__}: {e}"
        errors = [e for e in comm.allgather(error) if e]
        if comm.rank == 0:
            if not bare:
                print(f"== {mod.TITLE}")
            for line in lines:
                print(f"  {line}")
            for e in errors:
                print(f"  FAILED on {e}")
            sys.stdout.flush()
        if errors:
            failed.append(path.stem)
    if comm.rank == 0 and not bare:
        print(f"showcase: {ran - len(failed)} of {ran} sections OK on {comm.size} ranks"
              + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
