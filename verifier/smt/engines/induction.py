"""Induction over the transition system, one small query per claim instance and move.

A claim (a spec invariant, or an auxiliary fact) is split into its *instances*: the conjuncts
of its formula over the free state (`all(p in players: all(x in D: ...))` is one instance
per player and item of D). Houdini: every live instance is assumed before a move and must hold after
it, for every feasible move of every reachable decision point (the interval analysis says which
are feasible and reachable; a move is asked once for all the decision points its successor may
stop at, see `_cases`); instances some move can break are dropped until nothing is — what
is left is inductive together, hence true in every reachable state. A claim is proved when all
its instances are left.

Each query is *sliced* (cone of influence, then localization with refinement): it first asserts
only what shares a leaf with the instance after the move — the move's conditions and the live
instances that read those leaves, and the interval facts about them; only if that small query
has a model is the whole one asked (every condition, every live instance, the move's run-time
checks). A model of the whole query is a counterexample to induction (the state before it may
be unreachable: the instance is dropped, not refuted). An unsatisfiable answer is kept with the
instances it assumed, and re-used while they all stay live.

A claim over many items (a leading `all` over 45 cards) that comes with its reading over a
symbolic item (`Claim.param`, `smt/parametric.py`; `verify` gives it to claims of many
instances, see `invariants.OVER_AN_ITEM`) is asked first as those few formulas
(`_over_an_item`): one query per move instead of one per item, assuming the formulas at the
items the move names (`_with_named`); a move whose queries so are not settled within `ITEM_MS`
is asked of the claim's instances (`_by_instances`).

The interval facts rest on the run-time checks holding (see `intervals.py`), and so does every
proof here: it says so (`rests_on`).
"""
from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field

from ..dag import abstract_apart, named_constants
from ..encode import CTX, and_all, eq_leaf, lift, not_, num, with_values, z3
from ..relation import successor_paths
from ..parametric import Parametric, named_items
from ..symmetry import SeatRotations
from ..system import System, flatten_and
from .intervals import BIG, Intervals

__all__ = ["Claim", "Induction", "Outcome"]

SYMBOLIC_MS = 2000  # a first try with the move's choices symbolic, before asking value by value
BATCH_MS = 1500  # the one query for every instance a move keeps (a glance: else one by one)
# a whole batch the solver gives up on is asked value by value only for a choice with fewer
# values than this (a seed game's chance move draws one of dozens of cards: 1–1.6 s a query,
# a minute a round of values; its instances one by one are no slower)
SPLIT_VALUES = 8
# a batch glance whose image under a rotation of the seats the solver gave up on is not asked
# (`_given_up_rotated`); False: every glance asked, as before
SKIP_ROTATED_GLANCES = True
# a move whose flow can run more ways than this to its next decision point is not read path by
# path (`_holds_on_every_path`): each way costs a substitution per instance it changes
MAX_PATHS = 64
# the second pass asks each claim not proved on its own first (`run`); False: all together, as
# before (kept for `benchmarks/sliced_claims.py`)
RETRY_ALONE = True
# True: a lone plain claim (no symbolic item, no other engine to hand it to) gets the whole time
# of its run, not half (`run`, `share`): nothing comes after its first pass
LONE_CLAIM_WHOLE_TIME = True
# of a claim's share of the time, at most this part for its one query per move over a symbolic
# item (`Claim.param`) before its instances are asked one by one
PARAM_SHARE = 0.5
# what a move's queries over a symbolic item may take (milliseconds, in all) before the claim's
# instances are asked at that move instead (`_by_instances`); None: the claim is left to its
# instances one by one at the first query the solver gives up on, as before
ITEM_MS: int | None = 3000
# the claims over a symbolic item retried together (once what they may rest on is proved) get a
# share of the time left by the instances they stand for, at most half (`run`); False: one fair
# share per claim, as before
ITEM_RETRY_BY_INSTANCES = True
# a claim the solver gave up on in its first pass gets a second look whose queries get at most
# this long each (seconds), and which stops at the first one the solver gives up on: one that a
# later claim's statement settles takes a fraction of a second then (on a seed game, 0.1 s after
# 13.9 s the first time), and one that stays hard must not take the time the engines after this
# one use. Not a cap on the claim: a count kept through a loop's iterations is a hundred queries
# of 0.2 s each (a cap of 2 s a claim left two such claims unproved on a seed game)
AGAIN_S = 2.0
# a claim whose first pass ran out of its share gets a second look no longer than that pass
# (`run`); False: a fair share of all that is left, as before (kept for
# `benchmarks/second_look.py`)
SECOND_LOOK_NO_LONGER = True
# with `Induction.elsewhere` set: the claims the first pass gave up on are asked of that engine
# before their second looks (False: the second looks first)
ELSEWHERE_FIRST = True
# the first look at an instance whose successor reads much the instance does not (`_abstract`)
ABSTRACT_MS = 1000
# one iteration of a decision-free loop on the way of a move (`_through_cuts`): its abstracted
# look, then its own query, each at most this long (milliseconds)
CUT_MS = 1500
# the most `if` conditions around a move's loops that `_through_cuts` asks its last query
# under, each way (2 ** this queries at most)
GUARD_SPLITS = 3
CUTS = True  # False: a move's loops are not read iteration by iteration (for the benchmark)
# a loop on the way of many moves has its iterations asked once, from its start read as the
# state's leaves (`_loop_keeps`); False: from each move's own start, move by move
SHARED_LOOPS = True
# each of those iterations first from its own start, what the iterations before wrote read as
# fresh values (`System.loop_steps`); False: from the loop's start only (for the tests' contrast)
FRESH_STEPS = True
# a loop iteration's query through Z3's simplifier, then its SMT core (not the default solver's
# own choice of preprocessing): on a count of many items ("done ones = the sum of the done
# flags") the default gave up at 30 s where this takes 0.14 s. Only there: for every query, a
# first-pass counterexample on a seed game took 45 s (out of time) instead of 7 s
SIMPLIFY_FIRST = True
# a query whose image under a rotation of the seats was answered unsatisfiable is not asked
# (`_rotated_answer`): where the seats play alike, P2's move is asked as P1's was
SEAT_ROTATIONS = True
# a loop iteration's query from its own start, its fresh constants renamed in the order they
# are met (`canonical_parts`), is not asked again when an earlier iteration's was answered
# unsatisfiable under the same names: a `while` loop's iterations are one query each, alike but
# for the constants (a sowing game's 48 steps of "one bean into the next pit": 45 s of its
# claim's 49 s, 0.33 s each)
SAME_STEPS = True
# the FreshConst prefixes of the constants `canonical_parts` renames: an iteration's fresh
# values (`System.fresh_value`) and what `abstract_apart` leaves free
RENAMED_PREFIXES = ("step!", "free!")
# an instance whose sliced query the solver gives up on, where that slice assumes many other
# instances, is asked assuming itself alone (`_kept_alone`), cut short at `SELF_MS`, before the
# move's loops are read one iteration at a time or its choices value by value; once that has
# settled an instance of a claim, the claim's instances are asked so first (`_alone_first`).
# The others are in the slice because they read what the move writes; most are not needed, and
# they make the query hard. On a seed game, "a scored item keeps the score it was given" at a
# move assumed the 15 like it of the other items and seats and took 35 queries and 132 s value
# by value for one item; assuming only itself, 1-3 s. False: not asked (for the benchmark)
SELF_LOOK = True
SELF_MS = 3000
SELF_SIMPLIFY = True
SELF_MIN_HYPS = 4  # the slice assumes at least this many instances (else the look is that query)


@dataclass
class Claim:
    name: str
    node: object  # the InvariantDecl, or None for an auxiliary fact
    instances: list  # z3 formulas over the free state (the relation's step 0)
    # the claim over a symbolic item of its leading `all`s (`smt/parametric.py`), tried first
    param: Parametric | None = None


@dataclass
class Outcome:
    proved: bool
    # when not proved: "sat" (a counterexample to induction), "unknown", "time"; when proved:
    # "item" (over a symbolic item, `Claim.param`), "spacer", "elsewhere" (by `Induction.elsewhere`),
    # or "" (instance by instance)
    kind: str = ""
    decision: int | None = None
    move: str = ""
    detail: str = ""
    model: object = None
    instance: object = None
    scope: int = 0  # with a model: the leaves (bits) its query asserted anything about


@dataclass
class _Query:
    used: frozenset = field(default_factory=frozenset)  # instance keys an unsat answer assumed


