"""Termination by a ranking function read off the state's types, where the flow's loops have no
measure (or their measures' checks are not proved): some count of the state that every step of
the game decreases.

The candidate terms are the state's own quantities, each in both directions, so that one that
only grows counts too: a whole number's distance from either end of its range, how many items a
set or a sequence holds (or lacks), over an array how many entries hold each value of an
enumeration or a boolean, or the sum of its whole numbers, and over a board (an array over a
grid) of an enumeration, how far each kind's pieces are from each edge. Every term is at least 0
in every state within the declared ranges.

The search is Houdini's over "never increases" on every step (an alternative of the relation,
its successor not the end): first summand by summand (small queries), then, for the terms a step
only rearranges, as sums (asked briefly, then split by the move's choices). Then the steps that
can leave every kept term as it is: none, and the kept terms' sum decreases on every step; some,
and they are the next level's steps, ranked alone (a lexicographic measure, up to MAX_LEVELS
sums). The bound on a game's steps is the measure at the concrete initial state (the product of
the levels' ranges with several).

The queries assume what every reachable state satisfies (the proved invariants and facts, as the
run-time checks do) and the step's run-time checks, except the loops' measures: the result rests
on `well_formed`, and assuming that a measure decreases would assume what is to be shown.
"""
from __future__ import annotations

import operator
import time
from dataclasses import dataclass
from typing import Callable

from ...ir.types import ArrayT, BoolT, EnumT, GridT, SeqT, SetT, Type, is_int_like
from ..prove import Unsettled
from ..transition import initial
from ..encode import CTX, StateVars, and_all, bool_int, eq_leaf, int_range, ite, lift, not_, num, total, z3

__all__ = ["Ranking", "RankingResult", "candidate_terms", "prove_ranking"]

MAX_ENUM_ITEMS = 12  # an enumeration with more values is counted by its whole-number codes only
SUM_QUERY_MS = 1000  # a term as a sum (summand by summand failed): the first look's time-out, before splitting
MAX_LEVELS = 3  # a lexicographic measure of at most this many sums


@dataclass(frozen=True)
class Term:
    text: str  # how the report names it
    parts: Callable[[StateVars], list]  # its summands in a state (z3 Int terms): one per entry of an array
    hi: int  # its largest value within the declared ranges
    # a weighted count of where pieces are: summand by summand it says no more than the plain
    # count (each summand is the count's, weighted), so it is asked as a sum only
    as_sum_only: bool = False
    # the quantity it counts, shared with the term that counts it the other way (up and down): the
    # two always add up to the same number, so a measure that keeps both need not name them
    quantity: str = ""

    def at(self, s: StateVars):
        return total(self.parts(s))


@dataclass
class RankingResult:
    proved: bool
    reason: str
    measure: str = ""  # the sum of the kept terms, as the report names it
    bound: int | None = None  # at most this many steps (decisions and chance draws)
    queries: int = 0


def candidate_terms(program, n: int) -> list[Term]:
    out: list[Term] = []
    for name, t in program.var_types.items():
        out += _terms(name, t, (lambda s, name=name: s.vars[name]), n)
    for name, t in program.flow_locals.items():
        out += _terms(name, t, (lambda s, name=name: s.locals[name]), n)
    return out


def _both(text: str, parts: Callable, hi_each: int, count: int, up: str, down: str) -> list[Term]:
    """A quantity made of `count` summands in 0..hi_each, counted up and down."""
    quantity = up.format(text)
    return [Term(up.format(text), parts, hi_each * count, quantity=quantity),
            Term(down.format(text), (lambda s: [num(hi_each) - x for x in parts(s)]), hi_each * count,
                 quantity=quantity)]


def _terms(label: str, t: Type, get: Callable, n: int) -> list[Term]:
    if isinstance(t, ArrayT):
        return _array_terms(label, t, get, n)
    return _scalar_terms(label, t, (lambda s: [get(s)]), 1, n)


