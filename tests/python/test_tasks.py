"""interlace.tasks: tasks on NumPy arrays ordered by their declared accesses.

Ordering tests make the earlier task slow (a short sleep) so that a missing
dependency shows up as a wrong result; concurrency tests make tasks meet at a
threading.Barrier with a generous timeout, which breaks (and fails the test)
instead of hanging if the tasks were serialised."""
from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time

import pytest

from conftest import launcher_env

np = pytest.importorskip("numpy")
pytest.importorskip("interlace._core", reason="needs the installed package (make install)")
import interlace  # noqa: E402
from interlace import tasks  # noqa: E402

SLOW = 0.1  # seconds an earlier task takes, so that a later one would overtake it


@pytest.fixture
def ex():
    with tasks.Executor(workers=4) as e:
        yield e


def test_read_after_write_sees_the_write(ex):
    x = np.zeros(8)
    seen = []

    @tasks.task(a="out")
    def write(a):
        time.sleep(SLOW)
        a[:] = 1

    @tasks.task(a="in")
    def read(a):
        seen.append(a.sum())

    write(x)
    read(x)
    tasks.taskwait()
    assert seen == [8.0]


def test_write_after_read_waits_for_the_readers(ex):
    x = np.ones(8)
    seen = []

    def read(a):
        time.sleep(SLOW)
        seen.append(a.sum())

    for _ in range(3):
        tasks.spawn(read, x, in_=x)
    tasks.spawn(lambda a: a.fill(5), x, out=x)
    tasks.taskwait()
    assert seen == [8.0, 8.0, 8.0] and (x == 5).all()


def test_write_after_write_keeps_spawn_order(ex):
    x = np.zeros(1)

    def put(a, v, delay):
        time.sleep(delay)
        a[0] = v

    for v in range(5):
        tasks.spawn(put, x, v, SLOW if v % 2 == 0 else 0, inout=x)
    tasks.taskwait()
    assert x[0] == 4


def test_overlapping_slices_are_ordered_and_disjoint_ones_run_together(ex):
    x = np.zeros(20)
    met = threading.Barrier(2, timeout=20)
    seen = []

    @tasks.task(a="inout")
    def meet_and_fill(a, v):
        met.wait()  # only possible if both disjoint halves run at once
        time.sleep(SLOW)
        a[:] = v

    @tasks.task(a="in")
    def read(a):
        seen.append(a.tolist())

    meet_and_fill(x[:10], 1)
    meet_and_fill(x[10:], 2)
    read(x[8:12])  # overlaps both halves: after both
    tasks.taskwait()
    assert seen == [[1, 1, 2, 2]]


def test_strided_view_declares_its_covering_range(ex):
    m = np.zeros((4, 4))
    seen = []
    tasks.spawn(lambda c: (time.sleep(SLOW), c.fill(3)), m[:, 1], out=m[:, 1])
    tasks.spawn(lambda r: seen.append(r.tolist()), m[3], in_=m[3])  # row 3 holds m[3, 1]
    tasks.taskwait()
    assert seen == [[0, 3, 0, 0]]


def test_readers_run_concurrently(ex):
    x = np.ones(4)
    met = threading.Barrier(3, timeout=20)
    for _ in range(3):
        tasks.spawn(lambda a: met.wait(), x, in_=x)
    tasks.taskwait()  # a BrokenBarrierError here means the readers were serialised


def test_concurrent_accesses_run_together_commutative_ones_one_at_a_time(ex):
    x = np.zeros(4)
    met = threading.Barrier(2, timeout=20)
    tasks.spawn(lambda: met.wait(), concurrent=x)
    tasks.spawn(lambda: met.wait(), concurrent=x)
    tasks.taskwait()
    inside, most = [0], [0]
    lock = threading.Lock()

    def one():
        with lock:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        time.sleep(0.02)
        with lock:
            inside[0] -= 1

    for _ in range(4):
        tasks.spawn(one, commutative=x)
    tasks.taskwait()
    assert most[0] == 1


@pytest.mark.parametrize("workers", [1, 4])
def test_nested_tasks_and_taskwait_scope(workers):
    # With one worker the parent's taskwait must lend the worker to its children.
    with tasks.Executor(workers=workers):
        _nested_tasks_and_taskwait_scope()


def _nested_tasks_and_taskwait_scope():
    x = np.zeros(4)
    log = []

    def child(i):
        time.sleep(SLOW)
        log.append(f"child {i}")

    def parent():
        tasks.spawn(child, 0)
        tasks.spawn(child, 1)
        assert tasks.in_task()
        tasks.taskwait()  # its own children only
        log.append("parent after its taskwait")

    tasks.spawn(parent, inout=x)
    tasks.spawn(lambda: log.append("next writer"), inout=x)
    tasks.taskwait()
    assert log[2:] == ["parent after its taskwait", "next writer"]
    assert not tasks.in_task()


def test_taskwait_on_waits_for_that_array_only(ex):
    a, b = np.zeros(1), np.zeros(1)
    gate = threading.Event()
    tasks.spawn(lambda: gate.wait(20), inout=b)
    tasks.spawn(lambda: (time.sleep(SLOW), a.fill(1)), out=a)
    tasks.taskwait(on=a)
    assert a[0] == 1 and not gate.is_set()  # b's task still runs
    gate.set()
    tasks.taskwait()


