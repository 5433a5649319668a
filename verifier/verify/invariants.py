"""The proof of a player count's invariants: the engines of `smt/engines` in turn, each on what
the ones before left open, and the lemmas the proofs leave for the checks after them.

1. initiation: each invariant on the initial state (concrete: it holds or not);
2. intervals (`engines/intervals.py`): an abstract interpretation of the whole system, cheap,
   whose facts ("at d, lo <= x <= hi", "d is unreachable") every later query assumes; then the
   facts of the flow's structure (`smt/path_facts.py`: "inside `while C`, C held"), those the
   induction shows inductive; a claim true in every state within the declared ranges and the
   interval facts is proved there by one query over a free state (`_holds_in_range`);
3. induction (`engines/induction.py`): per-claim Houdini over sliced queries, then the claims a
   move broke again, with every instance that survived as a lemma; the claims whose first pass
   it gave up on go to the older engine (4.) before their second looks (`_Between`);
4. the older mutual induction of `smt/prove.py` with its frame facts (proposed from sampled
   states), for the claims still open, with a share of what is left: it proves what needs a
   frame fact the interval facts do not give (e.g. a sum of two counters);
5. Spacer (`engines/spacer.py`, IC3/PDR on each open claim's cone), in the time left, with every
   lemma so far: it finds the strengthening one-step induction and the frame facts lack, and its
   invariants become lemmas.

After `well_formed`'s proof, the run-time checks that no proved invariant implied (e.g. "the
pool has an item to draw" in a loop that draws from it) are asked again with more lemmas:
`sampled_facts_at_checks` first (the older engine's guesses from sampled states about those
decision points and what the checks read: "the pool's size plus the loop's position is 8"),
then `strengthen_checks` (Spacer on each check).

A union of separately inductive sets is inductive, so the lemmas of every engine are kept
together (`Prover.proved`) for `well_formed`, `no_deadlock` and the score bounds.

Every proof here assumes that each successor's values lie in their declared ranges, i.e. that
the run-time checks hold (`well_formed`): a result says so (`rests_on`), and `verify` settles
`well_formed` whenever it reports a proof that rests on it.
"""
from __future__ import annotations

import operator
import time
from dataclasses import replace

from ..ir import nodes as N
from ..smt.encode import Encoder, and_all, eq_leaf, implies, is_true, lift, num, z3
from ..smt.engines.induction import Claim, Induction, Outcome, instances_of
from ..smt.engines.intervals import BIG, Intervals
from ..smt.engines.spacer import Spacer
from ..smt.parametric import parametric
from ..smt.path_facts import path_facts
from ..smt.prove import HINT_BUDGET_S, HINT_TIMEOUT_MS, OutOfBudget, Prover, Unsettled, Verdict
from ..smt.relation import Candidate, OutOfTime
from ..smt.system import System
from ..smt.transition import initial

__all__ = ["build_system", "prove_invariants", "sampled_facts_at_checks", "sampled_facts_at_deadlocks",
           "strengthen_checks", "RESTS_ON"]

