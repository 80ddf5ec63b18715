"""Runs a planned job: starts every rank in its own process group, forwards
its output, watches for failures and timeouts, stops the survivors, and
cleans up the store and shared-memory leftovers.

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

from . import launcher
from .launcher import Options, RankPlan

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

    def _spawn(self, plan: RankPlan, out_fwd: _Forwarder) -> subprocess.Popen | None:
        cwd = os.getcwd()
        if plan.is_local:
            argv, env = plan.argv, {**os.environ, **plan.env}
        else:
            argv, env = launcher.remote_command(self.opts.rsh, plan, cwd), None
        if self.opts.verbose:
            _say(f"rank {plan.rank} on {plan.host}: {' '.join(argv)}")
        try:
            # Own session = own process group, so stopping a rank also stops what
            # it started (a shell's children, `ip netns exec`'s program, ssh).
            p = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 start_new_session=True)
        except OSError as e:
            _say(f"rank {plan.rank} on host {plan.host}: cannot start {argv[0]!r}: "
                 f"{e.strerror or e}")
            return None
        out_fwd.start(plan.rank, p.stdout, sys.stdout.buffer)
        out_fwd.start(plan.rank, p.stderr, sys.stderr.buffer)
        return p

    # -- running ----------------------------------------------------------
    def run(self) -> int:
        fwd = _Forwarder(self.opts.tag_output)
        old_handlers = self._trap_signals()
        try:
            store_url = self._open_store()
            self.plans = launcher.plan_ranks(self.opts, self.job_id, self.secret, store_url)
            for plan in self.plans:
                p = self._spawn(plan, fwd)
                self.procs.append(p)
                if p is None:
                    self._fail(plan.rank, 127)
                    break
            self._watch()
        finally:
            self._stop_all()
            fwd.join(TERM_WAIT_S)
            self._cleanup()
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
