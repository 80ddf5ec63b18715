"""Rank binding for `interlace run` (docs/launcher.md, "Binding").

The launcher maps its local ranks onto the host's topology (hwloc, through
interlace._core.topology) and gives each rank a cpuset; _rank_exec.py applies
it with sched_setaffinity before exec, so the program and every thread it
starts (progress thread, task workers, OpenMP) inherit it, whatever language
the program is in and whether or not it ever initialises interlace.

`--map-by` picks where rank i goes: `core`/`slot` pack ranks onto consecutive
cores, `socket`/`numa` deal them round-robin over packages/NUMA nodes, and
`hwthread` packs them onto hardware threads. `--bind-to` picks how much around
that place the rank may run on: its hardware thread, core, package or NUMA
node, or everything (`none`).

Only CPUs in the launcher's own affinity mask are used: a launcher started
under `taskset` or in a cpuset cgroup shares out what it was given.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

BIND_LEVELS = ("none", "hwthread", "core", "socket", "numa")
MAP_LEVELS = ("slot", "hwthread", "core", "socket", "numa")
# Open MPI 5 spells socket "package"; both are accepted.
_ALIASES = {"package": "socket"}
DEFAULT_BIND = "core"
DEFAULT_MAP = "core"


def _level(flag: str, known: tuple[str, ...]):
    def parse(text: str) -> str:
        value = _ALIASES.get(text, text)
        if value not in known:
            raise ValueError(f"unknown {flag} value {text!r} (known: {', '.join(known)}, package)")
        return value
    return parse


parse_bind_to = _level("--bind-to", BIND_LEVELS)
parse_map_by = _level("--map-by", MAP_LEVELS)


@dataclass
class Topology:
    """Objects as lists of PU OS indices, in hwloc's logical order."""
    pus: list[list[int]]
    cores: list[list[int]]
    packages: list[list[int]]
    numa: list[list[int]]

    def restricted(self, allowed: set[int]) -> "Topology":
        def keep(objs):
            out = [[p for p in o if p in allowed] for o in objs]
            return [o for o in out if o]
        return Topology(keep(self.pus), keep(self.cores), keep(self.packages), keep(self.numa))

    def all_pus(self) -> list[int]:
        return sorted(p for o in self.pus for p in o)


@dataclass
class Binding:
    cpus: list[int] | None   # None: not bound (the launcher's whole mask)
    level: str               # what it is bound to: none, hwthread, core, socket, numa
    why: str = ""            # for unbound ranks: the reason the report gives


