"""OpenSpiel adapter: a compiled rulebook spec as a `pyspiel.Game`.

    from verifier.openspiel import load
    game = load("spec/examples/goofspiel.rules", players=3)
    state = game.new_initial_state()          # a pyspiel.State

`load` compiles the spec (once per spec text), wraps the runtime `Game` in a
`pyspiel.Game` subclass and registers it with pyspiel under a short name of
the form ``rulebook_<game>_<n>p_<hash>``, so that everything OpenSpiel does by
name works: `pyspiel.load_game(short_name)`, `serialize_game_and_state`,
`random_sim_test(serialize=True)`, pickling games and states.  The hash covers
the spec's text, the player count, the option values and `max_game_length`,
so a changed spec gets a new name; loading the same combination again reuses
the registered name (pyspiel cannot unregister games).

How the OpenSpiel game description is filled in:

* dynamics: SIMULTANEOUS if the flow has any `simultaneous` decision, else
  SEQUENTIAL; chance mode EXPLICIT_STOCHASTIC if the spec has chance draws.
* information: IMPERFECT_INFORMATION if any state variable is not `public`,
  or the game has simultaneous moves or chance draws (conservative), else
  PERFECT_INFORMATION.  Utility: GENERAL_SUM (we do not prove zero-sum).
* min/max utility: the integer range the type checker infers for the
  `returns` expression (or for `score` when there is no `returns` clause);
  when it infers none, the range seen in random play widened fourfold around
  zero.  Either way it is widened to cover every return seen in random play.
* max_game_length: the `max_game_length=` argument if given; otherwise the
  bound read off the flow's loops (`verifier/verify/length.py`: a `for` runs
  at most its collection's capacity, a `while` with a measure at most
  hi(measure)+1 times; the engine checks measures as it runs, so no game it
  completes is longer), decisions plus chance draws; when a `while` has no
  measure, an *estimate*: 4x the longest of 50 seeded random games (not a
  proof: such a game may have no bound at all).

Observations are strings only (no tensors): the observation string is the
runtime's `observation_string(player)` (public state plus the player's own
private state) and the information-state string is the runtime's
`information_state_string(player)`.

Serialisation: pyspiel serialises a Python state by pickling its `__dict__`
and clones it by deep-copying it.  The only attribute our state keeps is a
`_Box` holding the runtime `GameState`; it deep-copies with the runtime's fast
`clone()` and pickles as the runtime's JSON (the history, replayed and
validated on load), so the generated engine module itself is never pickled.
"""
from __future__ import annotations

import hashlib
import json
import random
import warnings
from dataclasses import dataclass
from pathlib import Path

import pyspiel

from .diagnostics import SpecError, Sources, Span, render
from .engine.lib import RuleError
from .engine.play import random_step
from .engine.runtime import Engine, Game as RuntimeGame, GameState
from .frontend import load_program
from .ir.types import BoolT, IntT
from .verify.length import max_length

ESTIMATE_GAMES = 50           # random games played to estimate max_game_length (4x the longest)
ESTIMATE_FACTOR = 4           # ... and the safety factor applied to the longest
ESTIMATE_SEED = 20240611      # fixed, so the same spec always gets the same GameInfo
ESTIMATE_MAX_STEPS = 100_000  # a random game longer than this is reported as not ending

_ENGINES: dict[str, Engine] = {}        # sha256 of the spec text -> compiled engine
_REGISTERED: dict[str, "_Entry"] = {}   # short name -> what its factory builds


@dataclass
class _Entry:
    short_name: str
    runtime_game: RuntimeGame
    game_type: pyspiel.GameType
    game_info: pyspiel.GameInfo
    load_args: tuple  # (absolute spec path, players, options, max_game_length): to rebuild elsewhere
    estimate: dict    # what random play observed (for documentation and tests)


# ---------------------------------------------------------------- loading

def _render(exc: SpecError, sources: Sources | None = None) -> str:
    lines = []
    for d in exc.diagnostics:
        if d.span == Span.unknown(d.span.path):  # no real position (options, players): no fake 1:1
            lines.append(f"{d.span.path}: {d.severity.value}: {d.message}")
            lines.extend(f"    note: {note}" for note in d.notes)
        else:
            lines.append(render(d, sources))
    return "\n".join(lines) or str(exc)


