"""A loop's measure check asked summand by summand, the way the ranking engine asks a count.

`while C decreases E` checks at every iteration that E is below its value at the iteration
before (`transition.measure_check`: `M == -1 or E < M`, where M is the remembered value: the
state's `M_k` for a flow loop, which the proved fact "M_k is E at the loop's head" ties to the
state at the decision point; the previous iteration's term for a loop inside a move). Where E is
a sum over an index (`count(i in Idx where ...)`, `sum(...)`), the whole query "the new sum is
below the old one" over a board of 64 entries that a move writes at positions it chooses can
take the solver tens of seconds (Clobber's `well_formed`: given up on after 23 s at `--budget
60`), while the same count's summands are small queries each: the ranking engine proves that
count decreasing at every move in 0.1 s a move.

So, for such a check: the two readings of E (over the new values and over the old ones) are
walked in step through their sums, differences and products down to the terms where they differ
(a count's entries); Houdini keeps, of "this term is no larger than before" and "no smaller than
before", what every model of the query satisfies (all at once; a model drops what it breaks);
then the check itself is asked with those as facts (one entry must then change the right way).

Sound: each summand fact is proved under the query's own assumptions (the proved invariants,
the decision point and the move's case, its legality) and the check's own path condition, which
is the premise of the check; so the check follows from the assumptions alone whenever it
follows from them with the facts. Two readings that are not the same expression (sums of
different lengths) are not asked: the check goes on to the other ways, as before.
"""
from __future__ import annotations

import itertools
import operator
import time

from .encode import Encoder, and_all, eq_leaf, is_true, lift, not_, num, or_all, z3

__all__ = ["MeasureChecks"]

SUMMAND_MS = 2000  # one query over the summands (or the check with their facts): a short look
MAX_ROUNDS = 4  # models a group of facts is refined by before it is given up

_LT, _OR, _NOT = z3.Z3_OP_LT, z3.Z3_OP_OR, z3.Z3_OP_NOT
_WALKED = (z3.Z3_OP_ADD, z3.Z3_OP_SUB, z3.Z3_OP_MUL, z3.Z3_OP_UMINUS)  # arithmetic the pairs are read through


