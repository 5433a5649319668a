"""The `rulebook` command line: help, exit codes, determinism, JSON, files, replays.

Exit codes: 0 ok, 1 a problem in the user's spec or input, 2 a bad command
line, 3 an internal error.  No Python traceback reaches the user.
"""
from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from verifier.cli import main
from verifier.engine import play
from verifier.engine.runtime import Engine, Game
from verifier.frontend import load_program

ROOT = Path(__file__).resolve().parents[1]
TICTACTOE = str(ROOT / "spec" / "examples" / "tictactoe.rules")
GOOFSPIEL = str(ROOT / "spec" / "examples" / "goofspiel.rules")


def run(argv, capsys) -> tuple[int, str, str]:
    """main(argv) -> (exit code, stdout, stderr); argparse's SystemExit counts as an exit code."""
    capsys.readouterr()
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


# ---------------------------------------------------------------- help and usage


@pytest.mark.parametrize("argv,options", [
    (["--help"], ["--debug", "check", "compile", "play"]),
    (["check", "--help"], ["--json", "--werror", "SPEC"]),
    (["compile", "--help"], ["-o", "--output", "SPEC"]),
    (["play", "--help"], ["--players", "--seed", "--games", "--option", "--replay", "--max-moves", "--json",
                          "--no-progress"]),
])
def test_help_exits_0_and_names_every_option(argv, options, capsys):
    code, out, err = run(argv, capsys)
    assert code == 0
    for option in options:
        assert option in out, f"{' '.join(argv)} does not mention {option}"


def test_no_subcommand_prints_help_and_exits_2(capsys):
    code, out, err = run([], capsys)
    assert code == 2
    assert "usage: rulebook" in out + err


@pytest.mark.parametrize("argv", [
    ["frobnicate"],
    ["check"],
    ["play"],
    ["play", TICTACTOE, "--seed", "seven"],
    ["play", TICTACTOE, "--no-such-flag"],
    ["compile", TICTACTOE, TICTACTOE],
])
def test_bad_usage_exits_2(argv, capsys):
    code, out, err = run(argv, capsys)
    assert code == 2
    assert "usage: rulebook" in err


# ---------------------------------------------------------------- check


def test_check_tictactoe_is_ok(capsys):
    code, out, err = run(["check", TICTACTOE], capsys)
    assert code == 0
    assert out == f"{TICTACTOE}: ok\n"
    assert err == ""


def test_check_json_parses(capsys):
    code, out, err = run(["check", "--json", TICTACTOE], capsys)
    assert code == 0
    data = json.loads(out)
    assert data == {"reports": [{"spec": TICTACTOE, "ok": True, "diagnostics": [], "omitted": []}]}


def test_check_json_reports_errors_as_data(tmp_path, capsys):
    bad = tmp_path / "bad.rules"
    bad.write_text('game g "G"\nplayers 2\nvar x: 0..3 = 9\n', encoding="utf-8")
    code, out, err = run(["check", "--json", str(bad)], capsys)
    assert code == 1
    (result,) = json.loads(out)["reports"]
    assert result["spec"] == str(bad) and result["ok"] is False
    codes = {d["code"] for d in result["diagnostics"]}
    assert {"missing-decl", "range"} <= codes
    for d in result["diagnostics"]:
        assert d["path"] == str(bad) and d["severity"] in ("error", "warning")
        if d["code"] == "missing-decl":  # about the whole file: line 0, no place in it
            assert d["line"] == 0 and d["col"] == 0
        else:
            assert d["line"] >= 1 and d["col"] >= 1


def test_check_werror_fails_on_a_warning(tmp_path, capsys):
    spec = Path(TICTACTOE).read_text(encoding="utf-8") + "\nvar unused_thing: bool = false\n"
    path = tmp_path / "warn.rules"
    path.write_text(spec, encoding="utf-8")
    assert run(["check", str(path)], capsys)[0] == 0
    code, out, err = run(["check", "--werror", str(path)], capsys)
    assert code == 1
    assert "warning: var 'unused_thing' is never used" in err


def test_nonexistent_spec_exits_1_without_traceback(tmp_path, capsys):
    missing = str(tmp_path / "nope.rules")
    for argv in (["check", missing], ["compile", missing], ["play", missing]):
        code, out, err = run(argv, capsys)
        assert code == 1, argv
        assert f"cannot read {missing}" in err


@pytest.mark.parametrize("data", [bytes(range(256)), b'game g "\xff\xfe"\nplayers 2\n', b"\x80"])
def test_binary_or_non_utf8_spec_exits_1(data, tmp_path, capsys):
    path = tmp_path / "binary.rules"
    path.write_bytes(data)
    for argv in (["check", str(path)], ["play", str(path)]):
        code, out, err = run(argv, capsys)
        assert code == 1
        assert "is not UTF-8 text" in err and str(path) in err


def test_directory_as_spec_exits_1(tmp_path, capsys):
    code, out, err = run(["check", str(tmp_path)], capsys)
    assert code == 1
    assert f"cannot read {tmp_path}" in err


# ---------------------------------------------------------------- compile


def test_compile_to_file_gives_python(tmp_path, capsys):
    target = tmp_path / "engine.py"
    code, out, err = run(["compile", TICTACTOE, "-o", str(target)], capsys)
    assert code == 0 and out == "" and err == ""
    source = target.read_text(encoding="utf-8")
    compile(source, str(target), "exec")
    code, out, err = run(["compile", TICTACTOE], capsys)
    assert code == 0 and out == source


def test_compile_to_unwritable_path_exits_1(tmp_path, capsys):
    code, out, err = run(["compile", TICTACTOE, "-o", str(tmp_path / "no" / "such" / "dir.py")], capsys)
    assert code == 1
    assert err.startswith("error: cannot write ")