def _engine_for(spec_path: str) -> tuple[Engine, str]:
    try:
        text = Path(spec_path).read_bytes()
    except OSError as exc:
        raise ValueError(f"cannot read {spec_path}: {exc.strerror or exc}") from None
    digest = hashlib.sha256(text).hexdigest()
    engine = _ENGINES.get(digest)
    if engine is None:
        sources = Sources()
        try:
            program, _ = load_program(str(spec_path), sources)
        except SpecError as exc:
            raise ValueError(_render(exc, sources)) from None
        engine = _ENGINES[digest] = Engine(program)
    return engine, digest


def _static_utility_bounds(engine: Engine) -> tuple[float, float] | None:
    """The range the type checker infers for the returns (or score) expression."""
    program = engine.program
    outcome = program.outcome
    if outcome is None:
        return None
    expr = outcome.returns.expr if outcome.returns is not None else outcome.score.expr
    try:
        t = program.type_of(expr)
    except Exception:  # noqa: BLE001 - no inferred type: fall back to the estimate
        return None
    if isinstance(t, IntT):
        return float(t.lo), float(t.hi)
    if isinstance(t, BoolT):
        return 0.0, 1.0
    return None


def _estimate(rgame: RuntimeGame) -> dict:
    """Play seeded random games; the longest length and the range of returns."""
    rng = random.Random(ESTIMATE_SEED)
    longest, lo, hi = 0, None, None
    for _ in range(ESTIMATE_GAMES):
        state = rgame.new_initial_state()
        steps = 0
        while not state.is_terminal():
            if steps >= ESTIMATE_MAX_STEPS:
                raise ValueError(f"{rgame.module.GAME_TITLE}: a random game did not end within "
                                 f"{ESTIMATE_MAX_STEPS} steps; pass max_game_length=N to load()")
            random_step(state, rng)
            steps += 1
        longest = max(longest, steps)
        for r in state.returns():
            lo = r if lo is None else min(lo, r)
            hi = r if hi is None else max(hi, r)
    return {"games": ESTIMATE_GAMES, "longest": longest, "min_return": lo, "max_return": hi}


def _game_type(short_name: str, rgame: RuntimeGame) -> pyspiel.GameType:
    m = rgame.module
    simultaneous = any(d[0] == "simultaneous" for d in m.DECISIONS)
    chance = m.MAX_CHANCE_OUTCOMES > 0
    hidden = any(d.visibility != "public" for d in rgame.engine.program.vars.values())
    GT = pyspiel.GameType
    n = rgame.num_players
    return GT(
        short_name=short_name,
        long_name=f"rulebook {m.GAME_TITLE} ({n} players)",
        dynamics=GT.Dynamics.SIMULTANEOUS if simultaneous else GT.Dynamics.SEQUENTIAL,
        chance_mode=GT.ChanceMode.EXPLICIT_STOCHASTIC if chance else GT.ChanceMode.DETERMINISTIC,
        information=(GT.Information.IMPERFECT_INFORMATION if hidden or simultaneous or chance
                     else GT.Information.PERFECT_INFORMATION),
        utility=GT.Utility.GENERAL_SUM,
        reward_model=GT.RewardModel.TERMINAL,
        max_num_players=n,
        min_num_players=n,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=False,
        parameter_specification={},
    )


