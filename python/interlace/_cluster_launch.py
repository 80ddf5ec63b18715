"""`interlace run --cluster FILE PROGRAM` (docs/cluster.md): turns a cluster
description into a per-rank plan. The size, each rank's host and program come
from the description; a .c PROGRAM is transpiled (interlace.transpile) and
each variant built once with interlace-cc into a content-addressed cache;
ranks marked external (ZRLMPI nodes) are not started, and the others get the
udp fabric's static peer list so that they can reach them.

apply() fills the per-rank fields of launcher.Options; launcher.plan_ranks()
and the supervisor then run the job as any other.
"""
from __future__ import annotations

import glob
import hashlib
import json
import os
import shlex
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

from . import launcher
from .cluster import Cluster, ClusterError, ZRLMPI_BASE_PORT, load_cluster
from .launcher import Group, Options, UsageError
from .transpile.report import ranks_text

MANIFEST = "ranks.json"  # in a directory of built variants: rank -> variant name
REPORT = "report.json"   # interlace transpile --report, as a manifest
DEFAULT_CFLAGS = ["-O2"]


class BuildError(Exception):
    """The program could not be transpiled or built; `interlace run` exits 1."""


def default_build_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "interlace" / "cluster"


def _say(msg: str) -> None:
    sys.stderr.write(f"interlace: {msg}\n")
    sys.stderr.flush()


def _spans(ranks: list[int]) -> str:
    return ranks_text(ranks, sep=", ")


def _ranks(ranks: list[int]) -> str:
    return f"rank {ranks[0]}" if len(ranks) == 1 else f"ranks {_spans(ranks)}"


def apply(opts: Options) -> Cluster:
    """Reads opts.cluster and fills opts for a per-rank launch. Raises
    UsageError for a bad description or command line, BuildError when the
    program cannot be transpiled or compiled."""
    try:
        cluster = load_cluster(opts.cluster)
    except ClusterError as e:
        raise UsageError(f"interlace run: {e}") from None
    argv = opts.groups[0].argv
    if opts.n_given and opts.groups[0].size != cluster.size:
        raise UsageError(f"interlace run: -n {opts.groups[0].size} contradicts {cluster.source}, "
                         f"which describes {cluster.size} ranks ({cluster.kinds_text()})")
    opts.groups = [Group(cluster.size, argv)]
    fabric = job_fabric(opts, cluster)
    if fabric is not None:
        opts.fabric = fabric
    exes = rank_programs(opts, cluster, argv[0])
    opts.rank_argv = [[exe or argv[0], *argv[1:]] for exe in exes]
    opts.rank_hosts = [r.host for r in cluster.ranks]
    opts.external = set(cluster.external_ranks)
    launched_hosts = {r.host for r in cluster.ranks if r.host and not r.external}
    opts.hosts = sorted(launched_hosts)  # decides between a file and a TCP store
    if opts.external or any(r.port is not None for r in cluster.ranks):
        addrs, ports = peer_addresses(cluster)
        opts.job_env["INTERLACE_UDP_PEERS"] = ",".join(
            f"{a}:{p}" for a, p in zip(addrs, ports))
        if opts.external:
            opts.job_env["INTERLACE_ZRLMPI_RANKS"] = ",".join(map(str, sorted(opts.external)))
            explain_external(cluster, addrs, ports, argv[1:])
    launcher.check_rank_count(opts)
    return cluster


def job_fabric(opts: Options, cluster: Cluster) -> str | None:
    """One fabric per job today: --fabric, else the description's "fabric";
    ranks asking for another are an error naming them. A job with ZRLMPI
    nodes speaks udp."""
    job = opts.fabric or cluster.fabric
    wants: dict[str, list[int]] = {}
    for r in cluster.ranks:
        f = r.fabric or job
        if f is not None:
            wants.setdefault(f, []).append(r.rank)
    if cluster.external_ranks:
        bad = {f: rs for f, rs in wants.items() if f != "udp"}
        if bad:
            f, rs = next(iter(bad.items()))
            raise UsageError(f"interlace run: {cluster.source}: ZRLMPI nodes "
                             f"({_ranks(cluster.external_ranks)}) speak udp, but {_ranks(rs)} "
                             f"ask for fabric {f!r}")
        return "udp"
    if len(wants) > 1:
        parts = "; ".join(f"{_ranks(rs)}: {f!r}" for f, rs in sorted(wants.items()))
        raise UsageError(f"interlace run: {cluster.source}: ranks ask for different fabrics "
                         f"({parts}); a job has one fabric today")
    if not wants:
        return None
    (f, _), = wants.items()
    known = launcher.known_fabrics()
    if f not in known:
        raise UsageError(f"interlace run: {cluster.source}: unknown fabric {f!r} "
                         f"(known: {', '.join(known)})")
    return f


# -- where each rank's program comes from --------------------------------------