RESTS_ON = "well_formed"  # what every inductive proof assumes (successors within their ranges)
INTERVALS_SHARE = 0.4  # of the invariants' time, for the interval analysis
INDUCTION_SHARE = 0.75  # of the time left after the intervals, for the sliced induction
OLDER_SHARE = 0.75  # of the time left after the induction, for the older engine (Spacer gets the rest)
BETWEEN_SHARE = 0.6  # of the invariants' time left, for the older engine between the induction's passes
SPACER_SHARE = 0.6  # of the time left after `well_formed`'s proof, for Spacer on its open checks
# ... after the guesses from sampled states about the open checks' decision points, within this
# share (on a seed game at 3 players, "the order pool's size plus the set-up loop's position" in
# 4.9 s: the one open check of 893, which Spacer did not settle in its share)
SAMPLED_SHARE = 0.8
# True: a claim over many items is first asked over a symbolic item (`smt/parametric.py`), each
# move's queries cut short after `induction.ITEM_MS` and the move then asked of the instances.
# Off from the twentieth to the twenty-fifth stop: without that fallback it proved nothing the
# instances one by one did not and took longer (on a seed game's scratch copy, "a card in the
# deck is nowhere else" 97–147 s against 34 s). With it, and only for a claim of many
# instances (ITEM_INSTANCES), a seed game's "each of 52 strips is in one place at most" is
# proved alone in 24–55 s, where one by one it runs out of time (`notes/issue11.md`,
# twenty-fifth stop);
# `benchmarks/over_an_item.py` compares the two
OVER_AN_ITEM = True
# a claim is read over a symbolic item only with more instances than this: a seed game's claim
# over 42 squares, 12 instances once simplified, took 9.8 s so against 0.3 s one by one, its
# instances in one query per move (`Induction._batch`)
ITEM_INSTANCES = 16
# True: a claim true in every state within the declared ranges (and the interval facts) is proved
# by one query, before the induction (`_holds_in_range`). A sum over who takes each of a fixed
# set of prizes is of that kind: each prize goes to one player at most in any state, so no
# move need be read, where the induction's step queries (the state before, a move, the state
# after) ran out of the time at every player count of a seed game; that query takes 0.1 s
IN_RANGE = True
# at most, per claim: a seed game's claim took 0.3-0.6 s alone at 3 to 5 players, and ran past
# 1 s at 4 players inside `make verify` (two counts at once); the claims it does not settle are
# answered by a model in 0.3 s or less on the seed games
IN_RANGE_MS = 3000
# of the time left after the intervals, at most, for the facts of the flow's structure. 0.15 until
# the forty-seventh stop: a card game's facts (each loop's condition and measure, at 5 decision
# points, 180 queries of 60 ms) took 11 s and were cut short at every budget tried, 60 to 150 s,
# so its run-time checks that rest on them stayed open; at 0.3 (with the lone claim's whole
# share: `induction.LONE_CLAIM_WHOLE_TIME`) they are kept at `--budget 60`, and the seed games
# at 2 players settle what they did (the grid game's stage 4.7 -> 7.4 s)
PATH_SHARE = 0.3
# True: the facts of the flow's structure are first asked at once, one query per move for all of
# them (`inductive_at_once`), in a quarter of their share; only where that gives up, by the sliced induction,
# which finds the ones that hold. A card game's 8 facts took the induction 180 queries of 60 ms
# (11 s, cut short under `make verify`'s load); at once, one query per move
AT_ONCE = True
AT_ONCE_MS = 1000  # at most, per query of `inductive_at_once` (one query of the card game took 0.3 s cold)


