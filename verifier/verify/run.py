"""`rulebook verify`: every property of a spec, for every player count, as results.

For each player count the pipeline is: play (the engine's random search finds real games that
break a property, and proposes frame facts from the states it visits), then prove (Z3: mutual
induction of the invariants, the run-time checks, deadlock freedom, score bounds), then
termination (the flow's loop structure with proved measures gives a maximum length; otherwise
deterministic play looks for an endless game, a lasso). A property's status:

- `violated`: a game shows it (a replayable trace); always a real game, never a solver model;
- `proved`: Z3 proved it for every reachable state (with the method: inductive, bounded);
- `unknown`: neither, with the reason (not inductive, solver time-out, no measure).

Each property is compared with what the spec expects of it (`expect NAME STATUS when ...`,
default `proved`); `Report.outcome` is `differs` if a result contradicts it (in either
direction: a new violation, an expected violation no longer found), `inconclusive` if the only
differences are proofs not found (`unknown` where `proved` is expected), else `as_expected`.
"""
from __future__ import annotations

import random
import time
from dataclasses import asdict, dataclass, field

from ..engine.lib import RuleError
from ..engine.play import random_step
from ..engine.runtime import Engine, Game
from ..frontend.typecheck import Program, walk
from ..ir import nodes as N
from ..smt.encode import Encoder, forget_lifted, is_true, z3
from ..smt.encode import OutOfTime
from ..smt.prove import Prover, Unsettled, Verdict
from . import explore
from .falsify import EXHAUSTIVE_SHARE, falsify
from .invariants import (RESTS_ON, build_system, prove_invariants, sampled_facts_at_checks, sampled_facts_at_deadlocks,
                         strengthen_checks)
from .lanes import LanePlan, SearchLane
from .length import max_length
from .score_witness import extreme_games
from .witness import failing_step, game_of_path

__all__ = ["Result", "Report", "verify", "BUILTINS"]

BUILTINS = {
    "termination": "every game ends",
    "no_deadlock": "whoever must move has a legal move",
    "well_formed": "every effect keeps every value inside its declared type",
}
STATUS_RANK = {"proved": 0, "unknown": 1, "violated": 2}


@dataclass
class Result:
    name: str
    sentence: str
    where: str  # file:line:col of the declaration ("" for built-ins)
    status: str
    expected: str
    method: str
    seconds: float
    reason: str = ""
    players: int | None = None
    expected_text: str = ""
    trace: dict | None = None  # a replay file (`rulebook play SPEC --replay`)
    trace_text: str = ""  # the game as `rulebook play` shows it
    rests_on: list = field(default_factory=list)  # properties a `proved` assumes (reported alongside)
    reused: bool = False  # from the cache (`cache.py`): the slice it depends on is unchanged
    # a claim not inductive: what it reads in the state a move breaks it from (leaf name -> value)
    state_before: dict = field(default_factory=dict)

    @property
    def as_expected(self) -> bool:
        return self.status == self.expected

    @property
    def inconclusive(self) -> bool:
        """A proof the spec expects is not there, and nothing contradicts it either."""
        return self.expected == "proved" and self.status == "unknown"

    @property
    def contradicts(self) -> bool:
        """The rules behave otherwise than the spec says: a violation it does not expect, an expected
        violation no longer found, a proof where it expects a violation or an open question."""
        return not self.as_expected and not self.inconclusive

    def as_json(self) -> dict:
        out = {"name": self.name, "status": self.status, "expected": self.expected, "method": self.method,
               "seconds": round(self.seconds, 3), "players": self.players, "sentence": self.sentence,
               "where": self.where}
        if self.reason:
            out["reason"] = self.reason
        if self.rests_on:
            out["rests_on"] = list(self.rests_on)
        if self.reused:
            out["reused"] = True
        if self.state_before:
            out["state_before"] = dict(self.state_before)
        if self.trace is not None:
            out["trace"] = self.trace
        return out


@dataclass
class Report:
    spec: str
    options: dict
    players: list
    results: list = field(default_factory=list)  # Result, one per property and player count
    score_bounds: list = field(default_factory=list)
    lengths: dict = field(default_factory=dict)  # players -> {"decisions": N, "chance": M}
    seconds: float = 0.0

    @property
    def as_expected(self) -> bool:
        return all(r.as_expected for r in self.results)

    @property
    def outcome(self) -> str:
        """`as_expected`; `inconclusive` (only proofs missing: results `unknown` where the spec
        expects `proved`); `differs` (some result contradicts the spec's expectation)."""
        if any(r.contradicts for r in self.results):
            return "differs"
        return "as_expected" if self.as_expected else "inconclusive"

    def as_json(self) -> dict:
        return {"spec": self.spec, "options": self.options, "players": self.players,
                "as_expected": self.as_expected, "outcome": self.outcome, "seconds": round(self.seconds, 3),
                "results": [r.as_json() for r in self.results], "score_bounds": self.score_bounds,
                "max_length": {str(k): v for k, v in self.lengths.items()}}


# ---------------------------------------------------------------------------- expectations

def expectation(program: Program, name: str, n: int, option_values: dict) -> tuple[str, str]:
    """(status the spec expects of property `name` with n players, the spec's sentence)."""
    for e in program.expects:
        if e.name != name:
            continue
        # the condition reads options and num_players only (the type checker sees to it)
        if e.when is not None and not is_true(z3.simplify(Encoder(program, n, option_values, {}).expr(e.when))):
            continue
        return e.status, e.text.value if hasattr(e.text, "value") else str(e.text)
    return "proved", ""


# ---------------------------------------------------------------------------- one player count

@dataclass
class Budget:
    games: int = 300  # random playouts searched for counterexamples
    max_steps: int = 5000  # steps of one playout or policy run
    samples: int = 30  # playouts whose decision-point states propose frame facts
    timeout: float = 20.0  # seconds per solver call
    proof: float | None = 240.0  # seconds for all the proofs of one player count (None: no limit)
    depth: int = 40  # transitions unrolled by bounded model checking (and at most the proved length)
    k: int = 3  # the largest k tried by k-induction
    falsify: float = 60.0  # seconds of directed search (falsify.py) for what random play did not break
    # (none when `games` is 0: no play at all, what the solver finds alone)
    spacer: bool = True  # Spacer in the portfolio (invariants, run-time checks)


