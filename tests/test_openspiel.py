"""The OpenSpiel adapter (verifier/openspiel.py) and a cross-check of the
compiled tic-tac-toe against OpenSpiel's own C++ `tic_tac_toe`."""
from __future__ import annotations

import glob
import pickle
import random
from pathlib import Path

import pyspiel
import pytest

from verifier.engine.runtime import Engine, Game
from verifier.frontend import load_program
from verifier.openspiel import load

ROOT = Path(__file__).resolve().parents[1]
TICTACTOE = ROOT / "spec" / "examples" / "tictactoe.rules"


# ---------------------------------------------------------------- lockstep comparison

def first_disagreement(new_a, new_b, games: int, seed: int) -> str | None:
    """Play `games` random games on two implementations in lockstep.

    `new_a()` / `new_b()` make initial states with the OpenSpiel-style API
    (current_player, is_terminal, legal_actions, apply_action, returns).  The
    same random action (picked from the agreed legal actions) is applied to
    both.  Returns a description of the first difference, or None.
    """
    rng = random.Random(seed)
    for game in range(games):
        a, b = new_a(), new_b()
        history: list[int] = []
        while True:
            where = f"game {game}, after actions {history}"
            ta, tb = a.is_terminal(), b.is_terminal()
            if ta != tb:
                return f"{where}: terminal {ta} vs {tb}"
            pa, pb = a.current_player(), b.current_player()
            if pa != pb:
                return f"{where}: current player {pa} vs {pb}"
            if ta:
                ra, rb = list(a.returns()), list(b.returns())
                if ra != rb:
                    return f"{where}: returns {ra} vs {rb}"
                break
            la, lb = sorted(a.legal_actions()), sorted(b.legal_actions())
            if la != lb:
                return f"{where}: legal actions {la} vs {lb}"
            action = la[rng.randrange(len(la))]
            a.apply_action(action)
            b.apply_action(action)
            history.append(action)
    return None


def runtime_game(path) -> Game:
    program, _ = load_program(str(path))
    return Game(Engine(program))


@pytest.fixture(scope="module")
def cpp_tictactoe():
    return pyspiel.load_game("tic_tac_toe")


def test_tictactoe_matches_openspiel_cpp(cpp_tictactoe):
    game = runtime_game(TICTACTOE)
    assert first_disagreement(game.new_initial_state, cpp_tictactoe.new_initial_state,
                              games=1000, seed=1) is None


def test_tictactoe_adapter_matches_openspiel_cpp(cpp_tictactoe):
    game = load(TICTACTOE)
    assert first_disagreement(game.new_initial_state, cpp_tictactoe.new_initial_state,
                              games=50, seed=2) is None


MUTATIONS = {
    "diagonal": ("[2, 4, 6]", "[2, 4, 7]"),
    "o_first": ("var turn: Player = 0", "var turn: Player = 1"),
}


@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
def test_cross_check_detects_a_mutated_spec(mutation, tmp_path, cpp_tictactoe):
    old, new = MUTATIONS[mutation]
    text = TICTACTOE.read_text()
    assert old in text
    mutated = tmp_path / "tictactoe.rules"
    mutated.write_text(text.replace(old, new))
    game = runtime_game(mutated)
    found = first_disagreement(game.new_initial_state, cpp_tictactoe.new_initial_state, games=1000, seed=1)
    assert found is not None


def test_mutated_spec_gets_its_own_name(tmp_path):
    mutated = tmp_path / "tictactoe.rules"
    mutated.write_text(TICTACTOE.read_text().replace("[2, 4, 6]", "[2, 4, 7]"))
    original, changed = load(TICTACTOE), load(mutated)
    assert original.get_type().short_name != changed.get_type().short_name
    assert load(TICTACTOE).get_type().short_name == original.get_type().short_name  # reused


# ---------------------------------------------------------------- OpenSpiel's own checks

def test_random_sim_test_tictactoe():
    game = load(TICTACTOE)
    assert game.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert game.get_type().information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert (game.num_distinct_actions(), game.min_utility(), game.max_utility()) == (9, -1.0, 1.0)
    pyspiel.random_sim_test(game, num_sims=50, serialize=True, verbose=False)


def _example_params():
    params = []
    for path in sorted(glob.glob(str(ROOT / "spec" / "examples" / "*.rules"))):
        name = Path(path).stem
        try:
            program, _ = load_program(path)
        except Exception as exc:  # noqa: BLE001 - reported by the test itself
            params.append(pytest.param(path, None, repr(exc), id=f"{name}-broken"))
            continue
        counts = list(range(program.min_players, program.max_players + 1))
        if len(counts) > 4:
            counts = sorted({counts[0], counts[1], counts[-2], counts[-1]})
        params.extend(pytest.param(path, n, None, id=f"{name}-{n}p") for n in counts)
    return params


@pytest.mark.parametrize("path, players, broken", _example_params())
def test_random_sim_test_examples(path, players, broken):
    assert broken is None, f"{path} does not load: {broken}"
    game = load(path, players)
    module = game.runtime_game.module
    GT = pyspiel.GameType
    simultaneous = any(d[0] == "simultaneous" for d in module.DECISIONS)
    assert game.get_type().dynamics == (GT.Dynamics.SIMULTANEOUS if simultaneous else GT.Dynamics.SEQUENTIAL)
    assert game.get_type().chance_mode == (GT.ChanceMode.EXPLICIT_STOCHASTIC if module.MAX_CHANCE_OUTCOMES
                                           else GT.ChanceMode.DETERMINISTIC)
    assert game.num_players() == players
    pyspiel.random_sim_test(game, num_sims=30, serialize=True, verbose=False)


