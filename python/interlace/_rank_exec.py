"""Starts one rank so that it dies with the launcher: arms the kernel's
parent-death signal (PR_SET_PDEATHSIG, SIGKILL), binds it to its CPUs (the
launcher's --bind-to, docs/launcher.md), then execs the rank's program.

Run as `python -I -S _rank_exec.py LAUNCHER_PID CPUS PROGRAM [ARGS]`, CPUS a
list like 0-1,4 or '-' for an unbound rank; never imported
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


def _cpulist(text: str) -> list[int]:
    # The inverse of _binding.cpulist; the package is not importable here (-I -S).
    cpus: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        cpus += range(int(lo), int(hi or lo) + 1)
    return cpus


def main() -> None:
    launcher_pid = int(sys.argv[1])
    cpus, argv = sys.argv[2], sys.argv[3:]
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) != 0:
        err = ctypes.get_errno()
        sys.stderr.write(f"interlace: cannot arm the parent-death signal: {os.strerror(err)}\n")
        os._exit(127)
    # The launcher may have died before the signal was armed; then nobody
    # would ever send it.
    if os.getppid() != launcher_pid:
        os._exit(128 + int(signal.SIGKILL))
    if cpus != "-":
        # Bound before exec, so every thread the program ever starts inherits it.
        try:
            os.sched_setaffinity(0, _cpulist(cpus))
        except (OSError, ValueError) as e:
            sys.stderr.write(f"interlace: cannot bind {argv[0]!r} to cpus {cpus}: "
                             f"{getattr(e, 'strerror', None) or e}\n")
            os._exit(127)
    try:
        os.execvp(argv[0], argv)
    except OSError as e:
        sys.stderr.write(f"interlace: cannot start {argv[0]!r}: {e.strerror or e}\n")
        os._exit(127)


if __name__ == "__main__":
    main()