def prove_invariants(prover: Prover, invariants: list, deadline: float | None, progress=None,
                     spacer: bool = True) -> dict[str, Verdict]:
    """name -> Verdict for each of `invariants` (InvariantDecl); leaves `prover.proved` set to
    every lemma proved on the way."""
    say = progress or (lambda text: None)
    t0 = time.perf_counter()
    p, n, options, rel = prover.p, prover.n, prover.options, prover.rel
    verdicts: dict[str, Verdict] = {}
    init = initial(p, n, options)
    live = []
    for inv in invariants:
        if is_true(z3.simplify(Encoder(p, n, options, init.state).invariant(inv))):
            live.append(inv)
        else:
            verdicts[inv.name] = Verdict("violated", "initiation", "it does not hold when the game starts",
                                         time.perf_counter() - t0)
    lemmas: list = []
    system = None
    open_claims: list = []
    between = None  # the older engine between the induction's passes (`_Between`)
    try:
        system, facts = build_system(prover, deadline, say)
        # the declared ranges and the interval facts, which the flow's facts asked at once and
        # the `ranges` method assume: checked once against every reached decision point
        facts, background = _background(prover, system, facts, deadline, say)
        if facts is not None:
            lemmas.append(_interval_lemma(system, facts))
        # what held on the way into each decision point (a loop's condition, its measure): guesses
        # the induction keeps only where inductive; they carry `no_deadlock` and loop measures
        # where a move is legal because the loop around it said so (smt/path_facts.py)
        # (each must hold when the game starts: induction alone shows only that moves keep it)
        held = [c for c in path_facts(p, n, options) if is_true(z3.simplify(c.at(init.state, init.snapshots)))]
        guesses = [c.at(rel.state, rel.snaps) for c in held]
        if guesses:
            say("facts of the flow's structure")
            at_once = inductive_at_once(prover, held, list(lemmas), _share(deadline, PATH_SHARE / 4)) \
                if AT_ONCE and background is not None else None
            if at_once is not None:
                lemmas += [f for f in (c.at(rel.state, rel.snaps) for c in at_once) if f not in lemmas]
            else:
                paths = Induction(system, facts, prover.timeout_ms / 1000, _share(deadline, PATH_SHARE), say)
                paths.run([Claim("what held on the way in", None, guesses)], list(lemmas))
                lemmas += [f for f in paths.lemmas if f not in lemmas]
        # a claim `at` decision points inside `for` loops reads the loop's variable: the next
        # iteration's value is known only through where the loop is (its position, its items), so
        # those facts of the loops around the named points are asked first, on their own
        points = {d for inv in live for d in p.invariant_points.get(inv.name, ())}
        loops = [c.at(rel.state, rel.snaps) for c in rel.loop_candidates(points)
                 if is_true(z3.simplify(c.at(init.state, init.snapshots)))]
        where_loops_are: list = []  # given to the claims' induction (the other lemmas are not: smaller queries)
        if loops:
            say("where the loops around the claimed decision points are")
            around = Induction(system, facts, prover.timeout_ms / 1000, _share(deadline, PATH_SHARE), say)
            around.run([Claim("the loops around the claimed decision points", None, loops)], [])
            where_loops_are = [f for f in around.lemmas if f not in lemmas]
            lemmas += where_loops_are
        claims = []
        for inv in live:
            instances = instances_of(Encoder(p, n, options, rel.state).invariant(inv))
            claims.append(Claim(inv.name, inv, instances, _over_an_item(p, n, options, rel.state, inv, len(instances))))
        # a claim the intervals settle needs no query; one true in every state within the
        # declared ranges (and the interval facts) needs no move: one query over a free state
        open_claims = []
        for c in claims:
            if facts is not None and all(_interval_holds(system, facts, f) for f in c.instances):
                verdicts[c.name] = Verdict("proved", "intervals", "holds over the interval facts of every "
                                           "reachable decision point", time.perf_counter() - t0)
                lemmas += c.instances
            elif IN_RANGE and background is not None and _holds_in_range(c.instances, deadline, background):
                verdicts[c.name] = Verdict("proved", "ranges", "holds in every state whose values lie within "
                                           "their declared ranges" + (" and the interval facts" if facts is not None
                                                                      else "") + ": no move can break it",
                                           time.perf_counter() - t0)
                lemmas += c.instances
            else:
                open_claims.append(c)
        prover.system, prover.facts = system, facts  # for `strengthen_checks`
        if open_claims:
            say(f"induction over {len(open_claims)} invariant{'s' if len(open_claims) != 1 else ''}")
            # without Spacer the induction keeps the whole time (the older engine gets what it leaves)
            induction = Induction(system, facts, prover.timeout_ms / 1000,
                                  _share(deadline, INDUCTION_SHARE) if spacer else deadline, say)
            induction.elsewhere = between = _Between(prover, live, list(lemmas), deadline)
            # the claims read over a symbolic item first (one formula per move whatever their
            # instances: where each item is, which a count kept through a loop over the items
            # rests on — on a seed game its points, on "an item is in one place at most"), then
            # those with fewer instances: they are cheaper, and what one does not use of its
            # share of the time goes to the next
            results = induction.run(sorted(open_claims, key=lambda c: (c.param is None, len(c.instances))),
                                    where_loops_are)
            lemmas += [f for f in induction.lemmas if f not in lemmas]
            for c in open_claims:
                if results[c.name].kind == "elsewhere":
                    verdicts[c.name] = replace(between.verdicts[c.name], seconds=time.perf_counter() - t0)
                else:
                    verdicts[c.name] = _induction_verdict(p, c, results[c.name], time.perf_counter() - t0, system)
    except (OutOfBudget, OutOfTime, _Late):
        for inv in live:
            verdicts.setdefault(inv.name, Verdict("unknown", "induction", prover._spent(), time.perf_counter() - t0))
    found = _as_candidates(lemmas)
    prover.proved = found
    # the older engine next, for what is still open (cheap where a sampled frame fact is what the
    # claim lacks), then Spacer with what it leaves: measured on a seed game at 2 to 4 players,
    # the older engine proved the two claims left in 6-12 s where Spacer, asked first, spent
    # 36-43 s and proved neither (docs/architecture.md, "The induction, eleventh stop")
    still = [inv for inv in live if verdicts.get(inv.name) is None or verdicts[inv.name].status != "proved"]
    if between is not None and between.tried and \
            {c.name for c in open_claims if verdicts[c.name].status == "proved"} == \
            between.proved_then | set(between.verdicts):
        # the older engine had those claims between the induction's passes, with every claim
        # proved now: asked again, they are the same queries
        still = [inv for inv in still if inv.name not in between.tried]
    if still and (deadline is None or time.perf_counter() < deadline):
        say("mutual induction with frame facts")
        prover.spec_invariants = still
        saved = prover.deadline
        # Spacer runs after it only with a whole system (`prover.system`): else the older engine keeps the time
        prover.deadline = _share(deadline, OLDER_SHARE) if spacer and prover.system is not None else deadline
        try:
            older = prover.invariants(given=found)
        except Unsettled:
            older = {}
        finally:
            prover.deadline = saved
        for name, v in older.items():
            if v.status == "proved" or name not in verdicts:
                verdicts[name] = v
        if prover.proved is None:
            prover.proved = found
    still = [c for c in open_claims if verdicts[c.name].status != "proved"]
    if spacer and still and prover.system is not None and (deadline is None or time.perf_counter() < deadline):
        # every lemma proved so far, the older engine's frame facts included
        known = [c.at(rel.state, rel.snaps) for c in prover.proved]
        try:
            pdr = Spacer(system, prover.facts, prover.timeout_ms / 1000 * 3, deadline, say)
            answers = pdr.run(still, known)  # each claim its fair share of Spacer's time
        except (OutOfBudget, OutOfTime, _Late):
            answers = {}
        new = []
        for c in still:
            if c.name in answers and answers[c.name].proved:
                verdicts[c.name] = _induction_verdict(p, c, Outcome(True, "spacer", detail=answers[c.name].detail),
                                                      time.perf_counter() - t0)
                new += [f for f in c.instances if f not in new]  # a proved claim is a fact
        if answers:
            new += [f for f in pdr.lemmas if f not in new]
        prover.proved = list(prover.proved) + _as_candidates(new, start=len(prover.proved))
    for v in verdicts.values():
        if v.status == "proved":
            v.details["rests_on"] = [RESTS_ON]
    return verdicts


