"""Seat rotations (`verifier/smt/symmetry.py`) and their use by the sliced induction.

A query about P2's move is answered by the answer P1's got only where its image under a
rotation of the seats is that query, term for term up to the order of commutative arguments:
shown on an inline spec where every seat plays alike, and on a planted edit where P2's move
breaks a claim P1's keeps (which must not be proved).
"""
from __future__ import annotations

import pytest

from verifier.frontend import check_text
from verifier.smt.encode import CTX, Encoder, num, z3
from verifier.smt.engines import induction as induction_module
from verifier.smt.engines.induction import Claim, Induction, instances_of
from verifier.smt.engines.intervals import analyse
from verifier.smt.prove import Prover
from verifier.smt.symmetry import SeatRotations, leaf_paths
from verifier.smt.system import System
from verifier.ir.types import ArrayT, IntT, PlayerT, SeqT, SetT

TALLY = '''
game tally "Tally"
players 2..3
var count: array[Player] of 0..9 = 0
var turn: Player = 0
var rounds: 0..30 = 0
flow {
  while rounds < 12 decreases 12 - rounds {
    choose turn {
      move add() "adds"
        require room "a seat counts to 4 at most": count[turn] < 4
      { count[turn] += 1 }
      move pass() "passes" { }
    }
    turn = next_player(turn)
    rounds += 1
  }
}
outcome { score p: count[p] }
invariant at_most_4 "no seat counts past 4": all(p in players: count[p] <= 4)
invariant total "the counts add up to at most the rounds played": sum(p in players: count[p]) <= rounds
'''

# the planted edit: the last seat's `add` skips the check (P1's keeps the claim, P2's breaks it)
LOPSIDED = TALLY.replace('require room "a seat counts to 4 at most": count[turn] < 4',
                         'require room "a seat counts to 4 at most": count[turn] < 4 or turn == 1')


def setting(text: str, n: int):
    program, diags = check_text(text, "tally.rules")
    assert program is not None, [d.message for d in diags]
    prover = Prover(program, n, {}, 10)
    system = System(prover.rel)
    return program, prover, system


def claim(program, prover, name: str) -> Claim:
    inv = next(i for i in program.invariants if i.name == name)
    return Claim(name, inv, instances_of(Encoder(program, prover.n, {}, prover.rel.state).invariant(inv)))


def leaf(system, name: str):
    return next(t for t in system.leaf_terms if str(t) == name)


def test_leaf_paths_name_the_seat_coordinates_of_each_leaf_in_the_encoders_order():
    assert leaf_paths(PlayerT(), 3) == [((), True)]
    assert leaf_paths(ArrayT(PlayerT(), IntT(0, 9)), 2) == [(((True, 0),), False), (((True, 1),), False)]
    assert leaf_paths(SetT(PlayerT()), 2) == [(((True, 0),), False), (((True, 1),), False)]
    # a sequence: its length, then its items (the items of a `seq of Player` are seats)
    assert leaf_paths(SeqT(PlayerT(), 2), 3) == [(((False, -1),), False), (((False, 0),), True),
                                                 (((False, 1),), True)]


def test_a_term_about_one_seat_has_the_key_of_the_same_term_about_the_next_under_the_rotation():
    _, _, system = setting(TALLY, 3)
    rot = SeatRotations(system)
    c0, c1, c2 = (leaf(system, f"count@0[{k}]") for k in range(3))
    turn, cur = leaf(system, "turn@0"), leaf(system, "cur@0")
    one = rot.reading(1)  # seat s read as seat s - 1
    # P2's "count + 1 <= 4 when it is P2's turn" is P1's, read one seat back
    p1 = z3.And(turn == 0, cur == 0, c0 + 1 <= 4, c1 + c2 <= 8)
    p2 = z3.And(cur == 1, turn == 1, c1 + 1 <= 4, c0 + c2 <= 8)
    assert rot.key(p2, one) == rot.key(p1)
    assert rot.key(p2) != rot.key(p1)  # (not as they are)
    # and not under another rotation, nor where a number differs
    assert rot.key(p2, rot.reading(2)) != rot.key(p1)
    assert rot.key(z3.And(turn == 1, cur == 1, c1 + 1 <= 3, c0 + c2 <= 8), one) != rot.key(p1)
    # the order of a commutative operator's arguments does not count
    assert rot.key(c0 + c1 <= 4) == rot.key(c1 + c0 <= 4)


def test_a_seat_read_otherwise_than_compared_has_no_key_under_a_rotation_but_one_as_a_plain_number():
    _, _, system = setting(TALLY, 3)
    rot = SeatRotations(system)
    turn = leaf(system, "turn@0")
    rounds = leaf(system, "rounds@0")
    arithmetic = rounds == 3 * turn  # no permutation of the seats keeps this
    assert rot.key(arithmetic, rot.reading(1)) is None
    plain = rot.reading(1, frozenset(rot.seat_valued_in(arithmetic)))
    assert rot.key(arithmetic, plain) == rot.key(arithmetic)
    # a bound every seat is on one side of stays; one that splits the seats has no key
    assert rot.key(turn >= 0, rot.reading(1)) == rot.key(turn >= 0)
    assert rot.key(turn <= 0, rot.reading(1)) is None


