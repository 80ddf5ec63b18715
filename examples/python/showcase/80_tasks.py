"""Tasks: each task names the array sections it reads and writes; the runtime
orders the tasks by those declarations and runs independent ones in parallel."""
import numpy as np

from interlace import tasks

TITLE = "tasks: dependencies derived from the NumPy array sections each task reads and writes (interlace.tasks)"

N, BLOCKS = 8000, 8


@tasks.task(block="out")
def fill(block, start):
    block[:] = np.arange(start, start + len(block))


@tasks.task(prev="in", block="inout")
def scan(prev, block):
    # Needs the previous block's final sum: the in(prev) dependency waits for it.
    np.cumsum(block, out=block)
    if len(prev):
        block += prev[-1]


@tasks.task(block="in")
def check(block, i):
    if i == 3:
        raise ValueError(f"block {i} rejected")


def run(comm):
    x = np.empty(N)
    b = N // BLOCKS
    # Spawned in an order that needs the dependencies: every fill, then every scan.
    for i in range(BLOCKS):
        fill(x[i * b:(i + 1) * b], i * b)
    for i in range(BLOCKS):
        scan(x[max(i - 1, 0) * b:i * b], x[i * b:(i + 1) * b])
    tasks.taskwait()
    assert np.array_equal(x, np.cumsum(np.arange(N, dtype=float))), x
    for i in range(BLOCKS):
        check(x[i * b:(i + 1) * b], i)
    try:
        tasks.taskwait()
        raised = "nothing"
    except ValueError as e:
        raised = f"{type(e).__name__}: {e}"
    assert raised == "ValueError: block 3 rejected", raised
    return [f"prefix sum of {N} float64 in {BLOCKS} blocks, {2 * BLOCKS} tasks ordered by "
            f"out/in/inout on array sections: equal to np.cumsum",
            f"an exception raised in a task reaches taskwait as itself: {raised}"]