def _say(progress, text):
    if progress is not None:
        progress(text)


def _sample(game: Game, games: int, seed: int, max_steps: int):
    """States at decision points of random games (frame-fact proposals), and the games with the
    lowest and highest final score of each seat (score-bound witnesses). A game whose play or
    final scoring breaks a rule is left out: the searches report it."""
    rng = random.Random(seed)
    states, best = [], {}
    for _ in range(games):
        try:
            st = game.new_initial_state()  # the flow up to the first decision may break a rule too
            while not st.is_terminal() and len(st.history) < max_steps:
                states.append(st.m.clone(st.s))
                random_step(st, rng)
            final = st.final_outcome()[0] if st.is_terminal() else None
        except RuleError:
            continue
        states.append(st.m.clone(st.s))  # the end too: facts about final states bound the scores
        if final is not None:
            for p, v in enumerate(final):
                lo, hi = best.get((p, "low")), best.get((p, "high"))
                if lo is None or v < lo[0]:
                    best[(p, "low")] = (v, list(st.history))
                if hi is None or v > hi[0]:
                    best[(p, "high")] = (v, list(st.history))
    return states, best


KEY_OF_KIND = {explore.INVARIANT: None, explore.DEADLOCK: "no_deadlock", explore.RULE_ERROR: "well_formed"}

# shares of the time left (of --budget) each stage may take; what a stage does not use, the next gets
RANDOM_SHARE = 0.1  # random play, first of all
LASSO_SHARE = 0.2  # deterministic policies looking for a cycle, where loops have no measure
EXHAUSTIVE_SHARE_OF_BUDGET = 0.15  # explicit-state search of the whole game (it stops early on big games)
# ... and how far it may run on while its shrinking levels foretell that it ends in time: a
# bundled bridge example (23,969 states in 11 levels, ~8 s) was proved by enumeration at the
# default budget, but at `--budget 60` (9 s) its search stopped short and the proofs, which
# cannot encode its outcome, left `well_formed` and termination unknown
EXHAUSTIVE_STRETCH = 0.4
QUICK_SEARCH_SHARE = 0.1  # a first, short directed search: most broken rules break early
# ... unless a first look of the proofs settles everything it would search for: the look takes
# this share of the search's seconds (it costs at most half of what it may save)
LOOK_SHARE_OF_SEARCH = 1.0
# ... where the state has at most this many leaves (a value each): the bundled games the look
# settles have 12-96, the seed games 300 or more, where it settled nothing and cost 4 s of 60
LOOK_LEAVES = 200
INVARIANTS_SHARE = 0.6
CHECK_SHARE = 0.4  # well_formed, then no_deadlock
SAMPLED_AT_DEADLOCKS = True  # `sampled_facts_at_deadlocks` where `no_deadlock` finds a stuck state
SEARCH_SHARE = 0.6  # directed search for what no proof settled
DEEPER_SHARE = 0.7  # bounded model checking and k-induction, before termination and the score bounds
WITNESS_SHARE = 0.2  # games with extreme scores, of the time left before the score bounds ...
WITNESS_SHARE_OF_SEARCH = 0.25  # ... and at most this share of --search's seconds
# with a search lane (`lanes.py`), the second directed search runs there, beside the proofs of
# the run-time checks and deadlocks; False: here, before or after them, as without a lane
SECOND_SEARCH_IN_LANE = True
# on a short game, the share of the run-time checks' time that the paths to every end get before
# Spacer (0: none, Spacer first)
PATHS_BEFORE_SPACER = 0.5
RANKING_SHARE = 0.5  # a ranking function, where loops have no measure and no endless game was found


def verify_players(program: Program, engine: Engine, n: int, given: dict, budget: Budget, progress=None,
                   only: set | None = None, started: float | None = None, enough=None,
                   lanes: int = 1) -> tuple[list, list, dict]:
    """`_verify_players`; the search lane it starts, if any, is stopped however it ends (the
    child waits for the second search's ask until told to stop, or until the deadline)."""
    made: list = []
    try:
        return _verify_players(program, engine, n, given, budget, progress, only, started, enough, lanes, made)
    finally:
        for lane in made:
            lane.finish(timeout=5.0)  # (a second call after the count's own: the child is gone)