def build_system(prover: Prover, deadline: float | None, progress=None, intervals: bool = True) -> tuple:
    """(the engines' system, its interval facts or None where the analysis was cut short or not
    asked for: `intervals`), built once per prover (`Prover.built`): a first look of the proofs
    and the proofs after it share them, and an analysis cut short goes on where it stopped
    (`Prover.intervals`). Raises OutOfTime past `deadline`."""
    say = progress or (lambda text: None)
    say("building the transition system")
    prover.rel.deadline = deadline  # encoding a move raises OutOfTime past it
    system = prover.built or System(prover.rel)
    for d in system.decisions:
        if deadline is not None and time.perf_counter() > deadline:
            raise OutOfTime("out of time while building the transition system")
        system.transitions(d)
    prover.built = system
    if prover.built_facts is not None or not intervals:
        return system, prover.built_facts
    resumed = prover.intervals is not None
    say("interval analysis, resumed where it was cut short" if resumed else "interval analysis")
    # at most a share of the time: without its facts the induction still runs (weaker)
    start = time.perf_counter()
    if prover.intervals is None:
        prover.intervals = Intervals(system)
    facts = prover.intervals.run(None if deadline is None else start + INTERVALS_SHARE * (deadline - start))
    if not facts.complete:
        say("interval analysis cut short: the induction goes on without its facts")
        return system, None  # a fixpoint cut short is no over-approximation: nothing of it is a fact
    prover.built_facts = facts
    return system, facts


