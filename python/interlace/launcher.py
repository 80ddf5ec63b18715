"""Plans an `interlace run` job: parses the command line (MPMD groups separated
by ':' as with mpirun), places ranks on hosts, and builds every rank's
environment and command. Running the plan is _supervisor.py's job.

Placement is blocked round-robin: with N ranks on H hosts, host i gets N // H
consecutive ranks, and the first N % H hosts one more, so neighbouring ranks
share a host (and its shared-memory fabric).
"""
from __future__ import annotations

import argparse
import os
import re
import resource
import secrets
import shlex
import socket
import sys
from dataclasses import dataclass, field

from . import _binding

DEFAULT_RSH = "ssh -o BatchMode=yes {host}"
# Remote shells that join their arguments into one string for the remote shell
# to parse; the command handed to these must be pre-quoted as a single string.
_JOINING_RSH = {"ssh", "rsh", "oarsh", "krsh"}
_HOST_RE = re.compile(r"^[A-Za-z0-9_]([A-Za-z0-9._-]*[A-Za-z0-9_])?$")
_LOCAL_NAMES = {"localhost", "127.0.0.1", "::1"}
_ENV_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

# Ranks one host may get. Each local rank costs the launcher a process, two
# output threads and two pipe descriptors; beyond a few thousand that is a typo
# (`-n 100000`) rather than a job, and would exhaust pids, threads or
# descriptors halfway through the launch.
MAX_RANKS_PER_HOST = 4096
_FDS_PER_RANK = 2          # stdout and stderr pipes kept open by the launcher
_TASKS_PER_RANK = 3        # the rank and two output threads, all count for RLIMIT_NPROC
_SPARE_FDS = 64

USAGE = ("interlace run [options] [-n N] PROGRAM [ARGS...]\n"
         "       interlace run [options] -n N PROGRAM [ARGS...] : -n M PROGRAM2 [ARGS...] [: ...]\n"
         "       interlace run [options] --cluster FILE PROGRAM.c | PROGRAM | DIR [ARGS...]")
EPILOG = """\
MPMD: groups separated by a lone ':' get consecutive ranks and one job size;
`interlace run -n 2 ./a : -n 2 ./b` runs ranks 0-1 as ./a and 2-3 as ./b.
Options other than -n belong in the first group. Everything after PROGRAM
belongs to PROGRAM (`--` before PROGRAM ends the options explicitly).

Exit status: 0 when every rank exits 0; else the first failing rank's status
(128+K for signal K), 124 for --timeout, 127 when a program cannot start,
128+K when the launcher gets signal K (SIGINT, SIGTERM, SIGHUP), 2 for a bad
command line. At most %d ranks per host (less under a low `ulimit -u` or
`ulimit -n`). Ranks die with the launcher, even when it is killed with SIGKILL.
See docs/launcher.md.

--cluster FILE: the job's ranks, their kinds (cpu, fpga, gpu), hosts and
variants come from a cluster description; a .c PROGRAM is transpiled per
rank and built (cached); see docs/cluster.md.""" % MAX_RANKS_PER_HOST


class UsageError(Exception):
    """Bad command-line input; the CLI prints it and exits with status 2."""


@dataclass
class Group:
    size: int
    argv: list[str]


