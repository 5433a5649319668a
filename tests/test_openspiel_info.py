"""The OpenSpiel adapter's game description, names and tensors (verifier/openspiel.py,
openspiel_metadata.py, openspiel_tensors.py): GameInfo from the game as loaded, stable registered
names with options as parameters, tensors that show what the strings show, and OpenSpiel's own
algorithms (rl_environment, CFR) running on the games; Kuhn poker move for move against pyspiel."""
from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pyspiel
import pytest

import verifier.openspiel_metadata as metadata
from verifier.openspiel import load, register

ROOT = Path(__file__).resolve().parents[1]
TICTACTOE = ROOT / "spec" / "examples" / "tictactoe.rules"
KUHN = ROOT / "spec" / "examples" / "kuhn_poker.rules"
GOOFSPIEL = ROOT / "spec" / "examples" / "goofspiel.rules"
SEEDS = [ROOT / "spec" / name for name in ("ramen.rules", "ramen_ink.rules", "wasabi.rules")]


def _figures(game) -> tuple:
    return (game.num_distinct_actions(), game.max_chance_outcomes(), game.max_game_length(),
            game.min_utility(), game.max_utility(), game.utility_sum(), game.get_type().information,
            game.get_type().utility, game.get_type().dynamics, game.get_type().chance_mode)


# ---------------------------------------------------------------- GameInfo as pyspiel's

def test_tictactoe_info_is_pyspiels():
    ours, theirs = load(TICTACTOE), pyspiel.load_game("tic_tac_toe")
    assert _figures(ours) == _figures(theirs)
    assert ours.get_type().information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert (ours.num_distinct_actions(), ours.max_game_length()) == (9, 9)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_kuhn_info_is_pyspiels(players):
    ours, theirs = load(KUHN, players), pyspiel.load_game("kuhn_poker", {"players": players})
    assert _figures(ours) == _figures(theirs)
    assert ours.metadata["how"]["max_game_length"] == "census"


@pytest.mark.parametrize("returns_type", ["win_loss", "point_difference", "total_points"])
@pytest.mark.parametrize("players", [2, 3])
def test_goofspiel_utility_follows_returns_type_as_pyspiels(returns_type, players):
    """goofspiel's `utility zero_sum when returns_type != total_points`: the GameType of the game
    as loaded says what OpenSpiel's says for the same returns_type, and so does the registered one."""
    ours = load(GOOFSPIEL, players, returns_type=returns_type)
    theirs = pyspiel.load_game("goofspiel", {"players": players, "returns_type": returns_type})
    assert (ours.get_type().utility, ours.utility_sum()) == (theirs.get_type().utility, theirs.utility_sum())
    zero_sum = returns_type != "total_points"
    assert ours.get_type().utility == (pyspiel.GameType.Utility.ZERO_SUM if zero_sum
                                       else pyspiel.GameType.Utility.GENERAL_SUM)
    by_name = pyspiel.load_game(register(GOOFSPIEL), {"players": players, "returns_type": returns_type})
    assert by_name.get_type().utility == ours.get_type().utility


def test_the_registered_game_type_has_the_default_games_utility():
    registered = {t.short_name: t for t in pyspiel.registered_games()}[register(GOOFSPIEL)]
    assert registered.utility == pyspiel.GameType.Utility.ZERO_SUM  # returns_type's default: win_loss


def _write(tmp_path, name: str, text: str) -> Path:
    path = tmp_path / f"{name}.rules"
    path.write_text(text)
    return path


DICE = '''game dice "Dice"
players 2
var roll: 1..6 = 1 {visibility}
var total: array[Player] of 0..60 = 0
var turn: Player = 0
flow {{
  for round in 1..5 {{
    chance r from 1..6
    roll = r
    choose turn {{
      move keep() "keep" {{ total[turn] += roll }}
      move skip() "skip" {{ }}
    }}
    turn = next_player(turn)
  }}
}}
outcome {{ score p: total[p] }}
'''


