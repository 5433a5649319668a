"""OpenSpiel adapter: a compiled rulebook spec as a `pyspiel.Game`.

    from verifier.openspiel import load, register
    game = load(SPEC, players=3, OPTION="VALUE")   # a pyspiel.Game
    register(SPEC)                                 # -> "rulebook_<game>"
    pyspiel.load_game("rulebook_<game>", {"players": 3, "OPTION": VALUE})

`register` compiles a spec (once per spec text) and registers it with pyspiel under the stable
name ``rulebook_<game>``; its parameters are `players` (default: the spec's minimum), one per
option (bool, int or the enum item's name; default: the option's `finite` value if it has one,
else its default) and `max_game_length` (0: derive it).  A second, different spec text with the
same game name gets ``rulebook_<game>_<hash>`` (pyspiel cannot unregister a name).  `load`
registers and calls `pyspiel.load_game` with the player count and options given.  Bad
parameters get OpenSpiel's own error (unknown name, wrong type) or a ValueError saying what the
spec accepts.  Everything OpenSpiel does by name then works: `serialize_game_and_state`,
`random_sim_test(serialize=True)`, pickling games and states.

How the GameType and GameInfo are filled in (`openspiel_metadata.py` finds the figures; the
manual's "OpenSpiel" section says the same for users):

* dynamics: SIMULTANEOUS if the flow has any `simultaneous` decision, else SEQUENTIAL; chance
  mode EXPLICIT_STOCHASTIC if the spec has chance draws, else DETERMINISTIC.
* the figures of the game as loaded come from a census, an exhaustive walk over its distinct
  states (at most `CENSUS_MAX_STATES`), when it finishes: `max_game_length` (decision nodes on
  the longest game), `num_distinct_actions` (1 + the highest legal action id),
  `max_chance_outcomes` (1 + the highest outcome id) and min/max utility (the returns' range).
* otherwise, sound bounds: the flow's loops bound with the options' loaded values, the action
  and outcome ids' declared ranges, the returns' inferred range; an `estimate` (4x the longest of
  50 seeded random games) only where the flow has a `while` without a measure.
* information: IMPERFECT if a decision is simultaneous, a state variable is not `public`, or a
  flow variable (which no observation shows) keeps a chance draw past the next decision point or
  is set by a move; otherwise PERFECT (public chance is perfect information).  Utility (and
  utility_sum): the spec's `utility` declaration that applies to the game as loaded (the first
  whose `when` holds for its options and player count); the registered GameType has the one
  for the default parameters.
* tensors (`openspiel_tensors.py`): the observation and information-state tensors show what the
  strings show, laid out from the variables' types; their shapes are in the game's info.

Serialisation: pyspiel serialises a Python state by pickling its `__dict__` and clones it by
deep-copying it.  The only attribute our state keeps is a `_Box` holding the runtime
`GameState`; it deep-copies with the runtime's fast `clone()` and pickles as the runtime's JSON
(the history, replayed and validated on load), so the generated engine module itself is never
pickled.
"""
from __future__ import annotations

import copy
import hashlib
import json
import random
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyspiel

from .diagnostics import SpecError, Sources, Span, render
from .engine.lib import RuleError
from .engine.play import random_step
from .engine.runtime import CHANCE, SIMULTANEOUS, TERMINAL, Engine, Game as RuntimeGame, GameState, parse_option_values
from .frontend import load_program
from .ir.types import BoolT, IntT, RatT
from .openspiel_metadata import census, static_information, static_length
from .openspiel_tensors import Encoder

ESTIMATE_GAMES = 50           # random games played to estimate max_game_length (4x the longest)
ESTIMATE_FACTOR = 4           # ... and the safety factor applied to the longest
ESTIMATE_SEED = 20240611      # fixed, so the same spec always gets the same GameInfo
ESTIMATE_MAX_STEPS = 100_000  # a random game longer than this is reported as not ending
RESERVED_PARAMETERS = ("players", "max_game_length")  # OpenSpiel parameters that are not options

_ENGINES: dict[str, Engine] = {}        # sha256 of the spec text -> compiled engine
_SPECS: dict[str, "_Spec"] = {}         # registered short name -> its spec
_NAME_OF: dict[str, str] = {}           # sha256 of the spec text -> registered short name