class Induction:
    def __init__(self, system: System, facts: Intervals | None, timeout: float = 20.0,
                 deadline: float | None = None, progress=None):
        self.sys, self.facts = system, facts
        self.timeout_ms = max(1, int(timeout * 1000))
        self.deadline = deadline
        self.progress = progress or (lambda text: None)
        self._fact_terms: dict = {}
        self._post: dict = {}
        self._answers: dict = {}
        self._joint_cases: dict = {}
        self._cone_items: dict = {}  # id(transition) -> its conditions and checks with their leaves
        self._paths: dict = {}  # id(transition) -> its successor paths ([]: not read path by path)
        self._on_paths: dict = {}  # (id(transition), case, instance key) -> holds on every path
        self._plain: dict = {}  # instance key -> the instance simplified (kept: its id is compared)
        self._abstracts: dict = {}  # (id(transition), instance key) -> `_abstract`'s term or None
        self.abstract_settled = 0  # instances a move keeps, settled on the abstracted successor
        self.cut_settled = 0  # instances a move keeps, settled one loop iteration at a time
        self._var_bits: int | None = None
        self._cuts: dict = {}  # (id(transition), instance key) -> `_cut_states`
        self.queries = 0
        self._unsat_queries: dict = {}  # the ids of a query's parts -> its parts, for `_solve`
        self.repeated = 0  # queries answered by an earlier one with the same parts
        self._same_steps: dict = {}  # `canonical_parts` of each loop step answered unsatisfiable
        self.same_steps = 0  # loop steps answered so (`SAME_STEPS`)
        self._rotations: SeatRotations | None = None  # built on first use (`SEAT_ROTATIONS`)
        self._unsat_images = _Images()  # the queries answered unsatisfiable, by canonical keys
        self.rotated = 0  # queries answered by another seat's (the image of one under a rotation)
        self._given_up_images = _Images()  # the batch glances the solver gave up on
        self.glances_skipped = 0  # batch glances not asked: another seat's image was given up on
        self.sliced_settled = 0
        self.batched = 0  # moves whose kept instances one query settled
        self.refuted_by_models = 0  # instances dropped by another instance's counterexample
        self.slow: list = []  # (seconds, what) of solver calls over a second, for the log
        self.lemmas: list = []  # after `run`: the lemmas given and every instance left (inductive)
        self._params: dict = {}  # formula id -> its Parametric (a claim over a symbolic item)
        self._expansions: set = set()  # ids of the instances of claims proved over a symbolic item
        self._named: dict = {}  # (id(transition), domain) -> the items the move names
        self._compared: dict = {}  # id(transition) -> `Dag.comparisons` of its terms
        # (id(transition), case, id(Parametric) or "through a loop read on its own"): where an
        # abstracted look at a formula like this one was not settled (`_check_case`)
        self._abstract_failed: set = set()
        self._positions: frozenset | None = None  # ids of the loops' position leaves (no items)
        self._instantiated: dict = {}  # (id(transition), formula id) -> its instantiations there
        self.param_proved: list = []  # names of the claims proved over a symbolic item
        self._param_instances: dict = {}  # formula id over a symbolic item -> its claim's instances
        self.item_fallbacks = 0  # moves where a claim over a symbolic item was asked item by item
        self._loop_proofs: dict = {}  # `_loop_shape`'s key -> what the loop's iterations assumed
        self._loop_failures: set = set()  # (`_loop_shape`'s key, the hyps offered): not shown
        self.loops_shared = 0  # (move, instance) kept through a loop by its shared iterations
        self.fresh_steps = 0  # shared iterations shown from their own start (`System.loop_steps`)
        self._named_keys: set = set()  # hyps of one move only (`_with_named`): not for `_loop_keeps`
        self._pins: dict = {}  # (id(transition), run) -> `_loop_shape`'s pins and their ids
        self.self_settled = 0  # (move, instance) kept assuming the instance alone (`_kept_alone`)
        self._claim_of: dict = {}  # instance key -> its claim's name (a spec invariant's only)
        self._alone_won: set = set()  # names of claims an instance of which `_kept_alone` settled
        # (id(transition), claim name) -> [instances settled alone there, looks that failed]
        self._alone_tally: dict = {}
        # another engine for the claims the first pass gave up on, asked before their second
        # looks: (claims, every formula proved so far, the names of the claims proved so far) ->
        # the names it proved. It keeps its own time: it may spend what the second looks would.
        # On a seed game two claims given up on took 21 s of second looks in vain or nearly
        # (one was proved there, the other not), where the older engine's whole queries over
        # sampled frame facts then proved both in 3-5 s (`notes/issue11.md`, forty-third stop)
        self.elsewhere = None

    # ------------------------------------------------------------ facts
    def fact_terms(self, d: int, leaves: list) -> list:
        """The interval facts at d about these leaves (proved by the interval analysis)."""
        if self.facts is None or not self.facts.complete:
            return []  # a fixpoint cut short over-approximates nothing
        env = self.facts.states.get(d)
        if env is None:
            return []
        out = []
        dag = self.sys.dag
        for leaf in leaves:
            key = (d, leaf)
            t = self._fact_terms.get(key)
            if t is None:
                v = env.get(leaf)
                t = True
                if v is not None and leaf in dag.term:
                    x = dag.term[leaf]
                    if dag.is_bool[leaf]:
                        t = x if v == (1, 1) else not_(x) if v == (0, 0) else True
                    else:
                        parts = []
                        if v[0] > -BIG:
                            parts.append(lift(lambda a, b: a <= b, num(v[0]), x))
                        if v[1] < BIG:
                            parts.append(lift(lambda a, b: a <= b, x, num(v[1])))
                        t = and_all(parts) if parts else True
                self._fact_terms[key] = t
            if t is not True:
                out.append(t)
        return out

    def reachable(self) -> list[int]:
        if self.facts is None or not self.facts.complete:
            return self.sys.decisions
        return [d for d in self.sys.decisions if self.facts.states.get(d) is not None]

    def transitions(self, d: int) -> list:
        if self.facts is not None and self.facts.complete and d in self.facts.feasible:
            return self.facts.feasible[d]
        return self.sys.transitions(d)

    def _cases(self, tr) -> list:
        """The successors' decision points a move is asked for: all of them in one query (a
        tuple), which settles in one answer what one query per decision point settles in
        several (on a seed game 420 queries and 36 s against 770 and 132 s); one by one only
        where the joint query is not settled (`_check`), or where the successor's `pc` has no
        literal cases (None)."""
        out = []
        for v, _ in tr.cases:
            if v is not None and self.facts is not None and self.facts.complete and self.facts.states.get(v) is None:
                continue  # the move cannot lead there from a reachable state
            out.append(v)
        if len(out) > 1 and None not in out:
            return [tuple(out)]
        return out

    def _case_term(self, tr, v):
        """"The successor is at v" (v a decision point, or a tuple: at one of them); None when
        that says nothing (every successor the move has)."""
        if not isinstance(v, tuple):
            return tr.case_terms.get(v)
        if len(v) == len(tr.cases):
            return None
        key = (id(tr), v)
        term = self._joint_cases.get(key)
        if term is None:
            term = self._joint_cases[key] = z3.Or(*[tr.case_terms[w] for w in v])
        return term

    # ------------------------------------------------------------ the fixpoint
    def run(self, claims: list[Claim], lemmas: list | None = None) -> dict[str, Outcome]:
        """Each claim first on its own instances, assuming the interval facts, `lemmas` (formulas
        already proved) and the instances the claims before it left (inductive, whether or not
        their whole claim was: a claim that rests on an earlier one — "at most one of each kind
        in a slot", on "a slot not yet opened is empty" — is proved in its first pass; one that
        a move breaks there is left at the first counterexample). Then those some move broke
        from a state satisfying them again, each on its own, assuming everything the first pass
        proved; those still broken together (claims that rest on each other). Last, with the
        time left, those the solver gave up on, each on its own with everything proved by then
        (what a later claim states can keep a query small; together they would only be
        harder). A claim over many items (`Claim.param`) is first asked over a symbolic item,
        on its own, before the other claims; those not proved so, together, still before them;
        and only then instance by instance, after the other claims' first pass
        (`_over_an_item`); one over a symbolic item not proved is asked again last (`_last`).
        With `elsewhere` set, the claims the first pass gave up on are asked of that engine after
        the broken claims' retries alone and before their own second looks."""
        lemmas = list(lemmas or [])
        results: dict[str, Outcome] = {}
        proved: dict[str, list] = {}
        known = list(lemmas)
        seen = {f.get_id() for f in known}
        final = self.deadline
        assumed: dict[str, set] = {}  # claim -> ids of what its first pass assumed
        spent: dict[str, float] = {}  # claim -> seconds its first pass took

        def record(c: Claim, outcome: Outcome, alive: list) -> None:
            nonlocal known, seen
            results[c.name] = outcome
            proved[c.name] = alive
            known += [f for f in alive if f.get_id() not in seen]
            seen |= {f.get_id() for f in alive}

        def share(to_go: int) -> None:
            # each claim its fair share of the time left (one share kept for the second pass): a
            # claim the solver struggles with must not starve the others. A lone plain claim
            # with no other engine to hand it to has no second pass (its Houdini runs to the
            # fixpoint in the first): it gets the whole time (kept half, a card game's facts of
            # the flow's structure ran out at its last decision point at every budget tried, 60
            # to 150 s, and were dropped whole)
            if final is not None:
                lone = len(claims) == 1 and claims[0].param is None and self.elsewhere is None
                kept = 0 if lone and LONE_CLAIM_WHOLE_TIME else 1
                self.deadline = time.perf_counter() + (final - time.perf_counter()) / (to_go + kept)

        def alone(c: Claim, to_go: int) -> None:
            assumed[c.name] = set(seen)
            share(to_go)
            start = time.perf_counter()
            try:
                out, alive = self._houdini([c], known, give_up_at_sat=len(claims) > 1)
            finally:
                self.deadline = final
            spent[c.name] = time.perf_counter() - start
            record(c, out[c.name], alive)

        # the claims over many items that one query per move over a symbolic item did not prove
        # on their own: asked so together (they may rest on each other), then instance by instance
        # — but not one that ran out of its time so: each move the symbolic item does not settle
        # is already asked of its instances, and one by one from the start they are only slower
        pending: list[Claim] = []
        item_out: dict[str, Outcome] = {}  # a claim over a symbolic item -> its last try's outcome
        over_items = [c for c in claims if c.param is not None]
        plain = [c for c in claims if c.param is None]
        for i, c in enumerate(over_items):
            assumed[c.name] = set(seen)
            share(len(claims) - i + len(pending))
            try:
                done, outs = self._over_an_item([c], known)
            finally:
                self.deadline = final
            if c.name in done:
                record(c, Outcome(True, "item"), done[c.name])
            else:
                pending.append(c)
                item_out[c.name] = outs[c.name]
        # (one alone too: it may rest on a claim proved after its first try, a claim over strips
        # on one over the piles that hold them) — before the other claims' first pass, which
        # may rest on them: on a seed game a count kept through a loop over the strips rests on
        # "a strip is in one place at most", and asked without it spent its whole share
        # (not when each ran out of its time alone and nothing was proved since: together is
        # each one's work and more, at every move, in a share no bigger — on a seed game, 1.7 s
        # given up on at the first move)
        grown = pending and len(known) > len(assumed[pending[0].name])
        if pending and (len(pending) > 1 or grown) and \
                (grown or any(item_out[c.name].kind != "time" for c in pending)):
            if ITEM_RETRY_BY_INSTANCES and final is not None:
                # a share by the instances they stand for, not one per claim: the plain claims
                # after them rest on them, and each of those that does fails its first pass
                # without them (on a seed game "a strip is in one place at most", 52 instances,
                # ran out of its 5.8 s at its retry and was proved only after the plain claims,
                # whose first passes over the strips had spent 20 s each in vain)
                weight = sum(len(c.instances) for c in pending)
                weight /= weight + sum(len(c.instances) for c in plain)
                now = time.perf_counter()
                self.deadline = now + (final - now) * min(0.5, weight)
            else:
                share(len(plain) + len(pending))
            try:
                together, outs = self._over_an_item(pending, known)
            finally:
                self.deadline = final
            for c in pending:
                if c.name in together:
                    record(c, Outcome(True, "item"), together[c.name])
                else:
                    item_out[c.name] = outs[c.name]
        for i, c in enumerate(plain):
            alone(c, len(plain) - i + len([p for p in pending if p.name not in results]))
        out_of_time = [c for c in pending if c.name not in results and item_out[c.name].kind == "time"]
        for c in out_of_time:
            record(c, item_out[c.name], [])
        rest = [c for c in pending if c.name not in results]
        for k, c in enumerate(rest):
            alone(c, len(rest) - k)
        broken = [c for c in claims if not results[c.name].proved and results[c.name].kind == "sat"]
        gave_up = [c for c in claims if not results[c.name].proved and results[c.name].kind != "sat"
                   and c not in out_of_time]
        left: list = []
        together = broken
        if len(claims) > 1 and RETRY_ALONE:
            # each broken claim again on its own, assuming what every claim of the first pass left
            # (those after it in the order too): a claim that rests on a later one (a count bounded
            # by an allowance, on the claim that pins the allowance) is proved in its own small
            # fixpoint; asked together with the rest, one claim the solver struggles with would
            # run the time out for all of them
            together = self._again(broken, lemmas, results, proved, assumed, final, 1)
        if ELSEWHERE_FIRST and self.elsewhere is not None and gave_up:
            # (after those quick retries: the other engine may spend the time up to `final`)
            settled = self.elsewhere(gave_up, lemmas + [f for alive in proved.values() for f in alive],
                                     {name for name, out in results.items() if out.proved})
            for c in gave_up:
                if c.name in settled:
                    # inductive with what that engine proved beside it: the conjunction of every
                    # proved formula stays inductive, so the claims after it may assume it
                    record(c, Outcome(True, "elsewhere"), list(c.instances))
            gave_up = [c for c in gave_up if c.name not in settled]
        if len(claims) > 1:
            if together:
                others = [f for name, alive in proved.items() for f in alive]
                # a share of the time left, not all of it: the claims given up on and those over a
                # symbolic item not proved yet are asked after it (on a seed game, a slow claim
                # broken together with another spent the 42 s that the claims after it needed)
                after = len(gave_up) + len([c for c in claims if c.param is not None and c not in together
                                            and not results[c.name].proved])
                if final is not None:
                    now = time.perf_counter()
                    self.deadline = now + (final - now) * len(together) / (len(together) + after)
                try:
                    out, left = self._houdini(together, lemmas + others)
                finally:
                    self.deadline = final
                for c in together:
                    if out[c.name].proved or out[c.name].kind == "sat":
                        results[c.name] = out[c.name]
            if RETRY_ALONE and gave_up:
                # then, with the time left, those the solver gave up on or ran out of time with:
                # without what a later claim states, a query that one assumption settles can grow
                # into the move's whole cone (its checks on a board it rewrites)
                self._again(gave_up, lemmas + left, results, proved, assumed, final, 0, AGAIN_S,
                            {c.name: spent[c.name] for c in gave_up
                             if results[c.name].kind == "time" and c.name in spent}
                            if SECOND_LOOK_NO_LONGER else None)
            before = {c.name for c in claims if results[c.name].proved}
            left += self._last(claims, lemmas + left, results, proved, final)
            if RETRY_ALONE and any(c.param is not None and results[c.name].proved and c.name not in before
                                   for c in claims):
                # a claim over a symbolic item proved only in the last round: the others may rest
                # on it (on a seed game both counts through the scoring loop rest on "a strip is in
                # one place at most", which a run at --budget 400 proved only there, after their
                # first pass and second look had run out without it), each again with the time left
                still = [c for c in claims if c.param is None and not results[c.name].proved]
                self._again(still, lemmas + left, results, proved, assumed, final, 0)
        # what the second pass left is inductive too (with what the first pass left)
        # (not the formulas over a symbolic item: their instances say it, over the state alone)
        self.lemmas = [f for f in lemmas + [f for alive in proved.values() for f in alive] + left
                       if f.get_id() not in self._params]
        return results

    def _last(self, claims: list[Claim], lemmas: list, results: dict, proved: dict,
              final: float | None) -> list:
        """With a fair share each of the time left: the claims over a symbolic item not proved,
        so again, round after round while a round proves one more claim (one may rest on another: a claim
        over strips on one over the piles that hold them) or one ran out of its share (asked again,
        it goes on where it stopped: what the moves it passed showed is not asked again); then the
        broken ones together with every claim still broken, as after the first pass — but not
        one that ran out of its share: together, its instances are asked one by one, only slower.
        Updates `results` and `proved`; returns the instances that together pass left (inductive
        with `lemmas` and what is proved)."""
        late = [c for c in claims if c.param is not None and not results[c.name].proved]
        tried: dict[str, int] = {}  # claim -> how many claims were proved when it was last tried
        ran_out: set = set()  # the claims whose last try ran out of its share
        while True:
            count = sum(1 for r in results.values() if r.proved)
            roomy = final is None or final - time.perf_counter() > AGAIN_S  # (not shares of crumbs)
            todo = [c for c in late if not results[c.name].proved and
                    (tried.get(c.name, -1) < count or (c.name in ran_out and roomy))]
            if not todo or (final is not None and time.perf_counter() >= final):
                break
            for k, c in enumerate(todo):
                tried[c.name] = sum(1 for r in results.values() if r.proved)
                if final is not None:
                    self.deadline = time.perf_counter() + (final - time.perf_counter()) / (len(todo) - k + 1)
                known = lemmas + [f for alive in proved.values() for f in alive]
                try:
                    done, out = self._over_an_item([c], known, 1.0)
                finally:
                    self.deadline = final
                ran_out.discard(c.name)
                if c.name in done:
                    results[c.name], proved[c.name] = Outcome(True, "item"), done[c.name]
                elif out[c.name].kind == "sat":
                    results[c.name] = out[c.name]
                elif out[c.name].kind == "time":
                    ran_out.add(c.name)
        broken = [c for c in claims if not results[c.name].proved and results[c.name].kind == "sat"
                  and c.name not in ran_out]
        if not any(c in late for c in broken):
            return []
        out, more = self._houdini(broken, lemmas + [f for alive in proved.values() for f in alive])
        for c in broken:
            if out[c.name].proved:
                results[c.name] = out[c.name]
        return more

    def _over_an_item(self, claims: list[Claim], known: list, part: float = PARAM_SHARE) -> tuple[dict, dict]:
        """The claims' formulas over a symbolic item (`Claim.param`), in Houdini together with
        `known`, within `part` of the time left (`self.deadline`): for each claim every move keeps,
        its formulas (for the later claims over an item) and its instances; and each claim's
        outcome. A first try: at the
        first query the solver gives up on (and, for one claim, at the first counterexample)
        it stops, and the instances one by one take the rest of the time. The instances of
        claims proved so are not assumed (the formulas say what they say, and each would be in
        the slice of every query that reads the collection)."""
        for c in claims:
            for f in c.param.formulas:
                self._params[f.get_id()] = c.param
                self._param_instances[f.get_id()] = c.instances
        share = self.deadline
        if share is not None:
            now = time.perf_counter()
            self.deadline = now + part * (share - now)
        try:
            out, _ = self._houdini([Claim(c.name, c.node, list(c.param.formulas)) for c in claims],
                                   [f for f in known if f.get_id() not in self._expansions],
                                   give_up_at_sat=len(claims) == 1, give_up_at_unknown=ITEM_MS is None)
        finally:
            self.deadline = share
        done = {}
        for c in claims:
            if out[c.name].proved:
                self.param_proved.append(c.name)
                self._expansions |= {f.get_id() for f in c.instances}
                done[c.name] = list(c.param.formulas) + list(c.instances)
        return done, out

    def _with_named(self, tr, live: dict, given: dict, support: dict, dropped: dict) -> dict:
        """`given` with every live claim over a symbolic item (`_params`) at the items this move
        names (`Parametric.instantiations`): what its queries assume of those items."""
        if not self._params:
            return given
        dag = self.sys.dag
        extra = {}
        for k, f in [*live.items(), *given.items()]:
            if k in dropped:
                continue
            par = self._params.get(k)
            if par is None:
                continue
            key = (id(tr), k)
            hyps = self._instantiated.get(key)
            if hyps is None:
                named = {dom: self._named_items(tr, dom) for dom in par.domains}
                hyps = self._instantiated[key] = par.instantiations(f, named)
            for h in hyps:
                hk = dag.add(h)
                if hk not in live and hk not in given:
                    extra[hk] = h
                    self._named_keys.add(hk)
                    if hk not in support:
                        support[hk] = dag.support(hk)
        return {**given, **extra} if extra else given

    def _named_items(self, tr, domain: tuple) -> list:
        key = (id(tr), domain)
        if key not in self._named:
            if self._positions is None:
                self._positions = frozenset(snap[1].get_id() for snap in self.sys.rel.snaps.values()
                                            if isinstance(snap, tuple))
            compared = self._compared.get(id(tr))
            if compared is None:  # what the move's conditions and the values it writes compare
                written = [j for i, j in zip(self.sys.leaves, tr.post) if i != j]
                compared = self._compared[id(tr)] = self.sys.dag.comparisons(list(tr.pre) + written)
            self._named[key] = named_items(self.sys.dag, compared, domain, self._positions)
        return self._named[key]

    def _again(self, claims: list[Claim], lemmas: list, results: dict, proved: dict, assumed: dict,
               final: float | None, reserve: int, cap: float | None = None,
               no_longer: dict[str, float] | None = None) -> list[Claim]:
        """Each claim on its own again, assuming `lemmas` and what every claim has left so far,
        each with a fair share of the time (`reserve` shares kept for what follows; with `cap`,
        each query at most `cap` seconds and the claim left at the first query the solver gives
        up on; a claim in `no_longer` at most that many seconds); skipped where nothing it reads
        is stated by what its first pass could not assume (`assumed`: the same queries again).
        Updates `results` and `proved` with the claims proved; returns the others (broken, given
        up on, or skipped), in order."""
        still = []
        dag = self.sys.dag
        reads_of: dict[int, int] = {}  # formula id -> its leaves (each formula read into the table once)

        def reads(f) -> int:
            if f.get_id() not in reads_of:
                reads_of[f.get_id()] = dag.support(dag.add(f))
            return reads_of[f.get_id()]
        for i, c in enumerate(claims):
            others = [f for alive in proved.values() for f in alive]
            mine = 0
            for f in c.instances:
                mine |= reads(f)
            if not any(f.get_id() not in assumed[c.name] and reads(f) & mine for f in others):
                still.append(c)
                continue
            if final is not None:
                self.deadline = time.perf_counter() + (final - time.perf_counter()) / (len(claims) - i + reserve)
            if no_longer and c.name in no_longer:
                # what its first try spent running out of time, at most: where the new facts are
                # what it lacked, its queries are quicker this time; where they are not, a longer
                # try is the same queries again (on a seed game, 30 s then 59 s, both out of time
                # at the same move, which the engine after this one then proved in 5 s)
                limit = time.perf_counter() + no_longer[c.name]
                self.deadline = limit if self.deadline is None else min(self.deadline, limit)
            timeout_ms = self.timeout_ms
            if cap is not None:
                self.timeout_ms = min(timeout_ms, max(1, int(cap * 1000)))
            try:
                out, alive = self._houdini([c], lemmas + others, give_up_at_sat=True,
                                           give_up_at_unknown=cap is not None)
            finally:
                self.deadline, self.timeout_ms = final, timeout_ms
            if out[c.name].proved:
                results[c.name], proved[c.name] = out[c.name], alive
            else:
                still.append(c)
        return still

    def _houdini(self, claims: list[Claim], lemmas: list, give_up_at_sat: bool = False,
                 give_up_at_unknown: bool = False) -> tuple[dict[str, Outcome], list]:
        """(outcome per claim, the instances left: inductive together with the lemmas).
        `give_up_at_sat`: stop at the first counterexample to induction (nothing left): the
        first pass's claim is then not proved, and the second pass, with every claim that
        failed so, finds what is left of them — on a seed game a claim that needed a later one
        spent 40 s of its first pass refuting its 100 instances one by one, for nothing.
        `give_up_at_unknown`: likewise at the first query the solver gives up on."""
        dag = self.sys.dag
        live: dict[int, object] = {}  # formula id -> formula
        owner: dict[int, int] = {}  # formula id -> claim index
        support: dict[int, int] = {}
        for ci, c in enumerate(claims):
            for f in c.instances:
                k = dag.add(f)
                live[k], owner[k], support[k] = f, ci, dag.support(k)
                if c.node is not None:  # (an auxiliary fact's guesses are not looked at alone)
                    self._claim_of[k] = c.name
        given = {}
        for f in lemmas:
            k = dag.add(f)
            if k not in live:
                given[k] = f
                support[k] = dag.support(k)
        failed: dict[int, Outcome] = {}
        while True:
            dropped: dict[int, Outcome] = {}
            for d in self.reachable():
                self.progress(f"induction at decision point {d}")
                for tr in self.transitions(d):
                    assumed = self._with_named(tr, live, given, support, dropped)
                    for v in self._cases(tr):
                        settled, refuted = self._batch(d, tr, v, live, assumed, support, dropped, give_up_at_sat)
                        for key, out in refuted:
                            dropped[key] = out
                            failed.setdefault(owner[key], out)
                            if give_up_at_sat:
                                return self._outcomes(claims, failed, out), []
                        for key, f in list(live.items()):
                            if key in dropped or key in settled:
                                continue
                            out = self._check_within(d, tr, v, key, f, live, assumed, support, dropped)
                            if out is not None:
                                dropped[key] = out
                                failed.setdefault(owner[key], out)
                                if out.kind == "time" or (give_up_at_sat and out.kind == "sat") or \
                                        (give_up_at_unknown and out.kind == "unknown"):
                                    return self._outcomes(claims, failed, out), []
                                for other, broken in self._also_broken(tr, out, live, dropped):
                                    dropped[other] = broken
                                    failed.setdefault(owner[other], broken)
            if not dropped:
                break
            for key in dropped:
                live.pop(key, None)
        return self._outcomes(claims, failed, None), list(live.values())

    def _check_within(self, d, tr, v, key, f, live, given, support, dropped) -> Outcome | None:
        """`_check`; for a formula over a symbolic item (with `ITEM_MS`), its queries cut short
        after ITEM_MS in all and, where they do not settle it, the claim's instances asked at
        this move (`_by_instances`): one query per move where the symbolic item is easy, the
        instances where it is not (on a seed game the one is quick at some moves, the other at
        others)."""
        if ITEM_MS is None or key not in self._param_instances:
            return self._check(d, tr, v, key, f, live, given, support, dropped)
        real = self.deadline
        cut = time.perf_counter() + ITEM_MS / 1000
        self.deadline = cut if real is None else min(real, cut)
        try:
            out = self._check(d, tr, v, key, f, live, given, support, dropped)
        finally:
            self.deadline = real
        if out is None or out.kind == "sat" or self._late():
            return out
        self.item_fallbacks += 1
        return self._by_instances(d, tr, v, key, live, given, support, dropped)

    def _by_instances(self, d, tr, v, key, live, given, support, dropped) -> Outcome | None:
        """None if the move keeps every instance of the claim the formula `key` (over a symbolic
        item) states. Sound as a step of the same induction: where the claim holds before the
        move, so do all its instances (assumed here, with every live formula and lemma, and the
        instances of the other live claims over an item), and all of them after it is the claim
        after it, at every item."""
        dag = self.sys.dag
        mine = {dag.add(f): f for f in self._param_instances[key]}
        hyps = dict(given)
        for k, f in live.items():
            if k in dropped:
                continue
            hyps[k] = f
            for g in self._param_instances.get(k, ()):
                hyps.setdefault(dag.add(g), g)
        for k in mine:
            hyps.pop(k, None)
        for k in list(mine) + list(hyps):
            if k not in support:
                support[k] = dag.support(k)
        settled, refuted = self._batch(d, tr, v, mine, hyps, support, {}, True)
        if refuted:
            return refuted[0][1]
        for k, f in mine.items():
            if k not in settled:
                out = self._check(d, tr, v, k, f, mine, hyps, support, {})
                if out is not None:
                    return out
        return None

    def _also_broken(self, tr, out: Outcome, live: dict, dropped: dict):
        """(key, Outcome) of every other live instance that the counterexample `out` breaks too.
        Its state satisfies every live instance and lemma, and the move's conditions and checks,
        so an instance false after it is not inductive relative to the live set: Houdini would
        drop it on its own query, one solver call each (with hundreds of guesses, most of the
        time). Only an instance whose whole post-state the query constrained is judged (its
        leaves within the query's, evaluated without completing the model): a value the solver
        left free says nothing."""
        if out.kind != "sat" or out.model is None or not out.scope:
            return
        dag = self.sys.dag
        for key, f in list(live.items()):
            if key in dropped:  # (the instance `out` refuted is among them)
                continue
            post = self._post_of(tr, key, f)
            if post.eq(f) or dag.support(dag.add(post)) & ~out.scope:
                continue
            if z3.is_false(out.model.eval(post, model_completion=False)):
                self.refuted_by_models += 1
                yield key, Outcome(False, "sat", out.decision, out.move, "", out.model, f, out.scope)

    @staticmethod
    def _outcomes(claims, failed: dict, cut: Outcome | None) -> dict[str, Outcome]:
        out = {}
        for ci, c in enumerate(claims):
            out[c.name] = failed.get(ci) or (cut if cut is not None else Outcome(True))
        return out

    def _post_of(self, tr, key, f):
        k = (id(tr), key)
        p = self._post.get(k)
        if p is None:
            # most moves write nothing an instance reads: no substitution (a walk of the term)
            reads = self.sys.dag.support(key) & tr.written
            p = self._post[k] = z3.substitute(f, *tr.renaming) if reads else f
        return p

    def _batch(self, d, tr, v, live, given, support, dropped, first_only=False) -> tuple[set, list]:
        """(the instances this move keeps, [(key, Outcome)] of those it breaks), settled by
        queries of them all at once. First "some changed instance fails after the move" over the
        union of their slices: unsatisfiable, every one holds (each answer is kept, with what it
        assumed). Otherwise the same over the whole query (`_whole_batch`), whose models refute
        instances (`first_only`: the first model's only). What neither settles, `_check` asks
        instance by instance. Most moves keep most instances, and one query then does the work
        of dozens."""
        dag = self.sys.dag
        changed = []
        for key, f in live.items():
            if key in dropped:
                continue
            post = self._post_of(tr, key, f)
            if post.eq(f) or self._holds_on_every_path(tr, v, key, f, post):
                continue
            known = self._answers.get((id(tr), v, key))
            if known is not None and all((k in live and k not in dropped) or k in given for k in known.used):
                continue
            if self._loops_shown(tr, key, f):
                # (`_check_case` goes through its loop's iterations, shown already; in a glance
                # the loop's every iteration is read again, which on a seed game's scoring loop
                # the solver gave up on at each move of a turn, 1.7 s each)
                continue
            changed.append((key, post))
        if len(changed) < 2 or (self.deadline is not None and time.perf_counter() > self.deadline):
            return set(), []
        if all(key in self._params for key, _ in changed):
            # a few formulas over a symbolic item: each is already one query for every item,
            # and together they made a glance the solver gave up on at most moves of a seed
            # game (1.5 s each, then the formulas one by one anyway)
            return set(), []
        target = 0
        for _, post in changed:
            target |= dag.support(dag.add(post))
        conds, hyps, formulas, bits = self._slice(tr, target, live, given, support, dropped)
        every = z3.And(*[post for _, post in changed])
        # a glance only: when it is not quick, the instances one by one are quicker
        r, _ = self._ask(d, bits, conds, formulas, self._case_term(tr, v), every, [], (), BATCH_MS, glance=True)
        if r == z3.unsat:
            self.batched += 1
            used = frozenset(hyps)
            for key, _ in changed:
                self._answers[(id(tr), v, key)] = _Query(used)
            return {key for key, _ in changed}, []
        if r == z3.unknown:
            return set(), []
        return self._whole_batch(d, tr, v, changed, live, given, support, dropped, first_only)

    def _whole_batch(self, d, tr, v, changed, live, given, support, dropped, first_only) -> tuple[set, list]:
        """The changed instances over the whole query (every condition, every live instance, the
        move's run-time checks): a model is a counterexample to induction for every instance
        false in it — each is refuted, and the rest are asked again — and an unsatisfiable
        answer settles the rest. When the solver gives up and the move's first choice has few
        values (`Alternative.split`, under SPLIT_VALUES), the rest are asked once per value (each
        holds if it holds for every value). What is left, `_check` asks one by one. Where some
        instances fail, this settles a move in a few queries instead of a sliced and a whole
        query per instance (figures: docs/architecture.md, "Counterexamples refute many
        instances")."""
        dag = self.sys.dag
        case = self._case_term(tr, v)
        refuted: list = []
        gone: set = set()  # refuted here: not assumed by the next query (as `dropped`, for `_check`)
        start = [k for k in list(live) + list(given) if k not in dropped]

        def settle(left: dict, fixed: list, splits) -> set:
            while len(left) > 1 or (left and fixed):
                if self._late():
                    return set()
                bits = dag.support(dag.add(case)) if case is not None else 0
                for post in left.values():
                    bits |= dag.support(dag.add(post))
                conds, hyps, checks, bits = self._cone(tr, bits, [k for k in start if k not in gone], support)
                self.queries += 1
                parts = [*self.fact_terms(d, dag.leaves_of(bits)), *conds,
                         *[live.get(k, given.get(k)) for k in hyps], *checks,
                         *([case] if case is not None else []), not_(z3.And(*left.values()))]
                if fixed:
                    parts = with_values(parts, fixed)
                r, model = self._solve(parts, BATCH_MS)
                if r == z3.unsat:
                    return set(left)
                if r == z3.unknown:
                    if not splits or splits[0][2] - splits[0][1] >= SPLIT_VALUES:
                        return set()
                    (leaf, lo, hi), rest = splits[0], splits[1:]
                    held = set(left)
                    for value in range(lo, hi + 1):
                        held &= settle({k: q for k, q in left.items() if k not in gone}, fixed + [(leaf, num(value))], rest)
                        if first_only and refuted:
                            return set()
                    return held - gone
                broken = [key for key, post in left.items() if z3.is_false(model.eval(post, model_completion=False))]
                if not broken:  # (the model left what decides them free): one by one
                    return set()
                for key in broken:
                    self.refuted_by_models += 1
                    refuted.append((key, Outcome(False, "sat", d, tr.label, "", model, live[key], bits)))
                    gone.add(key)
                    del left[key]
                if first_only:
                    return set()
            return set()

        held = settle(dict(changed), [], tr.alt.split)
        if held:
            self.batched += 1
            used = frozenset(start)  # (every query assumed a part of these)
            for key in held:
                self._answers[(id(tr), v, key)] = _Query(used)
        return held, refuted

    def _holds_on_every_path(self, tr, v, key, f, post) -> bool:
        """The instance after the move, read along each way the move's flow can run to a
        decision point in case v (`relation.successor_paths`: the path's `if` conditions replaced
        by their values, simplified), is true or the instance itself before the move (which the
        induction assumes) on every one of them: it holds, and no query is needed. The
        successor's variables are merged over those ways: a turn's end that resets a count on
        the way to the next turn, and leaves it alone on the way to a reward, reads as `if
        (whatever decides the way) then 1 else count`, and the solver must reason about
        whatever decides it; path by path, it is `1` or `count`."""
        k = (id(tr), v, key)
        known = self._on_paths.get(k)
        if known is not None:
            return known
        plain = self._plain.get(key)
        if plain is None:
            plain = self._plain[key] = z3.simplify(f)
        ok = self._reads_on_every_path(tr, v, post, lambda after: after.eq(f) or after.eq(plain))
        self._on_paths[k] = ok
        return ok

    def _reads_on_every_path(self, tr, v, post, holds) -> bool:
        """`post` read along each way the move's flow runs to a decision point in case v is true,
        or a formula `holds` accepts, on every one of them (where the move is not read path by
        path: `post` itself)."""
        paths = self._paths.get(id(tr))
        if paths is None:
            paths = successor_paths(tr.alt)
            if not (1 < len(paths) <= MAX_PATHS and all(p.conds for p in paths)):
                paths = []
            self._paths[id(tr)] = paths
        if not paths:
            return z3.is_true(post) or holds(post)
        wanted = None if v is None else set(v) if isinstance(v, tuple) else {v}
        for path in paths:
            if wanted is not None and path.pc not in wanted:
                continue  # a way to a decision point outside this case
            after = path.specialise(post)
            if not (z3.is_true(after) or holds(after)):
                return False
        return True

    def _abstract(self, tr, key, post):
        """The instance after the move with every largest part that reads none of the leaves the
        instance reads before it replaced by a fresh constant (`dag.abstract_apart`); None when
        nothing is replaced. A localization abstraction: the abstracted term holds for every
        value of those constants, so "the move keeps it" on the abstracted term is a proof for
        the real one; its counterexamples are not (they may pick values the parts cannot take),
        and the real query follows. After a move that also searches a board for patterns, "an
        item held is never a finished one" reads `if (the item's pattern is on the board) then
        ...` for each item: the pattern tests are free booleans, and both sides of the `if`
        keep the claim."""
        k = (id(tr), key)
        if k not in self._abstracts:
            dag = self.sys.dag
            dag.add(post)
            self._abstracts[k] = abstract_apart(dag, post, dag.support(key))
        return self._abstracts[k]

    def _cone(self, tr, bits: int, keys: list, support: dict) -> tuple:
        """The whole query's cone of influence from the leaves `bits`: the move's conditions, the
        instances and lemmas (`keys`) and its run-time checks that share a leaf with it, closed
        under sharing; as (conditions, instance keys, checks, bits). What shares no leaf with the
        cone constrains other leaves only: leaving it out cannot make an unsatisfiable query
        satisfiable except where that part is unsatisfiable on its own (a move that cannot be
        taken at all), and then its model is a counterexample the whole query would not give:
        an instance dropped that might have been kept, never a proof that is not one. A move's
        checks on a board it rewrites (a pattern search after a placement) are then left out of
        a query about a count the move sets."""
        dag = self.sys.dag
        key = id(tr)
        items = self._cone_items.get(key)
        if items is None:
            checks = [o.cond for o in tr.alt.pre + tr.alt.step.obligations]
            ids = tr.legality_obligations + tr.step_obligations
            items = self._cone_items[key] = (
                [("cond", t, dag.support(i)) for t, i in zip(tr.pre_terms, tr.pre)] +
                [("check", t, dag.support(i)) for t, i in zip(checks, ids)])
        todo = [(kind, t, sup) for kind, t, sup in items] + [("hyp", k, support[k]) for k in keys]
        taken: list = []
        grew = True
        while grew:
            grew, rest = False, []
            for item in todo:
                if item[2] & bits:
                    bits |= item[2]
                    taken.append(item)
                    grew = True
                else:
                    rest.append(item)
            todo = rest
        order = {id(t): n for n, (_, t, _) in enumerate(items)}
        conds = sorted((t for kind, t, _ in taken if kind == "cond"), key=lambda t: order[id(t)])
        checks = sorted((t for kind, t, _ in taken if kind == "check"), key=lambda t: order[id(t)])
        taken_hyps = {t for kind, t, _ in taken if kind == "hyp"}
        hyps = [k for k in keys if k in taken_hyps]
        return conds, hyps, checks, bits

    def _slice(self, tr, target: int, live, given, support, dropped) -> tuple:
        """What shares a leaf with `target` (the support of what must hold after the move): the
        move's conditions, the live instances and lemmas that read those leaves, and the bits of
        every leaf they read; as (conditions, instance keys, their formulas, bits). The
        conditions are those that share a leaf with the target or with one of those instances:
        a move of one seat is the move under "the mover is that seat", and an instance that reads
        the mover ("this turn's count is at most the mover's tokens") must be read with it. Where
        the target no longer reads the mover (a loop's end read for that seat), the instance
        without the condition was read for any seat: a model that is no state of the move (on a
        seed game, the turn's count against another seat's tokens), and the loop's proof lost."""
        dag = self.sys.dag
        hyps = [k for k in list(live) + list(given) if k not in dropped and support[k] & target]
        bits = target
        for k in hyps:
            bits |= support[k]
        conds, read = [], bits
        for t, i in zip(tr.pre_terms, tr.pre):
            if dag.support(i) & read:
                conds.append(t)
                bits |= dag.support(i)
        return conds, hyps, [live.get(k, given.get(k)) for k in hyps], bits

    def _check(self, d, tr, v, key, f, live, given, support, dropped) -> Outcome | None:
        """None if the instance holds after the move (to decision point v, or to any of a tuple
        of them: when that joint query is not settled, each is asked on its own)."""
        out = self._check_case(d, tr, v, key, f, live, given, support, dropped)
        if out is None or out.kind != "unknown" or not isinstance(v, tuple):
            return out
        used: frozenset = frozenset()
        for w in v:
            one = self._check_case(d, tr, w, key, f, live, given, support, dropped)
            if one is not None:
                return one
            answer = self._answers.get((id(tr), w, key))  # none: the move leaves what it reads
            if answer is not None:
                used |= answer.used
        self._answers[(id(tr), v, key)] = _Query(used)
        return None

    def _check_case(self, d, tr, v, key, f, live, given, support, dropped) -> Outcome | None:
        if self.deadline is not None and time.perf_counter() > self.deadline:
            return Outcome(False, "time", d, tr.label, "the time budget ran out")
        post = self._post_of(tr, key, f)
        if post.eq(f) or self._holds_on_every_path(tr, v, key, f, post):
            return None  # the move leaves what it reads as it was (on every way its flow runs)
        answer_key = (id(tr), v, key)
        known = self._answers.get(answer_key)
        if known is not None and all((k in live and k not in dropped) or k in given for k in known.used):
            return None
        if SELF_LOOK and self._alone_first(tr, key):
            if self._kept_alone(d, tr, v, key, f, post, live, given, support, dropped):
                return None
        dag = self.sys.dag
        cuts_tried = self._loops_shown(tr, key, f)
        if cuts_tried and self._through_cuts(d, tr, v, key, f, post, live, given, support, dropped):
            return None  # (a loop's iterations shown at an earlier move: the rest is quick)
        abstract = self._abstract(tr, key, post)
        # the abstracted look is not taken where it failed at this move for a formula like this
        # one: (1) a claim over a symbolic item, for any of its formulas — they differ by one
        # value of an expanded `all` only, and on a seed game 26 such looks of 67 cost 7.5 s of
        # 39 s, all in vain; (2) an instance through a loop read on its own, where the solver
        # gave up — the look reads every iteration of the loop (on a seed game's scoring loop,
        # 1 s given up on by each instance of two counts at each seat's first move of a turn)
        shared = not cuts_tried and self._loops_shared(tr, key, f)
        family = through = None
        if key in self._params:
            family = (id(tr), v, id(self._params[key]))
        elif shared:
            family = through = (id(tr), v, "through a loop read on its own")
        if abstract is not None and family not in self._abstract_failed:
            a_conds, a_hyps, a_formulas, a_bits = self._slice(tr, dag.support(dag.add(abstract)), live, given,
                                                              support, dropped)
            r, _ = self._ask(d, a_bits, a_conds, a_formulas, None, abstract, [], (), ABSTRACT_MS)
            if r == z3.unsat:
                self.abstract_settled += 1
                self._answers[answer_key] = _Query(frozenset(a_hyps))
                return None
            if family is not None and not self._late() and (through is None or r == z3.unknown):
                self._abstract_failed.add(family)
        if shared:
            cuts_tried = True
            if self._through_cuts(d, tr, v, key, f, post, live, given, support, dropped):
                return None
        case = self._case_term(tr, v)
        target = dag.support(dag.add(post))
        assumable = [k for k in list(live) + list(given) if k not in dropped]
        conds, hyps, formulas, bits = self._slice(tr, target, live, given, support, dropped)
        r = None
        alone_tried = alone_kept = False

        def alone() -> bool:  # (asked once: where the whole query first gives up)
            nonlocal alone_tried, alone_kept
            if alone_tried or not SELF_LOOK or self._late() or self._alone_lost(tr, key):
                return False
            alone_tried = True
            alone_kept = self._kept_alone(d, tr, v, key, f, post, live, given, support, dropped)
            return alone_kept

        if self._cut_states(tr, key, f) and not cuts_tried:
            # a move whose loops change the instance: asked as a whole once, and where the solver
            # gives up, one loop iteration at a time before the move's choices value by value
            r, model = self._ask(d, bits, conds, formulas, case, post, [], (), SYMBOLIC_MS)
            if r == z3.unknown and not self._late():
                if alone() or self._through_cuts(d, tr, v, key, f, post, live, given, support, dropped):
                    return None
                r = None
        if r is None:
            r, model = self._ask(d, bits, conds, formulas, case, post, [], tr.alt.split, before_split=alone)
        if alone_kept:
            return None  # (its answer kept with the one instance it assumed)
        if r == z3.unsat:
            self.sliced_settled += 1
            self._answers[answer_key] = _Query(frozenset(hyps))
            return None
        if r == z3.unknown and self._late():
            return Outcome(False, "time", d, tr.label, "the time budget ran out")
        if r == z3.unknown:  # the whole query is only harder
            return Outcome(False, "unknown", d, tr.label, model or "the solver gave up", None, f)
        # the whole query: every condition, live instance and run-time check in its cone
        start = target | (dag.support(dag.add(case)) if case is not None else 0)
        conds, hyps, checks, bits = self._cone(tr, start, assumable, support)
        formulas = [live.get(k, given.get(k)) for k in hyps]
        r, model = self._ask(d, bits, conds, formulas, case, post, checks, tr.alt.split)
        if r == z3.unsat:
            self._answers[answer_key] = _Query(frozenset(hyps))
            return None
        if r == z3.sat:
            return Outcome(False, "sat", d, tr.label, "", model, f, bits)
        if self._late():
            return Outcome(False, "time", d, tr.label, "the time budget ran out")
        return Outcome(False, "unknown", d, tr.label, model or "the solver gave up", None, f)

    def _alone_first(self, tr, key) -> bool:
        """Is the instance asked alone (`_kept_alone`) before its sliced query? Where that look has
        settled an instance of its claim (asked where the sliced query gave up), unless it has
        failed at this move (`_alone_lost`): instances of one claim are alike, and a look that
        fails costs up to `SELF_MS` each (on a seed game where the sliced queries settle at once,
        asking every instance alone first took twice the time and proved 3 claims fewer)."""
        return self._claim_of.get(key) in self._alone_won and not self._alone_lost(tr, key)

    def _alone_lost(self, tr, key) -> bool:
        """Has the look alone failed at this move for the instance's claim, twice and more often
        than it settled one? Then it is not asked there again: on a seed game, a claim's looks
        that failed at each of its instances in a later pass of the induction took the time
        Spacer needed after it."""
        wins, misses = self._alone_tally.get((id(tr), self._claim_of.get(key)), (0, 0))
        return misses >= 2 and misses > wins

    def _kept_alone(self, d, tr, v, key, f, post, live, given, support, dropped) -> bool:
        """The move keeps the instance, asked assuming the instance itself and no other (with the
        move's conditions that share a leaf with it, and the interval facts), unsplit and cut
        short at `SELF_MS`; only for an instance of a spec invariant (an auxiliary fact's guesses
        hold together or not at all, within a small share of the time: a look that fails there
        costs the facts a later proof needs), and where the slice would assume at least
        `SELF_MIN_HYPS` others. Its answer rests on the instance alone."""
        dag = self.sys.dag
        target = dag.support(dag.add(post))
        mine = support.get(key)
        if mine is None or key not in live or key not in self._claim_of:
            return False
        crowd = sum(1 for k in list(live) + list(given) if k != key and k not in dropped and support[k] & target)
        if crowd < SELF_MIN_HYPS:
            return False
        conds, hyps, formulas, bits = self._slice(tr, target, {key: f}, {}, {key: mine}, {})
        r, _ = self._ask(d, bits, conds, formulas, self._case_term(tr, v), post, [], (), SELF_MS,
                         simplify_first=SELF_SIMPLIFY)
        tally = self._alone_tally.setdefault((id(tr), self._claim_of.get(key)), [0, 0])
        if r != z3.unsat:
            tally[1] += 1
            return False
        tally[0] += 1
        self._alone_won.add(self._claim_of.get(key))
        self.self_settled += 1
        self._answers[(id(tr), v, key)] = _Query(frozenset(hyps))
        return True

    def _through_cuts(self, d, tr, v, key, f, post, live, given, support, dropped) -> bool:
        """The instance is kept by the move, shown one iteration at a time through the decision-free
        loops (`for`, `while`) on its way (`System.cut_renamings`): it holds before each loop runs, and each
        iteration keeps it; so it holds after the loop, and the move's query is asked again with
        that as one more assumption. A count that a loop over a set of items raises item by item
        while another falls ("the items done and the counters left make ten"), reached through
        dozens of nested `if`s, is a query the solver gives up on as a whole; one iteration is a
        step of one item. Each step is a query over the state before the move (every claim and
        condition assumed there holds), so what it proves holds whichever way the flow reached
        the loop; a step the solver cannot settle leaves that loop unused (False)."""
        runs = self._cut_states(tr, key, f)
        if not runs or self._late():
            return False
        dag = self.sys.dag
        every = self.sys.cut_renamings(tr)
        ends = []
        kept: set = set()  # the runs (indices into `every`) whose iterations keep the instance
        used: set = set()  # the instances and lemmas the steps assumed
        plain_ends = []  # of the loops that run whichever way the move's `if`s go
        for r, at in runs:
            # a loop after another (or after a loop the `if`s then read) starts from the first one's end:
            # read as fresh values, with the instance shown there (`_loop_ends`)
            swap, facts = self._loop_ends(tr, every[:r], kept, f)
            # the steps are shown where the loop runs (the `if`s around it): its iterations'
            # terms elsewhere are not the game's, and what is shown holds under that condition
            guard = self.sys.cut_guard(tr, r)
            alone_first = False
            steps = list(zip([f] + at[:-1], at))
            # the loop's iterations shown once for every move that runs it (`_loop_keeps`): then
            # only the way from the move's start to the loop's is this move's own
            shared = self._loop_keeps(d, tr, r, key, f, guard, swap, facts, live, given, support, dropped)
            if shared is not None:
                used |= shared
                steps = steps[:1]
            # one query per iteration: all of them in one (a disjunction) took as long on a seed
            # game's count of items, and longer where the solver gave up on it
            for k, (before, goal) in enumerate(steps):
                if goal.eq(before):
                    continue
                step = z3.And(before, z3.Not(goal)) if z3.is_true(guard) else z3.And(guard, before, z3.Not(goal))
                step = z3.And(*facts, z3.substitute(step, *swap)) if swap else step
                tries = [step]
                if k > 0:
                    # the iteration from the cut before it read as fresh values (`_cut_alone`):
                    # the state at a loop's 30th iteration is a term of 30 nested `if`s
                    alone = self._cut_alone(tr, r, k - 1, guard, before, goal)
                    alone = z3.And(*facts, z3.substitute(alone, *swap)) if swap else alone
                    tries = [alone, step] if alone_first else [step, alone]
                for n, term in enumerate(tries):
                    one = self._step_holds(d, tr, key, term, live, given, support, dropped)
                    if one is not None:
                        alone_first = alone_first or (n == 1 and k > 0)
                        break
                else:
                    break
                used |= one
            else:
                ends.append(at[-1] if z3.is_true(guard) else z3.Implies(guard, at[-1]))
                if z3.is_true(guard):
                    plain_ends.append(at[-1])
                kept.add(r)
        if not ends:
            return False
        # on each way the flow runs on from the loop, the instance after the move often reads as
        # it did after the loop's last iteration (with the simplifier's normal form of both)
        known = [f, self._plain.get(key, f)] + [z3.simplify(e) for e in plain_ends] + plain_ends
        if self._reads_on_every_path(tr, v, post, lambda after: any(
                after.eq(x) for x in known) or any(z3.simplify(after).eq(x) for x in known)):
            self.cut_settled += 1
            self._answers[(id(tr), v, key)] = _Query(frozenset(used))
            return True
        # without the case (which decision point the move leads to): on a seed game it reads
        # the loop's whole count again (the game ends at ten), and "whichever way" is stronger
        asks = [(post, ends)]
        swap, facts = self._loop_ends(tr, every, kept, f)
        if swap:  # what follows the loops, with their end states read as fresh values
            goal = z3.substitute(post, *swap)
            if not goal.eq(post):
                asks.insert(0, (goal, facts))
        # where the `if`s around a loop decide whether it ran, a leaf after the move is "the
        # loop's end if it ran, else as before"; on a seed game's count of 52 items the solver
        # gave up on that query at 30 s and settled it in 0.02 s with the condition fixed either
        # way (both cases are what is assumed: the instance at the loop's end, or before the move)
        guards = []
        for r in sorted(kept):
            g = self.sys.cut_guard(tr, r)
            if not z3.is_true(g) and not any(g.eq(x) for x in guards):
                guards.append(g)
        for goal, facts in asks:
            bits = dag.support(dag.add(goal))
            for e in facts:
                bits |= dag.support(dag.add(e))
            conds, hyps, formulas, bits = self._slice(tr, bits, live, given, support, dropped)
            # (split first: on that seed game every move of the turn runs the loop under the
            # `if`, and the whole query cost 1.5 s given up on at each before the split)
            r = self._by_guards(d, bits, conds, formulas + facts, goal, guards) if guards else z3.unknown
            if r == z3.unknown and not self._late():
                r, _ = self._ask(d, bits, conds, formulas + facts, None, goal, [], (), CUT_MS)
            if r == z3.unsat:
                self.cut_settled += 1
                self._answers[(id(tr), v, key)] = _Query(frozenset(used | set(hyps)))
                return True
            if self._late():
                break
        return False

    def _loop_keeps(self, d, tr, r, key, f, guard, swap, facts, live, given, support, dropped) -> set | None:
        """The instance and the instances and lemmas that share a leaf with what it reads (F),
        all holding at the loop's start, make it hold after each iteration of run r
        (`System.loop_alone`: the loop over the state's leaves, whichever move led there); and
        at this move, every one of F holds at the loop's start (unchanged by what the move did
        before it, or shown there as a step is, `_step_holds`). The instances and lemmas assumed
        then (the instance at the loop's start is the move's first step, asked by the caller);
        None when either is not shown. The iterations' queries are this move's only by their
        start: asked once, they serve every move whose flow runs the loop (on a seed game a
        scoring loop of 52 items on the way of every move of a turn: a minute a move asked from
        each move's start). They assume nothing of the decision point (no interval facts, no
        move's conditions), only the leaves' declared bounds, as a cut read as fresh values does
        (`System.as_fresh`: what rests on them rests on `well_formed`)."""
        if not SHARED_LOOPS or self._late():
            return None
        shaped = self._loop_shape(tr, r, key)
        if shaped is None:
            return None
        shape, pins = shaped
        states, start = self.sys.loop_alone(tr, r)[1], self.sys.cut_renamings(tr)[r][0]
        # (not what one move assumes of the items it names: the steps are every move's)
        offered = [k for k in list(live) + list(given) if k not in dropped and k not in self._named_keys]
        keep = support[key]
        for k in offered:
            if support[k] & support[key]:
                keep |= support[k]
        hyps = {k: live.get(k, given.get(k)) for k in offered if k != key and support[k] & keep}
        used = self._loop_proofs.get(shape)
        if used is None or not all(k in hyps for k in used):
            tried = (shape, frozenset(hyps))
            if tried in self._loop_failures:
                return None
            used = self._loop_iterations(states, pins, f, keep, hyps, support, self.sys.loop_steps(tr, r, pins))
            if used is None:
                if not self._late():  # (cut short by the time, it is asked again with more)
                    self._loop_failures.add(tried)
                return None
            self._loop_proofs[shape] = used
        # what the iterations assumed of the loop's start, at this move's
        shown = set(used)
        for k in used:
            h = hyps[k]
            at_start = z3.substitute(h, *start) if start else h
            if at_start.eq(h):
                continue
            step = z3.And(guard, z3.Not(at_start))
            step = z3.And(*facts, z3.substitute(step, *swap)) if swap else step
            more = self._step_holds(d, tr, key, step, live, given, support, dropped)
            if more is None:
                return None
            shown |= more
        self.loops_shared += 1
        return shown

    def _loops_shown(self, tr, key, f) -> bool:
        """Some loop on the way of this move that changes the instance has had its iterations
        shown at an earlier move (`_loop_keeps`) from a start like this move's."""
        if not SHARED_LOOPS:
            return False
        for r, _ in self._cut_states(tr, key, f):
            shaped = self._loop_shape(tr, r, key)
            if shaped is not None and shaped[0] in self._loop_proofs:
                return True
        return False

    def _loops_shared(self, tr, key, f) -> bool:
        """Some loop on the way of this move that changes the instance is read on its own
        (`_loop_shape`): its iterations are shown once for every move that runs it
        (`_loop_keeps`), and the move's own query is then small. Such a move is asked through
        its loops before it is asked as a whole: on a seed game, asked first as a whole, each
        instance's first move of a turn spent 2 s on a query the solver gave up on (with the
        loop's 52 iterations in it) before its loop's steps were asked."""
        if not SHARED_LOOPS:
            return False
        return any(self._loop_shape(tr, r, key) is not None for r, _ in self._cut_states(tr, key, f))

    def _loop_shape(self, tr, r: int, key) -> tuple | None:
        """What `_loop_keeps`'s iterations at run r of this move are asked for, as a key (the
        loop, the instance, the pins) and the pins; None where the loop is not read on its own (`System.loop_alone`).
        The pins are the values this move's flow fixes at the loop's start of what the loop
        reads (the mover's seat: each `x[current]` is then one item, not a choice among the
        seats); the moves that fix the same ones share the iterations' queries."""
        alone = self.sys.loop_alone(tr, r)
        if alone is None:
            return None
        loop, _, reads = alone
        at = (id(tr), r)
        if at not in self._pins:  # (asked at every query of the move: read once)
            pins = self.sys.loop_pins(tr, r)
            self._pins[at] = (pins, tuple((a.get_id(), b.get_id()) for a, b in pins))
        pins, ids = self._pins[at]
        return (id(loop), key, ids), pins

    def _loop_iterations(self, states: list, pins: tuple, f, keep: int, hyps: dict, support: dict,
                         alone: list | None = None) -> set | None:
        """Each iteration of a loop run on its own (`System.loop_alone`'s cuts) keeps the
        instance, assuming `hyps` and the leaves' declared bounds at its start, where the leaves
        in `pins` have their values: the keys of the hyps assumed, or None where a step is not
        shown within `CUT_MS`. Each step is first asked from its own start, what the iterations
        before changed read as fresh values (`alone`, `System.loop_steps`): on a seed game's
        scoring loop of 52 items every step is then 0.03–0.05 s, where from the loop's start the
        steps grew from 0.07 s to 0.7 s (the 50th iteration's terms nest 50 of them). Else (a
        step that needs what the iterations before did) from the loop's start. Each is first
        asked with what reads none of the leaves in `keep` (and the fresh values) left free
        (`dag.abstract_apart`): an item's test of the board is then a free flag, and a step from
        the loop's start takes 0.06–0.08 s against 0.3–3.5 s as it is."""
        dag = self.sys.dag
        pinned = (lambda x: z3.substitute(x, *pins)) if pins else (lambda x: x)
        at: dict = {}  # cut -> the instance there, from the loop's start (read only where needed)

        def from_start(k: int):
            if k not in at:
                at[k] = z3.substitute(f, *states[k]) if states[k] else f
            return at[k]

        def tries(i: int):
            # (term, simplify first, extra facts, from the step's own start), in order, each built
            # only when the one before failed
            if alone is not None and i > 0 and FRESH_STEPS:
                start, end, bounds, fresh = alone[i]
                before, goal = z3.substitute(f, *start), z3.substitute(f, *end)
                if goal.eq(before):
                    return
                one = pinned(z3.And(before, z3.Not(goal)))
                dag.add(one)
                yield abstract_apart(dag, one, keep | fresh), False, bounds, True
                if not fresh_failed:
                    yield one, False, bounds, True
                    # (reached where it was not shown: a loop whose steps need what the iterations
                    # before did, whose other steps are then not asked so, 0.4-0.7 s each)
                    fresh_failed.append(i)
            before, goal = from_start(i), from_start(i + 1)
            if goal.eq(before):
                return
            step = pinned(z3.And(before, z3.Not(goal)))
            dag.add(step)
            yield abstract_apart(dag, step, keep), False, [], False
            yield step, SIMPLIFY_FIRST, [], False
        used: set = set()
        fresh_failed: list = []  # the step at which the fresh reading as it is was not shown
        for i in range(len(states) - 1):
            shown = True  # (a step with nothing to show)
            for term, simplify_first, extra, own_start in tries(i):
                shown = False
                if term is None:
                    continue
                if self._late():
                    return None
                bits = dag.support(dag.add(term))
                taken = {k: h for k, h in hyps.items() if support[k] & bits}
                for k in taken:
                    bits |= support[k]
                # (the fresh constants' bounds: of those read, of every iteration so far)
                extra = [b for b in extra if dag.support(dag.add(b)) & bits]
                parts = [*self._bounds_of(bits), *extra, *taken.values(), term]
                if pins:  # (substituted, so that Z3 folds the values; the equations first)
                    parts = [eq_leaf(a, b) for a, b in pins] + [pinned(x) for x in parts]
                # (no decision point: nothing of one holds at the loop's start)
                same = canonical_parts(parts) if own_start and SAME_STEPS else None
                if same is not None and same[0] in self._same_steps:
                    r = z3.unsat
                    self.same_steps += 1
                else:
                    r, _ = self._ask(None, 0, [], parts, None, z3.BoolVal(False, CTX), [], (), CUT_MS,
                                     simplify_first)
                    if r == z3.unsat and same is not None:
                        self._same_steps[same[0]] = same[1]  # (kept alive: their ids stay theirs)
                if r == z3.unsat:
                    used |= set(taken)
                    shown = True
                    self.fresh_steps += own_start
                    break
            if not shown:
                return None
        return used

    def _bounds_of(self, bits: int) -> list:
        """The declared bounds of the state leaves among `bits` (`System.bounds_of`)."""
        return self.sys.bounds_of(bits)

    def _by_guards(self, d, bits, conds, hyps, goal, guards: list):
        """unsat when the query (as `_ask`'s, at most `CUT_MS` each) is unsatisfiable under every
        truth value of the loops' `guards`; else the first other answer (unknown where there
        are more than `GUARD_SPLITS` guards)."""
        if len(guards) > GUARD_SPLITS:
            return z3.unknown
        for values in itertools.product((True, False), repeat=len(guards)):
            fixed = [g if v else z3.Not(g) for g, v in zip(guards, values)]
            r, _ = self._ask(d, bits, conds, hyps + fixed, None, goal, [], (), CUT_MS)
            if r != z3.unsat:
                return r
        return z3.unsat

    def _loop_ends(self, tr, runs: list, kept: set, f) -> tuple[list, list]:
        """The end states of these loop runs (`System.cut_renamings`) read as fresh constants:
        ([(end term, its constant)], [the instance at each end, over them; the constants'
        declared bounds]). After a loop of dozens of unrolled iterations, what follows it (an
        `if` on where the loop left off, a second loop) reads its end state as nested `if`s over
        every iteration, which the solver gave up on; what it needs of it is that the instance
        held there (shown by the iterations where the `if`s around the loop let it run: the runs
        in `kept`; or a run that leaves the instance as `f` reads it; no other run is read
        apart) and the values' ranges (`System.as_fresh`). What is valid with the constants under
        these facts is valid with the terms put back, which is the formula as it was."""
        fresh: dict = {}  # term id -> (term, its constant); the terms kept alive
        facts: list = []
        for r in reversed(range(len(runs))):
            end = runs[r][-1]
            if not (r in kept or not end or z3.substitute(f, *end).eq(f)):
                continue  # its end read as it is: as fresh values it would be known by its bounds only
            at_end = self.sys.as_fresh(tr, r, end, fresh, facts)
            if at_end:
                held = z3.substitute(f, *at_end)
                guard = self.sys.cut_guard(tr, r) if r in kept else z3.BoolVal(True, CTX)
                facts.append(held if z3.is_true(guard) else z3.Implies(guard, held))
        swap = list(fresh.values())
        # the same constants in the facts (a later loop's condition reads an earlier one's end):
        # the facts and the formula they serve, read with every term put back, are as they were
        return swap, [z3.substitute(x, *swap) for x in facts] if swap else facts

    def _cut_alone(self, tr, r: int, k: int, guard, before, goal):
        """One iteration's step (`before` at cut k of run r, not `goal` after the iteration) with
        the state at that cut read as fresh constants within their bounds, and a `while`'s "still
        runs" there as a fresh flag (`System.cut_as_fresh`): the iteration keeps the instance for
        any state it holds in, not only for those the iterations before can reach. Weaker (the
        claims before the move say nothing of the constants), and small: the cut's terms, and
        the flag, grow with every iteration before it."""
        swap, facts, _ = self.sys.cut_as_fresh(tr, r, k)
        return z3.And(guard, *facts, z3.substitute(z3.And(before, z3.Not(goal)), *swap))

    def _cut_states(self, tr, key, f) -> list:
        """The instance at the cuts of each run of a loop on the way of the move that changes it
        (`System.cut_renamings`): [(the run's index there, [at the loop's start, after each
        iteration])]; [] when there
        is none, or the instance reads what a cut does not rename (flow locals, the position)."""
        k = (id(tr), key)
        if k not in self._cuts:
            out = []
            runs = self.sys.cut_renamings(tr) if CUTS else []
            if runs and self._var_bits is None:
                self._var_bits = self.sys.var_bits()
            if runs and not self.sys.dag.support(key) & ~self._var_bits:
                for k, states in enumerate(runs):
                    at = [z3.substitute(f, *r) if r else f for r in states]
                    if not all(x.eq(at[0]) for x in at):
                        out.append((k, at))
            self._cuts[k] = out
        return self._cuts[k]

    def _step_holds(self, d, tr, key, step, live, given, support, dropped) -> set | None:
        """Is `step` (the instance at one cut and not at the next) false
        over every state before the move that the move's query assumes (its conditions, the
        instances and lemmas, the interval facts)? First with what the instance does not read
        left free (`dag.abstract_apart`, as `_abstract`), then as it is. The instances and
        lemmas assumed when it is; None when the solver does not say so."""
        dag = self.sys.dag
        false = z3.BoolVal(False, CTX)
        dag.add(step)
        # kept as they are: the leaves the instance reads, and those of the claims and lemmas that
        # read one of them (an item's test "held, not yet done" links the item's `if` to the count)
        keep = support[key]
        for k in list(live) + list(given):
            if k not in dropped and support[k] & support[key]:
                keep |= support[k]
        for term in (abstract_apart(dag, step, keep), step):
            if term is None or self._late():
                continue
            conds, hyps, formulas, bits = self._slice(tr, dag.support(dag.add(term)), live, given, support, dropped)
            r, _ = self._ask(d, bits, conds, formulas + [term], None, false, [], (), CUT_MS, SIMPLIFY_FIRST)
            if r == z3.unsat:
                return set(hyps)
        return None

    def _late(self) -> bool:
        """The deadline has passed (a solver call it cut short says nothing of the claim)."""
        return self.deadline is not None and time.perf_counter() >= self.deadline - 0.01

    def _ask(self, d, bits, conds, hyps, case, post, checks, splits=(), ms=None, simplify_first=False,
             before_split=None, glance: bool = False):
        """Is "conds, hyps, checks, case and not post" satisfiable (with the interval facts at d
        about the leaves in `bits`)? When the solver gives up and the move has choices with few
        values (`splits`: a chance outcome, a parameter), they are fixed one value at a time:
        the solver settles "the set has one item fewer" for each item in milliseconds, and not
        within minutes for a symbolic one. (Each value gets a solver of its own, with the value
        substituted: after push/pop Z3 no longer preprocesses, and the value would not fold.)
        `glance`: a look that may be skipped (`_batch`'s): z3.unknown without asking where the
        solver gave up on its image under a rotation of the seats (`_given_up_rotated`)."""
        self.queries += 1
        parts = [*self.fact_terms(d, self.sys.dag.leaves_of(bits)), *conds, *hyps, *checks]
        if case is not None:
            parts.append(case)
        parts.append(not_(post))
        first = min(self.timeout_ms, SYMBOLIC_MS) if splits else self.timeout_ms
        if ms is not None:
            first = min(first, ms)
        if glance and SKIP_ROTATED_GLANCES and self._given_up_rotated(parts):
            self.glances_skipped += 1
            return z3.unknown, None
        r, info = self._solve(parts, first, simplify_first)
        if glance and r == z3.unknown:
            self._remember_rotated(parts, (), self._given_up_images)
        if r == z3.unknown and splits:
            if before_split is not None and before_split():
                return z3.unsat, None  # (settled another way: `before_split` says how)
            return self._split(parts, splits, parts, ())
        return r, info

    def _solve(self, parts: list, ms: int, simplify_first: bool = False, base: list | None = None,
               fixed: tuple = ()):
        """`parts` asked; `base` and `fixed` say what it is for a split query (`_split`): the
        parts before the choices `fixed` ((leaf, value), ...) were substituted."""
        # the same query comes again at another loop position of the same move (the instance and
        # what it reads do not name the position): an unsatisfiable answer is kept by its parts
        memo = frozenset(t.get_id() for t in parts)
        if memo in self._unsat_queries:
            self.repeated += 1
            return z3.unsat, None
        # a split query is its parts before the substitution and "leaf == value": read so, its
        # canonical keys are those of terms already in the table
        plain = base if base is not None else parts
        if self._rotated_answer(plain, fixed):
            self.rotated += 1
            return z3.unsat, None
        r, info = self._solve_once(parts, ms, simplify_first)
        if r == z3.unsat:
            self._unsat_queries[memo] = parts  # (the terms kept alive: their ids stay theirs)
            self._remember_rotated(plain, fixed)
        return r, info

    def _given_up_rotated(self, parts: list) -> bool:
        """Did the solver give up on a glance whose image under a rotation of the seats this
        query is? A seed game's batch of every instance at a move of P2 is the image of P1's,
        and was given up on after the same 1.5 s (13.7 s of a count's 72 s of queries at 3
        players, in vain: the instances one by one are then answered by P1's). Not asking it
        proves nothing: the instances are asked one by one, as after any glance given up on."""
        return self._image_among(parts, (), self._given_up_images)

    def _rotated_answer(self, parts: list, fixed: tuple) -> bool:
        """Is the image of the query under a rotation of the seats (`symmetry.SeatRotations`)
        one answered unsatisfiable before? Then so is this one: the rotation is a bijection of
        the states. The parts are read last first (what must not hold after the move tells
        queries apart; the interval facts are common to many), and a reading is given up at
        the first image that is no part of an answer. Where a part has no image through π (a
        fact doing arithmetic on a seat), it is read again with the seat-valued leaves that
        part reads as plain numbers. `fixed`: the choices fixed by a split ((leaf, value),
        ...), each as "leaf == value"."""
        return self._image_among(parts, fixed, self._unsat_images)

    def _image_among(self, parts: list, fixed: tuple, images: "_Images") -> bool:
        """Is the query's image under some rotation of the seats among `images`?"""
        rotations = self._seat_rotations()
        if rotations is None or not images.queries:
            return False
        for r in range(1, self.sys.n):
            plain: frozenset = frozenset()
            for _ in range(2):
                keyer = rotations.keyer(parts, r, plain)
                keys, stuck = self._rotated_keys(rotations, parts, fixed, keyer, images.parts)
                if keys is not None and keys in images.queries:
                    return True
                if stuck is None:
                    break
                plain = frozenset(rotations.seat_valued_in(stuck))
                if not plain:
                    break
        return False

    def _remember_rotated(self, parts: list, fixed: tuple, images: "_Images | None" = None) -> None:
        """Keep a query's canonical keys among `images` (by default the unsatisfiable answers',
        for `_rotated_answer`)."""
        rotations = self._seat_rotations()
        if rotations is None:
            return
        keyer = rotations.keyer(parts, 0)
        keys, _ = self._rotated_keys(rotations, parts, fixed, keyer, None)
        if keys is not None:
            images = self._unsat_images if images is None else images
            images.queries.add(keys)
            images.parts.update(keys)

    def _rotated_keys(self, rotations, parts, fixed, keyer, known: set | None) -> tuple:
        """(the keys of the query's parts as `keyer` reads them (`SeatRotations.keyer`), None
        where one has none or, with `known` (the keys of some answers), is not among them), and
        the part that has none (None if none is so)."""
        key, q = keyer
        keys = set()
        for leaf, value in fixed:
            k = rotations.key_of_value(leaf, value.as_long(), q)
            if k is None:
                return None, leaf
            if known is not None and k not in known:
                return None, None
            keys.add(k)
        for t in reversed(parts):
            k = key(t)
            if k is None:
                return None, t
            if known is not None and k not in known:
                return None, None
            keys.add(k)
        return frozenset(keys), None

    def _seat_rotations(self):
        if not SEAT_ROTATIONS or self.sys.n < 2:
            return None
        if self._rotations is None:
            self._rotations = SeatRotations(self.sys)
        return self._rotations

    def _solve_once(self, parts: list, ms: int, simplify_first: bool = False):
        remaining = None if self.deadline is None else self.deadline - time.perf_counter()
        if remaining is not None:
            ms = max(1, min(ms, int(remaining * 1000)))
        sol = z3.Then("simplify", "smt", ctx=CTX).solver() if simplify_first else z3.Solver(ctx=CTX)
        sol.set("timeout", ms)
        sol.add(*parts)
        t0 = time.perf_counter()
        r = sol.check()
        spent = time.perf_counter() - t0
        if spent > 1.0:
            self.slow.append((round(spent, 1), str(r), len(parts)))
        if r == z3.sat:
            return r, sol.model()
        if r == z3.unknown:
            return r, sol.reason_unknown()
        return r, None

    def _split(self, parts: list, splits, base: list, fixed: tuple):
        (leaf, lo, hi), rest = splits[0], splits[1:]
        for value in range(lo, hi + 1):
            now = fixed + ((leaf, num(value)),)
            asked = with_values(parts, [(leaf, num(value))])
            r, info = self._solve(asked, min(self.timeout_ms, SYMBOLIC_MS) if rest else self.timeout_ms,
                                  base=base, fixed=now)
            if r == z3.unknown and rest:
                r, info = self._split(asked, rest, base, now)
            if r != z3.unsat:
                return r, info
        return z3.unsat, None


@dataclass
class _Images:
    """Queries kept by their canonical keys (`SeatRotations`), for another seat's query to be read
    as one of their images: `queries`, each query's keys; `parts`, every key among them (a
    reading is given up at the first part with no key here)."""
    queries: set = field(default_factory=set)
    parts: set = field(default_factory=set)


def canonical_parts(parts: list) -> tuple[frozenset, list]:
    """The parts of a query with every constant of a `RENAMED_PREFIXES` prefix renamed, in the
    order a walk of the parts meets them, to `same!0`, `same!1`, ...: two queries with the same
    result are the same query up to a one-to-one renaming of those constants, so both are
    satisfiable or neither is. (Z3 shares equal terms: the key is their ids, valid while the
    renamed parts, returned with it, are kept alive.)"""
    pairs = [(c, z3.Const(f"same!{k}", c.sort())) for k, c in enumerate(named_constants(parts, RENAMED_PREFIXES))]
    renamed = [z3.substitute(x, *pairs) for x in parts] if pairs else list(parts)
    return frozenset(x.get_id() for x in renamed), renamed


def instances_of(formula) -> list:
    """A claim's instances: the conjuncts of its formula."""
    return flatten_and(formula) or [formula]
