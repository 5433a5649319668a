"""The generated engine and its runtime: determinism, clone, JSON, visibility, errors."""
from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from verifier.engine import play
from verifier.engine.lib import RuleError
from verifier.engine.runtime import CHANCE, SIMULTANEOUS, Game, GameState

from helpers import EXAMPLES, engine_for, engine_from_text, game

TTT = EXAMPLES / "tictactoe.rules"
GOOF = EXAMPLES / "goofspiel.rules"


def random_game(g: Game, seed: int, steps: int | None = None) -> GameState:
    rng = random.Random(seed)
    state = g.new_initial_state()
    while not state.is_terminal() and (steps is None or len(state.history) < steps):
        play.random_step(state, rng)
    return state


def test_seeded_play_is_deterministic():
    g = game(GOOF, 3)
    a = play.play_one(g, 11, 1000, log=True)
    b = play.play_one(g, 11, 1000, log=True)
    assert a == b
    c = play.play_one(g, 12, 1000, log=True)
    assert c["history"] != a["history"]


@given(st.integers(0, 10_000), st.integers(0, 9))
def test_clone_is_independent(seed, steps):
    g = game(GOOF, 2)
    state = random_game(g, seed, steps)
    before = (str(state), list(state.history))
    copy = state.clone()
    if not copy.is_terminal():
        play.random_step(copy, random.Random(seed))
        assert copy.history != state.history
    assert (str(state), state.history) == before


@given(st.integers(0, 10_000), st.integers(0, 10))
def test_json_round_trip(seed, steps):
    g = game(GOOF, 3)
    state = random_game(g, seed, steps)
    back = GameState.from_json(g.engine, state.to_json())
    assert str(back) == str(state)
    assert back.history == state.history
    assert back.is_terminal() == state.is_terminal()
    if not state.is_terminal() and not state.is_simultaneous_node():
        assert back.legal_actions() == state.legal_actions()


@pytest.mark.parametrize("text, message", [
    ("{", "not JSON"),
    ("[]", "JSON object"),
    ('{"players": 2, "history": [99]}', "history step 0"),
    ('{"players": 7, "history": []}', "players"),
    ('{"game": "chess", "players": 2, "history": []}', "chess"),
    ('{"players": 2, "history": ["x"]}', "history step 0"),
])
def test_bad_state_files_are_rejected(text, message):
    eng = engine_for(TTT)
    with pytest.raises(Exception) as info:
        GameState.from_json(eng, text)
    assert message in str(info.value)


def test_chance_probabilities_sum_to_one():
    state = game(GOOF, 2).new_initial_state()
    assert state.current_player() == CHANCE
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 5
    assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-12


def test_simultaneous_node_takes_one_action_per_player():
    state = game(GOOF, 3).new_initial_state()
    state.apply_action(state.chance_outcomes()[0][0])
    assert state.current_player() == SIMULTANEOUS
    legal = [state.legal_actions(p) for p in range(3)]
    assert all(len(a) == 5 for a in legal)
    with pytest.raises(ValueError):
        state.apply_actions([legal[0][0]])
    with pytest.raises(ValueError):
        state.apply_action(legal[0][0])
    state.apply_actions([a[0] for a in legal])
    assert state.current_player() == CHANCE


def test_observation_shows_own_private_state_only():
    state = game(GOOF, 2).new_initial_state()
    state.apply_action(state.chance_outcomes()[0][0])
    state.apply_actions([state.legal_actions(0)[4], state.legal_actions(1)[0]])
    mine, theirs = state.observation_string(0), state.observation_string(1)
    assert "hand (yours): {1, 2, 3, 4}" in mine
    assert "hand (yours): {2, 3, 4, 5}" in theirs
    assert "prizes" not in mine and "bid:" not in mine  # hidden from everyone
    assert "won:" in mine  # public


def test_why_illegal_names_the_requirement():
    state = game(TTT).new_initial_state()
    state.apply_action(4)
    assert state.why_illegal(1, 4) == [("empty_cell", "the cell must be empty", ())]
    assert state.why_illegal(1, 0) == []
    assert state.why_illegal(0, 0)[0][0] == "not_your_turn"


def test_string_to_action_parses_action_strings():
    state = game(TTT).new_initial_state()
    assert state.string_to_action(0, "x(1,1)") == 4
    with pytest.raises(ValueError):
        state.string_to_action(0, "x(9,9)")


DEADLOCK = """
game stuck "Stuck"
players 2
var taken: set of 1..3 = {}
flow {
  for round in 1..4 {
    choose 0 {
      move take(v: 1..3) require fresh "not taken yet": v not in taken { add v to taken }
    }
  }
}
outcome { score p: 0 }
"""