@dataclass
class _Spec:
    """One registered spec text: its engine and the parameters OpenSpiel knows it by."""

    short_name: str
    path: str          # absolute: to register it again in another process (unpickling)
    engine: Engine
    game_type: pyspiel.GameType
    defaults: dict     # parameter -> default value
    loaded: dict = field(default_factory=dict)  # canonical parameters (JSON) -> _Loaded


@dataclass
class _Loaded:
    """One parameter setting of a registered spec: what its pyspiel games are built from."""

    spec: _Spec
    params: dict
    runtime_game: RuntimeGame
    game_type: pyspiel.GameType
    game_info: pyspiel.GameInfo
    metadata: dict     # each figure of the GameInfo and GameType, and how it was found
    encoders: dict = field(default_factory=dict)  # (public, private, perfect recall) -> Encoder

    def encoder(self, public: bool, private: str, perfect_recall: bool) -> Encoder:
        key = (public, private, perfect_recall)
        if key not in self.encoders:
            m = self.metadata
            self.encoders[key] = Encoder(self.runtime_game.engine.program, self.runtime_game.num_players,
                                         public=public, private=private,
                                         own_moves=m["own_moves"] if perfect_recall else None,
                                         num_actions=m["num_distinct_actions"])
        return self.encoders[key]


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


def register(spec_path) -> str:
    """Compile `spec_path` and register it with pyspiel; returns its short name,
    ``rulebook_<game>`` unless a different spec text already holds that name."""
    spec_path = str(spec_path)
    engine, digest = _engine_for(spec_path)
    if digest in _NAME_OF:
        return _NAME_OF[digest]
    m = engine.module
    clash = [name for name in m.OPTION_KINDS if name in RESERVED_PARAMETERS]
    if clash:
        raise ValueError(f"{spec_path}: option {clash[0]!r} has the name of an OpenSpiel parameter of every "
                         f"rulebook game ({', '.join(RESERVED_PARAMETERS)}); rename the option")
    short_name = f"rulebook_{m.GAME_NAME}"
    if short_name in _SPECS or short_name in pyspiel.registered_names():
        short_name = f"{short_name}_{digest[:10]}"
        if short_name in pyspiel.registered_names() and short_name not in _SPECS:
            raise ValueError(f"pyspiel already has a game named {short_name!r} that this adapter did not register")
    defaults = {"players": m.MIN_PLAYERS, "max_game_length": 0}
    for name, value in {**m.OPTIONS, **m.OPTION_FINITE}.items():
        kind = m.OPTION_KINDS[name]
        defaults[name] = kind[1 + value] if kind[0] == "enum" else value
    # the default game's utility: a `utility ... when` may read the options (the finite values
    # included, as in `defaults`) and the player count
    utility = m.utility(m.MIN_PLAYERS, parse_option_values(engine, {}, bounded=True))[0]
    spec = _Spec(short_name, str(Path(spec_path).resolve()), engine,
                 _game_type(short_name, engine, m.MIN_PLAYERS, m.MAX_PLAYERS, defaults,
                            static_information(engine.program) and not _simultaneous(engine), utility), defaults)
    # The factory pyspiel keeps is a class, as in OpenSpiel's own Python games: pyspiel's
    # registry outlives the interpreter, and dropping its last reference to a plain
    # function (a lambda) at process exit, without the GIL, aborts Python.  A class sits
    # in a reference cycle (its __mro__), so that last release never frees it.
    factory = type(f"RulebookGame_{short_name}", (RulebookGame,), {"_spec": spec})
    _SPECS[short_name] = spec
    _NAME_OF[digest] = short_name
    pyspiel.register_game(spec.game_type, factory)
    return short_name


