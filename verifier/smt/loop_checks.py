"""Run-time checks inside a decision-free `for` loop that many moves run, asked once for all of them.

A loop in the flow after a `choose` (on a seed game: every card a player holds, completed as
soon as the board matches it, after each of a turn's moves) is unrolled into every move's
successor: 52 iterations × 5 checks in each of 14 moves, each check a term over the iterations
before it. Asked per move (`cut_checks.py`), each iteration's facts cost a query of 1-2 s.

Here the loop is read on its own (`System.loop_alone`): from the state's leaves, whichever move
led there, each iteration from its own start with what the iterations before changed read as
fresh constants within their declared bounds (`System.loop_steps`), so that each query is one
iteration's size. Per loop (and the values the moves fix where it starts, `System.loop_pins`):

1. the proved facts over `var`s that concern the loop are kept by every iteration, assuming
   them where the loop starts and where the iteration starts (a Houdini fixpoint over the
   iterations: a fact one iteration does not keep is dropped, and the iterations are asked
   again with the rest);
2. each iteration's checks are asked from its start with those facts and bounds.

Per move, the facts that remain are shown where its run of the loop starts (from the state
before the move, with the proved invariants). Then the move's run is the loop run on its own
with the leaves read as that start: each of its checks raised in iteration k at a statement is
settled when every check the loop raised on its own at that statement in iteration k is proved.

What rests on what: the fresh constants' bounds hold where every assignment before was
range-checked, so what this shows rests on `well_formed` itself, as a cut read as fresh values
does (`cut_checks.py`): the first check to fail, if one does, is asked over values in range,
and its query is exact there; "every check holds" is proved only when none does.
"""
from __future__ import annotations

import time

from .dag import abstract_apart as dag_abstract
from .encode import CTX, and_all, eq_leaf, flatten_and, not_, z3
from .system import System, Transition

__all__ = ["SharedLoopChecks"]

QUERY_MS = 1000  # per query of one iteration (its facts kept, its checks) or of a move's start
MAX_FAILS = 3  # iterations at which a check is not shown before it is no longer asked


class _LoopProof:
    """What is shown of one loop run on its own, with some values fixed where it starts. Built
    a query at a time, so that a move's deadline can stop it and the next move go on."""

    def __init__(self, steps: list, checks: list, pins: tuple, facts: list, written: int):
        self.steps = steps  # per iteration: (start, end, bounds, fresh bits) (`System.loop_steps`)
        self.checks = checks  # per iteration: its Obligations
        self.pins = pins
        self.facts = facts  # the candidates: proved facts about what the loop writes
        self.written = written  # the support bits of the `var` leaves some iteration writes
        self.bounds = steps[-1][2] if steps else []  # the fresh values' declared bounds (every step's)
        # 1. each iteration's checks, assuming every candidate: per iteration asked, the keys
        #    of the checks shown and the candidates that showed them (an unsat core)
        self.tried: list[tuple[set, set]] = []
        # 2. the facts the checks rest on, made a set every iteration keeps (grown by what a
        #    fact's keeping rests on, shrunk by what some iteration does not keep)
        self.kept_facts: list | None = None
        self.kept = 0  # iterations shown to keep every one of `kept_facts`
        self.dropped: set = set()  # ids of the facts some iteration does not keep
        # 3. per iteration: the keys of its checks shown from `kept_facts` alone
        self.shown: list[set] = []
        self.failed = False  # the loop cannot be asked so: nothing more is asked
        self.fails: dict = {}  # a check's key -> the iterations at which it was not shown


def check_key(o) -> tuple:
    """What identifies a check across the move's run and the loop's own: where, what, which kind."""
    return (o.span.line, o.span.col, o.sentence, o.kind)