@dataclass
class Options:
    groups: list[Group]
    hosts: list[str] = field(default_factory=list)  # empty: this host only
    fabric: str | None = None
    rsh: str = DEFAULT_RSH
    timeout: float | None = None
    grace: float = 1.0
    tag_output: bool = False
    store_addr: str | None = None
    exports: list[str] = field(default_factory=list)  # -x NAME or NAME=VALUE
    verbose: bool = False
    # --cluster (docs/cluster.md); _cluster_launch.apply() fills the per-rank fields.
    cluster: str | None = None
    n_given: bool = False
    build_dir: str | None = None
    defines: list[str] = field(default_factory=list)       # -D NAME[=VALUE]
    include_dirs: list[str] = field(default_factory=list)  # -I DIR
    cflags: str | None = None
    rank_argv: list[list[str]] | None = None   # each rank's own command line
    rank_hosts: list[str | None] | None = None  # each rank's host (None: this host)
    external: set[int] = field(default_factory=set)  # ranks started elsewhere
    job_env: dict[str, str] = field(default_factory=dict)  # set for every rank
    # Routed and simulated jobs (docs/routing.md, docs/sim.md): routes.launch applies them.
    topology: str | None = None
    routes: str | None = None
    preset: str | None = None
    # Rank binding (docs/launcher.md, _binding.py); None: the default.
    bind_to: str | None = None
    map_by: str | None = None
    report_bindings: bool = False

    @property
    def size(self) -> int:
        return sum(g.size for g in self.groups)


@dataclass
class RankPlan:
    rank: int
    host: str
    local_rank: int
    is_local: bool
    argv: list[str]
    env: dict[str, str]  # the variables the launcher sets for this rank
    binding: _binding.Binding | None = None  # local ranks only


def _positive_float(flag):
    def parse(text):
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{flag} wants seconds, got {text!r}")
        if not value > 0 and not (flag == "--grace" and value == 0):
            raise argparse.ArgumentTypeError(f"{flag} must be positive, got {text!r}")
        return value
    return parse


def _choice(parse):
    def check(text):
        try:
            return parse(text)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e))
    return check


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(f"interlace run: {message}")


def _group_parser(full: bool) -> argparse.ArgumentParser:
    p = _Parser(prog="interlace run", add_help=full, allow_abbrev=False, usage=USAGE,
                description="Start N ranks of PROGRAM, each a process, as one job.",
                epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-n", "-np", dest="n", type=int, default=None, metavar="N",
                   help="number of ranks of this program (default 1)")
    if full:
        p.add_argument("--devices", type=int, metavar="P",
                       help="distributed tasks: P device ranks plus the host, rank 0 "
                            "(P+1 ranks in all; docs/ompif.md)")
        p.add_argument("--fabric", help="force a fabric for every rank: auto, shm or tcp")
        p.add_argument("--hosts", help="comma-separated host names; ranks are blocked over them")
        p.add_argument("--rsh", default=DEFAULT_RSH,
                       help="command template that starts a process on {host} "
                            f"(default: {DEFAULT_RSH!r}); '{{cmd}}' marks where the "
                            "remote command goes, else it is appended")
        p.add_argument("--timeout", type=_positive_float("--timeout"),
                       help="stop the job after S seconds (exit status 124)")
        p.add_argument("--grace", type=_positive_float("--grace"), default=1.0,
                       help="seconds survivors get after a rank fails (default 1)")
        p.add_argument("--tag-output", action="store_true",
                       help="prefix every output line with [rank]")
        p.add_argument("--store-addr", help="address remote ranks use to reach the "
                                            "launcher's store (multi-host jobs)")
        p.add_argument("-x", dest="exports", action="append", default=[], metavar="NAME[=VALUE]",
                       help="pass an environment variable to every rank (repeatable)")
        p.add_argument("-v", "--verbose", action="store_true",
                       help="print each rank's command before starting it")
        p.add_argument("--cluster", metavar="FILE",
                       help="cluster description (JSON): ranks, kinds, hosts, variants; "
                            "the job size comes from it (docs/cluster.md)")
        p.add_argument("--build-dir", metavar="DIR",
                       help="with --cluster and a .c PROGRAM: where built variants are "
                            "cached (default ~/.cache/interlace/cluster)")
        p.add_argument("-D", dest="defines", action="append", default=[],
                       metavar="NAME[=VALUE]",
                       help="with --cluster and a .c PROGRAM: a macro for the transpiler "
                            "and the compiler (repeatable)")
        p.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR",
                       help="with --cluster and a .c PROGRAM: an include directory")
        p.add_argument("--cflags", metavar="FLAGS",
                       help="with --cluster and a .c PROGRAM: compiler flags (default -O2)")
        p.add_argument("--topology", metavar="FILE",
                       help="run routed over this topology (JSON; docs/routing.md); routes are "
                            "generated into a temporary directory unless --routes is given")
        p.add_argument("--routes", metavar="DIR",
                       help="routing tables (`interlace routes gen`) for every rank "
                            "(INTERLACE_ROUTES)")
        p.add_argument("--preset", metavar="NAME",
                       help="with --fabric sim: the modelled hardware (smi, fshmem, accl, "
                            "cloudfpga; INTERLACE_SIM_PRESET)")
        p.add_argument("--bind-to", type=_choice(_binding.parse_bind_to), metavar="LEVEL",
                       help="bind each local rank to a hwthread, core (default), socket or "
                            "numa node, or none; the default binds none on a crowded host")
        p.add_argument("--map-by", type=_choice(_binding.parse_map_by), metavar="LEVEL",
                       help="where ranks go: core or slot (default: packed onto consecutive "
                            "cores), hwthread, socket or numa (round-robin over them)")
        p.add_argument("--report-bindings", action="store_true",
                       help="print each rank's binding on stderr as it starts")
    return p