def load(spec_path, players: int | None = None, *, max_game_length: int | None = None,
         **options) -> pyspiel.Game:
    """Register `spec_path` and return one of its games as a `pyspiel.Game`.

    `players` defaults to the spec's minimum; keyword `options` set spec
    options (NAME=VALUE, as `rulebook play --option`).  Raises ValueError with
    the rendered diagnostics for a bad spec, player count or option.
    """
    short_name = register(spec_path)
    spec = _SPECS[short_name]
    params: dict = {}
    if players is not None:
        params["players"] = players
    if max_game_length is not None:
        if isinstance(max_game_length, bool) or not isinstance(max_game_length, int) or max_game_length < 1:
            raise ValueError(f"max_game_length must be a positive whole number, not {max_game_length!r}")
        params["max_game_length"] = max_game_length
    for name, raw in options.items():
        params[name] = _option_parameter(spec, name, raw)
    return pyspiel.load_game(short_name, params)


def _option_parameter(spec: _Spec, name: str, raw):
    """An option's value as the OpenSpiel parameter type (NAME=VALUE strings are accepted)."""
    kind = spec.engine.module.OPTION_KINDS.get(name)
    if kind is None:
        try:  # the runtime says what the spec's options are
            RuntimeGame(spec.engine, None, {name: raw})
        except SpecError as exc:
            raise ValueError(_render(exc)) from None
    try:
        value = _runtime_game(spec, {name: raw}).option_values[name]
    except SpecError as exc:
        raise ValueError(_render(exc)) from None
    return kind[1 + value] if kind[0] == "enum" else value


def _runtime_game(spec: _Spec, options: dict, players: int | None = None) -> RuntimeGame:
    return RuntimeGame(spec.engine, players, options, bounded=True)  # OpenSpiel needs games that end


def _simultaneous(engine: Engine) -> bool:
    return any(d[0] == "simultaneous" for d in engine.module.DECISIONS)


def _game_type(short_name: str, engine: Engine, min_players: int, max_players: int, defaults: dict,
               perfect: bool, utility: str) -> pyspiel.GameType:
    m = engine.module
    GT = pyspiel.GameType
    players = f"{min_players} players" if min_players == max_players else f"{min_players}-{max_players} players"
    return GT(
        short_name=short_name,
        long_name=f"rulebook {m.GAME_TITLE} ({players})",
        dynamics=GT.Dynamics.SIMULTANEOUS if _simultaneous(engine) else GT.Dynamics.SEQUENTIAL,
        chance_mode=GT.ChanceMode.EXPLICIT_STOCHASTIC if m.MAX_CHANCE_OUTCOMES else GT.ChanceMode.DETERMINISTIC,
        information=GT.Information.PERFECT_INFORMATION if perfect else GT.Information.IMPERFECT_INFORMATION,
        utility=getattr(GT.Utility, utility.upper()),  # the spec's `utility` declaration that applies
        reward_model=GT.RewardModel.TERMINAL,
        max_num_players=max_players,
        min_num_players=min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=defaults,
    )


def _loaded(spec: _Spec, params: dict) -> _Loaded:
    full = {**spec.defaults, **(params or {})}
    key = json.dumps(sorted(full.items()))
    if key in spec.loaded:
        return spec.loaded[key]
    options = {name: value for name, value in full.items() if name not in RESERVED_PARAMETERS}
    try:
        rgame = _runtime_game(spec, options, full["players"])
    except SpecError as exc:
        raise ValueError(_render(exc)) from None
    given = full["max_game_length"]
    if isinstance(given, bool) or not isinstance(given, int) or given < 0:
        raise ValueError(f"max_game_length must be a positive whole number (0: derive it), not {given!r}")
    metadata = _metadata(rgame, given or None)
    utility, total = rgame.module.utility(rgame.num_players, rgame.option_values)
    info = pyspiel.GameInfo(
        num_distinct_actions=metadata["num_distinct_actions"],
        max_chance_outcomes=metadata["max_chance_outcomes"],
        num_players=rgame.num_players,
        min_utility=metadata["min_utility"],
        max_utility=metadata["max_utility"],
        # zero_sum: 0, constant_sum N: N (OpenSpiel's tests check the returns against it)
        utility_sum={"zero_sum": 0.0, "constant_sum": total}.get(utility),
        max_game_length=metadata["max_game_length"],
    )
    game_type = _game_type(spec.short_name, spec.engine, spec.game_type.min_num_players,
                           spec.game_type.max_num_players, spec.defaults, metadata["perfect_information"], utility)
    loaded = spec.loaded[key] = _Loaded(spec, full, rgame, game_type, info, metadata)
    return loaded


