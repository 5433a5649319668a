"""Game results (issue 17, item 7): a draw is a draw — never a shared win, never half a win.

Tic-tac-toe can end with every player tied; a game where some but not all players tie
for the win is a shared win, counted apart from wins and from draws.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

from helpers import engine_from_text, game
from verifier.cli import main
from verifier.engine import play
from verifier.engine.runtime import Game

ROOT = Path(__file__).resolve().parents[1]
TICTACTOE = ROOT / "spec" / "examples" / "tictactoe.rules"

# three players; the lowest roll loses alone, so two players can share the win
SHARED = '''game shared "Shared"
players 3
var turn: Player = 0
var roll: array[Player] of 0..2 = 0
flow {
  for p in players {
    choose p { move pick(k: 0..2) "picks {k}" { roll[p] = k } }
  }
}
outcome { score p: roll[p] }
'''


def test_result_kinds():
    assert play.result_kind([0], 2) == "win"
    assert play.result_kind([0, 1], 2) == "draw"
    assert play.result_kind([0, 2], 3) == "shared_win"
    assert play.result_kind([0], 1) == "win"


def test_a_drawn_game_prints_draw(capsys):
    g = game(TICTACTOE)
    seed = next(s for s in range(200) if play.play_one(g, s, 100)["result"] == "draw")
    capsys.readouterr()
    assert main(["play", str(TICTACTOE), "--seed", str(seed)]) == 0
    out = capsys.readouterr().out
    assert "Draw: every player ties" in out and "Shared win" not in out and "Winner" not in out


def test_the_summary_counts_draws_apart_from_wins():
    g = game(TICTACTOE)
    summary = play.play_many(g, 300, 1, 100, progress=False)
    finished = summary["games"] - summary["unfinished"]
    # count by hand: each finished game is a win for one seat or a draw
    rng, wins, draws = random.Random(1), [0, 0], 0
    for _ in range(300):
        state = g.new_initial_state()
        while not state.is_terminal():
            play.random_step(state, rng)
        winners = state.winners()
        if len(winners) == 2:
            draws += 1
        else:
            wins[winners[0]] += 1
    assert summary["draws"] == draws > 0
    assert [s["wins"] for s in summary["seats"]] == wins
    assert summary["seats"][0]["win_rate"] == round(wins[0] / finished, 4)  # not wins + draws / 2
    assert round(sum(s["win_rate"] for s in summary["seats"]) + summary["draw_rate"], 3) == 1.0


def test_shared_wins_are_their_own_column(capsys):
    g = Game(engine_from_text(SHARED), 3)
    summary = play.play_many(g, 300, 2, 100, progress=False)
    assert any(s["shared_wins"] for s in summary["seats"])
    text = play.format_summary(summary)
    assert "shared" in text.splitlines()[2] and "draws " in text


def test_the_json_summary_has_the_draw_rate(capsys):
    capsys.readouterr()
    main(["play", str(TICTACTOE), "--games", "100", "--json"])
    (summary,) = json.loads(capsys.readouterr().out)["reports"]
    assert 0 < summary["draw_rate"] < 1 and {"wins", "win_rate", "shared_wins"} <= set(summary["seats"][0])