def test_exception_reaches_taskwait_as_itself_and_cancels_dependents(ex):
    x = np.zeros(1)

    class Boom(Exception):
        pass

    def fail():
        raise Boom("task 3 failed")

    tasks.spawn(fail, out=x)
    tasks.spawn(lambda: x.fill(7), inout=x)  # depends on the failed task
    with pytest.raises(Boom, match="task 3 failed") as info:
        tasks.taskwait()
    assert any(fr.name == "fail" for fr in info.traceback)
    assert x[0] == 0
    tasks.spawn(lambda: x.fill(8), out=x)  # the executor keeps working
    tasks.taskwait()
    assert x[0] == 8


def test_exception_in_a_nested_task_reaches_its_parent(ex):
    caught = []

    def parent():
        tasks.spawn(lambda: {}["missing"])
        try:
            tasks.taskwait()
        except KeyError as e:
            caught.append(e.args[0])

    tasks.spawn(parent)
    tasks.taskwait()
    assert caught == ["missing"]


def test_priorities_with_one_worker():
    order = []
    with tasks.Executor(workers=1):
        started, gate = threading.Event(), threading.Event()
        tasks.spawn(lambda: (started.set(), gate.wait(20)))  # holds the worker while the others queue
        assert started.wait(20)
        for p in (0, 5, 1, 9, 5):
            tasks.spawn(order.append, p, priority=p)
        gate.set()
    assert order == [9, 5, 5, 1, 0]


def test_other_threads_run_while_taskwait_waits(ex):
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.01)

    t = threading.Thread(target=ticker)
    t.start()
    try:
        # No Python in the body for 0.5 s: a taskwait that kept the GIL would
        # starve the ticker for all that time.
        tasks.spawn(time.sleep, 0.5)
        before = len(ticks)
        tasks.taskwait()
        assert len(ticks) - before >= 5
    finally:
        stop.set()
        t.join()


def test_taskwait_releases_the_gil_for_task_bodies():
    # A body that needs Python while the main thread sits in taskwait: would hang
    # if taskwait kept the GIL, so it runs in a child process with a time limit.
    code = textwrap.dedent("""
        import threading
        from interlace import tasks
        started, go = threading.Event(), threading.Event()
        threading.Thread(target=lambda: (started.wait(20), go.set())).start()
        def body():
            started.set()
            assert go.wait(20), "the helper thread never ran"
        tasks.spawn(body)
        tasks.taskwait()
        print("ok")
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120, env=launcher_env())
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr


def test_default_executor_and_workers():
    assert tasks.default_workers() >= 1
    out = np.zeros(3)
    tasks.spawn(out.fill, 2, out=out)  # the process executor outside any `with`
    tasks.taskwait()
    assert (out == 2).all()
    assert tasks.default_executor().workers >= 1


@pytest.mark.parametrize("kwargs,exc,words", [
    ({"a": "inn"}, ValueError, ["'inn'", "in, out, inout"]),
    ({"zz": "in"}, TypeError, ["'zz'", "parameters: a, b"]),
    ({"a": 3}, TypeError, ["'a'", "3"]),
])
def test_bad_declarations_name_the_value(kwargs, exc, words):
    with pytest.raises(exc) as info:
        tasks.task(**kwargs)(lambda a, b: None)
    for w in words:
        assert w in str(info.value)


def test_bad_arguments_name_the_value(ex):
    @tasks.task(a="inout")
    def f(a):
        pass

    with pytest.raises(TypeError, match="argument 'a' is declared inout but a int"):
        f(42)
    with pytest.raises(ValueError, match="argument 'a' is declared inout but its bytes buffer is read-only"):
        f(b"abc")
    ro = np.zeros(3)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        f(ro)
    with pytest.raises(TypeError, match="must be callable, got a int"):
        tasks.spawn(5)
    with pytest.raises(interlace.ArgumentError, match="negative length -8"):
        tasks.Region(4096, -8)
    with pytest.raises(interlace.ArgumentError, match="negative address -1"):
        tasks.Region(-1, 8)
    with pytest.raises(ValueError, match="workers must be an int >= 0.*-2"):
        tasks.Executor(workers=-2)
    with pytest.raises(ValueError, match="priority must be a 32-bit int.*'high'"):
        tasks.spawn(print, priority="high")
    f(np.zeros(1))  # a good call still works
    tasks.taskwait()


def test_regions_order_like_arrays(ex):
    x = np.zeros(4)
    r = tasks.Region(x.ctypes.data, x.nbytes)
    tasks.spawn(lambda: (time.sleep(SLOW), x.fill(1)), out=r)
    tasks.spawn(np.add, x[1:2], 1, x[1:2], inout=x[1:2])
    tasks.taskwait()
    assert x.tolist() == [1, 2, 1, 1]
    tasks.spawn(lambda: None, in_=tasks.Region(x.ctypes.data, 0))  # empty: no dependency, no error
    tasks.taskwait()


def test_closed_executor_raises():
    e = tasks.Executor(workers=1)
    e.close()
    assert e.closed
    with pytest.raises(interlace.FinalizedError, match="after close"):
        e.spawn(print)


_DIST = pytest.mark.skipif(not hasattr(interlace._core, "DistSession"),
                           reason="the distributed-task layer is not in this build")


@_DIST
@pytest.mark.parametrize("devices,fabric", [(1, "shm"), (2, "shm"), (3, "shm"), (2, "tcp")])
def test_distributed_scatter_gather_round_trip(devices, fabric):
    from conftest import REPO, run_interlace
    prog = REPO / "tests" / "python" / "task_programs" / "dist_roundtrip.py"
    r = run_interlace("run", "-n", devices + 1, "--fabric", fabric, sys.executable, prog, timeout=180)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"host: round trip over {devices} devices OK" in r.stdout, r.stdout + r.stderr
    assert "leaked" not in r.stderr, r.stderr  # nanobind's check: no reference kept past exit
