"""The engine side of `rulebook verify`: searching concrete play for counterexamples.

Z3 proves; this module finds. Everything it reports is a real game, a history
that `rulebook play SPEC --replay FILE` replays, so a counterexample is
something a person can read move by move.

It owns:

- `state_key`: a state's identity (game state without bookkeeping), for cycles;
- `search`: random playouts that check, at every state, each invariant,
  deadlock, the rule errors a move raises (`well_formed`) and games that do
  not end within the step budget, keeping the shortest trace per finding;
- `find_lasso`: non-termination shown as a lasso (a prefix, then a cycle back
  to a state already seen), by deterministic policies, and `lasso_repeats`,
  its check by replay;
- `trace_json` / `render_trace`: a history as a replay file and as the
  readable log of `rulebook play --replay`, with the cycle and the failing
  property marked.

It knows no game, prints nothing (progress is a callback) and never changes
the engine: it drives the runtime's OpenSpiel-shaped API only.
"""
from __future__ import annotations

import hashlib
import json
import random
import time
from dataclasses import dataclass, field
from typing import Callable

from ..engine import play
from ..engine.lib import RuleError, show_player
from ..engine.runtime import CHANCE, SIMULTANEOUS, Game, GameState

INVARIANT, DEADLOCK, RULE_ERROR, NO_END = "invariant", "deadlock", "rule_error", "no_end"

# ------------------------------------------------------------------ state identity

# The generated `State` class declares its fields in `__slots__`. Game state is
# the player count, the control location and whose decision it is, plus every
# prefixed field: options, vars, flow locals, loop snapshots and positions, and
# loop measures' previous values (the next step's check depends on them).
STATE_SCALARS = frozenset({"n", "pc", "cur"})
STATE_PREFIXES = ("O_", "V_", "L_", "I_", "J_", "M_")
BOOKKEEPING = frozenset({"logging", "log", "memo"})  # the runtime's, never the game's

_fields_by_class: dict[type, tuple[str, ...]] = {}


def state_fields(raw) -> tuple[str, ...]:
    """The game-state fields of a generated state object, in declaration order.

    A field that is neither game state nor known bookkeeping raises: guessing
    wrong either way is silent (left out: false cycles; kept in: no cycles).
    """
    cls = type(raw)
    names = _fields_by_class.get(cls)
    if names is None:
        slots = cls.__slots__
        unknown = [f for f in slots if f not in STATE_SCALARS and f not in BOOKKEEPING
                   and not f.startswith(STATE_PREFIXES)]
        if unknown:
            raise NotImplementedError(f"state_key does not know the state fields {unknown}")
        names = _fields_by_class[cls] = tuple(f for f in slots if f not in BOOKKEEPING)
    return names


_ATOMS = frozenset((bool, int, str, type(None)))  # sets are bitmasks: ints
_SEQUENCES = frozenset((list, tuple))  # stored lists and built-ins' tuples are one value


def _freeze(value):
    # exact types first (the searches freeze every state they meet: with generator expressions
    # this was half of the largest seed game's beam search), any subclass the slow way
    t = type(value)
    if t in _ATOMS:
        return value
    if t in _SEQUENCES:
        return tuple([v if type(v) in _ATOMS else _freeze(v) for v in value])
    if isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, (list, tuple)):
        return tuple([_freeze(v) for v in value])
    raise NotImplementedError(f"state_key cannot freeze a {type(value).__name__}")


def state_key(state: GameState) -> tuple:
    """The state's identity: equal keys mean the same game from here on."""
    raw = state.s
    return tuple([_freeze(getattr(raw, f)) for f in state_fields(raw)])


def _digest(key: tuple) -> bytes:
    # stable across processes (str hashing is salted), and small to remember
    return hashlib.blake2b(repr(key).encode(), digest_size=16).digest()


# ------------------------------------------------------------------ one step

# A step is what a history holds: an action id, or a list of them (a reveal).
# A policy picks one of `options` for `who` (a player or CHANCE); `weights` are
# chance probabilities.
Pick = Callable[[int, list, "list[float] | None"], int]


@dataclass(frozen=True)
class Stuck:
    """No step can be taken at a non-terminal state: a deadlock or a rule error."""
    kind: str
    message: str
    where: str


