"""A claim true in every state within the declared ranges is proved by one query, before the
induction (`invariants._holds_in_range`): the "ranges" method.

Each of three prizes goes to one player (the one with the most points), so the prizes taken add
up to the prizes there are in any state, whatever the moves; a count of rounds is bounded only
in the states the game reaches (its type allows more), so it is left to the induction; a claim
that play breaks is not proved."""
from __future__ import annotations

import time

import pytest

from verifier.frontend import check_text
from verifier.smt.prove import Prover
from verifier.verify import invariants as I

PRIZES = """
game prizes "Prizes"
players 3
type Pos = 0..2
const PRIZE: seq of 1..9 max 3 = [5, 3, 2]
var points: array[Player] of 0..30 = 0
var rounds: 0..20 = 0
def taker(i: Pos): Player = argmax(p in players: [points[p], p])
def won(p: Player): 0..10 = sum(i in Pos where taker(i) == p: PRIZE[i])
flow {
  for r in 1..5 {
    choose 0 { move give(p: Player) "gives {p} a point" { points[p] += 1 } }
    rounds += 1
  }
}
outcome { score p: won(p) }
invariant prizes_given "the prizes taken add up to 10" : sum(p in players: won(p)) <= 10
invariant rounds_played "at most 5 rounds are played" : rounds <= 5
invariant first_wins_little "the first player never takes more than 5" : won(0) <= 5
"""


def verdicts(names: list) -> dict:
    program, _ = check_text(PRIZES, "prizes.rules")
    prover = Prover(program, 3, {}, 10)
    invs = [i for i in program.invariants if i.name in names]
    return I.prove_invariants(prover, invs, time.perf_counter() + 60, spacer=False)


def test_a_claim_true_in_every_state_of_its_ranges_is_proved_without_a_move():
    v = verdicts(["prizes_given"])["prizes_given"]
    assert (v.status, v.method) == ("proved", "ranges")
    assert v.details["rests_on"] == ["well_formed"]  # the ranges hold where the run-time checks do


def test_a_claim_true_only_where_play_goes_is_left_to_the_induction():
    """Its type allows 20 rounds: the check over the ranges finds a state with 6 and leaves the
    claim to the induction (which, in this stage alone, without the loops' facts from sampled
    states, does not settle it: `verify` does)."""
    v = verdicts(["rounds_played"])["rounds_played"]
    assert v.method != "ranges"


@pytest.mark.parametrize("planted", [False, True])
def test_a_claim_play_breaks_is_not_proved(planted, monkeypatch):
    """Planted: the claim read as true whatever it says (so its negation has no state): the
    false claim is then proved over the ranges, and the test sees it."""
    if planted:
        monkeypatch.setattr(I, "and_all", lambda xs: I.z3.BoolVal(True))
    v = verdicts(["first_wins_little"])["first_wins_little"]
    assert (v.status == "proved") == planted


def test_without_the_check_the_claim_goes_to_the_induction(monkeypatch):
    monkeypatch.setattr(I, "IN_RANGE", False)
    v = verdicts(["prizes_given"])["prizes_given"]
    assert v.method != "ranges"


def test_the_flows_facts_asked_at_once_keep_the_inductive_ones_only(monkeypatch):
    """`invariants.inductive_at_once`: Houdini over whole queries, one per move. On the blackjack
    example every fact of the flow's structure (each loop's condition and measure where it
    holds) is kept; a planted guess that a move breaks ("at the player's choice, the player is
    standing": false after the deal) is dropped, and the others stay."""
    from pathlib import Path

    from verifier.frontend import load_program
    from verifier.smt.encode import eq_leaf, implies, num
    from verifier.smt.path_facts import path_facts
    from verifier.smt.relation import Candidate
    monkeypatch.setattr(I, "AT_ONCE_MS", 20000)  # (the logic, not the glance's time limit)
    root = Path(__file__).resolve().parents[1]
    program, _ = load_program(root / "spec/examples/blackjack.rules")
    prover = Prover(program, 1, {}, 10)
    facts = path_facts(program, 1, {})
    assert len(facts) >= 4
    kept = I.inductive_at_once(prover, facts, [], time.perf_counter() + 60)
    assert kept is not None and [c.name for c in kept] == [c.name for c in facts]
    choice = next(d for d, dp in enumerate(program.decisions) if "hit" in str(getattr(dp.node, "moves", "")) or
                  any(getattr(m, "name", "") == "hit" for m in getattr(dp.node, "moves", ())))
    standing = Candidate("planted", "at the choice, standing", None,
                         lambda st, snaps: implies(eq_leaf(st.pc, num(choice)), st.vars["standing"]))
    # (it holds when the game starts: the flow is not at the choice then)
    kept = I.inductive_at_once(prover, facts + [standing], [], time.perf_counter() + 60)
    assert kept is not None and "planted" not in [c.name for c in kept]
    assert [c.name for c in kept] == [c.name for c in facts]


