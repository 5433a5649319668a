"""verify/explore: each check catches a planted bug, with a trace that replays to it."""
from __future__ import annotations

import json

import pytest

from helpers import EXAMPLES, engine_from_text, game
from verifier.engine.lib import RuleError
from verifier.engine.runtime import Game, GameState
from verifier.verify.explore import (BACK_MARK, DEADLOCK, INVARIANT, NO_END, REPEAT_MARK, RULE_ERROR, apply_step,
                                     find_lasso, lasso_repeats, render_trace, search, state_key, trace_json)

COUNTER = '''
game counter "A counter that climbs by 1 or 2"
players 2
var count: 0..10 = 0
var turn: Player = 0
flow {
  while count < 8 {
    choose turn {
      move up(k: 1..2) "up {k}" { count += k }
    }
    turn = next_player(turn)
  }
}
outcome { score p: 0 }
invariant small "the count stays below 3": count < 3
'''

STUCK = '''
game stuck "No move once the count reaches 3"
players 1
var count: 0..5 = 0
flow {
  while count < 5 {
    choose 0 {
      move up() "up" require room "the count is below 3": count < 3 { count += 1 }
    }
  }
}
outcome { score p: count }
'''

OVERFLOW = '''
game overflow "A step of 2 can leave the declared range"
players 1
var count: 0..3 = 0
flow {
  while count < 3 {
    choose 0 {
      move up(k: 1..2) "up {k}" { count += k }
    }
  }
}
outcome { score p: count }
'''

TOGGLE = '''
game toggle "Flipping a light can go on forever"
players 2
var on: bool = false
var done: bool = false
var turn: Player = 0
flow {
  while not done {
    chance coin from 0..1
    choose turn {
      move flip() "flip" { on = not on }
      move stop() "stop" require lucky "the light is on and the coin shows 1": on and coin == 1 { done = true }
    }
    turn = next_player(turn)
  }
}
outcome { score p: 0 }
'''


def inline(text: str, players: int | None = None) -> Game:
    return Game(engine_from_text(text), players)


def replayed(g: Game, trace: dict) -> GameState:
    """Through the replay format, extra keys included, as `rulebook play --replay` reads it."""
    return GameState.from_json(g.engine, json.dumps(trace))


def only(findings, kind):
    found = findings.of_kind(kind)
    assert len(found) == 1, findings.findings
    return found[0]


# ------------------------------------------------------------------ state identity

def test_state_key_ignores_bookkeeping_and_sees_moves():
    g = game(EXAMPLES / "tictactoe.rules")
    state = g.new_initial_state()
    key = state_key(state)
    copy = state.clone()
    copy.s.logging = True
    copy.s.log.append(("move", "noise"))
    copy.s.memo = {"x": 1}
    assert state_key(copy) == key and hash(key) == hash(state_key(copy))
    state.apply_action(state.legal_actions()[0])
    assert state_key(state) != key


def test_state_key_counts_a_loop_measure_as_state():
    measured = COUNTER.replace("while count < 8 {", "while count < 8 decreases 8 - count {")
    g = inline(measured)
    assert "M_0" in type(g.new_initial_state().s).__slots__
    found = find_lasso(g, seed=0, max_steps=50)
    assert found.lasso is None and {r.outcome for r in found.runs} == {"ended"}


def test_state_key_refuses_a_field_it_does_not_know():
    g = inline(COUNTER)
    raw = g.new_initial_state().s
    cls = type("State", (), {"__slots__": tuple(type(raw).__slots__) + ("surprise",)})
    odd = cls()
    for f in type(raw).__slots__:
        setattr(odd, f, getattr(raw, f))
    odd.surprise = 0
    fake = g.new_initial_state()
    fake.s = odd
    with pytest.raises(NotImplementedError, match="surprise"):
        state_key(fake)


# ------------------------------------------------------------------ random search