def load_topology() -> tuple[Topology | None, str]:
    """This host's topology within the launcher's affinity mask, or None and why."""
    try:
        from . import _core
        if not _core.topology_available():
            return None, "this build has no hwloc (libhwloc-dev missing when it was built)"
        raw = _core.topology()
    except ImportError:
        return None, "the native extension interlace._core is not available"
    except RuntimeError as e:
        return None, str(e)
    topo = Topology([list(o) for o in raw["pus"]], [list(o) for o in raw["cores"]],
                    [list(o) for o in raw["packages"]], [list(o) for o in raw["numa"]])
    # Some virtual machines report no cores or packages; each PU then stands for one.
    if not topo.cores:
        topo.cores = [list(o) for o in topo.pus]
    whole = topo.all_pus()
    if not topo.packages:
        topo.packages = [whole]
    if not topo.numa:
        topo.numa = [whole]
    try:
        allowed = set(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        allowed = set(whole)
    topo = topo.restricted(allowed)
    if not topo.pus:
        return None, "none of the launcher's CPUs appear in the topology"
    return topo, ""


def _containing(objs: list[list[int]], pu: int) -> list[int]:
    for o in objs:
        if pu in o:
            return o
    return [pu]


def _places(topo: Topology, n: int, map_by: str) -> tuple[list[list[int]], int]:
    """The place (a core's or a PU's CPUs) of each of n local ranks, wrapping
    around when there are fewer places than ranks, and the number of places."""
    if map_by == "hwthread":
        slots = topo.pus
        return [slots[i % len(slots)] for i in range(n)], len(slots)
    if map_by in ("core", "slot"):
        slots = topo.cores
        return [slots[i % len(slots)] for i in range(n)], len(slots)
    domains = topo.packages if map_by == "socket" else topo.numa
    # Each domain's cores in order; rank i takes the next core of domain i % D.
    per_domain = [[c for c in topo.cores if c[0] in d] for d in domains]
    per_domain = [cs for cs in per_domain if cs]
    out = []
    for i in range(n):
        cs = per_domain[i % len(per_domain)]
        out.append(cs[(i // len(per_domain)) % len(cs)])
    return out, len(topo.cores)


def plan(topo: Topology | None, why_none: str, n: int, bind_to: str | None,
         map_by: str | None) -> list[Binding]:
    """Bindings of n ranks on one host. bind_to None is the default: core, but
    none when the host is crowded (more ranks than places), since pinning
    several busy ranks to one core serialises them where the scheduler could
    still spread them. An explicit --bind-to on a crowded host wraps around
    (several ranks per core), as asked."""
    explicit = bind_to is not None
    bind_to = bind_to or DEFAULT_BIND
    # Ranks bound to hardware threads fill a core's threads before the next core.
    map_by = map_by or ("hwthread" if bind_to == "hwthread" else DEFAULT_MAP)
    if bind_to == "none":
        return [Binding(None, "none", "--bind-to none")] * n
    if topo is None:
        return [Binding(None, "none", why_none)] * n
    places, count = _places(topo, n, map_by)
    if n > count and not explicit:
        unit = "hardware threads" if map_by == "hwthread" else "cores"
        why = f"crowded: {n} ranks on {count} {unit}; --bind-to core to bind anyway"
        return [Binding(None, "none", why)] * n
    out = []
    for place in places:
        first = place[0]
        if bind_to == "hwthread":
            cpus = [first]
        elif bind_to == "core":
            cpus = _containing(topo.cores, first)
        elif bind_to == "socket":
            cpus = _containing(topo.packages, first)
        else:
            cpus = _containing(topo.numa, first)
        out.append(Binding(sorted(cpus), bind_to))
    return out


def cpulist(cpus: list[int]) -> str:
    """'0-3,6' form, as taskset -c and /sys's cpulist files write it."""
    out, i, cpus = [], 0, sorted(cpus)
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        out.append(str(cpus[i]) if i == j else f"{cpus[i]}-{cpus[j]}")
        i = j + 1
    return ",".join(out)


def mask(topo: Topology, cpus: set[int]) -> str:
    """Open MPI's picture: one [...] per package, cores split by '/', one
    character per hardware thread, B where the rank may run."""
    groups = []
    for pkg in topo.packages:
        cores = [c for c in topo.cores if c[0] in pkg]
        groups.append("[" + "/".join("".join("B" if p in cpus else "." for p in c)
                                     for c in cores) + "]")
    return "".join(groups)


def describe(topo: Topology | None, b: Binding) -> str:
    """The report's words for one rank's binding (after 'rank R ')."""
    if b.cpus is None:
        shown = f": {mask(topo, set(topo.all_pus()))}" if topo else ""
        return f"not bound ({b.why}){shown}"
    if topo is None:  # a binding is only ever planned from a topology
        return f"bound to {b.level}, cpus {cpulist(b.cpus)}"
    what = b.level if b.level != "hwthread" else "hardware thread"
    return f"bound to {what}, cpus {cpulist(b.cpus)}: {mask(topo, set(b.cpus))}"


def topology_lines() -> list[str]:
    """What `interlace info` shows about the host."""
    topo, why = load_topology()
    if topo is None:
        return [f"topology: not available ({why}); `interlace run` does not bind ranks"]
    from . import _core
    return [f"topology ({_core.topology_library()}): {len(topo.packages)} package(s), {len(topo.numa)} NUMA node(s), "
            f"{len(topo.cores)} core(s), {len(topo.pus)} hardware thread(s) usable "
            f"(cpus {cpulist(topo.all_pus())})",
            f"  map: {mask(topo, set(topo.all_pus()))} (one [...] per package, cores split by /)"]