class _Between:
    """The older engine (`Prover.invariants`: whole queries, frame facts proposed from sampled
    states) on the claims the sliced induction's first pass gave up on, before their second looks
    (`Induction.elsewhere`). Records what it tried, with which claims proved then, and its verdicts
    on the claims it proved."""

    def __init__(self, prover: Prover, live: list, lemmas: list, deadline: float | None):
        # `lemmas`: the facts proved before the induction (the intervals', the flow's structure),
        # which it is not given (smaller queries) but the older engine needs; `deadline`: the
        # invariants' (a share of the time to it: what it proves, the second looks and the older
        # engine after the induction need not)
        self.prover, self.live, self.lemmas, self.deadline = prover, live, lemmas, deadline
        self.tried: set[str] = set()
        self.proved_then: set[str] = set()
        self.verdicts: dict[str, Verdict] = {}

    def __call__(self, gave_up: list, given: list, proved_then: set) -> set[str]:
        prover = self.prover
        names = {c.name for c in gave_up}
        prover.progress(f"mutual induction with frame facts, for {len(names)} claim{'s' if len(names) != 1 else ''} "
                        "the induction gave up on")
        self.tried |= names
        self.proved_then = set(proved_then)
        saved = prover.spec_invariants, prover.deadline, prover.proved
        prover.spec_invariants = [inv for inv in self.live if inv.name in names]
        prover.deadline = _share(self.deadline, BETWEEN_SHARE)
        try:
            seen = {f.get_id() for f in self.lemmas}
            out = prover.invariants(given=_as_candidates(self.lemmas + [f for f in given if f.get_id() not in seen]))
        except Unsettled:
            out = {}
        finally:
            prover.spec_invariants, prover.deadline, prover.proved = saved
        won = {name: v for name, v in out.items() if name in names and v.status == "proved"}
        self.verdicts.update(won)
        return set(won)


def _induction_verdict(p, c, out: Outcome, seconds: float, system: System | None = None) -> Verdict:
    """The verdict on claim `c` from an induction engine's outcome (the sliced induction's, or
    Spacer's as an Outcome of kind "spacer"). A counterexample to induction says what the claim
    reads in the state it breaks from (`System.read_off`), with `system`."""
    if out.proved and out.kind == "spacer":
        return Verdict("proved", "inductive", f"{out.detail}: an inductive strengthening, "
                       "checked again by independent queries", seconds)
    if out.proved and out.kind == "item":
        return Verdict("proved", "inductive", f"inductive over a symbolic item (one query per move for "
                       f"its {len(c.instances)} instances), with the interval facts and the other proved "
                       "invariants", seconds)
    if out.proved:
        return Verdict("proved", "inductive", f"inductive ({len(c.instances)} instances), "
                       "with the interval facts and the other proved invariants", seconds)
    if out.kind == "sat":
        where = f"'{out.move}' (decision point at line {p.decisions[out.decision].node.span.line})"
        details = {"decision": out.decision, "move": out.move}
        before = ""
        if system is not None and out.model is not None and out.instance is not None:
            # what the claim reads in that state, then what it reads after the move (through the
            # move's writes: a counter's new value reads what the move tested): what a stronger
            # invariant has to rule out
            tr = next((t for t in system.transitions(out.decision) if t.label == out.move), None)
            after = [z3.substitute(out.instance, *tr.renaming)] if tr is not None and tr.renaming else []
            values = system.read_off(out.model, [out.instance] + after, out.scope or -1)
            if values:
                details["state_before"] = dict(values)
                before = f"; what it and its value after the move read there: {system.shown(values)}"
        return Verdict("unknown", "induction", f"not inductive: {where} can break it from "
                       "a state satisfying the proved invariants (that state may be "
                       f"unreachable; a stronger invariant would settle it){before}", seconds, details)
    if out.kind == "time":
        where = f" (at '{out.move}')" if out.move else ""
        return Verdict("unknown", "induction", "its share of the time budget (--budget) "
                       f"ran out before the induction was settled{where}", seconds)
    return Verdict("unknown", "induction", f"the solver gave up at '{out.move}': {out.detail}", seconds)


def _as_candidates(formulas: list, start: int = 0) -> list:
    """Proved formulas as the older engine's Candidates (lemmas it assumes)."""
    return [Candidate(f"lemma {start + k}", "", None, (lambda f: lambda state, snaps: f)(f))
            for k, f in enumerate(formulas)]


