"""Range bounds that name options (`0..goal + 2`): the checker types them at their widest,
and the engine checks every stored value against the options as loaded."""
from __future__ import annotations

import pytest

from helpers import engine_from_text
from verifier.diagnostics import has_errors
from verifier.engine.lib import RuleError
from verifier.engine.runtime import Game
from verifier.frontend import check_text, parse_spec
from verifier.ir.printer import print_spec


SPEC = '''game g "G"
players 2
option goal: 1..9 = 3 because "a test option"
var turn: Player = 0
var total: goal - 1..goal + 2 = goal
def room(): 0..goal = goal - (total - goal + 3)
flow {
  while total < goal + 2 decreases goal + 2 - total {
    choose turn {
      move step() "step" { total += 1 }
    }
  }
  let over: 0..goal + 2 = total
  total = over + STEP
}
outcome {
  score p: total
}
'''


def play(goal: int, step: int = 0):
    engine = engine_from_text(SPEC.replace("STEP", str(step)), "bounds.rules")
    state = Game(engine, 2, {"goal": str(goal)}).new_initial_state()
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    return state


def test_the_static_type_is_the_widest_range():
    program, diags = check_text(SPEC.replace("STEP", "0"), "bounds.rules")
    assert not has_errors(diags)
    t = program.var_types["total"]
    assert (t.lo, t.hi, t.loaded) == (0, 11, (("goal", -1), ("goal", 2)))


@pytest.mark.parametrize("goal", [1, 3, 9])
def test_values_within_the_loaded_range_play(goal):
    assert play(goal).scores() == [goal + 2, goal + 2]


def test_a_value_outside_the_loaded_range_is_a_rule_error():
    # goal + 3 fits the widest range 0..11 for goal = 3, not the loaded 2..5
    with pytest.raises(RuleError, match=r"bounds\.rules:14:11: total = 6 is outside 2\.\.5, the range of total"):
        play(3, step=1)


def test_a_def_result_is_checked_against_the_loaded_range():
    text = SPEC.replace("STEP", "0").replace("score p: total", "score p: room()")
    state = Game(engine_from_text(text, "bounds.rules"), 2, {"goal": "3"}).new_initial_state()
    with pytest.raises(RuleError, match=r"bounds\.rules:6:23: value -2 is outside 0\.\.3"):
        while not state.is_terminal():
            state.apply_action(state.legal_actions()[0])
        state.scores()


def test_bounds_print_and_parse_back():
    spec, _ = parse_spec(SPEC.replace("STEP", "0"), "bounds.rules")
    again, _ = parse_spec(print_spec(spec), "bounds.rules")
    assert again.decls == spec.decls
