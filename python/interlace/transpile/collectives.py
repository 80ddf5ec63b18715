"""Collectives expanded into MPI_Send/MPI_Recv (ZRLMPI paper, Fig. 3).

Each call becomes a block of C text (a Raw node) for the role the rank plays:
root, receiver, or with the tree (tree.py) replicator or group member. When the
rank is known (accelerator variants) only its role's code is emitted; when it
is not (the CPU variant) the block asks MPI_Comm_rank and dispatches at run
time. The size is known in every variant: each is made for one cluster.

Semantics kept: MPI's chunk layout (rank i's chunk at i * count elements),
the root's own chunk by memcpy, reductions combined in rank order 0..size-1
(for floating point the library's own MPI_Reduce may round differently).
"""
from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast, c_generator

from . import mpi_calls, tree as tree_mod
from .errors import at
from .folding import evaluate


class Raw(c_ast.Node):
    """Generated C statements, printed as they are."""
    __slots__ = ("text", "coord", "__weakref__")
    attr_names = ()

    def __init__(self, text: str, coord=None):
        self.text = text
        self.coord = coord

    def children(self):
        return ()


class Generator(c_generator.CGenerator):
    def visit_Raw(self, n: Raw) -> str:
        ind = self._make_indent()
        lines = n.text.rstrip("\n").split("\n")
        # _generate_stmt adds the first line's indent and a newline after us.
        return lines[0] + "".join("\n" + ind + ln for ln in lines[1:])


_gen = Generator()


def ctext(node) -> str:
    return _gen.visit(node)


@dataclass
class Context:
    file: str
    size: int
    accelerators: list[int]
    tree: bool
    group_size: int
    me: int | None      # the rank, when the variant is made for known ranks
    strict: bool        # accelerator variant: sizes and roots must be compile-time values


class _Call:
    """A collective call's arguments, checked and printed."""

    def __init__(self, node: c_ast.FuncCall, ctx: Context):
        self.node, self.ctx, self.name = node, ctx, node.name.name
        self.args = node.args.exprs
        self.text = [f"({ctext(a)})" for a in self.args]

    def fail(self, why: str):
        return at(self.node, self.name, why, self.ctx.file)

    def ctype(self, i: int) -> str:
        a = self.args[i]
        if isinstance(a, c_ast.ID) and a.name in mpi_calls.CTYPES:
            return mpi_calls.CTYPES[a.name]
        raise self.fail(f"datatype {ctext(a)!r} is not a predefined MPI datatype "
                        "(the expansion needs the element's C type)")

    def count(self, i: int, needed: bool):
        v = evaluate(self.args[i], {})
        if v is None and needed and self.ctx.strict:
            raise self.fail(f"count {ctext(self.args[i])!r} is only known at run time; an "
                            "accelerator rank needs its message sizes fixed when it is built")
        if v is not None and v < 0:
            raise self.fail(f"count {v} is negative")
        return v if v is not None else self.text[i]

    def root(self, i: int, need_const: bool):
        v = evaluate(self.args[i], {})
        if v is None:
            if need_const:
                why = ("the tree optimisation plans the messages from the root"
                       if self.ctx.tree else "an accelerator rank's role must be fixed when it "
                       "is built")
                raise self.fail(f"root {ctext(self.args[i])!r} is not a compile-time value "
                                f"({why})")
            return self.text[i]
        if not 0 <= v < self.ctx.size:
            raise self.fail(f"root {v} is not a rank of the {self.ctx.size}-rank cluster")
        return v


def _mul(*xs) -> str:
    """Product of ints and C expressions, folded where all are ints."""
    ints = [x for x in xs if isinstance(x, int)]
    exprs = [x for x in xs if not isinstance(x, int)]
    k = 1
    for x in ints:
        k *= x
    if not exprs:
        return str(k)
    return " * ".join(([str(k)] if k != 1 else []) + [f"(size_t){exprs[0]}"] + exprs[1:])


