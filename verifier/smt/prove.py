"""Proofs over the transition relation (`relation.py`) of one game setting.

- `invariants()`: initiation on the initial state (concrete: chance happens at decision points)
  and *mutual* induction: the candidates (the spec's invariants and the relation's frame facts)
  are assumed at a free state at each decision point, and each must hold after every legal
  alternative there. Candidates that fail are dropped and the rest re-checked until a fixpoint:
  what remains is inductive together, hence proved for every reachable decision-point state.
  (Induction "strengthened by the spec's other invariants", each other invariant counting only
  once it is itself proved.) A dropped invariant is reported `unknown` with the move that breaks
  it from a state satisfying the rest — a counterexample to induction, which may be unreachable.
- `obligations()`: every obligation (the engine's run-time checks: values within their types,
  partial operations, loop measures) holds at every alternative of every decision point under
  the proved invariants: the `well_formed` property.
- `deadlocks()`: at every player decision point some move is legal (for each player at a
  simultaneous node) under the proved invariants: `no_deadlock`.
- `score_bounds()`: Z3 Optimize on each player's score over final states satisfying the proved
  invariants: a proved interval (it may be wider than what play reaches).

Each solver call has a time-out; a time-out makes the answer "unknown", never "proved".
"""
from __future__ import annotations

import itertools
import math
import time
from contextlib import contextmanager
from dataclasses import dataclass, field

from ..frontend.typecheck import Program
from ..ir import nodes as N
from ..ir.types import ArrayT, IntT, PlayerT, SeqT, SetT
from .encode import (CTX, TRUE, Encoder, NotEncoded, SetVal, encoding_deadline, set_size, StateVars, and_all, same, int_range, bool_int, total, eq_leaf, eq_val, implies, is_false, is_num, is_true, literal, not_, num, or_all, with_values, z3)
from .relation import Alternative, Candidate, OutOfTime, Relation, SuccessorPath, at_pc, successor_cases, successor_paths
from .transition import initial, legal, fresh_params, outcome_checks
from .dag import Dag
from .system import flatten_and
from .cut_checks import CutChecks
from .loop_checks import SharedLoopChecks
from .measure_checks import MeasureChecks
from .counting import distinct_items
from .unroll import Path, leaves, same_state

__all__ = ["Prover", "Reached", "Verdict"]

HINT_TIMEOUT_MS = 1500  # per solver call about frame facts (spec invariants get the full time-out)
HINT_BUDGET_S = 20.0  # per alternative and round for frame facts; what is unsettled then is dropped
HINT_SHARE = 0.4  # of the time budget for frame facts; after it, each alternative gets a glance
MAX_WIDE_RELATIONS = 12  # linear equalities over three or more quantities guessed per decision point
MAX_COEFFICIENT = 8  # ... each with coefficients at most this large
GLANCE_MS = 1500  # the first query of a move's run-time checks, all together (`_glance`)
ENDS_MS = 5000  # the outcome's checks at every end at once (`_outcome_at_every_end`)
SLICE_MS = 1000  # per sliced try of a run-time check not settled at a glance (`_sliced_holds`)
MAX_POSITION_CASES = 16  # loop positions a check is asked at one by one (`_holds_by_position`)
SYMBOLIC_MS = 2000  # a whole query of checks with the move's choices symbolic, before value by value
SPLIT_TRY_MS = 300  # ... and with some of them fixed, before fixing the next
ALONE_MS = 300  # per goal asked alone when the goals together were not settled (`_houdini`)
CONJUNCT_MS = 5000  # per conjunct of a claim the solver gave up on as a whole (`_each_conjunct`)
MAX_BOUND_STEPS = 8  # plain-solver steps past a score bound Optimize gave too tight (`_confirmed_bound`)
# Optimize's time for a score bound: where it gives up, plain solver calls search for it
# (`_searched_bound`, at most MAX_SEARCH_CALLS of them): on a sowing game it gave up after 20 s
# a seat and sense where a plain call answers at once
OPTIMIZE_MS = 2000
MAX_SEARCH_CALLS = 64
MAX_EXPANDED = 1024  # parameter combinations spelled out (rather than quantified) for no_deadlock
# guesses from the samples: a set's size the same at every sample of a decision point
# (`_constant_sizes`), and sizes by the position of the loop around it (`_by_loop_position`)
CONSTANT_SIZES = True
BY_LOOP_POSITION = True
MAX_POSITIONS_SPLIT = 12  # positions of a loop its guesses are split by, at most
MAX_PIECEWISE = 64  # guesses by loop position per decision point, at most
RETRY_ON_PATHS = True  # frame facts given up on after a move asked again way by way (`_retry_on_paths`)
SKIP_HELD = True  # goals the pre-state's assumptions state term for term are not asked (`_held_by_point`)


@dataclass
class Verdict:
    status: str  # proved | violated | unknown
    method: str = ""
    reason: str = ""
    seconds: float = 0.0
    details: dict = field(default_factory=dict)


def size_deltas(before: StateVars, after: StateVars) -> list:
    """For each set the move changes (a `var` or flow local, or a set inside an array): its size
    after = its size before - the members it lost + the members it gained. A tautology, over the
    changed members only (the others add nothing), written with the very size terms `size(S)`
    encodes to. Measured on a seed game's simultaneous reveal (`remove c from hand[p]` for
    each p): facts relating the hands' sizes were unknown after 10 s each without it and unsat
    in 0.02-0.22 s with it; the solver no longer has to find the one member that left among a
    sum of 45 terms."""
    out: list = []
    for name, post in list(after.vars.items()) + list(after.locals.items()):
        pre = before.vars.get(name, before.locals.get(name))
        if pre is not None:
            _size_delta(pre, post, out)
    return out


def _size_delta(pre, post, out: list) -> None:
    if isinstance(pre, SetVal) and isinstance(post, SetVal) and len(pre) == len(post):
        changed = [(a, b) for a, b in zip(pre, post) if not same(a, b)]
        if changed:
            lost = total([bool_int(z3.And(a, z3.Not(b))) for a, b in changed])
            gained = total([bool_int(z3.And(b, z3.Not(a))) for a, b in changed])
            out.append(total([bool_int(b) for b in post]) == total([bool_int(a) for a in pre]) - lost + gained)
    elif type(pre) is tuple and type(post) is tuple and len(pre) == len(post):  # an array (not a sequence)
        for a, b in zip(pre, post):
            _size_delta(a, b, out)


@dataclass
class Reached:
    """What bounded model checking of bad states settled (`Prover.reach`)."""
    kind: str  # "reached": a game reaches a bad state; "complete": none can, every game ends by `depth`; "open"
    depth: int
    model: object = None  # for "reached": s1..s_depth and the choices on the way
    path: object = None
    goal: object = None  # the `what` of the goal reached


class Unsettled(Exception):
    """The proof cannot go on: what is not settled is unknown, with this reason."""


class OutOfBudget(Unsettled):
    """The time budget of the whole proof ran out."""


