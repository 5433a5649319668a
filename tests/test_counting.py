"""Counting facts about sequences (`verifier/smt/counting.py`) and the run-time checks asked once
per position of the loops around a decision point (`Prover._holds_by_position`).

Shown on `tests/fixtures/piles_dealt.rules`: 52 strips dealt by chance into four piles of 13,
each draw "a strip of this length not yet in its pile". The draw has something to draw from
only because a pile of j - 1 strips cannot hold all 13 strips of its length: the pigeonhole
principle, which the solver does not find by itself.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from verifier.frontend import check_text
from verifier.ir.types import IntT, SeqT
from verifier.smt import prove
from verifier.smt.counting import distinct_items
from verifier.smt.encode import CTX, and_all, fresh, z3
from verifier.smt.prove import Prover

PILES = Path(__file__).parent / "fixtures" / "piles_dealt.rules"


def program_of(text: str):
    program, diags = check_text(text, str(PILES))
    assert program is not None, [d.message for d in diags]
    return program


class _Seq:
    """A stand-in state with one sequence `q` of `seq of 0..3 max 3`."""

    def __init__(self):
        t = SeqT(IntT(0, 3), 3)
        self.vars, self.locals = {"q": fresh(t, "q@test", 1)}, {}
        self.types = {"q": t}


def test_the_counting_facts_hold_of_every_sequence():
    """Valid: no assignment of the length and slots breaks them, so they assume nothing."""
    state = _Seq()

    class P:
        var_types, flow_locals = state.types, {}
    facts = distinct_items(P, 1, state)
    assert len(facts) == 3  # one per length bound below the capacity
    sol = z3.Solver(ctx=CTX)
    q = state.vars["q"]
    sol.add(0 <= q.length, q.length <= 3, *[z3.And(0 <= x, x <= 3) for x in q.items])
    sol.add(z3.Not(and_all(facts)))
    assert sol.check() == z3.unsat


def test_the_counting_facts_bound_distinct_values_by_the_length_and_no_further():
    """Two slots in use hold at most two distinct values; three slots may hold three."""
    state = _Seq()

    class P:
        var_types, flow_locals = state.types, {}
    q = state.vars["q"]
    facts = distinct_items(P, 1, state)

    def held(v):
        return z3.Or(*[z3.And(i < q.length, x == v) for i, x in enumerate(q.items)])
    for length, want in ((2, z3.unsat), (3, z3.sat)):
        sol = z3.Solver(ctx=CTX)
        sol.add(*facts, q.length == length, held(0), held(1), held(2))
        assert sol.check() == want


def prover_with_the_deal_fact(budget: float) -> Prover:
    program = program_of(PILES.read_text(encoding="utf-8"))
    prover = Prover(program, 1, {}, 2, budget=budget)
    # assumed, not proved: what the run-time checks are asked from (its proof is the induction's)
    prover.proved = [c for c in prover.candidates() if c.name == "piles_dealt"]
    assert prover.proved
    return prover


def test_a_draw_from_what_a_pile_lacks_is_proved_possible_by_counting():
    verdict = prover_with_the_deal_fact(budget=60).obligations()
    assert verdict.status == "proved", verdict.reason


@pytest.mark.parametrize("planted", ["no counting facts", "no positions"])
def test_without_the_counts_or_the_positions_the_draw_is_not_proved(monkeypatch, planted):
    """Either half alone does not settle it: the counting facts need the pile fixed (asked with
    the length symbolic, the solver gave up), and the pile fixed needs the facts."""
    if planted == "no counting facts":
        monkeypatch.setattr(prove, "distinct_items", lambda *args: [])
    else:
        monkeypatch.setattr(prove.Relation, "loop_positions", lambda self, d: [])
    verdict = prover_with_the_deal_fact(budget=15).obligations()
    assert verdict.status == "unknown"


def test_the_loop_positions_are_the_deal_loops_values():
    prover = prover_with_the_deal_fact(budget=60)
    d = next(i for i, info in enumerate(prover.p.decisions) if getattr(info.node, "var", None) == "strip")
    got = [(str(leaf), values) for leaf, values in prover.rel.loop_positions(d)]
    assert got == [("length@0", [2, 3, 4, 5]), ("j@0", list(range(1, 14)))]


def test_a_value_the_loop_positions_leave_out_is_still_asked(monkeypatch):
    """The cases are the loop's items; a state the assumptions allow with another value is
    asked too. Planted: positions that leave out the length 5, and a check false there only."""
    prover = prover_with_the_deal_fact(budget=60)
    d = next(i for i, info in enumerate(prover.p.decisions) if getattr(info.node, "var", None) == "strip")
    alt = prover.alternatives(d)[0]
    length = prover.rel.state.locals["length"]
    pool = prove._Pool(prover._proved_assumptions())
    monkeypatch.setattr(prove.Relation, "loop_positions", lambda self, d: [(length, [2, 3, 4])])
    assert not prover._holds_by_position(pool, d, alt, length != 5, True)
    assert prover._holds_by_position(pool, d, alt, length >= 2, True)