def _verify_players(program: Program, engine: Engine, n: int, given: dict, budget: Budget, progress,
                    only: set | None, started: float | None, enough, lanes: int,
                    made: list) -> tuple[list, list, dict]:
    """The results of one player count within `budget.proof` seconds (every stage included).

    Cheap searches first (random play; exhaustive search where the game is small, short directed
    searches, unless a first look of the proofs on a small state settles what they seek), then proofs (`invariants.py`, the run-time checks, deadlocks), then a longer
    directed search and bounded model checking for what is still open, then termination and
    the score bounds. A proof that rests on `well_formed` says so (`rests_on`), and asking for
    one property settles what it rests on.

    `enough(violated names)`: when it says True, the budget ends there (every later stage finds
    no time left): a caller that needs only some violation (`mutate`: one the original does not
    have) does not wait for the proofs.

    `lanes` 2 or more (a core to spare): once the exhaustive search has not settled the game,
    the other searches run in a child process beside the proofs (`lanes.py`), which no longer
    wait for them."""
    game = Game(engine, n, given)
    values = dict(game.option_values)
    # `started`: when the budget began (the engine's compilation counts against the first counts)
    t0 = time.perf_counter() if started is None else started
    deadline = None if budget.proof is None else t0 + budget.proof
    say = (lambda text: _say(progress, f"{n} players: {text}"))

    def left() -> float | None:
        return None if deadline is None else max(0.0, deadline - time.perf_counter())

    def until(share: float) -> float | None:
        return None if deadline is None else time.perf_counter() + share * left()

    spec_names = [inv.name for inv in program.invariants]
    asked = set(spec_names + list(BUILTINS)) if only is None else set(only)

    def wanted(name):
        return name in asked

    violated: dict[str, explore.Finding] = {}
    found_by: dict[str, tuple[str, float]] = {}  # property -> (method, seconds)

    def take(findings, method, seconds=None):
        nonlocal deadline
        for f in findings:
            key = KEY_OF_KIND.get(f.kind, "") or (f.name if f.kind == explore.INVARIANT else None)
            # (a shorter game by the same search replaces one it sent before: `lanes.py`)
            if key and (key not in violated or (found_by[key][0] == method and
                                                len(f.history) < len(violated[key].history))):
                violated[key] = f
                found_by[key] = (method, f.seconds if f.seconds is not None else seconds)
        if enough is not None and violated and enough(set(violated)):
            deadline = time.perf_counter()

    lane = None  # the searches racing the proofs (`lanes.py`)
    use_lane = lanes > 1 and enough is None

    # 1. cheap searches: random play, then a short directed search (exhaustive on small games)
    if budget.games > 0 and not use_lane:
        say(f"searching {budget.games} random games")
        t = time.perf_counter()
        found = explore.search(game, games=budget.games, max_steps=budget.max_steps, seed=n,
                               deadline=_monotonic(until(RANDOM_SHARE)))
        take(found.findings, "search", time.perf_counter() - t)
    # an endless game, where the flow's loops do not bound the game's length
    length = max_length(program, n)
    lasso, lasso_seconds = None, 0.0
    want_lasso = wanted("termination") and (length.decisions is None or length.chance is None)

    def look_for_a_lasso() -> None:
        nonlocal lasso, lasso_seconds
        say("looking for an endless game")
        t = time.perf_counter()
        lasso = explore.find_lasso(game, seed=n, max_steps=budget.max_steps,
                                   deadline=_monotonic(until(LASSO_SHARE))).lasso
        lasso_seconds = time.perf_counter() - t

    if want_lasso and not use_lane:
        look_for_a_lasso()
    # well_formed is searched for whatever is asked: the proofs of the rest assume it
    targets = [x for x in spec_names + ["no_deadlock", RESTS_ON] if (wanted(x) or x == RESTS_ON)
               and x not in violated]
    enumerated = False  # every reachable state was checked
    acyclic = False  # ... and none can come back: every game ends
    extremes: dict = {}  # (player, "low"/"high") -> (score, game): every end's, once enumerated

    def search_seconds(share: float) -> float:
        return budget.falsify if deadline is None else min(budget.falsify, share * left())

    def search(share: float, strategies: tuple, seed: int) -> bool:
        """Directed search (falsify.py) for the open targets within `share` of the time left;
        True if its exhaustive search checked every reachable state."""
        stats: dict = {}
        seconds = search_seconds(share)
        stretch = None
        if strategies == ("exhaustive",):
            seconds = seconds / EXHAUSTIVE_SHARE  # it takes only its share of `seconds`
            # ... or more, where it foresees checking every state (a proof by enumeration)
            stretch = budget.falsify if deadline is None else min(budget.falsify, EXHAUSTIVE_STRETCH * left())
        say(f"{' and '.join(strategies)} search for {len(targets)} properties")
        take(falsify(game, program, targets, seconds=seconds, seed=seed, max_steps=budget.max_steps, progress=say,
                     strategies=strategies, stats=stats, stretch=stretch), "directed")
        nonlocal acyclic
        acyclic = acyclic or stats.get("acyclic", False)
        if stats.get("complete", False):
            extremes.update(stats.get("extremes", {}))
        return stats.get("complete", False)

    if budget.falsify > 0 and targets:
        enumerated = search(EXHAUSTIVE_SHARE_OF_BUDGET, ("exhaustive",), n)
        targets = [x for x in targets if x not in violated]
    if use_lane and not enumerated:
        lane = SearchLane(game, program, LanePlan(
            n, tuple(targets) if budget.falsify > 0 else (), budget.games, budget.max_steps, budget.falsify,
            want_lasso, deadline, (RANDOM_SHARE, LASSO_SHARE, QUICK_SEARCH_SHARE)), say)
        made.append(lane)
    elif use_lane and want_lasso and not acyclic:  # every state checked, but one comes back
        look_for_a_lasso()

    def from_lane(last: bool = False) -> None:
        """What the child found since the last look (`last`: stop it and wait for the rest)."""
        nonlocal lasso, lasso_seconds
        if lane is None:
            return
        for kind, payload in (lane.finish() if last else lane.messages()):
            if kind == "found":
                take(*payload)
            elif kind == "lasso":
                lasso, lasso_seconds = payload
            elif kind == "done" and payload:
                say(f"the searches beside the proofs stopped: {payload}")

    def to_lane() -> None:
        """What is settled here, which the child need no longer aim at."""
        if lane is not None:
            lane.settle(set(violated) | {k for k, v in verdicts.items() if v.status == "proved"})

    # 2. proofs (their proofs assume well_formed: it is settled and reported with them)
    if any(x not in violated for x in asked & (set(spec_names) | {"no_deadlock"})) or \
            ("termination" in asked and lasso is None):
        asked.add(RESTS_ON)
    verdicts: dict[str, Verdict] = {}
    states, best = _sample(game, budget.samples, 1000 + n, budget.max_steps)
    prover = Prover(program, n, values, budget.timeout, progress=say, samples=states,
                    invariants=[inv for inv in program.invariants if inv.name not in violated],
                    budget=left())
    if enumerated:
        for name in targets:
            if name not in violated:
                # play stops at a rule error: the states past one were not checked
                verdicts[name] = Verdict("proved", "exhaustive", "every reachable state was checked "
                                         "(explicit-state search of the whole game)", time.perf_counter() - t0,
                                         {"rests_on": [RESTS_ON]} if name != RESTS_ON else {})
    # bounded paths (stage 3, and on a short game before Spacer strengthens the run-time checks)
    bound = (length.decisions + length.chance) if length.decisions is not None and length.chance is not None \
        else None
    # paths that can reach every game's end (one step past the static bound confirms that no
    # game goes on), else only as deep as k-induction's base needs: deeper, the directed
    # search finds violations for less
    depth = bound + 1 if bound is not None and bound + 1 <= budget.depth else min(budget.k - 1, budget.depth)
    # with no static bound (a `while` without a measure) the game may still be short: the paths
    # for a failing check or a deadlock go to `--depth`, and stop where every game has ended
    to_end = depth if bound is not None else budget.depth
    short = bound is not None and bound + 1 <= budget.depth

    def on_paths(what: str, ask, within_stage: float | None = None):
        """`ask()` (a `Prover.reach`) within DEEPER_SHARE of the time left, or `within_stage` of
        the prover's current stage; None if cut short."""
        if within_stage is None:
            prover.deadline = deadline
        with prover.stage(DEEPER_SHARE if within_stage is None else within_stage, what):
            try:
                return ask()
            except (Unsettled, OutOfTime):
                return None

    def settle_on_paths(name: str, bad: str, ask, confirm, proved_because, details: dict,
                        may_prove: bool = True, within_stage: float | None = None) -> None:
        """`name`, still unknown, from bounded paths (`ask`): a state the engine confirms
        (`confirm`) is a violation; none on any game to its end is a proof (if `may_prove`)."""
        v = verdicts[name]
        t = time.perf_counter()
        reached = on_paths(f"paths to {bad}", ask, within_stage)
        if reached is not None and reached.kind == "reached":
            found = confirm(game, program, reached)
            if found is not None:
                take([found], "bounded", time.perf_counter() - t)
            else:
                v.reason += (f"; bounded model checking reached {bad}, but the engine does not confirm it: an "
                             "encoding fault, please report it")
        elif reached is not None and reached.kind == "complete" and may_prove:
            verdicts[name] = Verdict("proved", f"bounded-complete to {reached.depth}", proved_because(reached.depth),
                                     v.seconds + time.perf_counter() - t, details)

    def early(d: int) -> int | None:
        """The steps within which every visit of decision point d comes, if at most `--depth`:
        d is in the flow's first top-level statements, which run at most so long (a set-up
        loop); else None."""
        prefix = max_length(program, n, upto=program.decisions[d].node)
        if prefix.decisions is None or prefix.chance is None or prefix.decisions + prefix.chance > budget.depth:
            return None
        return prefix.decisions + prefix.chance

    def checks_on_paths(within_stage: float | None = None, steps: int | None = None) -> None:
        wf = verdicts.get(RESTS_ON)
        if RESTS_ON not in violated and wf is not None and wf.status == "unknown" and prover.unproved_checks \
                and (left() is None or left() > 1):
            # a run-time check the induction could not prove: is a state where it fails reachable?
            # (on a short game, the paths go to every game's end: none reached is a proof, provided
            # `obligations` looked at every check)
            settle_on_paths(
                RESTS_ON, "a failing check", lambda: prover.reach_failed_checks(steps or to_end), _confirmed_check,
                lambda depth: f"the {len(prover.unproved_checks)} run-time checks induction left open hold on "
                              f"every game up to {depth} steps, past which no game is where they are asked; every "
                              "other check is inductive",
                {}, may_prove=prover.checks_examined, within_stage=within_stage)

    def checks_and_deadlocks_on_paths(within_stage: float | None = None) -> None:
        checks_on_paths(within_stage)
        dl = verdicts.get("no_deadlock")
        if (bound is None or bound + 1 <= budget.depth) and "no_deadlock" not in violated and dl is not None \
                and dl.status == "unknown" and (left() is None or left() > 1):
            # a short game: every game is followed to its end, looking for a mover with no legal move
            settle_on_paths(
                "no_deadlock", "a state with no legal move", lambda: prover.reach(prover.deadlock_goals(), to_end),
                _confirmed_deadlock,
                lambda depth: f"checked on every game: whoever must move has a legal move (no game goes on "
                              f"past {depth} steps)", {"rests_on": [RESTS_ON]}, within_stage=within_stage)

    def prove_check(name: str, check, share: float) -> None:
        """`well_formed` (`check` = `prover.obligations`) or `no_deadlock` within `share` of the
        prover's time left."""
        say(f"proving {name}")
        with prover.stage(share, name):
            verdicts[name] = check()
            if name == RESTS_ON and short and PATHS_BEFORE_SPACER:
                # on a short game, the checks induction left open are first followed on every
                # path to every end: complete, it settles them for less than Spacer asked
                # check by check (a poker count at 10 players: 4 s against 17 s in vain)
                checks_on_paths(PATHS_BEFORE_SPACER)
            elif name == RESTS_ON and PATHS_BEFORE_SPACER and not short and prover.unproved_checks:
                # so are checks asked only in the flow's first steps (a set-up loop's draws), on
                # every path through those steps, with the stage's time: a seed game's count
                # at 4 players settles its one open check so in 1.4 s, which its guesses did not
                steps = [early(d) for d in {c[0] for c in prover.unproved_checks}]
                if None not in steps:
                    checks_on_paths(1.0, max(steps))
            # a run-time check no proved invariant implies: a guess from sampled states about its
            # decision point may be the lemma it lacks; else Spacer may find its strengthening
            for strengthen, asked in ((sampled_facts_at_checks, True), (strengthen_checks, budget.spacer)):
                if name == RESTS_ON and asked and verdicts[name].status == "unknown" and \
                        name not in violated and prover.failed_checks and strengthen(prover, prover.deadline, say):
                    verdicts[name] = check()
            # a state with no legal move: a guess about how the sets the moves read shrink may be
            # what rules it out
            if name == "no_deadlock" and SAMPLED_AT_DEADLOCKS and verdicts[name].status == "unknown" and \
                    name not in violated and prover.failed_deadlocks and \
                    sampled_facts_at_deadlocks(prover, prover.deadline, say):
                verdicts[name] = check()
        if name != RESTS_ON and verdicts[name].status == "proved":
            verdicts[name].details["rests_on"] = [RESTS_ON]  # under the proved invariants

    def look_settles() -> bool:
        """The proofs first, within LOOK_SHARE_OF_SEARCH of the quick search's seconds, where the
        state is small: True if they settle every target of the searches (each proved, or
        violated on bounded paths), which then need not run. Else what they said is forgotten
        (a proof there is proved again below, with the time its engines are meant to have) and
        the quick search goes first, as before; the system is built once (`build_system`)."""
        try:
            # (what the proofs after a look that settles nothing build too: not in its time)
            system, _ = build_system(prover, until(INVARIANTS_SHARE), say, intervals=False)
            if len(system.leaves) > LOOK_LEAVES:
                # no look: its interval analysis is left to the proofs (begun here, cut short
                # at its share, it gave a seed game's count nothing for 7 s)
                return False
            build_system(prover, until(INVARIANTS_SHARE), say)
        except OutOfTime:
            return False
        kept = dict(verdicts)
        prover.deadline = time.perf_counter() + LOOK_SHARE_OF_SEARCH * search_seconds(QUICK_SEARCH_SHARE)
        say("a first look of the proofs")
        try:
            verdicts.update({k: v for k, v in prove_invariants(
                prover, [inv for inv in program.invariants if inv.name not in violated and inv.name not in verdicts],
                prover.deadline, say, spacer=budget.spacer).items() if k not in verdicts})
            if all(verdicts.get(x) is not None and verdicts[x].status == "proved"
                   for x in targets if x in spec_names and x not in violated):
                for name, check in ((RESTS_ON, prover.obligations), ("no_deadlock", prover.deadlocks)):
                    if name in targets and name not in violated and name not in verdicts:
                        prove_check(name, check, 1.0)  # (each what the look has left)
                if short:
                    checks_and_deadlocks_on_paths(within_stage=1.0)
        except (OutOfTime, Unsettled):  # (OutOfBudget is an Unsettled)
            pass
        prover.deadline = deadline
        settled = all(x in violated or (verdicts.get(x) is not None and verdicts[x].status == "proved")
                      for x in targets)
        if not settled:  # (the prover's invariants are set again after the search that follows)
            verdicts.clear()
            verdicts.update(kept)
        return settled

    looked = False  # the proofs' first look settled every target of the searches
    if budget.falsify > 0 and targets and not enumerated and not use_lane:
        # on a small game the proofs settle in a second what the quick search would spend its
        # share on (a dice game's count: 6 s of search before 0.7 s of proofs); a caller that
        # needs only a violation (`enough`) has the search first
        looked = bool(LOOK_SHARE_OF_SEARCH) and enough is None and look_settles()
        if not looked:
            search(QUICK_SEARCH_SHARE, ("beam", "swarm"), n)
            prover.spec_invariants = [inv for inv in program.invariants if inv.name not in violated]

    open_invs = [inv for inv in program.invariants if inv.name not in violated and inv.name not in verdicts]
    needs_invariants = only is None or any(x in asked and x not in violated
                                           for x in spec_names + ["no_deadlock", RESTS_ON])
    # (with no invariant to prove, the system, its interval facts and the facts of the flow's
    # structure are still what `well_formed` and `no_deadlock` are proved from)
    if needs_invariants and (open_invs or not enumerated) and not looked:
        # every unbroken invariant takes part (each helps prove the others), even if not asked
        verdicts.update({k: v for k, v in prove_invariants(prover, open_invs, until(INVARIANTS_SHARE), say,
                                                          spacer=budget.spacer).items()
                         if k not in verdicts})
    from_lane()
    to_lane()

    searching = False  # the search lane runs the longer directed search

    def search_open() -> None:
        """The longer directed search, for what is asked and neither violated nor proved: in
        the search lane, if there is one, beside the proofs that follow (here it would stop
        them for its whole share: 57 s of a seed game's 240 s, in which the run-time checks
        got 15 s); else here."""
        nonlocal targets, searching
        targets = [x for x in spec_names + ["no_deadlock", RESTS_ON]
                   if wanted(x) and x not in violated and verdicts.get(x, Verdict("unknown")).status != "proved"]
        if budget.falsify > 0 and targets and not enumerated and (left() is None or left() > 1):
            if lane is not None and SECOND_SEARCH_IN_LANE:
                seconds = budget.falsify if deadline is None else min(budget.falsify, SEARCH_SHARE * left())
                lane.search(targets, seconds, n + 7)
                searching = True
            else:
                search(SEARCH_SHARE, ("beam", "swarm"), n + 7)

    # a counterexample to induction of an asked invariant hints at a violation: search before
    # the run-time checks and deadlocks take their share
    # (in the search lane it runs beside them: as soon as the invariants are settled)
    hinted = any("decision" in v.details for k, v in verdicts.items() if wanted(k) and k in spec_names) or \
        (lane is not None and SECOND_SEARCH_IN_LANE)
    if hinted:
        search_open()
    for name, check in ((RESTS_ON, prover.obligations), ("no_deadlock", prover.deadlocks)):
        from_lane()
        if wanted(name) and name not in violated and name not in verdicts:
            prove_check(name, check, CHECK_SHARE)
            to_lane()

    # 3. what is still open: a longer directed search, then bounded model checking (on a short
    # game, the paths to every game's end come first: they settle for less what a search seeks)
    if short:
        checks_and_deadlocks_on_paths()
    if not hinted:
        search_open()
    if not short:
        checks_and_deadlocks_on_paths()
    from_lane()
    unsettled = [name for name, v in verdicts.items() if name in spec_names and name not in violated
                 and v.status == "unknown" and "decision" in v.details]
    if unsettled and (left() is None or left() > 1):
        prover.deadline = deadline
        with prover.stage(DEEPER_SHARE, "the deeper proofs"):
            deeper = prover.deepen(unsettled, depth, budget.k)
        for name, v in deeper.items():
            if v.status == "violated":
                history = game_of_path(game, program, v.details["path"], v.details["model"], v.details["depth"])
                inv = next(i for i in program.invariants if i.name == name)
                if history is None or name not in [x for x, _, _ in explore.replay_history(game, history)
                                                   .check_invariants()]:
                    v = Verdict("unknown", "bounded", f"bounded model checking found a path of {v.details['depth']} "
                                "steps that breaks it, but the engine does not confirm it: an encoding fault, "
                                "please report it", v.seconds)
                else:
                    take([explore.Finding(explore.INVARIANT, name, str(inv.sentence), str(inv.span), history)],
                         "bounded", v.seconds)
                    continue
            if v.status == "proved" and "rests_on" not in v.details:
                v.details["rests_on"] = [RESTS_ON]
            verdicts[name] = v

    if searching:
        # what the proofs since settled, the child's search need no longer aim at: told before
        # waiting, else it searched on for proved properties (33 s of a count's 43 s on a poker
        # example whose searches began at a hint and whose proofs ended on bounded paths)
        to_lane()
        lane.wait(left())  # (its findings settle what the proofs here left open)
    from_lane(last=True)  # (termination needs the endless-game search's answer)

    # 4. termination
    lengths = {"decisions": length.decisions, "chance": length.chance}
    wf = verdicts.get(RESTS_ON)
    if wanted("termination"):
        t = time.perf_counter()
        if length.decisions is not None and length.chance is not None:
            # loops that count only if their run-time checks hold: measures, decision-free `while`s
            # (a game stopped by a failed measure "ends" too, but not as the rules mean: so here
            # the checks must be proved, not only assumed)
            checked_loops = any(isinstance(x, N.While) for x in walk(program.spec))
            wf_status = "violated" if RESTS_ON in violated else (wf.status if wf is not None else "unknown")
            if not checked_loops or wf_status == "proved":
                verdicts["termination"] = Verdict(
                    "proved", "bounded", f"at most {length.decisions} decisions and {length.chance} chance draws "
                    "(every loop around a decision point is a `for` over a finite collection or has a proved "
                    "measure)", time.perf_counter() - t)
            else:
                # a ranking function does not rest on the measures' checks (it does not assume them)
                ranked = _ranking(prover, deadline, say) if wf_status != "violated" and \
                    (left() is None or left() > 1) else None
                if ranked is not None and ranked.proved:
                    verdicts["termination"] = _ranked(ranked, "", time.perf_counter() - t)
                else:
                    why = f"; no ranking function: {ranked.reason}" if ranked is not None else \
                        "; the search for a ranking function ran out of time" if wf_status != "violated" else ""
                    verdicts["termination"] = Verdict(
                        "unknown", "bounded", f"the loops' run-time checks (measures, `while` bounds) are not "
                        f"proved: well_formed is {wf_status}{why}", time.perf_counter() - t)
        elif lasso is None and acyclic and RESTS_ON not in violated:
            # (a rule error stops the search: with one, the games past it were not followed)
            verdicts["termination"] = Verdict(
                "proved", "exhaustive", "every reachable state was checked and none can come back (the graph of "
                "reachable states has no cycle), so every game ends", time.perf_counter() - t)
        elif lasso is not None:
            trace = explore.trace_json(game, lasso.history, cycle_start=lasso.cycle_start, failing="termination")
            text = explore.render_trace(game, lasso.history, cycle_start=lasso.cycle_start,
                                        failing_text="the play can repeat forever: the game never ends")
            verdicts["termination"] = Verdict(
                "violated", "lasso", f"an endless game: after {lasso.cycle_start} steps a cycle of "
                f"{lasso.cycle_length} steps returns to the same state (policy: {lasso.policy})",
                lasso_seconds, {"trace": trace, "text": text})
        else:
            loops = ", ".join(f"line {w.span.line}" for w in length.unbounded)
            tried = RESTS_ON not in violated and (left() is None or left() > 1)
            ranked = _ranking(prover, deadline, say) if tried else None
            if ranked is not None and ranked.proved:
                verdicts["termination"] = _ranked(ranked, f" (the loop(s) at {loops} have no measure)",
                                                  time.perf_counter() - t)
            else:
                why = f"; no ranking function: {ranked.reason}" if ranked is not None else \
                    "; the search for a ranking function ran out of time" if tried else ""
                verdicts["termination"] = Verdict(
                    "unknown", "lasso search", f"the loop(s) at {loops} have no measure (`decreases`) and no "
                    f"endless game was found{why}", lasso_seconds + time.perf_counter() - t)

    # 5. the results, in the spec's order
    results: list[Result] = []

    def add(name, sentence, where):
        status, text = expectation(program, name, n, values)
        trace, trace_text = None, ""
        if name in violated:
            f = violated[name]
            method, seconds = found_by[name]
            trace = explore.trace_json(game, f.history, failing=f)
            trace_text = explore.render_trace(game, f.history, failing_text=f.describe())
            v = Verdict("violated", method, f.describe(), seconds or 0.0)
        else:
            v = verdicts.get(name) or Verdict("unknown", "", "not checked: the time budget (--budget) ran out "
                                              "before it was reached")
            if v.status == "violated" and "trace" in v.details:
                trace, trace_text = v.details["trace"], v.details["text"]
        # play stops at a rule error: such a proof covers every game up to its first one, and
        # the report shows what became of the property it rests on
        rests = list(v.details.get("rests_on", [])) if v.status == "proved" else []
        results.append(Result(name, sentence, where, v.status, status, v.method, v.seconds, v.reason, n, text,
                              trace, trace_text, rests, state_before=dict(v.details.get("state_before", {}))))
        finished = getattr(progress, "finished", None)  # the command line prints each result as it comes
        if finished is not None:
            finished(results[-1])

    for inv in program.invariants:
        if wanted(inv.name):
            add(inv.name, inv.sentence, str(inv.span))
    for name in ("well_formed", "no_deadlock", "termination"):
        if wanted(name):
            add(name, BUILTINS[name], "")

    # 6. score bounds, with witness games: random play's, then a beam search on each seat's score
    bounds = []
    if only is None and enumerated and RESTS_ON not in violated:
        # every end was visited: its extreme scores are the bounds, each with its game (gap 0).
        # Play stops at a rule error, so with one found the ends past it were not: the solver's
        # bounds then, which say they assume well_formed
        for p in range(n):
            lo, hi = extremes.get((p, "low")), extremes.get((p, "high"))
            bounds.append({"players": n, "player": p,
                           "proved": [lo[0] if lo else None, hi[0] if hi else None],
                           "witness": [lo[0] if lo else None, hi[0] if hi else None],
                           "gap": 0 if hi else None, "by": "exhaustive",
                           "witness_games": [explore.trace_json(game, x[1]) if x else None for x in (lo, hi)]})
    elif only is None:
        # the bounds first: a witness that meets its proved bound needs no better one (on a sealed
        # bid's 9 counts, the search for witnesses went on for 53 s where each met its bound at once)
        prover.deadline = deadline
        proved_bounds = prover.score_bounds()
        if budget.falsify > 0:
            seconds = WITNESS_SHARE_OF_SEARCH * budget.falsify
            if left() is not None:
                seconds = min(seconds, WITNESS_SHARE * left())
            say("looking for games with extreme scores")
            aims = {(b["player"], aim): b[aim] for b in proved_bounds for aim in ("low", "high") if b[aim] is not None}
            best.update(extreme_games(game, deadline=time.monotonic() + seconds, seed=n, max_steps=budget.max_steps,
                                      bounds=aims, known=best))
        for b in proved_bounds:
            p = b["player"]
            lo, hi = best.get((p, "low")), best.get((p, "high"))
            bounds.append({"players": n, "player": p, "proved": [b["low"], b["high"]],
                           "witness": [lo[0] if lo else None, hi[0] if hi else None],
                           "gap": (b["high"] - hi[0]) if hi and b["high"] is not None else None,
                           "witness_games": [explore.trace_json(game, x[1]) if x else None for x in (lo, hi)]})
    say(f"done in {time.perf_counter() - t0:.0f} s")
    return results, bounds, lengths


