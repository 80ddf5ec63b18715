"""`make demo` shows every model: the test runs what the demo target runs
(`python examples/python/demo.py`, without the pip install in front) and checks
each section's lines. The output is deterministic by design: timings are left out."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

from conftest import REPO, installed_script, launcher_env

_core = pytest.importorskip("interlace._core", reason="the demo needs the installed package (make install)")

N = 4


@pytest.fixture(scope="module")
def demo() -> dict[str, list[str]]:
    if installed_script("interlace-cc") is None:
        pytest.skip("interlace-cc is not installed (make install)")
    r = subprocess.run([sys.executable, "examples/python/demo.py", "-n", str(N)], cwd=REPO,
                       capture_output=True, text=True, timeout=840, env=launcher_env())
    out = r.stdout
    assert r.returncode == 0, f"demo failed:\n{out}\n{r.stderr}"
    lines = out.splitlines()
    assert lines[-1] == "demo OK", out
    sections: dict[str, list[str]] = {}
    current = None
    for line in lines[1:-1]:
        if line.startswith("== "):
            current = line[3:].split(":", 1)[0]
            sections[current] = []
        else:
            assert current is not None, f"output before the first section: {line!r}"
            sections[current].append(line.strip())
    return sections


pytestmark = pytest.mark.timeout(900)


def test_sections_in_order(demo):
    assert list(demo) == ["p2p", "channels", "collectives", "C++", "MPI", "SMI in C", "PGAS", "OpenSHMEM", "tasks", "OMPIF", "ZRLMPI", "Routing and simulation"]


def test_every_section_shows_its_command(demo):
    for title, lines in demo.items():
        assert lines and lines[0].startswith("$ interlace"), (title, lines)


def test_p2p(demo):
    assert demo["p2p"][1:] == [
        "sendrecv ring of objects: rank r got 'token 3' ... 'token 2'",
        "Send/Recv 1 MiB float64 arrays to rank 0 from ranks [1, 2, 3]",
        "Split even/odd: color 0: 2 ranks, sum of world ranks 2, "
        "color 1: 2 ranks, sum of world ranks 4",
    ]


def test_channel_pipeline(demo):
    assert demo["channels"][1:] == [
        "10000 int64 streamed through rank 0 -> rank 1 -> rank 2 -> rank 3, +1 at each rank in between: "
        "sum 50015000 (expected 50015000)",
        "ReduceChannel SUM over 4 ranks, element by element: [60, 64, 68, 72]",
    ]


def test_collectives_name_the_algorithm(demo):
    # The algorithm is what the selection table picks for that size on 4 ranks.
    small, large = (_core.coll_select("allreduce", b, N) for b in (64, 1 << 20))
    assert demo["collectives"][1:] == [
        f"Iallreduce SUM of 64 B per rank: 10 everywhere, algorithm {small}",
        f"Iallreduce SUM of 1048576 B per rank: 10 everywhere, algorithm {large}",
        "Ibcast of 32 B from rank 0, forced algorithm binomial: [0, 1, 2, 3, 4, 5, 6, 7]",
        "allgather of objects: [0, 1, 2, 3]",
    ]


def test_cpp(demo):
    lines = demo["C++"]
    assert lines[0].startswith("$ interlace-c++ examples/cpp/showcase.cpp"), lines
    assert re.fullmatch(r"interlace showcase on 4 ranks over the \w+ fabric", lines[2]), lines
    assert lines[3] == "p2p: ring, 8 MiB gathers (rendezvous), split halves ... OK", lines


def test_unmodified_mpi_program(demo):
    lines = demo["MPI"]
    assert lines[0] == "$ interlace-cc examples/mpi/jacobi2d.c -o jacobi2d -O2 -lm", lines
    assert lines[1] == "$ interlace run -n 4 ./jacobi2d 128 128 50", lines
    assert re.fullmatch(r"jacobi2d 128x128, 50 iterations: checksum \S+ residual \S+ u\(\d+,\d+\) \S+",
                        lines[3]), lines
    assert lines[4] == "the same checksum on 1 rank and on 4: OK", lines


def test_smi_stencil(demo):
    lines = demo["SMI in C"]
    assert lines[0] == "$ interlace-cc examples/c/stencil.c -o stencil -O2 -lm", lines
    assert lines[1] == "$ interlace run -n 4 ./stencil 256 256 50 2 2", lines
    assert re.fullmatch(r"stencil 256x256, 50 steps on 2x2 ranks, compared with one rank: "
                        r"max error \S+: OK", lines[2]), lines


def test_pgas(demo):
    assert demo["PGAS"][1:] == [
        "put ring of 4 int64 into the right neighbour's heap, reduce SUM over 4 PEs: [6, 6, 6, 6]",
        "atomic_inc x 100 from each of 4 PEs on a counter of PE 0: 400",
    ]


def test_unmodified_openshmem_program(demo):
    lines = demo["OpenSHMEM"]
    assert lines[0] == "$ interlace-oshcc examples/shmem/histogram.c -o histogram -O2", lines
    assert lines[1] == "$ interlace run -n 4 ./histogram 200000 16", lines
    assert re.fullmatch(r"histogram of 200000 samples in 64 bins: count 200000, checksum \d+, "
                        r"total by atomics 200000", lines[2]), lines


def test_tasks(demo):
    assert demo["tasks"][1:] == [
        "prefix sum of 8000 float64 in 8 blocks, 16 tasks ordered by out/in/inout on array sections: "
        "equal to np.cumsum",
        "an exception raised in a task reaches taskwait as itself: ValueError: block 3 rejected",
        f"distributed task on {N - 1} devices: scatter a {4 * (N - 1)}x3 float64 matrix, broadcast the scale, "
        f"gather rows x 2 and who computed them: {list(range(N - 1))}",
    ]


def test_ompif_nbody(demo):
    lines = demo["OMPIF"]
    assert lines[0] == "$ interlace-cc examples/nbody/nbody_ompif.c -o nbody_ompif -O2 -lm", lines
    assert re.fullmatch(r"N-body, 3072 particles, 2 steps, on 4 ranks \(each a device: local tasks, "
                        r"OMPIF_Allgather of the forces\): equal to a serial run within 1e-3, "
                        r"checksum \S+", lines[-2]), lines
    assert lines[-1] == ("the same as one distributed task spawned by a host on 3 devices "
                         "(broadcast the particles, gather them back): the same checksum"), lines


def test_zrlmpi(demo):
    lines = demo["ZRLMPI"]
    assert lines[0].startswith("$ interlace transpile examples/jacobi2d/jacobi2d.c --cluster "), lines
    assert re.fullmatch(r"2 variants \(cpu for ranks 0; \S+ for ranks 1-3\); expanded into sends "
                        r"and receives: MPI_Gather x1, MPI_Scatter x1", lines[-3]), lines
    assert re.fullmatch(r"Jacobi-2D 64x64: the original on 4 ranks and the transpiled job give "
                        r"the same checksum \d+", lines[-2]), lines
    assert lines[-1] == "the transpiled job over the reliable udp fabric: the same checksum", lines


def test_routing(demo):
    lines = demo["Routing and simulation"]
    assert lines[0].startswith("$ interlace routes topo ring 4 -o "), lines
    assert lines[-3] == ("ring of 4: 4 links, diameter 2, 2 virtual channels (a dateline); "
                         "interlace routes check: correct and deadlock-free"), lines
    assert lines[-2].startswith("Jacobi-2D over the routed ring"), lines
    assert re.fullmatch(r"SMI ping-pong on the simulated Stratix 10 bus \(virtual time\): 1 hop "
                        r"0\.\d\d us, 4 hops [23]\.\d\d us, 7 hops [45]\.\d\d us; SMI's Table 3 "
                        r"within 10%", lines[-1]), lines
