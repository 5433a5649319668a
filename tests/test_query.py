"""`rulebook query`, `rulebook explain` and the `verifier.query` API: positions, the legality
query, explanations that add up to the engine's scores, and `--can` (yes with a witness that
replays, never with a proof, unknown with a reason)."""
from __future__ import annotations

import json
import random

import pytest

from verifier.cli import main
from verifier.engine.play import random_step
from verifier.engine.runtime import Engine, Game
from verifier.frontend import load_program
from verifier.query import (PositionError, can, check_move, explain, from_example, from_history, from_replay,
                            legal_moves, query_program)
from verifier.query.position import Position

TTT = "spec/examples/tictactoe.rules"
GOOF = "spec/examples/goofspiel.rules"
RAMEN, INK, WASABI = "spec/ramen.rules", "spec/ramen_ink.rules", "spec/wasabi.rules"
_ENGINES: dict = {}


def engine(path: str) -> Engine:
    if path not in _ENGINES:
        _ENGINES[path] = Engine(load_program(path)[0])
    return _ENGINES[path]


def run(argv, capsys) -> tuple[int, str, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


# ------------------------------------------------------------------ the first example

def test_an_occupied_cell_is_illegal_with_its_requirement_text_and_place(capsys):
    code, out, _ = run(["query", TTT, "--history", "x(0,0)", "--move", "o(0,0)", "--json"], capsys)
    assert code == 0
    (r,) = json.loads(out)["reports"]
    assert r["legal"] is False and r["player"] == "P2" and r["reason"] == "illegal"
    (f,) = r["failed"]
    assert f["label"] == "empty_cell" and f["text"] == "the cell must be empty"
    assert f["at"].startswith(TTT + ":") and f["at"].count(":") == 2
    assert "o(0,1)" in r["nearest"] and "o(0,0)" not in r["nearest"]


def test_a_legal_move_says_what_it_changes(capsys):
    code, out, _ = run(["query", TTT, "--history", "x(0,0)", "--move", "o(1,1)"], capsys)
    assert code == 0
    assert "'o(1,1)' is legal for P2" in out
    assert "board[(1,1)]: . -> o" in out and "turn: P2 -> P1" in out and "P1 to move" in out


def test_the_call_form_names_the_same_move():
    pos = from_history(engine(TTT), "x(0,0)")
    assert check_move(pos, "place(0)")["failed"][0]["label"] == "empty_cell"
    assert check_move(pos, "place(4)")["legal"] is True


def test_a_move_of_another_decision_point_is_not_now():
    # Ramen Ink: at the first `take`, a drawing is not a move of this point of the game
    pos = _first_decision(INK, "take")
    r = check_move(pos, "draw(0, 0, 0)")
    assert r["legal"] is False and r["reason"] == "not_now" and "decision at" in r["failed"][0]["text"]


def test_another_players_move_is_not_their_turn():
    pos = _first_decision(INK, "take")
    mover = pos.state.current_player()
    other = 1 - mover
    a = pos.state.legal_actions(mover)[0]
    text = pos.state.action_to_string(mover, a)
    r = check_move(pos, text, player=other)
    assert r["reason"] == "not_your_turn" and r["player"] == f"P{other + 1}"


def test_a_move_that_does_not_exist_is_said_so_with_the_nearest_texts():
    pos = from_history(engine(TTT), "x(0,0)")
    r = check_move(pos, "castle(kingside)")
    assert r["reason"] == "no_such_move" and r["nearest"]


def test_legal_groups_by_kind_and_names_what_rules_a_kind_out():
    pos = _first_decision(INK, "draw")
    r = legal_moves(pos)
    (p,) = r["players"]
    kinds = {k["move"]: k for k in p["moves"]}
    assert kinds["draw"]["legal"]
    # at the bonus decisions every kind is listed; a kind with no legal move names its requirements
    pos = from_history(engine(TTT), "x(0,0); o(1,1)")
    (p,) = legal_moves(pos)["players"]
    assert len(p["moves"][0]["legal"]) == 7


def test_a_kind_with_no_legal_move_names_the_requirements_that_rule_it_out():
    # Ramen: a shōyu that fits a bowl must go into one (R-B2): `cannot_place` has no legal move
    pos, _ = _find(RAMEN, 2, lambda st: "cannot_place" in _kinds(st) and not _legal_of(st, "cannot_place"))
    entry = next(k for p in legal_moves(pos)["players"] for k in p["moves"] if k["move"] == "cannot_place")
    (f,) = entry["ruled_out_by"]
    assert f["label"] == "no_room" and f["rules"] == ["R-B2"] and f["at"].startswith(RAMEN)


# ------------------------------------------------------------------ positions

def test_an_illegal_step_of_a_history_is_named_with_a_caret(capsys):
    code, out, err = run(["query", TTT, "--history", "x(0,0); o(0,0); x(1,1)", "--legal", "--json"], capsys)
    assert code == 1
    error = json.loads(out)["error"]
    assert error["kind"] == "input" and "step 2" in error["message"] and "empty_cell" in error["message"]
    assert "^~~~~~" in error["message"] and "Traceback" not in err


def test_a_step_after_the_end_and_a_wrong_chance_outcome_are_errors():
    with pytest.raises(PositionError, match="already over"):
        from_history(engine(TTT), "x(0,0); o(1,0); x(0,1); o(1,1); x(0,2); o(2,2)")
    with pytest.raises(PositionError, match="not an outcome"):
        from_history(engine(GOOF), "card = 9")


def test_a_simultaneous_step_is_one_move_per_player_as_play_prints_it():
    game = Game(engine(GOOF), 2)
    st = game.new_initial_state()
    rng = random.Random(3)
    for _ in range(4):
        random_step(st, rng)
    from verifier.query.position import step_text
    replay = Game(engine(GOOF), 2).new_initial_state()
    texts = []
    for step in st.history:
        texts.append(step_text(replay, step))
        replay.apply_actions(step) if isinstance(step, list) else replay.apply_action(step)
    # "P1 bid 5 | P2 bid 1" and the `play` log's "P1 bid 5; P2 bid 1" both work
    pos = from_history(engine(GOOF), "; ".join(texts))
    assert pos.state.history == st.history
    pos = from_history(engine(GOOF), "; ".join(t.replace(" | ", "; ") for t in texts))
    assert pos.state.history == st.history


def test_replay_at_and_replay_errors(tmp_path, capsys):
    code, out, _ = run(["play", TTT, "--seed", "2", "--json"], capsys)
    game = tmp_path / "g.json"
    game.write_text(out)
    pos = from_replay(engine(TTT), str(game), at=3)
    assert len(pos.steps) == 3
    with pytest.raises(PositionError, match="only"):
        from_replay(engine(TTT), str(game), at=99)
    # a file of another spec
    code, out, _ = run(["play", GOOF, "--seed", "2", "--json"], capsys)
    other = tmp_path / "goof.json"
    other.write_text(out)
    code, out, err = run(["query", TTT, "--replay", str(other), "--legal", "--json"], capsys)
    assert code == 1 and "goofspiel" in json.loads(out)["error"]["message"] and "Traceback" not in err


def test_an_unknown_example_is_an_error_with_the_known_ones(capsys):
    code, _, err = run(["explain", RAMEN, "--example", "final_scorin"], capsys)
    assert code == 1 and "did you mean 'final_scoring'" in err


@pytest.mark.parametrize("argv", [
    ["query", TTT, "--legal", "--move", "x(0,0)"],
    ["query", TTT],
    ["query", TTT, "--history", "x(0,0)", "--example", "e", "--legal"],
    ["query", TTT, "--at", "3", "--legal"],
    ["query", TTT, "--can", "full()", "--history", "x(0,0)"],
    ["query", TTT, "--legal", "--budget", "3"],
    ["play", TTT, "--bot", "mcts"],
])
def test_bad_command_lines_exit_2(argv, capsys):
    code, _, _ = run(argv + ["--json"], capsys)
    assert code == 2


# ------------------------------------------------------------------ explain

def test_the_rulebook_example_is_explained_term_by_term(capsys):
    code, out, _ = run(["explain", RAMEN, "--example", "final_scoring", "--json"], capsys)
    assert code == 0
    (r,) = json.loads(out)["reports"]
    scores = [p["score"] for p in r["players"]]
    assert scores == [27, 18, 24] and r["winners"] == ["P1"]
    p1 = r["players"][0]
    assert p1["adds_up"] and [t["value"] for t in p1["terms"]] == [18, 5, 0, 4, 0]
    assert any("R-E1" in t["rules"] for t in p1["terms"])
    assert {"name": "valid_count(p)", "value": 3} in p1["terms"][0]["parts"]


@pytest.mark.parametrize("spec,players", [(INK, 2), (INK, 3), (RAMEN, 2), (WASABI, 2), (TTT, 2), (GOOF, 3)])
def test_explained_terms_add_up_to_the_engines_score(spec, players):
    game = Game(engine(spec), players, bounded=True)
    for seed in range(3):
        st = game.new_initial_state()
        rng = random.Random(seed)
        while not st.is_terminal() and len(st.history) < 400:
            random_step(st, rng)
        report = explain(Position(game, st, "random", []))
        assert [p["score"] for p in report["players"]] == st.scores()
        assert all(p["adds_up"] for p in report["players"])
        if st.is_terminal():
            assert report["winners"] == [f"P{w + 1}" for w in st.winners()]


def test_a_tie_is_explained_by_the_tiebreak():
    # Ramen Ink: equal scores, fewer binned toppings wins (I-E1); any tie found in play will do
    game = Game(engine(INK), 2)
    for seed in range(200):
        st = game.new_initial_state()
        rng = random.Random(seed)
        while not st.is_terminal():
            random_step(st, rng)
        sc = st.scores()
        if sc[0] == sc[1]:
            break
    else:
        pytest.skip("no tie in 200 games")
    report = explain(Position(game, st, "random", []))
    assert any(w.startswith("tiebreak 1") for w in report["why"])
    assert report["tiebreaks"][0]["rules"] == ["I-E1"]


# ------------------------------------------------------------------ can

def test_can_never_by_visiting_every_state_and_yes_with_a_shortest_game():
    q = query_program(engine(TTT).program, "has_line(1) and full()")
    a = can(q, 2, budget=20)
    assert a.verdict == "never" and a.method == "exhaustive"
    q = query_program(engine(TTT).program, "has_line(0) and full()")
    a = can(q, 2, budget=20)
    assert a.verdict == "yes" and len(a.witness["history"]) == 9


def test_ramen_ink_a_full_bin_is_reachable_with_a_witness_that_replays(tmp_path, capsys):
    w = tmp_path / "w.json"
    code, out, _ = run(["query", INK, "--players", "2", "--can", "binned[0] == 8", "--witness", str(w),
                        "--json"], capsys)
    assert code == 0
    (r,) = json.loads(out)["reports"]
    assert r["verdict"] == "yes" and r["witness_file"] == str(w)
    pos = from_replay(engine(INK), str(w))
    assert pos.state.s.V_binned[0] == 8
    # the steps as printed are a --history that reaches the same state
    assert from_history(engine(INK), "; ".join(r["steps"]), 2).state.history == pos.state.history
    code, _, _ = run(["play", INK, "--replay", str(w)], capsys)
    assert code == 0


def test_ramen_ink_a_bowl_of_seven_is_proved_never(capsys):
    # a generous budget: the proof takes 3 s alone, several times that on a loaded machine
    code, out, _ = run(["query", INK, "--players", "2", "--can", "in_bowl(0, 1) == 7", "--budget", "90",
                        "--json"], capsys)
    (r,) = json.loads(out)["reports"]
    assert code == 0 and r["verdict"] == "never" and r["method"] == "inductive"


def test_can_unknown_says_why():
    q = query_program(engine(INK).program, "binned[0] == 8")
    a = can(q, 2, budget=2, prove=False)
    assert a.verdict in ("yes", "unknown")
    if a.verdict == "unknown":
        assert "no proof attempted" in a.reason


def test_a_bad_expression_is_a_located_error(capsys):
    code, out, err = run(["query", INK, "--can", "in_bowl(0, 1) = 7", "--json"], capsys)
    assert code == 1
    (d,) = json.loads(out)["error"]["diagnostics"]
    assert d["path"] == "--can" and d["col"] == 15 and "'=='" in " ".join(d["notes"])
    code, _, err = run(["query", INK, "--can", "round == 3"], capsys)
    assert code == 1 and "--can:1:1" in err and "^~~~~" in err
    code, _, err = run(["query", INK, "--can", "in_bowl(0, 1)"], capsys)
    assert code == 1 and "a condition is true or false" in err


# ------------------------------------------------------------------ the interactive table

def test_a_whole_game_is_played_through_standard_input(monkeypatch, capsys):
    import io
    monkeypatch.setattr("sys.stdin", io.StringIO("why x(5,5)\nwhy place(4)\nlegal\nscore\nhistory\n"
                                                 + "1\n" * 9))
    code = main(["play", TTT, "--interactive", "--seed", "1"])
    out = capsys.readouterr().out
    assert code == 0
    assert "1. x(0,0)" in out and "no_such_move" in out and "the game is over" in out and "winners:" in out


def test_the_interactive_table_explains_an_illegal_move_by_its_rule(monkeypatch, capsys):
    import io
    # P1 takes the centre, then asks about P2's cell... and their own occupied one
    monkeypatch.setattr("sys.stdin", io.StringIO("5\nwhy x(1,1)\nquit\n"))
    code = main(["play", TTT, "--interactive", "--seed", "1"])
    out = capsys.readouterr().out
    assert code == 0 and "empty_cell: the cell must be empty" in out and "rulebook query SPEC --history" in out


def test_mcts_bots_play_a_sequential_game(monkeypatch, capsys):
    import io
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 9))
    code = main(["play", TTT, "--interactive", "--bot", "mcts", "--simulations", "20", "--seat", "2"])
    out = capsys.readouterr().out
    assert code == 0 and "the game is over" in out