def _ranked(ranked, note: str, seconds: float) -> Verdict:
    return Verdict("proved", "ranking", f"every step decreases {ranked.measure}: every game ends within "
                   f"{ranked.bound + 1} steps{note}", seconds,
                   {"rests_on": [RESTS_ON], "measure": ranked.measure, "bound": ranked.bound + 1})


def _ranking(prover: Prover, deadline, say):
    """A ranking function for the whole game (`smt.engines.ranking`), within RANKING_SHARE of the
    time left; None if the time or the encoding ran out."""
    from ..smt.engines.ranking import prove_ranking
    say("looking for a ranking function")
    prover.deadline = deadline
    with prover.stage(RANKING_SHARE, "the ranking function"):
        try:
            return prove_ranking(prover, say)
        except (Unsettled, OutOfTime):
            return None


def _confirmed_check(game: Game, program: Program, reached) -> explore.Finding | None:
    """A failing run-time check that bounded model checking reached (`Prover.reach_failed_checks`),
    as the engine replays it: the game to that state and the step that breaks there, or None
    if the engine does not follow the path or no step there breaks."""
    (_d, _alt, obligation, _legality) = reached.goal
    history = game_of_path(game, program, reached.path, reached.model, reached.depth)
    if history is None:
        return None
    broken = failing_step(game, history, str(obligation.span))
    if broken is None:
        return None
    step, text, exc = broken
    return explore.Finding(explore.RULE_ERROR, explore.RULE_ERROR, exc.plain, exc.where, history, step, text)


