"""Exact fractions and weighted chance in the engine: values, rule errors with their place
(division by zero, a negative weight, no positive weight), and the Z3 side of weights."""
from __future__ import annotations

import random
from fractions import Fraction

import pytest

from helpers import engine_from_text
from verifier.engine.lib import RuleError
from verifier.engine.runtime import Game

SPEC = '''
game g "G"
players 2..3
option lean: -1..3 = 1 because "a test option"
var turn: Player = 0
var rolled: 0..6 = 0
def share(p: Player): rational -1..1 = if p == 0 then 1 else -1 / (num_players - 1)
def odds(d: 1..6): rational -6..6 = if d == 6 then lean else 1 / 2
flow {
  chance d from 1..6 weighted odds(d)
  rolled = d
  choose turn {
    move pass() "pass"
  }
}
outcome {
  score p: rolled / 2 + p
  returns p: share(p) / (2 - rolled // 3 - 1)
}
'''


def game(players=2, **options):
    return Game(engine_from_text(SPEC, "frac.rules"), players, {k: str(v) for k, v in options.items()})


def test_weighted_outcomes_are_exact_and_skip_weight_zero():
    state = game(lean=0).new_initial_state()
    assert state.exact_chance_outcomes() == [(a, Fraction(1, 5)) for a in range(5)]  # 6 has weight 0
    assert state.legal_actions() == [0, 1, 2, 3, 4]
    with pytest.raises(ValueError):
        state.apply_action(5)
    state = game(lean=3).new_initial_state()
    assert state.exact_chance_outcomes()[-1] == (5, Fraction(6, 11))  # 3 / (5 halves + 3)
    assert sum(p for _, p in state.chance_outcomes()) == pytest.approx(1.0)


def test_fractional_scores_and_returns():
    state = game(players=3).new_initial_state()
    state.apply_action(0)  # rolled 1
    state.apply_action(0)
    assert state.scores() == [Fraction(1, 2), Fraction(3, 2), Fraction(5, 2)]
    assert state.exact_returns() == [1, Fraction(-1, 2), Fraction(-1, 2)]
    assert state.returns() == [1.0, -0.5, -0.5]


def test_division_by_zero_is_a_rule_error_at_the_division():
    state = game().new_initial_state()
    state.apply_action(2)  # rolled 3: 2 - 1 - 1 = 0
    state.apply_action(0)
    with pytest.raises(RuleError, match=r"frac\.rules:18:14: division by zero"):
        state.exact_returns()


def test_a_negative_weight_is_a_rule_error():
    with pytest.raises(RuleError, match=r"frac\.rules:10:31: the weight of outcome 6 is -1, below 0"):
        game(lean=-1).new_initial_state().chance_outcomes()


def test_all_zero_weights_are_a_rule_error():
    text = SPEC.replace("else 1 / 2", "else 0")
    with pytest.raises(RuleError, match=r"every outcome of this chance node has weight 0"):
        Game(engine_from_text(text, "frac.rules"), 2, {"lean": "0"}).new_initial_state().chance_outcomes()


def test_random_play_draws_by_weight():
    rng = random.Random(1)
    g = game(lean=3)
    sixes = 0
    for _ in range(2000):
        state = g.new_initial_state()
        action = state.sample_chance(rng)
        sixes += action == 5
    assert 0.45 < sixes / 2000 < 0.65  # 6/11 with the weights, 1/6 if uniform


def test_z3_treats_outcomes_of_positive_weight_as_possible():
    from verifier.smt.encode import StateVars, is_true, z3
    from verifier.smt.transition import chance_draw
    engine = engine_from_text(SPEC, "frac.rules")
    program = engine.program
    state = StateVars(program, 2, {"lean": 0}, 0)
    for outcome, possible in ((1, True), (5, True), (6, False)):
        ok, obligations = chance_draw(program, 2, {"lean": 0}, state, 0, z3.IntVal(outcome))
        assert is_true(z3.simplify(ok)) == possible, outcome
    _, obligations = chance_draw(program, 2, {"lean": -1}, state, 0, z3.IntVal(1))
    broken = [o for o in obligations if not is_true(z3.simplify(o.cond))]
    assert any("not below 0" in o.sentence for o in broken)