def test_public_chance_is_perfect_information(tmp_path):
    PI = pyspiel.GameType.Information
    public = load(_write(tmp_path, "public", DICE.format(visibility="")))
    hidden = load(_write(tmp_path, "hidden", DICE.format(visibility="hidden")))
    assert public.get_type().information == PI.PERFECT_INFORMATION
    assert hidden.get_type().information == PI.IMPERFECT_INFORMATION
    # a chance draw kept in a flow variable past a decision is seen by no one
    kept = DICE.format(visibility="").replace("+= roll", "+= r")
    assert load(_write(tmp_path, "kept", kept)).get_type().information == PI.IMPERFECT_INFORMATION
    read_later = DICE.format(visibility="").replace("turn = next_player(turn)", "turn = next_player(turn)\n    roll = r")
    assert load(_write(tmp_path, "later", read_later)).get_type().information == PI.IMPERFECT_INFORMATION
    # a flow variable a move sets is a secret doing
    secret = DICE.format(visibility="").replace("for round in 1..5 {", "let picked = false\n  for round in 1..5 {") \
        .replace('move skip() "skip" { }', 'move skip() "skip" { picked = true }')
    assert secret.count("picked") == 2
    assert load(_write(tmp_path, "secret", secret)).get_type().information == PI.IMPERFECT_INFORMATION


HORIZON = '''game horizon "Horizon"
players 2
option horizon: 1..50 = 3 because "a test"
var t: 0..50 = 0
var turn: Player = 0
flow {
  while t < horizon decreases horizon - t {
    choose turn { move go() "go" { } }
    t += 1
    turn = next_player(turn)
  }
}
outcome { score p: t }
'''


def test_loops_bound_uses_the_loaded_options(tmp_path, monkeypatch):
    monkeypatch.setattr(metadata, "CENSUS_MAX_STATES", 1)  # no census: the static bound alone
    path = _write(tmp_path, "horizon", HORIZON)
    for horizon in (3, 10):
        game = load(path, horizon=str(horizon))
        assert game.metadata["how"]["max_game_length"] == "loops"
        # the measure starts at most at horizon - 0: at most horizon + 1 turns (the loops' bound
        # is one over here), not the 51 of the option's declared maximum
        assert game.max_game_length() == horizon + 1


def test_estimate_and_declared_figures_without_a_census(monkeypatch):
    monkeypatch.setattr(metadata, "CENSUS_MAX_STATES", 1)
    game = load(KUHN, 3, max_game_length=40)
    assert game.metadata["how"]["num_distinct_actions"] == "declared"
    assert game.max_chance_outcomes() == 11 and game.max_game_length() == 40  # Card is 0..10


# ---------------------------------------------------------------- names and parameters

def test_stable_name_and_parameters():
    name = register(ROOT / "spec" / "ramen_ink.rules")
    assert name == "rulebook_ramen_ink"
    game = pyspiel.load_game("rulebook_ramen_ink", {"players": 3})
    assert game.num_players() == 3 and game.get_type().short_name == name
    assert pyspiel.load_game("rulebook_ramen_ink").num_players() == 2  # the spec's minimum
    params = game.get_type().parameter_specification
    assert {"players", "max_game_length", "drawing_order"} <= set(params)
    assert pyspiel.load_game(str(game)).get_parameters() == game.get_parameters()


def test_options_are_typed_parameters_with_their_finite_values():
    name = register(ROOT / "spec" / "wasabi.rules")
    assert pyspiel.load_game(name).get_parameters()["turn_limit"] == 120  # `finite 120`, not 0
    ramen = register(ROOT / "spec" / "ramen.rules")
    game = pyspiel.load_game(ramen, {"narutos": True, "grunchie_offer": "literal"})
    assert game.runtime_game.option_strings()["grunchie_offer"] == "literal"


def test_bad_parameters_get_clear_errors():
    register(ROOT / "spec" / "ramen_ink.rules")
    with pytest.raises(ValueError, match=r"2\.\.5 players, not 9"):
        pyspiel.load_game("rulebook_ramen_ink", {"players": 9})
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'nope'"):
        pyspiel.load_game("rulebook_ramen_ink", {"nope": 1})
    with pytest.raises(ValueError, match="drawing_order"):
        pyspiel.load_game("rulebook_ramen_ink", {"drawing_order": "sideways"})
    with pytest.raises(ValueError, match="drawing_order"):
        load(ROOT / "spec" / "ramen_ink.rules", drawing_order="sideways")