def load(spec_path, players: int | None = None, *, max_game_length: int | None = None,
         **options) -> pyspiel.Game:
    """Compile `spec_path` and return it as a registered `pyspiel.Game`.

    `players` defaults to the spec's minimum; keyword `options` set spec
    options (NAME=VALUE, as `rulebook play --option`).  Raises ValueError with
    the rendered diagnostics for a bad spec, player count or option.
    """
    spec_path = str(spec_path)
    engine, digest = _engine_for(spec_path)
    try:
        rgame = RuntimeGame(engine, players, options, bounded=True)  # OpenSpiel needs games that end
    except SpecError as exc:
        raise ValueError(_render(exc)) from None
    if max_game_length is not None and (not isinstance(max_game_length, int) or max_game_length < 1):
        raise ValueError(f"max_game_length must be a positive whole number, not {max_game_length!r}")
    n = rgame.num_players
    opts = rgame.option_strings()
    key = json.dumps([digest, n, sorted(opts.items()), max_game_length])
    short_name = f"rulebook_{engine.module.GAME_NAME}_{n}p_{hashlib.sha256(key.encode()).hexdigest()[:10]}"
    if short_name not in _REGISTERED:
        if short_name in pyspiel.registered_names():
            raise ValueError(f"pyspiel already has a game named {short_name!r} that this adapter did not register")
        _register(short_name, rgame, max_game_length,
                  (str(Path(spec_path).resolve()), n, opts, max_game_length))
    return pyspiel.load_game(short_name)


def _register(short_name: str, rgame: RuntimeGame, max_game_length: int | None, load_args: tuple) -> None:
    m = rgame.module
    try:
        estimate = _estimate(rgame) if max_game_length is None else None
    except RuleError as exc:
        raise ValueError(f"{m.GAME_TITLE}: random play hit a rule error: {exc}") from None
    if max_game_length is None:
        bound = max_length(rgame.engine.program, rgame.num_players)
        if bound.decisions is not None and bound.chance is not None:
            # the flow's loops bound every game the engine can run (it checks loop measures as
            # it goes); the longest random game can only confirm it
            max_game_length = max(1, bound.decisions + bound.chance, estimate["longest"])
            estimate["bound"] = "loops"
        else:
            max_game_length = max(1, ESTIMATE_FACTOR * estimate["longest"])
            estimate["bound"] = "estimate"
        utility = _utility_bounds(rgame, estimate)
    else:
        utility = _utility_bounds(rgame, None)
    info = pyspiel.GameInfo(
        num_distinct_actions=m.NUM_ACTIONS,
        max_chance_outcomes=m.MAX_CHANCE_OUTCOMES,
        num_players=rgame.num_players,
        min_utility=utility[0],
        max_utility=utility[1],
        utility_sum=None,
        max_game_length=max_game_length,
    )
    entry = _Entry(short_name, rgame, _game_type(short_name, rgame), info, load_args, estimate or {})
    # The factory pyspiel keeps is a class, as in OpenSpiel's own Python games: pyspiel's
    # registry outlives the interpreter, and dropping its last reference to a plain
    # function (a lambda) at process exit, without the GIL, aborts Python.  A class sits
    # in a reference cycle (its __mro__), so that last release never frees it.
    factory = type(f"RulebookGame_{short_name}", (RulebookGame,), {"_entry": entry})
    _REGISTERED[short_name] = entry
    pyspiel.register_game(entry.game_type, factory)


def _utility_bounds(rgame: RuntimeGame, estimate: dict | None) -> tuple[float, float]:
    static = _static_utility_bounds(rgame.engine)
    seen = None
    if estimate and estimate["min_return"] is not None:
        seen = (estimate["min_return"], estimate["max_return"])
    if static is not None:
        lo, hi = static
        if seen is not None and (seen[0] < lo or seen[1] > hi):
            warnings.warn(f"{rgame.module.GAME_TITLE}: random play returned {seen}, outside the inferred "
                          f"range {lo:g}..{hi:g}; widening the utility bounds", RuntimeWarning, stacklevel=3)
            lo, hi = min(lo, seen[0]), max(hi, seen[1])
    elif seen is not None:
        size = max(1.0, abs(seen[0]), abs(seen[1]))
        lo, hi = -ESTIMATE_FACTOR * size, ESTIMATE_FACTOR * size
    else:
        lo, hi = -1.0, 1.0
    if lo >= hi:  # OpenSpiel requires min < max
        hi = lo + 1.0
    return float(lo), float(hi)


def registered_games() -> dict[str, tuple]:
    """Short names this process registered, with the load() arguments behind each."""
    return {name: e.load_args for name, e in _REGISTERED.items()}


# ---------------------------------------------------------------- game and state

