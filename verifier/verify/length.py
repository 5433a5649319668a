"""The longest a game can be, read off the flow's loops: the termination argument's structure.

Every `for` runs over a snapshot of a finite collection (at most its type's capacity: a
sequence's `max`, a set's domain, an array's indices); a `while` whose body holds a decision
point is bounded only by a declared measure (`while C decreases E`): E starts at most at its
interval's upper bound, stays >= 0 and strictly decreases each iteration, so the body runs at
most hi(E) + 1 times. (That the measure really behaves so is a run-time check proved with the
others — `well_formed`; this module only counts.) Decision-free code runs between decision
points and adds none. The result is an upper bound, not the exact maximum.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..frontend.typecheck import Program
from ..ir import nodes as N
from ..ir.types import ArrayT, IntT, SeqT, SetT
from ..smt.encode import dom_size

__all__ = ["Length", "max_length"]


@dataclass(frozen=True)
class Length:
    decisions: int | None  # player decisions (a simultaneous node counts once), None: no bound
    chance: int | None
    unbounded: tuple = ()  # `while` loops around decision points without a measure


def max_length(program: Program, n: int, measure_hi: Callable | None = None, upto=None) -> Length:
    """`measure_hi(expr)`: a `while` measure's upper bound, when the caller knows a tighter one
    than its type's (the OpenSpiel adapter fixes the options at their loaded values). `upto`, a
    decision node: the longest the flow's top-level statements run up to the one holding it (a
    bound on the steps before its last visit, when the `while` measures hold), None where it
    has none."""
    if program.flow is None:
        return Length(0, 0)
    missing: list = []

    def times(st) -> int | None:
        if isinstance(st, N.For):
            t = program.type_of(st.source)
            if isinstance(t, SeqT):
                return t.cap
            if isinstance(t, SetT):
                return dom_size(t.elem, n)
            if isinstance(t, ArrayT):
                return dom_size(t.index, n)
            return None
        if st.decreases is not None:
            t = program.type_of(st.decreases)
            if not isinstance(t, IntT):
                return None
            return max(0, (measure_hi(st.decreases) if measure_hi else t.hi) + 1)
        missing.append(st)
        return None

    def block(stmts) -> tuple:
        d = c = 0
        for st in stmts:
            sd, sc = stmt(st)
            d = None if d is None or sd is None else d + sd
            c = None if c is None or sc is None else c + sc
        return d, c

    def stmt(st) -> tuple:
        if isinstance(st, N.Chance):
            return 0, 1
        if isinstance(st, (N.Choose, N.Simultaneous)):
            return 1, 0
        if isinstance(st, N.If):
            arms = [block(body.stmts) for _, body in st.branches]
            arms.append(block(st.orelse.stmts) if st.orelse is not None else (0, 0))
            return _max(a[0] for a in arms), _max(a[1] for a in arms)
        if isinstance(st, (N.For, N.While)):
            d, c = block(st.body.stmts)
            if d == 0 and c == 0:
                return 0, 0  # decision-free: runs between decision points
            k = times(st)
            return (None if k is None or d is None else k * d), (None if k is None or c is None else k * c)
        return 0, 0

    if upto is None:
        d, c = block(program.flow.body.stmts)
        return Length(d, c, tuple(missing))
    # the flow's top-level statements up to the one that holds `upto`
    for k, st in enumerate(program.flow.body.stmts):
        if _holds(st, upto):
            d, c = block(program.flow.body.stmts[:k + 1])
            return Length(d, c, tuple(missing))
    return Length(None, None, tuple(missing))


def _holds(st, node) -> bool:
    """Whether the statement `st` is `node` or holds it in a block of its own."""
    if st is node:
        return True
    if isinstance(st, N.If):
        bodies = [body for _, body in st.branches] + ([st.orelse] if st.orelse is not None else [])
    elif isinstance(st, (N.For, N.While)):
        bodies = [st.body]
    else:
        return False
    return any(_holds(x, node) for body in bodies for x in getattr(body, "stmts", ()))


def _max(xs):
    xs = list(xs)
    return None if any(x is None for x in xs) else max(xs)
