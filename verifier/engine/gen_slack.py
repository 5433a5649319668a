"""Invariants as numbers: the Python source of each invariant's *slack*.

The slack of a condition measures how far a state is from breaking it, as
robustness does in signal-temporal-logic falsification. It is an integer and
keeps the condition's truth exactly: **slack >= 1 when the condition holds,
slack <= 0 when it fails**; the further from 0, the more moves it takes to
change that. The convention, on integers:

| condition     | slack                  |
|---------------|------------------------|
| `a <= b`      | `b - a + 1`            |
| `a < b`       | `b - a`                |
| `a == b`      | `1 - abs(a - b)`       |
| `a != b`      | `abs(a - b)`           |
| `not c`       | `1 - slack(c)`         |
| `a and b`     | `min` when both hold, else `1 - sum of (1 - slack)` over the failing sides |
| `a or b`      | `max` when both fail, else the sum of the holding sides' slacks |
| `all` / `any` | `min` / `max` over the items (empty: `UNBOUNDED` / 0) |
| anything else | 1 if it holds, else 0  |

With `not c` as `1 - slack(c)`, De Morgan's laws hold exactly (negation is
pushed inward for free) and the table for `>`/`>=` follows from `<=`/`<`.
`and`/`or` add up the distances of the sides that must change (robustness in
signal-temporal logic takes `min`/`max` throughout): to make `a and b` hold,
each failing side must be brought to hold, so a search sees progress on
either; with `min`, `rewards > 0 and n == 2` reads the same at every n while
no reward is due.
Comparisons take this form only between declared integer ranges: a player,
an enum or a catalogue item is a name, and its numeric distance means nothing.

Partial operations stay as safe as the engine makes them: where the engine
does not evaluate the right side of `and`/`or` (the left decides), the slack
still reads it, and an error it raises there, which the engine would never
meet, leaves the left side's slack alone; an `all`/`any` item whose `where` fails is not evaluated either:
it contributes how far the `where` is from holding (for `all`, `1 - slack`,
which holds; for `any`, the `where`'s own slack, which does not). A boolean definition
called from an invariant is compiled into the caller with its arguments bound
(up to `INLINE_DEPTH` calls deep), so the slack sees through `fits(p, b)` to
the comparison inside.

Sub-expressions that are not conditions (sums, sizes, definitions' values)
are compiled by the engine's own code generator, so the slack reads the state
exactly as the engine does. The source is loaded next to an engine module by
`load_slacks`; the engine itself never carries it.
"""
from __future__ import annotations

import re

from ..frontend.typecheck import Program
from ..ir.types import BoolT, IntT
from .codegen import INT_CODE, CodeGen, table_code
from .gen_static import CodeItem

UNBOUNDED = 1 << 20  # the slack of `all` over no items: nothing to break yet
INLINE_DEPTH = 4      # boolean definitions compiled into their callers, this deep

_FLIPPED = {">": "<", ">=": "<="}


# `and`/`or` as the module's table says, given the left side's slack and the right side's as a
# function: where the engine evaluates the right side, an error it raises is the engine's (the
# invariant's own check reports it); where the left side decides, the left side alone
_HELPERS = """

def _and(a, right):
    if a >= 1:
        b = right()
        return min(a, b) if b >= 1 else b
    try:
        b = right()
    except Exception:
        return a
    return a - max(1 - b, 0)


def _or(a, right):
    if a <= 0:
        b = right()
        return max(a, b) if b <= 0 else b
    try:
        b = right()
    except Exception:
        return a
    return a + max(b, 0)
"""


