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
from dataclasses import dataclass, field

from ..engine.lib import RuleError
from ..engine.play import random_step
from ..engine.runtime import Engine, Game
from ..frontend.typecheck import Program, walk
from ..ir import nodes as N
from ..smt.encode import Encoder, is_true, z3
from ..smt.prove import Prover, Verdict
from . import explore
from .falsify import falsify
from .length import max_length
from .witness import game_of_path

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
    depth: int = 30  # transitions unrolled by bounded model checking (and at most the proved length)
    k: int = 3  # the largest k tried by k-induction
    falsify: float = 60.0  # seconds of directed search (falsify.py) for what random play did not break
    # (none when `games` is 0: no play at all, what the solver finds alone)


def _say(progress, text):
    if progress is not None:
        progress(text)


def _sample(game: Game, games: int, seed: int, max_steps: int):
    """States at decision points of random games (frame-fact proposals), and the games with the
    lowest and highest final score of each seat (score-bound witnesses)."""
    rng = random.Random(seed)
    states, best = [], {}
    for _ in range(games):
        st = game.new_initial_state()
        try:
            while not st.is_terminal() and len(st.history) < max_steps:
                states.append(st.m.clone(st.s))
                random_step(st, rng)
        except RuleError:
            continue  # the search reports it
        states.append(st.m.clone(st.s))  # the end too: facts about final states bound the scores
        if st.is_terminal():
            for p, v in enumerate(st.scores()):
                lo, hi = best.get((p, "low")), best.get((p, "high"))
                if lo is None or v < lo[0]:
                    best[(p, "low")] = (v, list(st.history))
                if hi is None or v > hi[0]:
                    best[(p, "high")] = (v, list(st.history))
    return states, best