def test_what_a_move_gives_a_seat_valued_leaf_is_read_as_a_seat_where_it_is_compared():
    _, _, system = setting(TALLY, 2)
    rot = SeatRotations(system)
    c0, c1, flag = leaf(system, "count@0[0]"), leaf(system, "count@0[1]"), z3.Bool("flag", CTX)
    # "the next seat": after P1's move, P1 again if `flag`, else P2; after P2's, the other way
    after_p1, after_p2 = z3.If(flag, num(0), num(1)), z3.If(flag, num(1), num(0))
    for term in (after_p1, after_p2):
        rot.seat_terms.add(system.dag.add(term))  # as `SeatRotations` finds each move's
    p1 = z3.And(after_p1 == 0, c0 <= 4)
    p2 = z3.And(after_p2 == 1, c1 <= 4)
    assert rot.key(p2, rot.reading(1)) == rot.key(p1)
    # an `If` over numbers that no move gives a seat is a number: compared as it is
    other = z3.Bool("other", CTX)
    assert rot.key(z3.If(other, num(0), num(1)) == 1, rot.reading(1)) != rot.key(z3.If(other, num(1), num(0)) == 0)
    assert rot.key(z3.If(other, num(0), num(1)) == 1, rot.reading(1)) == rot.key(z3.If(other, num(0), num(1)) == 1)


def test_two_fresh_constants_never_share_a_key():
    _, _, system = setting(TALLY, 2)
    rot = SeatRotations(system)
    c0, c1 = leaf(system, "count@0[0]"), leaf(system, "count@0[1]")
    a, b = z3.FreshInt("free", CTX), z3.FreshInt("free", CTX)
    system.dag.stand_in(a, c0 + c1)
    system.dag.stand_in(b, c1 + c0)  # the same term up to the order of a sum: the same key
    assert rot.key(a <= 3) is not None
    assert rot.key(b <= 3) is None  # the second constant gets none: they are two free values


def ask_counts(program, prover, system, name: str, rotations: bool, monkeypatch) -> tuple:
    monkeypatch.setattr(induction_module, "SEAT_ROTATIONS", rotations)
    ind = Induction(system, analyse(system, None), timeout=10)
    asked = []
    solve = ind._solve_once
    ind._solve_once = lambda parts, *rest: asked.append(1) or solve(parts, *rest)
    out = ind.run([claim(program, prover, name)])
    return out[name], len(asked), ind.rotated


@pytest.mark.parametrize("n", [2, 3])
def test_a_claim_over_every_seat_is_proved_with_the_other_seats_moves_answered_by_the_first(n, monkeypatch):
    program, prover, system = setting(TALLY, n)
    plain, asked_plain, _ = ask_counts(program, prover, system, "at_most_4", False, monkeypatch)
    program, prover, system = setting(TALLY, n)
    rotated, asked_rotated, hits = ask_counts(program, prover, system, "at_most_4", True, monkeypatch)
    assert plain.proved and rotated.proved
    assert hits > 0 and asked_rotated < asked_plain


def test_a_move_only_the_second_seat_breaks_a_claim_with_is_not_hidden_by_the_first_seats_answer(monkeypatch):
    program, prover, system = setting(LOPSIDED, 2)
    out, _, hits = ask_counts(program, prover, system, "at_most_4", True, monkeypatch)
    assert not out.proved and out.kind == "sat" and "(P2" in out.move


def test_a_closed_condition_is_read_as_the_branch_it_picks():
    # a claim read at an item has the item's number substituted: P2's `If(1 == 1, x, 0)` meets
    # P1's `If(0 == 0, x, 0)` as `x`, and the item's range `1 >= 0` is true like P1's `0 >= 0`
    _, _, system = setting(TALLY, 2)
    rot = SeatRotations(system)
    c0, c1 = leaf(system, "count@0[0]"), leaf(system, "count@0[1]")
    one = rot.reading(1)
    p1 = z3.And(num(0) >= 0, z3.If(num(0) == num(0), c0, c1) + z3.If(num(0) == num(0), num(1), num(0)) <= 4)
    p2 = z3.And(num(1) >= 0, z3.If(num(1) == num(0), c0, c1) + z3.If(num(1) == num(1), num(1), num(0)) <= 4)
    assert rot.key(p2, one) == rot.key(p1) == rot.key(c0 + 1 <= 4)
    assert rot.key(p2) != rot.key(p1)  # (not as they are: P2's reads count[1])
    # a closed term that is false stays false, and `and` of it is false whatever the rest reads
    assert rot.key(z3.And(num(2) < num(1), c0 <= 4)) == rot.key(z3.BoolVal(False, CTX))
    assert rot.key(z3.Or(num(2) < num(1), c0 <= 4)) == rot.key(c0 <= 4)