def choose_step(state: GameState, pick: Pick):
    """The policy's next step, or `Stuck` (checked before applying, unlike `random_step`)."""
    where = state.m.DECISIONS[state.s.pc][4]
    try:
        who = state.current_player()
        if who == CHANCE:
            outcomes = state.chance_outcomes()
            return pick(CHANCE, [a for a, _ in outcomes], [p for _, p in outcomes])
        players = range(state.num_players()) if who == SIMULTANEOUS else [who]
        joint = []
        for p in players:
            legal = state.legal_actions(p)
            if not legal:
                at = " at a simultaneous decision" if who == SIMULTANEOUS else ""
                return Stuck(DEADLOCK, f"{show_player(p)} has no legal move{at}", where)
            joint.append(pick(p, legal, None))
    except RuleError as exc:  # a requirement or a chance source failed to evaluate
        return Stuck(RULE_ERROR, exc.plain, exc.where or where)
    return joint if who == SIMULTANEOUS else joint[0]


def apply_step(state: GameState, step) -> None:
    state.apply_actions(step) if isinstance(step, list) else state.apply_action(step)


def replay_history(game: Game, history: list) -> GameState:
    state = game.new_initial_state()
    for step in history:
        apply_step(state, step)
    return state


def step_text(state: GameState, step) -> str:
    """A step as the play log words it, e.g. `P1: place 4`."""
    if isinstance(step, list):
        return "reveal: " + "; ".join(f"{show_player(p)} {state.action_to_string(p, a)}"
                                      for p, a in enumerate(step))
    who = state.current_player()
    if who == CHANCE:
        return f"chance: {state.action_to_string(CHANCE, step)}"
    return f"{show_player(who)}: {state.action_to_string(who, step)}"


# ------------------------------------------------------------------ random search

@dataclass
class Finding:
    """One kind of failure with the shortest history found that reaches it.

    `history` replays without error to the state where the failure shows; for
    a rule error, `failing_step` is the step that then raises it.
    """
    kind: str      # INVARIANT, DEADLOCK, RULE_ERROR or NO_END
    name: str      # the invariant's name, else the kind
    message: str
    where: str     # the spec location ("" if the engine gave none)
    history: list
    failing_step: object = None
    failing_text: str = ""
    found_by: str = ""              # which search found it (the falsifier says which strategy)
    seconds: float | None = None    # how long the search had run when it found it

    def describe(self) -> str:
        head = {INVARIANT: f"invariant {self.name} fails: {self.message}",
                DEADLOCK: f"deadlock: {self.message}",
                RULE_ERROR: f"rule error: {self.message}",
                NO_END: self.message}[self.kind]
        if self.failing_text:
            head = f"{self.failing_text} → {head}"
        return f"{self.where}: {head}" if self.where else head


@dataclass
class Findings:
    findings: list[Finding] = field(default_factory=list)
    games: int = 0
    steps: int = 0
    longest: int = 0
    seconds: float = 0.0
    out_of_time: bool = False   # the deadline stopped the search before `games`

    def of_kind(self, kind: str) -> list[Finding]:
        return [f for f in self.findings if f.kind == kind]


def _random_pick(rng: random.Random) -> Pick:
    def pick(who, options, weights):
        if weights is not None and len(set(weights)) > 1:
            return rng.choices(options, weights)[0]
        return options[rng.randrange(len(options))]
    return pick


def _edge_pick(rng: random.Random, end: int, bias: float = 0.9) -> Pick:
    """Mostly the first (end=0) or last (end=-1) legal action, sometimes a random one: play that
    keeps pressing at one edge of the action space (the lowest target, the smallest card) —
    where uniform play rarely goes and corner cases (a full bin, an empty offer) live. Chance
    keeps its probabilities."""
    fair = _random_pick(rng)

    def pick(who, options, weights):
        if who == CHANCE or rng.random() > bias:
            return fair(who, options, weights)
        return options[end]
    return pick


def _error_key(exc: RuleError) -> tuple:
    # one finding per spec location: the message may carry the offending value
    return (RULE_ERROR, exc.where or exc.plain)


