"""Moves by their text: which action a person means when they write `o(0,0)` or `take(3 egg, 2)`.

A move is written as `play` prints it (the move's text in the spec, e.g. `takes 3 egg into
slot 2`), or in call form, `NAME(v1, v2, ...)`, its parameters' values written as the spec
writes them (numbers, enum items by name or display, players as `P1` or `0`). Texts are compared
with runs of spaces made one, exactly first, then ignoring case.

`find` looks where a person would: the legal moves of whoever acts now, then every move of this
decision point for them (an illegal one), then the same moves for the other players (not their
turn), then the moves of the game's other decision points (not now). It knows no game: it reads
the engine's tables (`MOVES`, `DECISIONS`) and the IR's parameter types.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..engine.runtime import CHANCE, SIMULTANEOUS, GameState
from ..ir.types import BoolT, CatalogueT, EnumT, PlayerT, Type

# where a candidate was found, in the order `find` looks
LEGAL, ILLEGAL, OTHER_PLAYER, OTHER_DECISION = "legal", "illegal", "other_player", "other_decision"
CALL = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_]*)\s*\((.*)\)\s*$", re.DOTALL)
PLAYER = re.compile(r"^P(\d+)$", re.IGNORECASE)
MAX_ENUMERATED = 200_000  # actions whose text `find` computes for one decision point, at most


@dataclass(frozen=True)
class Candidate:
    """An action that a text names: its id, for whom, which move (index into `MOVES`) with which
    parameter values, its text, and where `find` found it."""

    action: int
    player: int
    move: int
    values: tuple
    text: str
    where: str


def normal(text: str) -> str:
    return " ".join(text.split())


def block_size(sizes) -> int:
    total = 1
    for n in sizes:
        total *= n
    return total


def decode(entry, action: int) -> tuple:
    """The parameter values of `action` in the move `entry` of the engine's `MOVES`."""
    _, offset, sizes, los, *_ = entry
    rest, values = action - offset, []
    for n, lo in zip(reversed(sizes), reversed(los)):
        rest, idx = divmod(rest, n)
        values.append(idx + lo)
    return tuple(reversed(values))


def move_of(state: GameState, action: int) -> int:
    for k, entry in enumerate(state.m.MOVES):
        if entry[1] <= action < entry[1] + block_size(entry[2]):
            return k
    raise ValueError(f"no move has action id {action}")


def text_of(state: GameState, player: int, k: int, values: tuple) -> str | None:
    """The move's text for `player` with these values, or None where the spec's text cannot be
    computed in this state (a text that reads a flow variable of another decision point)."""
    if state.s.memo:
        state.s.memo = {}
    try:
        return state.m.MOVES[k][5](state.s, player, *values)
    except Exception:
        return None


def movers(state: GameState) -> list[int]:
    """Who acts now: one player, every player at a simultaneous decision, nobody else."""
    if state.is_terminal():
        return []
    who = state.current_player()
    if who == CHANCE:
        return []
    return list(range(state.num_players())) if who == SIMULTANEOUS else [who]


def decision_moves(state: GameState, decision: int) -> list[int]:
    return list(state.m.DECISIONS[decision][3]) if state.m.DECISIONS[decision][0] != "chance" else []


def all_actions(state: GameState, k: int):
    entry = state.m.MOVES[k]
    return range(entry[1], entry[1] + block_size(entry[2]))


