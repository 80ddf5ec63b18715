"""Runs a planned job: starts every rank in its own process group, forwards
its output, watches for failures and timeouts, stops the survivors, and
cleans up the store and shared-memory leftovers.

Ranks die with the launcher even when it is killed with SIGKILL: each rank is
started through _rank_exec.py, which arms the parent-death signal before
exec, and a watchdog process (_watchdog.py) that outlives the launcher kills
the rank groups and removes the job's segments and store directory when the
launcher vanishes without cleaning up.

Exit status of the job: 0 when every rank exits 0; otherwise the first failing
rank's status (128 + signal number for a signal, 124 for --timeout).
"""
from __future__ import annotations

import glob
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

from . import _binding, launcher
from .launcher import Options, RankPlan

_HERE = os.path.dirname(os.path.abspath(__file__))
RANK_EXEC = os.path.join(_HERE, "_rank_exec.py")
WATCHDOG = os.path.join(_HERE, "_watchdog.py")
# -I -S: the helpers need only the standard library; skipping site and the
# user's PYTHON* variables keeps their start fast and predictable.
HELPER_PY = [sys.executable, "-I", "-S"]

POLL_S = 0.02
TERM_WAIT_S = 2.0  # SIGTERM, then SIGKILL after this long


def _say(msg: str) -> None:
    sys.stderr.write(f"interlace: {msg}\n")
    sys.stderr.flush()


def _signal_name(num: int) -> str:
    try:
        return signal.Signals(num).name
    except ValueError:
        return f"signal {num}"