# ---------------------------------------------------------------- the figures

def _metadata(rgame: RuntimeGame, given_length: int | None) -> dict:
    """Every figure of the GameInfo, and `how` each was found (for the docs and tests)."""
    m = rgame.module
    program = rgame.engine.program
    found = census(rgame)
    how: dict = {}
    out: dict = {"how": how, "census_states": found.states if found else None}
    if found is not None:
        out["num_distinct_actions"] = max(1, found.actions)
        out["max_chance_outcomes"] = found.chance_outcomes
        out["min_utility"], out["max_utility"] = _proper_range(found.min_return, found.max_return)
        out["max_game_length"] = max(1, found.longest)
        out["own_moves"] = found.own_moves
        how.update(dict.fromkeys(("num_distinct_actions", "max_chance_outcomes", "utility", "max_game_length"),
                                 "census"))
    else:
        out["num_distinct_actions"] = m.NUM_ACTIONS
        out["max_chance_outcomes"] = m.MAX_CHANCE_OUTCOMES
        how["num_distinct_actions"] = how["max_chance_outcomes"] = "declared"
        loops = static_length(rgame)
        # random play: for a length where the loops give none, or for the returns' range where
        # the type checker infers none (it also checks an inferred range against what play returns)
        estimate = _estimate(rgame) if loops is None or _static_utility_bounds(rgame.engine) is None else None
        if loops is not None:
            out["max_game_length"] = max(1, loops)
            how["max_game_length"] = "loops"
        else:
            out["max_game_length"] = max(1, ESTIMATE_FACTOR * estimate["longest"])
            how["max_game_length"] = "estimate"
        out["own_moves"] = out["max_game_length"]
        out["min_utility"], out["max_utility"], how["utility"] = _utility_bounds(rgame, estimate)
        out["estimate"] = estimate
    out["perfect_information"] = static_information(program) and not _simultaneous(rgame.engine)
    how["perfect_information"] = "static"
    if given_length is not None:
        out["max_game_length"] = out["own_moves"] = given_length
        how["max_game_length"] = "given"
    return out


def _proper_range(lo: float, hi: float) -> tuple[float, float]:
    return (float(lo), float(hi)) if lo < hi else (float(lo), float(lo) + 1.0)  # OpenSpiel requires min < max


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
    if isinstance(t, (IntT, RatT)):
        return float(t.lo), float(t.hi)
    if isinstance(t, BoolT):
        return 0.0, 1.0
    return None


def _estimate(rgame: RuntimeGame) -> dict:
    """Play seeded random games; the most decisions in one and the range of returns."""
    rng = random.Random(ESTIMATE_SEED)
    longest, lo, hi = 0, None, None
    try:
        for _ in range(ESTIMATE_GAMES):
            state = rgame.new_initial_state()
            steps = decisions = 0
            while not state.is_terminal():
                if steps >= ESTIMATE_MAX_STEPS:
                    raise ValueError(f"{rgame.module.GAME_TITLE}: a random game did not end within "
                                     f"{ESTIMATE_MAX_STEPS} steps; pass max_game_length=N to load()")
                decisions += state.current_player() != CHANCE
                random_step(state, rng)
                steps += 1
            longest = max(longest, decisions)
            for r in state.returns():
                lo = r if lo is None else min(lo, r)
                hi = r if hi is None else max(hi, r)
    except RuleError as exc:
        raise ValueError(f"{rgame.module.GAME_TITLE}: random play hit a rule error: {exc}") from None
    return {"games": ESTIMATE_GAMES, "longest": longest, "min_return": lo, "max_return": hi}


def _utility_bounds(rgame: RuntimeGame, estimate: dict | None) -> tuple[float, float, str]:
    static = _static_utility_bounds(rgame.engine)
    seen = None
    if estimate and estimate["min_return"] is not None:
        seen = (estimate["min_return"], estimate["max_return"])
    how = "inferred"
    if static is not None:
        lo, hi = static
        if seen is not None and (seen[0] < lo or seen[1] > hi):
            warnings.warn(f"{rgame.module.GAME_TITLE}: random play returned {seen}, outside the inferred "
                          f"range {lo:g}..{hi:g}; widening the utility bounds", RuntimeWarning, stacklevel=3)
            lo, hi = min(lo, seen[0]), max(hi, seen[1])
    elif seen is not None:
        size = max(1.0, abs(seen[0]), abs(seen[1]))
        lo, hi, how = -ESTIMATE_FACTOR * size, ESTIMATE_FACTOR * size, "estimate"
    else:
        lo, hi, how = -1.0, 1.0, "none"
    return (*_proper_range(lo, hi), how)


