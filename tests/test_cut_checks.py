"""Run-time checks inside a loop's iterations, asked at their cut (`verifier/smt/cut_checks.py`).

A move sows a pit's beans one by one (a `while`), then banks the last one if it lands in an
empty pit. "A pit holds at most 8" after a bean falls into it needs "pits, hand and bank make
8" at that iteration's cut (the hand is not empty there), which the loop keeps.
"""
from __future__ import annotations

from test_induction import SOWING, claim, compiled

from verifier.smt.cut_checks import CutChecks


def the_sowing(text: str):
    """(system, the `sow` alternative's decision point, the alternative, the checks tagged with
    a cut {key: obligation}, the claim `kept` before the move)."""
    program, prover, system = compiled(text, "sowing.rules")
    sow = next(tr for d in system.decisions for tr in system.transitions(d) if tr.label.startswith("sow"))
    tagged = {k: o for k, o in enumerate(sow.alt.step.obligations) if system.check_cut(sow, o) is not None}
    ranges = prover.rel.ranges(prover.rel.state, prover.rel.snaps)  # as `Prover.assumptions`
    return system, prover, sow, tagged, ranges + claim(program, prover, "kept").instances


def test_the_checks_of_each_iteration_are_tagged_with_its_cut():
    system, _, sow, tagged, _ = the_sowing(SOWING)
    cuts = {system.check_cut(sow, o) for o in tagged.values()}
    runs = system.cut_renamings(sow)
    assert len(runs) == 1
    last = len(runs[0]) - 1
    # a check in every iteration but the first few (a pit's first beans are settled by the
    # types), and the bank's check after the loop, at its last cut
    assert len({k for r, k in cuts if k < last}) >= 5
    assert (0, last) in cuts


def test_a_pit_holds_at_most_8_at_every_cut():
    system, prover, sow, tagged, kept = the_sowing(SOWING)
    at_cuts = CutChecks(system, kept)
    left = at_cuts.settle(sow.decision, sow.alt, {k: o.cond for k, o in tagged.items()}, tagged,
                          prover._at(sow.decision, sow.alt), float("inf"))
    # left: the flow's `moves += 1` after the move (its bound is the flow loop's condition,
    # which the move's query has and this reading does not need to)
    assert all("0..20" in tagged[k].sentence for k in left), [tagged[k].sentence for k in left]
    assert at_cuts.settled == len(tagged) - len(left) > 100


def test_without_the_count_at_the_cut_nothing_is_proved_there():
    """The facts are what the loop keeps, not what the checks need: with no proved claim (the
    declared ranges only), the pits' checks from the second iteration on are left (a fresh
    state within the bounds may have a full pit)."""
    system, prover, sow, tagged, _ = the_sowing(SOWING)
    at_cuts = CutChecks(system, prover.rel.ranges(prover.rel.state, prover.rel.snaps))
    left = at_cuts.settle(sow.decision, sow.alt, {k: o.cond for k, o in tagged.items()}, tagged,
                          prover._at(sow.decision, sow.alt), float("inf"))
    assert any(system.check_cut(sow, tagged[k])[1] >= 1 and "0..8" in tagged[k].sentence for k in left)
    # the loop's measure checks need no fact: each compares the iteration with the one before
    assert not any("measure" in tagged[k].sentence for k in left)


def test_a_pit_that_can_overflow_is_not_proved_at_its_cut():
    """A planted edit: pits hold at most 5, and 8 beans in play. From pits (5, 3, 0, 0), sowing
    the 3 puts a sixth bean in the first pit: that check fails, and is left."""
    text = SOWING.replace("var board: array[Pit] of 0..8 = [2, 2, 2, 2]", "var board: array[Pit] of 0..5 = [2, 2, 2, 2]")
    assert text != SOWING
    system, prover, sow, tagged, kept = the_sowing(text)
    at_cuts = CutChecks(system, kept)
    left = at_cuts.settle(sow.decision, sow.alt, {k: o.cond for k, o in tagged.items()}, tagged,
                          prover._at(sow.decision, sow.alt), float("inf"))
    assert any("0..5" in tagged[k].sentence for k in left), [tagged[k].sentence for k in left]
