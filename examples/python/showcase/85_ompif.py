"""OmpSs@cloudFPGA's N-body (Algorithm 1) in C: tasks with dependencies inside every
rank, OMPIF_Allgather among the ranks, and the same run as one distributed task that a
host spawns on the other ranks (examples/nbody, docs/nbody.md)."""
import re

TITLE = "OMPIF: the N-body of OmpSs@cloudFPGA, tasks and OMPIF in C (examples/nbody)"

# 12 blocks of 256 particles divide among 1, 2, 3, 4 or 6 ranks (and devices).
ARGS = ("--n", "3072", "--bs", "256", "--iters", "2", "--check")
LINE = re.compile(r"nbody version=(\w+) ranks=(\d+) n=(\d+) bs=\d+ iters=(\d+) seconds=\S+ "
                  r"gpairs=\S+ checksum=(\S+)")


def result(out: str) -> tuple[str, str, str]:
    """(version, ranks, checksum) from the program's report; the check must say ok."""
    lines = out.splitlines()
    m = next((LINE.match(ln) for ln in lines if LINE.match(ln)), None)
    assert m, f"no result line in: {lines}"
    check = next((ln for ln in lines if ln.startswith("check ")), "")
    assert check.endswith(" ok"), f"{m[1]}: {check or 'no check line'}"
    return m[1], m[2], m[5]


def run_programs(tools):
    n = tools.ranks
    spmd = tools.cc("examples/nbody/nbody_ompif.c", "-O2", "-lm")
    _, ranks, cs_spmd = result(tools.run(spmd, *ARGS))
    lines = [f"N-body, 3072 particles, 2 steps, on {ranks} ranks (each a device: local tasks, "
             f"OMPIF_Allgather of the forces): equal to a serial run within 1e-3, checksum {cs_spmd}"]
    if n >= 2:
        dist = tools.cc("examples/nbody/nbody_dist.c", "-O2", "-lm")
        _, _, cs_dist = result(tools.run(dist, *ARGS))
        assert cs_dist == cs_spmd, (cs_dist, cs_spmd)
        lines.append(f"the same as one distributed task spawned by a host on {n - 1} devices "
                     f"(broadcast the particles, gather them back): the same checksum")
    return lines
