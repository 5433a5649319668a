"""The `utility` declaration: the engine checks every finished game's returns against it."""
from __future__ import annotations

import pytest

from helpers import engine_from_text
from verifier.engine.lib import RuleError
from verifier.engine.runtime import Game

SPEC = '''game g "G"
players 2..3
UTILITY
var turn: Player = 0
var picked: 0..2 = 0
flow {
  choose turn {
    move pick(k: 0..2) "pick {k}" { picked = k }
  }
}
outcome {
  score p: 0
  returns p: if p == 0 then picked else 1
}
'''


def finish(utility: str, k: int, players: int = 2):
    state = Game(engine_from_text(SPEC.replace("UTILITY", utility), "u.rules"), players).new_initial_state()
    state.apply_action(k)
    return state


@pytest.mark.parametrize("utility, k, players", [
    ("utility general_sum", 2, 2), ("utility identical", 1, 3), ("utility constant_sum 3", 2, 2),
    ("utility constant_sum 2", 0, 3), ("", 0, 2),
])
def test_returns_that_satisfy_the_declaration_pass(utility, k, players):
    assert finish(utility, k, players).is_terminal()


@pytest.mark.parametrize("utility, k, message", [
    ("utility identical", 2, r"u\.rules:3:1: the game is declared identical, so its returns must be equal; they are 2, 1"),
    ("utility constant_sum 3", 1, r"declared constant_sum, so its returns must add up to 3; they are 1, 1 \(sum 2\)"),
    ("utility zero_sum", 0, r"declared zero_sum, so its returns must add up to 0; they are 0, 1 \(sum 1\)"),
])
def test_a_violation_is_a_rule_error_at_the_declaration(utility, k, message):
    with pytest.raises(RuleError, match=message):
        finish(utility, k)


def test_engines_export_the_declaration():
    engine = engine_from_text(SPEC.replace("UTILITY", "utility constant_sum -2"), "u.rules")
    assert engine.module.UTILITY == ("constant_sum", -2)
    assert engine_from_text(SPEC.replace("UTILITY", ""), "u.rules").module.UTILITY == ("general_sum", None)


@pytest.mark.parametrize("utility, k, holds", [
    ("utility zero_sum", 2, False), ("utility constant_sum 3", 2, True), ("utility constant_sum 3", 1, False),
    ("utility identical", 1, True), ("utility identical", 0, False),
])
def test_z3_states_the_declaration_where_the_flow_ends(utility, k, holds):
    # the well_formed obligation the proofs see is the engine's check (planted: a sum that is off)
    from verifier.smt.encode import StateVars, is_true, is_false, z3
    from verifier.smt.transition import successor
    program = engine_from_text(SPEC.replace("UTILITY", utility), "u.rules").program
    state = StateVars(program, 2, {}, 0)
    step = successor(program, 2, {}, state, 0, 0, {"k": z3.IntVal(k)}, player=z3.IntVal(0))
    found = [o for o in step.obligations if "utility" in o.sentence]
    assert len(found) == 1 and found[0].sentence == f"the returns satisfy `{utility}`"
    cond = z3.simplify(found[0].cond)
    assert is_true(cond) if holds else is_false(cond)
