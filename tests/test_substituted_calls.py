"""Definition calls instantiated by substitution (`encode.SUBSTITUTED_CALLS`): a body encoded once
over free values, then given each state's values in their place.

The transition relation built with them must be the relation built without them: for every
alternative of every decision point, the same legality, the same successor and the same checks,
as formulas (asked of the solver: equal for every value of the state before the move). A
substitution that puts one value in the wrong place is caught by the same comparison.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from verifier.engine.runtime import Engine, Game
from verifier.frontend import load_program
from verifier.smt import encode
from verifier.smt.encode import and_all, eq_val, z3
from verifier.smt.relation import Relation

ROOT = Path(__file__).resolve().parents[1]
# tic-tac-toe: who has a line, asked after either seat's mark; Ramen Ink: a drawing's score, asked
# after each way of placing it; the grid game's recipe-like check after every kind of edit
SPECS = [("spec/examples/tictactoe.rules", 2), ("spec/ramen_ink.rules", 2),
         ("tests/fixtures/grid_edits.rules", 2)]


def relation(path: str, n: int, substituted: bool, monkeypatch) -> list:
    """Every alternative of every decision point, built with or without substitution (a program
    loaded anew: the encoder's memo is per program, so nothing is shared between the two)."""
    monkeypatch.setattr(encode, "SUBSTITUTED_CALLS", substituted)
    program, _ = load_program(ROOT / path)
    rel = Relation(program, n, {})
    return [alt for d in range(len(program.decisions)) for alt in rel.alternatives(d)]


def differences(a: list, b: list) -> list[str]:
    """The alternatives whose legality, successor or checks differ, as formulas."""
    out = []
    assert [x.label for x in a] == [y.label for y in b]
    for x, y in zip(a, b):
        same = [x.guard == y.guard]
        for name, v in x.step.state.vars.items():
            same.append(eq_val(v, y.step.state.vars[name]))
        for name, v in x.step.state.locals.items():
            same.append(eq_val(v, y.step.state.locals[name]))
        same.append(x.step.state.pc == y.step.state.pc)
        for mine, theirs in ((x.pre, y.pre), (x.step.checks, y.step.checks)):
            same.append(and_all(o.cond for o in mine) == and_all(o.cond for o in theirs))
        solver = z3.Solver()
        solver.add(z3.Not(and_all(same)))
        if solver.check() != z3.unsat:
            out.append(x.label)
    return out


def counting_substitutions(monkeypatch) -> list:
    """A list that grows by one at each instantiation that replaced at least one term."""
    made = []
    real = encode.substitute_value

    def counted(v, pairs):
        if pairs:
            made.append(len(pairs))
        return real(v, pairs)
    monkeypatch.setattr(encode, "substitute_value", counted)
    return made


@pytest.mark.parametrize("path,n", SPECS, ids=[Path(p).stem for p, _ in SPECS])
def test_a_relation_built_by_substitution_is_the_relation(path, n, monkeypatch):
    made = counting_substitutions(monkeypatch)
    substituted = relation(path, n, True, monkeypatch)
    assert made, "no call was instantiated: the comparison would show nothing"
    direct = relation(path, n, False, monkeypatch)
    assert differences(substituted, direct) == []


# every other bundled spec, at 2 players: the flag is on by default, so every relation `verify`
# builds is built with it (hex and the bridge example are left out: each build alone takes about
# a minute, most of it the outcome's or the flood fill's definitions, which their own calls
# exercise no differently from the grid game's)
EVERY = sorted(str(p.relative_to(ROOT)) for p in [*ROOT.glob("spec/*.rules"), *ROOT.glob("spec/examples/*.rules")]
               if p.stem not in ("hex", "tiny_bridge_2p") and str(p.relative_to(ROOT)) not in dict(SPECS))


@pytest.mark.slow
@pytest.mark.parametrize("path", EVERY, ids=[Path(p).stem for p in EVERY])
def test_every_bundled_relation_is_the_same_built_either_way(path, monkeypatch):
    substituted = relation(path, 2, True, monkeypatch)
    direct = relation(path, 2, False, monkeypatch)
    assert differences(substituted, direct) == []


def test_a_value_put_in_the_wrong_place_is_caught(monkeypatch):
    """The planted bug: each instantiation's last two replacements swapped."""
    real = encode.substitute_value

    def swapped(v, pairs):
        if len(pairs) >= 2:
            (a, x), (b, y) = pairs[-2], pairs[-1]
            if a.sort() == b.sort():
                pairs = pairs[:-2] + [(a, y), (b, x)]
        return real(v, pairs)
    monkeypatch.setattr(encode, "substitute_value", swapped)
    substituted = relation("tests/fixtures/grid_edits.rules", 2, True, monkeypatch)
    direct = relation("tests/fixtures/grid_edits.rules", 2, False, monkeypatch)
    assert differences(substituted, direct) != []


def test_a_state_with_a_literal_is_encoded_directly(monkeypatch):
    """Where a state holds a literal, folding does better than a template: once the relation has
    made its templates, the grid game's opening state (every cell empty) still gets the check
    encoded as it is, folded to a literal."""
    monkeypatch.setattr(encode, "SUBSTITUTED_CALLS", True)
    made = counting_substitutions(monkeypatch)  # (first: a patched encoder has a memo of its own)
    program, _ = load_program(ROOT / "tests/fixtures/grid_edits.rules")
    Relation(program, 2, {}).alternatives(0)
    assert made, "the relation made no template: the opening state would show nothing"
    made.clear()
    game = Game(Engine(program), 2, {})
    enc = encode.Encoder(program, 2, {}, encode.concrete(program, game.new_initial_state()))
    values = [enc.call("best_line", [encode.num(m)]) for m in range(1, 4)]
    assert made == []
    assert [encode.is_num(v) for v in values] == [True] * 3


HANDS_TEXT = """
game hands_count "Hands count"
players 2
type Card = 0..9
var hand: array[Player] of set of Card = {}
var current: Player = 0
def held(p: Player): 0..10 = size(hand[p])
flow {
  for round in 1..4 {
    choose current {
      move take(c: Card) "takes {c}" require new "a card not held": c not in hand[current] {
        add c to hand[current]
      }
      move drop(c in hand[current]) "drops {c}" { remove c from hand[current] }
    }
    if held(current) > 3 { current = next_player(current) }
  }
}
outcome { score p: held(p) }
"""


def test_a_set_that_carries_its_size_keeps_it_through_a_template(monkeypatch):
    """After `add` and `remove` a hand carries its size (`SizedSet`). A template reads that size
    as a constant of its own, so the instantiated call reads the very term the direct encoding
    reads (one more or one fewer than before), not the sum of the hand's bits, the count the
    carried size spares the solver."""
    from verifier.frontend import check_text

    def held_after_each_move(substituted: bool) -> list:
        monkeypatch.setattr(encode, "SUBSTITUTED_CALLS", substituted)
        program, _ = check_text(HANDS_TEXT, "hands_count.rules")
        alts = Relation(program, 2, {}).alternatives(0)
        out = []
        for alt in alts:
            enc = encode.Encoder(program, 2, {}, alt.step.state)
            out += [enc.call("held", [encode.num(p)]) for p in range(2)]
        return out, alts
    made = counting_substitutions(monkeypatch)
    substituted, alts = held_after_each_move(True)
    assert made, "no call was instantiated"
    direct, alts_direct = held_after_each_move(False)
    assert all(a.eq(b) for a, b in zip(substituted, direct))
    assert differences(alts, alts_direct) == []


ARGUMENT_TEXT = """
game argument_reads_state "An argument that is the state's own value"
players 2
var count: 0..20 = 0
var total: 0..80 = 0
var current: Player = 0
def plus(k: 0..20): 0..40 = k + count
flow {
  for round in 1..4 {
    choose current {
      move step() "steps" require room "room to count": plus(count) <= 30 {
        let was = count
        count += 1
        total = plus(was)
      }
    }
    current = next_player(current)
  }
}
outcome { score p: total }
"""


def test_an_argument_holding_the_state_value_is_not_substituted_into(monkeypatch):
    """A call's first encoding at a free state is its template only where its arguments do not
    hold that state's terms: `plus(count)` before the move has the argument `count`, the very
    constant the template would replace, so `plus(was)` after `count += 1` (same argument, count
    one more) is not the template with count replaced (which would replace the argument too)."""
    from verifier.frontend import check_text

    def alternatives(substituted: bool) -> list:
        monkeypatch.setattr(encode, "SUBSTITUTED_CALLS", substituted)
        program, _ = check_text(ARGUMENT_TEXT, "argument_reads_state.rules")
        return Relation(program, 2, {}).alternatives(0)
    assert differences(alternatives(True), alternatives(False)) == []
