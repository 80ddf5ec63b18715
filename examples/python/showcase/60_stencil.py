"""SMI streaming channels from C: the 2D stencil of examples/c/stencil.c."""
import re

TITLE = "SMI in C: a 2D stencil streaming its halos through channels (examples/c/stencil.c)"


def grid(ranks: int) -> tuple[int, int]:
    px = max(d for d in range(1, int(ranks ** 0.5) + 1) if ranks % d == 0)
    return px, ranks // px


def run_programs(tools):
    exe = tools.cc("examples/c/stencil.c", "-O2", "-lm")
    px, py = grid(tools.ranks)
    out = tools.run(exe, "256", "256", "50", str(px), str(py)).strip().splitlines()
    # The program prints its timing too; the demo keeps the checked result only.
    m = re.search(r"^(stencil \S+, \d+ steps on \S+ ranks):.*(max error \S+: OK)$", out[-1] if out else "")
    assert m, f"unexpected output: {out}"
    return [f"{m[1]}, compared with one rank: {m[2]}"]