def test_a_query_that_pins_a_seat_reads_its_other_parts_at_that_seat():
    _, _, system = setting(TALLY, 2)
    rot = SeatRotations(system)
    c0, c1, turn = leaf(system, "count@0[0]"), leaf(system, "count@0[1]"), leaf(system, "turn@0")
    mover = z3.If(turn == 0, c0, c1)  # `count[turn]`, as the encoder reads an array at a seat
    p1 = [turn == 0, mover + 1 <= 4]
    p2 = [turn == 1, mover + 1 <= 4]
    # term by term, P2's `If(turn == 0, ...)` has the image `If(turn == 1, c1, c0)`: not P1's term
    assert rot.key(p2[1], rot.reading(1)) != rot.key(p1[1])
    # read at the seat each query pins, P2's is P1's image
    two, _ = rot.keyer(p2, 1)
    first, _ = rot.keyer(p1, 0)
    assert [two(t) for t in p2] == [first(t) for t in p1]
    assert first(p1[1]) == rot.key(c0 + 1 <= 4)
    # a seat pinned to two numbers is pinned to none (the query is asked as it is)
    assert rot.pins_of([turn == 0, turn == 1, mover <= 4])[0] == frozenset()
    assert rot.pins_of(p2)[0] == frozenset({(system.dag.add(turn), 1)})


SEATED = TALLY.replace('invariant total', '''invariant mover_room "the seat to move has counted to 4 at most": count[turn] <= 4
invariant total''')


def test_a_claim_read_at_the_mover_is_answered_for_the_second_seat_by_the_first(monkeypatch):
    program, prover, system = setting(SEATED, 2)
    plain, asked_plain, _ = ask_counts(program, prover, system, "mover_room", False, monkeypatch)
    program, prover, system = setting(SEATED, 2)
    rotated, asked_rotated, hits = ask_counts(program, prover, system, "mover_room", True, monkeypatch)
    assert plain.proved and rotated.proved
    assert hits > 0 and asked_rotated < asked_plain


# every seat's move raises every seat's `seen`: several instances change at once, so each move's
# instances are first asked together (`Induction._batch`'s glance)
SEEN = TALLY.replace("var rounds: 0..30 = 0", "var rounds: 0..30 = 0\nvar seen: array[Player] of 0..30 = 0").replace(
    "{ count[turn] += 1 }", "{ count[turn] += 1\n        for q in players { seen[q] += 1 } }").replace(
    "invariant total", 'invariant seen_rounds "every seat has seen at most the rounds played": '
                       'all(p in players: seen[p] <= rounds)\ninvariant total')


def glances_asked(text: str, n: int, skip: bool, monkeypatch) -> tuple:
    """(outcomes, glances asked, glances skipped), with every glance planted as given up on."""
    monkeypatch.setattr(induction_module, "SKIP_ROTATED_GLANCES", skip)
    program, prover, system = setting(text, n)
    ind = Induction(system, analyse(system, None), timeout=10)
    asked = []
    solve = ind._solve_once

    def gives_up_on_glances(parts, ms, *rest):
        if ms == induction_module.BATCH_MS:
            asked.append(1)
            return z3.unknown, "planted"
        return solve(parts, ms, *rest)

    ind._solve_once = gives_up_on_glances
    out = ind.run([claim(program, prover, name) for name in ("at_most_4", "seen_rounds", "total")])
    return out, len(asked), ind.glances_skipped


@pytest.mark.parametrize("n", [2, 3])
def test_a_glance_given_up_on_for_the_first_seat_is_not_asked_for_the_others(n, monkeypatch):
    out, asked, skipped = glances_asked(SEEN, n, False, monkeypatch)
    assert all(o.proved for o in out.values()) and asked == n and skipped == 0
    out, asked, skipped = glances_asked(SEEN, n, True, monkeypatch)
    # P1's glance is asked; the other seats' are its images, not asked; the instances one by one
    # still prove every claim
    assert all(o.proved for o in out.values()) and asked == 1 and skipped == n - 1


def test_a_skipped_glance_hides_no_move_that_breaks_a_claim(monkeypatch):
    lopsided = SEEN.replace('require room "a seat counts to 4 at most": count[turn] < 4',
                            'require room "a seat counts to 4 at most": count[turn] < 4 or turn == 1')
    out, _, _ = glances_asked(lopsided, 2, True, monkeypatch)
    assert not out["at_most_4"].proved and out["at_most_4"].kind == "sat" and "(P2" in out["at_most_4"].move
