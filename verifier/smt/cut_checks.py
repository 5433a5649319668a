"""Run-time checks inside a loop's iterations, and right after the loop, asked at their cut.

A move that moves items one at a time (a `while` of dozens of iterations) raises a check in
every iteration ("the place the item lands in is not over its capacity"), over the state at that
iteration's cut: a term of as many nested `if`s as iterations before it, which the solver gives
up on when asked from the state before the move. What the check needs of that state is a fact
that holds at every cut (the count of items is kept), and the values' ranges.

Each check tagged with a cut (`Step.check_cuts`, `System.check_cut`) is asked with the state at
the cut before (one iteration stays in its terms: a loop's measure check compares the two)
read as fresh constants within their bounds (`System.cut_as_fresh`), and with the proved
facts the loop is shown to keep up to that cut: a fact holds at the loop's first cut
(asked from the state before the move, as the check's own query is), and each iteration keeps
it (asked from its cut alone), dropped at the first iteration that does not (Houdini). What holds
for every state within the bounds that satisfies the facts holds at the cut.

Like every cut state's bounds, the constants' ranges rest on `well_formed` itself: a cut's
values are in range when every check before it held; so if some check fails, the first one
that fails is asked over values in range, and its query is exact there. `well_formed` is
"every check holds", and this reading proves no check that a first failing one would need.
"""
from __future__ import annotations

import time

from .encode import CTX, and_all, not_, z3
from .system import System, flatten_and

__all__ = ["CutChecks"]

CHECK_MS = 1000  # per check asked at its cut
CHAIN_MS = 1000  # per query of a fact at a cut (the first from the state before the move)


class CutChecks:
    def __init__(self, system: System, assume: list):
        self.sys = system
        self.assume = assume
        self.conjuncts = [c for a in assume for c in flatten_and(a)]
        self._held: dict = {}  # (id(tr), run) -> per cut: the proved facts shown to hold there
        self.settled = 0  # checks proved this way (for the report and the tests)

    def transition(self, d: int, alt):
        return next((tr for tr in self.sys.transitions(d) if tr.alt is alt), None)

    def settle(self, d: int, alt, part: dict, goals: dict, at: list, deadline: float) -> dict:
        """The checks of `part` (key -> condition; `goals`: key -> Obligation) that are not
        proved at their cut."""
        tr = self.transition(d, alt)
        if tr is None:
            return part
        left = {}
        for k, cond in part.items():
            where = self.sys.check_cut(tr, goals[k])
            if where is None or time.perf_counter() >= deadline or not self._holds(tr, *where, cond, at, deadline):
                left[k] = cond
            else:
                self.settled += 1
        return left

    def _holds(self, tr, r: int, k: int, cond, at: list, deadline: float) -> bool:
        """The check, raised in the iteration from cut k (or after the loop, k its last cut),
        asked from the cut before (the iteration before it in the check's terms: small; and a
        loop's measure check compares the measure with the one before), read as fresh values."""
        held = self._held_at(tr, r, at, deadline)
        k = max(k - 1, 0)
        if k >= len(held):
            return False
        swap, facts, renaming = self.sys.cut_as_fresh(tr, r, k)
        known = [z3.substitute(f, *renaming) for f in held[k]] if renaming else held[k]
        goal = z3.substitute(cond, *swap) if swap else cond
        # the facts hold where the `if`s around the loop let it run: elsewhere the check (one
        # after the loop) reads the other branch's values, and the constants are anything
        base = [*self.assume, *at, tr.alt.guard, *facts, z3.Implies(self.sys.cut_guard(tr, r), and_all(known))]
        return bool(_houdini(base, [goal], deadline, CHECK_MS))

    def _held_at(self, tr, r: int, at: list, deadline: float) -> list[list]:
        """Per cut of run r (from the first): the proved facts shown to hold there; shorter
        than the run where an iteration's query was not settled."""
        key = (id(tr), r)
        if key in self._held:
            return self._held[key]
        dag = self.sys.dag
        cuts = self.sys.cut_renamings(tr)[r]
        changed = 0
        for state in cuts:
            for a, _ in state:
                changed |= dag.support(dag.add(a))
        # what the loop cannot change holds at every cut as it held before the move
        live, same = [], []
        for c in self.conjuncts:
            (live if dag.support(dag.add(c)) & changed else same).append(c)
        guard = self.sys.cut_guard(tr, r)
        first = [z3.substitute(f, *cuts[0]) if cuts[0] else f for f in live]
        kept = _houdini([*self.assume, *at, tr.alt.guard, guard], first, deadline)
        held = []
        if kept is not None:
            live = [f for f, g in zip(live, first) if any(g.eq(x) for x in kept)]
            held.append(live)
            for i in range(len(cuts) - 1):
                swap, facts, renaming = self.sys.cut_as_fresh(tr, r, i)
                now = [z3.substitute(f, *renaming) if renaming else f for f in live]
                nxt = [z3.substitute(f, *cuts[i + 1]) if cuts[i + 1] else f for f in live]
                nxt = [z3.substitute(g, *swap) if swap else g for g in nxt]
                kept = _houdini([guard, *same, *facts, *now], nxt, deadline)
                if kept is None:
                    break
                live = [f for f, g in zip(live, nxt) if any(g.eq(x) for x in kept)]
                held.append(live)
        self._held[key] = held
        return held


def _houdini(base: list, goals: list, deadline: float, ms: int = CHAIN_MS) -> list | None:
    """The largest subset of `goals` that `base` implies, each refuted one dropped by a model
    (None when the solver does not settle it within `ms` per query)."""
    goals = list(goals)
    while goals:
        ms = _within(ms, deadline)
        if ms <= 0:
            return None
        sol = z3.Solver(ctx=CTX)
        sol.set("timeout", ms)
        sol.add(*base)
        r = sol.check(not_(and_all(goals)))
        if r == z3.unsat:
            return goals
        if r != z3.sat:
            return None
        m = sol.model()
        goals = [g for g in goals if not z3.is_false(m.eval(g, model_completion=True))]
    return goals


def _within(ms: int, deadline: float) -> int:
    """`ms`, or the milliseconds left before `deadline` if fewer."""
    left = (deadline - time.perf_counter()) * 1000
    return ms if left >= ms else int(left)