def test_a_deadlock_is_reported_not_crashed():
    g = Game(engine_from_text(DEADLOCK), 2)
    with pytest.raises(RuleError, match="deadlock"):
        random_game(g, 0)


OVERFLOW = """
game overflow "Overflow"
players 1
var total: 0..5 = 0
flow {
  for round in 1..3 {
    choose 0 { move add_two() { total += 2 } }
  }
}
outcome { score p: total }
"""


def test_a_value_leaving_its_range_is_a_rule_error():
    g = Game(engine_from_text(OVERFLOW), 1)
    with pytest.raises(RuleError, match=r"outside 0\.\.5"):
        random_game(g, 0)


class GoofspielMachine(RuleBasedStateMachine):
    """Plays random legal moves and checks every spec invariant after each."""

    spec_text = GOOF.read_text()

    @initialize(players=st.integers(2, 4))
    def start(self, players):
        self.state = Game(engine_from_text(self.spec_text, str(GOOF)), players).new_initial_state()

    @rule(data=st.data())
    def step(self, data):
        s = self.state
        if s.is_terminal():
            return
        if s.is_chance_node():
            s.apply_action(data.draw(st.sampled_from([a for a, _ in s.chance_outcomes()])))
        elif s.is_simultaneous_node():
            s.apply_actions([data.draw(st.sampled_from(s.legal_actions(p))) for p in range(s.num_players())])
        else:
            s.apply_action(data.draw(st.sampled_from(s.legal_actions())))

    @invariant()
    def spec_invariants_hold(self):
        if hasattr(self, "state"):
            assert self.state.check_invariants() == []


TestGoofspielInvariants = GoofspielMachine.TestCase


def test_invariant_checking_catches_a_planted_bug():
    # Planted bug: a bid no longer leaves the hand, so hands stop shrinking.
    buggy = GOOF.read_text().replace("remove v from hand[p]\n", "")
    assert buggy != GOOF.read_text()
    g = Game(engine_from_text(buggy, "buggy.rules"), 2)
    rng = random.Random(0)
    state = g.new_initial_state()
    failures = []
    while not state.is_terminal() and not failures:
        play.random_step(state, rng)
        failures = state.check_invariants()
    assert failures and failures[0][0] == "hands_shrink"


def test_returns_for_tictactoe_are_win_loss():
    g = game(TTT)
    seen = set()
    for seed in range(200):
        seen.add(tuple(random_game(g, seed).returns()))
    assert seen == {(1.0, -1.0), (-1.0, 1.0), (0.0, 0.0)}


def test_report_json_is_serialisable():
    report = play.play_one(game(GOOF, 2), 1, 100, log=True)
    json.dumps(report)
    assert report["ended"] and len(report["scores"]) == 2


def test_information_state_lists_only_own_moves():
    # Goofspiel: chance, then a simultaneous reveal; tic-tac-toe: alternating moves.
    state = game(TTT).new_initial_state()
    for a in (4, 0, 8):
        state.apply_action(a)
    assert state.information_state_string(0).endswith("my moves: 4 8")
    assert state.information_state_string(1).endswith("my moves: 0")
    g = game(GOOF, 2).new_initial_state()
    g.apply_action(g.chance_outcomes()[0][0])
    g.apply_actions([g.legal_actions(0)[0], g.legal_actions(1)[1]])
    assert g.information_state_string(0).endswith("my moves: " + str(g.history[1][0]))
    assert str(g.history[0]) not in g.information_state_string(1).split("my moves:")[1]


CHECKS = """
game checks "Checks"
players 2
type Small = 0..9
grid G rows 2 cols 3
var byval: array[Small] of 0..9 = 0
var s9: set of Small = {1}
var q: seq of Small max 3 = [9]
var d: 0..3 = 0
def pick(a: -9..9): 0..9 = byval[a]
def shifted(): set of Small = collect(x in q: x + 1)
def inside(a: -5..5): bool = a in s9
def halve(a: 0..9, b: 0..3): 0..9 = a // b
def small(a: Small): Small = a
def corner(r: 0..5): G = G(r, 0)
flow { }
outcome { score p: 0 }
example below_array "an index below an array's domain is an error, not a wrap-around" {
  expect pick(0 - 7) == 0
}
example outside_set "a value outside a set's domain is simply not a member" {
  expect not inside(0 - 1) and inside(1)
}
example set_overflow "a set cannot hold a value outside its domain" {
  expect size(shifted()) == 1
}
example divide_by_zero "division by zero is an error with its location" {
  expect halve(4, d) == 0
}
example argument_range "a definition's argument must fit its parameter" {
  given d = 3
  expect small(byval[0] + d + 7) == 0
}
example grid_row "a grid cell's row must exist" {
  expect corner(4) == 0
}
"""


