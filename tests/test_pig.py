"""Pig (`spec/examples/pig.rules`) move for move against OpenSpiel's own `pig`: exact
fractions in the returns (3+ players: a loser gets -1/(N-1)) and weighted chance
(piglet: 1/d and 1 - 1/d). Chance outcomes are compared with their probabilities and
returns as floats, exactly; a planted mutation of the spec must be caught."""
from __future__ import annotations

import math
import random
from fractions import Fraction
from pathlib import Path

import pyspiel
import pytest

from verifier.engine.lib import RuleError
from verifier.engine.runtime import Engine, Game
from verifier.frontend import load_program

ROOT = Path(__file__).resolve().parents[1]
PIG = ROOT / "spec" / "examples" / "pig.rules"


def first_disagreement(ours, theirs, games: int, seed: int) -> str | None:
    """Random games played on both in lockstep (the same action on both, chance drawn with
    OpenSpiel's probabilities); the first difference (a rule error of ours is one), or None."""
    try:
        return _first_disagreement(ours, theirs, games, seed)
    except RuleError as exc:
        return f"rule error: {exc}"


def _first_disagreement(ours, theirs, games: int, seed: int) -> str | None:
    rng = random.Random(seed)
    for game in range(games):
        a, b = ours.new_initial_state(), theirs.new_initial_state()
        history: list[int] = []
        while True:
            where = f"game {game}, after actions {history}"
            if a.is_terminal() != b.is_terminal():
                return f"{where}: terminal {a.is_terminal()} vs {b.is_terminal()}"
            if a.is_terminal():
                if a.returns() != list(b.returns()):
                    return f"{where}: returns {a.returns()} vs {list(b.returns())}"
                break
            if a.current_player() != b.current_player():
                return f"{where}: current player {a.current_player()} vs {b.current_player()}"
            if a.is_chance_node():
                oa, ob = a.exact_chance_outcomes(), [tuple(o) for o in b.chance_outcomes()]
                if not same_outcomes(oa, ob):
                    return f"{where}: chance outcomes {oa} vs {ob}"
                actions, probs = zip(*ob)
                action = rng.choices(actions, probs)[0]
            else:
                la, lb = a.legal_actions(), b.legal_actions()
                if la != lb:
                    return f"{where}: legal actions {la} vs {lb}"
                action = la[rng.randrange(len(la))]
                if a.action_to_string(a.current_player(), action) != b.action_to_string(b.current_player(), action):
                    return f"{where}: action {action} is {a.action_to_string(a.current_player(), action)!r} here"
            a.apply_action(action)
            b.apply_action(action)
            history.append(action)
    return None


def same_outcomes(exact: list, theirs: list) -> bool:
    """The same outcomes, each probability OpenSpiel's float of our exact fraction. OpenSpiel
    computes piglet's 1 - 1/d as two float operations, so its float may be one ulp from the
    correctly rounded one (1 - 1/3 gives 0.6666666666666667, 2/3 is 0.6666666666666666):
    one ulp is the tolerance, and only there; every other probability must be equal."""
    if [a for a, _ in exact] != [a for a, _ in theirs]:
        return False
    return all(float(p) == q or abs(Fraction(q) - p) <= Fraction(math.ulp(q)) for (_, p), (_, q) in zip(exact, theirs))


def test_probabilities_are_floats_of_the_exact_fractions(engine):
    state = Game(engine, 2, {"piglet": "true", "diceoutcomes": "3"}).new_initial_state()
    state.apply_action(0)
    assert state.chance_outcomes() == [(0, 1 / 3), (1, 2 / 3)]  # correctly rounded, not 1 - 1/3
    assert same_outcomes(state.exact_chance_outcomes(), [(0, 1 / 3), (1, 1 - 1 / 3)])
    assert not same_outcomes(state.exact_chance_outcomes(), [(0, 1 / 3), (1, 0.6666666666666665)])


@pytest.fixture(scope="module")
def engine():
    program, _ = load_program(str(PIG))
    return Engine(program)


CASES = [
    # (players, options, games)
    (2, {"winscore": 20}, 150),
    (3, {"winscore": 20}, 150),
    (4, {"winscore": 15}, 100),
    (2, {"winscore": 10, "piglet": True}, 150),
    (3, {"winscore": 8, "piglet": True, "diceoutcomes": 3}, 150),
    (2, {"winscore": 30, "horizon": 12}, 100),  # the horizon ends games in a draw
    (3, {}, 3),  # OpenSpiel's defaults
]


@pytest.mark.parametrize("players, options, games", CASES,
                         ids=[f"{p}p-" + ("-".join(f"{k}={v}" for k, v in o.items()) or "default") for p, o, _ in CASES])
def test_pig_matches_openspiel(engine, players, options, games):
    ours = Game(engine, players, {k: str(v) for k, v in options.items()})
    theirs = pyspiel.load_game("pig", {"players": players, **options})
    assert first_disagreement(ours, theirs, games=games, seed=players) is None


def test_exact_fractions_and_weights(engine):
    game = Game(engine, 3, {"winscore": "1", "piglet": "true"})
    state = game.new_initial_state()
    state.apply_action(0)  # roll
    assert state.exact_chance_outcomes() == [(0, Fraction(1, 6)), (1, Fraction(5, 6))]
    state.apply_action(1)  # heads: 1 point
    state.apply_action(1)  # stop: 1 point banked, P1 wins
    assert state.exact_returns() == [1, Fraction(-1, 2), Fraction(-1, 2)]
    assert state.returns() == [1.0, -0.5, -0.5]


MUTATIONS = {
    "loser_share": ("-1 / (num_players - 1)", "-1 / num_players"),
    "coin_odds": ("else 1 - 1 / diceoutcomes", "else 1 - 2 / diceoutcomes"),
    "horizon": ("} elif decisions < horizon {", "} elif decisions <= horizon {"),
}


@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
def test_lockstep_catches_a_mutated_spec(mutation, tmp_path):
    old, new = MUTATIONS[mutation]
    text = PIG.read_text()
    assert old in text
    path = tmp_path / "pig.rules"
    path.write_text(text.replace(old, new))
    program, _ = load_program(str(path))
    ours = Game(Engine(program), 3, {"winscore": "8", "piglet": "true", "horizon": "60"})
    theirs = pyspiel.load_game("pig", {"players": 3, "winscore": 8, "piglet": True, "horizon": 60})
    assert first_disagreement(ours, theirs, games=100, seed=1) is not None


def test_utility_declaration_catches_returns_that_do_not_add_up(tmp_path):
    # the loser's share of the default spec makes every finished game zero-sum; a planted
    # -1/N does not, and the engine stops at the end of the first game someone wins
    from verifier.engine.play import random_step
    text = PIG.read_text()
    assert "utility zero_sum" in text
    path = tmp_path / "pig.rules"
    path.write_text(text.replace("-1 / (num_players - 1)", "-1 / num_players"))
    program, _ = load_program(str(path))
    state = Game(Engine(program), 3, {"winscore": "5"}).new_initial_state()
    rng = random.Random(0)
    with pytest.raises(RuleError, match=r"pig\.rules:9:1: the game is declared zero_sum, so its returns must add up "
                                        r"to 0; they are .*\(sum 1/3\)"):
        while not state.is_terminal():
            random_step(state, rng)
