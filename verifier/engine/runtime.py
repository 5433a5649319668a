"""Runtime for generated engines, with an API that mirrors OpenSpiel's.

`Game` compiles (once) and holds a generated module, a player count and the
option values; `GameState` drives it: chance nodes with outcome
probabilities, simultaneous-move nodes, integer action ids with readable
strings, per-player returns, clone, JSON (de)serialisation by replaying the
history, and an observation string per player.
"""
from __future__ import annotations

import bisect
import json
import types
from fractions import Fraction

from ..diagnostics import SpecError, Span, error
from ..frontend.typecheck import Program
from .codegen import generate
from .lib import FLOW_STEPS, RuleError, flow_without_decision, show_player

CHANCE = -1
SIMULTANEOUS = -2
INVALID = -3
TERMINAL = -4
MAX_SEGMENT_STEPS = len(FLOW_STEPS)


def load_module(source: str, name: str) -> types.ModuleType:
    """Execute generated engine source in a fresh module namespace."""
    module = types.ModuleType(f"rulebook_engine_{name}")
    code = compile(source, f"<engine {name}>", "exec")
    exec(code, module.__dict__)  # the source is ours: identifiers validated, literals repr()'d
    return module


class Engine:
    """A compiled spec: the generated source and its loaded module."""

    def __init__(self, program: Program):
        self.program = program
        from ..frontend import without_gc
        try:
            with without_gc():  # generation builds large acyclic structures (see without_gc)
                self.source = generate(program)
                self.module = load_module(self.source, program.name)
        except (RecursionError, MemoryError, SyntaxError) as exc:
            # Python's own compiler limits nesting (200 parentheses); any other
            # syntax error in generated code is a bug of ours and stays one
            if isinstance(exc, SyntaxError) and "nested" not in str(exc) and "too complex" not in str(exc):
                raise
            from ..frontend import too_deep
            raise SpecError([too_deep(program.spec.path, program.spec)]) from None


def parse_option_values(engine: Engine, given: dict, bounded: bool = False) -> dict:
    """Defaults overridden by the user's NAME=VALUE strings (or Python values).

    `bounded`: the caller needs every game to end (random play, OpenSpiel's
    maximum game length), so options with a `finite` value use it unless the
    user set them.
    """
    m = engine.module
    values = dict(m.OPTIONS)
    if bounded:
        values.update(m.OPTION_FINITE)
    path = engine.program.spec.path
    for name, raw in given.items():
        if name not in m.OPTION_KINDS:
            known = ", ".join(sorted(m.OPTION_KINDS)) or "none"
            raise SpecError([error(Span.unknown(path), f"unknown option {name!r}", f"this spec's options: {known}",
                                   code="option")])
        kind = m.OPTION_KINDS[name]
        values[name] = _option_value(name, kind, raw, path)
    return values


def _option_value(name: str, kind: tuple, raw, path: str):
    text = str(raw).strip().lower() if not isinstance(raw, bool) else ("true" if raw else "false")
    if kind[0] == "bool":
        if text in ("true", "yes", "1", "on"):
            return True
        if text in ("false", "no", "0", "off"):
            return False
        expected = "true or false"
    elif kind[0] == "enum":
        items = kind[1:]
        if text in items:
            return items.index(text)
        expected = " or ".join(items)
    else:
        lo, hi = kind[1], kind[2]
        try:
            v = int(text)
        except ValueError:
            v = None
        if v is not None and lo <= v <= hi:
            return v
        expected = f"a whole number in {lo}..{hi}"
    raise SpecError([error(Span.unknown(path), f"option {name}={raw!r}: expected {expected}", code="option")])


def move_blocks(m) -> tuple[list, list, list]:
    """Each move's block of action ids, by first id: (firsts, ends, moves), for decoding an
    action id with one bisection (a simultaneous reveal decodes one per player)."""
    blocks = []
    for mv in m.MOVES:
        total = 1
        for n in mv[2]:
            total *= n
        blocks.append((mv[1], mv[1] + total, mv))
    blocks.sort(key=lambda b: b[0])
    return [b[0] for b in blocks], [b[1] for b in blocks], [b[2] for b in blocks]