def _confirmed_deadlock(game: Game, program: Program, reached) -> explore.Finding | None:
    """A state with no legal move that bounded model checking reached (`Prover.reach` over
    `deadlock_goals`), as the engine replays it: the game to that state, or None if the engine
    does not follow the path or finds a legal move there."""
    history = game_of_path(game, program, reached.path, reached.model, reached.depth)
    if history is None:
        return None
    stuck = explore.choose_step(explore.replay_history(game, history), lambda who, options, weights: options[0])
    if not isinstance(stuck, explore.Stuck) or stuck.kind != explore.DEADLOCK:
        return None
    return explore.Finding(explore.DEADLOCK, explore.DEADLOCK, stuck.message, stuck.where, history)


def _monotonic(perf_deadline: float | None) -> float | None:
    """A `time.perf_counter` deadline as a `time.monotonic` one (the searches use the latter)."""
    if perf_deadline is None:
        return None
    return time.monotonic() + (perf_deadline - time.perf_counter())


def verify(program: Program, given: dict, players: list[int] | None = None, budget: Budget | None = None,
           progress=None, only: set | None = None, jobs: int = 1, cache=None, enough=None,
           isolated: bool = False) -> Report:
    """Every player count's results; with `jobs` > 1, the counts run side by side in that many
    worker processes (each with the whole budget of its count), reported in count order; a
    count verified alone gets a second process for its searches (`lanes.py`). With
    a `cache.Cache`, a count whose slice of the spec is unchanged is not run again. `enough`
    (see `verify_players`; one process, no cache: its results are partial) ends a count's
    budget at the violations it wants. With `isolated`, all of it runs in a forked child process
    (`_isolated`), so that nothing it leaves in memory reaches a spec verified after it."""
    if enough is not None and (cache is not None or jobs > 1):
        raise ValueError("verify: `enough` stops one count's run early; it takes no cache and no workers")
    started = time.perf_counter()
    if isolated:
        return _isolated(lambda say: _verify(program, given, players, budget, say, only, jobs, cache, enough,
                                             started), progress)
    try:
        return _verify(program, given, players, budget, progress, only, jobs, cache, enough, started)
    finally:
        # this spec's terms, kept, would slow every spec verified after it in this process
        forget_lifted()


