"""The score witnesses: a beam search on a seat's score finds the games at the extremes, which
random play does not, and each witness replays to the score it claims."""
from __future__ import annotations

import random
import time

from verifier.engine.play import random_step
from verifier.engine.runtime import Game
from verifier.verify.explore import replay_history
from verifier.verify.score_witness import extreme_games

from helpers import EXAMPLES, engine_from_text

DIGITS = """
game digits "Digits"
players 2
var total: array[Player] of 0..90 = 0
var turn: Player = 0
flow {
  for r in 1..10 {
    choose turn { move pick(k: 0..9) "picks {k}" { total[turn] += k } }
    turn = next_player(turn)
  }
}
outcome { score p: total[p] }
"""


def test_the_beam_reaches_each_seats_extremes_and_the_games_replay():
    game = Game(engine_from_text(DIGITS, "digits.rules"), 2)
    found = extreme_games(game, deadline=time.monotonic() + 2.0, seed=1)
    assert {k: v[0] for k, v in found.items()} == {(0, "high"): 45, (0, "low"): 0, (1, "high"): 45, (1, "low"): 0}
    for (seat, _aim), (value, history) in found.items():
        state = replay_history(game, history)
        assert state.is_terminal() and state.scores()[seat] == value
    # random play, for comparison: 300 games do not come near 45 (five picks, each 0..9)
    rng, best = random.Random(1), 0
    for _ in range(300):
        state = game.new_initial_state()
        while not state.is_terminal():
            random_step(state, rng)
        best = max(best, state.scores()[0])
    assert best < 45


def test_a_wider_round_that_cannot_end_in_the_time_left_is_not_begun(monkeypatch):
    """Each round of beams is twice as wide as the last, so takes about twice as long; one that
    cannot end before the deadline is not begun (cut short, each of its beams stops before the
    game ends: a dice game's second round spent 6 s of its count's 14 and found nothing)."""
    from verifier.verify import score_witness as W
    game = Game(engine_from_text(DIGITS, "digits.rules"), 2)
    widths = []

    def slow_beam(game, seat, aim, rng, width, until, max_steps, found, bound=None):
        widths.append(width)
        time.sleep(0.05)  # a round of 4 beams: 0.2 s, and the next would need 0.4 s
        found[(seat, aim)] = (len(widths), [])  # always a better game: only the time stops it
    monkeypatch.setattr(W, "_beam", slow_beam)
    extreme_games(game, deadline=time.monotonic() + 0.5, seed=1)
    assert widths == [W.WIDTH] * 4  # 0.3 s left after the first round: the second is not begun
    widths.clear()
    monkeypatch.setattr(W, "ROUND_GROWTH", 0)
    extreme_games(game, deadline=time.monotonic() + 0.5, seed=1)
    assert W.WIDTH * 2 in widths


def test_where_the_scores_do_not_tell_states_apart_random_games_to_the_end_rank_them(monkeypatch):
    """A sealed-bid auction is scored only at its end: until then every state of the beam has
    the same score and the beam keeps states at random (at 6 players some seat's best stayed
    at 0-6 of a possible 10). Ranked by a random game from each state to its end (itself a
    witness), every seat reaches 7 or more; the witnesses replay to the scores they claim."""
    from verifier.verify import score_witness as W
    game = Game(engine_from_text((EXAMPLES / "first_sealed_auction.rules").read_text(encoding="utf-8"),
                                 "first_sealed_auction.rules"), 6)
    # the search ends where every seat's high witness reaches 7 (given as the bound each aim
    # meets) and every low one is found: in a tenth of a second, where a 4 s deadline fell short
    # once under a full suite's load; without the ranking it ends (a wider beam finds nothing
    # better) with a seat at 0, after about 4 s
    bounds = {(seat, "high"): 7 for seat in range(6)} | {(seat, "low"): 10 for seat in range(6)}
    found = extreme_games(game, deadline=time.monotonic() + 30.0, seed=1, bounds=bounds)
    highs = {seat: v[0] for (seat, aim), v in found.items() if aim == "high"}
    assert len(highs) == 6 and min(highs.values()) >= 7, highs
    for (seat, _aim), (value, history) in found.items():
        state = replay_history(game, history)
        assert state.is_terminal() and state.scores()[seat] == value
    monkeypatch.setattr(W, "_rollout", lambda *args: 0.0)  # the scores alone, as before
    found = extreme_games(game, deadline=time.monotonic() + 4.0, seed=1)
    assert min(v[0] for (seat, aim), v in found.items() if aim == "high") <= 6


def test_an_aim_whose_witness_meets_its_proved_bound_is_searched_no_further(monkeypatch):
    """No game scores beyond a proved bound: a witness that meets it is the best there is. The
    search ends when every aim's witness meets its bound (on a sealed bid's 9 counts it went on
    for 53 s where each met its bound at once); an aim whose bound is not met searches on."""
    from verifier.verify import score_witness as W
    game = Game(engine_from_text(DIGITS, "digits.rules"), 2)
    beams = []
    plain = W._beam

    def counted(*args):
        beams.append(args[1:3])
        return plain(*args)
    monkeypatch.setattr(W, "_beam", counted)
    extremes = {(0, "high"): 45, (0, "low"): 0, (1, "high"): 45, (1, "low"): 0}

    found = extreme_games(game, deadline=time.monotonic() + 30.0, seed=1)
    assert {k: v[0] for k, v in found.items()} == extremes
    unbounded = len(beams)  # rounds of 4 beams, until a wider round finds nothing better

    beams.clear()
    found = extreme_games(game, deadline=time.monotonic() + 30.0, seed=1, bounds=extremes)
    assert {k: v[0] for k, v in found.items()} == extremes
    assert len(beams) <= unbounded - 4  # not the last round, which found nothing better

    beams.clear()  # witnesses known before (random play's) that meet the bounds: no beam at all
    found = extreme_games(game, deadline=time.monotonic() + 30.0, seed=1, bounds=extremes, known=found)
    assert beams == [] and {k: v[0] for k, v in found.items()} == extremes

    beams.clear()  # a bound no game meets leaves its aim searched as before
    extreme_games(game, deadline=time.monotonic() + 30.0, seed=1, bounds={**extremes, (1, "high"): 46})
    assert len(beams) > 4 and set(beams[-2:]) == {(1, "high")}  # the last rounds: that aim alone
