"""The job's lifetime is the launcher's: ranks and their files go when the
launcher is SIGKILLed; signals during the launch stop it cleanly; absurd rank
counts are refused before anything starts; `--help` shows the command forms."""
from __future__ import annotations

import glob
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import launcher_env, run_interlace

GONE_WITHIN_S = 10.0


def _gone(pid: int) -> bool:
    # Reparented ranks may linger as zombies if init does not reap; dead is dead.
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X")
    except OSError:
        return True


def _pids_with_arg(marker: str) -> list[int]:
    out = []
    for d in glob.glob("/proc/[0-9]*"):
        try:
            with open(f"{d}/cmdline", "rb") as f:
                args = f.read().split(b"\0")
        except OSError:
            continue
        if marker.encode() in args and not _gone(int(d[6:])):
            out.append(int(d[6:]))
    return out


def _wait_until(cond, timeout_s: float = GONE_WITHIN_S) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.1)
    return cond()


def _launcher(args, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "interlace", "run", *map(str, args)],
                            env=launcher_env(), text=True, **kw)


# A rank that leaves what a real rank leaves (a segment in /dev/shm), says who
# it is, then blocks.
SLEEPER = ("import os, time; e = os.environ; j = e['INTERLACE_JOB_ID']; "
           "open('/dev/shm/il-' + j + '-ctl-' + e['INTERLACE_RANK'], 'w').close(); "
           "print('J', j, e['INTERLACE_STORE'][len('file://'):], os.getpid(), flush=True); "
           "time.sleep(300)")


@pytest.mark.parametrize("n", [1, 3])
def test_sigkilled_launcher_takes_its_ranks_and_files_along(n):
    p = _launcher(["-n", n, sys.executable, "-c", SLEEPER],
                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        rows = [p.stdout.readline().split() for _ in range(n)]
        assert all(r and r[0] == "J" for r in rows), rows
        job, store = rows[0][1], rows[0][2]
        pids = [int(r[3]) for r in rows]
        assert glob.glob(f"/dev/shm/il-{job}-*") and os.path.isdir(store)
    finally:
        p.kill()
        p.wait()
    assert _wait_until(lambda: all(_gone(pid) for pid in pids)), \
        f"ranks still running {GONE_WITHIN_S} s after the launcher died: " \
        f"{[pid for pid in pids if not _gone(pid)]}"
    assert _wait_until(lambda: not glob.glob(f"/dev/shm/il-{job}-*")), \
        glob.glob(f"/dev/shm/il-{job}-*")
    assert _wait_until(lambda: not os.path.exists(store)), f"{store} was left behind"


def test_children_of_ranks_die_with_a_sigkilled_launcher():
    # The grandchild has no parent-death signal of its own; the watchdog stops its group.
    marker = f"1000.{os.getpid()}"
    p = _launcher(["-n", 2, "sh", "-c", f"sleep {marker} & echo up; wait"],
                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        assert [p.stdout.readline().strip() for _ in range(2)] == ["up", "up"]
        assert _wait_until(lambda: len(_pids_with_arg(marker)) == 2)
    finally:
        p.kill()
        p.wait()
    assert _wait_until(lambda: not _pids_with_arg(marker)), _pids_with_arg(marker)


def test_normal_end_leaves_no_watchdog_behind():
    r = run_interlace("run", "-n", 2, sys.executable, "-c", SLEEPER.replace("300", "0"))
    assert r.returncode == 0, r.stderr
    job = r.stdout.split()[1]
    assert _wait_until(lambda: not _pids_with_arg(job))


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_while_spawning_stops_the_launch(sig):
    n = 2000
    marker = f"1001.{os.getpid()}"
    p = _launcher(["-v", "-n", n, "sleep", marker],
                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    started = 0
    for line in p.stderr:
        if " on host " not in line and line.startswith("interlace: rank "):
            started += 1
        if started == 20:
            break
    p.send_signal(sig)
    err = p.stderr.read()
    p.wait(timeout=120)
    started += sum(1 for l in err.splitlines()
                   if l.startswith("interlace: rank ") and " on host " not in l)
    assert p.returncode == 128 + sig, err[-2000:]
    assert f"received {sig.name}, stopping the job" in err
    assert "Traceback" not in err
    assert started < n // 2, f"{started} of {n} ranks were started after {sig.name}"
    assert _wait_until(lambda: not _pids_with_arg(marker)), _pids_with_arg(marker)


def test_absurd_rank_count_is_refused_before_anything_starts():
    start = time.monotonic()
    r = run_interlace("run", "-n", 100000, "true", timeout=60)
    assert r.returncode == 2
    assert "-n 100000" in r.stderr and "4096 ranks per host" in r.stderr
    assert time.monotonic() - start < 30


def test_rank_count_is_checked_per_host_and_against_process_limits(monkeypatch):
    from interlace import launcher
    with pytest.raises(launcher.UsageError, match=r"5000 ranks on each of 2 hosts"):
        launcher.parse_args(["--hosts", "a,b", "-n", "10000", "prog"])
    monkeypatch.setattr(launcher, "_soft_limit", lambda which: 300)
    with pytest.raises(launcher.UsageError, match=r"-n 101 .* at most 100 .*ulimit -u"):
        launcher.parse_args(["-n", "101", "prog"])
    assert launcher.parse_args(["-n", "100", "prog"]).size == 100


def test_help_shows_program_args_and_the_mpmd_form():
    r = run_interlace("run", "--help")
    assert r.returncode == 0
    assert "PROGRAM [ARGS...]" in r.stdout
    assert " : -n M PROGRAM2" in r.stdout
    assert "interlace run -n 2 ./a : -n 2 ./b" in r.stdout
    assert "4096 ranks per host" in r.stdout