class _Forwarder:
    """Copies a rank's stdout/stderr to ours line by line, so lines of
    different ranks never interleave mid-line."""

    def __init__(self, tag_output: bool):
        self.tag_output = tag_output
        self.lock = threading.Lock()
        self.threads: list[threading.Thread] = []

    def start(self, rank: int, pipe, out) -> None:
        prefix = f"[{rank}] ".encode() if self.tag_output else b""
        t = threading.Thread(target=self._pump, args=(pipe, out, prefix), daemon=True)
        t.start()
        self.threads.append(t)

    def _pump(self, pipe, out, prefix: bytes) -> None:
        try:
            for line in iter(pipe.readline, b""):
                if prefix and not line.endswith(b"\n"):
                    line += b"\n"
                with self.lock:
                    try:
                        out.write(prefix + line)
                        out.flush()
                    except (BrokenPipeError, ValueError):
                        pass  # our own output went away; keep draining the rank
        finally:
            pipe.close()

    def join(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        for t in self.threads:
            t.join(max(0.0, deadline - time.monotonic()))


class Job:
    def __init__(self, opts: Options):
        self.opts = opts
        self.job_id = launcher.new_job_id()
        self.secret = launcher.new_secret()
        self.store_dir: str | None = None
        self.store_server = None
        self.procs: list[subprocess.Popen | None] = []
        self.plans: list[RankPlan] = []
        self.failed_rank: int | None = None
        self.exit_status = 0
        self.stopping = False
        self.watchdog: subprocess.Popen | None = None
        self._topology: _binding.Topology | None = None  # loaded for --report-bindings
        self.watch_pipe = None  # write end; only the launcher holds it
        self.reaped: set[int] = set()

    # -- setup ------------------------------------------------------------
    def _open_store(self) -> str:
        remote = any(not launcher.is_local_host(h) for h in self.opts.hosts)
        if not remote:
            self.store_dir = tempfile.mkdtemp(prefix=f"interlace-{self.job_id}-")
            return "file://" + self.store_dir
        try:
            from ._core import TcpStoreServer
        except ImportError as e:
            raise launcher.UsageError(
                f"interlace run: a multi-host job needs the TCP store from interlace._core ({e})")
        addr = launcher.store_address(self.opts)
        self.store_server = TcpStoreServer("0.0.0.0", 0, self.secret)
        return f"tcp://{addr}:{self.store_server.port}"

    def _start_watchdog(self) -> None:
        """Without a watchdog the job still runs; only cleanup after a SIGKILL
        of the launcher is lost, so a failure here is a warning."""
        r, w = os.pipe()
        try:
            self.watchdog = subprocess.Popen(
                [*HELPER_PY, WATCHDOG, self.job_id, self.store_dir or "-"],
                stdin=r, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                start_new_session=True)  # a Ctrl-C for the launcher must not reach it
            self.watch_pipe = os.fdopen(w, "w", buffering=1)
        except OSError as e:
            os.close(w)
            _say(f"warning: cannot start the cleanup watchdog ({e.strerror or e}); "
                 "if the launcher is killed, its ranks' files may stay behind")
        finally:
            os.close(r)

    def _tell_watchdog(self, line: str) -> None:
        if self.watch_pipe is None:
            return
        try:
            self.watch_pipe.write(line + "\n")
        except (OSError, ValueError):
            self.watch_pipe = None  # the watchdog died; the job goes on without it

    def _stop_watchdog(self) -> None:
        self._tell_watchdog("done")
        if self.watch_pipe is not None:
            try:
                self.watch_pipe.close()
            except OSError:
                pass
        if self.watchdog is not None:
            try:
                self.watchdog.wait(TERM_WAIT_S)
            except subprocess.TimeoutExpired:
                self.watchdog.kill()
                self.watchdog.wait()

    def _spawn(self, plan: RankPlan, out_fwd: _Forwarder) -> subprocess.Popen | None:
        cwd = os.getcwd()
        if plan.is_local:
            argv, env = plan.argv, {**os.environ, **plan.env}
        else:
            argv, env = launcher.remote_command(self.opts.rsh, plan, cwd), None
        if self.opts.verbose:
            _say(f"rank {plan.rank} on {plan.host}: {' '.join(argv)}")
        # The exec helper can only report a missing program from the child;
        # looking it up here keeps the message and status 127 immediate.
        path = (env or os.environ).get("PATH", os.defpath)
        if shutil.which(argv[0], path=path) is None:
            why = "Permission denied" if os.path.exists(argv[0]) and "/" in argv[0] else \
                "No such file or directory"
            _say(f"rank {plan.rank} on host {plan.host}: cannot start {argv[0]!r}: {why}")
            return None
        try:
            # Own session = own process group, so stopping a rank also stops what
            # it started (a shell's children, `ip netns exec`'s program, ssh).
            b = plan.binding
            cpus = _binding.cpulist(b.cpus) if b is not None and b.cpus else "-"
            p = subprocess.Popen([*HELPER_PY, RANK_EXEC, str(os.getpid()), cpus, *argv], env=env,
                                 stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 start_new_session=True)
        except OSError as e:
            _say(f"rank {plan.rank} on host {plan.host}: cannot start {argv[0]!r}: "
                 f"{e.strerror or e}")
            return None
        self._tell_watchdog(f"+{p.pid}")
        if self.opts.report_bindings:
            self._report_binding(plan, p.pid)
        try:
            out_fwd.start(plan.rank, p.stdout, sys.stdout.buffer)
            out_fwd.start(plan.rank, p.stderr, sys.stderr.buffer)
        except RuntimeError as e:  # no thread left for its output
            _say(f"rank {plan.rank} on host {plan.host}: cannot forward its output: {e}")
            self.procs.append(p)  # so that it is stopped with the others
            return None
        return p

    def _report_binding(self, plan: RankPlan, pid: int) -> None:
        if plan.binding is None:
            what = "not bound (remote host: its topology is not known here)"
        else:
            if self._topology is None:
                self._topology = _binding.load_topology()[0]
            what = _binding.describe(self._topology, plan.binding)
        _say(f"[{plan.host}:{pid}] rank {plan.rank} {what}")

    # -- running ----------------------------------------------------------
    def run(self) -> int:
        fwd = _Forwarder(self.opts.tag_output)
        old_handlers = self._trap_signals()
        try:
            launcher.raise_fd_limit(self.opts.size)
            store_url = self._open_store()
            self._start_watchdog()
            self.plans = launcher.plan_ranks(self.opts, self.job_id, self.secret, store_url)
            for plan in self.plans:
                if self.stopping:  # a signal arrived while spawning: start no more
                    break
                p = self._spawn(plan, fwd)
                if p is None:
                    self._fail(plan.rank, 127)
                    break
                self.procs.append(p)
            self._watch()
        finally:
            self._stop_all()
            fwd.join(TERM_WAIT_S)
            self._cleanup()
            self._stop_watchdog()
            for sig, h in old_handlers.items():
                signal.signal(sig, h)
        return self.exit_status

    def _fail(self, rank: int, status: int) -> None:
        if self.failed_rank is None:
            self.failed_rank, self.exit_status = rank, status

    def _watch(self) -> None:
        start = time.monotonic()
        deadline = start + self.opts.timeout if self.opts.timeout else None
        grace_end = None
        if self.failed_rank is not None:  # a rank could not even start
            grace_end = time.monotonic() + self.opts.grace
        reported: set[int] = set()
        while True:
            running = 0
            for plan, p in zip(self.plans, self.procs):
                if p is None:
                    continue
                rc = p.poll()
                if rc is None:
                    running += 1
                    continue
                if p.pid not in self.reaped:
                    # Reaped: its pid may be reused, so the watchdog must forget it.
                    self.reaped.add(p.pid)
                    self._tell_watchdog(f"-{p.pid}")
                if rc != 0 and plan.rank not in reported and not self.stopping:
                    reported.add(plan.rank)
                    self._report(plan, rc)
                    if self.failed_rank is None:
                        grace_end = time.monotonic() + self.opts.grace
                    self._fail(plan.rank, 128 - rc if rc < 0 else rc)
            if running == 0 or self.stopping:
                return
            now = time.monotonic()
            if grace_end is not None and now >= grace_end:
                return
            if deadline is not None and now >= deadline:
                self._report_timeout()
                return
            time.sleep(POLL_S)

    def _report(self, plan: RankPlan, rc: int) -> None:
        if rc < 0:
            _say(f"rank {plan.rank} on host {plan.host} was killed by signal {_signal_name(-rc)}")
        else:
            _say(f"rank {plan.rank} on host {plan.host} exited with status {rc}")

    def _report_timeout(self) -> None:
        alive = [pl for pl, p in zip(self.plans, self.procs) if p is not None and p.poll() is None]
        t = self.opts.timeout
        shown = f"{t:g}"
        first = alive[0]
        more = f" (and {len(alive) - 1} more ranks)" if len(alive) > 1 else ""
        _say(f"rank {first.rank} on host {first.host} timed out after {shown} s{more}")
        if self.failed_rank is None:
            self.failed_rank, self.exit_status = first.rank, 124

    # -- stopping and cleanup ---------------------------------------------
    def _trap_signals(self) -> dict:
        def on_signal(num, _frame):
            if not self.stopping:
                _say(f"received {_signal_name(num)}, stopping the job")
            self.stopping = True
            self._fail(-1, 128 + num)
        old = {}
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            try:
                old[sig] = signal.signal(sig, on_signal)
            except ValueError:  # not the main thread (embedded use): leave signals alone
                pass
        return old

    def _signal_groups(self, sig: int) -> None:
        for p in self.procs:
            if p is not None and p.poll() is None:
                try:
                    os.killpg(p.pid, sig)
                except (ProcessLookupError, PermissionError):
                    pass

    def _stop_all(self) -> None:
        if not any(p is not None and p.poll() is None for p in self.procs):
            self._reap_groups()
            return
        self._signal_groups(signal.SIGTERM)
        deadline = time.monotonic() + TERM_WAIT_S
        while time.monotonic() < deadline:
            if all(p is None or p.poll() is not None for p in self.procs):
                break
            time.sleep(POLL_S)
        self._signal_groups(signal.SIGKILL)
        for p in self.procs:
            if p is not None:
                p.wait()
        self._reap_groups()

    def _reap_groups(self) -> None:
        # A rank that exited may have left children in its group (a shell's
        # background job); they would keep the output pipes open forever.
        for p in self.procs:
            if p is not None:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass

    def _cleanup(self) -> None:
        if self.store_server is not None:
            self.store_server.close()
        if self.store_dir:
            shutil.rmtree(self.store_dir, ignore_errors=True)
        for path in glob.glob(f"/dev/shm/il-{self.job_id}-*"):
            try:
                os.unlink(path)
            except OSError:
                pass


def run(opts: Options) -> int:
    return Job(opts).run()
