"""Checks on the parsed program and the facts the specialiser needs.

Everything the transpiler cannot handle is found here, before any variant is
made, and rejected with the place and the construct (errors.TranspileError).
"""
from __future__ import annotations

from pycparser import c_ast

from . import mpi_calls
from .errors import TranspileError, at
from .folding import MainFacts, is_int_decl, walk

_STMT_PARENTS = (c_ast.Compound, c_ast.If, c_ast.For, c_ast.While, c_ast.DoWhile,
                 c_ast.Label, c_ast.Case, c_ast.Default)


def find_main(ast: c_ast.FileAST, file: str) -> c_ast.FuncDef:
    for ext in ast.ext:
        if isinstance(ext, c_ast.FuncDef) and ext.decl.name == "main":
            return ext
    raise TranspileError(file, 1, "main", "the program has no main function")


def _call_name(node) -> str | None:
    if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID):
        return node.name.name
    return None


def _statement_calls(node):
    """FuncCall nodes that are whole statements."""
    for n in walk(node):
        if isinstance(n, c_ast.Compound):
            for s in n.block_items or []:
                if isinstance(s, c_ast.FuncCall):
                    yield s
        elif isinstance(n, (c_ast.Case, c_ast.Default)):
            for s in n.stmts or []:
                if isinstance(s, c_ast.FuncCall):
                    yield s
        elif isinstance(n, (c_ast.If,)):
            for s in (n.iftrue, n.iffalse):
                if isinstance(s, c_ast.FuncCall):
                    yield s
        elif isinstance(n, (c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.Label)):
            if isinstance(n.stmt, c_ast.FuncCall):
                yield n.stmt


def check_program(ast: c_ast.FileAST, file: str, user_ext) -> dict[str, int]:
    """Rejects what cannot be transpiled; returns the collective call sites by name."""
    stmt_calls: set[int] = set()
    for ext in user_ext:
        stmt_calls.update(id(c) for c in _statement_calls(ext))
    counts: dict[str, int] = {}
    any_tag = None
    for ext in user_ext:
        for n in walk(ext):
            if isinstance(n, c_ast.ID) and n.name == "MPI_ANY_TAG":
                any_tag = any_tag or n
            if isinstance(n, c_ast.ID) and n.name == "MPI_IN_PLACE":
                raise at(n, "MPI_IN_PLACE", "in-place collectives are not supported by the "
                         "transpiler; use separate send and receive buffers", file)
            name = _call_name(n)
            if name is None or not (name.startswith("MPI_") or name.startswith("PMPI_")):
                continue
            if name in mpi_calls.EXPANDED:
                if id(n) not in stmt_calls:
                    raise at(n, name, "the result of a collective that is expanded into sends "
                             "and receives cannot be used; call it as a statement", file)
                nargs = len(n.args.exprs) if n.args else 0
                if nargs != mpi_calls.ARGS[name]:
                    raise at(n, name, f"takes {mpi_calls.ARGS[name]} arguments, got {nargs}",
                             file)
                comm = n.args.exprs[-1]
                if not (isinstance(comm, c_ast.ID) and comm.name == "MPI_COMM_WORLD"):
                    raise at(n, name, "only MPI_COMM_WORLD is supported: the transpiler knows "
                             "the ranks and size of the world communicator only", file)
                counts[name] = counts.get(name, 0) + 1
            elif name not in mpi_calls.KEPT:
                raise at(n, name, "MPI call not supported by the transpiler (supported: "
                         + ", ".join(sorted(mpi_calls.KEPT | set(mpi_calls.EXPANDED))) + ")",
                         file)
    if any_tag is not None and counts:
        raise at(any_tag, "MPI_ANY_TAG", "a receive with MPI_ANY_TAG could match the messages "
                 "of the expanded collectives; use explicit tags", file)
    return counts


def _writes_per_decl(main: c_ast.FuncDef) -> dict[int, int]:
    """For each declaration in main (by id), how often the program writes the
    variable it declares or takes its address, names resolved by C's scopes (a
    shadowing inner `rank` is another variable)."""
    scopes: list[dict] = [{}]
    counts: dict[int, int] = {}

    def write(name: str) -> None:
        for scope in reversed(scopes):
            if name in scope:
                counts[id(scope[name])] += 1
                return

    def visit(n) -> None:
        if n is None:
            return
        if isinstance(n, (c_ast.Compound, c_ast.For)):
            scopes.append({})
            for _, child in n.children():
                visit(child)
            scopes.pop()
            return
        if isinstance(n, c_ast.Decl):
            visit(n.init)
            if n.name:
                scopes[-1][n.name] = n
                counts[id(n)] = 0
            return
        if isinstance(n, c_ast.Assignment) and isinstance(n.lvalue, c_ast.ID):
            write(n.lvalue.name)
        elif isinstance(n, c_ast.UnaryOp) and n.op in ("&", "++", "--", "p++", "p--") \
                and isinstance(n.expr, c_ast.ID):
            write(n.expr.name)
        for _, child in n.children():
            visit(child)

    visit(main.body)
    return counts


def main_facts(main: c_ast.FuncDef, warnings: list[str], file: str) -> MainFacts:
    """Which variables of main hold the rank and the size, and which int locals
    are never written after their initialiser."""
    body = main.body.block_items or []
    writes = _writes_per_decl(main)
    facts = MainFacts()
    seen: dict[str, c_ast.Decl] = {}  # main's top-level declarations so far
    for s in body:
        if isinstance(s, c_ast.Decl) and s.name:
            seen[s.name] = s
        name = _call_name(s)
        if name not in ("MPI_Comm_rank", "MPI_Comm_size") or len(s.args.exprs) != 2:
            continue
        comm, ptr = s.args.exprs
        if not (isinstance(comm, c_ast.ID) and comm.name == "MPI_COMM_WORLD"
                and isinstance(ptr, c_ast.UnaryOp) and ptr.op == "&"
                and isinstance(ptr.expr, c_ast.ID)):
            continue
        var = ptr.expr.name
        what = "rank" if name == "MPI_Comm_rank" else "size"
        d = seen.get(var)
        if d is None or not is_int_decl(d) or d.init is not None or writes.get(id(d)) != 1:
            warnings.append(f"{file}:{s.coord.line}: {name}: the {what} in {var!r} is kept a "
                            f"run-time value (it is not a plain int local of main set only "
                            "here); decisions on it are left to run time")
            continue
        (facts.rank_vars if what == "rank" else facts.size_vars)[var] = s
    facts.const_candidates = {k for k, n in writes.items() if n == 0}
    return facts


def find_init_statement(main: c_ast.FuncDef, file: str) -> int:
    """Index in main's body of the statement that calls MPI_Init: the variant's
    start-up check goes right after it."""
    for i, s in enumerate(main.body.block_items or []):
        for n in walk(s):
            if _call_name(n) in ("MPI_Init", "MPI_Init_thread"):
                return i
    raise at(main, "MPI_Init", "main must call MPI_Init in its own body (not in a nested block "
             "or another function): each variant checks its rank and size right after it", file)