_VALUE_OPTS = {"-n", "-np", "--devices", "--fabric", "--hosts", "--rsh", "--timeout", "--grace",
               "--store-addr", "-x", "--cluster", "--build-dir", "-D", "-I", "--cflags",
               "--topology", "--routes", "--preset", "--bind-to", "--map-by"}


def _split_program(seg: list[str]) -> tuple[list[str], list[str]]:
    """Splits a group into launcher options and PROGRAM ARGS. Done by hand
    because argparse would eat a `--` meant for the program."""
    i = 0
    while i < len(seg):
        tok = seg[i]
        if tok == "--":
            return seg[:i], seg[i + 1:]
        if not tok.startswith("-") or tok == "-":
            return seg[:i], seg[i:]
        i += 2 if tok in _VALUE_OPTS else 1
    return seg, []


def _split_groups(argv: list[str]) -> list[list[str]]:
    groups, cur = [], []
    for tok in argv:
        if tok == ":":
            groups.append(cur)
            cur = []
        else:
            cur.append(tok)
    groups.append(cur)
    return groups


def parse_hosts(text: str) -> list[str]:
    hosts = [h.strip() for h in text.split(",")]
    if not text.strip() or any(not h for h in hosts):
        raise UsageError(f"interlace run: malformed --hosts {text!r}: "
                         "want comma-separated names like 'node1,node2' (no empty entries)")
    seen = set()
    for h in hosts:
        if h not in _LOCAL_NAMES and not _HOST_RE.match(h):
            raise UsageError(f"interlace run: malformed host name {h!r} in --hosts {text!r}")
        if h in seen:
            raise UsageError(f"interlace run: host {h!r} appears twice in --hosts {text!r}")
        seen.add(h)
    return hosts