def verify_players(program: Program, engine: Engine, n: int, given: dict, budget: Budget, progress=None,
                   only: set | None = None) -> tuple[list, list, dict]:
    game = Game(engine, n, given)
    values = dict(game.option_values)
    results: list[Result] = []
    t0 = time.perf_counter()

    def wanted(name):
        return only is None or name in only

    def add(name, sentence, where, verdict: Verdict, trace=None, trace_text=""):
        status, text = expectation(program, name, n, values)
        results.append(Result(name, sentence, where, verdict.status, status, verdict.method, verdict.seconds,
                              verdict.reason, n, text, trace, trace_text))
        finished = getattr(progress, "finished", None)  # the command line prints each result as it comes
        if finished is not None:
            finished(results[-1])

    # 1. play: counterexamples that are games
    _say(progress, f"{n} players: searching {budget.games} random games")
    t = time.perf_counter()
    found = explore.search(game, games=budget.games, max_steps=budget.max_steps, seed=n)
    search_seconds = time.perf_counter() - t
    violated: dict[str, explore.Finding] = {}
    for f in found.findings:
        key = {explore.INVARIANT: f.name, explore.DEADLOCK: "no_deadlock",
               explore.RULE_ERROR: "well_formed"}.get(f.kind)
        if key is not None and key not in violated:
            violated[key] = f
    # directed search (method `directed`) for what random play did not break
    directed_seconds: dict[str, float] = {}
    targets = [name for name in [inv.name for inv in program.invariants] + ["no_deadlock", "well_formed"]
               if wanted(name) and name not in violated]
    if budget.falsify > 0 and budget.games > 0 and targets:
        _say(progress, f"{n} players: directed search for {len(targets)} properties ({budget.falsify:.0f} s at most)")
        for f in falsify(game, program, targets, seconds=budget.falsify, seed=n, max_steps=budget.max_steps,
                         progress=lambda s: _say(progress, f"{n} players: {s}")):
            key = {explore.INVARIANT: f.name, explore.DEADLOCK: "no_deadlock",
                   explore.RULE_ERROR: "well_formed"}[f.kind]
            violated[key], directed_seconds[key] = f, f.seconds

    bounded_seconds: dict[str, float] = {}  # violations found by bounded model checking

    def violation(name, f: explore.Finding, sentence, where):
        trace = explore.trace_json(game, f.history, failing=f)
        text = explore.render_trace(game, f.history, failing_text=f.describe())
        method = "bounded" if name in bounded_seconds else "directed" if name in directed_seconds else "search"
        seconds = bounded_seconds.get(name, directed_seconds.get(name, search_seconds))
        add(name, sentence, where, Verdict("violated", method, f.describe(), seconds), trace, text)

    # 2. prove
    states, best = _sample(game, budget.samples, 1000 + n, budget.max_steps)
    spec_invs = [inv for inv in program.invariants if wanted(inv.name)]
    # a property a game already breaks is not worth proving, and must not help prove others
    prover = Prover(program, n, values, budget.timeout, progress=lambda s: _say(progress, f"{n} players: {s}"),
                    samples=states, invariants=[inv for inv in program.invariants if inv.name not in violated],
                    budget=budget.proof)
    # only what play has not settled needs a proof (the score bounds need the invariants)
    open_claims = [inv for inv in spec_invs if inv.name not in violated] + \
        [b for b in ("well_formed", "no_deadlock", "termination") if wanted(b) and b not in violated]
    # the invariants get at most 75% of the budget, the deeper proofs half of what is left then,
    # so that well_formed, no_deadlock and the score bounds always get their turn
    with prover.stage(0.75, "the invariants"):
        verdicts = prover.invariants() if open_claims or only is None else {}
    length = max_length(program, n)
    # deeper proofs for what is not inductive; a claim the solver gave up on would only be harder
    unsettled = [name for name, v in verdicts.items() if v.status == "unknown" and "decision" in v.details]
    if unsettled:
        bound = (length.decisions + length.chance) if length.decisions is not None and length.chance is not None \
            else None
        # paths that can reach every game's end (one step past the static bound confirms that no
        # game goes on), else only as deep as k-induction's base needs: deeper, random play
        # finds violations for less
        depth = bound + 1 if bound is not None and bound + 1 <= budget.depth else min(budget.k - 1, budget.depth)
        with prover.stage(0.5, "the deeper proofs"):
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
                    violated[name] = explore.Finding(explore.INVARIANT, name, str(inv.sentence), str(inv.span),
                                                     history)
                    bounded_seconds[name] = v.seconds
                    continue
            verdicts[name] = v
    for inv in spec_invs:
        where = str(inv.span)
        if inv.name in violated:
            violation(inv.name, violated[inv.name], inv.sentence, where)
        else:
            add(inv.name, inv.sentence, where, verdicts.get(inv.name, Verdict("unknown", "", "not checked")))
    wf = None
    if (wanted("well_formed") and "well_formed" not in violated) or wanted("termination"):
        wf = prover.obligations()
    if wanted("well_formed"):
        if "well_formed" in violated:
            violation("well_formed", violated["well_formed"], BUILTINS["well_formed"], "")
        else:
            add("well_formed", BUILTINS["well_formed"], "", wf)
    if wanted("no_deadlock"):
        if "no_deadlock" in violated:
            violation("no_deadlock", violated["no_deadlock"], BUILTINS["no_deadlock"], "")
        else:
            add("no_deadlock", BUILTINS["no_deadlock"], "", prover.deadlocks())

    # 3. termination
    lengths = {"decisions": length.decisions, "chance": length.chance}
    if wanted("termination"):
        t = time.perf_counter()
        if length.decisions is not None and length.chance is not None:
            # loops that count only if their run-time checks hold: measures, decision-free `while`s
            checked_loops = any(isinstance(x, N.While) for x in walk(program.spec))
            if not checked_loops or (wf is not None and wf.status == "proved"):
                add("termination", BUILTINS["termination"], "", Verdict(
                    "proved", "bounded", f"at most {length.decisions} decisions and {length.chance} chance draws "
                    "(every loop around a decision point is a `for` over a finite collection or has a proved "
                    "measure)", time.perf_counter() - t))
            else:
                add("termination", BUILTINS["termination"], "", Verdict(
                    "unknown", "bounded", "the loops' run-time checks (measures, `while` bounds) are not proved: "
                    + (wf.reason if wf else ""), time.perf_counter() - t))
        else:
            _say(progress, f"{n} players: looking for an endless game")
            lasso = explore.find_lasso(game, seed=n, max_steps=budget.max_steps).lasso
            loops = ", ".join(f"line {w.span.line}" for w in length.unbounded)
            if lasso is not None:
                trace = explore.trace_json(game, lasso.history, cycle_start=lasso.cycle_start, failing="termination")
                text = explore.render_trace(game, lasso.history, cycle_start=lasso.cycle_start,
                                            failing_text="the play can repeat forever: the game never ends")
                add("termination", BUILTINS["termination"], "", Verdict(
                    "violated", "lasso", f"an endless game: after {lasso.cycle_start} steps a cycle of "
                    f"{lasso.cycle_length} steps returns to the same state (policy: {lasso.policy})",
                    time.perf_counter() - t), trace, text)
            else:
                add("termination", BUILTINS["termination"], "", Verdict(
                    "unknown", "lasso search", f"the loop(s) at {loops} have no measure (`decreases`) and no "
                    "endless game was found", time.perf_counter() - t))

    # 4. score bounds, with witness games
    bounds = []
    if only is None:
        for b in prover.score_bounds():
            p = b["player"]
            lo, hi = best.get((p, "low")), best.get((p, "high"))
            bounds.append({"players": n, "player": p, "proved": [b["low"], b["high"]],
                           "witness": [lo[0] if lo else None, hi[0] if hi else None],
                           "gap": (b["high"] - hi[0]) if hi and b["high"] is not None else None,
                           "witness_games": [explore.trace_json(game, x[1]) if x else None for x in (lo, hi)]})
    _say(progress, f"{n} players: done in {time.perf_counter() - t0:.0f} s")
    return results, bounds, lengths


def verify(program: Program, given: dict, players: list[int] | None = None, budget: Budget | None = None,
           progress=None, only: set | None = None) -> Report:
    engine = Engine(program)
    budget = budget or Budget()
    counts = players or list(range(program.min_players, program.max_players + 1))
    report = Report(program.spec.path, dict(given), counts)
    t0 = time.perf_counter()
    for n in counts:
        results, bounds, lengths = verify_players(program, engine, n, given, budget, progress, only)
        report.results += results
        report.score_bounds += bounds
        report.lengths[n] = lengths
    report.seconds = time.perf_counter() - t0
    return report
