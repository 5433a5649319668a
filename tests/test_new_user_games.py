"""Small games as a new user writes them (`benchmarks/new_user/`: no loop measures, no
strengthening invariants) verify clean: every property proved at every player count.
The time they take is measured in `benchmarks/new_user_games.py`, never asserted here."""
from __future__ import annotations

from pathlib import Path

import pytest

from verifier.frontend import load_program
from verifier.verify.run import Budget, verify

GAMES = sorted((Path(__file__).resolve().parents[1] / "benchmarks" / "new_user").glob("*.rules"))


def test_the_new_user_games_are_there():
    assert {p.stem for p in GAMES} >= {"tictactoe", "connect_four", "kuhn_poker"}


@pytest.mark.parametrize("path", GAMES, ids=[p.stem for p in GAMES])
def test_a_new_user_game_verifies_clean(path):
    program, diags = load_program(str(path))
    assert program is not None, [d.message for d in diags]
    # a generous budget: this is about the verdicts, which must not depend on the machine's load
    report = verify(program, {}, budget=Budget(proof=240.0))
    wrong = [(r.name, r.players, r.status, r.reason) for r in report.results if r.status != "proved"]
    assert not wrong, wrong