def registered_games() -> dict[str, str]:
    """Short names this process registered, with the spec file behind each."""
    return {name: spec.path for name, spec in _SPECS.items()}


# ---------------------------------------------------------------- game and state

class RulebookGame(pyspiel.Game):
    """One registered spec; each instance is one parameter setting.

    Each registered short name gets a subclass whose `_spec` says what to build.
    """

    _spec: _Spec | None = None

    def __init__(self, params=None):
        if self._spec is None:
            raise TypeError("use verifier.openspiel.register() or load() to make a rulebook game")
        self._loaded = _loaded(self._spec, params or {})
        super().__init__(self._loaded.game_type, self._loaded.game_info, self._loaded.params)

    def __reduce__(self):  # pickle by spec file and parameters, not by the per-name class
        return _load_registered, (self._spec.short_name, self._spec.path, self._loaded.params)

    @property
    def runtime_game(self) -> RuntimeGame:
        return self._loaded.runtime_game

    @property
    def metadata(self) -> dict:
        """The GameInfo's figures and how each was found (census, loops, declared, estimate)."""
        return copy.deepcopy(self._loaded.metadata)

    def new_initial_state(self, *args):
        if args:
            raise ValueError("rulebook games start only from the initial state")
        return RulebookState(self, self._loaded)

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        return _Observer(self._loaded, iig_obs_type)


class _Box:
    """Holds a runtime GameState: deep-copies by clone(), pickles as its JSON history.

    pyspiel clones a Python state by making a new initial state and deep-copying the old one's
    attributes into it, so a new state's runtime state is made only when first read: a clone
    never pays for an initial state it throws away.  `gs` is a plain slot, read on every call
    of a state's method: while it is unset, `__getattr__` makes the initial state (a property
    would cost a Python call on every read).
    """

    __slots__ = ("gs", "loaded")

    def __init__(self, gs: GameState | None, loaded: _Loaded):
        if gs is not None:
            self.gs = gs
        self.loaded = loaded

    def __getattr__(self, name):  # reached only while the `gs` slot is unset
        if name != "gs":
            raise AttributeError(name)
        gs = self.gs = self.loaded.runtime_game.new_initial_state()
        return gs

    def __deepcopy__(self, memo):
        return _Box(self.gs.clone(), self.loaded)

    def __reduce__(self):
        spec = self.loaded.spec
        return _restore_box, (spec.short_name, spec.path, self.loaded.params, self.gs.to_json())


def _ensure_registered(short_name: str, path: str) -> _Spec:
    if short_name not in _SPECS:  # e.g. unpickled in another process
        if register(path) != short_name:
            raise ValueError(f"{path} no longer compiles to {short_name} (has the spec changed?)")
    return _SPECS[short_name]


def _load_registered(short_name: str, path: str, params: dict) -> pyspiel.Game:
    _ensure_registered(short_name, path)
    return pyspiel.load_game(short_name, params)


def _restore_box(short_name: str, path: str, params: dict, text: str) -> _Box:
    loaded = _loaded(_ensure_registered(short_name, path), params)
    return _Box(GameState.from_json(loaded.runtime_game.engine, text), loaded)


