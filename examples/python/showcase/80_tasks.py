"""Tasks: each task names the array sections it reads and writes; the runtime
orders the tasks by those declarations and runs independent ones in parallel."""
import sys
import types

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


def scale_rows(scale, rows, out, device_of):
    """A device's part of a distributed task: its rows of the scattered matrix."""
    out[:] = rows * scale[0]
    device_of[:] = _session.device_index


_session = None


def distributed(comm):
    global _session
    # The devices find scale_rows by this module's name (the call is pickled): the
    # showcase loads sections by path, so register the module under its name.
    mod = sys.modules.setdefault(__name__, types.ModuleType(__name__))
    mod.__dict__.update(globals())
    _session = session = tasks.Session()  # world rank 0 hosts, the others are devices
    if not session.is_host:
        session.serve()  # runs the host's distributed tasks until it finishes
        return []
    p = session.num_devices
    m = np.arange(4.0 * p * 3).reshape(4 * p, 3)
    out, device_of = np.empty_like(m), np.empty(4 * p, dtype=np.int64)
    session.spawn(scale_rows, broadcast=np.array([2.0]), scatter=m, gather=[out, device_of])
    session.taskwait()
    session.finish()
    assert np.array_equal(out, 2 * m), out
    assert np.array_equal(device_of, np.repeat(np.arange(p), 4)), device_of
    return [f"distributed task on {p} devices: scatter a {m.shape[0]}x{m.shape[1]} float64 matrix, "
            f"broadcast the scale, gather rows x 2 and who computed them: {np.unique(device_of).tolist()}"]


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
    lines = distributed(comm)
    return [f"prefix sum of {N} float64 in {BLOCKS} blocks, {2 * BLOCKS} tasks ordered by "
            f"out/in/inout on array sections: equal to np.cumsum",
            f"an exception raised in a task reaches taskwait as itself: {raised}", *lines]
