"""Invariants `at` named decision points (`invariant NAME "..." at MOVE_OR_CHANCE, ...: COND`).

Such an invariant is claimed only where the game waits at one of the named decision points, and
its condition may read the flow variables bound before every one of them (a loop's position,
say). Shown on a relay: each round a player notes, then steps, and `count` keeps the pace of the
round variable `r`, which has no meaning once the loop is over.

- Both parsers read the clause, and the printer writes it back.
- The engine checks the claim at the named points only (at the end `count == r - 1` is false).
- Z3 reads the same truth on concrete states as the engine, proves the claim by induction, and
  refutes a false one; with the guard planted away, the proof fails (the guard matters).
"""
from __future__ import annotations

import random
import time

from verifier.engine.play import random_step
from verifier.engine.runtime import Game
from verifier.frontend import check_text
from verifier.frontend.fastparse import parse_fast
from verifier.ir.printer import print_spec
from verifier.smt import encode as E
from verifier.smt.encode import Encoder, concrete, z3
from verifier.smt.prove import Prover
from verifier.verify.invariants import prove_invariants

from helpers import engine_from_text

RELAY = '''
game relay "Relay"
players 1
var count: 0..40 = 0
flow {
  for r in 1..10 {
    choose 0 { move note() "notes" { } }
    choose 0 { move step() "steps" { count += 1 } }
  }
}
outcome { score p: count }
invariant pace "before a note or a step, one step per round before this one" at note, step: count == r - 1
invariant ahead "(false) one step per round, this one included" at note, step: count == r
invariant short "(false in round 10) at most 8 steps before a note" at note: count == r - 1 and count <= 8
'''


def relay():
    program, diags = check_text(RELAY, "relay.rules")
    assert program is not None, [d.message for d in diags]
    return program


def test_both_parsers_read_the_clause_and_the_printer_writes_it():
    program = relay()
    pace = next(d for d in program.invariants if d.name == "pace")
    assert list(pace.at) == ["note", "step"] and pace.at[1].span.line == 12
    fast = parse_fast(RELAY, "relay.rules")
    assert [d.at for d in fast.of_kind(type(pace))] == [d.at for d in program.invariants]
    printed = print_spec(program.spec)
    assert "invariant pace \"before a note or a step, one step per round before this one\" at note, step:" in printed
    again, diags = check_text(printed, "again.rules")
    assert again is not None and [d.at for d in again.invariants] == [d.at for d in program.invariants]


def test_the_points_may_stand_before_or_after_the_citations():
    """Both parsers read `at ... @R-X` and `@R-X at ...` alike."""
    from verifier.frontend.lower import lower_tree
    from verifier.frontend.parse import parse_text
    for header in ('"pace" at note, step @R-X1:', '"pace" @R-X1 at note, step:'):
        text = RELAY.replace('"before a note or a step, one step per round before this one" at note, step:', header)
        assert header in text
        fast = parse_fast(text, "relay.rules")
        tree, diags = parse_text(text, "relay.rules")
        slow, _ = lower_tree(tree, "relay.rules")
        for spec in (fast, slow):
            pace = next(d for d in spec.decls if getattr(d, "name", None) == "pace")
            assert (list(pace.at), list(pace.cites)) == (["note", "step"], ["R-X1"])


def test_the_engine_checks_the_claim_at_the_named_points_only():
    game = Game(engine_from_text(RELAY, "relay.rules"), 1, {})
    state = game.new_initial_state()
    rng = random.Random(0)
    broken = set()
    while not state.is_terminal():
        broken |= {name for name, _, _ in state.check_invariants()}
        random_step(state, rng)
    # at the end r is 10 and count 10: `count == r - 1` is false there, and not claimed
    assert state.s.pc == -1 and state.s.V_count == 10 and state.check_invariants() == []
    assert broken == {"ahead", "short"}


def test_z3_reads_each_state_as_the_engine_does():
    program = relay()
    game = Game(engine_from_text(RELAY, "relay.rules"), 1, {})
    state = game.new_initial_state()
    rng = random.Random(1)
    seen = 0
    while True:
        engine_broken = {name for name, _, _ in state.check_invariants()}
        for inv in program.invariants:
            value = z3.simplify(Encoder(program, 1, {}, concrete(program, state)).invariant(inv))
            assert z3.is_true(value) == (inv.name not in engine_broken), (inv.name, state.s.pc)
        seen += 1
        if state.is_terminal():
            break
        random_step(state, rng)
    assert seen == 21