def test_invariant_failure_shortest_trace_replays_to_it():
    g = inline(COUNTER)
    seen = []
    result = search(g, games=40, max_steps=50, seed=3, progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (40, 40) and len(seen) == 40
    assert result.games == 40 and result.steps > 0 and result.longest >= 4
    f = only(result, INVARIANT)
    assert f.name == "small" and "test.rules" in f.where
    assert len(f.history) == 2  # 1+2, 2+1 or 2+2: the shortest way past 2
    state = replayed(g, trace_json(g, f.history, failing=f))
    assert [name for name, _, _ in state.check_invariants()] == ["small"]
    assert not result.of_kind(DEADLOCK) and not result.of_kind(RULE_ERROR) and not result.of_kind(NO_END)


def test_deadlock_is_found_before_the_engine_raises():
    g = inline(STUCK)
    f = only(search(g, games=3, max_steps=50, seed=0), DEADLOCK)
    assert f.message == "P1 has no legal move" and f.where
    state = replayed(g, trace_json(g, f.history, failing=f))
    assert len(f.history) == 3 and not state.is_terminal() and state.legal_actions(0) == []


def test_rule_error_keeps_the_failing_step_outside_the_history():
    g = inline(OVERFLOW)
    f = only(search(g, games=30, max_steps=50, seed=1), RULE_ERROR)
    assert f.where.startswith("test.rules") and f.failing_text.startswith("P1: up ")
    assert len(f.history) == 1  # up 2, then up 2 leaves 0..3
    trace = trace_json(g, f.history, failing=f)
    state = replayed(g, trace)  # the history itself replays cleanly
    with pytest.raises(RuleError) as err:
        apply_step(state, trace["failing_step"])
    assert err.value.where == f.where
    assert f.where in f.describe() and f.failing_text in f.describe()


def test_games_that_do_not_end_are_reported():
    result = search(inline(TOGGLE), games=20, max_steps=4, seed=0)
    assert len(only(result, NO_END).history) == 4


def test_deadline_stops_the_search():
    result = search(inline(COUNTER), games=1000, max_steps=50, seed=0, deadline=0.0)
    assert result.out_of_time and result.games == 0


def test_until_found_stops_at_the_first_game_that_reaches_it():
    everything = search(inline(COUNTER), games=200, max_steps=50, seed=3)
    first = search(inline(COUNTER), games=200, max_steps=50, seed=3, until_found=frozenset({"small"}))
    assert everything.games == 200 and only(everything, INVARIANT).name == "small"
    assert only(first, INVARIANT).name == "small" and first.games < 10 and not first.out_of_time
    # a property no game breaks: every game is played
    assert search(inline(COUNTER), games=30, max_steps=50, seed=3, until_found=frozenset({"nothing"})).games == 30


# ------------------------------------------------------------------ lassos

def test_lasso_found_and_confirmed_by_replay():
    g = inline(TOGGLE)
    found = find_lasso(g, seed=0, max_steps=100)
    lasso = found.lasso
    assert lasso is not None and found.runs[-1].outcome == "lasso"
    assert lasso.cycle_length > 0 and lasso.cycle_start + lasso.cycle_length == len(lasso.history)
    assert lasso_repeats(g, lasso.history, lasso.cycle_start)
    assert not lasso_repeats(g, lasso.history, lasso.cycle_start + 1)  # mid-cycle is not the same state
    # the trace file replays to the same state as its prefix
    trace = trace_json(g, lasso.history, cycle_start=lasso.cycle_start, failing="terminates")
    assert trace["property"] == "terminates" and trace["cycle_start"] == lasso.cycle_start
    prefix = dict(trace, history=lasso.history[:lasso.cycle_start])
    assert state_key(replayed(g, trace)) == state_key(replayed(g, prefix))


def test_lasso_rendering_marks_the_cycle():
    g = inline(TOGGLE)
    lasso = find_lasso(g, seed=0, max_steps=100).lasso
    text = render_trace(g, lasso.history, cycle_start=lasso.cycle_start, failing_text="terminates fails")
    lines = text.splitlines()
    mark = next(i for i, line in enumerate(lines) if REPEAT_MARK in line)
    assert lines[mark + 1].strip().startswith(f"{lasso.cycle_start + 1}. ")
    assert BACK_MARK in text and lines[-1] == "terminates fails"
    assert f"The trace stops here, after {len(lasso.history)} steps." in lines
    assert text.startswith("Flipping a light can go on forever — 2 players")


def test_tictactoe_has_no_lasso_and_no_findings():
    g = game(EXAMPLES / "tictactoe.rules")
    found = find_lasso(g, seed=0, max_steps=100)
    assert found.lasso is None and found.runs and all(r.outcome == "ended" for r in found.runs)
    assert search(g, games=100, max_steps=20, seed=0).findings == []


def test_goofspiel_simultaneous_and_chance():
    g = game(EXAMPLES / "goofspiel.rules", 3)
    found = find_lasso(g, seed=0, max_steps=100)
    # 4 draws and 4 bids: the fifth round is forced and plays itself, as in OpenSpiel
    assert found.lasso is None and all(r.outcome == "ended" and r.steps == 8 for r in found.runs)
    result = search(g, games=50, max_steps=30, seed=0)
    assert result.findings == [] and result.longest == 8


def test_lasso_budget_is_reported():
    found = find_lasso(inline(COUNTER), seed=0, max_steps=2)
    assert found.lasso is None and {r.outcome for r in found.runs} == {"step budget"}


def test_policies_that_break_say_how():
    stuck = find_lasso(inline(STUCK), seed=0, max_steps=50)
    assert stuck.lasso is None and {r.outcome for r in stuck.runs} == {"deadlock"}
    assert "P1 has no legal move" in stuck.runs[0].detail
    overflow = find_lasso(inline(OVERFLOW), seed=0, max_steps=50)
    last = next(r for r in overflow.runs if r.policy == "last legal action")  # up 2, up 2
    assert last.outcome == "rule error" and "outside 0..3" in last.detail
