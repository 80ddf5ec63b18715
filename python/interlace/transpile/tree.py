"""ZRLMPI's tree optimisation of scatter and gather: which ranks replicate.

ZRLMPIcc groups the accelerator ranks, in rank order, four to a group, and
makes the first rank of each group its replicator: the root sends one message
per group (the group's chunks, contiguous in its buffer) to the replicator,
which keeps its own chunk and forwards the others (gather: the reverse). Its
reason: an FPGA forwards with lower latency than a CPU, and the root's
handshakes drop from size-1 to the number of groups. Fewer than two
accelerator ranks: no tree.

Here: the candidates are the non-root accelerator ranks, or every non-root
rank when the cluster has no accelerator (ZRLMPI measured the tree on CPUs
too); a group is cut where the candidates stop being consecutive, because a
group's chunks must be one contiguous piece of the root's buffer; a group of
one is a plain send. The group size is config "tree_group_size" (default 4).
"""
from __future__ import annotations

from dataclasses import dataclass

DEFAULT_GROUP_SIZE = 4


@dataclass(frozen=True)
class TreePlan:
    root: int
    groups: tuple[tuple[int, ...], ...]  # each: replicator first, then its members
    direct: tuple[int, ...]              # non-root ranks the root serves itself

    def group_of(self, rank: int):
        for g in self.groups:
            if rank in g:
                return g
        return None


def plan(size: int, accelerators, root: int, group_size: int = DEFAULT_GROUP_SIZE) -> TreePlan:
    accelerators = sorted(accelerators)
    cands = [r for r in accelerators if r != root] if accelerators else \
        [r for r in range(size) if r != root]
    groups: list[tuple[int, ...]] = []
    if len(cands) >= 2:
        run: list[int] = []
        for r in cands + [None]:
            if r is not None and (not run or r == run[-1] + 1) and len(run) < group_size:
                run.append(r)
                continue
            if len(run) >= 2:
                groups.append(tuple(run))
            run = [r] if r is not None else []
    in_group = {r for g in groups for r in g}
    direct = tuple(r for r in range(size) if r != root and r not in in_group)
    return TreePlan(root, tuple(groups), direct)
