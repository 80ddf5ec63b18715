"""`interlace transpile` (docs/transpile.md): structure of the variants, the
report, the rejections, and each corpus program's output, original against
transpiled, under `interlace run` at 1-8 ranks."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conftest import REPO, installed_script, launcher_env, run_interlace

pytest.importorskip("pycparser")
from interlace.cluster import parse_cluster  # noqa: E402
from interlace.transpile import TranspileError, transpile, variant_for_rank  # noqa: E402
from interlace.transpile import folding, tree  # noqa: E402

PROGRAMS = REPO / "tests" / "transpile" / "programs"
REJECT = REPO / "tests" / "transpile" / "reject"
COLLECTIVE_CALL = re.compile(r"\bMPI_(Scatter|Gather|Bcast|Reduce|Barrier|Allreduce)\s*\(")


def cluster(n: int, shape: str = "acc", tree_on: bool = False):
    """acc: rank 0 a CPU, the others accelerators; cpu: all CPUs; mixed: the
    last rank a CPU, the others (root 0 included) accelerators; two: the first
    and the last rank CPUs (one CPU variant for ranks that are not a block)."""
    if shape == "cpu" or n == 1:
        nodes = {"cpu": list(range(n))}
    elif shape == "acc":
        nodes = {"cpu": [0], "fpga": list(range(1, n))}
    elif shape == "two":
        nodes = {"cpu": [0, n - 1], "fpga": list(range(1, n - 1))}
    else:
        nodes = {"fpga": list(range(n - 1)), "cpu": [n - 1]}
    return parse_cluster({"nodes": nodes, "config": {"tree": tree_on}}, f"<{shape}{n}>")


# ---------------------------------------------------------------- structure ---

def test_no_collective_left_and_constants_in_accelerator_variants():
    rep = transpile(PROGRAMS / "jacobi2d.c", cluster(4))
    assert rep.calls_expanded == {"MPI_Scatter": 1, "MPI_Gather": 1}
    for v in rep.variants:
        assert not COLLECTIVE_CALL.search(v.c_source), v.name
    # Ranks 1-3 take the same decisions: one shared accelerator variant.
    assert [(v.kind, v.ranks) for v in rep.variants] == [("cpu", [0]), ("accelerator", [1, 2, 3])]
    acc = variant_for_rank(rep, 2).c_source
    assert "size" not in re.sub(r"MPI_Comm_size\(MPI_COMM_WORLD, &size\)|int size;|il_tp_size",
                                "", acc.split("int main", 1)[1])
    assert "if (rank == 0)" not in acc and "16 * 16" not in acc
    assert "if (rank == 0)" in variant_for_rank(rep, 0).c_source  # the CPU keeps run-time rank


def test_single_rank_variant_has_the_rank_as_a_constant():
    rep = transpile(PROGRAMS / "reduce.c", cluster(4))
    # Root is the last rank: ranks 1-2 alike, rank 3 different.
    assert [v.ranks for v in rep.variants] == [[0], [1, 2], [3]]
    body = variant_for_rank(rep, 3).c_source.split("int main", 1)[1]
    uses = [ln for ln in body.splitlines() if re.search(r"\brank\b", ln)]
    assert uses == ["  int rank;", "  MPI_Comm_rank(MPI_COMM_WORLD, &rank);"], uses
    assert "(3 + 1) * (i + 2)" in body or "4 * (i + 2)" in body
    shared = variant_for_rank(rep, 1).c_source.split("int main", 1)[1]
    assert re.search(r"\(rank \+ 1\) \* \(i \+ 2\)", shared), "the rank stays run-time when shared"


def test_variant_count_per_program():
    expect = {("ring.c", 4): 2, ("sendrecv.c", 4): 2, ("bcast.c", 4): 3, ("pingpong.c", 4): 4,
              ("scatter_gather.c", 8): 2, ("ring.c", 1): 1}
    for (prog, n), count in expect.items():
        rep = transpile(PROGRAMS / prog, cluster(n))
        assert len(rep.variants) == count, (prog, n, rep.text())
        assert sorted(r for v in rep.variants for r in v.ranks) == list(range(n))


def test_tree_root_sends_one_message_per_replicator_group():
    rep = transpile(PROGRAMS / "scatter_gather.c", cluster(8), tree=True)
    # ZRLMPI's grouping: accelerators 1-7 in groups of four, the first replicates.
    assert rep.tree_groups == {0: [[1, 2, 3, 4], [5, 6, 7]]}
    assert [v.ranks for v in rep.variants] == [[0], [1], [2, 3, 4], [5], [6, 7]]
    cpu = variant_for_rank(rep, 0).c_source
    scatter = cpu.split("MPI_Scatter, expanded")[1].split("else if")[0]
    assert scatter.count("MPI_Send(") == 2, scatter
    assert "12, (MPI_INT), 1," in scatter and "9, (MPI_INT), 5," in scatter
    gather = cpu.split("MPI_Gather, expanded")[1].split("else if")[0]
    assert gather.count("MPI_Recv(") == 2, gather
    assert "MPI_Send(" not in variant_for_rank(rep, 3).c_source.split("MPI_Scatter")[1] \
        .split("MPI_Gather")[0]
    plain = transpile(PROGRAMS / "scatter_gather.c", cluster(8), tree=False)
    assert plain.tree_groups == {} and len(plain.variants) == 2


def test_tree_plan_rules():
    assert tree.plan(8, range(1, 8), 0).groups == ((1, 2, 3, 4), (5, 6, 7))
    assert tree.plan(4, [1], 0).groups == ()        # one accelerator: no tree (ZRLMPI)
    p = tree.plan(8, [1, 2, 4, 5, 6, 7], 0)         # a CPU at 3 cuts the run
    assert p.groups == ((1, 2), (4, 5, 6, 7)) and p.direct == (3,)
    assert tree.plan(6, [], 0).groups == ((1, 2, 3, 4),)  # CPU-only: all ranks; 5 direct


def test_folding_respects_scopes_writes_and_side_effects():
    rep = transpile(PROGRAMS / "folding.c", cluster(4))
    assert not rep.warnings, rep.warnings
    body = variant_for_rank(rep, 1).c_source.split("int main", 1)[1]
    assert "touch(1)" not in body          # rank 1: left == 0, the && is false unevaluated
    assert "touch(0)" in body              # rank > half is false: touch(0) still runs
    assert "int rank = 42;" in body and "out[2] = 42;" in body   # the inner rank, not ours
    assert "for (int size = 0; size < 3; size++)" in body        # the inner size untouched
    assert "changed += 1;" in body and "changed * 100" in body   # written: stays a variable
    assert "while (rank == 1" not in body and "left %d" in body


def test_folding_follows_c():
    from pycparser import c_parser
    src = "int x = -7 / 2 + -7 % 2 * 10 + (0 && f()) + (1 || g());"
    expr = c_parser.CParser().parse(src).ext[0].init
    assert folding.evaluate(expr, {}) == -3 - 10 + 0 + 1
    call = c_parser.CParser().parse("int y = 1 && f();").ext[0].init
    assert folding.evaluate(call, {}) is None  # f() must still run


def test_report_text_and_json(tmp_path):
    rep = transpile(PROGRAMS / "scatter_gather.c", cluster(5, tree_on=True), emit_dir=tmp_path)
    j = rep.to_json()
    assert j["tree"] is True and j["calls_expanded"] == {"MPI_Scatter": 1, "MPI_Gather": 1}
    assert [v["ranks"] for v in j["variants"]] == [v.ranks for v in rep.variants]
    assert j["lines_removed"] == rep.lines_removed > 0
    for v in rep.variants:
        assert v.path.is_file() and v.path.read_text() == v.c_source
    text = rep.text()
    assert "replicator 1 -> 2-4" in text and "MPI_Scatter x1" in text
    with pytest.raises(ValueError, match="rank 9"):
        variant_for_rank(rep, 9)


def test_cluster_variant_names_are_used():
    c = parse_cluster({"nodes": {"cpu": [0], "fpga": [1, 2, 3]},
                       "ranks": {"1-3": {"variant": "worker"}}})
    rep = transpile(PROGRAMS / "ring.c", c)
    assert [v.name for v in rep.variants] == ["cpu", "worker"]


# --------------------------------------------------------------- rejections ---

def _expectation(path: Path):
    text = path.read_text()
    construct = re.search(r"expect: (\S+)", text).group(1)
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if "/* here */" in ln)
    return construct, line


@pytest.mark.parametrize("prog", sorted(p.name for p in REJECT.glob("*.c")))
def test_rejected_with_file_line_and_construct(prog):
    path = REJECT / prog
    construct, line = _expectation(path)
    with pytest.raises(TranspileError) as e:
        transpile(path, cluster(4))
    err = e.value
    assert (Path(err.file).name, err.line, err.construct) == (prog, line, construct), str(err)
    assert str(err).startswith(f"{err.file}:{line}: {construct}: ")


def test_cli(tmp_path):
    cl = tmp_path / "c.json"
    cl.write_text(json.dumps({"nodes": {"cpu": [0], "fpga": [1, 2, 3]}, "config": {"tree": True}}))
    rep = tmp_path / "r.json"
    r = run_interlace("transpile", PROGRAMS / "scatter_gather.c", "--cluster", cl,
                      "--emit", tmp_path / "out", "--report", rep, "-D", "UNUSED=1")
    assert r.returncode == 0, r.stderr
    assert "variants (" in r.stdout and json.loads(rep.read_text())["tree"] is True
    assert len(list((tmp_path / "out").glob("*.c"))) == len(json.loads(rep.read_text())["variants"])
    r = run_interlace("transpile", REJECT / "alltoallv.c", "--cluster", cl)
    assert r.returncode == 1 and re.search(r"alltoallv\.c:8: MPI_Alltoallv: ", r.stderr)
    r = run_interlace("transpile", PROGRAMS / "ring.c")  # no --cluster
    assert r.returncode == 2 and "--cluster" in r.stderr
    r = run_interlace("transpile", PROGRAMS / "ring.c", "--cluster", cl, "--tree", "--no-tree")
    assert r.returncode == 2
    r = run_interlace("transpile", PROGRAMS / "ring.c", "--cluster", tmp_path / "none.json")
    assert r.returncode == 1 and "none.json" in r.stderr


# ---------------------------------------------------------------- behaviour ---

CC = installed_script("interlace-cc")
needs_cc = pytest.mark.skipif(CC is None, reason="interlace-cc is not installed (make install)")

# (program, ranks, cluster shape, tree)
CASES = [(p, n, "acc", False) for p in ("sendrecv", "ring", "pingpong", "reduce", "bcast",
                                        "scatter_gather", "jacobi2d") for n in (1, 2, 4, 8)]
CASES += [(p, 3, "acc", False) for p in ("sendrecv", "ring", "jacobi2d", "folding")]
CASES += [("folding", n, "acc", False) for n in (1, 4, 6)]
CASES += [("scatter_gather", 5, "acc", True), ("scatter_gather", 8, "acc", True),
          ("jacobi2d", 8, "acc", True), ("jacobi2d", 6, "cpu", True),
          ("jacobi2d", 5, "mixed", True), ("reduce", 5, "mixed", False),
          ("bcast", 5, "mixed", False), ("scatter_gather", 7, "mixed", True),
          ("sendrecv", 5, "two", False), ("scatter_gather", 6, "two", True),
          ("jacobi2d", 4, "two", False)]


def _build(src: Path, out: Path) -> Path:
    r = subprocess.run([CC, "-O1", str(src), "-o", str(out)], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, f"{src}:\n{r.stderr}"
    return out


def _run(argv: list, timeout=60) -> str:
    r = subprocess.run([sys.executable, "-m", "interlace", "run", "--fabric", "shm", *argv],
                       capture_output=True, text=True, timeout=timeout, env=launcher_env())
    assert r.returncode == 0, f"{argv}: exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    return "\n".join(sorted(r.stdout.splitlines()))


def _launch_argv(rep, binaries: dict, tmp: Path) -> list:
    """MPMD groups when each variant's ranks are one block in rank order, else a
    per-rank launcher script that execs the rank's variant."""
    blocks = sorted(rep.variants, key=lambda v: v.ranks[0])
    if all(v.ranks == list(range(v.ranks[0], v.ranks[-1] + 1)) for v in blocks) and \
            all(a.ranks[-1] + 1 == b.ranks[0] for a, b in zip(blocks, blocks[1:])):
        argv = []
        for v in blocks:
            argv += ([":"] if argv else []) + ["-n", str(len(v.ranks)), str(binaries[v.name])]
        return argv
    script = tmp / "by_rank.sh"
    cases = "".join(f"  {'|'.join(map(str, v.ranks))}) exec {binaries[v.name]} \"$@\" ;;\n"
                    for v in rep.variants)
    script.write_text(f"#!/bin/sh\ncase \"$INTERLACE_RANK\" in\n{cases}esac\n"
                      "echo \"no variant for rank $INTERLACE_RANK\" >&2; exit 3\n")
    script.chmod(0o755)
    return ["-n", str(rep.size), str(script)]