class RulebookState(pyspiel.State):
    """A pyspiel state driving a runtime GameState.

    Python callers reach the methods defined here directly; pyspiel's own (C++) methods reach
    them through its trampolines.  The read-only queries a playing loop makes at every step
    (`current_player`, `is_terminal`, `is_chance_node`, `is_simultaneous_node`,
    `legal_actions`) are defined here, so a Python caller does not cross into C++ and back
    for each (`legal_actions` through pyspiel converts the list twice, and `is_chance_node`
    calls back into `current_player`).  `apply_action` and `clone` stay pyspiel's: they keep
    the history OpenSpiel reads.
    """

    def __init__(self, game: RulebookGame, loaded: _Loaded):
        super().__init__(game)
        self._box = _Box(None, loaded)  # the initial state, made when first read (see _Box)

    @property
    def runtime_state(self) -> GameState:
        return self._box.gs

    # These four read the generated state's control location (`pc`, negative once the game is
    # over) and mover (`cur`) as `GameState.current_player` does, without its extra call.
    def current_player(self):
        s = self._box.gs.s
        return s.cur if s.pc >= 0 else TERMINAL

    def is_terminal(self):
        return self._box.gs.s.pc < 0

    def is_chance_node(self):  # pyspiel's: CurrentPlayer() == kChancePlayerId
        s = self._box.gs.s
        return s.pc >= 0 and s.cur == CHANCE

    def is_simultaneous_node(self):  # pyspiel's: CurrentPlayer() == kSimultaneousPlayerId
        s = self._box.gs.s
        return s.pc >= 0 and s.cur == SIMULTANEOUS

    def legal_actions(self, *player):
        """pyspiel's `LegalActions(player)` (python_games.cc): one player to move, or one
        player's moves at a simultaneous node, straight from the runtime; every other case
        (chance, terminal, pseudo-players, bad arguments) goes to pyspiel itself, so its
        answers and errors stay exactly pyspiel's."""
        gs = self._box.gs
        cur = gs.s.cur if gs.s.pc >= 0 else TERMINAL
        if not player:
            if cur >= 0:
                return gs.legal_actions(cur)
        elif len(player) == 1 and player[0].__class__ is int and player[0] >= 0 and \
                (player[0] == cur or cur == SIMULTANEOUS):
            return gs.legal_actions(player[0])
        return pyspiel.State.legal_actions(self, *player)

    def _legal_actions(self, player):
        return self._box.gs.legal_actions(player)

    def chance_outcomes(self):
        # OpenSpiel wants chance nodes' legal actions in ascending order; the runtime lists
        # a sequence's outcomes in order of first appearance, so sort here.
        return sorted(self._box.gs.chance_outcomes())

    def _apply_action(self, action):
        self._box.gs.apply_action(action)

    def _apply_actions(self, actions):
        gs = self._box.gs
        mover = gs.current_player()
        if mover >= 0:
            # a one-player node of a game with simultaneous moves: OpenSpiel's environments pass
            # one action per player at every node, and the others (who have no legal action) are
            # ignored
            gs.apply_action(actions[mover])
        else:
            gs.apply_actions(list(actions))

    def _action_to_string(self, player, action):
        return self._box.gs.action_to_string(player, action)

    def returns(self):
        return self._box.gs.returns()

    def rewards(self):
        return self._box.gs.rewards()

    def __str__(self):
        return str(self._box.gs)


class _Observer:
    """PyObserver: the strings the runtime writes, and the tensors `openspiel_tensors` lays out.

    `iig_obs_type` None is OpenSpiel's default observation (public and own private state);
    perfect recall adds the player's own moves (the information state).  Private info NONE
    leaves the private variables out, ALL_PLAYERS puts in every player's (in the tensor: the
    runtime's strings know only one player's view, which the string then shows)."""

    def __init__(self, loaded: _Loaded, iig_obs_type):
        P = pyspiel.PrivateInfoType
        self.info_state = iig_obs_type is not None and iig_obs_type.perfect_recall
        private_info = iig_obs_type.private_info if iig_obs_type is not None else P.SINGLE_PLAYER
        public = iig_obs_type is None or iig_obs_type.public_info
        self.public_only = private_info == P.NONE
        private = {P.NONE: "none", P.SINGLE_PLAYER: "own", P.ALL_PLAYERS: "all"}[private_info]
        self.encoder = loaded.encoder(public, private, self.info_state)
        self.tensor = np.zeros(self.encoder.size, np.float32)
        self.dict = self.encoder.views(self.tensor)

    def set_from(self, state, player):
        self.encoder.fill(self.tensor, state._box.gs, player)

    def string_from(self, state, player):
        gs = state._box.gs
        if self.info_state:
            return gs.information_state_string(player)
        return gs.observation_string(-1 if self.public_only else player)