# ---------------------------------------------------------------- tensors

def _random_states(game, count: int, seed: int):
    rng = random.Random(seed)
    states = []
    while len(states) < count:
        state = game.new_initial_state()
        while not state.is_terminal() and len(states) < count:
            if state.is_chance_node():
                state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
                continue
            if state.is_simultaneous_node():
                state.apply_actions([rng.choice(state.legal_actions(p)) for p in range(game.num_players())])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
            states.append(state.clone())
    return states


@pytest.mark.parametrize("path, players", [(TICTACTOE, 2), (KUHN, 3), (GOOFSPIEL, 3)]
                         + [(p, 3) for p in SEEDS], ids=lambda x: getattr(x, "stem", str(x)))
def test_tensors_show_what_the_strings_show(path, players):
    """Equal strings give equal tensors (nothing leaks) and different strings different tensors
    (nothing is lost), for every player, over random states."""
    game = load(path, players)
    assert game.get_type().provides_observation_tensor and game.get_type().provides_information_state_tensor
    by_string: dict = {}
    for state in _random_states(game, 60, seed=3):
        for p in range(players):
            for text, tensor, shape in (
                    (state.observation_string(p), state.observation_tensor(p), game.observation_tensor_shape()),
                    (state.information_state_string(p), state.information_state_tensor(p),
                     game.information_state_tensor_shape())):
                assert [len(tensor)] == shape
                by_string.setdefault(text, set()).add(tuple(tensor))
    assert all(len(tensors) == 1 for tensors in by_string.values())
    assert len({next(iter(t)) for t in by_string.values()}) == len(by_string)


def test_private_state_only_in_its_owners_tensor():
    game = load(KUHN, 2)
    a, b = game.new_initial_state(), game.new_initial_state()
    for action in (0, 1):
        a.apply_action(action)
    for action in (0, 2):
        b.apply_action(action)
    assert a.observation_tensor(0) == b.observation_tensor(0)  # the same own card, 0
    assert a.observation_tensor(1) != b.observation_tensor(1)  # P2 holds 1 in one, 2 in the other
    assert np.asarray(a.observation_tensor(1)).sum() > 0


def test_public_and_all_players_observers():
    from open_spiel.python.observation import make_observation
    P = pyspiel.PrivateInfoType
    game = load(KUHN, 2)
    public = make_observation(game, pyspiel.IIGObservationType(perfect_recall=False, public_info=True,
                                                               private_info=P.NONE))
    every = make_observation(game, pyspiel.IIGObservationType(perfect_recall=False, public_info=True,
                                                              private_info=P.ALL_PLAYERS))
    assert "card" not in public.dict and every.dict["card"].size == 2 * 11  # both players' cards
    tensors = []
    for deal in ((2, 0), (1, 2)):
        state = game.new_initial_state()
        for card in deal:
            state.apply_action(card)
        public.set_from(state, 0)
        every.set_from(state, 0)
        tensors.append((public.tensor.copy(), every.dict["card"].copy()))
    assert (tensors[0][0] == tensors[1][0]).all()      # the deal is nobody's public knowledge
    assert not (tensors[0][1] == tensors[1][1]).all()  # ... and in the all-players view


def test_tictactoe_tensor_layout():
    state = load(TICTACTOE).new_initial_state()
    state.apply_action(4)
    board = np.asarray(state.observation_tensor(0))[:27].reshape(9, 3)  # cell by cell: empty, x, o
    assert board[4].tolist() == [0, 1, 0] and board[0].tolist() == [1, 0, 0]
    info = np.asarray(state.information_state_tensor(0))
    assert info[29:29 + 9].tolist() == [0, 0, 0, 0, 1, 0, 0, 0, 0]  # P1's first move: cell 4


# ---------------------------------------------------------------- OpenSpiel's algorithms

@pytest.mark.parametrize("path, players", [(TICTACTOE, 2), (KUHN, 2)] + [(p, 2) for p in SEEDS] + [(SEEDS[1], 3)],
                         ids=lambda x: getattr(x, "stem", str(x)))