def _isolated(work, progress):
    """work(progress) in a forked child process, its progress relayed here as it comes, its
    result (or the exception it raised) returned (raised) here.

    Why: a count verified alone runs its proofs in the process that calls `verify`, and Z3 keeps
    the memory it took (340 MB after two examples' counts, no Python reference left), which the
    worker processes of every later spec inherit. In `make verify` (every spec in one command)
    a small example's Spacer queries took 0.5-2.5 s each instead of 0.1 s and a check that
    proves alone came out unknown; which spec came before decided the result."""
    import multiprocessing
    import pickle
    import queue
    import signal
    import sys
    ctx = multiprocessing.get_context("fork")
    messages = ctx.Queue()

    def child() -> None:
        # a termination from the parent ends the child as an exit does (its pool and search
        # lane stopped on the way out), not leaving them behind
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
        try:
            out = ("report", work(_Relay(messages) if progress is not None else None))
        except BaseException as exc:  # noqa: BLE001 - every failure is the parent's to raise
            try:
                pickle.dumps(exc)
            except Exception:  # noqa: BLE001 - an exception that cannot cross as itself
                exc = RuntimeError(f"{type(exc).__name__}: {exc}")
            out = ("error", exc)
        messages.put(out)
        messages.close()
        messages.join_thread()

    proc = ctx.Process(target=child)  # not a daemon: its own workers and search lane are its children
    proc.start()
    try:
        while True:
            try:
                kind, payload = messages.get(timeout=0.2)
            except queue.Empty:
                if proc.is_alive():
                    continue
                try:  # its last message may have come after the look above
                    kind, payload = messages.get(timeout=1.0)
                except queue.Empty:
                    raise RuntimeError(f"the verification process ended with code {proc.exitcode} "
                                       "and no result") from None
            if kind in ("say", "finished"):
                pass_on(progress, kind, payload)
            elif kind == "report":
                return payload
            else:
                raise payload
    finally:
        proc.join(timeout=5.0)
        if proc.is_alive():
            proc.terminate()
            proc.join()


