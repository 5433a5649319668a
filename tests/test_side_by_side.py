"""Several specs in one `rulebook verify`: their player counts side by side in worker processes
(`verifier/verify/side_by_side.py`), each report whole and in the specs' order, the results those
of one spec at a time."""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

from verifier.cli import main
from verifier.frontend import check_text
from verifier.verify import side_by_side as SB
from verifier.verify.run import Budget, verify

from helpers import EXAMPLES

TICTACTOE = str(EXAMPLES / "tictactoe.rules")
NIM = str(EXAMPLES / "nim.rules")

ADDING = '''game adding "Adding"
players 2
var turn: Player = 0
var total: 0..30 = 0
flow {
  for r in 1..4 {
    choose turn { move add(k: 1..3) "adds {k}" { total += k } }
    turn = next_player(turn)
  }
}
outcome { score p: total }
invariant at_most_12 "four moves of at most 3": total <= 12
invariant at_most_8 "a planted false claim": total <= 8
'''

COUNTING = '''game counting "Counting"
players 2..3
var turn: Player = 0
var moves: 0..20 = 0
flow {
  for r in 1..3 {
    choose turn { move tick() "ticks" { moves += 1 } }
    turn = next_player(turn)
  }
}
outcome { score p: moves }
invariant few "three rounds": moves <= 3
'''


def program(text: str, name: str):
    p, diags = check_text(text, name)
    assert p is not None, [d.message for d in diags]
    return p


def test_the_counts_of_several_specs_run_side_by_side_and_come_back_in_order(monkeypatch, tmp_path):
    log = tmp_path / "tasks.log"
    real = SB.verify_players

    def logged(*args, **kw):  # (runs in the forked worker)
        began = time.monotonic()
        time.sleep(0.5)  # long enough that two tasks given at once overlap
        out = real(*args, **kw)
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(f"{os.getpid()} {args[0].spec.path} {args[2]} {began} {time.monotonic()}\n")
        return out
    monkeypatch.setattr(SB, "verify_players", logged)
    budget = Budget(games=30, timeout=10, proof=30, falsify=5)
    specs = [program(ADDING, "adding.rules"), program(COUNTING, "counting.rules")]
    reports = list(SB.verify_side_by_side([SB.SpecRun(p, {}, None, budget) for p in specs], jobs=2))
    assert [r.spec for r in reports] == ["adding.rules", "counting.rules"]
    assert [r.players for r in reports] == [[2], [2, 3]]
    alone = [verify(p, {}, None, budget) for p in specs]
    for together, one in zip(reports, alone):
        assert [(r.name, r.players, r.status) for r in together.results] == \
            [(r.name, r.players, r.status) for r in one.results]
    assert {(r.name, r.status) for r in reports[0].results} >= {("at_most_12", "proved"), ("at_most_8", "violated")}
    tasks = [line.split() for line in log.read_text().splitlines()]
    assert sorted((spec, int(n)) for _, spec, n, _, _ in tasks) == \
        [("adding.rules", 2), ("counting.rules", 2), ("counting.rules", 3)]
    # each task in a process of its own (none in this one), two of them at once
    assert len({pid for pid, *_ in tasks}) == 3 and str(os.getpid()) not in {pid for pid, *_ in tasks}
    spans = sorted((float(b), float(e)) for *_, b, e in tasks)
    assert spans[1][0] < spans[0][1]


def test_the_command_line_gives_each_spec_its_report_in_order(capsys):
    capsys.readouterr()
    code = main(["verify", TICTACTOE, NIM, "--games", "20", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    reports = json.loads(out)["reports"]
    assert [Path(r["spec"]).name for r in reports] == ["tictactoe.rules", "nim.rules"]
    assert err.count("tictactoe.rules, 2 players: ") == 3 and err.count("nim.rules, 2 players: ") == 4
    # a property the second spec lacks: the first spec's report is kept, then the error
    code = main(["verify", NIM, TICTACTOE, "--property", "piles_shrink", "--json"])
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert code == 1 and "tictactoe.rules: no property 'piles_shrink'" in data["error"]["message"]
    assert [Path(r["spec"]).name for r in data["reports"]] == ["nim.rules"]