def test_rl_environment_runs(path, players):
    from open_spiel.python import rl_environment
    game = load(path, players)
    env = rl_environment.Environment(game, seed=7)
    spec = env.observation_spec()
    assert spec["info_state"] == tuple(game.information_state_tensor_shape())
    rng = random.Random(7)
    step = env.reset()
    for _ in range(30):
        if step.last():
            step = env.reset()
        legal = step.observations["legal_actions"]
        if env.is_turn_based:
            actions = [rng.choice(legal[step.observations["current_player"]])]
        else:  # one action per player at every node; one without a legal action passes 0
            actions = [rng.choice(legal[p]) if legal[p] else 0 for p in range(players)]
        assert len(step.observations["info_state"][0]) == spec["info_state"][0]
        step = env.step(actions)


def test_alpha_beta_on_tictactoe_is_pyspiels():
    from open_spiel.python.algorithms import minimax
    ours, theirs = load(TICTACTOE), pyspiel.load_game("tic_tac_toe")
    state, native = ours.new_initial_state(), theirs.new_initial_state()
    for action in (4, 0):  # two moves in: the search is short, and the value still a draw
        state.apply_action(action)
        native.apply_action(action)
    assert minimax.alpha_beta_search(ours, state)[0] == minimax.alpha_beta_search(theirs, native)[0] == 0.0


def test_cfr_on_kuhn_is_pyspiels():
    """CFR on the spec's Kuhn poker reaches the same exploitability as on pyspiel's, iteration
    by iteration: the same game tree, with information sets that split it the same way."""
    from open_spiel.python.algorithms import cfr, exploitability
    results = []
    for game in (load(KUHN, 2), pyspiel.load_game("kuhn_poker")):
        solver = cfr.CFRSolver(game)
        values = []
        for _ in range(3):
            solver.evaluate_and_update_policy()
            values.append(exploitability.exploitability(game, solver.average_policy()))
        results.append(values)
    assert results[0] == pytest.approx(results[1], abs=1e-12)
    assert results[0][-1] < results[0][0]


# ---------------------------------------------------------------- Kuhn poker move for move

def kuhn_difference(path: Path, players: int, games: int, seed: int) -> str | None:
    ours, theirs = load(path, players), pyspiel.load_game("kuhn_poker", {"players": players})
    rng = random.Random(seed)
    for g in range(games):
        a, b = ours.new_initial_state(), theirs.new_initial_state()
        while True:
            where = f"game {g}, after {b.history()}"
            if (a.is_terminal(), a.current_player()) != (b.is_terminal(), b.current_player()):
                return f"{where}: player {a.current_player()} vs {b.current_player()}"
            if b.is_terminal():
                if a.returns() != b.returns():
                    return f"{where}: returns {a.returns()} vs {b.returns()}"
                break
            if b.is_chance_node() and a.chance_outcomes() != pytest.approx(b.chance_outcomes()):
                return f"{where}: chance outcomes {a.chance_outcomes()} vs {b.chance_outcomes()}"
            if a.legal_actions() != b.legal_actions():
                return f"{where}: legal actions {a.legal_actions()} vs {b.legal_actions()}"
            action = rng.choice(b.legal_actions())
            if not b.is_chance_node() and a.action_to_string(action) != b.action_to_string(action):
                return f"{where}: action {action} is {a.action_to_string(action)!r} vs {b.action_to_string(action)!r}"
            a.apply_action(action)
            b.apply_action(action)
    return None


@pytest.mark.parametrize("players", [2, 3, 5])
def test_kuhn_lockstep_with_pyspiel(players):
    assert kuhn_difference(KUHN, players, games=300, seed=players) is None


def test_kuhn_lockstep_catches_a_planted_mutation(tmp_path):
    text = KUHN.read_text()
    old = "def in_showdown(p: Player): bool = not betting or bet[p]"
    assert text.count(old) == 1
    mutant = _write(tmp_path, "kuhn_poker", text.replace(old, "def in_showdown(p: Player): bool = true"))
    assert kuhn_difference(mutant, 2, games=300, seed=2) is not None
