"""Jacobi-2D (examples/jacobi2d, ZRLMPI Listing 5; docs/cluster.md) on a small grid at
2, 4 and 8 ranks: the original program under `interlace run -n N`, the same binary
under a cluster description, and the program transpiled per rank by
`interlace run --cluster FILE jacobi2d.c` (CPU only, 1 CPU + N-1 accelerator ranks,
and with the tree optimisation) all print the checksum of a reference computed here
in Python, so the final grids are identical."""
from __future__ import annotations

import importlib.util
import json
import re
import subprocess

import pytest

from conftest import REPO, installed_script, run_interlace

SRC = REPO / "examples" / "jacobi2d" / "jacobi2d.c"
DIM, ITERS = 16, 3
LINE = re.compile(r"jacobi2d dim=(\d+) ranks=(\d+) iters=(\d+) checksum=(\d+) ms_per_iter=[\d.]+")
RUN_S = 180


def reference_checksum(dim: int, iters: int) -> int:
    """The program's grid and stencil, serially: integer average, fixed edges."""
    g = [[1000 if i == 0 else 0 if (i == dim - 1 or j in (0, dim - 1)) else (i * 31 + j * 17) % 97
          for j in range(dim)] for i in range(dim)]
    for _ in range(iters):
        g = [[g[i][j] if i in (0, dim - 1) or j in (0, dim - 1) else
              (g[i][j - 1] + g[i][j + 1] + g[i - 1][j] + g[i + 1][j]) // 4
              for j in range(dim)] for i in range(dim)]
    return sum((i * dim + j + 1) * g[i][j] for i in range(dim) for j in range(dim))


def result(r: subprocess.CompletedProcess, ranks: int) -> int:
    assert r.returncode == 0, f"exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    m = LINE.search(r.stdout)
    assert m, f"no result line in:\n{r.stdout}\n{r.stderr}"
    assert (int(m.group(1)), int(m.group(2)), int(m.group(3))) == (DIM, ranks, ITERS)
    return int(m.group(4))


@pytest.fixture(scope="module")
def reference() -> int:
    return reference_checksum(DIM, ITERS)


@pytest.fixture(scope="module")
def original(tmp_path_factory):
    cc = installed_script("interlace-cc")
    if cc is None:
        pytest.skip("interlace-cc is not installed")
    exe = tmp_path_factory.mktemp("jacobi") / "jacobi2d"
    subprocess.run([cc, "-O2", f"-DDIM={DIM}", str(SRC), "-o", str(exe)], check=True,
                   timeout=RUN_S)
    return exe


def cluster_file(tmp_path, n: int, kind: str) -> str:
    nodes = {"cpu": list(range(n))} if kind == "cpu" else {"cpu": [0], "fpga": list(range(1, n))}
    config = {"optimization": 1} if kind == "tree" else {}
    p = tmp_path / f"{kind}{n}.json"
    p.write_text(json.dumps({"nodes": nodes, "config": config}))
    return str(p)


def test_reference_is_not_trivial(reference):
    assert reference != reference_checksum(DIM, ITERS + 1) and reference > 0


@pytest.mark.parametrize("n", [1, 2, 4, 8])
def test_original(original, reference, n):
    r = run_interlace("run", "-n", n, original, ITERS, timeout=RUN_S)
    assert result(r, n) == reference


@pytest.mark.parametrize("n", [2, 4, 8])
def test_original_binary_under_a_cluster_description(original, reference, tmp_path, n):
    r = run_interlace("run", "--cluster", cluster_file(tmp_path, n, "fpga"), original, ITERS,
                      timeout=RUN_S)
    assert result(r, n) == reference


def test_ranks_that_do_not_divide_the_grid_are_refused(original):
    r = run_interlace("run", "-n", 3, original, ITERS, timeout=RUN_S)
    assert r.returncode == 2 and "3 ranks do not divide DIM=16" in r.stderr


@pytest.mark.parametrize("kind", ["cpu", "fpga", "tree"])
@pytest.mark.parametrize("n", [2, 4, 8])
def test_transpiled(original, reference, tmp_path, n, kind):
    if importlib.util.find_spec("interlace.transpile") is None:
        pytest.skip("the transpiler (interlace.transpile) is not in this build")
    r = run_interlace("run", "--cluster", cluster_file(tmp_path, n, kind), "-DDIM=%d" % DIM,
                      "--build-dir", tmp_path / "cache", SRC, ITERS, timeout=RUN_S)
    assert result(r, n) == reference


def test_transpile_emit_directory_and_the_built_job_directory_run_again(original, reference,
                                                                       tmp_path):
    if importlib.util.find_spec("interlace.transpile") is None:
        pytest.skip("the transpiler (interlace.transpile) is not in this build")
    c = cluster_file(tmp_path, 4, "tree")
    emit = tmp_path / "emit"
    r = run_interlace("transpile", SRC, "--cluster", c, "-DDIM=%d" % DIM, "--emit", emit,
                      "--report", emit / "report.json")
    assert r.returncode == 0, r.stderr
    # C files from `interlace transpile --emit`, mapped by its report: built here, then run
    cache = tmp_path / "cache"
    r = run_interlace("run", "--cluster", c, "--build-dir", cache, "-DDIM=%d" % DIM, emit, ITERS,
                      timeout=RUN_S)
    assert result(r, 4) == reference
    # a transpiled run leaves job-*/ (executables and ranks.json) that runs as it is
    r = run_interlace("run", "--cluster", c, "-DDIM=%d" % DIM, "--build-dir", cache, SRC, ITERS,
                      timeout=RUN_S)
    assert result(r, 4) == reference
    (job,) = cache.glob("job-*")
    assert (job / "ranks.json").is_file()
    r = run_interlace("run", "--cluster", c, job, ITERS, timeout=RUN_S)
    assert result(r, 4) == reference
