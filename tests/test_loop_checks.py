"""The run-time checks of a decision-free loop that many moves run, asked once for all of them
(`verifier/smt/loop_checks.py`).

Shown on `tests/fixtures/tokens_loop.rules`: after each of a turn's three moves, a loop over the
24 cards completes every ready card the player holds with one of 4 tokens. That the count of
used tokens stays within 0..4 rests on `tokens_kept` (used + unused == 4) between the loop's
iterations; the loop is read on its own once per seat, not once per move.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from verifier.frontend import check_text
from verifier.smt import loop_checks
from verifier.smt.prove import Prover
from verifier.smt.system import System

TOKENS = Path(__file__).parent / "fixtures" / "tokens_loop.rules"
LOOP_CHECKS = 24 * 2 * 3 * 2  # cards × checks (tokens, used) × moves × seats


def prover_of(text: str) -> Prover:
    program, diags = check_text(text, str(TOKENS))
    assert program is not None, [d.message for d in diags]
    prover = Prover(program, 2, {}, 2, budget=60)
    # assumed, not proved: what the run-time checks are asked from (their proof is the induction's)
    prover.proved = [c for c in prover.candidates() if c.node is not None]
    prover.system = System(prover.rel)
    return prover


def shared_count(reason: str) -> int:
    m = re.search(r"(\d+) of them in a loop many moves run", reason)
    return int(m.group(1)) if m else 0


def test_the_loop_checks_are_settled_once_for_every_move(monkeypatch):
    proofs = []
    original = loop_checks.SharedLoopChecks._advance

    def advance(self, proof, deadline):
        if proof not in proofs:
            proofs.append(proof)
        return original(self, proof, deadline)
    monkeypatch.setattr(loop_checks.SharedLoopChecks, "_advance", advance)
    verdict = prover_of(TOKENS.read_text(encoding="utf-8")).obligations()
    assert verdict.status == "proved", verdict.reason
    assert shared_count(verdict.reason) == LOOP_CHECKS
    assert len(proofs) == 2  # one per seat (the mover fixed where the loop starts), not one per move
    # what they rest on: the count of tokens, found by the checks' unsat cores and kept by every iteration
    assert all(len(p.kept_facts) >= 1 and len(p.shown) == 24 for p in proofs)


RECOUNT = "    tokens[current] = 4 - used[current]\n    turns += 1\n"


def midway(text: str) -> str:
    """The loop takes no token, and the tokens are recounted after it. The count holds between
    moves, but not between the loop's iterations: a player with one token left and two ready
    cards completes both (used 5, outside 0..4)."""
    return text.replace("        tokens[current] -= 1\n", "").replace("    turns += 1\n", RECOUNT)


def before(text: str) -> str:
    """A fourth move hands the player back their used tokens until the recount after the loop.
    The count holds between moves and is kept by every iteration, but not where this move's
    loop starts: a player with 3 used and 4 ready cards completes them all (used 7)."""
    peek = '      move peek() "peeks" { tokens[current] = tokens[current] + used[current] }\n'
    return text.replace('      move wait() "waits" { }\n', '      move wait() "waits" { }\n' + peek) \
        .replace("    turns += 1\n", RECOUNT)


@pytest.mark.parametrize("edit", [midway, before])
def test_a_count_broken_where_the_loop_runs_is_not_settled(monkeypatch, edit):
    """Planted: the count the loop's checks rest on is broken between its iterations, or where
    one move's run of it starts. The checks that rest on it are then not settled here, and the
    break is found."""
    text = TOKENS.read_text(encoding="utf-8")
    edited = edit(text)
    assert edited.count("4 - used") == 1
    made = []
    original = loop_checks.SharedLoopChecks.__init__

    def init(self, *args):
        original(self, *args)
        made.append(self)
    monkeypatch.setattr(loop_checks.SharedLoopChecks, "__init__", init)
    verdict = prover_of(edited).obligations()
    assert verdict.status != "proved"
    assert "the result is within 0..4" in verdict.reason
    assert len(made) == 1 and made[0]._proofs  # (the loop was asked)


def test_an_iteration_reads_what_an_iteration_several_back_wrote():
    """`tests/fixtures/weighted_tokens.rules`: at a high card, the points' room rests on "points
    + 2 × low + 3 × high == 20", whose low tokens the last low card wrote, several iterations
    back. Each iteration's query keeps every fresh value made so far (`System.loop_steps`):
    before, it kept the last iteration's only, so `2 × low` there was left free and the points'
    check of every high card but the first was not shown (148 of the 192 loop checks)."""
    text = (Path(__file__).parent / "fixtures" / "weighted_tokens.rules").read_text(encoding="utf-8")
    verdict = prover_of(text).obligations()
    assert verdict.status == "proved", verdict.reason
    assert shared_count(verdict.reason) == 24 * 2 * 2 * 2  # cards × checks (tokens, points) × moves × seats