class Game:
    def __init__(self, engine: Engine, players: int | None = None, options: dict | None = None,
                 bounded: bool = False):
        m = engine.module
        self.engine = engine
        self.module = m
        self.num_players = players if players is not None else m.MIN_PLAYERS
        if not m.MIN_PLAYERS <= self.num_players <= m.MAX_PLAYERS:
            raise SpecError([error(Span.unknown(engine.program.spec.path),
                                   f"{m.GAME_TITLE} is for {m.MIN_PLAYERS}..{m.MAX_PLAYERS} players, "
                                   f"not {self.num_players}", code="players")])
        self.option_values = parse_option_values(engine, options or {}, bounded)
        self.num_distinct_actions = m.NUM_ACTIONS
        self.max_chance_outcomes = m.MAX_CHANCE_OUTCOMES
        self.move_blocks = move_blocks(m)

    def option_strings(self) -> dict:
        out = {}
        for name, value in self.option_values.items():
            kind = self.module.OPTION_KINDS[name]
            out[name] = (kind[1 + value] if kind[0] == "enum" else
                         ("true" if value else "false") if kind[0] == "bool" else str(value))
        return out

    def new_initial_state(self, logging: bool = False) -> "GameState":
        """`logging`: keep a log of every step, from the set-up's first `say` on."""
        return GameState(self, logging=logging)

    def state_from_json(self, text: str) -> "GameState":
        return GameState.from_json(self.engine, text)


