"""Replay files (issue 17): the tour's `play --json > game.json` then `--replay game.json`, one schema
that no JSON value can crash, and counterexample traces that end by showing what fails.

The fuzzer draws any JSON value at any depth (and replay-shaped objects with any values in
them) and checks that reading and replaying it ends in a replay error — exit 1 — or a
replay, never in an internal error (exit 3). Its example count follows the hypothesis
profile, times 10: 1,000 by default, 10,000 under `make test-thorough`.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verifier.cli import EXIT_INTERNAL, exit_code_for, main
from verifier.commands.common import UserError
from verifier.commands.play import load_replay
from verifier.engine.replayfile import MAX_DEPTH, nesting_depth
from verifier.engine.runtime import Engine
from verifier.frontend import load_program

ROOT = Path(__file__).resolve().parents[1]
TICTACTOE = str(ROOT / "spec" / "examples" / "tictactoe.rules")
GOOFSPIEL = str(ROOT / "spec" / "examples" / "goofspiel.rules")


def run(argv, capsys) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


# ---------------------------------------------------------------- the tour's step 3

def test_a_saved_game_replays(tmp_path, capsys):
    code, out, err = run(["play", GOOFSPIEL, "--seed", "1", "--json"], capsys)
    assert code == 0
    saved = tmp_path / "game.json"
    saved.write_text(out, encoding="utf-8")
    code, replayed, err = run(["play", GOOFSPIEL, "--replay", str(saved)], capsys)
    assert code == 0, err
    code, played, err = run(["play", GOOFSPIEL, "--seed", "1"], capsys)
    # the same game: the log and the result, after the header (a replay has no seed)
    assert replayed.split("\n", 1)[1] == played.split("\n", 1)[1]


def test_a_saved_report_alone_and_an_older_title_replay_too(tmp_path, capsys):
    code, out, err = run(["play", GOOFSPIEL, "--seed", "2", "--json"], capsys)
    report = json.loads(out)["reports"][0]
    for data in (report, dict(report, game=report["title"])):  # older files named the game by its title
        saved = tmp_path / "one.json"
        saved.write_text(json.dumps(data), encoding="utf-8")
        assert run(["play", GOOFSPIEL, "--replay", str(saved)], capsys)[0] == 0


# ---------------------------------------------------------------- the schema

@pytest.mark.parametrize("content,words", [
    ('{"players": 2, "history": [[[1]]]}', "history step 0: expected an action id"),
    ('{"players": 2, "history": [1, [1, null]]}', "history step 1: expected an action id"),
    ('{"players": 2, "history": [1, [1.7, 2]]}', "got 1.7"),
    ('{"players": 2, "history": [1.0]}', "history step 0"),
    ('{"players": 2, "history": [true]}', "history step 0"),
    ('{"players": 2, "history": [-1]}', "at least 0"),
    ('{"players": 2, "history": [[]]}', "history step 0"),
    ('{"players": 2.0, "history": []}', "'players' must be a whole number"),
    ('{"players": 2, "options": [], "history": []}', "'options' must be an object"),
    ('{"players": 2, "options": {"x": [1]}, "history": []}', "option 'x'"),
    ('{"players": 2, "history": [], "cycle_start": 5}', "'cycle_start'"),
    ('{"players": 2, "history": [], "failing": 3}', "'failing'"),
    ('{"players": 2, "history": [], "failing": {"property": 3}}', "'property'"),
    ('{"players": 2, "history": [], "failing": {"property": "x", "step": "up"}}', "failing step"),
    ('{"reports": [{}, {}]}', "holds 2 reports"),
    ('{"players": 2, "history": [' + "1" * 5000 + "]}", "not JSON"),
    ("[" * 100_000 + "]" * 100_000, "nested 100000 levels deep"),
    ('{"a": ' * 100_000 + "1" + "}" * 100_000, "nested 100000 levels deep"),
], ids=lambda value: value[:30] if isinstance(value, str) else None)
def test_bad_replay_files_exit_1_naming_the_file(content, words, tmp_path, capsys):
    trace = tmp_path / "bad.json"
    trace.write_text(content, encoding="utf-8")
    code, out, err = run(["play", GOOFSPIEL, "--replay", str(trace)], capsys)
    assert code == 1, err
    assert err.startswith(f"error: {trace}: ") and words in err


def test_bad_options_in_a_replay_name_the_replay_file(tmp_path, capsys):
    trace = tmp_path / "opts.json"
    trace.write_text('{"players": 2, "options": {"nope": 1}, "history": []}', encoding="utf-8")
    code, out, err = run(["play", GOOFSPIEL, "--replay", str(trace)], capsys)
    assert code == 1 and f"{trace}: unknown option 'nope'" in err and GOOFSPIEL not in err
    trace.write_text('{"players": 9, "history": []}', encoding="utf-8")
    code, out, err = run(["play", GOOFSPIEL, "--replay", str(trace)], capsys)
    assert code == 1 and f"{trace}: " in err and "not 9" in err


def test_a_non_utf8_replay_file_exits_1(tmp_path, capsys):
    trace = tmp_path / "binary.json"
    trace.write_bytes(b"\xff\xfe{")
    code, out, err = run(["play", GOOFSPIEL, "--replay", str(trace)], capsys)
    assert code == 1 and "is not UTF-8 text" in err


def test_nesting_depth_ignores_brackets_in_strings():
    assert nesting_depth('{"a": "[[[[{{{{", "b": [[1]]}') == 3
    assert nesting_depth('"\\"[[["') == 0


# ---------------------------------------------------------------- the fuzzer

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 10**20) | st.floats(allow_nan=True) | st.text("ab\"[{", max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text("abh", max_size=3), inner, max_size=3),
    max_leaves=8)
KEYS = st.sampled_from(["game", "players", "options", "history", "cycle_start", "failing", "property", "kind",
                        "failing_step", "reports"])
STEP = st.one_of(st.integers(-1, 12), st.lists(st.integers(-1, 12), max_size=4), JSON)
SHAPED = st.fixed_dictionaries(
    {"players": st.one_of(st.integers(0, 5), JSON), "history": st.one_of(st.lists(STEP, max_size=12), JSON)},
    optional={"options": st.one_of(st.dictionaries(st.sampled_from(["x", "turn_limit"]), JSON, max_size=2), JSON),
              "game": st.one_of(st.sampled_from(["goofspiel", "Goofspiel (5 cards)", "chess"]), JSON),
              "cycle_start": JSON, "failing": JSON, "property": JSON, "kind": JSON, "failing_step": STEP})
@st.composite
def mutated_games(draw):
    """A real game's replay file with one step (or the failing step) replaced by anything."""
    from verifier.engine import play
    from verifier.engine.runtime import Game
    report = play.play_one(Game(goofspiel_engine(), draw(st.integers(2, 4))), draw(st.integers(0, 30)), 100)
    history = list(report["history"])
    data = {"game": "goofspiel", "players": report["players"], "options": report["options"], "history": history}
    where = draw(st.integers(0, len(history)))
    if where < len(history):
        history[where] = draw(STEP)
        data["history"] = history[:draw(st.integers(where, len(history)))]
    else:
        data["failing"] = {"property": "well_formed", "kind": draw(st.sampled_from(["rule_error", "deadlock", "x"])),
                           "step": draw(STEP)}
    return data


