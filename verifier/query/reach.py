"""Can a state satisfying EXPR ever be reached? (`rulebook query --can`)

The question is a property `verify` already knows how to settle: EXPR is appended to the spec
as the invariant `not (EXPR)` (`expr.py`), and a game that breaks that invariant is a game that
reaches EXPR. This module is the one adapter between queries and `verify`'s engines (the
directed search of `verify/falsify.py` and the prover of `smt/prove.py`); it calls only their
public entry points, so it can be re-pointed when they change. Per player count, within a
budget of seconds:

1. **exhaustive search** (`Falsifier.exhaustive`): breadth-first over distinct states. If it
   reaches EXPR, the answer is `yes` with a shortest game; if it checks every reachable state
   without reaching it, `never` (method `exhaustive`: the complete state space is the proof);
2. **random play** (`explore.search`, as `verify` starts): a game that reaches EXPR is `yes`;
3. **a quick proof** (`Prover.invariants` on `not (EXPR)` alone, over the transition relation's
   own frame facts): if it is inductive, `never`, with the proof's description;
4. **directed search** (`falsify`, beam search and the swarm, steered by the slack of
   `not (EXPR)`): a game that reaches EXPR is `yes`;
5. **the prover again**, with the spec's invariants and the frame facts guessed from sampled
   play (what may make it inductive); `never` if it is proved;
6. otherwise `unknown`, with what each step could not settle.

A `yes` comes with a witness: the game as a replay file (`rulebook play SPEC --replay FILE`
replays it; a test does), made as short as the budget allows — cut at the first state where
EXPR holds, then steps (and runs of steps) deleted greedily while the rest stays legal and still
reaches EXPR.
"""
from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

from ..engine.lib import RuleError
from ..engine.play import random_step
from ..engine.runtime import Engine, Game
from .expr import Query

# shares of the budget: the exhaustive search, random play and the quick proof each get theirs;
# the directed search runs until SEARCH_SHARE of the budget is used, the last proof gets the rest
EXHAUSTIVE_SHARE = 0.1
RANDOM_SHARE = 0.25      # a state 1 random game in 60 reaches (one seed spec's): 400 games in 5 s
QUICK_PROOF_SHARE = 0.2
SEARCH_SHARE = 0.8
EXHAUSTIVE_STATES = 20_000
SHORTEN_SHARE = 0.1     # of the budget for shortening a witness
SAMPLE_GAMES = 20       # random games whose decision-point states propose the prover's frame facts
MAX_STEPS = 5000


@dataclass
class Answer:
    """The verdict for one player count: `yes`, `never` or `unknown`."""

    expr: str
    players: int
    options: dict
    verdict: str
    method: str = ""
    reason: str = ""
    seconds: float = 0.0
    witness: dict | None = None  # a replay file
    steps: list = field(default_factory=list)  # the witness's steps, as `play` prints them
    found_by: str = ""

    def as_json(self) -> dict:
        out = {"expr": self.expr, "players": self.players, "options": self.options, "verdict": self.verdict,
               "method": self.method, "reason": self.reason, "seconds": round(self.seconds, 3)}
        if self.witness is not None:
            out["witness"] = self.witness
            out["steps"] = self.steps
        return out


def reaches(query: Query, state) -> bool:
    """Does `state` (a GameState of the query's engine) satisfy EXPR?"""
    try:
        return query.name in [name for name, _, _ in state.check_invariants()]
    except RuleError:
        return False


def _replay(game: Game, history: list):
    """The state after `history`, or None if some step is not legal (or breaks a rule)."""
    from ..verify.explore import apply_step
    state = game.new_initial_state()
    try:
        for step in history:
            if state.is_terminal():
                return None
            apply_step(state, step)
    except (ValueError, RuleError):
        return None
    return state


def first_hit(query: Query, game: Game, history: list) -> list | None:
    """`history` cut at the first state where EXPR holds (None if it never does, or a step is illegal)."""
    from ..verify.explore import apply_step
    state = game.new_initial_state()
    if reaches(query, state):
        return []
    try:
        for i, step in enumerate(history):
            apply_step(state, step)
            if reaches(query, state):
                return history[:i + 1]
    except (ValueError, RuleError):
        return None
    return None


