"""The outcome's run-time checks are `well_formed` obligations.

Where the flow ends, the engine computes every player's score and tiebreaks, the winners and the
returns; a rule error there (a definition's result out of its type, a division by zero) is a rule
error of the game. The solver must see those checks too: before they were obligations, a game
whose every ending breaks its scoring had `well_formed` *proved* with play switched off.
"""
from __future__ import annotations

import json

import pytest

from verifier.engine.replayfile import read_replay
from verifier.engine.runtime import Engine
from verifier.smt import transition
from verifier.verify.counterexample import replay
from test_verify import program_of, run

GAME = '''
game ending "Ending"
players 2
var turn: Player = 0
var n: 0..3 = 0
def small(x: 0..3): 0..SMALL_TOP = x
flow {
  while n < 3 decreases 3 - n {
    choose turn {
      move step() "steps" { n += 1 }
    }
    turn = next_player(turn)
  }
}
OUTCOME
'''
# each outcome breaks a rule in every finished game (n is 3 there), in a different clause
BROKEN = {
    "score": "outcome { score p: small(n) }",
    "tiebreak": "outcome {\n  score p: 0\n  tiebreak p: small(n) higher\n}",
    "returns": "outcome {\n  score p: n\n  returns p: 1 / (n - 3)\n}",
    "wins": "outcome {\n  score p: 0\n  wins p if small(n) == 1\n}",
}


def spec(outcome: str, small_top: int = 1) -> str:
    return GAME.replace("SMALL_TOP", str(small_top)).replace("OUTCOME", BROKEN[outcome])


def solver_only(text: str):
    """verify with no random play and no directed search: what the solver path finds."""
    return run(text, games=0)[0]["well_formed"]


@pytest.mark.parametrize("clause", sorted(BROKEN))
def test_a_broken_outcome_is_a_well_formed_violation_the_solver_finds(clause):
    wf = solver_only(spec(clause))
    assert wf.status == "violated", (wf.status, wf.reason)
    # the trace ends in the step that finishes the game, and its replay shows the rule error
    ending = replay(Engine(program_of(spec(clause))), read_replay(json.dumps(wf.trace))).ending
    assert ending.kind == "rule_error" and ending.shown, ending.text


def test_an_outcome_that_fits_is_proved_at_every_end_at_once():
    # `returns` is the one outcome whose break does not come from `small`'s range
    for clause in ("score", "tiebreak", "wins"):
        wf = solver_only(spec(clause, small_top=3))
        assert wf.status == "proved" and "the outcome's at every end at once" in wf.reason, wf.reason


def test_an_outcome_that_fits_only_where_the_moves_end_is_proved_move_by_move():
    # the last move adds 1 or 2, so `n - before - 1` fits 0..1 at the end. The proved facts
    # there are intervals (n in 3..4, before in 1..2), which allow a difference of 3: the
    # question over every end fails, and each move's own final state settles it
    text = (spec("score").replace("= x\n", "= x - 1\n")
            .replace("move step() \"steps\" { n += 1 }", "move step(k: 1..2) \"steps {k}\" { before = n  n += k }")
            .replace("var n: 0..3 = 0", "var n: 0..4 = 0\nvar before: 0..3 = 0")
            .replace("small(n)", "small(n - before)").replace("decreases 3 - n", "decreases 4 - n"))
    wf = solver_only(text)
    assert wf.status == "proved" and "at every end at once" not in wf.reason, wf.reason


def _ends_always_fine(self, assume):
    return True  # planted: the question over every end answers "they all hold" without asking


@pytest.mark.parametrize("plant", ["walk_ends_asking_nothing", "every_end_says_yes"])
def test_with_either_half_planted_away_the_broken_score_is_proved(monkeypatch, plant):
    """The two places the outcome's checks are asked, each planted away in turn: a move's own
    final state (`FlowWalk.outcome_obligations`, the tree before the outcome was an obligation)
    and the question over every end (`Prover._outcome_at_every_end`). Either plant brings back
    the false proof the tests above rule out."""
    from verifier.smt.prove import Prover
    if plant == "walk_ends_asking_nothing":
        monkeypatch.setattr(transition.FlowWalk, "outcome_obligations", lambda self, out, options: [])
    else:
        monkeypatch.setattr(Prover, "_outcome_at_every_end", _ends_always_fine)
    assert solver_only(spec("score")).status == "proved"
