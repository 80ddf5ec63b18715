"""What Python task bodies can do in parallel (docs/python.md, "Tasks and the GIL").

    OPENBLAS_NUM_THREADS=1 python examples/python/tasks_gil.py

Runs 8 tasks of a pure-Python loop and 8 of NumPy matmuls on 1 and on 2
workers, beside the same work on 1 and 2 plain Python threads (what the machine
allows right now). Pure Python holds the GIL and cannot speed up; matmul
releases it inside BLAS and can. Best of 5 runs each.
"""
import threading
import time

import numpy as np

from interlace import tasks

COUNT = 8
a = np.random.default_rng(0).random((600, 600))


def py_loop(n=1_000_000):
    s = 0
    for i in range(n):
        s += i
    return s


def matmul():
    for _ in range(6):
        a @ a


def on_executor(body, workers):
    with tasks.Executor(workers=workers):
        t = time.perf_counter()
        for _ in range(COUNT):
            tasks.spawn(body)
        tasks.taskwait()
        return time.perf_counter() - t


def on_threads(body, n):
    t = time.perf_counter()
    ths = [threading.Thread(target=lambda: [body() for _ in range(COUNT // n)]) for _ in range(n)]
    for th in ths:
        th.start()
    for th in ths:
        th.join()
    return time.perf_counter() - t


def best(f, *args):
    return min(f(*args) for _ in range(5))


if __name__ == "__main__":
    print(f"{COUNT} tasks of          | 1 worker | 2 workers | speed-up | plain threads speed-up")
    for name, body in (("a pure Python loop", py_loop), ("NumPy matmul", matmul)):
        one, two = best(on_executor, body, 1), best(on_executor, body, 2)
        t1, t2 = best(on_threads, body, 1), best(on_threads, body, 2)
        print(f"{name:22} | {one:.2f} s   | {two:.2f} s    | {one / two:.2f}     | {t1 / t2:.2f}")