def test_values_outside_their_domains_are_rule_errors_with_locations():
    from verifier.engine.examples import run_examples
    diags = run_examples(engine_from_text(CHECKS, "checks.rules"))
    failed = {d.message.split("'")[1]: d for d in diags}
    assert "outside_set" not in failed  # membership is just false
    for name, words in [("below_array", "outside 0..9"), ("set_overflow", "outside 0..9"),
                        ("divide_by_zero", "division by zero"), ("argument_range", "outside 0..9"),
                        ("grid_row", "outside 0..1")]:
        assert name in failed and words in failed[name].message, (name, [d.message for d in diags])
        assert failed[name].span.line > 0  # points into the spec


LISTS = """
game lists "Lists"
players 1
type Bowl = 1..8
option start: 0..6 = 3 because "where the count starts"
var points: array[Bowl] of 0..9 = 0
var nxt: array[Bowl] of Bowl = 1
var open: set of Bowl = {1, 2, 3}
flow {
  for b in (if start == 6 then [4, 5] else [start - 2]) { points[b] = 1 }
  for b in Bowl { nxt[b] = ring_next(b, open) }
}
outcome { score p: points[1] }
"""


@pytest.mark.parametrize("start, points, error", [
    (3, [1, 0, 0, 0, 0, 0, 0, 0], None),
    (6, [0, 0, 0, 1, 1, 0, 0, 0], None),
    (2, None, "lists.rules:10:66: value 0 is outside 1..8"),
])
def test_a_list_in_an_if_is_typed_branch_by_branch_and_its_items_are_checked(start, points, error):
    # The else branch's `[start - 2]` was once typed as the then branch's list of 4..5: its items
    # went unchecked, bowl 0 wrote to bowl 8 (a negative index) and bowl 1 was taken for 4..5.
    # `b`, reused by the second loop, is typed -2..8 there: ring_next goes round the open set's
    # domain (Bowl), not b's.
    g = Game(engine_from_text(LISTS, "lists.rules"), 1, {"start": start})
    if error is not None:
        with pytest.raises(RuleError, match=error):
            g.new_initial_state()
        return
    s = g.new_initial_state().s
    assert s.V_points == points
    assert s.V_nxt == [2, 3, 1, 1, 1, 1, 1, 1]  # round the open bowls 1, 2, 3


ENDLESS = """
game endless "Endless"
players 1
option stuck: bool = false because "the edit that never ends"
var n: 0..3 = 0
flow {
  choose 0 { move go() "goes" { n = 1 } }
  while n < 3 {
    while not stuck and n < 3 { choose 0 { move go() "goes" { n += 1 } } }
    while stuck and n == 1 { n = 1 }
    n = 3
  }
}
outcome { score p: n }
"""


def test_a_flow_that_never_reaches_a_decision_is_a_rule_error():
    # `while not stuck` -> `while stuck`-like edits: the flow goes round and round without a
    # decision point (once across segments, once inside one). Either is a rule error, not a hang.
    with pytest.raises(RuleError, match=r"endless.rules:10:5: this loop ran a million times"):
        state = Game(engine_from_text(ENDLESS, "endless.rules"), 1, {"stuck": True}).new_initial_state()
        state.apply_action(state.legal_actions()[0])
    across = ENDLESS.replace("while stuck and n == 1 { n = 1 }", "").replace("n = 3\n", "")
    with pytest.raises(RuleError, match="the flow ran a million steps without reaching a decision"):
        state = Game(engine_from_text(across, "endless.rules"), 1, {"stuck": True}).new_initial_state()
        state.apply_action(state.legal_actions()[0])
    state = Game(engine_from_text(ENDLESS, "endless.rules"), 1).new_initial_state()
    while not state.is_terminal():  # unstuck, the same flow plays to its end
        state.apply_action(state.legal_actions()[0])
    assert state.s.V_n == 3


# ---------------------------------------------------------------- loop measures (decreases)

MEASURED = """
game measured "Measured"
players 1
var left: 0..5 = 3
var k: 0..3 = 0
var up: 0..5 = 0
flow {
  while left > 0 decreases left {
    choose 0 {
      move take() "take" { left -= 1 }
      move wait() "wait"
      move spin() "spin" {
        k = 0
        while k < 2 decreases 2 - k { k += 1 }
        left -= 1
      }
      move stall() "stall" {
        k = 0
        while k < 2 decreases 5 { k += 1 }
      }
    }
  }
  while up < 5 decreases 2 - up {
    choose 0 { move climb() "climb" { up += 1 } }
  }
}
outcome { score p: left }
"""