def _at(buf: str, index, count, ctype: str) -> str:
    """Address of element index*count of buf."""
    off = _mul(index, count)
    if off == "0":
        return f"(char *){buf}"
    return f"(char *){buf} + {off} * sizeof({ctype})"


def _dispatch(roles: list, me, comm: str) -> list[str]:
    """roles: (ranks, code) in order; ranks is a tuple of ranks, a C expression
    for one rank (a run-time root), or None for everyone else. With a known
    rank, that rank's code; else an if/else chain on the rank at run time."""
    if me is not None:
        for ranks, code in roles:
            assert not isinstance(ranks, str), "a known rank needs a known root"
            if ranks is None or me in ranks:
                return code
        return []
    out = ["int il_tp_me;", f"MPI_Comm_rank({comm}, &il_tp_me);"]
    for i, (ranks, code) in enumerate(roles):
        if ranks is None:
            out.append("else {" if i else "{")
        else:
            if isinstance(ranks, str):
                cond = f"il_tp_me == {ranks}"
            else:
                cond = " || ".join(f"il_tp_me == {r}" for r in ranks)
            out.append(f"{'else ' if i else ''}if ({cond}) {{")
        out += ["  " + ln for ln in code] + ["}"]
    return out


def _is(*ranks):
    """The role key of these ranks (a run-time root stays an expression)."""
    if len(ranks) == 1 and isinstance(ranks[0], str):
        return ranks[0]
    return tuple(ranks)


def expand(node: c_ast.FuncCall, ctx: Context) -> Raw:
    call = _Call(node, ctx)
    body = globals()["_" + call.name[4:].lower()](call, ctx)
    head = f"/* interlace transpile: {call.name}, expanded */"
    return Raw("{\n" + "\n".join(["  " + head] + ["  " + ln for ln in body]) + "\n}",
               node.coord)


def _plan(call: _Call, ctx: Context, root):
    if not ctx.tree or not isinstance(root, int):
        return None
    p = tree_mod.plan(ctx.size, ctx.accelerators, root, ctx.group_size)
    return p if p.groups else None


def _scatter(call: _Call, ctx: Context) -> list[str]:
    sb, _, stype, rb, _, rtype, _, comm = call.text
    me = ctx.me
    root = call.root(6, need_const=ctx.tree or ctx.strict)
    is_root = None if me is None or not isinstance(root, int) else me == root
    st, rt = call.ctype(2), call.ctype(5)
    sc = call.count(1, needed=is_root is not False)
    rc = call.count(4, needed=True)
    tag = mpi_calls.TAGS[call.name]
    p = _plan(call, ctx, root)
    own = f"memcpy({rb}, {_at(sb, root, sc, st)}, {_mul(sc)} * sizeof({st}));"
    recv_from = lambda src: [f"MPI_Recv({rb}, {rc}, {rtype}, {src}, {tag}, {comm}, "  # noqa: E731
                             "MPI_STATUS_IGNORE);"]
    if p is None:
        root_code = [f"for (int il_tp_i = 0; il_tp_i < {ctx.size}; il_tp_i++) {{",
                     f"  if (il_tp_i == {root}) continue;",
                     f"  MPI_Send({_at(sb, 'il_tp_i', sc, st)}, {sc}, {stype}, il_tp_i, {tag}, "
                     f"{comm});", "}", own]
        return _dispatch([(_is(root), root_code), (None, recv_from(root))], me, comm)
    root_code = [own]
    for g in p.groups:
        root_code.append(f"MPI_Send({_at(sb, g[0], sc, st)}, {_mul(len(g), sc)}, {stype}, "
                         f"{g[0]}, {tag}, {comm}); /* group {g[0]}-{g[-1]} */")
    for d in p.direct:
        root_code.append(f"MPI_Send({_at(sb, d, sc, st)}, {sc}, {stype}, {d}, {tag}, {comm});")
    roles = [(_is(root), root_code)]
    for g in p.groups:
        n = len(g)
        roles.append((_is(g[0]), [
            f"{rt} *il_tp_buf = ({rt} *)malloc({_mul(n, rc)} * sizeof({rt}) + 1);",
            f"MPI_Recv(il_tp_buf, {_mul(n, rc)}, {rtype}, {root}, {tag}, {comm}, "
            "MPI_STATUS_IGNORE);",
            f"memcpy({rb}, il_tp_buf, {_mul(rc)} * sizeof({rt}));",
            f"for (int il_tp_k = 1; il_tp_k < {n}; il_tp_k++)",
            f"  MPI_Send({_at('il_tp_buf', 'il_tp_k', rc, rt)}, {rc}, {rtype}, "
            f"{g[0]} + il_tp_k, {tag}, {comm});",
            "free(il_tp_buf);"]))
        roles.append((_is(*g[1:]), recv_from(g[0])))
    roles.append((None, recv_from(root)))
    return _dispatch(roles, me, comm)


