"""Cluster descriptions (docs/cluster.md): which ranks of a job are CPUs and
which are accelerators, where each runs, and which program variant it runs.

Two forms are accepted. ZRLMPI's own (its ZRLMPIcc reads exactly this):

    {"nodes": {"cpu": [0], "fpga": [1, 2, 3]}, "config": {"com_opt": 3, "mem_opt": 0}}

and interlace's superset, which adds top-level "fabric" and "hosts" and a
"ranks" object of per-rank settings:

    {"nodes": {"cpu": [0], "fpga": ["1-7"]},
     "config": {"tree": true},
     "fabric": "udp",
     "hosts": {"0": "node0", "1-7": "node1"},
     "ranks": {"3": {"external": "zrlmpi", "host": "10.0.0.3", "port": 2718},
               "4-7": {"variant": "accel"}}}

Rank lists hold integers or "A-B" range strings (ZRLMPIcc's TODO, done here);
"hosts" is a list with one entry per rank or an object keyed by rank or range.

The "config" object is kept verbatim. What ZRLMPI does with it, as far as its
public code shows: "optimization" >= 1 turns on the tree ("replicator")
transformation of scatter and gather (its examples/cluster_jacobi.json).
"com_opt" and "mem_opt" appear in the issue's example but in none of the
ZRLMPIcc sources read (zrlmpi_cc1.py, lib/template_generator.py); by their
names they are communication and memory knobs of its FPGA code generator,
which has no counterpart for processes: interlace keeps and ignores them.
Cluster.tree reads "tree" (interlace's spelling) or "optimization".
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

KINDS = ("cpu", "fpga", "gpu")
EXTERNALS = ("zrlmpi",)
ZRLMPI_BASE_PORT = 2718  # ZRLMPI's port convention: the first rank on a host listens here

_TOP_KEYS = ("nodes", "config", "fabric", "hosts", "ranks", "comment")
_RANK_KEYS = ("host", "fabric", "variant", "external", "port")
_HOST_RE = re.compile(r"^[A-Za-z0-9_]([A-Za-z0-9._:-]*[A-Za-z0-9_])?$")
_NAME_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.+-]*$")
_RANGE_RE = re.compile(r"^\s*(\d+)\s*-\s*(\d+)\s*$")
# A description is written by hand; more ranks than this is a typo in a range.
MAX_RANKS = 1 << 16


class ClusterError(ValueError):
    """A bad cluster description; the message names the file and the bad key or value."""


@dataclass(frozen=True)
class RankSpec:
    rank: int
    kind: str                   # "cpu", "fpga", "gpu"
    host: str | None = None     # None: this host
    fabric: str | None = None   # None: the job's fabric
    variant: str | None = None  # None: the transpiler decides
    external: str | None = None  # None: launched by interlace; "zrlmpi": started elsewhere
    port: int | None = None     # None: ZRLMPI's convention (Cluster.udp_port)

    @property
    def accelerator(self) -> bool:
        return self.kind != "cpu"


@dataclass(frozen=True)
class Cluster:
    ranks: tuple[RankSpec, ...]  # index == rank
    config: dict
    fabric: str | None = None
    source: str = "<cluster>"

    @property
    def size(self) -> int:
        return len(self.ranks)

    @property
    def cpu_ranks(self) -> list[int]:
        return [r.rank for r in self.ranks if not r.accelerator]

    @property
    def accelerator_ranks(self) -> list[int]:
        return [r.rank for r in self.ranks if r.accelerator]

    @property
    def external_ranks(self) -> list[int]:
        return [r.rank for r in self.ranks if r.external]

    @property
    def tree(self) -> bool:
        if "tree" in self.config:
            return bool(self.config["tree"])
        return self.config.get("optimization", 0) >= 1

    def udp_port(self, rank: int) -> int:
        """The rank's UDP port: its own, else ZRLMPI's convention (the base
        port plus the number of earlier ranks on the same host)."""
        spec = self.ranks[rank]
        if spec.port is not None:
            return spec.port
        return ZRLMPI_BASE_PORT + sum(1 for r in self.ranks[:rank] if r.host == spec.host)

    def kinds_text(self) -> str:
        """'0: cpu, 1-3: fpga' for messages and the launcher's summary."""
        out, start = [], 0
        for i in range(1, self.size + 1):
            if i == self.size or self.ranks[i].kind != self.ranks[start].kind:
                span = str(start) if i - 1 == start else f"{start}-{i - 1}"
                out.append(f"{span}: {self.ranks[start].kind}")
                start = i
        return ", ".join(out)


def _no_duplicate_keys(pairs):
    seen = {}
    for k, v in pairs:
        if k in seen:
            raise _DuplicateKey(k)
        seen[k] = v
    return seen