def _verify(program, given, players, budget, progress, only, jobs, cache, enough, started) -> Report:
    engine = Engine(program)
    budget = budget or Budget()
    counts = players or list(range(program.min_players, program.max_players + 1))
    report = Report(program.spec.path, dict(given), counts)
    t0 = time.perf_counter()
    outs, keys = _cached(program, engine, given, counts, budget, only, cache, progress)
    todo = [n for n in counts if n not in outs]
    if jobs > 1 and len(todo) > 1:
        outs.update(zip(todo, _in_workers(program, engine, todo, given, budget, progress, only, jobs, started)))
    else:
        # one count and cores to spare: its searches race its proofs in a second process
        lanes = jobs if len(todo) == 1 else 1
        for i, n in enumerate(todo):
            outs[n] = verify_players(program, engine, n, given, budget, progress, only, started if i == 0 else None,
                                     enough, lanes)
    return _assembled(report, outs, cache, keys, todo, t0)


def _cached(program: Program, engine: Engine, given: dict, counts: list, budget: Budget, only, cache,
            progress) -> tuple[dict, dict]:
    """({count: its cached out}, {count: its cache key}) for the counts the cache holds."""
    outs: dict[int, tuple] = {}
    keys: dict[int, tuple] = {}
    if cache is not None:
        settings = {k: v for k, v in asdict(budget).items()}
        for n in counts:
            values = dict(Game(engine, n, given).option_values)
            keys[n] = cache.key(program.spec, n, values, settings, only)
            hit = cache.get(keys[n])
            if hit is not None:
                outs[n] = _reused(program, n, values, hit, progress)
    return outs, keys