def _gather(call: _Call, ctx: Context) -> list[str]:
    sb, _, stype, rb, _, rtype, _, comm = call.text
    me = ctx.me
    root = call.root(6, need_const=ctx.tree or ctx.strict)
    is_root = None if me is None or not isinstance(root, int) else me == root
    st, rt = call.ctype(2), call.ctype(5)
    sc = call.count(1, needed=True)
    rc = call.count(4, needed=is_root is not False)
    tag = mpi_calls.TAGS[call.name]
    p = _plan(call, ctx, root)
    own = f"memcpy({_at(rb, root, rc, rt)}, {sb}, {_mul(sc)} * sizeof({st}));"
    send_to = lambda dst: [f"MPI_Send({sb}, {sc}, {stype}, {dst}, {tag}, {comm});"]  # noqa: E731
    if p is None:
        root_code = [f"for (int il_tp_i = 0; il_tp_i < {ctx.size}; il_tp_i++) {{",
                     f"  if (il_tp_i == {root}) continue;",
                     f"  MPI_Recv({_at(rb, 'il_tp_i', rc, rt)}, {rc}, {rtype}, il_tp_i, {tag}, "
                     f"{comm}, MPI_STATUS_IGNORE);", "}", own]
        return _dispatch([(_is(root), root_code), (None, send_to(root))], me, comm)
    root_code = [own]
    for g in p.groups:
        root_code.append(f"MPI_Recv({_at(rb, g[0], rc, rt)}, {_mul(len(g), rc)}, {rtype}, "
                         f"{g[0]}, {tag}, {comm}, MPI_STATUS_IGNORE); "
                         f"/* group {g[0]}-{g[-1]} */")
    for d in p.direct:
        root_code.append(f"MPI_Recv({_at(rb, d, rc, rt)}, {rc}, {rtype}, {d}, {tag}, {comm}, "
                         "MPI_STATUS_IGNORE);")
    roles = [(_is(root), root_code)]
    for g in p.groups:
        n = len(g)
        roles.append((_is(g[0]), [
            f"{st} *il_tp_buf = ({st} *)malloc({_mul(n, sc)} * sizeof({st}) + 1);",
            f"memcpy(il_tp_buf, {sb}, {_mul(sc)} * sizeof({st}));",
            f"for (int il_tp_k = 1; il_tp_k < {n}; il_tp_k++)",
            f"  MPI_Recv({_at('il_tp_buf', 'il_tp_k', sc, st)}, {sc}, {stype}, "
            f"{g[0]} + il_tp_k, {tag}, {comm}, MPI_STATUS_IGNORE);",
            f"MPI_Send(il_tp_buf, {_mul(n, sc)}, {stype}, {root}, {tag}, {comm});",
            "free(il_tp_buf);"]))
        roles.append((_is(*g[1:]), send_to(g[0])))
    roles.append((None, send_to(root)))
    return _dispatch(roles, me, comm)


