"""A loop's measure check asked summand by summand (`verifier/smt/measure_checks.py`).

Shown on `spec/examples/clobber.rules`: the flow's loop `while can_move(turn) decreases
count(i in Idx where board[i] != empty)` checks at every move that the count of stones on the
64-entry board went down. As one query, over a move that writes two entries at positions it
chooses, the solver gives up at a short time-out; each entry's "no more stones here than
before" is a small query, and with those facts the decrease follows.
"""
from __future__ import annotations

import time
from pathlib import Path

from verifier.frontend import check_text
from verifier.smt import measure_checks
from verifier.smt.prove import Prover, _Pool

CLOBBER = Path(__file__).parent.parent / "spec" / "examples" / "clobber.rules"
MOVE = "        board[target(i, d)] = stone_of(turn)\n        board[i] = empty\n"


def obligations(text: str):
    return prover_of(text).obligations()


def test_a_board_count_measure_is_proved_summand_by_summand(monkeypatch):
    text = CLOBBER.read_text(encoding="utf-8")
    verdict = obligations(text)
    assert verdict.status == "proved", verdict.reason
    assert "2 loop measures' decrease summand by summand" in verdict.reason  # one per seat's move
    # without it, the same query at the same time-out is given up on
    monkeypatch.setattr(measure_checks.MeasureChecks, "settle", lambda self, sol, d, alt, part, goals, deadline, pool: part)
    verdict = obligations(text)
    assert verdict.status == "unknown"
    assert "the loop's measure decreases" in verdict.reason


def test_a_move_that_keeps_every_stone_breaks_the_measure():
    """Planted: the moving stone stays where it was as well (a copy, not a move). No entry
    gains a stone, but none loses one: the count stays. The summands are asked, and the check
    is not proved by them; the whole run refutes it."""
    text = CLOBBER.read_text(encoding="utf-8")
    assert MOVE in text
    edited = text.replace(MOVE, "        board[target(i, d)] = stone_of(turn)\n")
    prover = prover_of(text)
    assert asked_summand_by_summand(prover) == (2, 2)  # (checks asked, proved): the spec as it is
    prover = prover_of(edited)
    assert asked_summand_by_summand(prover) == (2, 0)
    verdict = prover.obligations()
    assert verdict.status == "unknown"
    assert "run-time checks not proved" in verdict.reason and "the loop's measure decreases" in verdict.reason


def prover_of(text: str) -> Prover:
    program, diags = check_text(text, str(CLOBBER))
    assert program is not None, [d.message for d in diags]
    prover = Prover(program, 2, {}, 6, budget=60)  # 6 s a move's checks
    prover.invariants()
    return prover


def asked_summand_by_summand(prover: Prover) -> tuple[int, int]:
    """Each move's measure checks handed straight to `MeasureChecks`, over the assumptions the
    obligations are asked from: how many, and how many it proved."""
    checks = measure_checks.MeasureChecks(prover)
    asked = 0
    for d in prover.decisions():
        for alt in prover.alternatives(d):
            goals = {k: o for k, o in enumerate(alt.step.obligations) if o.sentence == "the loop's measure decreases"}
            sol = prover.solver()
            assume = prover._proved_assumptions()
            sol.add(*assume, *prover._at(d, alt), alt.guard)
            checks.settle(sol, d, alt, {k: o.cond for k, o in goals.items()}, goals, time.perf_counter() + 30,
                          _Pool(assume))
            asked += len(goals)
    return asked, checks.settled