class _DuplicateKey(Exception):
    pass


def load_cluster(path) -> Cluster:
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise ClusterError(f"{source}: cannot read the cluster description: "
                           f"{e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise ClusterError(f"{source}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    try:
        obj = json.loads(text, object_pairs_hook=_no_duplicate_keys)
    except json.JSONDecodeError as e:
        raise ClusterError(f"{source}:{e.lineno}:{e.colno}: invalid JSON: {e.msg}") from None
    except _DuplicateKey as e:
        raise ClusterError(f"{source}: key {e.args[0]!r} appears twice in one object") from None
    return parse_cluster(obj, source)


def _ranks_of(item, source: str, where: str) -> list[int]:
    """An integer rank or an 'A-B' range (JSON object keys are strings, so
    digits in a string count too)."""
    if isinstance(item, bool) or isinstance(item, float):
        raise ClusterError(f"{source}: {where}: rank {item!r} is not an integer")
    if isinstance(item, int):
        if item < 0:
            raise ClusterError(f"{source}: {where}: rank {item} is negative")
        return [item]
    if isinstance(item, str):
        s = item.strip()
        if s.isdigit():
            return [int(s)]
        m = _RANGE_RE.match(item)
        if m:
            a, b = int(m.group(1)), int(m.group(2))
            if a > b:
                raise ClusterError(f"{source}: {where}: range {item!r} runs backwards")
            if b >= MAX_RANKS:
                raise ClusterError(f"{source}: {where}: range {item!r} goes past "
                                   f"{MAX_RANKS - 1}, the largest rank allowed")
            return list(range(a, b + 1))
    raise ClusterError(f"{source}: {where}: rank {item!r} is not an integer "
                       "(or an 'A-B' range)")


def _string(value, source: str, where: str, pattern=_NAME_RE) -> str:
    if not isinstance(value, str) or not pattern.match(value):
        raise ClusterError(f"{source}: {where}: {value!r} is not a valid name")
    return value


def _check_keys(obj: dict, known, source: str, where: str) -> None:
    for k in obj:
        if k not in known:
            raise ClusterError(f"{source}: {where}unknown key {k!r} "
                               f"(known: {', '.join(known)})")


def parse_cluster(obj: dict, source: str = "<cluster>") -> Cluster:
    if not isinstance(obj, dict):
        raise ClusterError(f"{source}: a cluster description is a JSON object, "
                           f"not {type(obj).__name__}")
    _check_keys(obj, _TOP_KEYS, source, "")
    kind_of = _parse_nodes(obj.get("nodes"), source)
    size = len(kind_of)
    config = obj.get("config", {})
    if not isinstance(config, dict):
        raise ClusterError(f"{source}: \"config\" must be an object, got {config!r}")
    if "tree" in config and not isinstance(config["tree"], bool):
        raise ClusterError(f"{source}: config \"tree\" must be true or false, "
                           f"got {config['tree']!r}")
    for k in ("optimization", "com_opt", "mem_opt"):
        if k in config and (isinstance(config[k], bool) or not isinstance(config[k], int)):
            raise ClusterError(f"{source}: config {k!r} must be an integer, got {config[k]!r}")
    fabric = obj.get("fabric")
    if fabric is not None:
        fabric = _string(fabric, source, "\"fabric\"")

    per_rank: list[dict] = [{} for _ in range(size)]
    _parse_hosts(obj.get("hosts"), per_rank, source)
    _parse_rank_settings(obj.get("ranks"), per_rank, source)

    specs = []
    for r in range(size):
        s = per_rank[r]
        if s.get("external") and not s.get("host"):
            raise ClusterError(f"{source}: rank {r} is external ({s['external']!r}) but has no "
                               "host: an external node must be reachable at a known address")
        specs.append(RankSpec(rank=r, kind=kind_of[r], **s))
    cluster = Cluster(ranks=tuple(specs), config=dict(config), fabric=fabric, source=source)
    _check_ports(cluster)
    return cluster


def _parse_nodes(nodes, source: str) -> list[str]:
    if nodes is None:
        raise ClusterError(f"{source}: no \"nodes\" object (e.g. "
                           "{\"nodes\": {\"cpu\": [0], \"fpga\": [1, 2, 3]}})")
    if not isinstance(nodes, dict) or not nodes:
        raise ClusterError(f"{source}: \"nodes\" must be a non-empty object mapping a node "
                           f"kind ({', '.join(KINDS)}) to a list of ranks, got {nodes!r}")
    owner: dict[int, str] = {}
    for kind, items in nodes.items():
        if kind not in KINDS:
            raise ClusterError(f"{source}: unknown node kind {kind!r} "
                               f"(known: {', '.join(KINDS)})")
        if not isinstance(items, list):
            items = [items]  # one rank or one range without brackets
        for item in items:
            for r in _ranks_of(item, source, f"nodes {kind!r}"):
                if r in owner:
                    raise ClusterError(f"{source}: rank {r} is listed twice: as {owner[r]!r} "
                                       f"and as {kind!r}")
                owner[r] = kind
    if not owner:
        raise ClusterError(f"{source}: \"nodes\" lists no rank")
    size = max(owner) + 1
    missing = [r for r in range(size) if r not in owner]
    if missing:
        shown = ", ".join(map(str, missing[:8])) + (", ..." if len(missing) > 8 else "")
        raise ClusterError(f"{source}: rank {missing[0]} is missing: ranks must be 0..{size - 1} "
                           f"with none left out (missing: {shown})")
    return [owner[r] for r in range(size)]


def _keyed_ranks(key: str, size: int, source: str, where: str) -> list[int]:
    ranks = _ranks_of(key, source, where)
    for r in ranks:
        if r >= size:
            raise ClusterError(f"{source}: {where}: rank {r} is not in the job "
                               f"(\"nodes\" lists ranks 0..{size - 1})")
    return ranks


def _parse_hosts(hosts, per_rank: list[dict], source: str) -> None:
    if hosts is None:
        return
    size = len(per_rank)
    if isinstance(hosts, list):
        if len(hosts) != size:
            raise ClusterError(f"{source}: \"hosts\" lists {len(hosts)} hosts for {size} ranks "
                               "(a list needs one host per rank; an object maps ranks or "
                               "ranges to hosts)")
        items = [(str(r), h) for r, h in enumerate(hosts)]
    elif isinstance(hosts, dict):
        items = list(hosts.items())
    else:
        raise ClusterError(f"{source}: \"hosts\" must be a list or an object, got {hosts!r}")
    for key, host in items:
        where = f"hosts[{key!r}]"
        host = _string(host, source, where, _HOST_RE)
        for r in _keyed_ranks(key, size, source, where):
            if "host" in per_rank[r]:
                raise ClusterError(f"{source}: {where}: rank {r}'s host is given twice "
                                   f"({per_rank[r]['host']!r} and {host!r})")
            per_rank[r]["host"] = host


def _parse_rank_settings(ranks, per_rank: list[dict], source: str) -> None:
    if ranks is None:
        return
    if not isinstance(ranks, dict):
        raise ClusterError(f"{source}: \"ranks\" must be an object keyed by rank or 'A-B' "
                           f"range, got {ranks!r}")
    size = len(per_rank)
    for key, settings in ranks.items():
        where = f"ranks[{key!r}]"
        targets = _keyed_ranks(key, size, source, where)
        if not isinstance(settings, dict):
            raise ClusterError(f"{source}: {where} must be an object with keys "
                               f"{', '.join(_RANK_KEYS)}, got {settings!r}")
        _check_keys(settings, _RANK_KEYS, source, f"{where}: ")
        parsed: dict[str, str | int] = {}
        for k, v in settings.items():
            if k == "host":
                parsed[k] = _string(v, source, f"{where}.host", _HOST_RE)
            elif k in ("fabric", "variant"):
                parsed[k] = _string(v, source, f"{where}.{k}")
            elif k == "external":
                if v not in EXTERNALS:
                    raise ClusterError(f"{source}: {where}.external: unknown external node "
                                       f"type {v!r} (known: {', '.join(EXTERNALS)})")
                parsed[k] = v
            elif k == "port":
                if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 65535:
                    raise ClusterError(f"{source}: {where}.port: {v!r} is not a UDP port "
                                       "(1-65535)")
                parsed[k] = v
        for r in targets:
            for k, v in parsed.items():
                if k in per_rank[r]:
                    raise ClusterError(f"{source}: {where}: rank {r}'s {k} is given twice "
                                       f"({per_rank[r][k]!r} and {v!r})")
                per_rank[r][k] = v
        if "port" in parsed and len(targets) > 1:
            raise ClusterError(f"{source}: {where}.port: one port for {len(targets)} ranks; "
                               "give ports per rank (or none: ZRLMPI's convention numbers them)")


def _check_ports(cluster: Cluster) -> None:
    if not any(r.port is not None for r in cluster.ranks):
        return
    used: dict[tuple, int] = {}
    for r in cluster.ranks:
        key = (r.host, cluster.udp_port(r.rank))
        if key in used:
            raise ClusterError(f"{cluster.source}: ranks {used[key]} and {r.rank} both use UDP "
                               f"port {key[1]} on host {r.host or '(this host)'}")
        used[key] = r.rank