def _at(text: str, needle: str, path: str = "measured.rules") -> str:
    """path:line:col of the first occurrence of needle (what a RuleError's location says)."""
    before = text[:text.index(needle)]
    return f"{path}:{before.count(chr(10)) + 1}:{len(before) - before.rfind(chr(10))}"


def _play(state: GameState, *moves: str) -> None:
    for move in moves:
        state.apply_action(state.string_to_action(state.current_player(), move))


def test_a_measure_that_does_not_decrease_is_a_rule_error_at_its_location():
    state = Game(engine_from_text(MEASURED, "measured.rules"), 1).new_initial_state()
    assert state.s.M_0 == 3 and state.s.M_1 == -1  # the first loop is running, the second not entered
    _play(state, "take")
    assert state.s.M_0 == 2
    with pytest.raises(RuleError, match=r"did not decrease \(was 2, now 2\)") as err:
        _play(state, "wait")
    assert err.value.where == _at(MEASURED, "left {")


def test_a_measure_in_a_move_body_is_checked_too():
    state = Game(engine_from_text(MEASURED, "measured.rules"), 1).new_initial_state()
    with pytest.raises(RuleError, match=r"did not decrease \(was 5, now 5\)") as err:
        _play(state, "stall")
    assert err.value.where == _at(MEASURED, "5 {")


def test_a_negative_measure_is_a_rule_error():
    state = Game(engine_from_text(MEASURED, "measured.rules"), 1).new_initial_state()
    _play(state, "spin", "take", "take")  # spin: the move body's measured loop runs fine
    assert state.s.M_0 == -1 and state.s.M_1 == 2  # left the first loop, entered the second
    _play(state, "climb", "climb")
    with pytest.raises(RuleError, match=r"measure is negative \(-1\)") as err:
        _play(state, "climb")
    assert err.value.where == _at(MEASURED, "2 - up")


def test_measures_are_state_carried_by_clone():
    state = Game(engine_from_text(MEASURED, "measured.rules"), 1).new_initial_state()
    _play(state, "take")
    copy = state.clone()
    assert copy.s.M_0 == 2
    _play(copy, "take")
    assert (copy.s.M_0, state.s.M_0) == (1, 2)
    assert "M_0" in type(state.s).__slots__ and "M_1" in type(state.s).__slots__
    again = state.game.state_from_json(state.to_json())
    assert again.s.M_0 == 2


NESTED_MEASURES = """
game nested "Nested"
players 1
var a: 0..3 = 3
var b: 0..3 = 0
flow {
  while a > 0 {
    if a == 2 {
      while b < 3 decreases 3 - b { b += 1 }
    }
    while a > 1 decreases a {
      choose 0 { move down() "down" { a -= 1 } }
    }
    a -= 1
  }
  while b > 0 decreases b { b -= 1 }
}
outcome { score p: b }
"""


def test_measures_are_numbered_in_pre_order_over_the_flow():
    engine = engine_from_text(NESTED_MEASURES, "nested.rules")
    program = engine.program
    loops = [w.decreases.span.line for w in program.measures]
    lines = NESTED_MEASURES.splitlines()
    assert [lines[n - 1].strip().split(" {")[0] for n in loops] == [
        "while b < 3 decreases 3 - b", "while a > 1 decreases a", "while b > 0 decreases b"]
    slots = type(Game(engine, 1).new_initial_state().s).__slots__
    assert [f for f in slots if f.startswith("M_")] == ["M_0", "M_1", "M_2"]
    state = Game(engine, 1).new_initial_state()
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    assert (state.s.M_0, state.s.M_1, state.s.M_2) == (-1, -1, -1)  # every loop exited


def test_bits_lists_a_set_in_order_dense_or_sparse():
    # lib.bits reads a dense mask through its binary digits and a sparse one member by member
    # (issue 15): both must list exactly the members, ascending, shifted by the domain's low end
    from verifier.engine import lib
    rng = random.Random(5)
    for density in (0.02, 0.3, 0.9, 1.0):
        for width in (1, 7, 64, 130):
            mask = sum(1 << i for i in range(width) if rng.random() < density)
            for lo in (0, 1, -3):
                assert lib.bits(mask, lo) == [i + lo for i in range(width) if mask >> i & 1]
    assert lib.bits(0, 2) == []