class MeasureChecks:
    """The measure checks of one prover's moves (`smt.prove.Prover`), settled summand by summand;
    `settled` counts them for the report."""

    def __init__(self, prover):
        self.prover = prover
        self.settled = 0
        self._before: dict = {}  # k -> the sum of loop k's measure at the decision point (encoded once)

    def settle(self, sol, d: int, alt, part: dict, goals: dict, deadline: float, pool) -> dict:
        """`part` (key -> condition) less the measure checks proved here. `sol` holds the query's
        assumptions (the move's legality among them); it is left as it was. `pool`: the same
        assumptions split for slicing (`prove._Pool`)."""
        left = dict(part)
        for k, goal in part.items():
            if goals[k].kind != "measure" or time.perf_counter() > deadline:
                continue
            found = self._comparison(goal)
            if found is None:
                continue
            guard, pairs, remembered = found
            try:
                proved = any(self._holds(over, alt, goal, guard, pairs, deadline)
                             for over in self._solvers(sol, d, alt, pool, remembered))
            except _Late:
                break
            if proved:
                del left[k]
                self.settled += 1
        return left

    def _solvers(self, sol, d: int, alt, pool, remembered):
        """First a light query: the declared ranges, the move's case and legality, and the facts
        that read the remembered measure (what ties it to the state); the proved invariants over
        the whole board made the same check time out on Checkers. Then `sol`, all of them."""
        prover = self.prover
        light = prover.solver()
        tied = pool.sharing(pool.leaves_of(remembered)) if remembered is not None else []
        light.add(*prover.rel.ranges(prover.rel.state, prover.rel.snaps), *tied, *prover._at(d, alt), alt.guard)
        yield light
        yield sol

    def _comparison(self, goal):
        """(the check's path condition, the pairs of a new summand and its old one, the remembered
        measure's field or None) for a check read as `guard implies (... or new < old)`, where
        new and old are the same sum over different states; else None."""
        guard, body = z3.BoolVal(True, goal.ctx), goal
        if _kind(goal) == _OR and goal.num_args() == 2 and _kind(goal.arg(0)) == _NOT:
            guard, body = goal.arg(0).arg(0), goal.arg(1)
        for lt in _comparisons(body):
            new, old = lt.arg(0), lt.arg(1)
            field = z3.is_const(old) and not z3.is_int_value(old)
            before = self._remembered(old) if field else old
            pairs = _pairs(new, before) if before is not None else None
            if pairs and len(pairs) > 1:
                return guard, pairs, old if field else None
        return None

    def _remembered(self, leaf):
        """The sum a flow loop's remembered measure `M_k` stands for at the decision point (the
        loop's E over the state there), or None if `leaf` is no such field."""
        prover = self.prover
        for k, loop in enumerate(prover.p.measures):
            if prover.rel.snaps.get(f"M_{k}") is not None and prover.rel.snaps[f"M_{k}"].eq(leaf):
                if k not in self._before:
                    self._before[k] = Encoder(prover.p, prover.n, prover.options,
                                              prover.rel.state).expr(loop.decreases)
                return self._before[k]
        return None

    def _holds(self, sol, alt, goal, guard, pairs: list, deadline: float) -> bool:
        prover = self.prover
        # each term's direction, as a group: "no larger than before" and "no smaller" (a count
        # subtracted from the measure must not shrink)
        groups = [[lift(op, new, old) for new, old in pairs] for op in (operator.le, operator.ge)]
        sol.push()
        try:
            sol.set("timeout", min(SUMMAND_MS, prover._call_ms()))
            sol.add(guard)
            return self._ask(sol, goal, groups, tuple(alt.split), deadline) == z3.unsat
        finally:
            sol.pop()
            sol.set("timeout", prover._call_ms())

    def _ask(self, sol, goal, groups: list, splits: tuple, deadline: float):
        """Whether `goal` can fail (z3.unsat: it cannot) given the facts of the groups that every
        model of `sol` satisfies. Where the solver gives up, once per combination of the values
        of the choices worth splitting (a moved piece's cell and direction: the entries the move
        writes become concrete, and so which of them change which way), each with every group
        again. All of them at once: with one choice fixed and the next still symbolic, each
        value's look was given up on as well (Checkers: 2 s lost per cell)."""
        r = self._once(sol, goal, groups, deadline)
        if r != z3.unknown or not splits:
            return r
        for values in itertools.product(*[range(lo, hi + 1) for _leaf, lo, hi in splits]):
            sol.push()
            sol.add(*[eq_leaf(leaf, num(v)) for (leaf, _lo, _hi), v in zip(splits, values)])
            r = self._once(sol, goal, groups, deadline)
            sol.pop()
            if r != z3.unsat:
                return r
        return z3.unsat

    def _once(self, sol, goal, groups: list, deadline: float):
        facts = []
        for group in groups:
            kept, r = self._houdini(sol, group, deadline)
            if r == z3.unknown:
                return r
            facts += kept
        self._in_time(deadline)
        return sol.check(and_all(facts), not_(goal))

    def _houdini(self, sol, group: list, deadline: float) -> tuple[list, object]:
        """The facts of the group that every model satisfies (z3.unsat), or what stopped it:
        z3.unknown where the solver gave up; nothing kept after MAX_ROUNDS models (a term a
        symbolic choice may move either way breaks one fact a model: not worth a round each)."""
        keep = list(group)
        for _round in range(MAX_ROUNDS):
            if not keep:
                break
            self._in_time(deadline)
            r = sol.check(or_all(not_(f) for f in keep))
            if r != z3.sat:
                return (keep, r) if r == z3.unsat else ([], r)
            model = sol.model()
            keep = [f for f in keep if is_true(model.eval(f, model_completion=True))]
        else:
            keep = []
        return keep, z3.unsat

    def _in_time(self, deadline: float) -> None:
        self.prover.check_budget()
        if time.perf_counter() > deadline:
            raise _Late


class _Late(Exception):
    """The move's time for its checks ran out: the check is left to the other ways."""


def _kind(t) -> int:
    return t.decl().kind() if z3.is_app(t) else -1


def _pairs(new, old) -> list | None:
    """The terms where two readings of one arithmetic expression differ, walked in step through
    their sums, differences and products (a count's entries, a weighted count's): [(new, old)],
    each pair of the same sort; None where the sorts differ. Any pairing is sound (its facts are
    proved before they are used); a pairing that matches the sums' entries makes them useful."""
    if new.eq(old):
        return []
    if new.sort() != old.sort() or not z3.is_arith(new):
        return None
    if _kind(new) in _WALKED and _kind(new) == _kind(old) and new.num_args() == old.num_args():
        out = []
        for a, b in zip(new.children(), old.children()):
            inner = _pairs(a, b)
            if inner is None:
                return None
            out += inner
        return out
    return [(new, old)]


def _comparisons(t, seen: set | None = None) -> list:
    """The `<` comparisons in a Boolean term, through its `and`s, `or`s and `not`s."""
    seen = set() if seen is None else seen
    if t.get_id() in seen or not z3.is_app(t):
        return []
    seen.add(t.get_id())
    kind = _kind(t)
    if kind == _LT:
        return [t]
    if kind in (_OR, _NOT, z3.Z3_OP_AND):
        return [c for a in t.children() for c in _comparisons(a, seen)]
    return []
