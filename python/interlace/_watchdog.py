"""Cleans up after a launcher that died without cleaning up (SIGKILL, OOM).

Run as `python -I -S _watchdog.py JOB_ID STORE_DIR|-` in its own session,
its stdin the read end of a pipe that only the launcher holds. The launcher
writes `+PID` for each rank it starts (PID is also the rank's process group),
`-PID` when it has reaped that rank, and `done` when it has cleaned up itself.
End of input without `done` means the launcher is gone: every rank group still
known is killed, then the job's /dev/shm segments and store directory are
removed. Ranks die by themselves too (parent-death signal); the watchdog also
catches their children and what they leave on disk.
"""
import glob
import os
import shutil
import signal
import sys
import time

KILL_WAIT_S = 5.0


def _alive(pid: int) -> bool:
    # A zombie (dead, not yet reaped by init) counts as gone.
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            state = f.read().rsplit(b")", 1)[1].split()[0]
        return state not in (b"Z", b"X")
    except (OSError, IndexError):
        return False


def _kill_groups(groups: set) -> None:
    for pgid in groups:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except OSError:
            pass
    # Segments must be removed after the ranks stopped creating them.
    deadline = time.monotonic() + KILL_WAIT_S
    while time.monotonic() < deadline and any(_alive(p) for p in groups):
        time.sleep(0.05)


def main() -> None:
    job_id, store_dir = sys.argv[1], sys.argv[2]
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_IGN)
    groups = set()
    for line in sys.stdin:
        line = line.strip()
        if line == "done":
            return
        if line[:1] in "+-" and line[1:].isdigit():
            pid = int(line[1:])
            (groups.add if line[0] == "+" else groups.discard)(pid)
    _kill_groups(groups)
    for path in glob.glob(f"/dev/shm/il-{job_id}-*"):
        try:
            os.unlink(path)
        except OSError:
            pass
    if store_dir != "-":
        shutil.rmtree(store_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
