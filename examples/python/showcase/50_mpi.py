"""An unmodified MPI program built with interlace-cc (interlace's mpi.h)."""
TITLE = "MPI: an unmodified MPI program (examples/mpi/jacobi2d.c)"

ARGS = ("128", "128", "50")  # rows cols iterations


def run_programs(tools):
    exe = tools.cc("examples/mpi/jacobi2d.c", "-O2", "-lm")
    # First line: the result; the second ("# ...") holds timings, left out here.
    many = tools.run(exe, *ARGS).splitlines()[0]
    one = tools.run(exe, *ARGS, ranks=1).splitlines()[0]
    assert many == one, f"{tools.ranks} ranks: {many!r}\n1 rank: {one!r}"
    return [many, f"the same checksum on 1 rank and on {tools.ranks}: OK"]