# ---------------------------------------------------------------- play


@pytest.mark.parametrize("spec", [TICTACTOE, GOOFSPIEL])
def test_play_same_seed_same_game(spec, capsys):
    first = run(["play", spec, "--seed", "7"], capsys)
    second = run(["play", spec, "--seed", "7"], capsys)
    assert first[0] == 0
    assert first == second
    assert "Final scores:" in first[1]


def test_play_different_seeds_differ(capsys):
    outs = {run(["play", TICTACTOE, "--seed", str(s)], capsys)[1].split("\n", 1)[1] for s in range(6)}
    assert len(outs) > 1


def test_play_many_games_json_summary(capsys):
    code, out, err = run(["play", TICTACTOE, "--games", "50", "--json"], capsys)
    assert code == 0
    (summary,) = json.loads(out)["reports"]
    assert summary["kind"] == "summary"
    assert summary["games"] == 50
    assert summary["games_per_second"] is None or summary["games_per_second"] > 0
    assert 5 <= summary["mean_length"] <= 9  # tic-tac-toe ends after 5 to 9 moves
    assert [s["seat"] for s in summary["seats"]] == ["P1", "P2"]
    for seat in summary["seats"]:
        assert 0 <= seat["win_rate"] <= 1


def test_play_one_game_json(capsys):
    code, out, err = run(["play", TICTACTOE, "--seed", "3", "--json"], capsys)
    assert code == 0
    (report,) = json.loads(out)["reports"]
    assert report["kind"] == "game"
    assert report["ended"] is True and report["seed"] == 3
    assert report["length"] == len(report["history"])
    assert len(report["scores"]) == 2


def test_play_unknown_option_exits_1(capsys):
    code, out, err = run(["play", TICTACTOE, "--option", "nope=1"], capsys)
    assert code == 1
    assert "unknown option 'nope'" in err
    assert "this spec's options: none" in err


def test_play_option_without_value_is_a_bad_command_line(capsys):
    code, out, err = run(["play", TICTACTOE, "--option", "nope"], capsys)
    assert code == 2
    assert err.endswith("error: argument --option: expects NAME=VALUE, got 'nope'\n")


def test_play_too_many_players_exits_1(capsys):
    code, out, err = run(["play", TICTACTOE, "--players", "5"], capsys)
    assert code == 1
    assert "is for 2..2 players, not 5" in err


def test_play_zero_games_is_a_bad_command_line(capsys):
    code, out, err = run(["play", TICTACTOE, "--games", "0"], capsys)
    assert code == 2
    assert "argument --games: must be at least 1, got 0" in err


# ---------------------------------------------------------------- replay


def _saved_game(spec: str, seed: int, players: int | None = None) -> tuple[str, list]:
    """A finished random game as GameState.to_json() text, and its history."""
    program, _ = load_program(spec)
    game = Game(Engine(program), players)
    state = game.new_initial_state()
    rng = random.Random(seed)
    while not state.is_terminal():
        play.random_step(state, rng)
    return state.to_json(), list(state.history)


@pytest.mark.parametrize("spec,players", [(TICTACTOE, None), (GOOFSPIEL, 3)])
def test_replay_reproduces_the_history(spec, players, tmp_path, capsys):
    text, history = _saved_game(spec, seed=5, players=players)
    trace = tmp_path / "game.json"
    trace.write_text(text, encoding="utf-8")
    argv = ["play", spec, "--replay", str(trace)]  # the players come from the file
    code, out, err = run(argv + ["--json"], capsys)
    assert code == 0, err
    (report,) = json.loads(out)["reports"]
    assert report["history"] == history
    assert report["ended"] is True
    # the readable form lists one numbered step per history entry
    code, out, err = run(argv, capsys)
    assert code == 0
    assert sum(1 for line in out.splitlines() if line[:4].strip().isdigit() and line[4:6] == ". ") == len(history)


@pytest.mark.parametrize("content,words", [
    ("{not json", "not JSON"),
    ("[1, 2, 3]", "'history'"),
    ('{"players": 2, "history": [99]}', "history step 0"),
    ('{"players": 2, "history": [0, 0]}', "history step 1"),
    ('{"players": "two", "history": []}', "'players' must be a whole number"),
    ('{"game": "chess", "players": 2, "history": []}', "this state is for game 'chess'"),
    ('{"players": 2, "history": ["x"]}', "history step 0"),
])
def test_malformed_replay_exits_1_naming_the_file(content, words, tmp_path, capsys):
    trace = tmp_path / "broken.json"
    trace.write_text(content, encoding="utf-8")
    code, out, err = run(["play", TICTACTOE, "--replay", str(trace)], capsys)
    assert code == 1, err
    assert str(trace) in err
    assert words in err


def test_missing_replay_file_exits_1(tmp_path, capsys):
    trace = tmp_path / "absent.json"
    code, out, err = run(["play", TICTACTOE, "--replay", str(trace)], capsys)
    assert code == 1
    assert f"cannot read {trace}" in err


# ---------------------------------------------------------------- the installed command


def test_installed_entry_point(tmp_path):
    script = Path(sys.executable).parent / "rulebook"
    cmd = [str(script)] if script.exists() else [sys.executable, "-m", "verifier.cli"]
    ok = subprocess.run(cmd + ["check", TICTACTOE], capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout == f"{TICTACTOE}: ok\n"
    missing = subprocess.run(cmd + ["play", str(tmp_path / "x.rules")], capture_output=True, text=True,
                             timeout=120)
    assert missing.returncode == 1
    assert "cannot read" in missing.stderr and "Traceback" not in missing.stderr
    usage = subprocess.run(cmd + ["bogus"], capture_output=True, text=True, timeout=120)
    assert usage.returncode == 2