def _scalar_terms(label: str, t: Type, entries: Callable, count: int, n: int) -> list[Term]:
    """Terms over `count` entries of type t (one for a variable, the entries of an array)."""
    one = count == 1
    if isinstance(t, BoolT):
        return _both(label, lambda s: [bool_int(e) for e in entries(s)], 1, count,
                     "{} (1 when true)" if one else "count of true in {}",
                     "{} (1 when false)" if one else "count of false in {}")
    if isinstance(t, EnumT) and len(t.items) <= MAX_ENUM_ITEMS and not one:
        out = []
        for code, item in enumerate(t.items):
            out += _both(label, (lambda s, code=code: [bool_int(eq_leaf(e, num(code))) for e in entries(s)]), 1,
                         count, f"count of {item} in {{}}", f"count of entries not {item} in {{}}")
        return out
    if is_int_like(t):
        lo, hi = int_range(t, n)
        return _both(label, lambda s: [e - num(lo) for e in entries(s)], hi - lo, count,
                     f"{{}} - {lo}" if one else f"sum of {{}} (each - {lo})",
                     f"{hi} - {{}}" if one else f"sum of {{}} (each {hi} -)")
    if isinstance(t, SetT):
        size = _domain_size(t.elem, n)
        return _both(label, lambda s: [total([bool_int(b) for b in e]) for e in entries(s)], size, count,
                     "size({})" if one else "total size of {}",
                     f"{size} - size({{}})" if one else f"total room left in {{}} ({size} each)")
    if isinstance(t, SeqT):
        return _both(label, lambda s: [e.length for e in entries(s)], t.cap, count,
                     "size({})" if one else "total size of {}",
                     f"{t.cap} - size({{}})" if one else f"total room left in {{}} ({t.cap} each)")
    return []


def _domain_size(t: Type, n: int) -> int:
    lo, hi = int_range(t, n)
    return hi - lo + 1


def _entries(value, t: Type) -> list:
    """The scalar entries of an array (arrays of arrays flattened)."""
    if isinstance(t, ArrayT):
        return [x for v in value for x in _entries(v, t.elem)]
    return [value]


def _array_terms(label: str, t: ArrayT, get: Callable, n: int) -> list[Term]:
    elem, count = t, 1
    while isinstance(elem, ArrayT):
        count *= _domain_size(elem.index, n)
        elem = elem.elem
    return _scalar_terms(label, elem, (lambda s: _entries(get(s), t)), count, n) + _progress_terms(label, t, get)