def sampled_facts_at_checks(prover: Prover, deadline: float | None, progress=None) -> bool:
    """The guesses from sampled states (`Prover.sampled_candidates`) about the decision points of
    the run-time checks the last `prover.obligations()` could not prove, those that read a leaf
    the checks there read, each kept where inductive (the older engine's fixpoint, within
    SAMPLED_SHARE of the time to `deadline`); True when one was: it is then a lemma
    (`prover.proved`) and the checks are worth asking again. A relation the interval facts
    cannot hold ("the pool's size plus the loop's position is 8", where the intervals have
    each alone) is what a check inside a loop over set-up often rests on."""
    system, failed = prover.system, prover.failed_checks
    if system is None or not failed or not prover.samples or (deadline is not None and time.perf_counter() >= deadline):
        return False
    dag, rel = system.dag, prover.rel
    pc = dag.support(system.pc_leaf)
    reads: dict[int, int] = {}  # decision point -> the leaves its open checks read (support bits)
    for d, _alt, o, _is_pre in failed:
        reads[d] = reads.get(d, 0) | (dag.support(dag.add(o.cond)) & ~pc)
    init = initial(prover.p, prover.n, prover.options)
    guesses = [c for c in prover.sampled_candidates(set(reads))
               if dag.support(dag.add(c.at(rel.state, rel.snaps))) & reads.get(c.decision, 0)
               and is_true(z3.simplify(c.at(init.state, init.snapshots)))]
    return _kept_guesses(prover, guesses, deadline, progress, "where run-time checks are open")


def sampled_facts_at_deadlocks(prover: Prover, deadline: float | None, progress=None) -> bool:
    """As `sampled_facts_at_checks`, for the decision point where the last `prover.deadlocks()`
    found a state with no legal move: the samples' guesses about sets' sizes, and which sets
    share no member (`_about_sizes`), at every decision point, that read a leaf the moves'
    conditions there read, with the facts of the flow's structure (`Relation.frame_candidates`).
    Every point, not only that one: a player has a card to play in each round because the hand
    shrinks by one a round, from the hand the deal left, which is what the guesses at the deal's
    point say (piecewise in its loop's position). True when one was kept."""
    system, failed = prover.system, prover.failed_deadlocks
    if system is None or not failed or not prover.samples or (deadline is not None and time.perf_counter() >= deadline):
        return False
    dag, rel = system.dag, prover.rel
    pc = dag.support(system.pc_leaf)
    reads = 0
    for _d, conditions in failed:
        reads |= dag.support(dag.add(conditions)) & ~pc
    init = initial(prover.p, prover.n, prover.options)
    # with the facts of the flow's structure (where each loop is, what its variable is, the
    # conditions and `let`s on the way in): a deal's count rests on its loop's position
    guesses = [c for c in prover.sampled_candidates() if _about_sizes(c)
               and dag.support(dag.add(c.at(rel.state, rel.snaps))) & reads] + rel.frame_candidates()
    guesses = [c for c in guesses if is_true(z3.simplify(c.at(init.state, init.snapshots)))]
    return _kept_guesses(prover, guesses, deadline, progress, "where a state with no legal move was found")


def _kept_guesses(prover: Prover, guesses: list, deadline: float | None, progress, where: str) -> bool:
    """The older engine's fixpoint over `guesses` (Candidates), from what `prover` has proved,
    within SAMPLED_SHARE of the time to `deadline`: what it keeps joins `prover.proved`. True
    when it kept one."""
    if not guesses:
        return False
    (progress or (lambda text: None))(f"{len(guesses)} guesses from sampled states {where}")
    saved = prover.deadline
    prover.deadline = _share(deadline, SAMPLED_SHARE)
    try:
        # (a few guesses, each about one decision point: each move that leads there gets its look
        # until the deadline, where the frame facts' hundreds get a glance past a share of it)
        kept = prover._fixpoint(guesses, list(prover.proved or []), prover.timeout_ms, HINT_BUDGET_S, {},
                                glance_after=1.0, lean=True)
    except Unsettled:
        kept = []
    finally:
        prover.deadline = saved
    if not kept:
        return False
    prover.proved = list(prover.proved or []) + kept
    return True


