"""An unmodified OpenSHMEM program built with interlace-oshcc (interlace's shmem.h)."""
TITLE = "OpenSHMEM: an unmodified OpenSHMEM program (examples/shmem/histogram.c)"

ARGS = ("200000", "16")  # samples, bins per PE


def run_programs(tools):
    exe = tools.oshcc("examples/shmem/histogram.c", "-O2")
    line = tools.run(exe, *ARGS).splitlines()[0]
    assert line.startswith("histogram of 200000 samples"), line
    assert "count 200000," in line and "total by atomics 200000" in line, line
    return [line]