class SlackGen(CodeGen):
    """The engine's code generator, plus `slack(e)`: the code of a condition's slack."""

    def __init__(self, program: Program):
        super().__init__(program)
        self.temps = 0
        self.slack_depth = 0

    def temp(self) -> str:
        self.temps += 1
        return f"_k{self.temps}"

    def slack(self, e) -> str:
        method = getattr(self, "k_" + type(e).__name__, None)
        return method(e) if method is not None else self.truth(e)

    def truth(self, e) -> str:
        """A condition with no finer measure: 1 if it holds, else 0."""
        return f"(1 if {self.expr(e)} else 0)"

    def k_BoolLit(self, e):
        return "1" if e.value else "0"

    def k_Unary(self, e):
        if e.op != "not":
            return self.truth(e)
        return f"(1 - {self.slack(e.operand)})"

    def k_Binary(self, e):
        op = e.op
        # both sides, where the engine evaluates one only: where the left side decides, the
        # right still says how far the whole is from changing (`x == 0 or y != 2` read as the
        # left alone is 1 at every y while x is 0, and a search steered by it is blind to y).
        # There the right side may be a partial operation the left guards: it is read through
        # a function that falls back on the left alone if it raises (`_HELPERS`); the right
        # side's code is written once (in the function), so nested `and`s do not double it
        if op in ("and", "or"):
            return f"_{op}({self.slack(e.left)}, lambda: {self.slack(e.right)})"
        numeric = isinstance(self.T(e.left), IntT) and isinstance(self.T(e.right), IntT)
        if not numeric or op not in ("<", "<=", ">", ">=", "==", "!="):
            return self.truth(e)
        left, right = self.expr(e.left), self.expr(e.right)
        if op in _FLIPPED:
            op, left, right = _FLIPPED[op], right, left
        if op == "<=":
            return f"(({right}) - ({left}) + 1)"
        if op == "<":
            return f"(({right}) - ({left}))"
        if op == "==":
            return f"(1 - abs(({left}) - ({right})))"
        return f"abs(({left}) - ({right}))"

    def k_IfExpr(self, e):
        return f"({self.slack(e.then)} if {self.expr(e.cond)} else {self.slack(e.orelse)})"

    def k_Aggregate(self, e):
        if e.kind not in ("all", "any"):
            return self.truth(e)
        self.locals_stack.append({e.var})
        src = self.iter_code(e.source)
        item = self.slack(e.body)
        if e.where is not None:
            # an item `where` leaves out is not evaluated (as in the engine): it counts as how far
            # `where` is from holding, towards failing for `all` (1 - slack) and, never holding,
            # for `any` (its slack, <= 0)
            t = self.temp()
            left_out = f"1 - {t}" if e.kind == "all" else t
            item = f"({item} if ({t} := {self.slack(e.where)}) >= 1 else {left_out})"
        self.locals_stack.pop()
        if e.kind == "all":
            return f"min(({item} for v_{e.var} in {src}), default={UNBOUNDED})"
        return f"max(({item} for v_{e.var} in {src}), default=0)"

    def k_Call(self, e):
        d = self.p.defs.get(e.func)
        sym = self.p.symbols.get(e.func)
        if d is None or sym is None or sym.kind != "def" or not isinstance(sym.type, BoolT) \
                or self.slack_depth >= INLINE_DEPTH:
            return self.truth(e)
        # the body's slack with the parameters bound to the arguments' code (as CodeGen.inline_def)
        arg_codes = [self.within(a, self.expr(a), self.p.def_param_types.get(id(q), IntT(0, 0)))
                     for a, q in zip(e.args, d.params)]
        saved = self.locals_stack, self.const_env
        self.locals_stack = [set()]
        self.const_env = [{q.name: int(code) if INT_CODE.fullmatch(code) else CodeItem(f"({code})")
                           for q, code in zip(d.params, arg_codes)}]
        self.slack_depth += 1
        try:
            return self.slack(d.body)
        finally:
            self.slack_depth -= 1
            self.locals_stack, self.const_env = saved

    def slack_source(self) -> str:
        """`_slack<i>(s)` per invariant, in the order of the engine's `INVARIANTS`, and `SLACKS`."""
        lines = [_HELPERS]
        with self.reading():
            for i, inv in enumerate(self.p.invariants):
                lines += ["", "", f"def _slack{i}(s):",
                          "    s.memo = {}  # memoised definitions: valid for this evaluation only"]
                points = self.p.invariant_points.get(inv.name)
                if points:  # elsewhere the claim says nothing, so nothing is near breaking it
                    lines += [f"    if s.pc not in {tuple(points)!r}:", f"        return {UNBOUNDED}"]
                lines += [f"    return {self.slack(inv.cond)}"]
        lines += ["", f"SLACKS = ({''.join(f'_slack{i}, ' for i in range(len(self.p.invariants)))})"]
        return "\n".join(lines) + "\n"


def slack_source(program: Program) -> str:
    return SlackGen(program).slack_source()


def load_slacks(program: Program, module) -> tuple:
    """The slack functions of `program`'s invariants, run against its loaded engine `module`."""
    source = slack_source(program)
    namespace = dict(module.__dict__)  # the engine's definitions, constants and tables
    for name in set(re.findall(r"\b(?:DOM|BITS)_m?\d+_\d+", source)) - set(namespace):
        exec(table_code(name), namespace)  # a lookup table the engine itself never needed
    exec(compile(source, f"<slack {program.name}>", "exec"), namespace)  # our own code, as the engine's
    return namespace["SLACKS"]


__all__ = ["UNBOUNDED", "SlackGen", "slack_source", "load_slacks"]
