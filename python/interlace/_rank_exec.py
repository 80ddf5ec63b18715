"""Starts one rank so that it dies with the launcher: arms the kernel's
parent-death signal (PR_SET_PDEATHSIG, SIGKILL), then execs the rank's program.

Run as `python -I -S _rank_exec.py LAUNCHER_PID PROGRAM [ARGS]`, never imported
by the package. A separate interpreter rather than Popen(preexec_fn=...)
because the launcher has output threads running while it spawns, and running
Python code between fork and exec in a threaded process can deadlock. The
signal fires when the thread that forked us exits; the launcher forks from its
main thread, whose end is the launcher's end. The death signal survives exec
(not into set-uid programs; those are stopped by the launcher's watchdog).
"""
import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1


def main() -> None:
    launcher_pid = int(sys.argv[1])
    argv = sys.argv[2:]
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) != 0:
        err = ctypes.get_errno()
        sys.stderr.write(f"interlace: cannot arm the parent-death signal: {os.strerror(err)}\n")
        os._exit(127)
    # The launcher may have died before the signal was armed; then nobody
    # would ever send it.
    if os.getppid() != launcher_pid:
        os._exit(128 + int(signal.SIGKILL))
    try:
        os.execvp(argv[0], argv)
    except OSError as e:
        sys.stderr.write(f"interlace: cannot start {argv[0]!r}: {e.strerror or e}\n")
        os._exit(127)


if __name__ == "__main__":
    main()