class SharedLoopChecks:
    """The step for one `well_formed` run: the proved facts (`assume`), and per loop and pins the
    proof so far, shared by every move whose flow runs that loop."""

    def __init__(self, system: System, assume: list):
        self.sys = system
        self.assume = assume
        var_bits = system.var_bits()
        dag = system.dag
        # the proved facts that can be read where a loop starts, mid-move: over `var`s only (a
        # fact about the decision point, its locals or its loop positions need not hold there)
        self.facts = []
        for a in assume:
            for c in flatten_and(a):
                bits = dag.support(dag.add(c))
                if bits and not bits & ~var_bits:
                    self.facts.append((c, bits))
        self._proofs: dict = {}  # (id(loop), pin ids) -> _LoopProof
        self._starts: dict = {}  # (id(tr), r) -> bool: the proof's facts hold at the move's start
        self.settled = 0  # checks settled this way (for the report and the tests)

    def settle(self, d: int, alt, part: dict, goals: dict, at: list, deadline: float) -> dict:
        """The checks of `part` (key -> condition; `goals`: key -> Obligation) not settled here."""
        tr = next((t for t in self.sys.transitions(d) if t.alt is alt), None)
        if tr is None:
            return part
        runs: dict = {}  # run -> [(check key in part, iteration)]
        for k in part:
            where = self.sys.check_cut(tr, goals[k])
            if where is None:
                continue
            r, cut = where
            if cut < len(self.sys.cut_renamings(tr)[r]) - 1:  # (the last cut's: after the loop)
                runs.setdefault(r, []).append((k, cut))
        left = dict(part)
        for r, keys in runs.items():
            if time.perf_counter() >= deadline:
                break
            proof = self._proof(tr, r, deadline)
            if proof is None or not self._holds_at_start(tr, r, proof, at, deadline):
                continue
            for k, cut in keys:
                if cut < len(proof.shown) and check_key(goals[k]) in proof.shown[cut]:
                    del left[k]
                    self.settled += 1
        return left

    # ------------------------------------------------------------ the loop on its own
    def _proof(self, tr: Transition, r: int, deadline: float) -> _LoopProof | None:
        """Run r's loop on its own, shown as far as the deadline lets it; None where the loop
        cannot be read on its own, or the move's run does not line up with it."""
        sys = self.sys
        alone = sys.loop_alone(tr, r)
        if alone is None:
            return None
        pins = sys.loop_pins(tr, r)
        key = (id(alone[0]), tuple((a.get_id(), b.get_id()) for a, b in pins))
        proof = self._proofs.get(key)
        if proof is None:
            steps, checks = sys.loop_steps(tr, r, pins), sys.loop_step_checks(tr, r, pins)
            if steps is None or checks is None or len(checks) != len(steps):
                self._proofs[key] = proof = _LoopProof([], [], pins, [], 0)
                proof.failed = True
            else:
                written = 0
                for _, end, _, _ in steps:
                    for a, _ in end:
                        written |= sys.dag.support(sys.dag.add(a))
                # the facts about what the loop writes: the others hold at every iteration as
                # where it starts, and what the checks need of them is read there
                facts = [c for c, bits in self.facts if bits & written]
                self._proofs[key] = proof = _LoopProof(steps, checks, pins, facts, written)
        # the move's run iterates over the same items (the values it fixes are the pins; an
        # item whose membership the move's terms decide is one the pins decide too): checked
        if proof.failed or len(sys.cut_renamings(tr)[r]) - 1 != len(proof.steps):
            return None
        self._advance(proof, deadline)
        return proof

    def _query(self, proof: _LoopProof, i: int, goals: list, facts: list, keep: int) -> tuple[list, dict, list]:
        """Iteration i's query for `goals` (formulas over the loop's terms): what it may assume
        (the pins, the declared bounds of the leaves and fresh values read), each of `facts`
        that shares a leaf with `keep` as one hypothesis (where the loop starts and where the
        iteration starts: {fact id: formula}), and the goals, all with the values pinned and
        every part that reads none of the leaves of `keep` or of those facts left free
        (`dag.abstract_apart`): an item's test of the board is then a free flag, which the
        solver otherwise unfolds in every query (0.05 s a query where as it is 0.5-2.5 s)."""
        dag = self.sys.dag
        start, _, _, fresh = proof.steps[i]
        pin = (lambda x: z3.substitute(x, *proof.pins)) if proof.pins else (lambda x: x)
        taken = [f for f in facts if dag.support(dag.add(f)) & keep]
        for f in taken:
            keep |= dag.support(dag.add(f))
        keep |= fresh

        def free(x):
            x = pin(x)
            dag.add(x)
            y = dag_abstract(dag, x, keep)
            return x if y is None else y
        hyps = {f.get_id(): free(z3.And(f, z3.substitute(f, *start)) if start else f) for f in taken}
        goals = [free(g) for g in goals]
        read = 0
        for x in [*hyps.values(), *goals]:
            read |= dag.support(dag.add(x))
        # (every iteration's: a value an iteration leaves unchanged keeps the constant an
        # iteration before it made, with its bounds)
        base = [*(eq_leaf(a, b) for a, b in proof.pins), *self.sys.bounds_of(read & self.sys.var_bits()),
                *(b for b in proof.bounds if dag.support(dag.add(b)) & read)]
        return base, hyps, goals

    def _checks(self, proof: _LoopProof, i: int, facts: list, deadline: float) -> tuple[set, set] | None:
        """Iteration i's checks from `facts` (assumed where the loop and the iteration start):
        the keys of those shown (a key is shown when every check of the iteration with that
        key is), and the facts the solver used; None when out of time."""
        # (a check that failed at MAX_FAILS iterations is no longer asked: on a seed game each
        # failing one costs 0.4 s an iteration, and what this does not settle is asked later)
        checks = [o for o in proof.checks[i] if proof.fails.get(check_key(o), 0) < MAX_FAILS]
        if not checks:
            return set(), set()
        base, hyps, conds = self._query(proof, i, [o.cond for o in checks], facts, proof.written)
        kept, core = _houdini(base, conds, deadline, hyps)
        if kept is None:  # (one check the solver did not settle: the others one at a time)
            kept = []
            for c in conds:
                one, used = _houdini(base, [c], deadline, hyps)
                if one is None and time.perf_counter() >= deadline:
                    return None
                kept += one or []
                core |= used
        ids = {c.get_id() for c in kept}
        keys: dict = {}
        for o, c in zip(checks, conds):
            keys[check_key(o)] = keys.get(check_key(o), True) and c.get_id() in ids
        for k, ok in keys.items():
            if not ok:
                proof.fails[k] = proof.fails.get(k, 0) + 1
        return {k for k, ok in keys.items() if ok}, core

    def _advance(self, proof: _LoopProof, deadline: float) -> None:
        """Go on with the proof until it is done or the deadline (see `_LoopProof`)."""
        by_id = {f.get_id(): f for f in proof.facts}
        while len(proof.tried) < len(proof.steps):  # 1.
            if time.perf_counter() >= deadline:
                return
            got = self._checks(proof, len(proof.tried), proof.facts, deadline)
            if got is None:
                return
            proof.tried.append(got)
        if proof.kept_facts is None:
            needed = set().union(*(core for _, core in proof.tried))
            proof.kept_facts = [f for f in proof.facts if f.get_id() in needed]
        dag = self.sys.dag
        while proof.kept < len(proof.steps):  # 2.
            if time.perf_counter() >= deadline:
                return
            i = proof.kept
            start, end, _, _ = proof.steps[i]
            changed = []
            for f in proof.kept_facts:
                if not (z3.substitute(f, *end) if end else f).eq(z3.substitute(f, *start) if start else f):
                    changed.append(f)
            if not changed:
                proof.kept += 1
                continue
            about = 0  # (the leaves the facts are about, not all their terms after the iteration read)
            for f in changed:
                about |= dag.support(dag.add(f))
            after = [z3.substitute(f, *end) if end else f for f in changed]
            base, hyps, goals = self._query(proof, i, after, proof.kept_facts, about)
            kept, _ = _houdini(base, goals, deadline, hyps)
            if kept is None and time.perf_counter() >= deadline:
                return
            ids = {g.get_id() for g in kept or []}
            rest = [f for f, g in zip(changed, goals) if g.get_id() not in ids]
            if not rest:
                proof.kept += 1
                continue
            # what the rest rests on, among every candidate: added, and every iteration asked
            # again; what they do not show is dropped
            base, hyps, goals = self._query(proof, i, [z3.substitute(f, *end) if end else f for f in rest],
                                            proof.facts, about)
            kept, core = _houdini(base, goals, deadline, hyps)
            if kept is None and time.perf_counter() >= deadline:
                return
            ids = {g.get_id() for g in kept or []}
            have = {f.get_id() for f in proof.kept_facts}
            dropped = {f.get_id() for f, g in zip(rest, goals) if g.get_id() not in ids}
            proof.dropped |= dropped
            # (a fact once dropped is never brought back: else a core could bring back what an
            # iteration drops again, and the fixpoint would go round without end)
            added = set(core) - have - proof.dropped if kept else set()
            proof.kept_facts = [f for f in proof.kept_facts if f.get_id() not in dropped] + \
                [by_id[k] for k in added if k not in dropped]
            proof.kept = 0
        while len(proof.shown) < len(proof.steps):  # 3.
            if time.perf_counter() >= deadline:
                return
            i = len(proof.shown)
            keys, core = proof.tried[i]
            have = {f.get_id() for f in proof.kept_facts}
            if not core <= have:  # (some fact it rested on was dropped: asked again without)
                got = self._checks(proof, i, proof.kept_facts, deadline)
                if got is None:
                    return
                keys = got[0]
            proof.shown.append(keys)

    # ------------------------------------------------------------ the move's start
    def _holds_at_start(self, tr: Transition, r: int, proof: _LoopProof, at: list, deadline: float) -> bool:
        """The proof's facts hold where the move's run of the loop starts (from the state before
        the move: the proved invariants, the decision point's facts, the move's legality), under
        the `if`s around the loop; asked once per move and run."""
        key = (id(tr), r)
        if key in self._starts:
            return self._starts[key]
        if len(proof.shown) < len(proof.steps):
            return False  # (not shown yet: asked at a later move)
        start = self.sys.cut_renamings(tr)[r][0]
        facts = proof.kept_facts
        goals = [z3.substitute(f, *start) for f in facts] if start else []
        goals = [g for g, f in zip(goals, facts) if not g.eq(f)]  # (untouched: assumed)
        base = [*self.assume, *at, tr.alt.guard, self.sys.cut_guard(tr, r)]
        kept = _houdini(base, goals, deadline)[0] if goals else []
        if kept is None and time.perf_counter() >= deadline:
            return False  # (out of time: asked again at the next call)
        self._starts[key] = ok = kept is not None and len(kept) == len(goals)
        return ok