def parse_args(argv: list[str]) -> Options:
    """Parses everything after `interlace run`. Raises UsageError."""
    segments = _split_groups(list(argv))
    groups, first = [], None
    for i, seg in enumerate(segments):
        opt_part, program = _split_program(seg)
        ns = _group_parser(full=(i == 0)).parse_args(opt_part)
        ns.program, ns.args = (program[0], program[1:]) if program else (None, [])
        if i == 0:
            first = ns
            first.n_given = ns.n is not None
        where = f" (program group {i + 1})" if len(segments) > 1 else ""
        if i == 0 and ns.devices is not None:
            if ns.devices < 1:
                raise UsageError(f"interlace run: --devices must be at least 1, got {ns.devices}")
            if len(segments) > 1:
                raise UsageError("interlace run: --devices starts one program (host and "
                                 "devices); it does not combine with ':' program groups")
            if ns.n is not None and ns.n != ns.devices + 1:
                raise UsageError(f"interlace run: -n {ns.n} contradicts --devices {ns.devices} "
                                 f"(which means {ns.devices + 1} ranks: the host and "
                                 f"{ns.devices} devices)")
            ns.n = ns.devices + 1
        if ns.n is None:
            ns.n = 1
        if ns.n < 1:
            raise UsageError(f"interlace run: -n must be at least 1, got {ns.n}{where}")
        if ns.program is None:
            raise UsageError(f"interlace run: no program given{where}")
        if not ns.program.strip():
            raise UsageError(f"interlace run: empty program name {ns.program!r}{where}")
        groups.append(Group(ns.n, [ns.program, *ns.args]))

    opts = Options(groups=groups, rsh=first.rsh, timeout=first.timeout, grace=first.grace,
                   tag_output=first.tag_output, store_addr=first.store_addr,
                   exports=first.exports, verbose=first.verbose, cluster=first.cluster,
                   n_given=first.n_given, build_dir=first.build_dir, defines=first.defines,
                   include_dirs=first.include_dirs, cflags=first.cflags,
                   topology=first.topology, routes=first.routes, preset=first.preset,
                   bind_to=first.bind_to, map_by=first.map_by,
                   report_bindings=first.report_bindings)
    if opts.cluster is None and (opts.build_dir or opts.defines or opts.include_dirs
                                 or opts.cflags is not None):
        raise UsageError("interlace run: --build-dir, -D, -I and --cflags go with --cluster "
                         "(they build a transpiled .c program)")
    if opts.cluster is not None:
        if len(groups) > 1:
            raise UsageError("interlace run: --cluster gives every rank its program; it does "
                             "not combine with ':' program groups")
        if first.devices is not None:
            raise UsageError("interlace run: --cluster does not combine with --devices")
        if first.hosts is not None:
            raise UsageError("interlace run: --cluster names the hosts (its \"hosts\" and "
                             "\"ranks\" keys); it does not combine with --hosts")
    if first.fabric is not None:
        known = known_fabrics()
        if first.fabric not in known:
            raise UsageError(f"interlace run: unknown fabric {first.fabric!r} "
                             f"(known: {', '.join(known)})")
        opts.fabric = first.fabric
    if first.hosts is not None:
        opts.hosts = parse_hosts(first.hosts)
    if "{host}" not in opts.rsh:
        raise UsageError(f"interlace run: --rsh {opts.rsh!r} has no {{host}} placeholder")
    for e in opts.exports:
        name = e.split("=", 1)[0]
        if not _ENV_NAME_RE.match(name):
            raise UsageError(f"interlace run: -x {e!r} does not start with a variable name")
    check_rank_count(opts)
    return opts


def _soft_limit(which: int) -> int | None:
    try:
        soft, _hard = resource.getrlimit(which)
    except (ValueError, OSError):
        return None
    return None if soft == resource.RLIM_INFINITY else soft


def _fd_ceiling() -> int | None:
    """Descriptors the launcher can have: the hard limit, since
    raise_fd_limit() lifts the soft one up to it."""
    try:
        _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ValueError, OSError):
        return None
    return None if hard == resource.RLIM_INFINITY else hard


