"""ZRLMPI: one ordinary MPI program (Jacobi-2D, the paper's Listing 5) and a cluster
description that makes rank 0 a CPU and the others accelerators. `interlace transpile`
specialises the program per rank (rank and size constants, collectives expanded into
sends and receives, dead code removed); `interlace run --cluster` builds the variants
and launches the job in one command, here also over the reliable udp fabric
(docs/transpile.md, docs/cluster.md, docs/udp.md)."""
import json
import re

TITLE = "ZRLMPI: an MPI program transpiled per rank of a CPU + accelerator cluster (examples/jacobi2d)"

SOURCE = "examples/jacobi2d/jacobi2d.c"
RESULT = re.compile(r"jacobi2d dim=(\d+) ranks=(\d+) iters=(\d+) checksum=(\d+) ")
VARIANT = re.compile(r"\s+(\S+): ranks (\S+) \((cpu|accelerator)\)")


def checksum(out: str) -> str:
    m = next((RESULT.match(ln) for ln in out.splitlines() if RESULT.match(ln)), None)
    assert m, f"no result line in: {out.splitlines()}"
    return m[4]


def run_programs(tools):
    n = tools.ranks
    dim = 16 * n  # the ranks must divide the grid's rows
    cluster = tools.workdir / "cluster.json"
    nodes = {"cpu": [0], "fpga": list(range(1, n))} if n > 1 else {"cpu": [0]}
    cluster.write_text(json.dumps({"nodes": nodes, "config": {"com_opt": 3, "mem_opt": 0}}))
    emit = tools.workdir / "variants"
    define = f"DIM={dim}"

    report = tools.interlace("transpile", SOURCE, "--cluster", str(cluster), "-D", define,
                             "--emit", str(emit))
    variants = [m.groups() for m in map(VARIANT.match, report.splitlines()) if m]
    expanded = next((ln.split(":", 1)[1].strip() for ln in report.splitlines()
                     if ln.startswith("calls expanded:")), "")
    assert variants and expanded, report
    shown = "; ".join(f"{name} for ranks {ranks}" for name, ranks, _ in variants)
    lines = [f"{len(variants)} variants ({shown}); expanded into sends and receives: {expanded}"]

    original = checksum(tools.run(tools.cc(SOURCE, f"-D{define}")))
    transpiled = checksum(tools.interlace("run", "--cluster", str(cluster), "-D", define, SOURCE))
    assert transpiled == original, (transpiled, original)
    lines.append(f"Jacobi-2D {dim}x{dim}: the original on {n} ranks and the transpiled job "
                 f"give the same checksum {original}")
    over_udp = checksum(tools.interlace("run", "--fabric", "udp", "--cluster", str(cluster),
                                        "-D", define, SOURCE))
    assert over_udp == original, (over_udp, original)
    lines.append("the transpiled job over the reliable udp fabric: the same checksum")
    return lines
