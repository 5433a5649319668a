"""A counterexample as a person reads it: the game, then the failing clause, checked by replay.

`rulebook play SPEC --replay TRACE` and `rulebook verify`'s report both show a trace
(a replay file, `explore.trace_json`) through `replay` and `render` here:

- `replay` plays the trace's history on the engine with logging on, then confirms what the
  trace says fails: the invariant is false in the last state; the rule error is raised by
  the failing step, which is replayed (it is not in the history); nobody can move at a
  deadlock; an endless game's cycle returns to the state it started from. The `Ending`
  says whether the replay shows it (`shown`), so a trace that no longer fails — after a
  spec edit — says so instead of passing for a counterexample.
- `render` prints the game condensed (the moves, then the state where the property
  fails) or in full (the play log with every `say`), and ends with the failing clause and
  its spec location.

It knows no game: it drives the runtime's API and the generated module's tables only.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..engine import play
from ..engine.lib import RuleError, show_player
from ..engine.replayfile import ReplayError, ReplayFile
from ..engine.runtime import CHANCE, SIMULTANEOUS, Engine, GameState, game_for_replay
from . import explore

REPEAT_MARK = explore.REPEAT_MARK
BACK_MARK = explore.BACK_MARK


@dataclass
class Ending:
    """The failing clause a trace ends with."""

    property: str
    kind: str
    shown: bool | None  # the replay shows the failure; None: nothing to check it by
    text: str  # e.g. "spec.rules:9:1: invariant cap fails here: the total stays below 3"
    where: str = ""

    def as_json(self) -> dict:
        return {"property": self.property, "kind": self.kind, "shown": self.shown, "text": self.text,
                "where": self.where}


@dataclass
class Replayed:
    report: dict  # the play report (`play._finish`), its log up to the failure
    state_text: str  # the state where the failure shows (before a failing step)
    ending: Ending | None  # None when the file names no failure
    cycle_start: int | None = None


def replay(engine: Engine, trace: ReplayFile) -> Replayed:
    """Replay a trace and check its failing clause. A history step that is not legal raises
    ReplayError; a rule error the trace does not announce propagates as RuleError."""
    failing = trace.failing
    expects_error = failing is not None and failing.kind == "rule_error"
    game = game_for_replay(engine, trace)
    try:
        state = game.new_initial_state(logging=True)
    except RuleError as exc:  # the set-up itself breaks
        if not expects_error:
            raise
        return _broken_setup(game, trace, exc)
    cycle_key = explore.state_key(state) if trace.cycle_start == 0 else None
    for i, step in enumerate(trace.history):
        try:
            explore.apply_step(state, step)
        except ValueError as exc:
            raise ReplayError(f"history step {i}: {exc}", trace.path) from None
        if trace.cycle_start is not None and i + 1 == trace.cycle_start:
            cycle_key = explore.state_key(state)
    state_text = str(state)
    ending = None
    if failing is not None or trace.cycle_start is not None:
        ending = _ending(state, trace, cycle_key)
    broke = ending is not None and ending.kind == "rule_error" and ending.shown
    report = play._finish(game, state, None, True, state.is_terminal() and not broke)
    return Replayed(report, state_text, ending, trace.cycle_start)


def _broken_setup(game, trace: ReplayFile, exc: RuleError) -> Replayed:
    report = {"game": game.module.GAME_NAME, "title": game.module.GAME_TITLE, "spec": game.engine.program.spec.path,
              "players": game.num_players, "seed": None, "options": game.option_strings(), "ended": False,
              "length": 0, "history": [], "log": []}
    ending = Ending(trace.failing.property, "rule_error", True,
                    _located(exc.where, f"the set-up breaks before the first decision: rule error: {exc.plain}"),
                    exc.where)
    return Replayed(report, "", ending)


def _located(where: str, text: str) -> str:
    return f"{where}: {text}" if where else text


def _ending(state: GameState, trace: ReplayFile, cycle_key) -> Ending:
    failing = trace.failing
    name = failing.property if failing is not None else "termination"
    kind = failing.kind if failing is not None else ""
    invariants = {entry[0]: entry for entry in state.m.INVARIANTS}
    if trace.cycle_start is not None:
        return _cycle(state, name, trace.cycle_start, cycle_key)
    if kind == "invariant" or (not kind and name in invariants):
        return _invariant(state, name, invariants.get(name), failing.where)
    if kind == "rule_error":
        return _rule_error(state, name, failing)
    if kind == "deadlock":
        return _deadlock(state, name, failing.where)
    if kind == "no_end":
        shown = not state.is_terminal()
        text = failing.message or f"the game has not ended after {len(state.history)} steps"
        return Ending(name, kind, shown, text if shown else "the trace says the game goes on, but it has ended")
    return Ending(name, kind, None, _located(failing.where, failing.message or f"{name} fails here"), failing.where)


def _cycle(state: GameState, name: str, start: int, cycle_key) -> Ending:
    if explore.state_key(state) == cycle_key:
        return Ending(name, "termination", True, f"back at the state after step {start}: the steps since then "
                      "can be taken again and again, so the game never ends")
    return Ending(name, "termination", False, f"the trace says the play returns to the state after step {start}, "
                  "but this state differs: the spec has changed since the trace was written?")


def _invariant(state: GameState, name: str, entry, where: str) -> Ending:
    if entry is None:
        return Ending(name, "invariant", False, f"the trace says invariant {name} fails, but the spec has no "
                      "such invariant now")
    _, sentence, _, declared = entry
    where = declared or where
    try:
        broken = [b[0] for b in state.check_invariants()]
    except RuleError as exc:
        return Ending(name, "invariant", True, _located(exc.where, f"invariant {name} cannot be evaluated here: "
                                                                   f"rule error: {exc.plain}"), where)
    if name in broken:
        return Ending(name, "invariant", True, _located(where, f"invariant {name} fails here: {sentence}"), where)
    return Ending(name, "invariant", False, _located(where, f"the trace says invariant {name} fails here, but it "
                                                            "holds: the spec has changed since the trace was "
                                                            "written?"), where)


def _rule_error(state: GameState, name: str, failing) -> Ending:
    """Replay the failing step (or, without one, ask what the state's decision needs)."""
    try:
        if failing.step is not None:
            text = explore.step_text(state, failing.step)
            explore.apply_step(state, failing.step)  # logged first: the log shows the failing step
            if state.is_terminal():  # the step ends the game: the error is in its outcome
                state.final_outcome()
        else:  # the error is in what the state asks: its invariants, its decision or its scores
            text = ""
            state.check_invariants()
            _who_can_move(state)
            if state.is_terminal():
                state.final_outcome()
    except RuleError as exc:
        where = exc.where or failing.where
        head = f"{text} → rule error: {exc.plain}" if text else f"rule error: {exc.plain}"
        return Ending(name, "rule_error", True, _located(where, head), where)
    except ValueError as exc:  # the failing step is not legal here
        return Ending(name, "rule_error", False, f"the trace's failing step cannot be taken here: {exc}")
    return Ending(name, "rule_error", False, _located(failing.where, "the trace says a rule error happens here, "
                                                                     "but none does: the spec has changed since "
                                                                     "the trace was written?"), failing.where)


def _who_can_move(state: GameState) -> list[tuple[int, list]]:
    """(player, legal actions) for everyone who decides now; chance is asked for its outcomes."""
    if state.is_terminal():
        return []
    who = state.current_player()
    if who == CHANCE:
        return [(CHANCE, [a for a, _ in state.chance_outcomes()])]
    players = range(state.num_players()) if who == SIMULTANEOUS else [who]
    return [(p, state.legal_actions(p)) for p in players]


def _deadlock(state: GameState, name: str, where: str) -> Ending:
    where = where or (state.m.DECISIONS[state.s.pc][4] if not state.is_terminal() else "")
    try:
        stuck = [p for p, legal in _who_can_move(state) if not legal]
    except RuleError as exc:
        return Ending(name, "deadlock", True, _located(exc.where, f"rule error: {exc.plain}"), where)
    if stuck:
        who = ", ".join(show_player(p) for p in stuck if p != CHANCE) or "chance"
        return Ending(name, "deadlock", True, _located(where, f"deadlock: {who} has no legal move here"), where)
    return Ending(name, "deadlock", False, _located(where, "the trace says nobody can move here, but a move is "
                                                           "legal: the spec has changed since the trace was "
                                                           "written?"), where)


# ------------------------------------------------------------------ text

CHANCE_RUN = 4  # this many chance draws in a row, or more, condense to one line


def _chance_run(log: list, i: int) -> int:
    n = 0
    while i + n < len(log) and log[i + n].get("step") == "chance":
        n += 1
    return n


def render(replayed: Replayed, full: bool = False) -> str:
    """The game, the state where it fails and the failing clause. `full`: the play log with every
    `say`; otherwise the moves only (the log's `say` lines are what makes traces long)."""
    r = replayed.report
    log = list(r.get("log", []))
    if replayed.cycle_start is not None:
        steps = [i for i, entry in enumerate(log) if "step" in entry]
        at = steps[replayed.cycle_start] if replayed.cycle_start < len(steps) else len(log)
        log.insert(at, {"say": REPEAT_MARK})
        log.append({"say": BACK_MARK})
    if not full:
        log = [entry for entry in log if "step" in entry or entry["say"] in (REPEAT_MARK, BACK_MARK)]
    opts = ", ".join(f"{k}={v}" for k, v in r["options"].items()) or "none"
    lines = [f"{r['title']} — {r['players']} players, options: {opts}"]
    number, i = 0, 0
    while i < len(log):
        entry = log[i]
        run = _chance_run(log, i) if not full else 1
        if run >= CHANCE_RUN:  # a deal of many cards is one line: the draws are in --full
            lines.append(f"{number + 1:4d}–{number + run}. chance: {run} draws")
            number, i = number + run, i + run
            continue
        if "step" in entry:
            number += 1
            lines.append(f"{number:4d}. {entry['text']}")
        else:
            lines.extend(f"      {line}" for line in entry["say"].splitlines() or [""])
        i += 1
    if not full and len(log) < len(r.get("log", [])):
        lines.append("      (the moves only: --full shows the whole log)")
    if replayed.state_text:
        lines.append("")
        lines.append("The state where it fails:")
        lines.extend(f"    {line}" for line in replayed.state_text.splitlines())
    end = replayed.ending
    if end is not None:
        lines.append("")
        lines.append(end.text if end.shown is not False else f"NOT SHOWN: {end.text}")
    return "\n".join(lines)
