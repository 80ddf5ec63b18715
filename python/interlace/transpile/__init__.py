"""`interlace transpile`: specialise an MPI C program per rank of a cluster
(ZRLMPI's ZRLMPIcc, docs/transpile.md).

    report = transpile("prog.c", load_cluster("cluster.json"), emit_dir="out")
    variant_for_rank(report, 3).path   # the C file rank 3 runs

Passes, in order: preprocess (preprocess.py), parse (pycparser), checks
(analysis.py), per variant: fold constants and remove dead code (folding.py),
expand collectives (collectives.py, tree.py), emit (emit.py); the report
(report.py).
"""
from __future__ import annotations

import copy
import re
from pathlib import Path

from pycparser import c_ast, c_parser

from . import analysis, collectives, emit, mpi_calls, tree as tree_mod
from .errors import TranspileError
from .folding import Specialiser as _Specialiser, evaluate as _evaluate, walk as _walk
from .preprocess import is_fake, kept_includes, preprocess
from .report import Report, Variant, ranks_text, variant_for_rank

# Documented, raised and caught as interlace.transpile.TranspileError.
TranspileError.__module__ = __name__

__all__ = ["TranspileError", "Variant", "Report", "transpile", "variant_for_rank"]

_PARSE_ERR_RE = re.compile(r"^(.*?):(\d+)(?::\d+)?:\s*(.*)$", re.S)


def _parse(text: str, file: str) -> c_ast.FileAST:
    parser = c_parser.CParser()
    try:
        return parser.parse(text, file)
    except c_parser.ParseError as e:
        hint = " (pycparser reads C99 without GNU extensions)"
        m = _PARSE_ERR_RE.match(str(e))
        if m:
            raise TranspileError(m.group(1), int(m.group(2)), "syntax", m.group(3) + hint) \
                from None
        # Some of pycparser's messages carry no line: the lexer knows where it stopped.
        lex = getattr(parser, "clex", None)
        line = getattr(lex, "lineno", None) or getattr(lex, "_lineno", None) or 0
        where = getattr(lex, "filename", None) or file
        why = str(e).split(": ", 1)[-1]
        raise TranspileError(where, line, "syntax", why + hint) from None


def _group_size(cluster) -> int:
    g = cluster.config.get("tree_group_size", tree_mod.DEFAULT_GROUP_SIZE)
    if isinstance(g, bool) or not isinstance(g, int) or g < 2:
        raise TranspileError(getattr(cluster, "source", "<cluster>"), 0, "tree_group_size",
                             f"config \"tree_group_size\" must be an integer >= 2, got {g!r}")
    return g


def _replace_collectives(node, ctx: collectives.Context) -> None:
    """Every collective statement under node, replaced by its expansion."""
    def repl(s):
        if isinstance(s, c_ast.FuncCall) and isinstance(s.name, c_ast.ID) \
                and s.name.name in mpi_calls.EXPANDED:
            return collectives.expand(s, ctx)
        return s

    for n in list(_walk(node)):
        if isinstance(n, c_ast.Compound):
            n.block_items = [repl(s) for s in n.block_items or []]
        elif isinstance(n, (c_ast.Case, c_ast.Default)):
            n.stmts = [repl(s) for s in n.stmts or []]
        elif isinstance(n, c_ast.If):
            n.iftrue, n.iffalse = repl(n.iftrue), repl(n.iffalse)
        elif isinstance(n, (c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.Label)):
            n.stmt = repl(n.stmt)


def _lines(nodes, file: str) -> set[int]:
    out = set()
    for top in nodes:
        for n in _walk(top):
            c = getattr(n, "coord", None)
            if c is not None and c.file == file and c.line:
                out.add(c.line)
    return out


class _Job:
    def __init__(self, path: Path, cluster, tree: bool, user_ext, warnings):
        self.path, self.file, self.cluster, self.tree = path, str(path), cluster, tree
        self.user_ext = user_ext
        self.size = cluster.size
        self.accelerators = list(cluster.accelerator_ranks)
        self.group_size = _group_size(cluster) if tree else tree_mod.DEFAULT_GROUP_SIZE
        self.warnings = warnings

    def specialise(self, rank: int | None, shared: bool):
        """The variant's top-level nodes for this rank (None: the CPU variant)."""
        ext = copy.deepcopy(self.user_ext)
        main = next(e for e in ext if isinstance(e, c_ast.FuncDef) and e.decl.name == "main")
        facts = analysis.main_facts(main, [], self.file)
        _Specialiser(facts, self.size, rank, shared).run(main.body)
        ctx = collectives.Context(self.file, self.size, self.accelerators, self.tree,
                                  self.group_size, me=rank, strict=rank is not None)
        for e in ext:
            _replace_collectives(e, ctx)
        i = analysis.find_init_statement(main, self.file)
        main.body.block_items.insert(i + 1, emit.check_call())
        return ext