def _playout(game: Game, pick: Pick, max_steps: int) -> tuple[list[tuple[tuple, Finding]], int]:
    """One game: its findings (keyed by identity, at most one per key) and its length."""
    found: dict[tuple, Finding] = {}

    def note(key, finding):
        found.setdefault(key, finding)

    try:
        state = game.new_initial_state()
    except RuleError as exc:  # before any move: the flow's start breaks
        return [(_error_key(exc), Finding(RULE_ERROR, RULE_ERROR, exc.plain, exc.where, []))], 0
    while True:
        try:
            broken = state.check_invariants()
        except RuleError as exc:  # an invariant that cannot be evaluated here (a partial operation)
            note(_error_key(exc), Finding(RULE_ERROR, RULE_ERROR, exc.plain, exc.where, list(state.history)))
            break
        for name, sentence, where in broken:
            note((INVARIANT, name), Finding(INVARIANT, name, sentence, where, list(state.history)))
        if state.is_terminal():
            try:
                state.final_outcome()
            except RuleError as exc:  # the final scoring breaks a declared type
                note(_error_key(exc), Finding(RULE_ERROR, RULE_ERROR, exc.plain, exc.where, list(state.history)))
            break
        if len(state.history) >= max_steps:
            note((NO_END,), Finding(NO_END, NO_END, f"the game did not end within {max_steps} steps",
                                     "", list(state.history)))
            break
        step = choose_step(state, pick)
        if isinstance(step, Stuck):  # deadlocks are told apart by the decision point
            note((step.kind, step.where), Finding(step.kind, step.kind, step.message, step.where,
                                                  list(state.history)))
            break
        prefix = list(state.history)  # a failing step may or may not have reached the history
        try:
            apply_step(state, step)
        except RuleError as exc:  # the step broke a declared type or a partial operation
            text = step_text(replay_history(game, prefix), step)  # rebuilt: cloning every step costs more
            note(_error_key(exc), Finding(RULE_ERROR, RULE_ERROR, exc.plain, exc.where, prefix, step, text))
            break
    return list(found.items()), len(state.history)


def search(game: Game, *, games: int, max_steps: int, seed: int,
           progress: Callable[[int, int], None] | None = None, deadline: float | None = None,
           until_found: frozenset = frozenset()) -> Findings:
    """Random playouts (chance by its probabilities), checking every state reached. One game in
    four leans on an edge of the action space (`_edge_pick`).

    `deadline` is a `time.monotonic()` value; playouts stop once it has passed. Given property
    names `until_found`, they also stop once each of them has a finding (a search for one state,
    not for the shortest game to it).
    Findings are in the order first found; each keeps the shortest history.
    """
    rng = random.Random(seed)
    # most games uniform; every fourth presses at an edge of the action space (first, then last)
    uniform = _random_pick(rng)
    picks = [uniform] * 3 + [_edge_pick(rng, 0)] + [uniform] * 3 + [_edge_pick(rng, -1)]
    pick = picks[0]
    result = Findings()
    best: dict[tuple, Finding] = {}
    start = time.monotonic()
    for i in range(games):
        if deadline is not None and time.monotonic() > deadline:
            result.out_of_time = True
            break
        pick = picks[i % len(picks)] if games >= 4 else picks[0]
        found, length = _playout(game, pick, max_steps)
        for key, finding in found:
            if key not in best or len(finding.history) < len(best[key].history):
                best[key] = finding
        result.games += 1
        result.steps += length
        result.longest = max(result.longest, length)
        if progress is not None:
            progress(i + 1, games)
        if until_found and until_found <= {f.name for f in best.values()}:
            break
    result.findings = list(best.values())
    result.seconds = time.monotonic() - start
    return result


# ------------------------------------------------------------------ lassos

# Any policy that is a deterministic function of the state, on a finite state
# space, either ends the game or comes back to a state it has seen: the steps
# in between can then be taken again and again, an infinite play. Chance may
# fall any way in an infinite play, so chance is chosen like a move.

@dataclass
class Lasso:
    """`history[:cycle_start]` leads to a state that `history[cycle_start:]` returns to."""
    policy: str
    history: list
    cycle_start: int

    @property
    def cycle_length(self) -> int:
        return len(self.history) - self.cycle_start


@dataclass
class PolicyRun:
    policy: str
    outcome: str   # "lasso", "ended", "step budget", "out of time", "deadlock" or "rule error"
    steps: int
    detail: str = ""   # for a deadlock or a rule error: where and what


@dataclass
class LassoSearch:
    lasso: Lasso | None
    runs: list[PolicyRun]   # how each policy tried went, in order
    seconds: float


def _hashed_index(digest: bytes, salt: bytes, who: int, size: int) -> int:
    h = hashlib.blake2b(digest + salt + who.to_bytes(2, "little", signed=True), digest_size=8).digest()
    return int.from_bytes(h, "little") % size


def lasso_policies(seed: int, hashed: int) -> list[tuple[str, Callable[[bytes], Pick]]]:
    """Named policies; each maps the state's digest to a pick (so it depends on the state alone)."""
    policies = [("first legal action", lambda d: lambda who, options, w: options[0]),
                ("last legal action", lambda d: lambda who, options, w: options[-1])]
    for k in range(hashed):
        salt = f"{seed}:{k}".encode()
        policies.append((f"hash-seeded random {seed}:{k}",
                         lambda d, salt=salt: lambda who, options, w: options[_hashed_index(d, salt, who,
                                                                                              len(options))]))
    return policies