def rank_limit() -> tuple[int, str]:
    """Most ranks this launcher may start on its own host, and why."""
    limit, why = MAX_RANKS_PER_HOST, "interlace's fixed limit"
    nproc = _soft_limit(resource.RLIMIT_NPROC)
    if nproc is not None and nproc // _TASKS_PER_RANK < limit:
        limit = nproc // _TASKS_PER_RANK
        why = f"the process limit `ulimit -u` {nproc} / {_TASKS_PER_RANK} tasks per rank"
    fds = _fd_ceiling()
    if fds is not None and (fds - _SPARE_FDS) // _FDS_PER_RANK < limit:
        limit = max(0, (fds - _SPARE_FDS) // _FDS_PER_RANK)
        why = f"the descriptor limit `ulimit -Hn` {fds} / {_FDS_PER_RANK} per rank"
    return limit, why


def check_rank_count(opts: Options) -> None:
    """Refuses absurd counts before anything starts. Every rank's pipes and
    threads live in the launcher, so the bound is per job on remote hosts too."""
    nhosts = len(opts.hosts) or 1
    per_host = -(-opts.size // nhosts)
    if per_host > MAX_RANKS_PER_HOST:
        where = "this host" if nhosts == 1 else f"each of {nhosts} hosts"
        raise UsageError(f"interlace run: -n {opts.size} puts {per_host} ranks on {where}; "
                         f"at most {MAX_RANKS_PER_HOST} ranks per host are allowed")
    limit, why = rank_limit()
    if opts.size > limit:
        raise UsageError(f"interlace run: -n {opts.size} is more ranks than this launcher can "
                         f"start: at most {limit} ({why})")


def raise_fd_limit(size: int) -> None:
    """Lifts the soft descriptor limit when the job's pipes need it."""
    need = size * _FDS_PER_RANK + _SPARE_FDS
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft != resource.RLIM_INFINITY and soft < need:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard if hard == resource.RLIM_INFINITY
                                                        else min(hard, max(need, soft)), hard))
    except (ValueError, OSError):
        pass  # spawning will then report the failing rank


def known_fabrics() -> list[str]:
    try:
        from . import _core
        builtin = list(_core.builtin_fabrics())
    except (ImportError, AttributeError):
        builtin = ["shm", "sim", "tcp", "ucx", "udp"]  # source checkout without the extension (the ranks check)
    return ["auto", *builtin]


def is_local_host(host: str) -> bool:
    return host in _LOCAL_NAMES or host == socket.gethostname()


def place(size: int, nhosts: int) -> list[int]:
    """Host index of each rank: blocked, earlier hosts take the remainder."""
    base, extra = divmod(size, nhosts)
    out = []
    for h in range(nhosts):
        out += [h] * (base + (1 if h < extra else 0))
    return out


def new_job_id() -> str:
    return secrets.token_hex(6)


def new_secret() -> str:
    return secrets.token_hex(16)


def _exported_env(exports: list[str]) -> dict[str, str]:
    out = {}
    for e in exports:
        name, eq, value = e.partition("=")
        if eq:
            out[name] = value
        elif name in os.environ:
            out[name] = os.environ[name]
    return out


def plan_ranks(opts: Options, job_id: str, secret: str, store_url: str) -> list[RankPlan]:
    hosts = opts.hosts or [socket.gethostname()]
    host_of = place(opts.size, len(hosts))
    programs = opts.rank_argv or [g.argv for g in opts.groups for _ in range(g.size)]
    extra = _exported_env(opts.exports)
    plans, local_counter = [], {}
    for rank in range(opts.size):
        if rank in opts.external:  # started elsewhere (a ZRLMPI node): no plan
            continue
        if opts.rank_hosts is not None:
            host = opts.rank_hosts[rank] or socket.gethostname()
        else:
            host = hosts[host_of[rank]]
        local_rank = local_counter.get(host, 0)
        local_counter[host] = local_rank + 1
        # Output reaches the launcher through pipes, where Python would buffer
        # it until exit and lose it if the rank is killed; C stdio users can
        # call setvbuf themselves.
        env = {"PYTHONUNBUFFERED": os.environ.get("PYTHONUNBUFFERED", "1")}
        env.update(extra)
        env.update(opts.job_env)
        env.update({
            "INTERLACE_RANK": str(rank),
            "INTERLACE_SIZE": str(opts.size),
            "INTERLACE_LOCAL_RANK": str(local_rank),
            "INTERLACE_JOB_ID": job_id,
            "INTERLACE_SECRET": secret,
            "INTERLACE_STORE": store_url,
            "INTERLACE_HOST": host,
        })
        if opts.fabric:
            env["INTERLACE_FABRIC"] = opts.fabric
        local = (is_local_host(host) if opts.rank_hosts is not None
                 else not opts.hosts or is_local_host(host))
        argv = list(programs[rank])
        if local and argv[0] in ("python", "python3"):
            # The interpreter running the launcher is the one interlace is installed
            # in, even when a bare `python` on PATH would be another one.
            argv[0] = sys.executable
        plans.append(RankPlan(rank, host, local_rank, local, argv, env))
    for p in plans:
        p.env["INTERLACE_LOCAL_SIZE"] = str(local_counter[p.host])
    bind_local_ranks(opts, [p for p in plans if p.is_local])
    return plans