def proved_by_induction(program, name: str, spacer: bool = False) -> tuple:
    """(status, method) of one claim through the invariants' stage of `verify` (no enumeration)."""
    prover = Prover(program, 1, {}, 10)
    inv = next(i for i in program.invariants if i.name == name)
    verdict = prove_invariants(prover, [inv], time.perf_counter() + 60, spacer=spacer)[name]
    return verdict.status, verdict.method


def test_the_induction_proves_the_claim_and_refutes_a_false_one():
    program = relay()
    assert proved_by_induction(program, "pace")[0] == "proved"
    assert proved_by_induction(program, "short")[0] != "proved"


def test_without_its_guard_the_claim_is_not_proved(monkeypatch):
    """Planted: the encoding drops the `at` guard, so the claim is asked at the end too, where
    `count == r - 1` fails: the same stage no longer proves it."""
    program = relay()
    monkeypatch.setattr(E.Encoder, "invariant", lambda self, inv: self.expr(inv.cond))
    assert proved_by_induction(program, "pace")[0] != "proved"


def test_the_sliced_induction_proves_it_with_the_loops_around_its_points(monkeypatch):
    """The older engine left out (it guesses the loops' facts among its frame facts): the sliced
    induction proves the claim once the facts of the loop around `note` and `step` are asked
    first; planted without them, it finds the unreachable state where `r` is not the loop's item
    at its position, and does not prove it."""
    program = relay()
    monkeypatch.setattr(Prover, "invariants", lambda self, *a, **k: {})
    assert proved_by_induction(program, "pace")[0] == "proved"
    from verifier.smt.relation import Relation
    monkeypatch.setattr(Relation, "loop_candidates", lambda self, points: [])
    assert proved_by_induction(program, "pace")[0] != "proved"


def test_verify_proves_it_and_shows_a_game_that_breaks_the_false_ones(tmp_path, capsys):
    from verifier.cli import main
    spec = tmp_path / "relay.rules"
    spec.write_text(RELAY.replace('invariant ahead', 'expect ahead violated "planted"\nexpect short violated '
                                  '"planted"\ninvariant ahead'), encoding="utf-8")
    code = main(["verify", str(spec), "--games", "0", "--search", "0", "--budget", "30", "--no-cache", "--json"])
    out = capsys.readouterr().out
    import json
    results = {r["name"]: r["status"] for report in json.loads(out)["reports"] for r in report["results"]}
    assert results["pace"] == "proved" and results["ahead"] == "violated" and results["short"] == "violated"
    assert code == 0


# A turn loop over `seats_from(lead)`, where `lead` rotates by round: its items depend on the
# state, but on nothing the loop's body writes. The count of cards on the table at a `take` is
# read through the seat's place in the turn, `(p - lead + num_players) % num_players`, which the
# induction sees only if it knows the snapshot still holds `seats_from(lead)`
TURNS = '''
game turns "Turns"
players 2..4
var table: 0..5 = 0
var lead: Player = 0
flow {
  for r in 1..3 {
    lead = (r - 1) % num_players
    table = num_players + 1
    for p in seats_from(lead) {
      choose p { move take() "takes a card" { table -= 1 } }
    }
  }
}
outcome { score p: table }
invariant cards_for_takers "at a take, one card more than the players still to take" at take:
  table == num_players + 1 - (p - lead + num_players) % num_players
'''


def test_a_turn_loops_items_are_tied_to_what_they_were_read_from(monkeypatch):
    """With the fact "the loop's items are still `seats_from(lead)`" (nothing in the loop writes
    `lead`) the claim is proved; planted without that part of the loop's facts, it is not."""
    program, diags = check_text(TURNS, "turns.rules")
    assert program is not None, [d.message for d in diags]
    monkeypatch.setattr(Prover, "invariants", lambda self, *a, **k: {})  # (the sliced induction alone)
    inv = next(d for d in program.invariants if d.name == "cards_for_takers")

    def proved() -> bool:
        prover = Prover(program, 3, {}, 10)
        return prove_invariants(prover, [inv], time.perf_counter() + 60, spacer=False)[inv.name].status == "proved"

    assert proved()
    from verifier.smt import relation as R
    # planted: the items read as if they read what the turn writes (never "unchanged")
    monkeypatch.setattr(R, "names_read", lambda program, node: frozenset({"table"}))
    assert not proved()