def transpile(source, cluster, *, tree: bool | None = None, emit_dir=None,
              include_dirs=(), defines=()) -> Report:
    path = Path(source)
    if not path.is_file():
        raise TranspileError(str(path), 0, "input", "no such file")
    use_tree = cluster.tree if tree is None else bool(tree)
    ast = _parse(preprocess(path, include_dirs, defines), str(path))
    user_ext = [e for e in ast.ext if not is_fake(getattr(e.coord, "file", None))]
    warnings: list[str] = []
    main = analysis.find_main(ast, str(path))
    counts = analysis.check_program(ast, str(path), user_ext)
    analysis.find_init_statement(main, str(path))
    analysis.main_facts(main, warnings, str(path))
    job = _Job(path, cluster, use_tree, user_ext, warnings)
    includes = kept_includes(path, include_dirs)
    source_lines = _lines(user_ext, str(path))

    made: list[tuple[str, str, list[int], list]] = []  # (name, kind, ranks, ext)
    groups: dict[str, list[int]] = {}
    for r in job.accelerators:
        groups.setdefault(emit.code_text(job.specialise(r, shared=True)), []).append(r)
    for ranks in groups.values():
        ext = job.specialise(ranks[0], shared=len(ranks) > 1)
        made.append((_name(cluster, ranks, "accel"), "accelerator", ranks, ext))
    if cluster.cpu_ranks:
        made.insert(0, (_name(cluster, cluster.cpu_ranks, "cpu"), "cpu",
                        list(cluster.cpu_ranks), job.specialise(None, shared=False)))
    _unique_names(made)

    variants, removed = [], {}
    for name, kind, ranks, ext in made:
        src = emit.variant_source(source=path.name, name=name, kind=kind, ranks=ranks,
                                  size=cluster.size, includes=includes,
                                  code=emit.code_text(ext))
        removed[name] = len(source_lines - _lines(ext, str(path)))
        variants.append(Variant(name=name, ranks=ranks, kind=kind, c_source=src, path=None))
    if emit_dir is not None:
        out = Path(emit_dir)
        out.mkdir(parents=True, exist_ok=True)
        for v in variants:
            v.path = out / f"{path.stem}.{v.name}.c"
            v.path.write_text(v.c_source, encoding="utf-8")
    tree_groups = {}
    if use_tree and (counts.get("MPI_Scatter") or counts.get("MPI_Gather")):
        for root in _scatter_gather_roots(user_ext, job):
            p = tree_mod.plan(cluster.size, job.accelerators, root, job.group_size)
            tree_groups[root] = [list(g) for g in p.groups]
    return Report(variants=variants, calls_expanded=counts,
                  lines_removed=sum(removed.values()), warnings=warnings, source=str(path),
                  size=cluster.size, tree=use_tree, tree_groups=tree_groups,
                  lines_removed_by_variant=removed)


def _scatter_gather_roots(user_ext, job) -> set[int]:
    """The constant roots of the scatters and gathers (after folding), for the report."""
    roots = set()
    ext = copy.deepcopy(user_ext)
    main = next(e for e in ext if isinstance(e, c_ast.FuncDef) and e.decl.name == "main")
    _Specialiser(analysis.main_facts(main, [], job.file), job.size, None, False).run(main.body)
    for e in ext:
        for n in _walk(e):
            if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID) \
                    and n.name.name in ("MPI_Scatter", "MPI_Gather"):
                v = _evaluate(n.args.exprs[6], {})
                if v is not None:
                    roots.add(v)
    return roots


def _name(cluster, ranks: list[int], prefix: str) -> str:
    given = {cluster.ranks[r].variant for r in ranks}
    if len(given) == 1 and None not in given:
        return given.pop()
    if prefix == "cpu":
        return "cpu"
    return f"{prefix}_{ranks_text(ranks).replace(',', '_')}"


def _unique_names(made: list) -> None:
    seen: dict[str, int] = {}
    for i, (name, kind, ranks, ext) in enumerate(made):
        if name in seen:
            # A name the cluster gave to ranks whose code differs: keep it, marked.
            made[i] = (f"{name}_{ranks_text(ranks).replace(',', '_')}", kind, ranks, ext)
        seen[made[i][0]] = i