def bind_local_ranks(opts: Options, local: list[RankPlan]) -> None:
    """Gives every rank on this host its binding and the variables that show it.
    Remote hosts' topologies are unknown here: their ranks run unbound."""
    if not local:
        return
    topo, why = (None, "") if opts.bind_to == "none" else _binding.load_topology()
    if topo is None and opts.bind_to not in (None, "none"):
        raise UsageError(f"interlace run: --bind-to {opts.bind_to} is not possible: {why}")
    bindings = _binding.plan(topo, why, len(local), opts.bind_to, opts.map_by)
    try:
        host_cpus = _binding.cpulist(list(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        host_cpus = f"0-{(os.cpu_count() or 1) - 1}"
    for p, b in zip(local, bindings):
        p.binding = b
        p.env["INTERLACE_BIND_TO"] = b.level
        p.env["INTERLACE_BIND_CPUS"] = _binding.cpulist(b.cpus) if b.cpus else ""
        # The job's CPUs on this host, which a bound rank's own mask no longer
        # shows: the engine's wait policy judges crowding by it.
        p.env["INTERLACE_HOST_CPUS"] = host_cpus


def remote_script(plan: RankPlan, cwd: str) -> str:
    """A POSIX shell command line that runs the rank in cwd with its environment.
    Every INTERLACE_* of the launcher's own environment travels too, so settings
    like INTERLACE_LOG reach remote ranks."""
    env = {k: v for k, v in os.environ.items() if k.startswith("INTERLACE_")}
    env.update(plan.env)
    assigns = " ".join(shlex.quote(f"{k}={v}") for k, v in sorted(env.items()))
    prog = " ".join(shlex.quote(a) for a in plan.argv)
    return f"cd {shlex.quote(cwd)} && exec env {assigns} {prog}"


def remote_command(rsh: str, plan: RankPlan, cwd: str) -> list[str]:
    """The local argv that starts a remote rank through the rsh template.

    Three cases, because remote starters differ in how they treat arguments:
    '{cmd}' in the template takes the script as one argument; ssh-like starters
    (which join arguments into one remote shell string) get it as one argument;
    anything else (e.g. `ip netns exec {host}`, which execs its arguments as
    they are) gets `sh -c SCRIPT`.
    """
    script = remote_script(plan, cwd)
    try:
        tokens = [t.format(host=plan.host, cmd="{cmd}") for t in shlex.split(rsh)]
    except (KeyError, IndexError, ValueError) as e:
        raise UsageError(f"interlace run: bad --rsh template {rsh!r}: {e}") from None
    if any("{cmd}" in t for t in tokens):
        return [t.replace("{cmd}", script) for t in tokens]
    if os.path.basename(tokens[0]) in _JOINING_RSH:
        return tokens + [script]
    return tokens + ["sh", "-c", script]


def store_address(opts: Options) -> str:
    """The launcher's address as remote ranks should dial it."""
    if opts.store_addr:
        return opts.store_addr
    # The address this host would use to reach the first remote host is the one
    # that host can reach back (no packet is sent by a UDP connect).
    for h in opts.hosts:
        if is_local_host(h):
            continue
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                s.connect((socket.gethostbyname(h), 9))
                return s.getsockname()[0]
        except OSError:
            break
    try:
        return socket.gethostbyname(socket.gethostname())
    except OSError:
        raise UsageError("interlace run: cannot find this host's address for the "
                         "store; pass --store-addr ADDR") from None
