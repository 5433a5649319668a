"""`let x: T = v`: the declared type bounds the variable, and a value outside it (or outside
the range an untyped let took from its values) is a rule error that names the variable."""
from __future__ import annotations

import pytest

from helpers import engine_from_text
from verifier.engine.lib import RuleError
from verifier.engine.runtime import Game

SPEC = '''game g "G"
players 2
var turn: Player = 0
flow {
  LET
  while t < 3 decreases 3 - t {
    choose turn {
      move pass() "pass"
    }
    t += 1
  }
  let u: 0..2 = 0
  u = t
}
outcome {
  score p: 0
}
'''


def play(let: str):
    state = Game(engine_from_text(SPEC.replace("LET", let), "let.rules"), 2).new_initial_state()
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    return state


def test_an_untyped_let_names_the_variable_and_the_cause():
    with pytest.raises(RuleError, match=r"let\.rules:10:5: t = 1 is outside 0\.\.0, the range of t \(a let without "
                                        r"a type ranges over the values bound to it; declare one: let t: LO\.\.HI"):
        play("let t = 0")


def test_a_typed_let_takes_its_declared_range():
    with pytest.raises(RuleError, match=r"let\.rules:13:7: u = 3 is outside 0\.\.2, the range of u$"):
        play("let t: 0..5 = 0")


def test_a_typed_let_value_is_checked_where_it_is_bound():
    text = SPEC.replace("LET", "let t: 0..5 = 0").replace("let u: 0..2 = 0\n  u = t", "let u: 0..2 = t")
    state = Game(engine_from_text(text, "let.rules"), 2).new_initial_state()
    with pytest.raises(RuleError, match=r"let\.rules:12:17: u = 3 is outside 0\.\.2, the range of u"):
        while not state.is_terminal():
            state.apply_action(state.legal_actions()[0])
