"""Constant folding and dead-code elimination for one variant.

What is known: the job size (every variant is made for one cluster), the rank
(in an accelerator variant), and the `int` locals of main initialised from
those and never written again. The assignments themselves are never removed,
so a value left in place still holds at run time; substitution only replaces a
read whose value is certain.

Two substitution modes serve the variant rule (docs/transpile.md): decisions
(if, while, ?:) always use everything known, so dead branches go per rank;
values (arguments, initialisers) use the rank only in "const" mode. In
"shared" mode the rank stays a run-time value, so ranks that take the same
decisions produce the same text and can share one variant.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from pycparser import c_ast

_INT_RE = re.compile(r"^(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)$")
INT_MIN, INT_MAX = -(1 << 31), (1 << 31) - 1


def const_value(node) -> int | None:
    """The value of a plain int literal (no suffix: its type is int)."""
    if isinstance(node, c_ast.Constant) and node.type == "int" and _INT_RE.match(node.value):
        v = int(node.value, 0) if not re.match(r"^0[0-7]+$", node.value) else int(node.value, 8)
        return v if v <= INT_MAX else None
    return None


def make_const(v: int) -> c_ast.Node:
    if v < 0:
        return c_ast.UnaryOp("-", c_ast.Constant("int", str(-v)))
    return c_ast.Constant("int", str(v))


def _c_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


_BIN = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: _c_div(a, b) if b else None,
    "%": lambda a, b: a - _c_div(a, b) * b if b else None,
    "<": lambda a, b: int(a < b), ">": lambda a, b: int(a > b),
    "<=": lambda a, b: int(a <= b), ">=": lambda a, b: int(a >= b),
    "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b),
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
    "<<": lambda a, b: a << b if a >= 0 and 0 <= b < 31 else None,
    ">>": lambda a, b: a >> b if a >= 0 and 0 <= b < 31 else None,
}


def evaluate(node, env: dict) -> int | None:
    """The int value of a side-effect-free expression, or None. env maps a
    name to its value (None: shadowed, unknown)."""
    if isinstance(node, c_ast.Constant):
        return const_value(node)
    if isinstance(node, c_ast.ID):
        return env.get(node.name)
    if isinstance(node, c_ast.UnaryOp):
        if node.op not in ("-", "+", "!", "~"):
            return None
        v = evaluate(node.expr, env)
        if v is None:
            return None
        r = {"-": -v, "+": v, "!": int(not v), "~": ~v}[node.op]
        return r if INT_MIN <= r <= INT_MAX else None
    if isinstance(node, c_ast.BinaryOp):
        left = evaluate(node.left, env)
        if node.op in ("&&", "||"):
            # C's short circuit: a known left side can decide alone, and then
            # the right side is not evaluated in the original either.
            if left is not None and (not left if node.op == "&&" else left):
                return int(node.op == "||")
            right = evaluate(node.right, env)
            if left is None or right is None:
                return None
            return int(bool(right))
        if left is None:
            return None
        right = evaluate(node.right, env)
        fn = _BIN.get(node.op)
        if right is None or fn is None:
            return None
        r = fn(left, right)
        return r if r is not None and INT_MIN <= r <= INT_MAX else None
    if isinstance(node, c_ast.TernaryOp):
        c = evaluate(node.cond, env)
        if c is None:
            return None
        return evaluate(node.iftrue if c else node.iffalse, env)
    return None


def is_int_decl(decl: c_ast.Decl) -> bool:
    t = decl.type
    return (isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType)
            and t.type.names == ["int"] and not decl.storage)


@dataclass
class MainFacts:
    """What analysis.py found in main: the variables that get the rank and the
    size (with the call statement that sets each), and the int locals never
    written after their declaration."""
    rank_vars: dict = field(default_factory=dict)   # name -> call node
    size_vars: dict = field(default_factory=dict)   # name -> call node
    const_candidates: set = field(default_factory=set)  # ids of never-written Decls


class Specialiser:
    """Folds and prunes main's body for one variant, in place (on a copy)."""

    def __init__(self, facts: MainFacts, size: int, rank: int | None, shared: bool):
        self.facts = facts
        self.size = size
        self.rank = rank
        self.shared = shared
        self.scopes: list[dict] = []  # name -> (value, rank_dependent) or None

    # -- environments ------------------------------------------------------------
    def _lookup(self, name):
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def _env(self, for_value: bool) -> dict:
        env: dict = {}
        for scope in self.scopes:
            for name, b in scope.items():
                if b is None or (for_value and self.shared and b[1]):
                    env[name] = None
                else:
                    env[name] = b[0]
        return env

    def _rank_dependent(self, node) -> bool:
        for n in _walk(node):
            if isinstance(n, c_ast.ID):
                b = self._lookup(n.name)
                if b is not None and b[1]:
                    return True
        return False

    # -- expressions -------------------------------------------------------------
    def fold(self, node, env=None):
        """The expression with known reads replaced and constant parts folded."""
        if node is None:
            return None
        if env is None:
            env = self._env(for_value=True)
        v = evaluate(node, env)
        if v is not None and not isinstance(node, c_ast.Constant):
            return make_const(v)
        if isinstance(node, c_ast.UnaryOp) and (
                node.op == "sizeof" or (node.op in ("&", "p++", "p--", "++", "--")
                                        and isinstance(node.expr, c_ast.ID))):
            # sizeof(x) is x's type, not its value; &x and x++ need the variable
            # (&a[rank] still gets its index folded below).
            return node
        if isinstance(node, c_ast.StructRef):
            node.name = self.fold(node.name, env)
            return node
        if isinstance(node, c_ast.FuncCall):
            if node.args is not None:
                node.args.exprs = [self.fold(e, env) for e in node.args.exprs]
            return node
        if isinstance(node, c_ast.Typename) or isinstance(node, c_ast.ID):
            return node
        for name in getattr(node, "__slots__", ()):
            if name in ("coord", "__weakref__", "type", "to_type"):
                continue
            child = getattr(node, name, None)
            if isinstance(child, c_ast.Node):
                setattr(node, name, self.fold(child, env))
            elif isinstance(child, list):
                setattr(node, name, [self.fold(c, env) if isinstance(c, c_ast.Node) else c
                                     for c in child])
        return node

    def decide(self, cond) -> int | None:
        return evaluate(cond, self._env(for_value=False))

    # -- statements --------------------------------------------------------------
    def run(self, body: c_ast.Compound) -> None:
        self.scopes = [{}]
        body.block_items = self._block(body.block_items or [], top=True)

    def _block(self, items, top=False):
        out = []
        for stmt in items:
            out.extend(self._stmt(stmt, top))
        return out

    def _stmt(self, s, top=False) -> list:
        """The statement(s) replacing s (none when it is dead)."""
        if isinstance(s, c_ast.Decl):
            self._decl(s)
            return [s]
        if isinstance(s, c_ast.Compound):
            self.scopes.append({})
            s.block_items = self._block(s.block_items or [])
            self.scopes.pop()
            return [s]
        if isinstance(s, c_ast.If):
            c = self.decide(s.cond)
            if c is not None:
                taken = s.iftrue if c else s.iffalse
                return self._stmt(taken) if taken is not None else []
            s.cond = self.fold(s.cond)
            s.iftrue = self._sub(s.iftrue)
            s.iffalse = self._sub(s.iffalse)
            return [s]
        if isinstance(s, c_ast.While):
            if self.decide(s.cond) == 0:
                return []
            s.cond = self.fold(s.cond)
            s.stmt = self._sub(s.stmt)
            return [s]
        if isinstance(s, c_ast.For):
            self.scopes.append({})
            if isinstance(s.init, c_ast.DeclList):
                for d in s.init.decls:
                    self._decl(d)
            elif s.init is not None:
                s.init = self.fold(s.init)
            s.cond = self.fold(s.cond)
            s.next = self.fold(s.next)
            s.stmt = self._sub(s.stmt)
            self.scopes.pop()
            return [s]
        if isinstance(s, (c_ast.DoWhile,)):
            s.stmt = self._sub(s.stmt)
            s.cond = self.fold(s.cond)
            return [s]
        if isinstance(s, c_ast.Switch):
            s.cond = self.fold(s.cond)
            s.stmt = self._sub(s.stmt)
            return [s]
        if isinstance(s, (c_ast.Case, c_ast.Default)):
            s.stmts = self._block(s.stmts or [])
            return [s]
        if isinstance(s, c_ast.Label):
            s.stmt = self._sub(s.stmt)
            return [s]
        if isinstance(s, c_ast.Return):
            s.expr = self.fold(s.expr)
            return [s]
        if isinstance(s, c_ast.FuncCall):
            s = self.fold(s)
            if top:
                self._after_call(s)
            return [s]
        if isinstance(s, (c_ast.Pragma, c_ast.Goto, c_ast.Break, c_ast.Continue,
                          c_ast.EmptyStatement, c_ast.Typedef)):
            return [s]
        return [self.fold(s)]

    def _sub(self, s):
        """A sub-statement of if/while/for: one node, a dead one becomes `;`."""
        if s is None:
            return None
        self.scopes.append({})
        out = self._stmt(s)
        self.scopes.pop()
        if not out:
            return c_ast.EmptyStatement()
        if len(out) == 1:
            return out[0]
        return c_ast.Compound(out)

    def _decl(self, d: c_ast.Decl) -> None:
        if d.init is not None and not isinstance(d.init, c_ast.InitList):
            full = evaluate(d.init, self._env(for_value=False))
            dep = self._rank_dependent(d.init)
            d.init = self.fold(d.init)
        else:
            full, dep = None, False
            if isinstance(d.init, c_ast.InitList):
                d.init = self.fold(d.init)
        if d.name is None:
            return
        if id(d) in self.facts.const_candidates and full is not None and is_int_decl(d):
            self.scopes[-1][d.name] = (full, dep)
        else:
            self.scopes[-1][d.name] = None  # shadows any outer known name

    def _after_call(self, call: c_ast.FuncCall) -> None:
        """After the statement `MPI_Comm_rank(MPI_COMM_WORLD, &rank)` at main's top
        level, `rank` holds the rank (likewise the size)."""
        for name, stmt in self.facts.rank_vars.items():
            if stmt is call and self.rank is not None:
                self.scopes[0][name] = (self.rank, True)
        for name, stmt in self.facts.size_vars.items():
            if stmt is call:
                self.scopes[0][name] = (self.size, False)


def _walk(node):
    yield node
    for _, child in node.children():
        yield from _walk(child)


walk = _walk