class RulebookGame(pyspiel.Game):
    """A compiled rulebook spec with fixed player count and options.

    Each registered short name gets a subclass whose `_entry` says what to build.
    """

    _entry: _Entry | None = None

    def __init__(self, params=None):
        if self._entry is None:
            raise TypeError("use verifier.openspiel.load() to make a rulebook game")
        super().__init__(self._entry.game_type, self._entry.game_info, params or {})

    def __reduce__(self):  # pickle by name and load() arguments, not by the per-name class
        return _load_registered, (self._entry.short_name, self._entry.load_args)

    @property
    def runtime_game(self) -> RuntimeGame:
        return self._entry.runtime_game

    @property
    def estimate(self) -> dict:
        """What the random-play estimate observed (empty if max_game_length was given)."""
        return dict(self._entry.estimate)

    def new_initial_state(self, *args):
        if args:
            raise ValueError("rulebook games start only from the initial state")
        return RulebookState(self, self._entry)

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        info_state = iig_obs_type is not None and iig_obs_type.perfect_recall
        public_only = iig_obs_type is not None and iig_obs_type.private_info == pyspiel.PrivateInfoType.NONE
        return _StringObserver(info_state, public_only)


class _Box:
    """Holds a runtime GameState: deep-copies by clone(), pickles as its JSON history."""

    __slots__ = ("gs", "short_name")

    def __init__(self, gs: GameState, short_name: str):
        self.gs = gs
        self.short_name = short_name

    def __deepcopy__(self, memo):
        return _Box(self.gs.clone(), self.short_name)

    def __reduce__(self):
        return _restore_box, (self.short_name, _REGISTERED[self.short_name].load_args, self.gs.to_json())


def _ensure_registered(short_name: str, load_args: tuple) -> _Entry:
    if short_name not in _REGISTERED:  # e.g. unpickled in another process
        path, players, options, max_game_length = load_args
        load(path, players, max_game_length=max_game_length, **options)
        if short_name not in _REGISTERED:
            raise ValueError(f"{path} no longer compiles to {short_name} (has the spec changed?)")
    return _REGISTERED[short_name]


def _load_registered(short_name: str, load_args: tuple) -> pyspiel.Game:
    _ensure_registered(short_name, load_args)
    return pyspiel.load_game(short_name)


def _restore_box(short_name: str, load_args: tuple, text: str) -> _Box:
    entry = _ensure_registered(short_name, load_args)
    return _Box(GameState.from_json(entry.runtime_game.engine, text), short_name)


class RulebookState(pyspiel.State):
    """A pyspiel state driving a runtime GameState."""

    def __init__(self, game: RulebookGame, entry: _Entry):
        super().__init__(game)
        self._box = _Box(entry.runtime_game.new_initial_state(), entry.short_name)

    @property
    def runtime_state(self) -> GameState:
        return self._box.gs

    def current_player(self):
        return self._box.gs.current_player()

    def _legal_actions(self, player):
        return self._box.gs.legal_actions(player)

    def chance_outcomes(self):
        # OpenSpiel wants chance nodes' legal actions in ascending order; the runtime lists
        # a sequence's outcomes in order of first appearance, so sort here.
        return sorted(self._box.gs.chance_outcomes())

    def _apply_action(self, action):
        self._box.gs.apply_action(action)

    def _apply_actions(self, actions):
        self._box.gs.apply_actions(list(actions))

    def _action_to_string(self, player, action):
        return self._box.gs.action_to_string(player, action)

    def is_terminal(self):
        return self._box.gs.is_terminal()

    def returns(self):
        return self._box.gs.returns()

    def rewards(self):
        return self._box.gs.rewards()

    def __str__(self):
        return str(self._box.gs)


class _StringObserver:
    """PyObserver with strings only: `tensor` is None, so OpenSpiel asks for no tensor."""

    def __init__(self, info_state: bool, public_only: bool):
        self.info_state = info_state
        self.public_only = public_only
        self.tensor = None
        self.dict = {}

    def set_from(self, state, player):
        pass

    def string_from(self, state, player):
        gs = state._box.gs
        if self.info_state:
            return gs.information_state_string(player)
        return gs.observation_string(-1 if self.public_only else player)