def _progress_terms(label: str, t: ArrayT, get: Callable) -> list[Term]:
    """Over a board (an array over a grid's cells) of an enumeration: how far the pieces of each
    kind are from each edge, in rows and in columns (pieces that only move forward)."""
    g, elem = t.index, t.elem
    if not isinstance(g, GridT) or not isinstance(elem, EnumT) or len(elem.items) > MAX_ENUM_ITEMS:
        return []
    out = []
    for code, item in enumerate(elem.items):
        for axis, size, position in (("row", g.rows, lambda i: i // g.cols),
                                     ("column", g.cols, lambda i: i % g.cols)):
            for towards, weight in ((f"the first {axis}", position),
                                    (f"the last {axis}", lambda i, size=size, position=position: size - 1 - position(i))):
                weights = [weight(i) for i in range(g.rows * g.cols)]
                if not any(weights):
                    continue
                out.append(Term(f"distance of the {item} entries of {label} from {towards}",
                                (lambda s, code=code, weights=weights:
                                 [ite(eq_leaf(e, num(code)), num(w), num(0)) for e, w in zip(get(s), weights) if w]),
                                sum(weights), as_sum_only=True))
    return out


class Ranking:
    """The search over one prover's relation (`smt.prove.Prover`): its alternatives, its proved
    assumptions, its solver settings and its deadline."""

    def __init__(self, prover, progress: Callable[[str], None] | None = None):
        self.prover = prover
        self.progress = progress or (lambda text: None)
        self.queries = 0

    def _steps(self) -> list:
        """(decision point, alternative, the step's conditions) for every step not to the end."""
        prover, rel = self.prover, self.prover.rel
        out = []
        for d in prover.decisions():
            for alt in prover.alternatives(d):
                ongoing = not_(eq_leaf(alt.step.state.pc, num(-1)))
                # the run-time checks are assumed, but not the loops' measures: assuming that a
                # measure decreases would assume what is to be shown
                conds = prover._at(d, alt) + [alt.guard, ongoing] + \
                    [o.cond for o in alt.pre + alt.step.obligations if o.kind != "measure"]
                out.append((d, alt, and_all(conds)))
        return out

    def run(self, terms: list[Term]) -> RankingResult:
        prover, pre = self.prover, self.prover.rel.state
        assume = prover._proved_assumptions()
        steps = self._steps()

        def pointwise(k, post):  # no summand grows: sufficient for the sum, and a small query
            return and_all([lift(operator.le, b, a) for a, b in zip(terms[k].parts(pre), terms[k].parts(post))])

        def summed(k, post):
            return lift(operator.le, terms[k].at(post), terms[k].at(pre))

        # Per level: 1. Houdini over "never increases", summand by summand (small queries);
        # 2. the steps that can leave every kept term as it is (they never increase: the others
        # decrease their sum). If some can, the terms a step only rearranges (a piece that moves)
        # are tried as sums; the steps that still can are the next level's, which ranks them alone
        # (lexicographically: a capture decreases the pieces, a quiet move the moves left).
        levels: list = []  # (kept terms, those kept summand by summand, the level's steps)
        active = steps
        for _level in range(MAX_LEVELS):
            everywhere = self._houdini(active, assume, [k for k, t in enumerate(terms) if not t.as_sum_only],
                                       pointwise, "summand by summand")
            keep = everywhere
            staying = self._staying(active, assume, terms, keep, everywhere, pre)
            if isinstance(staying, list) and staying:
                rest = [k for k in range(len(terms)) if k not in everywhere]
                more = self._houdini(active, assume, rest, summed, "as sums")
                if more:
                    keep = sorted(everywhere + more)
                    staying = self._staying(active, assume, terms, keep, everywhere, pre)
            if isinstance(staying, str):
                return RankingResult(False, staying, queries=self.queries)
            if not keep or all(_constant(terms[k], active, pre) for k in keep):
                return RankingResult(False, "every count of the state can grow on some step", queries=self.queries)
            levels.append((keep, everywhere, active))
            if not staying:
                return self._result(levels, terms, steps, assume, pre)
            active = staying
        d, alt, _ = active[0]
        return RankingResult(False, f"the step {alt.label} (decision point at line "
                             f"{prover.p.decisions[d].node.span.line}) can leave every count of the state that never "
                             "grows as it is, from a state satisfying the proved invariants (it may be unreachable)",
                             queries=self.queries)

    def _result(self, levels: list, terms: list, steps: list, assume: list, pre) -> RankingResult:
        """The measure as the report names it, and a bound on the steps: the measure at the
        concrete initial state (the kept terms that never change are left out: they add the
        same before and after every step); one term that every step decreases alone is a tighter
        bound and a plainer measure. With several levels, the bound is their product."""
        prover = self.prover
        start = initial(prover.p, prover.n, prover.options).state
        texts, bound, earlier = [], 1, set()
        for i, (keep, everywhere, active) in enumerate(levels):
            # a level's steps leave the earlier levels' terms as they are: they are not repeated
            changing = [k for k in keep if k not in earlier and not _constant(terms[k], active, pre)] or keep
            changing = _without_twins(changing, terms)
            earlier |= set(keep)
            if len(levels) == 1:
                for k in sorted(changing, key=lambda k: _value(terms[k].at(start), terms[k].hi)):
                    try:
                        if self._staying(steps, assume, terms, [k], everywhere, pre) == []:
                            changing = [k]
                            break
                    except Unsettled:  # out of time: the sum stands
                        break
            texts.append(" + ".join(terms[k].text for k in changing))
            most = sum(terms[k].hi for k in changing)
            bound *= (_value(total([terms[k].at(start) for k in changing]), most) if i == 0 else most) + 1
        text = texts[0] + "".join(f", or leaves it and decreases {t}" for t in texts[1:])
        return RankingResult(True, "", text, bound - 1, self.queries)

    def _staying(self, steps, assume, terms, keep, pointwise, pre):
        """The steps that can leave every kept term as it is, each with that as a further
        condition (the next level's steps), or why the solver could not tell."""
        prover, out = self.prover, []
        for d, alt, cond in steps:
            prover.check_budget()
            post = alt.step.state
            self.progress(f"ranking: does {alt.label} decrease the measure")
            same = and_all([and_all([eq_leaf(a, b) for a, b in zip(terms[k].parts(pre), terms[k].parts(post))])
                            if k in pointwise else eq_leaf(terms[k].at(post), terms[k].at(pre)) for k in keep])
            sol = prover.solver()
            if any(k not in pointwise for k in keep):  # sums: short looks, split by the choices
                sol.set("timeout", min(SUM_QUERY_MS, prover._call_ms()))
            sol.add(*assume, cond)
            r = self._check_split(sol, same, tuple(alt.split))
            if r == z3.unknown:
                return f"the solver gave up on the step {alt.label}"
            if r == z3.sat:
                out.append((d, alt, and_all([cond, same])))
        return out

    def _houdini(self, steps: list, assume: list, candidates: list, holds, how: str) -> list:
        """The candidates that `holds(k, successor)` on every step; where the solver gives up,
        the step is asked again for each value of its first choice worth splitting (a moved
        piece's cell: the writes become concrete), and where it still gives up, nothing is kept."""
        keep = list(candidates)
        for d, alt, cond in steps:
            if not keep:
                break
            self.progress(f"ranking: which counts can grow at {alt.label}, {how}")
            sol = self.prover.solver()
            if how == "as sums":  # sums over many entries can take the solver long: a short look
                sol.set("timeout", min(SUM_QUERY_MS, self.prover._call_ms()))
            sol.add(*assume, cond)
            keep = self._kept(sol, alt, keep, holds, tuple(alt.split)) or []
        return keep

    def _check_split(self, sol, formula, splits: tuple):
        """sol.check(formula); where the solver gives up, once per value of the first choice worth
        splitting (unsat only if every value is unsat)."""
        self.prover.check_budget()
        self.queries += 1
        r = sol.check(formula)
        if r != z3.unknown or not splits:
            return r
        leaf, lo, hi = splits[0]
        for v in range(lo, hi + 1):
            sol.push()
            sol.add(eq_leaf(leaf, num(v)))
            r = self._check_split(sol, formula, splits[1:])
            sol.pop()
            if r != z3.unsat:
                return r
        return z3.unsat

    def _kept(self, sol, alt, keep: list, holds, splits: tuple) -> list | None:
        """Houdini at one step: the candidates no model of `sol` breaks (None: the solver gave up)."""
        while keep:
            self.prover.check_budget()
            grows = {k: not_(holds(k, alt.step.state)) for k in keep}
            self.queries += 1
            r = sol.check(z3.Or(list(grows.values()) + [z3.BoolVal(False, CTX)]))
            if r == z3.unsat:
                return keep
            if r == z3.sat:
                model = sol.model()
                keep = [k for k in keep if not z3.is_true(model.eval(grows[k], model_completion=True))]
                continue
            if not splits:  # the disjunction is too hard: each candidate alone (dropping is sound)
                if len(keep) == 1:
                    return None
                alone = [self._kept(sol, alt, [k], holds, ()) for k in keep]
                return [k for k, kept in zip(keep, alone) if kept]
            leaf, lo, hi = splits[0]
            for v in range(lo, hi + 1):
                sol.push()
                sol.add(eq_leaf(leaf, num(v)))
                kept = self._kept(sol, alt, keep, holds, splits[1:])
                sol.pop()
                if kept is None:
                    return None
                keep = kept
            return keep
        return keep


def _value(term, otherwise: int) -> int:
    """A term over a concrete state as a number (`otherwise` if it does not simplify to one)."""
    value = z3.simplify(term)
    return value.as_long() if z3.is_int_value(value) else otherwise


def _without_twins(keep: list, terms: list) -> list:
    """The kept terms less every pair that counts one quantity up and down: the pair adds up to a
    constant in every state, so the rest of the sum decreases wherever the whole does, and the
    measure names (and the bound counts) only what moves."""
    quantities = [terms[k].quantity for k in keep if terms[k].quantity]
    twinned = {q for q in quantities if quantities.count(q) == 2}
    return [k for k in keep if terms[k].quantity not in twinned] or keep


def _constant(term: Term, steps: list, pre) -> bool:
    """The term is the same expression before and after every step (it names nothing that moves)."""
    before = term.at(pre)
    return all(z3.eq(z3.simplify(term.at(alt.step.state)), z3.simplify(before)) for _d, alt, _c in steps)


def prove_ranking(prover, progress=None) -> RankingResult:
    """The ranking search over the prover's relation (raises what the prover raises at its deadline)."""
    t0 = time.perf_counter()
    result = Ranking(prover, progress).run(candidate_terms(prover.p, prover.n))
    result.reason = result.reason or f"in {time.perf_counter() - t0:.1f} s"
    return result
