"""Replay files: the one schema that `rulebook play --replay` and `GameState.from_json` read.

A replay file is a JSON object:

- `history` (required): a list of steps; a step is an action id (a whole number, at least 0)
  or, at a simultaneous decision, a list of action ids, one per player;
- `players` (required): a whole number, the player count;
- `options`: an object `NAME: VALUE`, each value a string, a whole number or true/false;
- `game`: the spec's game name (its title is accepted too);
- `cycle_start`: where the cycle of an endless game begins (a position in the history);
- `failing`: what a `verify` trace shows failing: a property name, or an object with
  `property`, `kind`, `message`, `where` and `step`; older traces write these flat
  (`property`, `kind`, `message`, `where`, `failing_step`).

Other keys are ignored (a `play --json` report carries scores and a log), and the
output of `play --json` itself — `{"reports": [one game]}` — is accepted as its game.

Everything else is a `ReplayError` whose message names the file: the checks here
run before a single step is replayed, so no value of any JSON type, at any
nesting depth, reaches the engine in a shape it does not expect.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

# A replay file nests four levels at most ({"reports": [{"history": [[...]]}]}); far deeper
# input is rejected before parsing, because Python's JSON decoder recurses once per level.
MAX_DEPTH = 64

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


class ReplayError(ValueError):
    """A replay file that breaks the schema; `str()` names the file when it has a path."""

    def __init__(self, message: str, path: str | None = None):
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path
        self.plain = message


@dataclass(frozen=True)
class Failing:
    """What a counterexample trace says fails at its end."""

    property: str
    kind: str = ""  # invariant, deadlock, rule_error, no_end... as verify names it; "" if unsaid
    message: str = ""
    where: str = ""  # file:line:col in the spec, "" if unknown
    step: object = None  # a rule error's step: replaying it raises the error (not in the history)


@dataclass(frozen=True)
class ReplayFile:
    path: str | None
    players: int
    history: list
    options: dict = field(default_factory=dict)  # NAME -> value as written (str, int or bool)
    game: str | None = None
    cycle_start: int | None = None
    failing: Failing | None = None


def nesting_depth(text: str) -> int:
    """The deepest nesting of JSON arrays and objects in `text`, brackets in strings aside."""
    depth = deepest = 0
    for m in _BRACKET.finditer(_STRING.sub('""', text)):
        if m.group() in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def read_replay(text: str, path: str | None = None) -> ReplayFile:
    """Parse and check a replay file's text; raise ReplayError (naming `path`) if it is not one."""

    def bad(message: str) -> ReplayError:
        return ReplayError(message, path)

    depth = nesting_depth(text)
    if depth > MAX_DEPTH:
        raise bad(f"not a replay file: JSON nested {depth} levels deep (a replay file needs at most 4)")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise bad(f"not JSON: line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except (ValueError, RecursionError) as exc:  # e.g. an integer of more than 4300 digits
        raise bad(f"not JSON: {exc}") from None
    data = _unwrap_reports(data, bad)
    if not isinstance(data, dict) or not isinstance(data.get("history"), list):
        raise bad("a state is a JSON object with 'players', 'options' and 'history'")
    players = data.get("players")
    if not _is_whole(players):
        raise bad("'players' must be a whole number")
    history = data["history"]
    for i, step in enumerate(history):
        problem = _step_problem(step)
        if problem:
            raise bad(f"history step {i}: {problem}")
    return ReplayFile(path, players, history, _options(data.get("options"), bad), _game(data.get("game"), bad),
                      _cycle_start(data.get("cycle_start"), len(history), bad), _failing(data, bad))


def _unwrap_reports(data, bad):
    """`play --json` output holds its game as the one report."""
    if isinstance(data, dict) and "history" not in data and "reports" in data:
        reports = data["reports"]
        if not isinstance(reports, list) or len(reports) != 1:
            count = len(reports) if isinstance(reports, list) else "no"
            raise bad(f"this JSON output holds {count} reports; a replay needs exactly one game")
        return reports[0]
    return data


def _is_whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _step_problem(step) -> str:
    """Why `step` is not a step ("" if it is one)."""
    if isinstance(step, list):
        if not step:
            return "expected a list of action ids, one per player, got []"
        for a in step:
            if not _is_whole(a) or a < 0:
                return f"expected an action id (a whole number, at least 0) for each player, got {_short(a)}"
        return ""
    if _is_whole(step):
        return "" if step >= 0 else f"an action id is at least 0, got {step}"
    return f"expected an action id or a list of them, got {_short(step)}"


def _short(value) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _options(raw, bad) -> dict:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise bad("'options' must be an object of NAME: VALUE")
    for name, value in raw.items():
        if not isinstance(value, (str, int)) or (isinstance(value, int) and not isinstance(value, bool)
                                                 and abs(value) > 10**18):
            raise bad(f"option {name!r}: expected a string, a whole number or true/false, got {_short(value)}")
    return dict(raw)


def _game(raw, bad) -> str | None:
    if raw is None or isinstance(raw, str):
        return raw
    raise bad(f"'game' must be the game's name, got {_short(raw)}")


def _cycle_start(raw, length: int, bad) -> int | None:
    if raw is None:
        return None
    if not _is_whole(raw) or not 0 <= raw <= length:
        raise bad(f"'cycle_start' must be a position in the history (0..{length}), got {_short(raw)}")
    return raw


def _failing(data: dict, bad) -> Failing | None:
    raw = data.get("failing")
    if raw is None and "property" in data:  # the flat form of older traces
        raw = {"property": data.get("property"), "kind": data.get("kind", ""), "message": data.get("message", ""),
               "where": data.get("where", ""), "step": data.get("failing_step")}
    if raw is None:
        return None
    if isinstance(raw, str):
        raw = {"property": raw}
    if not isinstance(raw, dict):
        raise bad(f"'failing' must be a property name or an object, got {_short(raw)}")
    texts = {}
    for key in ("property", "kind", "message", "where"):
        value = raw.get(key, "")
        if value is None:
            value = ""
        if not isinstance(value, str):
            raise bad(f"the failing property's {key!r} must be a string, got {_short(value)}")
        texts[key] = value
    if not texts["property"]:
        raise bad("the failing property has no name ('property')")
    step = raw.get("step")
    if step is not None:
        problem = _step_problem(step)
        if problem:
            raise bad(f"the failing step: {problem}")
    return Failing(texts["property"], texts["kind"], texts["message"], texts["where"], step)
