"""interlace.shmem teams and collectives. A team is a communicator: the world team
is a duplicate of interlace's world, split_strided and split_2d split it (as the
OpenSHMEM C layer does), and the collectives on symmetric arrays run on
interlace's collective engine (Comm.Bcast, Allgather(v), Alltoall, Allreduce)."""
from __future__ import annotations

import enum
import operator
import socket
from typing import Any

import numpy as np

from . import _shmem_state as _st
from .coll import BAND, BOR, BXOR, IN_PLACE, MAX, MIN, PROD, SUM
from .comm import UNDEFINED, Comm
from .errors import ArgumentError


class OP(enum.Enum):
    """Reductions of shmem.reduce (strings such as "sum" are accepted too)."""
    AND = "and"
    OR = "or"
    XOR = "xor"
    MAX = "max"
    MIN = "min"
    SUM = "sum"
    PROD = "prod"


_OPS = {OP.AND: BAND, OP.OR: BOR, OP.XOR: BXOR, OP.MAX: MAX, OP.MIN: MIN, OP.SUM: SUM, OP.PROD: PROD}


class Team:
    """A set of PEs with its own numbering (0..n_pes()-1). Team-relative PE numbers
    are for the team's collectives and translate_pe; put/get/atomics take world PEs
    (translate with ``team.translate_pe(pe)``). A PE outside a split gets
    TEAM_INVALID (falsy; my_pe() and n_pes() are -1)."""

    def __init__(self, comm: Comm | None = None, name: str = ""):
        self._comm: Comm | None = None
        self._world_pes: list[int] = []
        self._index: dict[int, int] = {}
        self._name = name
        if comm is not None:
            self._bind(comm)

    def _bind(self, comm: Comm) -> None:
        self._comm = comm
        self._world_pes = [comm.world_rank_of(i) for i in range(comm.size)]
        self._index = {w: i for i, w in enumerate(self._world_pes)}

    def __bool__(self) -> bool:
        return self._comm is not None

    def __repr__(self) -> str:
        if self._comm is None:
            return f"<shmem.Team {self._name or 'invalid'}>"
        return f"<shmem.Team {self._name + ' ' if self._name else ''}PE {self.my_pe()} of {self.n_pes()}>"

    def _get_comm(self, what: str) -> Comm:
        if self._comm is None:
            if self._name in ("TEAM_WORLD", "TEAM_SHARED"):
                _st.p(what)  # not initialized / finalized
            raise ArgumentError(f"shmem.{what}: the team is invalid (TEAM_INVALID or destroyed)")
        if _st.finalized or _st.pgas is None:
            _st.p(what)  # FinalizedError naming the finalize that was called
        return self._comm

    @property
    def comm(self) -> Comm:
        """The team's communicator (interlace.Comm), for any interlace collective."""
        return self._get_comm("Team.comm")

    def my_pe(self) -> int:
        return -1 if self._comm is None else self._comm.rank

    def n_pes(self) -> int:
        return -1 if self._comm is None else self._comm.size

    def translate_pe(self, pe: int, team: Team | None = None) -> int:
        """The number in `team` (default TEAM_WORLD) of this team's PE `pe`, or -1."""
        dest = TEAM_WORLD if team is None else team
        pe = operator.index(pe)
        if not self or not dest or not 0 <= pe < len(self._world_pes):
            return -1
        return dest._index.get(self._world_pes[pe], -1)

    def split_strided(self, start: int, stride: int, size: int, config: Any = None,
                      config_mask: int = 0) -> Team:
        """Collective over this team: the PEs start, start+stride, ... (size of them)
        form a new team, numbered in that order; the others get TEAM_INVALID."""
        comm = self._get_comm("Team.split_strided")
        start, stride, size = operator.index(start), operator.index(stride), operator.index(size)
        n = comm.size
        last = start + (size - 1) * stride
        if size < 1 or start < 0 or start >= n or (size > 1 and (stride < 1 or last >= n)):
            raise ArgumentError(f"shmem.Team.split_strided: start {start}, stride {stride}, size {size} "
                                f"do not lie in a team of {n} PEs (0-{n - 1})")
        off = comm.rank - start
        inside = off >= 0 and (off == 0 or (stride > 0 and off % stride == 0 and off // stride < size))
        sub = comm.Split(0 if inside else UNDEFINED, off // stride if inside and stride else 0)
        return Team(sub) if sub else TEAM_INVALID

    def split_2d(self, xrange: int, xaxis_config: Any = None, xaxis_mask: int = 0,
                 yaxis_config: Any = None, yaxis_mask: int = 0) -> tuple[Team, Team]:
        """Collective: this team as a grid of rows of `xrange` PEs; returns the row
        (x) team and the column (y) team of the calling PE."""
        comm = self._get_comm("Team.split_2d")
        xrange = operator.index(xrange)
        if xrange < 1:
            raise ArgumentError(f"shmem.Team.split_2d: xrange {xrange} is not positive")
        xrange = min(xrange, comm.size)
        me = comm.rank
        return Team(comm.Split(me // xrange, me % xrange)), Team(comm.Split(me % xrange, me // xrange))

    def sync(self) -> None:
        """A barrier over the team (without completing outstanding operations)."""
        self._get_comm("Team.sync").Barrier()

    def destroy(self) -> None:
        """Collective over the team; the predefined teams cannot be destroyed."""
        if self._name:
            raise ArgumentError(f"shmem.Team.destroy: {self._name} cannot be destroyed")
        if self._comm is not None:
            self._comm.Free()
            self._comm = None


TEAM_WORLD = Team(name="TEAM_WORLD")
TEAM_SHARED = Team(name="TEAM_SHARED")  # the PEs of this host
TEAM_INVALID = Team(name="TEAM_INVALID")


def _init_teams(world: Comm) -> None:
    """Called by shmem.init() (collective): binds the predefined teams."""
    TEAM_WORLD._bind(world)
    hosts = world.allgather(socket.gethostname())
    TEAM_SHARED._bind(world.Split(sorted(set(hosts)).index(hosts[world.rank]), world.rank))


def sync(team: Team | None = None) -> None:
    (TEAM_WORLD if team is None else team).sync()


def _args(team: Team | None, target: Any, source: Any, what: str) -> tuple[Comm, np.ndarray, np.ndarray]:
    comm = (TEAM_WORLD if team is None else team)._get_comm(what)
    t = _st.flat(_st.ndarray(target, what), what)
    s = _st.flat(_st.ndarray(source, what), what)
    _st.same_dtype(t, s, what)
    _st.symmetric(t, "target", what)
    _st.symmetric(s, "source", what)
    return comm, t, s


def broadcast(target: Any, source: Any, root: int, size: int | None = None,
              team: Team | None = None) -> None:
    """target[:size] = root's source[:size] on every PE of the team (root included)."""
    comm, t, s = _args(team, target, source, "broadcast")
    root = operator.index(root)
    if not 0 <= root < comm.size:
        raise ArgumentError(f"shmem.broadcast: root {root} is out of range for a team of {comm.size} PEs")
    n = _st.count(size, s.size, "broadcast")
    tv = _st.fits(t, n, "target", "broadcast")
    if comm.rank == root:
        tv[...] = _st.fits(s, n, "source", "broadcast")
    comm.Bcast(tv, root)


def collect(target: Any, source: Any, size: int | None = None, team: Team | None = None) -> None:
    """Concatenates every PE's source[:size] (sizes may differ) into target, in team order."""
    comm, t, s = _args(team, target, source, "collect")
    n = _st.count(size, s.size, "collect")
    counts = comm.allgather(n)
    comm.Allgatherv(_st.fits(s, n, "source", "collect"),
                    [_st.fits(t, sum(counts), "target", "collect"), counts])


def fcollect(target: Any, source: Any, size: int | None = None, team: Team | None = None) -> None:
    """Concatenates every PE's source[:size] (the same size everywhere) into target."""
    comm, t, s = _args(team, target, source, "fcollect")
    n = _st.count(size, s.size, "fcollect")
    comm.Allgather(_st.fits(s, n, "source", "fcollect"), _st.fits(t, n * comm.size, "target", "fcollect"))


def alltoall(target: Any, source: Any, size: int | None = None, team: Team | None = None) -> None:
    """Block j of `size` elements of source goes to PE j, landing as its block i (this PE)."""
    comm, t, s = _args(team, target, source, "alltoall")
    n = _st.count(size, s.size // comm.size, "alltoall")
    total = n * comm.size
    comm.Alltoall(_st.fits(s, total, "source", "alltoall"), _st.fits(t, total, "target", "alltoall"))


def _op(op: Any) -> Any:
    if isinstance(op, OP):
        return _OPS[op]
    if isinstance(op, str):
        try:
            return _OPS[OP(op.lower())]
        except ValueError:
            raise ValueError(f"shmem.reduce: unknown op {op!r} (one of "
                             f"{', '.join(o.value for o in OP)})") from None
    return op  # an interlace op (SUM, ...) as it is


def reduce(target: Any, source: Any, op: Any = OP.SUM, size: int | None = None,
           team: Team | None = None) -> None:
    """target[:size] = source[:size] combined elementwise over the team with `op`
    (OP.SUM ... or "sum"); target may be source."""
    comm, t, s = _args(team, target, source, "reduce")
    n = _st.count(size, s.size, "reduce")
    tv, sv = _st.fits(t, n, "target", "reduce"), _st.fits(s, n, "source", "reduce")
    same = tv.__array_interface__["data"][0] == sv.__array_interface__["data"][0]
    if not same and np.shares_memory(tv, sv):
        raise ValueError("shmem.reduce: target and source overlap without being the same array")
    comm.Allreduce(IN_PLACE if same else sv, tv, _op(op))