class GameState:
    def __init__(self, game: Game, _raw=None, logging: bool = False):
        self.game = game
        self.m = game.module
        self.history: list = []
        self.actors: list[int] = []  # who took each history step: a player, CHANCE or SIMULTANEOUS
        if _raw is not None:
            self.s = _raw
            return
        self.s = self.m.new_state(game.num_players, game.option_values)
        self.s.logging = logging  # before the set-up runs: a `say` before the first decision is logged too
        self._advance(0)

    # ------------------------------------------------------------ driving
    def _advance(self, seg: int) -> None:
        segments = self.m.SEGMENTS
        steps = 0
        s = self.s
        try:
            while seg >= 0:
                seg = segments[seg](s)
                steps += 1
                if steps > MAX_SEGMENT_STEPS:
                    flow_without_decision()
        except RuleError:
            raise
        except Exception as exc:  # a Python error inside generated code is a rule error
            raise RuleError(f"{type(exc).__name__}: {exc}") from exc

    def _decision(self):
        return self.m.DECISIONS[self.s.pc]

    def current_player(self) -> int:
        pc = self.s.pc
        if pc < 0:
            return TERMINAL
        return self.s.cur

    def is_terminal(self) -> bool:
        return self.s.pc < 0

    def is_chance_node(self) -> bool:
        return self.s.pc >= 0 and self.s.cur == CHANCE

    def is_simultaneous_node(self) -> bool:
        return self.s.pc >= 0 and self.s.cur == SIMULTANEOUS

    def num_players(self) -> int:
        return self.s.n

    def legal_actions(self, player: int | None = None) -> list[int]:
        if self.s.memo:  # memoised definitions are valid for one call only
            self.s.memo = {}
        s = self.s
        if s.pc < 0:
            return []
        cur = s.cur
        if cur >= 0 and (player is None or player == cur):  # the hot path: one player to move
            try:
                return self.m.DECISIONS[s.pc][2](s, cur)
            except RuleError:
                raise
            except Exception as exc:
                raise RuleError(f"{type(exc).__name__}: {exc}", self.m.DECISIONS[s.pc][4]) from exc
        d = self.m.DECISIONS[s.pc]
        if d[0] == "chance":
            if player is not None and player != CHANCE:
                return []
            return [a for a, _ in self.chance_outcomes()]
        if player is None:
            if s.cur == SIMULTANEOUS:
                raise ValueError("at a simultaneous node, ask for one player's legal actions")
            player = s.cur
        if d[0] == "choose" and player != s.cur:
            return []
        if not 0 <= player < s.n:
            return []
        try:
            return d[2](s, player)
        except RuleError:
            raise
        except Exception as exc:
            raise RuleError(f"{type(exc).__name__}: {exc}", d[4]) from exc

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The outcomes and their probabilities as floats (OpenSpiel's form)."""
        uniform = self._uniform_outcomes()
        if uniform is not None:  # the common case, without a Fraction per outcome (1 / n is exact-rounded)
            return [(a, 1.0 / len(uniform)) for a in uniform]
        return [(a, float(p)) for a, p in self.exact_chance_outcomes()]

    def _uniform_outcomes(self) -> list[int] | None:
        """The outcomes of an unweighted chance node (None at any other node)."""
        if self.s.pc < 0:
            return None
        d = self._decision()
        if d[0] != "chance" or d[5] is not None:
            return None
        if self.s.memo:  # memoised definitions are valid for one call only
            self.s.memo = {}
        values = d[2](self.s)
        if not values:
            raise RuleError("a chance node has nothing to draw from", d[4])
        lo = d[3].lo
        return [v - lo for v in values] if lo else values  # `_outcomes<D>` makes a new list each call

    def exact_chance_outcomes(self) -> list[tuple[int, Fraction]]:
        """The outcomes of positive probability, ascending, with their exact probabilities."""
        if self.s.memo:  # memoised definitions are valid for one call only
            self.s.memo = {}
        d = self._decision()
        if d[0] != "chance":
            return []
        lo = d[3].lo
        if d[5] is not None:  # weighted
            return [(v - lo, p) for v, p in d[5](self.s)]
        values = d[2](self.s)
        if not values:
            raise RuleError("a chance node has nothing to draw from", d[4])
        p = Fraction(1, len(values))
        return [(v - lo, p) for v in values]

    def sample_chance(self, rng) -> int:
        """A chance outcome drawn with its probability; a uniform node draws with one
        `randrange`, as it always has (seeded games of uniform specs stay the same)."""
        uniform = self._uniform_outcomes()
        if uniform is not None:  # no Fractions on the hot path of random play
            return uniform[rng.randrange(len(uniform))]
        outcomes = self.exact_chance_outcomes()
        if len({p for _, p in outcomes}) == 1:
            return outcomes[rng.randrange(len(outcomes))][0]
        return rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]

    def apply_action(self, action: int) -> None:
        if self.s.memo:  # memoised definitions are valid for one call only
            self.s.memo = {}
        s = self.s
        if s.pc < 0:
            raise ValueError("the game is over")
        d = self.m.DECISIONS[s.pc]
        if d[0] == "choose":  # the hot path: one generated call runs the whole move
            mover = s.cur  # the step runs on to the next decision point, which changes s.cur
            if s.logging:
                self._check_legal(mover, action)
                s.log.append(("move", f"{show_player(mover)}: {self.action_to_string(mover, action)}"))
            try:
                d[5](s, mover, action)
            except (RuleError, ValueError):
                raise
            except Exception as exc:
                raise RuleError(f"{type(exc).__name__}: {exc}") from exc
            self.history.append(int(action))
            self.actors.append(mover)
            return
        if d[0] == "simultaneous":
            if self.s.n == 1:
                return self.apply_actions([action])
            raise ValueError("at a simultaneous node use apply_actions with one action per player")
        if d[0] == "chance":
            values = d[2](s)
            v = action + d[3].lo
            if v not in values:
                raise ValueError(f"{action} is not a chance outcome here")
            if s.logging:
                s.log.append(("chance", f"chance: {d[3].var} = {d[3].show(s, v)}"))
            d[3](s, v)
        self.history.append(int(action))
        self.actors.append(CHANCE)
        self._advance(d[1])

    def apply_actions(self, actions: list[int]) -> None:
        if self.s.memo:  # memoised definitions are valid for one call only
            self.s.memo = {}
        s = self.s
        if s.pc < 0:
            raise ValueError("the game is over")
        d = self._decision()
        if d[0] != "simultaneous":
            raise ValueError("apply_actions is for simultaneous nodes")
        if len(actions) != s.n:
            raise ValueError(f"expected {s.n} actions, got {len(actions)}")
        moves = [self._check_legal(p, a) for p, a in enumerate(actions)]  # each decoded once
        if s.logging:
            s.log.append(("reveal", "reveal: " + "; ".join(f"{show_player(p)} {self.action_to_string(p, a)}"
                                                          for p, a in enumerate(actions))))
        for p, move in enumerate(moves):  # secret choices take effect in seat order
            self._run_move(p, move)
        self.history.append([int(a) for a in actions])
        self.actors.append(SIMULTANEOUS)
        self._advance(d[1])

    def _check_legal(self, player: int, action: int) -> tuple:
        """Legal means: a move of this decision point whose requirements all hold.
        Returns the decoded move (the move, its parameter values)."""
        if not isinstance(action, int) or not 0 <= action < self.m.NUM_ACTIONS:
            raise ValueError(f"{action!r} is not an action id of this game")
        mv, values = self._decode(action)
        if mv[7] != self.s.pc:
            raise ValueError(f"action {action} ({mv[0]}) is not a move at this point of the game")
        broken = mv[6](self.s, player, *values)
        if broken:
            raise ValueError(f"action {action} is not legal for P{player + 1}: " +
                             "; ".join(f"{label} ({msg})" if msg else label for label, msg, _ in broken))
        return mv, values

    def _decode(self, action: int):
        blocks = self.game.move_blocks
        k = bisect.bisect_right(blocks[0], action) - 1
        if k < 0 or action >= blocks[1][k]:
            raise ValueError(f"no move has action id {action}")
        mv = blocks[2][k]
        rest = action - mv[1]
        values = []
        for n, lo in zip(reversed(mv[2]), reversed(mv[3])):
            rest, idx = divmod(rest, n)
            values.append(idx + lo)
        return mv, list(reversed(values))

    def _run_move(self, player: int, move: tuple) -> None:
        mv, values = move  # as _check_legal decoded it
        try:
            mv[4](self.s, player, *values)
        except RuleError:
            raise
        except Exception as exc:
            raise RuleError(f"{type(exc).__name__} in move {mv[0]}: {exc}") from exc

    # ------------------------------------------------------------ reading
    def action_to_string(self, player: int, action: int) -> str:
        if self.s.memo:  # memoised definitions are valid for one call only
            self.s.memo = {}
        if player == CHANCE or (self.s.pc >= 0 and self._decision()[0] == "chance" and player in (None, CHANCE)):
            d = self._decision()
            return d[3].show(self.s, action + d[3].lo)
        mv, values = self._decode(action)
        return mv[5](self.s, player, *values)

    def string_to_action(self, player: int, text: str) -> int:
        wanted = text.strip()
        for a in self.legal_actions(player if player != CHANCE else CHANCE):
            if self.action_to_string(player, a) == wanted:
                return a
        raise ValueError(f"{text!r} is not a legal move here")

    def why_illegal(self, player: int, action: int) -> list[tuple[str, str, tuple]]:
        """The requirements `action` breaks for `player` here (empty if it is legal)."""
        mv, values = self._decode(action)
        if self.s.pc < 0:
            return [("game_over", "the game is over", ())]
        d = self._decision()
        if d[0] == "chance" or mv[7] != self.s.pc:
            return [("not_now", f"{mv[0]} is not a move at this point of the game", ())]
        if d[0] == "choose" and player != self.s.cur:
            return [("not_your_turn", "it is another player's turn", ())]
        return mv[6](self.s, player, *values)

    def returns(self) -> list[float]:
        """The returns as floats (OpenSpiel's form)."""
        return [float(r) for r in self.exact_returns()]

    def exact_returns(self) -> list:
        """The returns as the rules compute them: whole numbers or exact Fractions."""
        if self.s.memo:  # memoised definitions are valid for one call only
            self.s.memo = {}
        if self.s.pc >= 0:
            return [0] * self.s.n
        return self.m._returns(self.s)

    def rewards(self) -> list[float]:
        return self.returns() if self.is_terminal() else [0.0] * self.s.n

    def scores(self) -> list[int]:
        if self.s.memo:  # memoised definitions are valid for one call only
            self.s.memo = {}
        return [self.m._score(self.s, p) for p in range(self.s.n)]

    def final_outcome(self) -> tuple:
        """(scores, winners, exact returns) of a finished game: everything the rules compute
        where the flow ends. A rule error in any of them is a rule error of the game
        (`well_formed`): the searches and the replays of a counterexample ask for all three."""
        return self.scores(), self.winners(), self.exact_returns()

    def winners(self) -> list[int]:
        if self.s.memo:  # memoised definitions are valid for one call only
            self.s.memo = {}
        mask = self.m._winners(self.s)
        return [p for p in range(self.s.n) if (mask >> p) & 1]

    def observation_string(self, player: int) -> str:
        if self.s.memo:  # memoised definitions are valid for one call only
            self.s.memo = {}
        return self.m.observe(self.s, player)

    def information_state_string(self, player: int) -> str:
        """What `player` knows: the current observation and their own past choices.

        Chance outcomes and other players' choices are not listed: whatever of
        them a player may see is in the public state the observation shows.
        """
        if self.s.memo:  # memoised definitions are valid for one call only
            self.s.memo = {}
        own = [h[player] if who == SIMULTANEOUS else h
               for h, who in zip(self.history, self.actors) if who in (player, SIMULTANEOUS)]
        return self.observation_string(player) + "\nmy moves: " + " ".join(map(str, own))

    def __str__(self) -> str:
        if self.s.memo:  # memoised definitions are valid for one call only
            self.s.memo = {}
        return self.m.show_state(self.s)

    def check_invariants(self) -> list[tuple[str, str, str]]:
        if self.s.memo:  # memoised definitions are valid for one call only
            self.s.memo = {}
        return [(name, sentence, where) for name, sentence, fn, where in self.m.INVARIANTS if not fn(self.s)]

    def clone(self) -> "GameState":
        # the hot path of tree searches (OpenSpiel clones a state per child): no __init__ call,
        # and the history copied shallowly, as a step (a reveal's list too) never changes once made
        c = GameState.__new__(GameState)
        c.game, c.m = self.game, self.m
        c.s = self.m.clone(self.s)
        c.history = list(self.history)
        c.actors = list(self.actors)
        return c

    # ------------------------------------------------------------ serialisation
    def to_json(self) -> str:
        return json.dumps({"game": self.m.GAME_NAME, "players": self.s.n, "options": self.game.option_strings(),
                           "history": self.history})

    @staticmethod
    def from_json(engine: Engine, text: str) -> "GameState":
        """Rebuild a state by replaying its history; every step is validated.

        The text follows the replay-file schema (`replayfile.py`); a bad one raises ValueError.
        """
        from .replayfile import read_replay
        return replay_steps(engine, read_replay(text))


def game_for_replay(engine: Engine, replay) -> Game:
    """The game a replay file (`replayfile.ReplayFile`) was played in; errors name the file."""
    from .replayfile import ReplayError
    m = engine.module
    if replay.game not in (None, m.GAME_NAME, m.GAME_TITLE):
        raise ReplayError(f"this state is for game {replay.game!r}, not {m.GAME_NAME!r}", replay.path)
    try:
        return Game(engine, replay.players, replay.options)
    except SpecError as exc:  # a player count or option the spec does not have: the file's fault
        raise ReplayError("; ".join(d.message + "".join(f" ({n})" for n in d.notes) for d in exc.diagnostics),
                          replay.path) from None


def replay_steps(engine: Engine, replay, logging: bool = False) -> GameState:
    """The state a replay file's history leads to; a step that is not legal raises ReplayError."""
    from .replayfile import ReplayError
    state = game_for_replay(engine, replay).new_initial_state(logging=logging)
    for i, step in enumerate(replay.history):
        try:
            if isinstance(step, list):
                state.apply_actions(step)
            else:
                state.apply_action(step)
        except ValueError as exc:
            raise ReplayError(f"history step {i}: {exc}", replay.path) from None
    return state
