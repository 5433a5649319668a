"""Sets that carry their size (`encode.SizedSet`), the sampled guesses about sets' sizes
(`Prover._constant_sizes`, `Prover._by_loop_position`), and the deadlock they rule out
(`invariants.sampled_facts_at_deadlocks`).

Shown on `tests/fixtures/hands_dealt.rules`: four cards dealt to each seat in turn, then one
played a round. A player has a card to play in every round only because the deal left four in
each hand, which is piecewise in the deal loop's position.
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest
from z3 import z3util

from verifier.engine.runtime import Engine, Game
from verifier.frontend import load_program
from verifier.smt import encode, prove
from verifier.smt.encode import CTX, SizedSet, bool_int, set_size, total, z3
from verifier.smt.prove import Prover, _less_held
from verifier.smt.relation import Candidate, at_pc, successor_paths
from verifier.verify import invariants
from verifier.verify.run import _sample

HANDS = Path(__file__).parent / "fixtures" / "hands_dealt.rules"


def prover_of(players: int = 2) -> Prover:
    program, _ = load_program(HANDS)
    game = Game(Engine(program), players, {})
    states, _ = _sample(game, 30, 1000 + players, 2000)
    return Prover(program, players, dict(game.option_values), 10, samples=states)


def _sets(value):
    if isinstance(value, encode.SetVal):
        yield value
    elif isinstance(value, tuple) and not isinstance(value, encode.SeqVal):
        for x in value:
            yield from _sets(x)


def sized_sets_after_every_move(prover: Prover) -> list:
    out = []
    for d in prover.decisions():
        for alt in prover.alternatives(d):
            for path in successor_paths(alt):
                for v in list(path.state.vars.values()) + list(path.state.locals.values()):
                    out += [s for s in _sets(v) if isinstance(s, SizedSet)]
    return out


def disagreements(sets: list, rounds: int = 40) -> int:
    """Random values for every variable the sets read (the seat, the card drawn, every bit before
    the move): how often a set's carried size differs from the sum of its bits. (Evaluated, not
    asked of the solver: that equality is the counting the carried size spares it, and the
    solver takes minutes on it.)"""
    rng = random.Random(7)
    bad = 0
    for s in sets:
        size, bits = set_size(s), total([bool_int(b) for b in s])
        free = z3util.get_vars(size == bits)
        for _ in range(rounds):
            pairs = [(v, z3.BoolVal(rng.random() < 0.3, CTX) if z3.is_bool(v) else z3.IntVal(rng.randint(0, 25), CTX))
                     for v in free]
            a, b = (z3.simplify(z3.substitute(t, *pairs)) for t in (size, bits))
            bad += a.as_long() != b.as_long()
    return bad


def test_a_sets_carried_size_is_the_number_of_its_members_after_every_move():
    """For every set a move builds: the deal's `add` to a hand chosen by the seat (an `If` per
    hand), the play's `remove`, under random values of what they read."""
    sets = sized_sets_after_every_move(prover_of())
    assert len(sets) >= 4
    assert disagreements(sets) == 0


def test_a_size_planted_one_off_is_refuted(monkeypatch):
    real = encode.sized
    monkeypatch.setattr(encode, "sized", lambda bits, size: real(
        bits, (lambda: encode.lift(lambda a: a + 1, size() if callable(size) else size))))
    import verifier.smt.transition as transition
    monkeypatch.setattr(transition, "sized", encode.sized)
    assert disagreements(sized_sets_after_every_move(prover_of())) > 0


def test_the_deal_is_guessed_piecewise_in_its_loops_position_and_kept():
    prover = prover_of()
    names = [c.name for c in prover.sampled_candidates()]
    piecewise = [x for x in names if x.startswith("piecewise") and "size(hand)[0]" in x]
    # seat 0's hand while seat 0 is dealt to (one per draw so far), then full
    assert any("-1*J_n" in x and "J_seat__0=1" in x for x in piecewise), piecewise
    assert any("J_seat__0=2" in x and "J_n" not in x for x in piecewise), piecewise
    kept = {c.name for c in prover._fixpoint(prover.rel.frame_candidates() + prover.sampled_candidates(), [],
                                             1500, 20.0, {})}
    assert set(piecewise) <= kept
    assert "related size(hand)[0]+round@1" in kept
    assert "let last@1" in kept  # the last round's flag, still its definition at the play


def test_a_state_with_no_legal_move_is_ruled_out_by_the_sampled_sizes():
    prover = prover_of()
    invariants.prove_invariants(prover, [], None)
    assert prover.deadlocks().status == "unknown"  # a hand may be empty, as far as the lemmas know
    assert invariants.sampled_facts_at_deadlocks(prover, None)
    assert prover.deadlocks().status == "proved"


@pytest.mark.parametrize("flag", ["BY_LOOP_POSITION", "CONSTANT_SIZES"])
def test_without_the_deals_guesses_the_deadlock_stays_open(monkeypatch, flag):
    """The guesses that say what the deal left are what the proof rests on: without the piecewise
    ones, or the constant sizes, nothing states the deal's count."""
    monkeypatch.setattr(prove, flag, False)
    prover = prover_of()
    invariants.prove_invariants(prover, [], None)
    invariants.sampled_facts_at_deadlocks(prover, None)
    assert prover.deadlocks().status == "unknown"


def test_a_goal_the_pre_state_states_term_for_term_is_not_asked():
    x, y = z3.Ints("x y", ctx=CTX)
    held = {(x == 1).get_id()}
    assert z3.is_true(_less_held(x == 1, held))
    left = _less_held(z3.And(x == 1, y == 2), held)
    assert left.eq(y == 2)
    assert _less_held(y == 2, held).eq(y == 2)


def test_skipping_what_is_held_keeps_the_same_frame_facts(monkeypatch):
    prover = prover_of()
    cands = prover.rel.frame_candidates() + prover.sampled_candidates()
    with_skip = {c.name for c in prover._fixpoint(cands, [], 1500, 20.0, {})}
    monkeypatch.setattr(prove, "SKIP_HELD", False)
    without = {c.name for c in prover_of()._fixpoint(cands, [], 1500, 20.0, {})}
    assert with_skip == without


def test_a_frame_fact_given_up_on_after_a_move_is_asked_again_way_by_way():
    """`Prover._retry_on_paths`: facts the solver gave up on after a move (planted here as such)
    are asked again on each way the move's flow runs on. One that holds on every way is no longer
    given up on; one that a way breaks is then refuted by a model."""
    prover = prover_of()
    cands = prover.rel.frame_candidates() + prover.sampled_candidates()
    kept = prover._fixpoint(cands, [], 1500, 20.0, {})
    d, alt = next((d, alt) for d in prover.decisions() for alt in prover.alternatives(d)
                  if len({p.pc for p in successor_paths(alt)}) > 1)  # the deal: on, or to play
    before = at_pc(alt.source[0], d)
    holds = [c for c in kept if not z3.is_true(prover._what_changes(c, successor_paths(alt, True)[0], alt,
                                                                     before, None))]
    assert holds
    stays = Candidate("planted: the flow stays at this decision point", "", None,
                      lambda s, snaps: s.pc == d)
    sol = prover.solver()
    sol.add(*prover.assumptions(kept), *prover._at(d, alt), alt.guard,
            *[o.cond for o in alt.pre + alt.step.obligations])
    dropped = {c.name: ("unknown", d, alt, "planted") for c in holds + [stays]}
    prover._retry_on_paths(sol, holds + [stays], dropped, set(), d, alt, before, set(), None, 1500)
    assert list(dropped) == [stays.name]
    assert dropped[stays.name][0] == "sat"