def strengthen_checks(prover: Prover, deadline: float | None, progress=None) -> bool:
    """Spacer on each run-time check the last `prover.obligations()` could not prove from the
    proved invariants ("at this decision point, under this move's case, the check holds"); True
    when it proved at least one: its invariant is then a lemma (`prover.proved`) and the checks
    are worth asking again."""
    system, failed = prover.system, prover.failed_checks
    if system is None or not failed or (deadline is not None and time.perf_counter() >= deadline):
        return False
    deadline = _share(deadline, SPACER_SHARE)  # the checks are asked again in the rest
    rel = prover.rel
    claims, seen = [], set()
    for d, alt, o, is_pre in failed:
        where = [rel.at_decision(d, rel.state)] + ([alt.pin] if alt.pin is not None else []) + \
            ([] if is_pre else [alt.guard])
        f = implies(and_all(where), o.cond)
        if f.get_id() not in seen:
            seen.add(f.get_id())
            claims.append(Claim(f"check {len(claims)}", None, [f]))
    lemmas = prover.assumptions(prover.proved or [])
    spacer = Spacer(system, prover.facts, prover.timeout_ms / 1000 * 3, deadline, progress)
    results = spacer.run(claims, lemmas)
    if not any(out.proved for out in results.values()):
        return False
    facts = spacer.lemmas + [f for c in claims if results[c.name].proved for f in c.instances]
    prover.proved = list(prover.proved or []) + [
        Candidate(f"Spacer lemma {k}", "", None, (lambda f: lambda state, snaps: f)(f)) for k, f in enumerate(facts)]
    return True


class _Late(Exception):
    pass


def _over_an_item(p, n: int, options: dict, state, inv, instances: int):
    """The claim over a symbolic item of its leading `all`s over many items (`smt/parametric.py`),
    where it has more than ITEM_INSTANCES instances: fewer, one query for all of them at a move
    (`Induction._batch`) settles it as quickly."""
    if not OVER_AN_ITEM or instances <= ITEM_INSTANCES:
        return None
    return parametric(Encoder(p, n, options, state), inv)


def _about_sizes(c) -> bool:
    """A sampled guess relating a set's size to something (`Prover.related_candidates`), or one
    that two sets share no member (`Prover.disjoint_candidates`): a card added to a hand makes
    it one larger only if it was not there already, which the cards' being in one place says."""
    return c.name.startswith(("related ", "linear ", "piecewise ")) and "size(" in c.name or \
        c.name.startswith("disjoint ")


def _share(deadline: float | None, share: float) -> float | None:
    """`share` of the time from now to `deadline`, as a deadline."""
    if deadline is None:
        return None
    now = time.perf_counter()
    return now + share * max(0.0, deadline - now)


def _before(deadline):
    if deadline is not None and time.perf_counter() > deadline:
        raise _Late()


def _interval_holds(system: System, facts, formula) -> bool:
    i = system.dag.add(formula)
    return facts.holds(lambda d: i)


def inductive_at_once(prover: Prover, cands: list, lemmas: list, deadline: float | None) -> list | None:
    """The largest subset of `cands` (Candidates that hold when the game starts) whose
    conjunction is inductive, found by Houdini over whole queries: for every alternative of every
    decision point one query (the declared ranges, `lemmas`, every kept candidate before the
    move, the move's guard; some kept candidate false after it); a model drops the candidates
    false in it after the move, and the round starts again, until a round finds none. None if
    `deadline` comes first (the sliced induction then finds which hold)."""
    rel = prover.rel
    kept = list(cands)
    base = [*rel.ranges(rel.state, rel.snaps), *lemmas]
    while kept:
        pre = [c.at(rel.state, rel.snaps) for c in kept]
        dropped = False
        for d in range(len(prover.p.decisions)):
            for alt in rel.alternatives(d):
                ms = None if deadline is None else int((deadline - time.perf_counter()) * 1000)
                if ms is not None and ms <= 0:
                    return None
                post = [c.at(alt.step.state, alt.step.snapshots) for c in kept]
                s = z3.Solver()
                # a glance: where one query is not quick, the sliced induction does better
                s.set("timeout", AT_ONCE_MS if ms is None else min(AT_ONCE_MS, ms))
                s.add(*base, *pre, rel.at_decision(d, rel.state), alt.guard, z3.Not(and_all(post)))
                r = s.check()
                if r == z3.unknown:
                    return None
                if r == z3.sat:
                    m = s.model()
                    kept = [c for c, f in zip(kept, post) if not z3.is_false(m.eval(f, model_completion=True))]
                    dropped = True
                    break
            if dropped:
                break
        if not dropped:
            return kept
    return kept