def _bcast(call: _Call, ctx: Context) -> list[str]:
    buf, _, dtype, _, comm = call.text
    root = call.root(3, need_const=ctx.strict)
    call.ctype(2)
    count = call.count(1, needed=True)
    tag = mpi_calls.TAGS[call.name]
    root_code = [f"for (int il_tp_i = 0; il_tp_i < {ctx.size}; il_tp_i++)",
                 f"  if (il_tp_i != {root}) MPI_Send({buf}, {count}, {dtype}, il_tp_i, {tag}, "
                 f"{comm});"]
    other = [f"MPI_Recv({buf}, {count}, {dtype}, {root}, {tag}, {comm}, MPI_STATUS_IGNORE);"]
    return _dispatch([(_is(root), root_code), (None, other)], ctx.me, comm)


def _reduce(call: _Call, ctx: Context) -> list[str]:
    sb, rb, _, dtype, op, _, comm = call.text
    root = call.root(5, need_const=ctx.strict)
    t = call.ctype(3)
    count = call.count(2, needed=True)
    opname = call.args[4].name if isinstance(call.args[4], c_ast.ID) else None
    if opname not in mpi_calls.OPS:
        raise call.fail(f"operator {ctext(call.args[4])!r} is not a predefined MPI operator "
                        f"({', '.join(mpi_calls.OPS)})")
    if not mpi_calls.op_valid_for(opname, t):
        raise call.fail(f"operator {opname} is not defined on {t}")
    tag = mpi_calls.TAGS[call.name]
    acc = f"(({t} *){rb})[il_tp_k]"
    combined = mpi_calls.OPS[opname].format(a=acc, b="il_tp_src[il_tp_k]")
    root_code = [
        f"{t} *il_tp_tmp = ({t} *)malloc({_mul(count)} * sizeof({t}) + 1);",
        f"for (int il_tp_i = 0; il_tp_i < {ctx.size}; il_tp_i++) {{",
        f"  const {t} *il_tp_src = (const {t} *){sb};",
        f"  if (il_tp_i != {root}) {{",
        f"    MPI_Recv(il_tp_tmp, {count}, {dtype}, il_tp_i, {tag}, {comm}, MPI_STATUS_IGNORE);",
        "    il_tp_src = il_tp_tmp;",
        "  }",
        "  if (il_tp_i == 0)",
        f"    memcpy({rb}, il_tp_src, {_mul(count)} * sizeof({t}));",
        "  else",
        f"    for (long il_tp_k = 0; il_tp_k < {count}; il_tp_k++) {acc} = {combined};",
        "}",
        "free(il_tp_tmp);"]
    other = [f"MPI_Send({sb}, {count}, {dtype}, {root}, {tag}, {comm});"]
    return _dispatch([(_is(root), root_code), (None, other)], ctx.me, comm)


def _barrier(call: _Call, ctx: Context) -> list[str]:
    comm = call.text[0]
    tag = mpi_calls.TAGS[call.name]
    token = "char il_tp_token = 0;"
    zero = [token,
            f"for (int il_tp_i = 1; il_tp_i < {ctx.size}; il_tp_i++)",
            f"  MPI_Recv(&il_tp_token, 0, MPI_BYTE, il_tp_i, {tag}, {comm}, MPI_STATUS_IGNORE);",
            f"for (int il_tp_i = 1; il_tp_i < {ctx.size}; il_tp_i++)",
            f"  MPI_Send(&il_tp_token, 0, MPI_BYTE, il_tp_i, {tag}, {comm});"]
    other = [token, f"MPI_Send(&il_tp_token, 0, MPI_BYTE, 0, {tag}, {comm});",
             f"MPI_Recv(&il_tp_token, 0, MPI_BYTE, 0, {tag}, {comm}, MPI_STATUS_IGNORE);"]
    return _dispatch([(_is(0), zero), (None, other)], ctx.me, comm)
