"""What a transpilation produced: the variants and the report."""
from __future__ import annotations

import pathlib
from dataclasses import dataclass, field


def ranks_text(ranks, sep: str = ",") -> str:
    """[1, 2, 3, 5] -> '1-3,5' (with sep=", ": '1-3, 5')."""
    out, ranks = [], sorted(ranks)
    i = 0
    while i < len(ranks):
        j = i
        while j + 1 < len(ranks) and ranks[j + 1] == ranks[j] + 1:
            j += 1
        out.append(str(ranks[i]) if i == j else f"{ranks[i]}-{ranks[j]}")
        i = j + 1
    return sep.join(out)


@dataclass
class Variant:
    name: str
    ranks: list[int]
    kind: str  # "cpu" or "accelerator"
    c_source: str
    path: pathlib.Path | None = None  # where --emit wrote it


@dataclass
class Report:
    variants: list[Variant]
    calls_expanded: dict[str, int]  # collective call sites of the source, by name
    lines_removed: int              # source lines dropped, summed over the variants
    warnings: list[str]
    source: str = ""
    size: int = 0
    tree: bool = False
    tree_groups: dict = field(default_factory=dict)  # root -> [[replicator, members...]]
    lines_removed_by_variant: dict = field(default_factory=dict)

    def text(self) -> str:
        out = [f"interlace transpile: {self.source} for a {self.size}-rank cluster, "
               f"tree optimisation {'on' if self.tree else 'off'}"]
        out.append(f"variants ({len(self.variants)}):")
        for v in self.variants:
            where = f" -> {v.path}" if v.path else ""
            out.append(f"  {v.name}: ranks {ranks_text(v.ranks)} ({v.kind}), "
                       f"{self.lines_removed_by_variant.get(v.name, 0)} source lines removed"
                       f"{where}")
        calls = ", ".join(f"{k} x{n}" for k, n in sorted(self.calls_expanded.items()))
        out.append(f"calls expanded: {calls or 'none'}")
        for root, groups in sorted(self.tree_groups.items()):
            shown = "; ".join(f"replicator {g[0]} -> {ranks_text(g[1:])}" for g in groups)
            out.append(f"tree from root {root}: {shown or 'no groups (plain sends)'}")
        out.append(f"lines removed: {self.lines_removed} (all variants)")
        for w in self.warnings:
            out.append(f"warning: {w}")
        return "\n".join(out) + "\n"

    def to_json(self) -> dict:
        return {
            "source": self.source,
            "size": self.size,
            "tree": self.tree,
            "variants": [{"name": v.name, "ranks": list(v.ranks), "kind": v.kind,
                          "path": str(v.path) if v.path else None,
                          "lines_removed": self.lines_removed_by_variant.get(v.name, 0)}
                         for v in self.variants],
            "calls_expanded": dict(self.calls_expanded),
            "lines_removed": self.lines_removed,
            "tree_groups": {str(k): [list(g) for g in v] for k, v in self.tree_groups.items()},
            "warnings": list(self.warnings),
        }


def variant_for_rank(report: Report, rank: int) -> Variant:
    for v in report.variants:
        if rank in v.ranks:
            return v
    raise ValueError(f"rank {rank} is not in any variant of {report.source or 'the report'} "
                     f"(ranks 0..{report.size - 1})")