def shorten(query: Query, game: Game, history: list, deadline: float) -> list | None:
    """Delete steps and runs of steps (longest runs first, from the end) while the game stays legal
    and still reaches EXPR: a greedy delta-debugging pass, stopped at `deadline`. None if the
    replay of `history` itself does not reach EXPR."""
    best = first_hit(query, game, history)
    if best is None:
        return None
    width = 8
    while width >= 1 and time.monotonic() < deadline:
        i = len(best) - width
        changed = False
        while i >= 0 and time.monotonic() < deadline:
            trial = first_hit(query, game, best[:i] + best[i + width:])
            if trial is not None and len(trial) < len(best):
                best, changed = trial, True
                i = min(i, len(best) - width)
            else:
                i -= 1
        if not changed:
            width //= 2
    return best


def _samples(game: Game, games: int, seed: int) -> list:
    """Raw states at decision points of random games: the prover's frame facts are proposed from them."""
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        st = game.new_initial_state()
        try:
            while not st.is_terminal() and len(st.history) < MAX_STEPS:
                out.append(st.m.clone(st.s))
                random_step(st, rng)
        except RuleError:
            continue
        out.append(st.m.clone(st.s))
    return out


def can(query: Query, players: int, options: dict | None = None, budget: float = 30.0, seed: int = 0,
        progress=None, prove: bool = True, timeout: float = 10.0) -> Answer:
    """Is a state satisfying the query's EXPR reachable with `players` players? (see the module's doc)"""
    from ..verify.explore import apply_step, trace_json
    from .position import step_text
    from ..verify import explore
    from ..verify.falsify import Falsifier, falsify
    say = progress or (lambda text: None)
    t0 = time.monotonic()
    engine = Engine(query.program)
    game = Game(engine, players, options or {})
    answer = Answer(query.text, players, game.option_strings(), "unknown")
    reasons = []

    def done(answer: Answer) -> Answer:
        answer.seconds = time.monotonic() - t0
        return answer

    # 1. exhaustive search
    say(f"{players} players: exhaustive search")
    search = Falsifier(game, query.program, [query.name], seed=seed, deadline=t0 + budget, max_steps=MAX_STEPS)
    complete = search.exhaustive(EXHAUSTIVE_STATES, t0 + EXHAUSTIVE_SHARE * budget)
    finding = search.found.get(query.name)
    if finding is None and complete:
        answer.verdict, answer.method = "never", "exhaustive"
        answer.reason = "every reachable state was visited (breadth-first search) and none satisfies it"
        return done(answer)
    if finding is None:
        reasons.append(f"the exhaustive search stopped before the end of the game (at most {EXHAUSTIVE_STATES} "
                       "states)")
        # 2. random play, as verify starts: what is common is found here for little
        until = time.monotonic() + RANDOM_SHARE * budget
        say(f"{players} players: random play ({RANDOM_SHARE * budget:.0f} s)")
        played = explore.search(game, games=10**9, max_steps=MAX_STEPS, seed=seed, deadline=until,
                                until_found=frozenset({query.name}))
        finding = next((f for f in played.findings if f.name == query.name), None)
        if finding is None:
            reasons.append(f"{played.games} random games did not reach it")
        else:
            finding.found_by = "random play"
    if finding is None:
        # 3. a quick proof: `not (EXPR)` alone, over the relation's own frame facts
        if prove:
            seconds = min(QUICK_PROOF_SHARE * budget, t0 + budget - time.monotonic())
            say(f"{players} players: proving it unreachable, alone ({seconds:.0f} s)")
            verdict = prove_never(query, game, seconds, timeout, seed, alone=True)
            if verdict.status == "proved":
                return done(_never(answer, query, verdict))
            reasons.append(f"alone, 'not ({query.text})' is not proved: {verdict.reason or verdict.status}")
        # 4. directed search
        seconds = max(0.0, t0 + SEARCH_SHARE * budget - time.monotonic())
        if seconds > 0:
            say(f"{players} players: directed search ({seconds:.0f} s)")
            found = falsify(game, query.program, [query.name], seconds=seconds, seed=seed,
                            strategies=("beam", "swarm"), max_steps=MAX_STEPS)
            finding = next((f for f in found if f.name == query.name), None)
            if finding is None:
                reasons.append(f"directed search (beam and swarm, {seconds:.0f} s) did not reach it")
    history = None
    if finding is not None:
        say(f"{players} players: shortening a witness of {len(finding.history)} steps")
        history = shorten(query, game, list(finding.history), time.monotonic() + max(1.0, SHORTEN_SHARE * budget))
        if history is None:  # cannot happen if the engine is deterministic; never claimed unconfirmed
            reasons.append("a search found a game that its replay does not confirm (please report it)")
    if history is not None:
        state = game.new_initial_state()
        steps = []
        for step in history:
            steps.append(step_text(state, step))
            apply_step(state, step)
        witness = trace_json(game, history)
        witness["query"] = query.text
        how = getattr(finding, "found_by", "")
        answer.verdict = "yes"
        answer.method = "exhaustive" if how.startswith("exhaustive") else "random" if how == "random play" \
            else "directed"
        answer.found_by = getattr(finding, "found_by", "")
        answer.reason = f"a game of {len(history)} steps reaches it" + (
            f" (found by {answer.found_by}, {len(finding.history)} steps before shortening)"
            if answer.found_by else "")
        answer.witness, answer.steps = witness, steps
        return done(answer)
    # 5. the prover again, with the spec's invariants and guesses from sampled play
    left = t0 + budget - time.monotonic()
    if not prove:
        answer.reason = "; ".join(reasons + ["no proof attempted"])
        return done(answer)
    if left <= 1.0:
        answer.reason = "; ".join(reasons + ["no time was left for a proof with the spec's invariants (--budget)"])
        return done(answer)
    say(f"{players} players: proving it unreachable with the spec's invariants ({left:.0f} s)")
    verdict = prove_never(query, game, left, timeout, seed, alone=False)
    if verdict.status == "proved":
        return done(_never(answer, query, verdict))
    answer.reason = "; ".join(reasons + [f"with the spec's invariants, the prover did not settle it: "
                                         f"{verdict.reason or verdict.status}"])
    return done(answer)