def _background(prover: Prover, system: System, facts, deadline: float | None, say) -> tuple:
    """(the interval facts to use, the background or None). The background: the declared ranges
    and (with `facts`) the interval facts over the free state, which the flow's facts asked at
    once and the `ranges` method assume. Both are meant to be facts of every reachable state; if
    together they admit no state at a decision point the game reaches (`_consistent`), one of
    them is wrong there and any claim "true in every state of the background" would be proved
    vacuously: the interval facts are then dropped (they are also the induction's lemma), and
    the background is None unless the ranges alone pass. None too where the check is cut short."""
    rel = prover.rel
    while True:
        background = rel.ranges(rel.state, rel.snaps)
        if facts is not None:
            background.append(_interval_lemma(system, facts))
        ms = IN_RANGE_MS if deadline is None else min(IN_RANGE_MS, int((deadline - time.perf_counter()) * 1000))
        answer = _consistent(system, facts, background, ms)
        if answer is not False or facts is None:
            return facts, (background if answer else None)
        say("the interval facts and the declared ranges exclude a decision point the game reaches: "
            "the interval facts are not used")
        facts = None


def _holds_in_range(instances: list, deadline: float | None, background: list) -> bool:
    """Whether the claim of `instances` holds in every state of `background` (`_background`:
    the declared ranges and the interval facts): true of a state before any move, whatever the
    moves. At most IN_RANGE_MS (a claim this does not settle that fast is left to the induction,
    which it then cost little)."""
    ms = IN_RANGE_MS if deadline is None else min(IN_RANGE_MS, int((deadline - time.perf_counter()) * 1000))
    if ms <= 0:
        return False
    s = z3.Solver()
    s.set("timeout", ms)
    s.add(*background)
    s.add(z3.Not(and_all(instances)))
    return s.check() == z3.unsat


def _consistent(system: System, facts, background: list, ms: int) -> bool:
    """Whether `background` (the declared ranges and the interval facts) admits a state at every
    decision point the interval analysis reaches (and at the end): one query each. Both are
    meant to be facts of every reachable state; where they contradict each other at a point,
    one of them is not, and a claim "true in every state of the background" says nothing there
    (a loop's padding held to its items' type did so, `Relation.ranges`). None where a query is
    cut short and none excludes its point."""
    pc = system.rel.state.pc
    points = system.decisions + [-1] if facts is None else \
        [d for d in system.decisions + [-1] if facts.states.get(d) is not None]
    answer: bool | None = True
    for d in points:
        s = z3.Solver()
        s.set("timeout", max(1, ms))
        s.add(*background, eq_leaf(pc, num(d)))
        r = s.check()
        if r == z3.unsat:
            return False
        if r == z3.unknown:
            answer = None
    return answer


def _interval_lemma(system: System, facts):
    """The interval facts as one formula over the free state: at each reachable decision point
    the bounds tighter than the declared ones; the unreachable ones are not the `pc`."""
    dag, pc = system.dag, system.rel.state.pc
    parts = []
    for d in system.decisions + [-1]:
        env = facts.states.get(d)
        if env is None:
            parts.append(z3.Not(eq_leaf(pc, num(d))) if d != -1 else True)
            continue
        bounds = []
        for k, leaf in enumerate(system.leaves):
            v = env.get(leaf)
            if v is None or leaf == system.pc_leaf:
                continue
            x = dag.term[leaf]
            if dag.is_bool[leaf]:
                if v[0] == v[1]:
                    bounds.append(x if v[0] == 1 else z3.Not(x))
                continue
            lo, hi = system.bounds[k] or (None, None)
            if v[0] > -BIG and (lo is None or v[0] > lo):
                bounds.append(lift(operator.le, num(v[0]), x))
            if v[1] < BIG and (hi is None or v[1] < hi):
                bounds.append(lift(operator.le, x, num(v[1])))
        if bounds:
            parts.append(implies(eq_leaf(pc, num(d)), and_all(bounds)))
    return and_all([x for x in parts if x is not True])
