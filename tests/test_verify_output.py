"""`rulebook verify`'s printing (issue 17, item 6): a line per finished property off a terminal, the
summed time labelled, no unproved bound printed as proved, counterexamples condensed by default
(the moves and the state where the property fails) and whole with --full.
"""
from __future__ import annotations

import json
from pathlib import Path

from verifier.cli import main
from verifier.verify.report import format_report
from verifier.verify.run import Report, Result

ROOT = Path(__file__).resolve().parents[1]
TICTACTOE = str(ROOT / "spec" / "examples" / "tictactoe.rules")
GOOFSPIEL = str(ROOT / "spec" / "examples" / "goofspiel.rules")

DEALT = '''game dealt "Dealt"
players 2
var turn: Player = 0
var deck: set of 0..9 = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
var total: 0..100 = 0
flow {
  for r in 1..6 {
    chance card from deck
    remove card from deck
    say "dealt {card}"
  }
  for r in 1..3 {
    choose turn {
      move add(k: 0..9) "adds {k}" { total += k }
    }
    say "the board after the move: {total}"
    turn = next_player(turn)
  }
}
outcome { score p: total }
invariant small "the total stays below 12": total < 12
'''


def verify(argv, capsys) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["verify"] + argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def test_off_a_terminal_each_finished_property_prints_a_line_as_it_comes(capsys):
    code, out, err = verify([TICTACTOE, "--games", "20"], capsys)
    assert code == 0
    lines = out.splitlines()
    table = lines.index(TICTACTOE)
    progress = [line for line in lines[:table] if line.startswith("[")]
    assert len(progress) == 3  # termination, no_deadlock, well_formed, before the table
    assert all("tictactoe.rules, 2 players: " in line for line in progress)
    assert any(line.endswith("s)") and " termination proved (bounded, " in line for line in progress)


def test_no_progress_and_json_keep_standard_output_clean(capsys):
    code, out, err = verify([TICTACTOE, "--games", "20", "--no-progress"], capsys)
    assert not out.startswith("[")
    code, out, err = verify([TICTACTOE, "--games", "20", "--json"], capsys)
    json.loads(out)  # nothing else on standard output
    assert err.count("tictactoe.rules, 2 players: ") == 3  # the lines go to standard error instead


def test_the_summed_time_column_says_so(capsys):
    code, out, err = verify([GOOFSPIEL, "--players", "2,3", "--property", "termination", "--no-progress"], capsys)
    assert "Σ time" in out and "(Σ time: the seconds of a row's player counts, added up)" in out
    code, out, err = verify([GOOFSPIEL, "--players", "2", "--property", "termination", "--no-progress"], capsys)
    assert "Σ time" not in out and " time " in out


def _report(termination: str) -> Report:
    report = Report("game.rules", {}, [2])
    report.results.append(Result("termination", "every game ends", "", termination, "proved", "bounded", 1.0,
                                 "", 2))
    report.lengths[2] = {"decisions": 12, "chance": 3}
    return report


def test_a_bound_is_printed_only_where_termination_is_proved():
    assert "longest game (proved bound): 2 players: 12 decisions" in format_report(_report("proved"))
    assert "longest game" not in format_report(_report("unknown"))
    assert "longest game" not in format_report(_report("violated"))


def test_counterexamples_are_condensed_unless_full(tmp_path, capsys):
    spec = tmp_path / "dealt.rules"
    spec.write_text(DEALT, encoding="utf-8")
    argv = [str(spec), "--games", "100", "--property", "small", "--no-progress", "--budget", "10"]
    code, out, err = verify(argv, capsys)
    assert code == 1
    game = out[out.index("── small is violated"):]
    assert "   1–6. chance: 6 draws" in game  # a deal is one line
    assert "dealt " not in game and "the board after the move" not in game  # no `say` lines
    assert "(the moves only: --full shows the whole log)" in game
    assert "The state where it fails:" in game and "    total: " in game
    assert game.rstrip().splitlines()[-1].endswith("invariant small fails here: the total stays below 12")
    code, out, err = verify(argv + ["--full"], capsys)
    game = out[out.index("── small is violated"):]
    assert "dealt " in game and "the board after the move" in game and "chance: card = " in game
    assert game.rstrip().splitlines()[-1].endswith("invariant small fails here: the total stays below 12")