def _houdini(base: list, goals: list, deadline: float, hyps: dict | None = None) -> tuple[list | None, set]:
    """The largest subset of `goals` that `base` and the hypotheses (`hyps`: key -> formula)
    imply, each refuted one dropped by a model, and the keys of the hypotheses the last query
    used (an unsat core); (None, set()) when the solver does not settle a query within QUERY_MS
    or the deadline."""
    goals = list(goals)
    hyps = hyps or {}
    while goals:
        ms = min(QUERY_MS, int((deadline - time.perf_counter()) * 1000))
        if ms <= 0:
            return None, set()
        sol = z3.Solver(ctx=CTX)
        sol.set("timeout", ms)
        sol.add(*base)
        marks, lits = {}, []
        for k, h in hyps.items():
            mark = z3.FreshConst(z3.BoolSort(CTX), "fact")
            marks[mark.get_id()] = k
            lits.append(mark)
            sol.add(z3.Implies(mark, h))
        sol.add(not_(and_all(goals)))
        r = sol.check(*lits)
        if r == z3.unsat:
            return goals, {marks[m.get_id()] for m in sol.unsat_core() if m.get_id() in marks}
        if r != z3.sat:
            return None, set()
        m = sol.model()
        goals = [g for g in goals if not z3.is_false(m.eval(g, model_completion=True))]
    return goals, set()