def test_mcts_refuses_a_simultaneous_game(monkeypatch, capsys):
    import io
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    code = main(["play", GOOF, "--interactive", "--bot", "mcts"])
    assert code == 1 and "sequential" in capsys.readouterr().err


# ------------------------------------------------------------------ helpers

def _kinds(st) -> set:
    if st.is_terminal() or st.s.cur < 0:
        return set()
    return {st.m.MOVES[k][0] for k in st.m.DECISIONS[st.s.pc][3]}


def _legal_of(st, name: str) -> list:
    return [a for a in st.legal_actions(st.s.cur) if st.m.MOVES[_move(st, a)][0] == name]


def _move(st, a) -> int:
    from verifier.query.moves import move_of
    return move_of(st, a)


def _find(spec: str, players: int, pred, options=None, games: int = 200, max_steps: int = 3000):
    game = Game(engine(spec), players, options or {}, bounded=True)
    for seed in range(games):
        st = game.new_initial_state()
        rng = random.Random(seed)
        while not st.is_terminal() and len(st.history) < max_steps:
            if pred(st):
                return Position(game, st, f"seed {seed}", []), seed
            random_step(st, rng)
    pytest.fail("no position found")


def _first_decision(spec: str, move: str) -> Position:
    return _find(spec, 2, lambda st: move in _kinds(st))[0]