def _run_policy(game: Game, name: str, policy: Callable[[bytes], Pick], max_steps: int,
                deadline: float | None) -> tuple[PolicyRun, Lasso | None]:
    try:
        state = game.new_initial_state()
    except RuleError as exc:
        return PolicyRun(name, "rule error", 0, str(exc)), None
    seen: dict[bytes, int] = {}  # digests, not keys: a long run would hold every state otherwise
    while True:
        steps = len(state.history)
        if state.is_terminal():
            return PolicyRun(name, "ended", steps), None
        digest = _digest(state_key(state))
        if digest in seen:
            lasso = Lasso(name, list(state.history), seen[digest])
            if lasso_repeats(game, lasso.history, lasso.cycle_start):  # a digest collision would not
                return PolicyRun(name, "lasso", steps), lasso
        if steps >= max_steps:
            return PolicyRun(name, "step budget", steps), None
        if deadline is not None and time.monotonic() > deadline:
            return PolicyRun(name, "out of time", steps), None
        seen[digest] = steps
        step = choose_step(state, policy(digest))
        if isinstance(step, Stuck):
            return PolicyRun(name, step.kind.replace("_", " "), steps, f"{step.where}: {step.message}"), None
        try:
            apply_step(state, step)
        except RuleError as exc:  # a well_formed failure: `search` reports these with a trace
            return PolicyRun(name, "rule error", steps, str(exc)), None


def find_lasso(game: Game, *, seed: int, max_steps: int, deadline: float | None = None, hashed: int = 4,
               progress: Callable[[int, int], None] | None = None) -> LassoSearch:
    """Try each policy from the initial state; the first lasso found (verified by replay) is returned.

    Policies: first legal action, last legal action, then `hashed` hash-seeded
    random ones (salted with `seed`). Each runs at most `max_steps` steps;
    `deadline` is a `time.monotonic()` value. `progress(done, total)` counts policies.
    """
    start = time.monotonic()
    policies = lasso_policies(seed, hashed)
    runs = []
    for i, (name, policy) in enumerate(policies):
        run, lasso = _run_policy(game, name, policy, max_steps, deadline)
        runs.append(run)
        if progress is not None:
            progress(i + 1, len(policies))
        if lasso is not None:
            return LassoSearch(lasso, runs, time.monotonic() - start)
        if run.outcome == "out of time":
            break
    return LassoSearch(None, runs, time.monotonic() - start)


def lasso_repeats(game: Game, history: list, cycle_start: int) -> bool:
    """Replay: the state after the prefix equals the state after the whole history."""
    if not 0 <= cycle_start < len(history):
        return False
    state = replay_history(game, history[:cycle_start])
    at_start = state_key(state)
    for step in history[cycle_start:]:
        apply_step(state, step)
    return state_key(state) == at_start


# ------------------------------------------------------------------ traces

REPEAT_MARK = "── the play repeats from here ──"
BACK_MARK = "── back at the state marked above: the play can go round forever ──"


def trace_json(game: Game, history: list, *, cycle_start: int | None = None,
               failing: Finding | str | None = None) -> dict:
    """A replay file (`rulebook play SPEC --replay FILE`); replay ignores the extra keys."""
    out = {"game": game.module.GAME_NAME, "players": game.num_players, "options": game.option_strings(),
           "history": history}
    if cycle_start is not None:
        out["cycle_start"] = cycle_start
    if isinstance(failing, str):
        out["property"] = failing
    elif failing is not None:
        out.update({"property": failing.name, "kind": failing.kind, "message": failing.message,
                    "where": failing.where})
        if failing.failing_step is not None:  # not in the history: replaying it raises the error
            out["failing_step"] = failing.failing_step
    return out


def render_trace(game: Game, history: list, *, cycle_start: int | None = None,
                 failing_text: str | None = None) -> str:
    """The game as `rulebook play --replay` shows it, with the cycle and the failure marked."""
    if not history:
        try:
            game.new_initial_state()
        except RuleError as exc:  # the flow breaks a rule before the first decision: no game to show
            return f"The game breaks a rule before its first decision: {exc}"
    report = play.replay(game, json.dumps(trace_json(game, history)), "<trace>")
    if cycle_start is not None:
        log = report["log"]
        steps = [i for i, entry in enumerate(log) if "step" in entry]
        at = steps[cycle_start] if cycle_start < len(steps) else len(log)
        log.insert(at, {"say": REPEAT_MARK})
        log.append({"say": BACK_MARK})
    text = play.format_game(report)
    unended = f"The game did not end within {report['length']} decisions."
    if not report["ended"] and text.endswith(unended):  # true, but a trace stops by choice: say so
        text = text[:-len(unended)] + f"The trace stops here, after {report['length']} steps."
    return f"{text}\n\n{failing_text}" if failing_text else text