def _assembled(report: Report, outs: dict, cache, keys: dict, todo: list, t0: float) -> Report:
    """The report of every count's out, in count order; the counts run (`todo`) cached."""
    if cache is not None:
        for n in todo:
            cache.put(keys[n], *outs[n])
    for n in report.players:
        results, bounds, lengths = outs[n]
        report.results += results
        report.score_bounds += bounds
        report.lengths[n] = lengths
    report.seconds = time.perf_counter() - t0
    return report


def _reused(program: Program, n: int, values: dict, hit: tuple, progress) -> tuple:
    """A cached player count as results (the expectations are the spec's of today)."""
    stored, bounds, lengths = hit
    results = []
    for d in stored:
        r = Result(**{**d, "reused": True})
        r.expected, r.expected_text = expectation(program, r.name, n, values)
        results.append(r)
        finished = getattr(progress, "finished", None)
        if finished is not None:
            finished(r)
    return results, bounds, {k: v for k, v in lengths.items()}


# ---------------------------------------------------------------------------- worker processes

_JOB: tuple = ()  # what a forked worker inherits: (program, engine, given, budget, only, messages)


def pass_on(progress, kind: str, payload) -> None:
    """A message relayed from a worker to `progress` (None: to no one): a step's text ("say")
    or a settled result ("finished")."""
    if progress is None:
        return
    if kind == "say":
        progress(payload)
    elif kind == "finished" and getattr(progress, "finished", None) is not None:
        progress.finished(payload)


class _Relay:
    """A worker's progress: each message goes to the parent, which passes it on."""

    def __init__(self, messages):
        self.messages = messages

    def __call__(self, text: str) -> None:
        self.messages.put(("say", text))

    def finished(self, result) -> None:
        self.messages.put(("finished", result))


def _worker(n: int, started: float | None):
    program, engine, given, budget, only, messages = _JOB
    return verify_players(program, engine, n, given, budget, _Relay(messages), only, started)


def _in_workers(program, engine, counts, given, budget, progress, only, jobs, started=None) -> list:
    """verify_players for each count in forked processes (the compiled engine and the Z3
    context are inherited, not rebuilt); their progress relayed in the order it comes."""
    import multiprocessing
    import queue
    global _JOB
    ctx = multiprocessing.get_context("fork")
    messages = ctx.Queue()
    _JOB = (program, engine, given, budget, only, messages)

    finished = [0]  # the results relayed so far

    def relay(block: float):
        try:
            while True:
                kind, payload = messages.get(timeout=block)
                block = 0.0
                finished[0] += kind == "finished"
                pass_on(progress, kind, payload)
        except queue.Empty:
            return

    pool = ctx.Pool(min(jobs, len(counts)))
    try:
        # the first wave's budget began with the engine's compilation (the same monotonic clock
        # in the forked workers); the later counts' when they start
        pending = [pool.apply_async(_worker, (n, started if i < jobs else None)) for i, n in enumerate(counts)]
        while not all(p.ready() for p in pending):
            relay(0.2)
        outs = [p.get() for p in pending]
        # a worker's last messages may reach the queue after its answer is ready (its queue's
        # feeder thread): every result is relayed before the report, at most a few seconds on
        until = time.perf_counter() + 5.0
        expected = sum(len(out[0]) for out in outs)
        relay(0.0)
        while finished[0] < expected and time.perf_counter() < until:
            relay(0.1)
        # every worker ends on its own before the pool is torn down: a terminate racing the
        # pool's thread that replaces ended workers left a new one waiting for a task forever
        # (a test's verify hung so, its pool's join waiting for that worker)
        pool.close()
        pool.join()
        return outs
    finally:
        pool.terminate()
        pool.join()
        _JOB = ()