class Prover:
    def __init__(self, program: Program, n: int, options: dict, timeout: float = 20.0, progress=None,
                 samples: list | None = None, invariants: list | None = None, budget: float | None = None):
        """`samples`: raw engine states at decision points (from play), used only to *propose*
        frame facts (`sampled_candidates`); every proposal is proved or dropped like the rest."""
        self.p, self.n, self.options = program, n, dict(options)
        self.samples = samples or []
        self.budget = budget
        self.deadline = None if budget is None else time.perf_counter() + budget
        self._stage = ""  # the stage whose share of the budget `deadline` is (`stage`)
        self._share_s = 0.0  # and how many seconds that share was when it began
        self.spec_invariants = list(program.invariants if invariants is None else invariants)
        self.timeout_ms = max(1, int(timeout * 1000))
        self.rel = Relation(program, n, options)
        self.progress = progress or (lambda text: None)
        self.proved: list[Candidate] | None = None
        self.dropped: dict[str, Verdict] = {}
        self.failed_checks: list = []  # (decision point, alternative, obligation, a legality check?)
        self.failed_deadlocks: list = []  # (decision point, the moves' conditions there) of the last `deadlocks()`
        # every check `obligations` did not prove (refuted or given up on), and whether it looked
        # at every one: bounded model checking settles them on a short game (`reach`)
        self.unproved_checks: list = []
        self.checks_examined = False
        self.system = self.facts = None  # the engines' system and interval facts, once built
        # ... and as built, before any proof used them: a second `prove_invariants` on this prover
        # (after a first look of the proofs that did not settle everything) starts from them
        self.built = None
        self.built_facts = None
        self._lead_to = None  # `_leading_to`, once computed
        self.intervals = None  # the interval analysis (`Intervals`), complete or cut short: resumed
        self.frame_facts: list | None = None  # the frame facts `invariants` proved, once it has

    # ------------------------------------------------------------ helpers
    def solver(self) -> z3.Solver:
        s = z3.Solver(ctx=CTX)
        s.set("timeout", self._call_ms())
        return s

    def _call_ms(self) -> int:
        """One solver call's time-out: --timeout, and never past the budget's deadline."""
        if self.deadline is None:
            return self.timeout_ms
        return max(1, min(self.timeout_ms, int((self.deadline - time.perf_counter()) * 1000)))

    def alternatives(self, d: int) -> list:
        self.check_budget()
        self.rel.deadline = self.deadline
        try:
            return self.rel.alternatives(d)
        except OutOfTime:
            raise OutOfBudget(f"{self._spent()} (encoding the moves at line {self.p.decisions[d].node.span.line})") from None
        except NotEncoded as exc:
            raise Unsettled(f"the moves at the decision point at line {self.p.decisions[d].node.span.line} are "
                            f"beyond the Z3 encoding's limits: {exc}") from None

    def check_budget(self) -> None:
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise OutOfBudget(self._spent())

    def _spent(self) -> str:
        # the seconds that ran out: a stage's share, not the whole budget (a result given up on
        # after 42 s once read "the time budget of 415 s ran out")
        if self._stage:
            return (f"its share of the time budget (--budget), {self._share_s:.0f} s for {self._stage}, "
                    "ran out before this was settled")
        return f"the time budget (--budget), {self.budget:.0f} s for the proofs, ran out before this was settled"

    @contextmanager
    def stage(self, share: float, name: str):
        """Within the block, at most `share` of the budget's remaining time: a claim the solver
        struggles with must not starve the checks after it."""
        saved = self.deadline, self._stage, self._share_s
        if self.deadline is not None:
            self._share_s = share * max(0.0, self.deadline - time.perf_counter())
            self.deadline = time.perf_counter() + self._share_s
            self._stage = name
        try:
            yield
        finally:
            self.deadline, self._stage, self._share_s = saved

    def decisions(self) -> list[int]:
        return list(range(len(self.p.decisions)))

    def candidates(self) -> list[Candidate]:
        specs = [Candidate(inv.name, inv.sentence.value if hasattr(inv.sentence, "value") else str(inv.sentence),
                           inv, self._inv_at(inv)) for inv in self.spec_invariants]
        return self.rel.frame_candidates() + self.sampled_candidates() + specs

    def sampled_candidates(self, decisions: set | None = None) -> list[Candidate]:
        """Guesses in the manner of Daikon, settled in the manner of Houdini: a state value (a
        `var`, a flow local, or one element of an array) that is the same in every sampled state
        at decision point d, and still the value it had at the game's first decision point, becomes
        the candidate "at d it is still untouched" (at the end of the game: any common value). Typical catch: what set-up has not touched
        yet while set-up runs. (Values that merely never changed in the sample are too often
        false and hard to refute: they cost more solver time than they help.)

        `decisions`: only the guesses about those decision points (no "sets never share a
        member", which are about every point)."""
        if not self.samples:
            return []
        start = self.samples[0]  # the first sample is a new game's first decision point
        by_pc: dict[int, list] = {}
        for raw in self.samples:
            if decisions is None or raw.pc in decisions:
                by_pc.setdefault(raw.pc, []).append(raw)
        out = self.related_candidates(by_pc) + (self.disjoint_candidates() if decisions is None else [])
        kinds = [("V_", self.p.var_types, "vars"), ("L_", self.p.flow_locals, "locals")]
        for d, raws in sorted(by_pc.items()):
            for prefix, types, where in kinds:
                for name, t in types.items():
                    values = [getattr(r, prefix + name) for r in raws]
                    # the untouched value, or at the end (few guesses) any value all games agree on
                    first = getattr(start, prefix + name) if d >= 0 else values[0]
                    paths = [()] if all(v == first for v in values) else (
                        [(i,) for i in range(len(first)) if all(v[i] == first[i] for v in values)]
                        if isinstance(t, ArrayT) else [])
                    for path in paths:
                        out.append(self._constant_fact(d, where, name, t, path, first))
        return out

    def disjoint_candidates(self) -> list[Candidate]:
        """Guesses "sets a and b never share a member" for two sets over the same domain that are
        disjoint in every sampled state and both non-empty in some (cards in one place at a
        time: a card drawn from the deck is new to the cards turned up)."""
        sets = []  # (label, elem type, engine reader -> bitmask, Z3 reader)
        for prefix, types, where in (("V_", self.p.var_types, "vars"), ("L_", self.p.flow_locals, "locals")):
            for name, t in types.items():
                if isinstance(t, SetT):
                    sets.append((name, t.elem, lambda raw, f=prefix + name: getattr(raw, f),
                                 lambda state, w=where, x=name: getattr(state, w)[x]))
                elif isinstance(t, ArrayT) and isinstance(t.elem, SetT) and isinstance(t.index, PlayerT):
                    for i in range(self.n):
                        sets.append((f"{name}[{i}]", t.elem.elem, lambda raw, f=prefix + name, i=i: getattr(raw, f)[i],
                                     lambda state, w=where, x=name, i=i: getattr(state, w)[x][i]))
        out = []
        for x in range(len(sets)):
            for y in range(x + 1, len(sets)):
                (la, ta, ra, za), (lb, tb, rb, zb) = sets[x], sets[y]
                if ta != tb:
                    continue
                pairs = [(ra(r), rb(r)) for r in self.samples]
                if any(a & b for a, b in pairs) or not any(a for a, _ in pairs) or not any(b for _, b in pairs):
                    continue
                out.append(Candidate(f"disjoint {la} {lb}", f"{la} and {lb} share no member", None,
                                     lambda state, snaps, za=za, zb=zb: and_all(
                                         not_(and_all([u, v])) for u, v in zip(za(state), zb(state)))))
        return out

    def _features(self) -> list:
        """Integer quantities of a state for relation guesses: (label, engine reader, Z3 reader):
        int-valued vars and flow locals, sizes of set and sequence vars (and of the set/sequence
        elements of player arrays), loop positions."""
        out = []
        for prefix, types, where in (("V_", self.p.var_types, "vars"), ("L_", self.p.flow_locals, "locals")):
            for name, t in types.items():
                out += _quantities(prefix + name, where, name, t, self.n)
        for key in self.rel.snap_keys():
            out.append((f"J_{key}", lambda raw, k=key: getattr(raw, "J_" + k),
                        lambda state, snaps, k=key: snaps[k][1]))
            out.append((f"len(I_{key})", lambda raw, k=key: len(getattr(raw, "I_" + k)),
                        lambda state, snaps, k=key: snaps[k][0].length))
        return out

    def related_candidates(self, by_pc: dict) -> list[Candidate]:
        """Guesses "at d, a - b is always c" for two varying quantities whose difference is the
        same in every sampled state at d (a deck shrinking as a counter counts down)."""
        feats = self._features()
        out = []
        for d, raws in sorted(by_pc.items()):
            if len(raws) < 3:
                continue
            columns = [[f[1](r) for r in raws] for f in feats]
            varying = [i for i, col in enumerate(columns) if len(set(col)) > 1]
            # a loop's position or length that is the same in every sample at d (a loop over the
            # seats always holds num_players of them); values of vars and locals: `sampled_candidates`
            for i, col in enumerate(columns):
                if len(set(col)) == 1 and feats[i][0].startswith(("J_", "len(I_")):
                    out.append(self._linear_fact(d, [(1, feats[i])], col[0]))
            if CONSTANT_SIZES:
                out += self._constant_sizes(d, raws, feats, columns)
            pairs = []  # (x, y): varying[x] and varying[y] are tied by a relation found here
            for x in range(len(varying)):
                for y in range(x + 1, len(varying)):
                    a, b = columns[varying[x]], columns[varying[y]]
                    line = _line(a, b)
                    if line is None:
                        continue
                    p, q, c = line
                    if abs(p) == abs(q) == 1:
                        out.append(self._relation_fact(d, feats[varying[x]], feats[varying[y]], p * q, p * c))
                    else:  # e.g. deck + 3 * rounds: cards per round
                        out.append(self._linear_fact(d, [(p, feats[varying[x]]), (q, feats[varying[y]])], c))
                    pairs.append((varying[x], varying[y]))
            # relations among three or more, or two with a coefficient other than 1 (a deck, the
            # cards turned up and the rounds: deck + revealed + 3 * round constant), over one
            # quantity per group of paired ones (which one: the first of each pair, then the
            # last — a pair seen in the sample may be a coincidence, and the relation hold over
            # the other), with small coefficients (a sample admits many dense relations that no
            # rule makes)
            seen = set()
            for paired in ({y for x, y in pairs}, {x for x, y in pairs}):
                keep = [i for i in varying if i not in paired]
                rows = [tuple(columns[i][k] for i in keep) for k in range(len(raws))]
                wide = [(cs, c) for cs, c in linear_equalities(rows)  # (pairs with coefficients 1: above)
                        if sum(1 for x in cs if x) >= 2 and 1 < max(abs(x) for x in cs) <= MAX_COEFFICIENT
                        or sum(1 for x in cs if x) >= 3 and max(abs(x) for x in cs) <= MAX_COEFFICIENT]
                for coeffs, c in wide[:MAX_WIDE_RELATIONS]:
                    fact = self._linear_fact(d, [(a, feats[keep[i]]) for i, a in enumerate(coeffs) if a], c)
                    if fact.name not in seen:
                        seen.add(fact.name)
                        out.append(fact)
            if BY_LOOP_POSITION:
                tied = {i for pair in pairs for i in pair}
                loose = [i for i in varying if i not in tied and feats[i][0].startswith("size(")]
                out += self._by_loop_position(d, raws, feats, columns, varying, loose)
        return out

    def _constant_sizes(self, d: int, raws: list, feats: list, columns: list) -> list[Candidate]:
        """Guesses "at d, this quantity is always c" for a set's size or a number that is the
        same in every sample at d (a hand just dealt, a deck emptied, the round counter at a
        move of the last round only), where its value is not the one the game began with (that
        is `sampled_candidates`' guess already). Loop positions: `related_candidates`."""
        out = []
        start = self.samples[0]
        for i, col in enumerate(columns):
            label, value = feats[i][0], feats[i][3] if len(feats[i]) > 3 else feats[i][1]
            if len(set(col)) == 1 and not label.startswith(("J_", "len(I_")) and \
                    any(value(r) != value(start) for r in raws):
                out.append(self._linear_fact(d, [(1, feats[i])], col[0]))
        return out

    def _by_loop_position(self, d: int, raws: list, feats: list, columns: list, varying: list,
                          loose: list) -> list[Candidate]:
        """Guesses by the position of the outermost loop still running at d, for the set sizes
        no guess at d relates to anything (`loose`): "at d, while that loop is at position j,
        this set holds c members", or "... c more or fewer than an inner loop's position". A loop
        that fills one set per item of a range leaves that shape: the sets of the items before
        the loop's own are full, the item's own holds as many as the inner loop has added, the
        ones after it are empty. No single linear guess says that, so without these nothing
        states what the loop left behind, and every guess after it about those sets is dropped
        where it ends. Kept only for a size that every position explains (constant, or tied to
        a quantity that varies within the position), at most MAX_PIECEWISE per decision point."""
        outer = next((i for i in varying if feats[i][0].startswith("J_")), None)
        if outer is None or not loose:
            return []
        by_position: dict[int, list[int]] = {}
        for k, j in enumerate(columns[outer]):
            by_position.setdefault(j, []).append(k)
        if len(by_position) > MAX_POSITIONS_SPLIT or any(len(ks) < 2 for ks in by_position.values()):
            return []
        inner = [i for i in varying if i != outer and feats[i][0].startswith("J_")]
        out = []
        for i in loose:
            facts = []
            for j, ks in sorted(by_position.items()):
                col = [columns[i][k] for k in ks]
                if len(set(col)) == 1:
                    facts.append(self._positioned_fact(d, feats[outer], j, [(1, feats[i])], col[0]))
                    continue
                lines = ((x, _line(col, [columns[x][k] for k in ks])) for x in inner)
                x, line = next(((x, found) for x, found in lines if found is not None), (None, None))
                if line is None or abs(line[0]) != 1 or abs(line[1]) != 1:
                    break
                p, q, c = line
                facts.append(self._positioned_fact(d, feats[outer], j, [(p, feats[i]), (q, feats[x])], c))
            else:
                out += facts
        return out[:MAX_PIECEWISE]

    def _positioned_fact(self, d: int, loop, j: int, terms: list, c: int) -> Candidate:
        text = " + ".join(f"{a}*{f[0]}" for a, f in terms)

        def at(state, snaps):
            here = and_all([eq_leaf(state.pc, num(d)), eq_leaf(loop[2](state, snaps), num(j))])
            return implies(here, eq_leaf(total([a * f[2](state, snaps) for a, f in terms]), num(c)))
        return Candidate(f"piecewise {text}@{d} {loop[0]}={j}", f"{text} is {c} at decision point {d} while "
                         f"{loop[0]} is {j}", None, at, d)

    def _linear_fact(self, d, terms: list, c: int) -> Candidate:
        text = " + ".join(f"{a}*{f[0]}" for a, f in terms)

        def at(state, snaps):
            return implies(eq_leaf(state.pc, num(d)), eq_leaf(total([a * f[2](state, snaps) for a, f in terms]), num(c)))
        return Candidate(f"linear {text}@{d}", f"{text} is {c} at decision point {d}", None, at, d)

    def _relation_fact(self, d, fa, fb, sign: int, c: int) -> Candidate:
        op = "+" if sign > 0 else "-"

        def at(state, snaps):
            a, b = fa[2](state, snaps), fb[2](state, snaps)
            return implies(eq_leaf(state.pc, num(d)), eq_leaf(a + b if sign > 0 else a - b, num(c)))
        return Candidate(f"related {fa[0]}{op}{fb[0]}@{d}", f"{fa[0]} {op} {fb[0]} is {c} at decision point {d}",
                         None, at, d)

    def _constant_fact(self, d: int, where: str, name: str, t, path: tuple, value) -> Candidate:
        for i in path:
            t, value = t.elem, value[i]
        lit = literal(t, value, self.n)
        label = f"{name}{''.join(f'[{i}]' for i in path)}"

        def at(state, snaps):
            v = getattr(state, where)[name]
            for i in path:
                v = v[i]
            return implies(eq_leaf(state.pc, num(d)), eq_val(v, lit))
        return Candidate(f"sampled {label}@{d}", f"{label} is {value!r} at decision point {d}", None, at, d)

    def _inv_at(self, inv):
        def at(state, snaps):
            return Encoder(self.p, self.n, self.options, state).invariant(inv)
        return at

    def assumptions(self, cands: list[Candidate]) -> list:
        s, snaps = self.rel.state, self.rel.snaps
        return self.rel.ranges(s, snaps) + [c.at(s, snaps) for c in cands]

    # ------------------------------------------------------------ invariants
    def invariants(self, given: list | None = None) -> dict[str, Verdict]:
        """name -> Verdict for every spec invariant (frame facts are lemmas, not reported).
        `given`: Candidates already proved inductive (by another engine), assumed throughout
        and kept in `proved`."""
        given = list(given or [])
        t0 = time.perf_counter()
        cands = self.candidates()
        verdicts: dict[str, Verdict] = {}
        init = initial(self.p, self.n, self.options)
        live = []
        for c in cands:
            v = z3.simplify(c.at(init.state, init.snapshots))
            if is_true(v):
                live.append(c)
            elif c.node is not None:
                verdicts[c.name] = Verdict("violated", "initiation", "it does not hold when the game starts")
        failing: dict[str, tuple] = {}
        hints, alone = given, []
        try:
            if self.frame_facts is None:
                self.frame_facts = self._fixpoint([c for c in live if c.node is None], given,
                                                  min(self.timeout_ms, HINT_TIMEOUT_MS), HINT_BUDGET_S, {})
            # (proved by an earlier call, from what it was given: true in every reachable state,
            # as all it rested on was, so as good a start now: on a seed game the same 271 facts
            # took 4-5 s at each call)
            hints = given + self.frame_facts
            # each claim alone first (small formulas: one invariant over the frame facts), then
            # what is left together, helped by the ones proved alone
            singles = [c for c in live if c.node is not None]
            for i, c in enumerate(singles):
                # each its fair share of the time left (one share kept for the claims together):
                # a claim the solver struggles with must not starve the others
                try:
                    with self.stage(1 / (len(singles) - i + 1), f"the claim {c.name}"):
                        alone += self._fixpoint([c], hints, self.timeout_ms, None, {})
                except OutOfBudget:
                    self.check_budget()  # the whole budget spent: stop; else on to the next claim
            rest = [c for c in live if c.node is not None and c not in alone]
            claims = alone + self._fixpoint(rest, hints + alone, self.timeout_ms, None, failing)
        except Unsettled as exc:
            # what was settled before the budget ran out stands: the frame facts are inductive,
            # and each claim proved alone is inductive relative to them
            self.proved = hints + alone
            seconds = time.perf_counter() - t0
            for c in live:
                if c in alone:
                    verdicts[c.name] = Verdict("proved", "inductive", f"inductive together with {len(hints)} frame "
                                               "facts", seconds)
                elif c.node is not None:
                    verdicts[c.name] = Verdict("unknown", "induction", str(exc), seconds)
            return verdicts
        for name, (kind, d, alt, info) in failing.items():
            where = self._where(d, alt)
            if kind == "sat":
                verdicts[name] = Verdict("unknown", "induction", f"not inductive: {where} can break it from a "
                                         "state satisfying the other proved invariants (that state may be "
                                         "unreachable; a stronger invariant would settle it)",
                                         details={"decision": d, "move": alt.label})
            else:
                verdicts[name] = Verdict("unknown", "induction", f"the solver gave up at {where}: {info}")
        live = hints + claims
        self.proved = live
        seconds = time.perf_counter() - t0
        lemmas = sum(1 for c in live if c.node is None)
        for c in live:
            if c.node is not None:
                verdicts[c.name] = Verdict("proved", "inductive", f"inductive together with {len(live) - 1} other "
                                           f"invariants and frame facts ({lemmas} frame facts)")
        for v in verdicts.values():
            v.seconds = seconds
        return verdicts

    def _fixpoint(self, cands: list, given: list, timeout_ms: int, budget_s: float | None, failing: dict,
                  glance_after: float = HINT_SHARE, lean: bool = False) -> list:
        """The largest subset of `cands` inductive relative to `given` (already inductive) and
        itself: drop what some alternative can break, repeat. With `budget_s`, what one
        alternative has not settled within that many seconds is dropped too (frame facts only:
        they are help, not claims), and past `glance_after` of the time to the deadline each
        alternative gets a glance. `lean`: the move's own run-time checks are not assumed (fewer
        assumptions, so as sound, and a smaller query where the successor runs far; the frame
        facts keep them: measured, an example's `well_formed` then missed its share)."""
        live = list(cands)
        claims = budget_s is None  # (the frame facts come with a budget per move)
        encoded: dict = {}  # (decision, alternative index, path, candidate name) -> what must hold after the move
        deltas: dict = {}  # (decision, alternative index, path) -> `size_deltas` of the move on that path
        pre_parts: dict = {}  # id of a candidate's term before a move -> (it, its conjuncts as is and simplified, their ids)
        remaining = (self.deadline - time.perf_counter()) if self.deadline is not None else 600.0
        stage_end = time.perf_counter() + glance_after * remaining
        while live:
            dropped: dict[str, tuple] = {}
            assume = self.assumptions(given + live)
            held = self._held_by_point(assume) if SKIP_HELD else {}
            # guesses each about one decision point hold after any move that cannot lead there
            targets = {c.decision for c in live} if all(c.decision is not None for c in live) else None
            for d in self.decisions():
                self.progress(f"induction at decision point {d}" + (" (frame facts)" if budget_s else ""))
                for k, alt in enumerate(self.alternatives(d)):
                    if targets is not None and not any(v is None or v in targets for v, _ in successor_cases(alt)):
                        continue
                    sol = self.solver()
                    sol.set("timeout", timeout_ms)
                    sol.add(*assume, *self._at(d, alt), alt.guard,
                            *[o.cond for o in alt.pre + ([] if lean else alt.step.obligations)])
                    now = time.perf_counter()
                    # past the stage's share of the budget, frame facts get a glance each, not a look
                    deadline = self.deadline if budget_s is None else now + (budget_s if now < stage_end else 0.3)
                    if self.deadline is not None:  # never past the budget, whatever the stage allows
                        self.check_budget()
                        deadline = min(deadline, self.deadline)
                    # one question per decision point the move can lead to: there, the facts
                    # about every other decision point hold trivially; for the claims, one per way
                    # the flow runs there, each goal specialised to it (`_what_changes`: what the
                    # flow's other ways would change falls out). Not for the frame facts: measured
                    # on a seed game, specialising hundreds of facts to twice as many cases cost
                    # more than its queries saved
                    paths = successor_paths(alt, by_value=not claims)
                    before = at_pc(alt.source[0], d) if alt.source else None
                    settled_before = set(dropped)
                    for i, path in enumerate(paths):
                        # each path its share of what is left of the alternative's time (a path
                        # that runs the final scoring must not starve the others)
                        share = None if deadline is None else \
                            time.perf_counter() + (deadline - time.perf_counter()) / (len(paths) - i)
                        goals = {}
                        here = held.get(d, ())
                        for c in live:
                            key = (d, k, i, c.name)
                            if key not in encoded:
                                encoded[key] = self._what_changes(c, path, alt, before, pre_parts if claims else None)
                            goal = encoded[key]
                            if here and not is_true(goal):
                                goal = _less_held(goal, here)
                            if not is_true(goal) and c.name not in dropped:
                                goals[c.name] = goal
                        if not goals:
                            continue
                        sol.push()
                        sol.add(path.term)
                        # how each changed set's size moved (sizes are what many facts relate),
                        # for the goals asked alone: in every query they slowed a seed game down
                        if (d, k, i) not in deltas:
                            deltas[(d, k, i)] = size_deltas(alt.source[0] if alt.source else self.rel.state, path.state)
                        self._houdini(sol, goals, dropped, d, alt, share, ms=timeout_ms, alone=True,
                                      hints=deltas[(d, k, i)], by_conjunct=claims)
                        sol.pop()
                    if not claims and RETRY_ON_PATHS:
                        self._retry_on_paths(sol, live, dropped, settled_before, d, alt, before, here, deadline,
                                             timeout_ms)
            if not dropped:
                return live
            failing.update(dropped)
            live = [c for c in live if c.name not in dropped]
        return live

    def _retry_on_paths(self, sol, live: list, dropped: dict, settled_before: set, d: int, alt: Alternative,
                        before, held, deadline, ms: int) -> None:
        """The frame facts the solver gave up on after this move, asked again way by way
        (`successor_paths`): on one way, what the others would change drops out, and a fact the
        move leaves as it was then reads as one the pre-state holds (`_less_held`). A fact
        holds if it holds on every way. Measured on a seed game: after a dummy seat's draw,
        which can run on through the round's takes into the next round, the round counter of the
        successor at the next take is an `If` over those ways, and every fact about the take
        that reads it gave up, though on the ways that reach the take it is the round as it was."""
        retry = {name for name, info in dropped.items()
                 if name not in settled_before and info[0] == "unknown" and info[2] is alt}
        if not retry:
            return
        cands = [c for c in live if c.name in retry]
        open_: dict[str, tuple] = {}
        for path in successor_paths(alt):
            goals = {}
            for c in cands:
                if c.name in open_:
                    continue
                goal = self._what_changes(c, path, alt, before, None)
                if held and not is_true(goal):
                    goal = _less_held(goal, held)
                if not is_true(goal):
                    goals[c.name] = goal
            if not goals:
                continue
            sol.push()
            sol.add(path.term)
            self._houdini(sol, goals, open_, d, alt, deadline, ms=ms, alone=True)
            sol.pop()
        for name in retry:
            if name in open_:
                dropped[name] = open_[name]
            else:
                del dropped[name]

    def _held_by_point(self, assume: list) -> dict[int, set]:
        """decision point d -> the ids of the formulas the assumptions state of a pre-state at d:
        every conjunct of an assumption about all points, and of one about d alone ("at d, X"
        reads `Or(Not(pc == d), X)`). A goal after a move that is, term for term, one of these
        holds: it reads the very variables the pre-state has, and says of them what the pre-state
        is assumed to satisfy (a fact about the next point that the move leaves as the fact
        about this one stated it: a hand's size at the take, after a chance draw that leaves the
        hands alone). Measured on a seed game: every fact about the points after its
        dummy seat's draw was asked of the solver there, with hundreds of assumptions, and most gave
        up at 300 ms each."""
        pc = self.rel.state.pc
        not_at = {not_(eq_leaf(pc, num(d))).get_id(): d for d in self.decisions()}
        everywhere: set = set()
        by_point: dict[int, set] = {d: set() for d in self.decisions()}
        for a in assume:
            if z3.is_or(a) and a.num_args() == 2 and a.arg(0).get_id() in not_at:
                by_point[not_at[a.arg(0).get_id()]].update(x.get_id() for x in flatten_and(a.arg(1)))
            else:
                everywhere.update(x.get_id() for x in flatten_and(a))
        return {d: ids | everywhere for d, ids in by_point.items()}

    @staticmethod
    def _what_changes(c: Candidate, path: SuccessorPath, alt: Alternative, before, pre_parts: dict | None):
        """What of candidate c must be shown after the move, when its flow runs along `path`: its
        term there, specialised to the path, less each conjunct that reads as one of its own
        conjuncts before the move (the pre-state assumes c, so those hold: e.g. a claim over
        every seat, whose other seats the move leaves alone). TRUE when nothing is left.
        `pre_parts`: a cache of the conjuncts before; None: the whole term or TRUE (the frame
        facts, mostly single atoms: simplifying hundreds of them per move cost more than it saved)."""
        post = c.at(path.state, alt.step.snapshots)
        pre = c.at(before, alt.source[1]) if before is not None else None
        if pre is not None and same(post, pre):  # the move leaves what it reads as it was
            return TRUE
        post = path.specialise(post)
        if pre is None or pre_parts is None or is_true(post):
            return post
        entry = pre_parts.get(pre.get_id())
        if entry is None:
            # the terms are kept with their ids: Z3 reuses the id of a term once it is freed
            parts = [x for t in (pre, z3.simplify(pre)) for x in flatten_and(t)]
            entry = pre_parts[pre.get_id()] = (pre, parts, {x.get_id() for x in parts})
        return and_all([x for x in flatten_and(post) if x.get_id() not in entry[2]])

    def _at(self, d: int, alt: Alternative) -> list:
        """The pre-state is at decision point d, in the alternative's case."""
        return [self.rel.at_decision(d, self.rel.state)] + ([alt.pin] if alt.pin is not None else [])

    def _houdini(self, sol, goals: dict, failing: dict, d: int, alt: Alternative, deadline=None,
                 splits: tuple | None = None, ms: int | None = None, alone: bool = False,
                 hints: list | None = None, by_conjunct: bool = False) -> None:
        """Which goals can fail? Ask for all at once; each model refutes every goal false in it;
        repeat with the rest until the solver says none can (unsat) or gives up. When it gives
        up, with `alone` (the induction's goals), each goal is asked alone, briefly, once: one
        hard goal must not drag the easy ones into the slow paths below (the run-time checks
        have their own first passes, `_glance` and `_sliced_holds`). Then, for what is left,
        when the alternative has choices worth splitting (`Alternative.split`), the goals are
        asked again once per value of the first (a goal holds if it holds for each), splitting
        the next ones where the solver still gives up; else in halves, down to single goals
        (each then unknown). `ms`: each call's time-out (the caller's, e.g. the frame facts'
        short one; the value splits' solvers keep it too), else --timeout. `hints`: valid
        formulas (`size_deltas`) added for the goals asked alone only. `by_conjunct` (the
        claims): then each goal's conjuncts are asked one by one (`_each_conjunct`)."""
        nested = splits is not None and alt is not None and len(splits) < len(alt.split)
        if splits is None:
            splits = alt.split if alt is not None else ()
        while goals:
            if deadline is not None and time.perf_counter() > deadline:
                failing.update({name: ("unknown", d, alt, "out of time") for name in goals})
                return
            limit = self._call_ms() if ms is None else min(ms, self._call_ms())
            if splits:  # a first try only, shorter under a value already fixed: value by value is quick
                sol.set("timeout", min(SPLIT_TRY_MS if nested else SYMBOLIC_MS, limit))
            r = sol.check(not_(and_all(goals.values())))
            if splits:
                sol.set("timeout", limit)
            if r == z3.unsat:
                return
            if r == z3.unknown and alone and len(goals) > 1:
                # measured on a seed game at 5 players: 13 of a move's 14 frame facts were unsat
                # in milliseconds alone, while the 14th kept the query of all of them unsettled
                # and the value splits then spent the move's whole allowance on it
                alone = False
                self._each_alone(sol, goals, failing, d, alt, deadline, min(ALONE_MS, limit), hints or [])
                sol.set("timeout", limit)
                if not goals:
                    return
                # the hard ones left: on to the splits (asked together again, they would give up again)
            if r == z3.unknown and by_conjunct:
                by_conjunct = False
                self._each_conjunct(sol, goals, failing, d, alt, deadline, min(CONJUNCT_MS, limit))
                sol.set("timeout", limit)
                if not goals:
                    return
            if r == z3.unknown and splits:
                # each value in a solver of its own, substituted (`with_values`): after push/pop
                # Z3 no longer preprocesses, and the value would not fold
                (leaf, lo, hi), rest = splits[0], splits[1:]
                base = list(sol.assertions())
                for value in range(lo, hi + 1):
                    if not goals:
                        return
                    pair = [(leaf, num(value))]
                    fixed = self.solver()
                    fixed.set("timeout", limit)
                    fixed.add(*with_values(base, pair))
                    refuted: dict = {}
                    self._houdini(fixed, {k: z3.substitute(g, *pair) for k, g in goals.items()}, refuted, d, alt,
                                  deadline, rest, ms, alone=False)
                    failing.update(refuted)
                    for name in refuted:
                        goals.pop(name, None)
                return
            if r == z3.unknown:
                why = sol.reason_unknown()
                if len(goals) == 1:
                    failing.update({name: ("unknown", d, alt, why) for name in goals})
                    return
                names = list(goals)  # too hard at once: halves, down to single goals
                for part in (names[:len(names) // 2], names[len(names) // 2:]):
                    self._houdini(sol, {k: goals[k] for k in part}, failing, d, alt, deadline, splits, ms,
                                  alone=False)
                return
            m = sol.model()
            refuted = [name for name, g in goals.items() if is_false(m.eval(g, model_completion=True))]
            if not refuted:  # cannot happen with a complete model; be safe rather than loop
                refuted = list(goals)
            for name in refuted:
                failing[name] = ("sat", d, alt, m)
                del goals[name]

    @staticmethod
    def _each_alone(sol, goals: dict, failing: dict, d: int, alt: Alternative, deadline, ms: int,
                    hints: list) -> None:
        """Each goal asked alone within `ms`, with `hints` (valid formulas) added: unsat settles
        it (it holds), a model refutes every goal false in it (`failing`); what the solver gives
        up on stays in `goals`."""
        sol.set("timeout", ms)
        sol.push()
        sol.add(*hints)
        try:
            for name in list(goals):
                if name not in goals:
                    continue  # refuted by an earlier goal's model
                if deadline is not None and time.perf_counter() > deadline:
                    return
                r = sol.check(not_(goals[name]))
                if r == z3.unsat:
                    del goals[name]
                elif r == z3.sat:
                    m = sol.model()
                    for other in [k for k, g in goals.items() if is_false(m.eval(g, model_completion=True))] or [name]:
                        failing[other] = ("sat", d, alt, m)
                        del goals[other]
        finally:
            sol.pop()

    def _each_conjunct(self, sol, goals: dict, failing: dict, d: int, alt: Alternative, deadline, ms: int) -> None:
        """Each goal's conjuncts (a claim over every seat and slot has dozens) asked one by one,
        each in a solver of its own with `sol`'s assertions, within `ms`: a goal holds when
        every conjunct does, a model refutes it; what the solver gives up on stays, the goal
        reduced to it. Measured on a seed game at 5 players: a claim's 40 conjuncts after a
        draw gave up together after 20 s, and each alone was unsat in 0.2-6 s. Own solvers:
        `sol` has been pushed, and Z3 then no longer preprocesses (the same conjuncts in it took
        3 s or gave up)."""
        base = list(sol.assertions())
        for name in list(goals):
            parts = flatten_and(goals[name])
            if len(parts) < 2:
                continue
            left, model = [], None
            for j, part in enumerate(parts):
                if deadline is not None and time.perf_counter() > deadline:
                    left += parts[j:]
                    break
                one = self.solver()
                one.set("timeout", min(ms, self._call_ms()))  # never past the budget's deadline
                one.add(*base, not_(part))
                r = one.check()
                if r == z3.sat:
                    model = one.model()
                    break
                if r == z3.unknown:
                    left.append(part)
            if model is not None:
                failing[name] = ("sat", d, alt, model)
                del goals[name]
            elif left:
                goals[name] = and_all(left)
            else:
                del goals[name]

    def _where(self, d: int, alt: Alternative) -> str:
        node = self.p.decisions[d].node
        line = node.span.line
        return f"'{alt.label}' (decision point at line {line})"

    def _proved_assumptions(self) -> list:
        if self.proved is None:
            self.invariants()
        return self.assumptions(self.proved)

    # ------------------------------------------------------------ deeper: paths of several steps
    def deepen(self, names: list[str], max_depth: int, k_max: int = 3) -> dict[str, Verdict]:
        """For spec invariants the one-step induction left unknown (`names`):

        1. bounded model checking from the initial state, one transition deeper at a time, up to
           `max_depth`: a claim false at the end of some path is `violated` — the path is a real
           game (the initial state is concrete), its model in `details` for the caller to replay;
           once no game can go on past depth N, every reachable state has been checked and the
           claims left are `proved`, bounded-complete to N;
        2. else k-induction for k = 2..k_max (its base: the depths step 1 checked): the claims
           left, assumed on k consecutive states linked by T (each with the proved invariants and
           frame facts), must hold at the next one. Claims that fail are dropped until a fixpoint.

        Returns verdicts for the claims it settled; the others keep their one-step verdict."""
        t0 = time.perf_counter()
        claims = [c for c in self.candidates() if c.node is not None and c.name in names]
        if not claims:
            return {}
        lemmas = self.proved or []
        path = Path(self.rel, self.alternatives, self.check_budget)
        out: dict[str, Verdict] = {}
        try:
            depth, complete = self._bounded(path, claims, lemmas, max_depth, out)
            left = [c for c in claims if c.name not in out]
            if complete:
                for c in left:
                    out[c.name] = Verdict("proved", f"bounded-complete to {depth}",
                                          f"checked on every game: no game goes on past {depth} steps")
            else:
                for k in range(2, k_max + 1):
                    if not left or depth < k - 1:
                        break
                    proved = self._k_inductive(path, left, lemmas, k)
                    for c in proved:
                        out[c.name] = Verdict("proved", f"{k}-inductive",
                                              f"inductive over {k} consecutive steps (base: every game's first "
                                              f"{depth} steps checked), with {len(lemmas)} proved invariants and "
                                              "frame facts")
                    left = [c for c in left if c not in proved]
        except Unsettled:
            pass  # what is not settled keeps its one-step verdict
        # a claim proved here holds in every reachable state: the later checks may assume it
        self.proved = lemmas + [c for c in claims if out.get(c.name, Verdict("")).status == "proved"]
        for v in out.values():
            v.seconds = time.perf_counter() - t0
        return out

    def reach(self, goals: list, max_depth: int, points: list | None = None) -> "Reached":
        """Bounded model checking of bad states from the initial state: `goals` are (what, a
        formula over the free state and free choices that holds in a bad state). Each depth j
        asks every goal at the end of a j-step game; the first that is satisfiable is `reached`
        (the model gives s1..s_j). When no game goes on past depth j and the solver settled every
        goal up to it, the answer is `complete`: no reachable state is bad. `points`, one per
        goal: the decision point its bad state is at (None: any); a goal whose point no state
        after j steps is at or can come to (`_leading_to`) is settled there, and when every goal
        is, the answer is `complete` too. Else `open`. Raises what `check_budget` raises at the
        deadline."""
        init = initial(self.p, self.n, self.options)
        path = Path(self.rel, self.alternatives, self.check_budget)
        s0, snaps0 = path.state(0)
        sol = self.solver()
        sol.add(same_state(self.rel, s0, snaps0, init.state, init.snapshots))
        gave_up = False
        goals = list(goals)
        lead_to = self._leading_to() if points is not None else {}
        points = list(points) if points is not None else [None] * len(goals)
        for j in range(max_depth + 1):
            self.check_budget()
            self.progress(f"bounded paths to a bad state: depth {j}")
            if j:
                sol.add(path.link(j - 1))
            for what, bad in goals:
                sol.set("timeout", self._call_ms())  # never past the deadline, which comes nearer
                r = sol.check(path.at(j, bad))
                if r == z3.sat:
                    return Reached("reached", j, sol.model(), path, what)
                gave_up = gave_up or r == z3.unknown
            # a goal about a decision point that no game can be at, or come to, after j steps is
            # settled (every visit of it was asked): asked no further (a set-up loop's check is
            # settled by the loop's few steps, in a game of hundreds)
            # (one query per decision point, not per goal: a short game may leave many checks
            # open at a few points)
            pc = path.state(j)[0].pc
            gone = {}
            for d in set(points) - {None}:
                sol.set("timeout", self._call_ms())
                gone[d] = sol.check(or_all([eq_leaf(pc, num(a)) for a in lead_to[d]])) == z3.unsat
            keep = [(goal, d) for goal, d in zip(goals, points) if d is None or not gone[d]]
            if not keep and goals:
                return Reached("open" if gave_up else "complete", j)
            goals, points = [g for g, _ in keep], [d for _, d in keep]
            sol.set("timeout", self._call_ms())
            r = sol.check(not_(eq_leaf(path.state(j)[0].pc, num(-1))))
            if r == z3.unsat:
                return Reached("open" if gave_up else "complete", j)
            if r == z3.unknown:
                return Reached("open", j)
        return Reached("open", max_depth)

    def reach_failed_checks(self, max_depth: int) -> "Reached":
        """`reach` for the run-time checks `obligations` did not prove: a game to a state where
        one fails (`goal` is (decision point, alternative, obligation, a legality check?)), or
        `complete` — then, if `obligations` examined every check, `well_formed` holds."""
        goals = [(check, and_all(self._at(check[0], check[1]) + ([] if check[3] else [check[1].guard])
                                 + [not_(check[2].cond)]))
                 for check in self.unproved_checks]
        return self.reach(goals, max_depth, [check[0] for check in self.unproved_checks]) if goals \
            else Reached("open", 0)

    def _leading_to(self) -> dict[int, set]:
        """decision point d -> the decision points a state can be at and still come to d
        (d among them), from the moves' successors (`successor_cases`)."""
        if self._lead_to is not None:
            return self._lead_to
        points = self.decisions()
        after = {d: set() for d in points}
        for d in points:
            for alt in self.alternatives(d):
                for v, _ in successor_cases(alt):
                    after[d] |= set(points) if v is None else ({v} if v >= 0 else set())
        out = {}
        for d in points:
            seen, todo = {d}, [d]
            while todo:
                x = todo.pop()
                for a in points:
                    if x in after[a] and a not in seen:
                        seen.add(a)
                        todo.append(a)
            out[d] = seen
        self._lead_to = out
        return out

    def deadlock_goals(self) -> list:
        """(decision point, "a state at it where the mover has no legal move") for every player
        decision point and mover (each player at a simultaneous node), for `reach`."""
        p, s = self.p, self.rel.state
        out = []
        for d, info in enumerate(p.decisions):
            if isinstance(info.node, N.Chance):
                continue
            for who in self._movers(info):
                out.append((d, and_all([self.rel.at_decision(d, s), not_(self._some_move_legal(d, info, who))])))
        return out

    def _movers(self, info) -> list:
        """Who must move at a player decision point: the current player, or every player at once."""
        return [self.rel.state.cur] if isinstance(info.node, N.Choose) else [num(i) for i in range(self.n)]

    def _some_move_legal(self, d: int, info, who, conditions: list | None = None):
        """"Some move is legal for `who` at decision point d", over the free state: a disjunction
        over the moves of "some parameter values make it legal" (`_some_values`). `conditions`:
        each move's legality over its parameters is appended to it (quantifier-free: what a
        state's values are read off)."""
        p, n = self.p, self.n
        some = []
        for mi in info.moves:
            params = fresh_params(p, mi, n, f"dl{d}")
            ok, _ = legal(p, n, self.options, self.rel.state, mi, params, who)
            if conditions is not None:
                conditions.append(ok)
            some.append(_some_values(ok, [params[q.name] for q in mi.move.params], mi.param_types, n))
        return or_all(some)

    def _bounded(self, path, claims: list, lemmas: list, max_depth: int, out: dict) -> tuple[int, bool]:
        """Bounded model checking (step 1 of `deepen`): (the depth checked, whether it is complete)."""
        init = initial(self.p, self.n, self.options)
        s0, snaps0 = path.state(0)
        sol = self.solver()
        sol.add(same_state(self.rel, s0, snaps0, init.state, init.snapshots))
        live = list(claims)
        for j in range(1, max_depth + 1):
            self.check_budget()
            self.progress(f"bounded paths: depth {j}")
            sol.add(path.link(j - 1))
            sj, snj = path.state(j)
            goals = {c.name: c.at(sj, snj) for c in live}
            failing: dict = {}
            self._houdini(sol, goals, failing, None, None, self.deadline, ())
            for name, (kind, _d, _alt, model) in failing.items():
                if kind == "sat":  # a real game: the path starts at the initial state
                    out[name] = Verdict("violated", "bounded", f"a game of {j} steps breaks it",
                                        details={"model": model, "path": path, "depth": j})
            if any(kind != "sat" for kind, *_ in failing.values()):
                return j - 1, False  # the solver gave up on some claim at this depth
            live = [c for c in live if c.name not in out]
            r = sol.check(not_(eq_leaf(sj.pc, num(-1))))
            if r == z3.unsat:
                return j, True
            if r == z3.unknown:
                return j - 1, False
        return max_depth, False

    def _k_inductive(self, path, claims: list, lemmas: list, k: int) -> list:
        """The largest subset of `claims` that is k-inductive together (step 2 of `deepen`)."""
        live = list(claims)
        while live:
            self.check_budget()
            self.progress(f"{k}-induction over {len(live)} claims")
            sol = self.solver()
            for i in range(k + 1):
                si, sni = path.state(i)
                sol.add(*self.rel.ranges(si, sni), *[c.at(si, sni) for c in lemmas])
                if i < k:
                    sol.add(*[c.at(si, sni) for c in live], path.link(i))
            sk, snk = path.state(k)
            failing: dict = {}
            self._houdini(sol, {c.name: c.at(sk, snk) for c in live}, failing, None, None, self.deadline, ())
            if not failing:
                return live
            live = [c for c in live if c.name not in failing]
        return []

    def _settled(self, check) -> Verdict:
        """A check's verdict, or `unknown` with the reason it could not go on (and the time it had)."""
        t0 = time.perf_counter()
        try:
            return check()
        except Unsettled as exc:
            return Verdict("unknown", "induction", str(exc), time.perf_counter() - t0)

    # ------------------------------------------------------------ well_formed
    def obligations(self) -> Verdict:
        return self._settled(self._obligations)

    def _obligations(self) -> Verdict:
        t0 = time.perf_counter()
        assume = self._proved_assumptions()
        pool = None  # the assumptions split for slicing, once a check needs it
        at_cuts = None  # the checks asked at a loop's cut, once a check needs it
        shared = None  # the checks of a loop many moves run, asked once for all (`loop_checks`)
        measures = MeasureChecks(self)  # a loop measure's decrease, summand by summand (`measure_checks`)
        failures, unknowns, count = [], [], 0
        self.failed_checks, self.unproved_checks, self.checks_examined = [], [], False
        ends = self._outcome_at_every_end(assume)
        decisions = self.decisions()
        for done, d in enumerate(decisions):
            self.progress(f"obligations at decision point {d}")
            alts = self.alternatives(d)
            try:
                for alt in alts:
                    goals = {}
                    asked = alt.step.obligations if ends else alt.step.checks
                    for o in alt.pre + asked:  # the step's obligations are guarded by legality below
                        if not is_true(o.cond):
                            goals[len(goals)] = o
                    count += len(alt.pre) + len(alt.step.checks)
                    if not goals:
                        continue
                    pre_ids = {id(o) for o in alt.pre}
                    sol = self.solver()
                    sol.add(*assume, *self._at(d, alt))
                    failing: dict = {}
                    deadline = time.perf_counter() + self.timeout_ms / 1000
                    if self.deadline is not None and deadline > self.deadline:
                        self.check_budget()
                        deadline = self.deadline
                    # legality obligations are asked without the legality guard (the engine evaluates
                    # requirements to find the legal moves); the move's own with it
                    for legality in (True, False):
                        if not legality:
                            sol.add(alt.guard)
                        part = {k: o.cond for k, o in goals.items() if (id(o) in pre_ids) == legality}
                        if part and not legality and self.system is not None and alt.step.check_cuts:
                            # inside a loop's iterations, the loop read on its own: before the
                            # glance, which a loop's hundreds of checks would otherwise time out
                            shared = shared or SharedLoopChecks(self.system, assume)
                            part = shared.settle(d, alt, part, goals, self._at(d, alt), deadline)
                        part = self._glance(sol, part, failing, d, alt, deadline)
                        if part and not legality and self.system is not None and alt.step.check_cuts:
                            # inside a loop's iterations: at their cut, the state read apart (`cut_checks`)
                            at_cuts = at_cuts or CutChecks(self.system, assume)
                            part = at_cuts.settle(d, alt, part, goals, self._at(d, alt), deadline)
                        if not part:
                            continue
                        # not settled at a glance: each check over the assumptions that share a leaf
                        # with it — most need only a few (a position within a constant sequence),
                        # while the whole query carries every lemma, which a lemma about a large
                        # board makes slow — then what is left over the whole query
                        pool = pool or _Pool(assume)
                        part = {k: c for k, c in part.items() if not self._sliced_holds(pool, d, alt, c, legality)}
                        # then the slice once per position of the loops around d that the check
                        # reads, with its sequences' items counted (`counting.py`)
                        part = {k: c for k, c in part.items()
                                if not self._holds_by_position(pool, d, alt, c, legality)}
                        if part and not legality:  # a loop measure's decrease, summand by summand
                            part = measures.settle(sol, d, alt, part, goals, deadline, pool)
                        self._houdini(sol, part, failing, d, alt, deadline)
                    for k, (kind, *_rest) in failing.items():
                        o = goals[k]
                        (failures if kind == "sat" else unknowns).append((o.sentence, o.span, self._where(d, alt)))
                        if kind == "sat":  # for a stronger engine to try (`verify.invariants.strengthen_checks`)
                            self.failed_checks.append((d, alt, o, id(o) in pre_ids))
                        self.unproved_checks.append((d, alt, o, id(o) in pre_ids))
            except OutOfBudget as exc:
                # where it stopped and how far it got: the moves whose checks a stronger invariant
                # (or a larger budget) has to settle
                # and what it found on the way: the checks a state satisfying the proved
                # invariants breaks, which more time would not prove
                found = ""
                if failures:
                    f = failures[0]
                    found = (f"; so far {len(failures)} run-time checks not proved from a state satisfying "
                             f"the proved invariants, e.g. {f[0]} at {f[1]} ({f[2]})")
                raise OutOfBudget(f"{exc} (at the checks of the moves at line "
                                  f"{self.p.decisions[d].node.span.line}, after those of {done} of "
                                  f"{len(decisions)} decision points{found})") from None
        self.checks_examined = True
        seconds = time.perf_counter() - t0
        if failures:
            f = failures[0]
            return Verdict("unknown", "induction", f"{len(failures)} of {count} run-time checks not proved, e.g. "
                           f"{f[0]} at {f[1]} ({f[2]}), from a state satisfying the proved invariants",
                           seconds, {"failures": [list(map(str, x)) for x in failures]})
        if unknowns:
            u = unknowns[0]
            return Verdict("unknown", "induction", f"the solver gave up on {len(unknowns)} run-time checks, e.g. "
                           f"{u[0]} at {u[1]}", seconds)
        at_loops = f" ({at_cuts.settled} of them at a loop's iteration, from the state it starts in)" \
            if at_cuts is not None and at_cuts.settled else ""
        if shared is not None and shared.settled:
            at_loops += f" ({shared.settled} of them in a loop many moves run, asked once for all)"
        if measures.settled:
            at_loops += f" ({measures.settled} loop measures' decrease summand by summand)"
        at_ends = "; the outcome's at every end at once" if ends else ""
        return Verdict("proved", "inductive", f"{count} run-time checks hold at every decision point{at_loops}"
                       f"{at_ends}", seconds)

    def _outcome_at_every_end(self, assume: list) -> bool:
        """Whether the outcome's run-time checks hold at every state where the flow has ended
        that satisfies the proved invariants, asked once. The state after a move that ends the
        game is such a state (the invariants hold at every reachable state: the score bounds
        rest on the same), so then no move's `outcome_checks` needs a query of its own. Else
        each move asks them on its own final state, which may know more. Decision: a seed game's
        scoring is read at every move that may end it, 27,000 checks at 2 players."""
        s = self.rel.state
        ended = eq_leaf(s.pc, num(-1))
        try:
            # the outcome can unfold past any budget (a game-tree search written as definitions)
            with encoding_deadline(self.deadline, "out of time while encoding the outcome"):
                checks = [o.cond for o in outcome_checks(self.p, self.n, self.options, s, ended)]
        except NotEncoded:
            return False
        except OutOfTime:
            raise OutOfBudget(f"{self._spent()} (encoding the outcome's checks)") from None
        checks = [c for c in checks if not is_true(c)]
        if not checks:
            return True
        sol = self.solver()
        sol.set("timeout", min(ENDS_MS, self._call_ms()))
        sol.add(*assume, ended)
        return sol.check(not_(and_all(checks))) == z3.unsat

    def _glance(self, sol, goals: dict, failing: dict, d: int, alt: Alternative, deadline: float) -> dict:
        """The goals left open by short queries of them all at once (most moves keep every check):
        unsat settles them all; a model refutes every goal false in it (a state satisfying the
        proved invariants that breaks the check: `failing`), and the rest are asked again; a
        time-out (or the move's `deadline`) leaves the rest to the slices and the whole queries.
        Refuting by models first matters where some checks fail: slicing each of the others one
        by one cost 0.1 s per check on a seed game's moves, about 17 s per move (figures:
        docs/architecture.md, "Run-time checks refuted by models first")."""
        sol.set("timeout", min(GLANCE_MS, self._call_ms()))
        try:
            while goals and time.perf_counter() < deadline:
                self.check_budget()
                r = sol.check(not_(and_all(goals.values())))
                if r == z3.unsat:
                    return {}
                if r != z3.sat:
                    return goals
                m = sol.model()
                refuted = [k for k, g in goals.items() if is_false(m.eval(g, model_completion=True))]
                if not refuted:  # cannot happen with a complete model; leave them to the slower paths
                    return goals
                for k in refuted:
                    failing[k] = ("sat", d, alt, m)
                    del goals[k]
            return goals
        finally:
            sol.set("timeout", self._call_ms())

    def _sliced_holds(self, pool: "_Pool", d: int, alt: Alternative, goal, legality: bool) -> bool:
        """The check holds given the assumptions and move conditions that share a leaf with it
        (the decision point and the move's case always): then it holds given all of them. A
        short time-out: what the slice does not settle quickly, the whole query asks."""
        if is_true(goal):
            return True
        self.check_budget()  # one call per check: a move with many must not run past the budget
        wanted = pool.leaves_of(goal)
        keep = self._slice(pool, alt, wanted, legality)
        return self._slice_solver(*self._at(d, alt), *keep).check(not_(goal)) == z3.unsat

    def _slice_solver(self, *formulas) -> z3.Solver:
        """A solver of `formulas` for a sliced try: its short time-out, never past the budget."""
        sol = z3.Solver(ctx=CTX)
        sol.set("timeout", min(SLICE_MS, self._call_ms()))
        sol.add(*formulas)
        return sol

    def _slice(self, pool: "_Pool", alt: Alternative, wanted: int, legality: bool) -> list:
        return pool.sharing(wanted) + (pool.sharing(wanted, flatten_and(alt.guard)) if not legality else [])

    def _holds_by_position(self, pool: "_Pool", d: int, alt: Alternative, goal, legality: bool) -> bool:
        """The check holds given a slice of the assumptions and the counting facts of the
        sequences it reads (`counting.py`), asked once per value of each variable of a loop
        around d that it reads: then it holds given all of them. A value fixed turns an array
        read at the loop's variable into one element, which the counting facts are about. On a
        seed game's deal ("a strip of this length not yet in its pile is left") the whole query
        gave up after 20 s; so, it is unsat in 0.01 s a length. Checks that read no such variable
        are not asked again: the facts over a symbolic position took 1 s there, and every check
        the slice leaves would pay it. The first case not settled stops it."""
        if is_true(goal):
            return True
        wanted = pool.leaves_of(goal)
        positions = [(leaf, values) for leaf, values in self.rel.loop_positions(d)
                     if pool.leaves_of(leaf) & wanted]
        if not positions or math.prod(len(values) for _, values in positions) > MAX_POSITION_CASES:
            return False
        cases = itertools.product(*[[(leaf, num(v)) for v in values] for leaf, values in positions])
        if pool.counts is None:  # valid facts: in any query, as many as share its leaves
            pool.counts = [(f, pool.leaves_of(f)) for f in distinct_items(self.p, self.n, self.rel.state)]
        counts = [f for f, leaves in pool.counts if leaves & wanted]
        # the slice one step wider than `_sliced_holds`'s: what bounds the leaves its assumptions
        # read (a pile's size written through a loop counter needs the counter's range)
        near = self._slice(pool, alt, wanted, legality) + counts
        base = self._at(d, alt) + self._slice(pool, alt, wanted | pool.leaves_of(and_all(near)), legality) + counts
        for pins in cases:
            self.check_budget()
            if self._slice_solver(*with_values(base, list(pins))).check(not_(z3.substitute(goal, *pins))) != z3.unsat:
                return False
        # and any other value the assumptions allow (none, where the variable's range is the
        # loop's items): the cases above cover the loop's items only, which a state at d holds
        # only by the loop's own facts, and those may not be among the proved ones
        elsewhere = or_all(and_all([not_(eq_leaf(leaf, num(v))) for v in values]) for leaf, values in positions)
        return self._slice_solver(*base, elsewhere).check(not_(goal)) == z3.unsat

    # ------------------------------------------------------------ no_deadlock
    def deadlocks(self) -> Verdict:
        return self._settled(self._deadlocks)

    def _deadlocks(self) -> Verdict:
        """At each player decision point, some move is legal (for every player at a simultaneous
        node): `not exists-legal` must be unsatisfiable. "Some parameter values" is a
        disjunction over every value when there are few (`_some_values`), else a quantifier."""
        t0 = time.perf_counter()
        assume = self._proved_assumptions()
        p, s = self.p, self.rel.state
        self.failed_deadlocks = []
        for d in self.decisions():
            info = p.decisions[d]
            if isinstance(info.node, N.Chance):
                continue  # a chance node with nothing to draw is a run-time check (well_formed)
            self.progress(f"deadlock at decision point {d}")
            self.check_budget()
            for who in self._movers(info):
                sol = self.solver()
                conditions: list = []
                sol.add(*assume, self.rel.at_decision(d, s), not_(self._some_move_legal(d, info, who, conditions)))
                r = sol.check()
                if r == z3.sat:
                    details: dict = {"decision": d}
                    # the conditions of every mover there: the facts that rule this state out for
                    # one seat are wanted for the others too
                    everyone = list(conditions)
                    for other in self._movers(info):
                        if not other.eq(who):  # (`_movers` makes new terms at each call)
                            self._some_move_legal(d, info, other, everyone)
                    self.failed_deadlocks = [(d, and_all(everyone))]
                    read = ""
                    if self.system is not None:
                        # what the moves' conditions read in that state: what an invariant that
                        # rules it out has to speak of
                        values = self.system.read_off(sol.model(), conditions)
                        if values:
                            details["state_before"] = dict(values)
                            read = f"; what the moves' conditions read there: {self.system.shown(values)}"
                    return Verdict("unknown", "induction", f"at the decision point at line {info.node.span.line} a state "
                                   f"satisfying the proved invariants has no legal move (it may be unreachable){read}",
                                   time.perf_counter() - t0, details)
                if r == z3.unknown:
                    return Verdict("unknown", "induction", f"the solver gave up at the decision point at line "
                                   f"{info.node.span.line}: {sol.reason_unknown()}", time.perf_counter() - t0)
        return Verdict("proved", "inductive", "every decision point has a legal move in every state satisfying the "
                       "proved invariants", time.perf_counter() - t0)

    # ------------------------------------------------------------ score bounds
    def score_bounds(self) -> list[dict]:
        """Per player: the proved [low, high] of the final score (Optimize over final states that
        satisfy the proved invariants), or None where the solver gave up."""
        assume = self._proved_assumptions()
        s = self.rel.state
        out = []
        for who in range(self.n):
            if self.deadline is not None and time.perf_counter() > self.deadline:
                out.append({"player": who, "low": None, "high": None})
                continue
            self.progress(f"score bounds of player {who}")
            score = Encoder(self.p, self.n, self.options, s).score(num(who))
            ends = []
            for sense in ("minimize", "maximize"):
                opt = z3.Optimize(ctx=CTX)
                opt.set("timeout", min(self._call_ms(), OPTIMIZE_MS))
                opt.add(*assume, eq_leaf(s.pc, num(-1)))
                h = getattr(opt, sense)(score)
                r = opt.check()
                val = (opt.lower if sense == "minimize" else opt.upper)(h) if r == z3.sat else None
                bound = val.as_long() if hasattr(val, "as_long") else None
                ends.append(self._confirmed_bound(assume, score, sense, bound) if bound is not None
                            else self._searched_bound(assume, score, sense))
            out.append({"player": who, "low": ends[0], "high": ends[1]})
        return out

    def _searched_bound(self, assume: list, score, sense: str) -> int | None:
        """The bound by plain solver calls alone, where Optimize gave up (a sowing game's score
        over 7 pits: Optimize out of its 20 s for each seat and sense, a plain call 0.00 s): a
        final state's score, then beyond it in doubling steps while one is found, then halving
        back to where none is. The last call shows that no final state satisfying the proved
        invariants goes beyond the bound; None if the solver gives up or the calls run out."""
        sign = 1 if sense == "maximize" else -1
        sol = z3.Solver(ctx=CTX)
        sol.add(*assume, eq_leaf(self.rel.state.pc, num(-1)))
        calls = 0

        def beyond(v: int):
            """A final state's score at v or beyond it (None: none; False: the solver gave up)."""
            nonlocal calls
            calls += 1
            sol.set("timeout", self._call_ms())
            r = sol.check(score >= v if sign > 0 else score <= v)
            if r == z3.unsat:
                return None
            value = sol.model().eval(score, model_completion=True) if r == z3.sat else None
            return value.as_long() if hasattr(value, "as_long") else False

        sol.set("timeout", self._call_ms())
        if sol.check() != z3.sat:
            return None
        first = sol.model().eval(score, model_completion=True)
        if not hasattr(first, "as_long"):
            return None
        seen, step = first.as_long(), 1  # `seen`: a final state's score; `seen + sign * step`: asked
        while calls < MAX_SEARCH_CALLS:
            found = beyond(seen + sign * step)
            if found is False:
                return None
            if found is None:
                break
            seen, step = found, step * 2
        else:
            return None
        past = seen + sign * step  # no final state's score reaches it
        while abs(past - seen) > 1 and calls < MAX_SEARCH_CALLS:
            middle = (seen + past) // 2  # (strictly between the two: they are 2 or more apart)
            found = beyond(middle)
            if found is False:
                return None
            if found is None:
                past = middle
            else:
                seen = found
        return seen if abs(past - seen) <= 1 else None

    def _confirmed_bound(self, assume: list, score, sense: str, bound: int) -> int | None:
        """`bound` moved out until a plain solver shows that no final state satisfying the proved
        invariants goes beyond it; None if the solver gives up. Optimize's answer alone is not
        trusted: it has answered `sat` with a maximum of 9 where 10 is reachable (seen in CI, and
        in one run of three in a fresh process, with no time-out near)."""
        sol = z3.Solver(ctx=CTX)
        sol.add(*assume, eq_leaf(self.rel.state.pc, num(-1)))
        for _ in range(MAX_BOUND_STEPS):
            sol.set("timeout", self._call_ms())
            r = sol.check(score < bound if sense == "minimize" else score > bound)
            if r == z3.unsat:
                return bound
            if r != z3.sat:
                return None
            value = sol.model().eval(score, model_completion=True)
            if not hasattr(value, "as_long"):
                return None
            bound = value.as_long()  # a final state beyond the old bound: the new candidate
        return None


def _less_held(goal, held: set):
    """`goal` less its conjuncts whose ids are in `held` (TRUE when none is left)."""
    if goal.get_id() in held:
        return TRUE
    if not z3.is_and(goal):
        return goal
    return and_all([x for x in flatten_and(goal) if x.get_id() not in held])


def _line(a: list, b: list) -> tuple[int, int, int] | None:
    """(p, q, c) with p * a_k + q * b_k == c for every k, p > 0, coefficients coprime and at most
    MAX_COEFFICIENT, if the points (a_k, b_k) lie on such a line; else None."""
    from math import gcd
    k = next((k for k in range(1, len(a)) if (a[k], b[k]) != (a[0], b[0])), None)
    if k is None:
        return None
    da, db = a[k] - a[0], b[k] - b[0]
    p, q = db, -da  # normal to the direction
    g = gcd(p, q)
    p, q = p // g, q // g
    if p < 0 or p == 0 and q < 0:
        p, q = -p, -q
    if p == 0 or q == 0 or max(abs(p), abs(q)) > MAX_COEFFICIENT:
        return None
    c = p * a[0] + q * b[0]
    return (p, q, c) if all(p * u + q * v == c for u, v in zip(a, b)) else None


def linear_equalities(rows: list[tuple]) -> list[tuple[list[int], int]]:
    """A basis of the linear equalities sum(a_i * x_i) == c that every row satisfies, as
    (integer coefficients, c): the null space of the rows extended with a constant column, in
    reduced row echelon form (sparse: one free column per equality), exact.

    Fraction-free: each row is kept as integers divided by their gcd (a multiple of the reduced
    row over the rationals, which is unique, so the basis is the one `Fraction`s give). On a seed
    game's 30 sampled games, `Fraction` arithmetic took 2.2 s a prover (12 decision points)."""
    width = len(rows[0]) + 1 if rows else 0
    basis: list[list[int]] = []  # reduced rows, each primitive; pivots[i] is the pivot column of basis[i]
    pivots: list[int] = []

    def primitive(v: list[int], col: int) -> list[int]:
        g = math.gcd(*v)
        if v[col] < 0:
            g = -g
        return [x // g for x in v] if g != 1 else v

    for row in set(rows):
        v = list(row) + [-1]  # sum(a x) - c = 0  <=>  (x, -1) . (a, c) = 0
        for b, col in zip(basis, pivots):
            if v[col]:
                f, h = b[col], v[col]
                v = [x * f - h * y for x, y in zip(v, b)]
        col = next((i for i, x in enumerate(v) if x), None)
        if col is None:
            continue
        v = primitive(v, col)
        for i, b in enumerate(basis):
            if b[col]:
                f, h = v[col], b[col]
                basis[i] = primitive([x * f - h * y for x, y in zip(b, v)], pivots[i])
        basis.append(v)
        pivots.append(col)
        if len(basis) == width:
            return []
    out = []
    for free in (i for i in range(width) if i not in pivots):
        # each pivot column's value: -b[free] / b[col] (the other pivots are 0 in b), scaled to integers
        scale = math.lcm(*(b[col] for b, col in zip(basis, pivots) if b[free])) if basis else 1
        vec = [0] * width
        vec[free] = scale
        for b, col in zip(basis, pivots):
            vec[col] = -b[free] * scale // b[col]
        g = math.gcd(*vec)
        ints = [x // g for x in vec]
        out.append((ints[:-1], ints[-1]))
    return out


def _some_values(ok, values: list, types: list, n: int):
    """"Some values of the parameters make `ok` true": the disjunction of `ok` at each
    combination when the parameters are int-like with at most MAX_EXPANDED combinations (no
    quantifier: the solver settles what it gave up on with `Exists`), else `Exists`."""
    bound = [v for x in values for v in leaves(x)]
    if not bound:
        return ok
    ranges, cases = [], 1
    for v, t in zip(values, types):
        if isinstance(v, tuple) or v.sort().kind() != z3.Z3_INT_SORT:
            return z3.Exists(bound, ok)
        lo, hi = int_range(t, n)
        ranges.append(range(lo, hi + 1))
        cases *= hi - lo + 1
        if cases > MAX_EXPANDED:
            return z3.Exists(bound, ok)
    return or_all(z3.substitute(ok, *[(v, num(x)) for v, x in zip(values, combo)])
                  for combo in itertools.product(*ranges))


def _quantities(field: str, where: str, name: str, t, n: int) -> list:
    """(label, engine reader, Z3 reader) for the integer quantities of one state value."""
    if isinstance(t, (IntT, PlayerT)):
        return [(name, lambda raw: getattr(raw, field), lambda state, snaps: getattr(state, where)[name])]
    # (sizes come with a fourth reader: the engine's value whose size they are)
    if isinstance(t, SetT):
        return [(f"size({name})", lambda raw: bin(getattr(raw, field)).count("1"),
                 lambda state, snaps: set_size(getattr(state, where)[name]),
                 lambda raw: getattr(raw, field))]
    if isinstance(t, SeqT):
        return [(f"size({name})", lambda raw: len(getattr(raw, field)),
                 lambda state, snaps: getattr(state, where)[name].length,
                 lambda raw: tuple(getattr(raw, field)))]
    if isinstance(t, ArrayT) and isinstance(t.index, PlayerT) and isinstance(t.elem, (SetT, SeqT, IntT)):
        out = []
        for i in range(n):
            for label, get, z, *value in _quantities(field, where, name, t.elem, n):
                out.append((f"{label}[{i}]", lambda raw, g=get, i=i: _elem(g, raw, field, i),
                            lambda state, snaps, z=z, i=i: z(_Indexed(state, where, name, i), snaps),
                            *[lambda raw, g=g, i=i: _elem(g, raw, field, i) for g in value]))
        return out
    return []


def _elem(get, raw, field, i):
    class One:  # the engine reader over one element of the array
        pass
    one = One()
    setattr(one, field, getattr(raw, field)[i])
    return get(one)


class _Indexed:
    """A view of a state where `name` is one element of the array it holds."""

    def __init__(self, state, where, name, i):
        setattr(self, where, {name: getattr(state, where)[name][i]})


class _Pool:
    """Assumptions split into conjuncts, each with the leaves it reads, for slicing. The leaves
    are bit sets of a `Dag` of everything read so far: a move's checks share most of their terms,
    and a walk of each check from scratch took 50 s of hex's `well_formed` (past its budget)."""

    def __init__(self, assumptions: list):
        self.dag = Dag()
        self.parts = [(c, self.leaves_of(c)) for a in assumptions for c in flatten_and(a)]
        self.counts: list | None = None  # (`counting.distinct_items` fact, its leaves), once asked

    def leaves_of(self, term) -> int:
        return self.dag.support(self.dag.add(term))

    def sharing(self, wanted: int, extra: list | None = None) -> list:
        """The conjuncts (of the pool, or of `extra`) that read one of the `wanted` leaves."""
        parts = self.parts if extra is None else [(c, self.leaves_of(c)) for c in extra]
        return [c for c, leaves in parts if leaves & wanted]