def rank_programs(opts: Options, cluster: Cluster, program: str) -> list[str | None]:
    """The executable of every rank (None for external ranks)."""
    launched = [r for r in cluster.ranks if not r.external]
    if program.endswith(".c"):
        if not os.path.isfile(program):
            raise UsageError(f"interlace run: no such C source {program!r}")
        return _transpiled(opts, cluster, program)
    if os.path.isdir(program):
        return _from_directory(opts, cluster, program)
    out: list[str | None] = [None] * cluster.size
    base = os.path.dirname(program) or "."
    for r in launched:
        if r.variant is None:
            out[r.rank] = program
            continue
        exe = os.path.join(base, r.variant)
        if not os.path.isfile(exe):
            raise UsageError(f"interlace run: {cluster.source}: rank {r.rank}'s variant "
                             f"{r.variant!r} is {exe}, which does not exist")
        out[r.rank] = exe
    return out


def _read_manifest(d: str) -> tuple[dict[str, str], dict[str, str], str]:
    """rank -> variant name, variant name -> C file, and the file they came
    from: ranks.json (written by interlace run), else report.json (written by
    `interlace transpile --emit DIR --report DIR/report.json`)."""
    for name in (MANIFEST, REPORT):
        path = os.path.join(d, name)
        if not os.path.exists(path):
            continue
        try:
            with open(path, encoding="utf-8") as f:
                obj = json.load(f)
            if name == MANIFEST:
                if not isinstance(obj, dict):
                    raise ValueError("not an object")
                return {str(k): v for k, v in obj.items()}, {}, path
            ranks, sources = {}, {}
            for v in obj["variants"]:
                for r in v["ranks"]:
                    ranks[str(r)] = v["name"]
                if v.get("path"):
                    sources[v["name"]] = v["path"]
            return ranks, sources, path
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise UsageError(f"interlace run: {path}: not a rank-to-variant map ({e})") from None
    return {}, {}, os.path.join(d, MANIFEST)


def _variant_source(d: str, name: str, sources: dict[str, str]) -> str | None:
    cands = [os.path.join(d, name + ".c")]
    if name in sources:  # the report's path, or the same file name in d (moved directory)
        cands += [sources[name], os.path.join(d, os.path.basename(sources[name]))]
    cands += sorted(glob.glob(os.path.join(glob.escape(d), f"*.{glob.escape(name)}.c")))
    return next((c for c in cands if os.path.isfile(c)), None)


def _from_directory(opts: Options, cluster: Cluster, d: str) -> list[str | None]:
    """A directory of variants: executables (or C files, built here) named
    after their variant; ranks.json or report.json maps the ranks the
    description names no variant for."""
    manifest, sources, mpath = _read_manifest(d)
    out: list[str | None] = [None] * cluster.size
    built: dict[str, str] = {}
    for r in cluster.ranks:
        if r.external:
            continue
        name = r.variant or manifest.get(str(r.rank))
        if not isinstance(name, str) or not name:
            raise UsageError(f"interlace run: rank {r.rank} has no variant: {cluster.source} names "
                             f"none and {mpath} {'lists none' if manifest else 'does not exist'}")
        if name not in built:
            exe = os.path.join(d, name)
            src = _variant_source(d, name, sources)
            if os.path.isfile(exe) and os.access(exe, os.X_OK):
                built[name] = exe
            elif src is not None:
                built[name] = str(build_variant(opts, name, Path(src).read_text(), d))
            else:
                raise UsageError(f"interlace run: rank {r.rank}'s variant {name!r}: neither "
                                 f"{exe} (built) nor {exe}.c exists")
        out[r.rank] = built[name]
    return out


def _transpiled(opts: Options, cluster: Cluster, source: str) -> list[str | None]:
    try:
        from .transpile import TranspileError, transpile, variant_for_rank
    except ImportError as e:
        raise BuildError(f"interlace run: {source} is C source, but the transpiler "
                         f"(interlace.transpile) is not available: {e}") from None
    try:
        report = transpile(source, cluster, include_dirs=tuple(opts.include_dirs),
                           defines=tuple(opts.defines))
    except TranspileError as e:
        raise BuildError(f"interlace run: cannot transpile {e}") from None
    out: list[str | None] = [None] * cluster.size
    exes: dict[str, Path] = {}
    srcdir = os.path.dirname(os.path.abspath(source))
    for r in cluster.ranks:
        if r.external:
            continue
        v = variant_for_rank(report, r.rank)
        if v.name not in exes:
            exes[v.name] = build_variant(opts, v.name, v.c_source, srcdir)
            if opts.verbose:
                _say(f"variant {v.name} ({v.kind}) for ranks {_spans(list(v.ranks))}: "
                     f"{exes[v.name]}")
        out[r.rank] = str(exes[v.name])
    _write_job_dir(opts, cluster, out, exes)
    return out


# -- building variants -----------------------------------------------------------

def _compile_args(opts: Options, srcdir: str) -> list[str]:
    flags = shlex.split(opts.cflags) if opts.cflags is not None else list(DEFAULT_CFLAGS)
    return [*flags, *(f"-D{d}" for d in opts.defines),
            *(f"-I{os.path.abspath(i)}" for i in opts.include_dirs), f"-I{srcdir}"]