# ---------------------------------------------------------------- serialisation and errors

def test_pickle_and_serialize_round_trip():
    game = load(TICTACTOE)
    state = game.new_initial_state()
    for action in (4, 0, 8):
        state.apply_action(action)
    text = pyspiel.serialize_game_and_state(game, state)
    game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert str(game2) == str(game) and str(state2) == str(state)
    assert state2.history() == [4, 0, 8] and state2.current_player() == 1
    game3, state3 = pickle.loads(pickle.dumps((game, state)))
    assert str(game3) == str(game) and str(state3) == str(state) and state3.history() == [4, 0, 8]
    clone = state.clone()
    clone.apply_action(1)
    assert state.legal_actions() == [1, 2, 3, 5, 6, 7] and clone.legal_actions() == [2, 3, 5, 6, 7]


def test_observation_strings():
    state = load(TICTACTOE).new_initial_state()
    state.apply_action(4)
    assert state.observation_string(0) == state.runtime_state.observation_string(0)
    assert state.information_state_string(1) == state.runtime_state.information_state_string(1)


def test_bad_option_raises_value_error():
    with pytest.raises(ValueError, match="no_such_option"):
        load(TICTACTOE, no_such_option="3")


def test_bad_player_count_raises_value_error():
    with pytest.raises(ValueError, match="players"):
        load(TICTACTOE, players=3)


def test_bad_spec_raises_value_error(tmp_path):
    bad = tmp_path / "bad.rules"
    bad.write_text('game bad "Bad"\nplayers 2\nvar q: Nope = 1\n')
    with pytest.raises(ValueError, match="Nope"):
        load(bad)


def test_max_game_length_counts_decisions_of_the_game_as_loaded(tmp_path, monkeypatch):
    # tic-tac-toe: the census walks all 5,478 states, so the length is exact (9, as pyspiel's),
    # not the loops' bound (10); a spec with an unmeasured `while` and no census falls back to
    # the estimate from random play (4x the longest game)
    assert load(TICTACTOE).max_game_length() == 9
    spec = tmp_path / "loop.rules"
    spec.write_text('game loop "Loop"\nplayers 2\nvar turn: Player = 0\nvar n: 0..9 = 0\n'
                    'flow {\n  while n < 3 {\n    choose turn { move go() "goes" { n += 1 } }\n  }\n}\n'
                    'outcome { score p: n }\n')
    assert load(spec).max_game_length() == 3
    assert load(spec).metadata["how"]["max_game_length"] == "census"
    import verifier.openspiel_metadata as metadata
    monkeypatch.setattr(metadata, "CENSUS_MAX_STATES", 2)
    spec.write_text(spec.read_text() + "# no census\n")
    game = load(spec)
    assert game.metadata["how"]["max_game_length"] == "estimate" and game.max_game_length() == 4 * 3


# ---------------------------------------------------------------- the adapter's Python-side queries

SPEED_CASES = ("kuhn_poker", "goofspiel", "tictactoe", "first_sealed_auction")  # chance, simultaneous, plain


def _queries(state, players: int, via_pyspiel: bool) -> list:
    """Every per-step query a Python loop makes, answered by the state's own methods or (with
    `via_pyspiel`) by pyspiel's C++ methods, which reach the Python state through trampolines."""
    cls = pyspiel.State if via_pyspiel else type(state)
    out = [cls.current_player(state), cls.is_terminal(state), cls.is_chance_node(state),
           cls.is_simultaneous_node(state)]
    for args in [()] + [(p,) for p in range(-4, players + 1)]:
        try:
            out.append(cls.legal_actions(state, *args))
        except Exception as exc:  # noqa: BLE001 - the error itself is compared
            out.append(type(exc).__name__)
    return out


@pytest.mark.parametrize("name", SPEED_CASES)
def test_python_side_queries_answer_as_pyspiel_does(name, capfd):
    # RulebookState answers legal_actions, current_player, is_terminal, is_chance_node and
    # is_simultaneous_node in Python (issue 15): at every node kind, for every player and
    # pseudo-player, the answer (or the error) must be pyspiel's own
    game = load(ROOT / "spec" / "examples" / f"{name}.rules")
    rng = random.Random(3)
    kinds = set()
    for _ in range(10):
        state = game.new_initial_state()
        while True:
            assert _queries(state, game.num_players(), False) == _queries(state, game.num_players(), True)
            kinds.add("terminal" if state.is_terminal() else "chance" if state.is_chance_node() else
                      "simultaneous" if state.is_simultaneous_node() else "player")
            if state.is_terminal():
                break
            if state.is_simultaneous_node():
                state.apply_actions([rng.choice(state.legal_actions(p)) for p in range(game.num_players())])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
    capfd.readouterr()  # pyspiel prints its errors for pseudo-players
    assert "terminal" in kinds and len(kinds) >= 2