DOCUMENTS = st.one_of(JSON, SHAPED, mutated_games(), st.dictionaries(KEYS, JSON, max_size=5),
                      SHAPED.map(lambda d: {"reports": [d]}),
                      st.integers(1, 3000).map(lambda n: "[" * n + "]" * n))

# examples per run: ten times the profile's (ci 40, dev 100, thorough 1000 -> 10,000)
FUZZ_EXAMPLES = 10 * settings.default.max_examples
_ENGINE: list = []


def goofspiel_engine() -> Engine:
    if not _ENGINE:
        _ENGINE.append(Engine(load_program(GOOFSPIEL)[0]))
    return _ENGINE[0]


def replay_exit_code(text: str) -> int:
    """What `rulebook play SPEC --replay FILE` exits with for a file holding `text`: main's own path
    (commands/play.py: load_replay), without recompiling the spec each time."""
    try:
        load_replay(goofspiel_engine(), text, "fuzz.json")
        return 0
    except UserError as exc:
        assert str(exc).startswith("fuzz.json: "), exc
        return exit_code_for(exc)
    except BaseException as exc:  # noqa: BLE001 - what main would make of anything else
        return exit_code_for(exc)


@settings(max_examples=FUZZ_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(DOCUMENTS)
def test_fuzzed_replay_files_never_exit_3(document):
    text = document if isinstance(document, str) else json.dumps(document)
    assert replay_exit_code(text) != EXIT_INTERNAL, text[:500]


def test_the_fuzzed_path_is_mains(tmp_path, capsys):
    """The fuzzer calls load_replay; main's `play --replay` gives the same exit codes."""
    for text in ('{"players": 2, "history": [[[1]]]}', '{"players": 2, "history": [0]}', "[]"):
        trace = tmp_path / "t.json"
        trace.write_text(text, encoding="utf-8")
        code = run(["play", GOOFSPIEL, "--replay", str(trace)], capsys)[0]
        assert code == replay_exit_code(text)


def test_the_depth_limit_is_far_above_any_replay_file():
    assert MAX_DEPTH >= 16


# ---------------------------------------------------------------- counterexamples end with the failing clause

PLANTED = '''game planted "Planted bugs"
players 2
var turn: Player = 0
var total: 0..30 = 0
var moves: 0..20 = 0
flow {
  say "the game begins"
  for r in 1..3 {
    choose turn {
      move add(k: 0..20) "adds {k}" { total += k  moves += 1 }
    }
    turn = next_player(turn)
  }
}
outcome { score p: total }
invariant small "the total stays below 25": total < 25
'''


@pytest.fixture()
def planted_traces(tmp_path, capsys):
    spec = tmp_path / "planted.rules"
    spec.write_text(PLANTED, encoding="utf-8")
    code = main(["verify", str(spec), "--games", "200", "--budget", "20", "--trace-dir", str(tmp_path / "tr"),
                 "--property", "small", "--property", "well_formed", "--no-progress"])
    capsys.readouterr()
    assert code == 1
    return spec, tmp_path / "tr"


def test_an_invariant_trace_ends_with_the_broken_invariant(planted_traces, capsys):
    spec, traces = planted_traces
    code, out, err = run(["play", str(spec), "--replay", str(traces / "planted-small-2p.json")], capsys)
    assert code == 0, err
    assert out.rstrip().endswith("invariant small fails here: the total stays below 25")
    assert f"{spec}:16:1:" in out.splitlines()[-1]
    assert "The state where it fails:" in out


def test_a_rule_error_trace_replays_its_failing_step(planted_traces, capsys):
    spec, traces = planted_traces
    trace = traces / "planted-well_formed-2p.json"
    history = json.loads(trace.read_text())["history"]
    code, out, err = run(["play", str(spec), "--replay", str(trace)], capsys)
    assert code == 0, err
    last = out.rstrip().splitlines()[-1]
    # (which game breaks it depends on which search found it first: random play, or the
    # exhaustive search's shortest game when the searches race the proofs)
    assert f"{spec}:10:39: " in last and re.search(r"→ rule error: total = 3[1-9] is outside 0..30, the range of total",
                                                    last), last
    steps = [line for line in out.splitlines() if line[:4].strip().isdigit() and line[4:6] == ". "]
    assert len(steps) == len(history) + 1  # the failing step is shown too
    code, out, err = run(["play", str(spec), "--replay", str(trace), "--json"], capsys)
    failing = json.loads(out)["reports"][0]["failing"]
    assert failing["kind"] == "rule_error" and failing["shown"] is True


def test_a_trace_that_no_longer_fails_exits_1(planted_traces, capsys, tmp_path):
    spec, traces = planted_traces
    fixed = tmp_path / "fixed.rules"
    fixed.write_text(PLANTED.replace("total < 25", "total <= 30"), encoding="utf-8")
    code, out, err = run(["play", str(fixed), "--replay", str(traces / "planted-small-2p.json")], capsys)
    assert code == 1
    assert "NOT SHOWN" in out and "does not show what the trace says fails" in err


def test_a_say_before_the_first_decision_is_in_the_log(planted_traces, capsys, tmp_path):
    spec, traces = planted_traces
    code, out, err = run(["play", str(spec), "--seed", "1"], capsys)
    assert out.splitlines()[3].strip() == "the game begins"  # after the header, options and a blank line
    code, out, err = run(["play", str(spec), "--replay", str(traces / "planted-small-2p.json")], capsys)
    assert "the game begins" in out