def _cc(args: list[str]) -> list[str]:
    from . import _paths, wrappers
    try:
        return wrappers.command("cc", args)
    except (_paths.NotInstalledError, wrappers.BadCompilerError) as e:
        raise BuildError(f"interlace run: cannot build with interlace-cc: {e}") from None


def _run_cc(cmd: list[str], what: str) -> str:
    try:
        r = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        raise BuildError(f"interlace run: cannot run the compiler {cmd[0]!r} for {what}: "
                         f"{e.strerror or e}") from None
    if r.returncode != 0:
        raise BuildError(f"interlace run: building {what} failed (status {r.returncode}):\n"
                         f"  {' '.join(shlex.quote(c) for c in cmd)}\n{r.stderr.rstrip()}")
    return r.stdout


def build_variant(opts: Options, name: str, c_source: str, srcdir: str) -> Path:
    """Builds one variant unless the cache has it. The key is the hash of the
    preprocessed source (so included headers count) and of the compile
    command, so any change of either rebuilds."""
    root = Path(opts.build_dir) if opts.build_dir else default_build_dir()
    root.mkdir(parents=True, exist_ok=True)
    args = _compile_args(opts, srcdir)
    with tempfile.TemporaryDirectory(prefix="tmp-", dir=root) as tmp:
        src = Path(tmp) / f"{name}.c"
        src.write_text(c_source)
        pre = _run_cc(_cc(["-E", "-P", *args, str(src)]), f"variant {name!r}")
        h = hashlib.sha256()
        h.update(pre.encode())
        h.update("\0".join(_cc([*args, "-lm"])).encode())
        obj = root / h.hexdigest()[:24]
        exe = obj / name
        if exe.is_file():
            return exe
        _run_cc(_cc([*args, str(src), "-o", str(Path(tmp) / name), "-lm"]), f"variant {name!r}")
        try:
            os.rename(tmp, obj)
        except OSError:
            if not exe.is_file():  # not a concurrent build of the same key
                raise BuildError(f"interlace run: cannot store the build of {name!r} in {obj}")
        else:
            os.mkdir(tmp)  # TemporaryDirectory removes it on exit
    return exe


def _write_job_dir(opts: Options, cluster: Cluster, exes: list[str | None],
                   variants: dict[str, Path]) -> None:
    """A directory of this job's variants and ranks.json, so that the built
    job can be run again without transpiling: interlace run --cluster FILE DIR."""
    root = Path(opts.build_dir) if opts.build_dir else default_build_dir()
    manifest = {str(r): Path(e).name for r, e in enumerate(exes) if e}
    key = hashlib.sha256(json.dumps([manifest, sorted(str(p) for p in variants.values())])
                         .encode()).hexdigest()[:24]
    d = root / f"job-{key}"
    if not (d / MANIFEST).exists():
        d.mkdir(parents=True, exist_ok=True)
        for name, exe in variants.items():
            link = d / name
            if not link.exists():
                os.symlink(exe, link)
        (d / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    if opts.verbose:
        _say(f"built variants of this job: {d} (ranks.json maps ranks to them)")


# -- external (ZRLMPI) ranks -----------------------------------------------------

def _local_address(cluster: Cluster) -> str:
    """The address the other nodes reach this host at: the one it would use
    to reach the first external node (a UDP connect sends nothing)."""
    for r in cluster.ranks:
        if r.external and r.host:
            try:
                with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                    s.connect((socket.gethostbyname(r.host), 9))
                    return s.getsockname()[0]
            except OSError:
                break
    return "127.0.0.1"


def peer_addresses(cluster: Cluster) -> tuple[list[str], list[int]]:
    """Every rank's address and UDP port in rank order. Ports follow ZRLMPI's
    convention (2718 plus the earlier ranks at the same address) unless the
    description gives one, because a ZRLMPI node can only derive them so."""
    local = _local_address(cluster)
    addrs = [r.host or local for r in cluster.ranks]
    ports = []
    for r in cluster.ranks:
        conv = ZRLMPI_BASE_PORT + sum(1 for a in addrs[:r.rank] if a == addrs[r.rank])
        ports.append(r.port if r.port is not None else conv)
        if r.port is not None and r.port != conv and cluster.external_ranks:
            _say(f"warning: rank {r.rank} uses UDP port {r.port}, but ZRLMPI nodes derive "
                 f"port {conv} for it from their command line; they will not reach it")
    return addrs, ports


def explain_external(cluster: Cluster, addrs: list[str], ports: list[int],
                     args: list[str]) -> None:
    """ZRLMPI's argv convention: <prog> udp <own address> <cluster size>
    <own rank> <address of every other rank in rank order> [app args]."""
    for rank in cluster.external_ranks:
        others = [a for i, a in enumerate(addrs) if i != rank]
        cmd = ["<zrlmpi-program>", "udp", addrs[rank], str(cluster.size), str(rank), *others,
               *args]
        _say(f"rank {rank} is an external ZRLMPI node ({cluster.ranks[rank].kind}, "
             f"{addrs[rank]}:{ports[rank]}); it is not started here. Start it there as:")
        _say("  " + " ".join(shlex.quote(c) if not c.startswith("<") else c for c in cmd))