class Finder:
    """Looks a written move up in one state."""

    def __init__(self, state: GameState, program):
        self.state = state
        self.program = program
        self.m = state.m

    # ------------------------------------------------------------ call form
    def parse_value(self, t: Type, text: str) -> int | None:
        text = text.strip()
        if isinstance(t, PlayerT):
            m = PLAYER.match(text)
            if m:
                return int(m.group(1)) - 1
        if isinstance(t, BoolT):
            return {"true": 1, "false": 0}.get(text.lower())
        if isinstance(t, EnumT):
            for i, (item, shown) in enumerate(zip(t.items, t.displays)):
                if text in (item, shown) or text.lower() in (item.lower(), shown.lower()):
                    return i
        if isinstance(t, CatalogueT):
            shown = getattr(self.m, f"S_{t.name}", ())
            for i, s in enumerate(shown):
                if normal(s).lower() == normal(text).lower():
                    return i
        try:
            return int(text)
        except ValueError:
            return None

    def call_form(self, text: str) -> list[tuple[int, tuple]]:
        """(move index, values) for `NAME(v1, ...)`; values outside their domains are left out."""
        m = CALL.match(text)
        if not m:
            return []
        name, inside = m.group(1), m.group(2)
        args = [a for a in split_args(inside)] if inside.strip() else []
        out = []
        for k, entry in enumerate(self.m.MOVES):
            if entry[0] != name:
                continue
            info = self.program.moves[k]
            if len(args) != len(info.param_types):
                continue
            values = []
            for t, a, size, lo in zip(info.param_types, args, entry[2], entry[3]):
                v = self.parse_value(t, a)
                if v is None or not lo <= v < lo + size:
                    break
                values.append(v)
            else:
                out.append((k, tuple(values)))
        return out

    def action_id(self, k: int, values: tuple) -> int:
        _, offset, sizes, los, *_ = self.m.MOVES[k]
        a = 0
        for v, n, lo in zip(values, sizes, los):
            a = a * n + (v - lo)
        return offset + a

    # ------------------------------------------------------------ the search
    def find(self, text: str, player: int | None = None) -> list[Candidate]:
        """The actions `text` names, from the first place (in `find`'s order) that has any."""
        state = self.state
        now = movers(state)
        wanted = [p for p in now if player is None or p == player]
        others = [p for p in range(state.num_players()) if p not in now and (player is None or p == player)]
        decision = state.s.pc if not state.is_terminal() else None
        here = decision_moves(state, decision) if decision is not None else []
        elsewhere = [k for k in range(len(self.m.MOVES)) if k not in here]
        calls = self.call_form(text)
        looks = [
            (LEGAL, wanted, here, True),
            (ILLEGAL, wanted, here, False),
            (OTHER_PLAYER, others, here, False),
            (OTHER_DECISION, wanted + others if (wanted or others) else list(range(state.num_players())),
             elsewhere, False),
        ]
        for where, players, moves, legal_only in looks:
            found = self.look(text, calls, where, players, moves, legal_only)
            if found:
                return found
        return []

    def look(self, text, calls, where, players, moves, legal_only) -> list[Candidate]:
        state = self.state
        wanted = normal(text)
        exact, loose = [], []
        for p in players:
            if legal_only:
                try:
                    actions = state.legal_actions(p)
                except Exception:
                    actions = []
                pairs = [(move_of(state, a), a) for a in actions]
            else:
                pairs = [(k, a) for k in moves for a in all_actions(state, k)][:MAX_ENUMERATED]
            for k, a in pairs:
                if k not in moves:
                    continue
                values = decode(self.m.MOVES[k], a)
                by_call = (k, values) in calls
                shown = text_of(state, p, k, values)
                if by_call or (shown is not None and normal(shown) == wanted):
                    exact.append(Candidate(a, p, k, values, shown or text, where))
                elif shown is not None and normal(shown).lower() == wanted.lower():
                    loose.append(Candidate(a, p, k, values, shown, where))
        return exact or loose


def split_args(inside: str) -> list[str]:
    """Arguments separated by top-level commas (a value may be written with brackets)."""
    out, depth, cur = [], 0, []
    for ch in inside:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return out


def legal_texts(state: GameState, player: int) -> list[tuple[int, str]]:
    out = []
    for a in state.legal_actions(player):
        out.append((a, state.action_to_string(player, a)))
    return out


__all__ = ["Candidate", "Finder", "LEGAL", "ILLEGAL", "OTHER_PLAYER", "OTHER_DECISION", "decode", "move_of",
           "movers", "normal", "legal_texts", "text_of"]