@pytest.fixture(scope="module")
def originals(tmp_path_factory):
    """Each corpus program built once, and its output per rank count, computed lazily."""
    d = tmp_path_factory.mktemp("orig")
    progs = sorted({c[0] for c in CASES})
    with ThreadPoolExecutor(2) as pool:
        bins = dict(zip(progs, pool.map(lambda p: _build(PROGRAMS / f"{p}.c", d / p), progs)))
    cache = {}

    def output(prog: str, n: int) -> str:
        if (prog, n) not in cache:
            cache[(prog, n)] = _run(["-n", str(n), str(bins[prog])])
        return cache[(prog, n)]
    return output


@needs_cc
@pytest.mark.parametrize("prog,n,shape,tree_on", CASES,
                         ids=[f"{p}-{n}-{s}{'-tree' if t else ''}" for p, n, s, t in CASES])
def test_transpiled_output_matches_original(prog, n, shape, tree_on, originals, tmp_path):
    rep = transpile(PROGRAMS / f"{prog}.c", cluster(n, shape), tree=tree_on, emit_dir=tmp_path)
    with ThreadPoolExecutor(2) as pool:
        built = list(pool.map(lambda v: _build(v.path, tmp_path / v.name), rep.variants))
    binaries = {v.name: b for v, b in zip(rep.variants, built)}
    got = _run(_launch_argv(rep, binaries, tmp_path))
    assert got == originals(prog, n), rep.text()


@needs_cc
def test_variant_refuses_the_wrong_rank_and_size(tmp_path):
    rep = transpile(PROGRAMS / "ring.c", cluster(4), emit_dir=tmp_path)
    acc = variant_for_rank(rep, 1)
    binary = _build(acc.path, tmp_path / "acc")
    r = subprocess.run([sys.executable, "-m", "interlace", "run", "--fabric", "shm", "-n", "3",
                        str(binary)], capture_output=True, text=True, timeout=60,
                       env=launcher_env())
    assert r.returncode != 0
    assert re.search(rf"variant '{acc.name}' was made for rank\(s\) 1-3 of a 4-rank job, but "
                     r"runs as rank \d of a 3-rank job", r.stderr), r.stderr