def _never(answer: Answer, query: Query, verdict) -> Answer:
    answer.verdict, answer.method = "never", verdict.method or "inductive"
    answer.reason = f"'not ({query.text})' is proved for every reachable state: {verdict.reason}"
    return answer


def prove_never(query: Query, game: Game, seconds: float, timeout: float, seed: int, alone: bool):
    """The prover's verdict on `not (EXPR)` within `seconds`: `alone` over the relation's frame
    facts only (seconds on the seed games), else with the spec's invariants and the frame facts
    guessed from sampled play (what may make it inductive, at a higher price: on one seed spec
    the guesses took 80 s where the claim alone was proved in 3 s)."""
    from ..smt.prove import Prover, Verdict
    program = query.program
    mine = [inv for inv in program.invariants if inv.name == query.name]
    invariants = mine if alone else mine + [inv for inv in program.invariants if inv.name != query.name]
    samples = [] if alone else _samples(game, SAMPLE_GAMES, seed)
    if seconds <= 1.0:
        return Verdict("unknown", "", "no time left (--budget)")
    try:
        prover = Prover(program, game.num_players, dict(game.option_values), min(timeout, seconds), samples=samples,
                        invariants=invariants, budget=seconds)
        return prover.invariants().get(query.name, Verdict("unknown", "", "no verdict"))
    except Exception as exc:  # the encoding's limits: unknown, with the reason, never a crash
        return Verdict("unknown", "", f"{type(exc).__name__}: {exc}")


__all__ = ["Answer", "can", "reaches", "shorten", "prove_never"]
