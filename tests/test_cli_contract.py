"""The command line's contract (issue 17): one JSON shape, the exit-code table, `info`, `--version`,
`--option`/`--players` on every command that builds a game.

The shapes and codes tested here are the ones docs/commands.md documents.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from verifier.cli import main

ROOT = Path(__file__).resolve().parents[1]
TICTACTOE = str(ROOT / "spec" / "examples" / "tictactoe.rules")
GOOFSPIEL = str(ROOT / "spec" / "examples" / "goofspiel.rules")
RAMEN = str(ROOT / "spec" / "ramen.rules")


def run(argv, capsys) -> tuple[int, str, str]:
    capsys.readouterr()
    try:
        code = main(argv)
    except SystemExit as exc:  # main answers every outcome with a code; SystemExit would be a bug
        pytest.fail(f"main raised SystemExit({exc.code}) for {argv}")
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def run_json(argv, capsys) -> tuple[int, dict]:
    code, out, err = run(argv + ["--json"], capsys)
    data = json.loads(out)  # exactly one JSON document on stdout, whatever happened
    assert isinstance(data, dict) and isinstance(data["reports"], list), data
    if code in (0, 4):
        assert "error" not in data
    return code, data


# ---------------------------------------------------------------- one JSON shape

@pytest.mark.parametrize("argv,count", [
    (["check", TICTACTOE], 1),
    (["check", TICTACTOE, GOOFSPIEL], 2),
    (["info", TICTACTOE], 1),
    (["info", TICTACTOE, GOOFSPIEL], 2),
    (["play", TICTACTOE, "--seed", "1"], 1),
    (["play", TICTACTOE, "--games", "5"], 1),
    (["verify", TICTACTOE, "--games", "10", "--property", "termination"], 1),
    (["verify", TICTACTOE, TICTACTOE, "--games", "10", "--property", "termination"], 2),
])
def test_every_command_prints_reports_the_same_for_one_spec_or_many(argv, count, capsys):
    code, data = run_json(argv, capsys)
    assert code == 0
    assert set(data) == {"reports"} and len(data["reports"]) == count
    for report in data["reports"]:
        assert isinstance(report, dict) and report.get("spec")


def test_verify_reports_keep_their_keys(capsys):
    code, data = run_json(["verify", TICTACTOE, "--games", "10", "--property", "termination"], capsys)
    (report,) = data["reports"]
    assert {"spec", "options", "players", "as_expected", "outcome", "seconds", "results", "score_bounds",
            "max_length"} <= set(report)
    # termination's proof (the loops' measures) rests on well_formed: it is settled with it
    assert [r["name"] for r in report["results"]] == ["well_formed", "termination"]
    for result in report["results"]:
        assert {"name", "status", "expected", "method", "seconds", "players", "sentence", "where"} <= set(result)


@pytest.mark.parametrize("argv,code,kind", [
    (["play", "missing.rules"], 1, "spec"),
    (["verify", "missing.rules"], 1, "spec"),
    (["info", "missing.rules"], 1, "spec"),
    (["play", TICTACTOE, "--players", "5"], 1, "spec"),
    (["play", TICTACTOE, "--option", "nope=1"], 1, "spec"),
    (["verify", TICTACTOE, "--property", "nope"], 1, "input"),
    (["verify", TICTACTOE, "--players", "abc"], 2, "usage"),
    (["play", TICTACTOE, "--games", "0"], 2, "usage"),
    (["check", TICTACTOE, "--no-such-flag"], 2, "usage"),
])
def test_errors_are_one_json_object_with_the_exit_code(argv, code, kind, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    got, data = run_json(argv, capsys)
    assert got == code
    error = data["error"]
    assert error["exit_code"] == code and error["kind"] == kind and error["message"]
    if kind == "spec":
        assert error["diagnostics"] and {"path", "line", "col", "message"} <= set(error["diagnostics"][0])


def test_verify_keeps_the_reports_finished_before_an_error(capsys, tmp_path):
    code, data = run_json(["verify", TICTACTOE, str(tmp_path / "missing.rules"), "--games", "10",
                           "--property", "termination"], capsys)
    assert code == 1
    assert len(data["reports"]) == 1 and data["reports"][0]["spec"] == TICTACTOE
    assert "cannot read" in data["error"]["message"]


def test_check_json_caps_diagnostics_per_kind_with_a_count(tmp_path, capsys):
    spec = Path(TICTACTOE).read_text(encoding="utf-8") + "".join(f"\nvar unused{i}: bool = false" for i in range(30))
    path = tmp_path / "warn.rules"
    path.write_text(spec, encoding="utf-8")
    code, data = run_json(["check", str(path)], capsys)
    (report,) = data["reports"]
    assert code == 0 and len(report["diagnostics"]) == 20
    assert report["omitted"] == [{"severity": "warning", "code": "unused", "count": 10}]
    code, data = run_json(["check", str(path), "--max-per-kind", "0"], capsys)
    assert len(data["reports"][0]["diagnostics"]) == 30 and data["reports"][0]["omitted"] == []
    code, out, err = run(["check", str(path)], capsys)
    assert err.count("warning: var 'unused") == 20
    assert f"{path}: ... and 10 more warnings of this kind (unused)" in err


# ---------------------------------------------------------------- the exit-code table

@pytest.mark.parametrize("argv", [
    ["play", TICTACTOE, "--games", "0"],
    ["play", TICTACTOE, "--max-moves", "0"],
    ["play", TICTACTOE, "--players", "abc"],
    ["play", TICTACTOE, "--players", "0"],
    ["play", TICTACTOE, "--seed", "x"],
    ["play", TICTACTOE, "--option", "novalue"],
    ["verify", TICTACTOE, "--players", "abc"],
    ["verify", TICTACTOE, "--players", "2,x"],
    ["verify", TICTACTOE, "--timeout", "0"],
    ["verify", TICTACTOE, "--budget", "-1"],
    ["verify", TICTACTOE, "--k", "0"],
    ["verify", TICTACTOE, "--depth", "-1"],
    ["check", TICTACTOE, "--players", "abc"],
    ["check", TICTACTOE, "--max-per-kind", "-1"],
    ["compile", TICTACTOE, "--players", "x"],
    ["frobnicate"],
    [],
])
def test_a_bad_command_line_exits_2(argv, capsys):
    code, out, err = run(argv, capsys)
    assert code == 2, (argv, err)
    assert "usage: rulebook" in out + err


def test_replay_refuses_the_flags_it_would_ignore(tmp_path, capsys):
    trace = tmp_path / "game.json"
    code, out, err = run(["play", GOOFSPIEL, "--seed", "1", "--json"], capsys)
    trace.write_text(out, encoding="utf-8")
    for flags in (["--players", "2"], ["--games", "3"], ["--seed", "4"], ["--max-moves", "9"],
                  ["--option", "x=1"]):
        code, out, err = run(["play", GOOFSPIEL, "--replay", str(trace)] + flags, capsys)
        assert code == 2, flags
        assert f"leave out {flags[0]}" in err and str(trace) in err


@pytest.mark.parametrize("argv", [
    ["play", TICTACTOE, "--players", "5"],  # the spec allows 2
    ["verify", TICTACTOE, "--players", "3"],
    ["check", TICTACTOE, "--players", "3"],
    ["compile", TICTACTOE, "--players", "3"],
    ["play", TICTACTOE, "--option", "nope=1"],  # the spec has no such option
    ["check", TICTACTOE, "--option", "nope=1"],
    ["compile", TICTACTOE, "--option", "nope=1"],
    ["verify", TICTACTOE, "--option", "nope=1"],
    ["verify", TICTACTOE, "--property", "nope"],
    ["check", "missing.rules"],
])
def test_a_value_the_spec_does_not_allow_exits_1(argv, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(argv, capsys)
    assert code == 1, (argv, err)
    assert "usage:" not in err


def test_help_and_version_exit_0(capsys):
    code, out, err = run(["--version"], capsys)
    assert code == 0 and out.startswith("rulebook ")
    for command in ("check", "compile", "info", "play", "verify"):
        assert run([command, "--help"], capsys)[0] == 0


def test_the_installed_command_exits_with_the_table(tmp_path):
    import subprocess
    script = Path(sys.executable).parent / "rulebook"
    cmd = [str(script)] if script.exists() else [sys.executable, "-m", "verifier.cli"]
    bad = subprocess.run(cmd + ["play", TICTACTOE, "--games", "0", "--json"], capture_output=True, text=True,
                         timeout=120)
    assert bad.returncode == 2 and json.loads(bad.stdout)["error"]["exit_code"] == 2
    version = subprocess.run(cmd + ["--version"], capture_output=True, text=True, timeout=120)
    assert version.returncode == 0 and version.stdout.startswith("rulebook ")


# ---------------------------------------------------------------- info

def test_info_lists_what_ramen_offers(capsys):
    code, data = run_json(["info", RAMEN], capsys)
    assert code == 0
    (info,) = data["reports"]
    assert info["players"] == {"min": 2, "max": 5}
    offer = next(o for o in info["options"] if o["name"] == "grunchie_offer")
    assert offer["values"] == ["literal", "rejoin"] and offer["default"] == "rejoin"
    assert "R-A7" in offer["reason"] and offer["cites"] == ["R-A7"]
    assert {"offer_never_dry", "one_per_kind"} <= {i["name"] for i in info["invariants"]}
    assert {p["name"] for p in info["properties"]} == {"termination", "no_deadlock", "well_formed"}
    assert any(e["property"] == "offer_never_dry" and e["status"] == "violated" and e["when"]
               for e in info["expectations"])
    take = next(m for m in info["moves"] if m["name"] == "take")
    assert take["params"] and take["requires"][0]["label"] == "fits_bowl"
    ids = {r["id"] for r in info["rules"]}
    assert {"R-A7", "R-C3"} <= ids
    assert all(r["cited_at"] and r["cited_at"][0].startswith(RAMEN) for r in info["rules"])


def test_info_text_names_options_moves_and_rule_ids(capsys):
    code, out, err = run(["info", GOOFSPIEL], capsys)
    assert code == 0
    assert "players: 2..4" in out or "players: 2" in out
    assert "moves (" in out and "rule IDs cited" in out and "termination: every game ends" in out


# ---------------------------------------------------------------- --option and --players everywhere

def test_check_sets_a_game_up_with_the_given_players_and_options(capsys):
    assert run(["check", GOOFSPIEL, "--players", "2,3,4"], capsys)[0] == 0
    code, out, err = run(["check", GOOFSPIEL, "--players", "9"], capsys)
    assert code == 1 and "for 2..4 players, not 9" in err
    code, out, err = run(["check", RAMEN, "--option", "grunchie_offer=maybe"], capsys)
    assert code == 1 and "expected literal or rejoin" in err


def test_compile_bakes_the_options_and_the_player_count_in(tmp_path, capsys):
    target = tmp_path / "engine.py"
    code, out, err = run(["compile", RAMEN, "--players", "3", "--option", "grunchie_offer=literal",
                          "-o", str(target)], capsys)
    assert code == 0, err
    source = target.read_text(encoding="utf-8")
    assert "MIN_PLAYERS, MAX_PLAYERS = 3, 3" in source
    assert "'grunchie_offer': 0" in source  # literal is the enum's first value