# A loop over 1..num_players keeps its items in a snapshot of 4 slots (the most players); with 2
# players the last two are padding, which the transition leaves at 0, outside the items' type
# 1..4. Read with the padding in that type, the declared ranges and the interval facts (which
# know the padding is 0) together exclude every state inside the loop, and any claim about those
# states came out "proved" (the mutation benchmark's `ramen_ink/bin_off_by_one`: a false proof)
PADDED = """
game padded "Padded"
players 2..4
var n: 0..20 = 0
flow {
  for i in 1..num_players {
    choose 0 { move bump() "adds one" { n += 1 } }
  }
}
outcome { score p: n }
invariant at_most_zero "the count stays 0" : n == 0
"""


def padded_claim() -> tuple:
    """(prover, system, interval facts, the claim's instances) of PADDED at 2 players."""
    program, _ = check_text(PADDED, "padded.rules")
    prover = Prover(program, 2, {}, 10)
    system, facts = I.build_system(prover, time.perf_counter() + 60, lambda text: None)
    claim = [i for i in program.invariants if i.name == "at_most_zero"][0]
    return prover, system, facts, I.instances_of(I.Encoder(program, 2, {}, prover.rel.state).invariant(claim))


def test_a_loops_padding_is_not_held_to_the_items_type():
    """The interval facts and the declared ranges agree on a state the game reaches inside the
    loop (its second turn, n = 1): the claim, false there, is not proved over the ranges."""
    prover, system, facts, instances = padded_claim()
    assert facts is not None and facts.complete
    kept, background = I._background(prover, system, facts, None, lambda text: None)
    assert kept is facts and background is not None
    assert not I._holds_in_range(instances, None, background)


def plant_padding(monkeypatch):
    """The padding held to the items' type again (the bug above)."""
    from verifier.smt import relation as R
    from verifier.smt.encode import range_constraints
    fixed = R.Relation.ranges

    def padded(self, state, snaps):
        out = fixed(self, state, snaps)
        for key, st in self._keys.values():
            items, _ = snaps[key]
            for it in items.items:
                out += range_constraints(it, self.p.type_of(st.source).elem, self.n)
        return out

    monkeypatch.setattr(R.Relation, "ranges", padded)


def test_a_background_that_excludes_a_reached_point_is_not_used(monkeypatch):
    """Planted: the padding bug. The declared ranges and the interval facts then exclude the
    states inside the loop; the check at every reached decision point drops the interval facts,
    and over the ranges alone the claim is not proved."""
    plant_padding(monkeypatch)
    prover, system, facts, instances = padded_claim()
    assert I._consistent(system, facts, prover.rel.ranges(prover.rel.state, prover.rel.snaps)
                         + [I._interval_lemma(system, facts)], 3000) is False
    said = []
    kept, background = I._background(prover, system, facts, None, said.append)
    assert kept is None and background is not None and said
    assert not I._holds_in_range(instances, None, background)


@pytest.mark.parametrize("guarded", [True, False])
def test_with_the_padding_bug_the_guard_keeps_the_false_claim_unproved(guarded, monkeypatch):
    """The whole of `prove_invariants` on the planted bug: with the check, the false claim is
    not proved by any method; with it disabled, the vacuous background proves it (the false
    proof the mutation benchmark found), so the check is what stops it."""
    plant_padding(monkeypatch)
    if not guarded:
        monkeypatch.setattr(I, "_consistent", lambda *args: True)
    program, _ = check_text(PADDED, "padded.rules")
    prover = Prover(program, 2, {}, 10)
    v = I.prove_invariants(prover, program.invariants, time.perf_counter() + 60, spacer=False)
    assert (v["at_most_zero"].status == "proved") == (not guarded)
