"""Positions: the point of a game a question is asked about.

A position is reached by replaying steps through the engine, which checks every one, so a
position is always a state of real play:

- a saved game (`from_replay`: `play --json` output or a `verify` trace), cut after N steps;
- a history of steps as `play` prints them, separated by `;` (`from_history`): a move's text
  (`x(0,0)`, optionally after `P1:`), a chance outcome (`card = 4`, or just `4`), and at a
  simultaneous decision one move per player, in seat order (`P1 bid 5; P2 bid 1`, or on one
  step separated by `|`);
- the state an `example` block of the spec sets (`from_example`): not a point of play (nobody
  is to move there), but a state whose scores can be explained.

A bad position is a `PositionError` (exit 1) that names the step, the file or the example and
says what was expected; a step of a history is shown with a caret under it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..commands.common import UserError
from ..engine.lib import RuleError, show_player
from ..engine.replayfile import ReplayError, read_replay
from ..engine.runtime import CHANCE, SIMULTANEOUS, Engine, Game, GameState, game_for_replay
from .moves import Finder, normal

PREFIX = re.compile(r"^\s*P(\d+)\s*:?\s+", re.IGNORECASE)
SHOWN_LEGAL = 12  # legal moves listed in an error about a step


class PositionError(UserError):
    """A position that cannot be reached: an illegal step, an unknown example, a file of another spec."""


@dataclass
class Position:
    """A state of a game, how it was reached, and the steps on the way (as `play` shows them)."""

    game: Game
    state: GameState
    source: str  # "the history given", "FILE after 12 steps", "example NAME"
    steps: list = field(default_factory=list)  # text of each step
    example: str | None = None  # set when the state is an example block's
    failed_expectations: list = field(default_factory=list)  # file:line:col of the example's `expect`s that fail

    @property
    def engine(self) -> Engine:
        return self.game.engine

    @property
    def program(self):
        return self.game.engine.program

    def describe(self) -> dict:
        out = {"source": self.source, "steps": len(self.steps), "players": self.state.num_players(),
               "options": self.game.option_strings()}
        if self.example is not None:
            out["example"] = self.example
        else:
            out["to_move"] = to_move(self.state)
        return out


def to_move(state: GameState) -> str:
    """Who acts now, in words: `P2`, `chance`, `every player (simultaneous)`, `nobody (the game is over)`."""
    if state.is_terminal():
        return "nobody (the game is over)"
    who = state.current_player()
    if who == CHANCE:
        return "chance"
    if who == SIMULTANEOUS:
        return "every player (in secret)"
    return show_player(who)


def step_text(state: GameState, step) -> str:
    """A step as `play` prints it, before it is applied."""
    who = state.current_player()
    if who == CHANCE:
        d = state.m.DECISIONS[state.s.pc]
        return f"{d[3].var} = {state.action_to_string(CHANCE, step)}"
    if isinstance(step, list):
        return " | ".join(f"{show_player(p)} {state.action_to_string(p, a)}" for p, a in enumerate(step))
    return f"{show_player(who)}: {state.action_to_string(who, step)}"


def apply_step(state: GameState, step) -> None:
    if isinstance(step, list):
        state.apply_actions(step)
    else:
        state.apply_action(step)


# ------------------------------------------------------------------ saved games

def from_replay(engine: Engine, path: str, at: int | None = None, text: str | None = None) -> Position:
    """The position after the first `at` steps (all by default) of a saved game."""
    if text is None:
        from ..commands.play import read_text
        text = read_text(path)
    try:
        replay = read_replay(text, path)
        game = game_for_replay(engine, replay)
    except ReplayError as exc:
        raise PositionError(str(exc)) from None
    history = replay.history
    if at is not None:
        if at > len(history):
            raise PositionError(f"{path}: --at {at}: the game has only {len(history)} steps")
        history = history[:at]
    state = game.new_initial_state()
    steps = []
    for i, step in enumerate(history, start=1):
        if state.is_terminal():
            raise PositionError(f"{path}: step {i}: the game is already over")
        simultaneous = state.current_player() == SIMULTANEOUS
        if simultaneous != isinstance(step, list):
            expected = "a list of action ids, one per player" if simultaneous else "one action id"
            raise PositionError(f"{path}: step {i}: {to_move(state)} acts here, so the step must be {expected}")
        try:
            text_i = step_text(state, step)
        except Exception:
            text_i = str(step)
        try:
            apply_step(state, step)
        except (ValueError, RuleError) as exc:
            raise PositionError(f"{path}: step {i} ({text_i}): {exc}") from None
        steps.append(text_i)
    cut = f" after {at} steps" if at is not None else ""
    return Position(game, state, f"{path}{cut}", steps)


# ------------------------------------------------------------------ histories

@dataclass
class _Segment:
    text: str
    col: int  # 1-based column of its first character in the history


def _segments(text: str) -> list[_Segment]:
    out, start = [], 0
    for i, ch in enumerate(text + ";"):
        if ch == ";":
            piece = text[start:i]
            stripped = piece.strip()
            if stripped:
                out.append(_Segment(stripped, start + 1 + (len(piece) - len(piece.lstrip()))))
            start = i + 1
    return out


def _caret(history: str, seg: _Segment) -> str:
    line = history.replace("\n", " ")
    return f"\n    {line}\n    {' ' * (seg.col - 1)}^{'~' * max(0, len(seg.text) - 1)}"


def from_history(engine: Engine, history: str, players: int | None = None, options: dict | None = None,
                 name: str = "--history") -> Position:
    """The position after a history of steps written as `play` prints them (see the module's doc)."""
    from ..diagnostics import SpecError
    try:
        game = Game(engine, players, options or {})
    except SpecError:
        raise
    state = game.new_initial_state()
    segs = _segments(history)
    steps, i, number = [], 0, 0
    while i < len(segs):
        seg = segs[i]
        number += 1

        def bad(message: str, at: _Segment = seg) -> PositionError:
            return PositionError(f"{name} step {number} ({at.text!r}): {message}{_caret(history, at)}")

        if state.is_terminal():
            raise bad("the game is already over")
        who = state.current_player()
        if who == CHANCE:
            step = _chance_step(state, seg.text, bad)
            i += 1
        elif who == SIMULTANEOUS:
            n = state.num_players()
            if "|" in seg.text:
                parts = [_Segment(p.strip(), seg.col) for p in seg.text.split("|")]
                i += 1
            else:
                parts = segs[i:i + n]
                i += n
            if len(parts) != n:
                raise bad(f"every player chooses in secret here: write {n} moves, one per player in seat order "
                          f"(separated by ';' or '|')")
            step = []
            for p, part in enumerate(parts):
                text = re.sub(r"^\s*reveal:\s*", "", part.text, flags=re.IGNORECASE)
                step.append(_player_step(state, p, text, lambda m, at=part: bad(m, at)))
        else:
            step = _player_step(state, who, seg.text, bad)
            i += 1
        text_i = step_text(state, step)
        try:
            apply_step(state, step)
        except (ValueError, RuleError) as exc:
            raise bad(str(exc)) from None
        steps.append(text_i)
    return Position(game, state, f"{name} ({len(steps)} steps)" if steps else "the start of the game", steps)


def _chance_step(state: GameState, text: str, bad) -> int:
    d = state.m.DECISIONS[state.s.pc]
    text = re.sub(r"^\s*chance:\s*", "", text, flags=re.IGNORECASE)
    if "=" in text:
        var, text = (x.strip() for x in text.split("=", 1))
        if var != d[3].var:
            raise bad(f"chance draws {d[3].var!r} here, not {var!r}")
    outcomes = [a for a, _ in state.chance_outcomes()]
    shown = {a: state.action_to_string(CHANCE, a) for a in outcomes}
    for fold in (False, True):
        hits = [a for a in outcomes if (normal(shown[a]).lower() if fold else normal(shown[a]))
                == (normal(text).lower() if fold else normal(text))]
        if hits:
            return hits[0]
    listed = ", ".join(shown[a] for a in outcomes[:SHOWN_LEGAL]) + (" ..." if len(outcomes) > SHOWN_LEGAL else "")
    raise bad(f"{text!r} is not an outcome of the chance draw of {d[3].var!r} here; it can be: {listed}")


def _player_step(state: GameState, player: int, text: str, bad) -> int:
    m = PREFIX.match(text)
    if m:
        named = int(m.group(1)) - 1
        if named != player:
            raise bad(f"{show_player(player)} acts here, not {show_player(named)}")
        text = text[m.end():]
    finder = Finder(state, state.game.engine.program)
    found = finder.find(text, player)
    legal = [c for c in found if c.where == "legal"]
    if legal:
        return legal[0].action
    from .legality import explain_candidates
    raise bad(explain_candidates(state, player, text, found))


# ------------------------------------------------------------------ examples

def from_example(engine: Engine, name: str, options: dict | None = None) -> Position:
    """The state an `example` block sets (with its player count and the given options)."""
    m = engine.module
    names = [e[0] for e in m.EXAMPLES]
    if name not in names:
        import difflib
        close = difflib.get_close_matches(name, names, n=1)
        known = ", ".join(names) if names else "none"
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise PositionError(f"{engine.program.spec.path}: no example named {name!r}{hint}; its examples: {known}")
    _, sentence, players, fn, where = m.EXAMPLES[names.index(name)]
    game = Game(engine, players, options or {})
    s = m.new_state(players, game.option_values)
    try:
        failed = fn(s)
    except Exception as exc:
        raise PositionError(f"{where}: example {name!r} could not run: {exc}") from None
    state = GameState(game, _raw=s)
    return Position(game, state, f"example {name} ({where})", [], example=name, failed_expectations=list(failed))


def start(engine: Engine, players: int | None = None, options: dict | None = None) -> Position:
    game = Game(engine, players, options or {})
    return Position(game, game.new_initial_state(), "the start of the game", [])


__all__ = ["Position", "PositionError", "from_replay", "from_history", "from_example", "start", "to_move",
           "step_text"]
