"""verify/falsify: directed search finds planted bugs random play misses, each a game that replays to it.

The planted specs are built so that random play (`explore.search`, as `rulebook verify` runs it)
does not find their bug — each test checks that first, so a test that passes says something
about the directed search, not about luck.
"""
from __future__ import annotations

import json
import random

import pytest

from helpers import EXAMPLES, SPEC_PATHS, engine_from_text, game
from verifier.engine.gen_slack import UNBOUNDED, load_slacks
from verifier.engine.lib import RuleError
from verifier.engine.play import random_step
from verifier.engine.runtime import CHANCE, Game, GameState
from verifier.frontend import check_text
from verifier.verify import explore
from verifier.verify.explore import DEADLOCK, INVARIANT, RULE_ERROR, Finding
from verifier.verify.falsify import EXHAUSTIVE_STATES, NO_DEADLOCK, WELL_FORMED, Falsifier, confirms, falsify
from verifier.verify.run import Budget, verify

ALL = ("exhaustive", "beam", "swarm")

# A lock with four dials, turned one step at a time: it opens only at 7-2-9-4, 22 turns from the
# start, and a random walk over 40 turns essentially never gets there. `bounded` truly holds.
LOCK = '''
game lock "A lock that opens to one combination"
players 1
var a: 0..9 = 0
var b: 0..9 = 0
var c: 0..9 = 0
var d: 0..9 = 0
flow {
  for step in 1..40 {
    choose 0 {
      move up(w: 0..3) "turn {w} up" {
        if w == 0 and a < 9 { a += 1 } elif w == 1 and b < 9 { b += 1 }
        elif w == 2 and c < 9 { c += 1 } elif w == 3 and d < 9 { d += 1 }
      }
      move down(w: 0..3) "turn {w} down" {
        if w == 0 and a > 0 { a -= 1 } elif w == 1 and b > 0 { b -= 1 }
        elif w == 2 and c > 0 { c -= 1 } elif w == 3 and d > 0 { d -= 1 }
      }
    }
  }
}
outcome { score p: 0 }
invariant shut "the lock stays shut": not (a == 7 and b == 2 and c == 9 and d == 4)
invariant bounded "the dials add up to at most 36": a + b + c + d <= 36
'''

# A ladder that jams at the top rung (nobody can move there): random play slips down three times
# as often as it climbs, and neither the lowest nor the highest action id climbs steadily.
LADDER = '''
game ladder "A ladder that jams at the top"
players 1
var rung: 0..12 = 0
flow {
  for step in 1..60 {
    choose 0 {
      move slip(k: 1..3) "slip {k}" require above "enough rungs below": rung >= k and rung < 12 { rung -= k }
      move climb() "climb" require below "a rung above": rung < 12 { rung += 1 }
      move rest() "rest" require low "low enough to rest": rung < 10 { }
    }
  }
}
outcome { score p: rung }
'''

# The same ladder with nothing to stop a climb past its top: a rule error (`well_formed`).
BREAKING_LADDER = '''
game breaking_ladder "Climbing past the top rung breaks the ladder"
players 1
var rung: 0..11 = 0
flow {
  for step in 1..60 {
    choose 0 {
      move slip(k: 1..3) "slip {k}" require above "enough rungs below": rung >= k { rung -= k }
      move climb() "climb" { rung += 1 }
      move rest() "rest" { }
    }
  }
}
outcome { score p: rung }
'''


def inline(text: str) -> Game:
    return Game(engine_from_text(text))


def random_play_misses(g: Game) -> None:
    found = explore.search(g, games=300, max_steps=5000, seed=1)
    assert found.findings == [], [f.describe() for f in found.findings]


def by_name(findings: list[Finding]) -> dict[str, Finding]:
    return {f.name: f for f in findings}


# ------------------------------------------------------------------ slack


SLACKS = '''
game numbers "Numbers to measure"
players 1
var x: 0..10 = 0
var y: 0..10 = 0
var on: bool = false
var none: set of 0..3 = {}
def low(v: 0..10): bool = v <= 4
flow { choose 0 { move go() "go" { } } }
outcome { score p: 0 }
invariant le "": x <= 5
invariant lt "": x < 5
invariant ge "": x >= 5
invariant eq "": x == y
invariant ne "": x != y
invariant negated "": not (x <= 5)
invariant conj "": x <= 5 and y >= 2
invariant disj "": x <= 5 or y >= 2
invariant conj_dual "": x <= 5 and y >= 2
invariant disj_of_nots "": not (x <= 5) or not (y >= 2)
invariant conj_of_nots "": not (x <= 5) and not (y >= 2)
invariant every "": all(i in 0..3: x + i <= 8)
invariant some "": any(i in 0..3 where i != 0: x + i == 9)
invariant left_out "": all(i in 0..3 where i > x + 5: y == 0)
invariant no_items "": all(i in none: x == 99)
invariant flag "": on
invariant through_def "": low(x)
'''


def slack_values(x: int, y: int, on: bool = False) -> dict:
    g = inline(SLACKS)
    state = g.new_initial_state()
    state.s.V_x, state.s.V_y, state.s.V_on = x, y, on
    fns = load_slacks(g.engine.program, g.module)
    return {inv[0]: fn(state.s) for inv, fn in zip(g.module.INVARIANTS, fns)}


def test_slack_numbers_follow_the_documented_convention():
    v = slack_values(3, 7)
    assert v["le"] == 3 and v["lt"] == 2 and v["ge"] == -1  # 5-3+1, 5-3, 3-5+1
    assert v["eq"] == -3 and v["ne"] == 4                    # 1-|3-7|, |3-7|
    assert v["negated"] == 1 - v["le"]
    assert v["conj"] == min(3, 7 - 2 + 1)  # both hold: the nearer to failing
    # both hold: each must be brought to fail, so the distances add up (though the engine never
    # evaluates the right side here); one holds: its own slack
    assert v["disj"] == 3 + (7 - 2 + 1)
    assert slack_values(7, 7)["disj"] == 7 - 2 + 1 and slack_values(7, 7)["conj"] == 5 - 7 + 1
    # both fail: `and` adds up how far each is from holding (x 2 too high, y 1 too low), `or`
    # is the nearer to holding; De Morgan's laws hold exactly
    both_fail = slack_values(7, 0)
    assert both_fail["conj"] == 1 - (1 - (5 - 7 + 1)) - (1 - (0 - 2 + 1)) == -3
    assert both_fail["disj"] == max(5 - 7 + 1, 0 - 2 + 1) == -1
    for x, y in ((3, 7), (7, 7), (7, 0), (3, 0)):
        w = slack_values(x, y)
        assert w["conj_dual"] == 1 - w["disj_of_nots"] and w["disj"] == 1 - w["conj_of_nots"]
    assert v["every"] == min(8 - (3 + i) + 1 for i in range(4))
    # an item `where` leaves out counts as how far `where` is from holding: i = 0 is 0 from `i != 0`
    assert v["some"] == max([0] + [1 - abs(3 + i - 9) for i in range(1, 4)])
    assert v["left_out"] == min(1 - (i - (3 + 5)) for i in range(4))  # holds: every item left out
    assert v["no_items"] == UNBOUNDED
    assert v["flag"] == 0 and slack_values(3, 7, on=True)["flag"] == 1
    assert v["through_def"] == 4 - 3 + 1  # the definition's comparison, seen through the call
    # on the boundary the slack is exactly 1 (holds) or 0 (fails)
    edge = slack_values(5, 5)
    assert edge["le"] == 1 and edge["lt"] == 0 and edge["eq"] == 1 and edge["ne"] == 0


def test_slack_short_circuits_where_the_engine_does():
    text = '''
game partial "A guard before a partial operation"
players 1
var q: seq of 0..9 max 4 = []
flow { choose 0 { move go() "go" { append 3 to q } } }
outcome { score p: 0 }
invariant guarded "": size(q) == 0 or first(q) < 9
invariant guarded_and "": not (size(q) > 0 and first(q) == 9)
'''
    g = inline(text)
    state = g.new_initial_state()  # q is empty: `first(q)` would raise
    fns = load_slacks(g.engine.program, g.module)
    # the right side, which the engine never evaluates here, raises: the left side's slack alone
    assert [fn(state.s) for fn in fns] == [1, 1 - 0]
    state.s.V_q.append(3)  # the left side fails, the right reads: 9 - 3, and 1 - (1 - |3 - 9|)
    assert [fn(state.s) for fn in fns] == [6, 6]


def test_the_search_is_steered_by_each_side_of_a_conjunction():
    """A seed game's state where a reward is due while the hand holds 2 action cards: random
    play reaches it about once in 60 games (seed 0: in game 259). With `and`/`or` read as
    `min`/`max`, the left side alone (the second side is 1 from holding whenever no reward is
    due), the beam and the swarm did not reach it in 40 s at seeds 0, 1 and 2, nor the beam alone
    in 60 s at seeds 0 and 1; with the sides' distances added up, the beam alone reaches it in
    1.1-5.4 s at seeds 0-3 (the swarm, by luck, sometimes either way: not asked here)."""
    from verifier.engine.runtime import Engine
    from verifier.frontend import load_program
    from verifier.query import query_program
    q = query_program(load_program(SPEC_PATHS["wasabi"])[0], "rewards > 0 and card_count(current) == 2")
    g = Game(Engine(q.program), 2, {})
    found = falsify(g, q.program, [q.name], seconds=60, seed=0, strategies=("beam",))
    assert [f.name for f in found] == [q.name]


@pytest.mark.parametrize("name", sorted(SPEC_PATHS))
def test_slack_is_positive_exactly_when_the_invariant_holds(name):
    g = game(SPEC_PATHS[name])
    fns = load_slacks(g.engine.program, g.module)
    rng = random.Random(7)
    checked = 0
    for _ in range(4):
        state = g.new_initial_state()
        while not state.is_terminal() and len(state.history) < 150:
            for (inv, _, holds, _), fn in zip(g.module.INVARIANTS, fns):
                assert (fn(state.s) >= 1) == bool(holds(state.s)), (inv, state.history)
                checked += 1
            try:
                random_step(state, rng)
            except RuleError:
                break
    assert checked > 0 or not g.module.INVARIANTS


def test_a_broken_invariant_has_slack_at_most_zero():
    g = inline(LOCK)
    state = g.new_initial_state()
    state.s.V_a, state.s.V_b, state.s.V_c, state.s.V_d = 7, 2, 9, 4
    shut = load_slacks(g.engine.program, g.module)[0]
    assert shut(state.s) <= 0 and "shut" in [n for n, _, _ in state.check_invariants()]
    state.s.V_d = 5  # one turn away
    assert shut(state.s) == 1


# ------------------------------------------------------------------ planted bugs


def test_beam_search_opens_the_lock_random_play_does_not():
    g = inline(LOCK)
    random_play_misses(g)
    found = falsify(g, g.engine.program, ["shut"], seconds=30, seed=1, strategies=("beam",))
    assert [f.name for f in found] == ["shut"]
    f = found[0]
    assert f.kind == INVARIANT and 7 + 2 + 9 + 4 <= len(f.history) <= 40  # 22 turns at the fewest
    assert confirms(g, f)
    state = explore.replay_history(g, f.history)
    assert (state.s.V_a, state.s.V_b, state.s.V_c, state.s.V_d) == (7, 2, 9, 4)


def test_every_strategy_together_opens_the_lock():
    g = inline(LOCK)
    found = by_name(falsify(g, g.engine.program, ["shut"], seconds=60, seed=3))
    assert "shut" in found and confirms(g, found["shut"])


def test_the_ladder_jams_found_by_each_strategy_alone():
    g = inline(LADDER)
    random_play_misses(g)
    for strategies in (("beam",), ("swarm",), ("exhaustive",)):
        found = falsify(g, g.engine.program, [NO_DEADLOCK], seconds=30, seed=1, strategies=strategies)
        assert [f.kind for f in found] == [DEADLOCK], strategies
        f = found[0]
        assert confirms(g, f)
        state = explore.replay_history(g, f.history)
        assert state.s.V_rung == 12 and state.legal_actions() == []
    assert len(f.history) == 12  # exhaustive search: breadth first, the shortest game


def test_the_swarm_breaks_the_ladder_a_rule_error():
    g = inline(BREAKING_LADDER)
    random_play_misses(g)
    found = falsify(g, g.engine.program, [WELL_FORMED], seconds=30, seed=1, strategies=("swarm",))
    assert [f.kind for f in found] == [RULE_ERROR]
    f = found[0]
    assert f.failing_step is not None and f.failing_text.endswith("climb")
    state = explore.replay_history(g, f.history)  # the history replays; the failing step raises
    assert state.s.V_rung == 11
    with pytest.raises(RuleError):
        explore.apply_step(state, f.failing_step)


def test_nothing_is_reported_where_nothing_breaks():
    # tic-tac-toe: the exhaustive search checks every reachable state, then stops
    g = game(EXAMPLES / "tictactoe.rules")
    props = [inv[0] for inv in g.module.INVARIANTS] + [NO_DEADLOCK, WELL_FORMED]
    assert falsify(g, g.engine.program, props, seconds=60, seed=1) == []
    # the lock's true invariant, under directed search (too many states for the exhaustive one)
    lock = inline(LOCK)
    assert falsify(lock, lock.engine.program, ["bounded", NO_DEADLOCK, WELL_FORMED], seconds=3, seed=1) == []


def test_the_exhaustive_search_knows_when_it_has_seen_every_state():
    import time
    ttt = game(EXAMPLES / "tictactoe.rules")
    lock = inline(LOCK)
    for g, complete in ((ttt, True), (lock, False)):  # 5,478 states; 10^4 dial settings x 41 turns
        search = Falsifier(g, g.engine.program, [NO_DEADLOCK], seed=1, deadline=time.monotonic() + 60)
        assert search.exhaustive(EXHAUSTIVE_STATES, time.monotonic() + 60) is complete


# three dials and 24 turns: 10,515 decisions, past the cap the search once had (10,000 states)
DIALS = LOCK.replace("var d: 0..9 = 0\n", "").replace("1..40", "1..24") \
    .replace(" elif w == 3 and d < 9 { d += 1 }", "").replace(" elif w == 3 and d > 0 { d -= 1 }", "") \
    .replace("w: 0..3", "w: 0..2").replace("and d == 4", "").replace("a + b + c + d <= 36", "a + b + c <= 27") \
    .replace("score p: 0", "score p: a + b + c")


def test_a_game_of_some_ten_thousand_states_is_enumerated_and_its_score_bounds_read_off_it():
    import time
    g = inline(DIALS)
    search = Falsifier(g, g.engine.program, [NO_DEADLOCK], seed=1, deadline=time.monotonic() + 120)
    assert search.exhaustive(EXHAUSTIVE_STATES, time.monotonic() + 120)
    assert len(search.graph) > 10_000
    # 24 turns up reach a + b + c = 24 at most (the type allows 27): the ends' extremes
    assert {k: v[0] for k, v in search.extremes.items()} == {(0, "low"): 0, (0, "high"): 24}
    end = explore.replay_history(g, search.extremes[(0, "high")][1])
    assert end.is_terminal() and end.scores() == [24]
    # verify reports them as the bounds, each with its game: nothing is left to the solver
    program, _ = check_text(DIALS, "dials.rules")
    report = verify(program, {}, budget=Budget(games=10, proof=120, falsify=60))
    (b,) = report.score_bounds
    assert b["proved"] == [0, 24] and b["witness"] == [0, 24] and b["gap"] == 0 and b["by"] == "exhaustive"
    assert {r.name: (r.status, r.method) for r in report.results}["no_deadlock"] == ("proved", "exhaustive")
    # planted: turning dial 0 up past 5 breaks its range; the games past that error are not
    # enumerated, so their ends' scores are no bounds (the search still finishes)
    broken, _ = check_text(DIALS.replace("if w == 0 and a < 9 { a += 1 }", "if w == 0 and a < 9 { a += 1 + a // 5 * 9 }"),
                           "dials.rules")
    report = verify(broken, {}, budget=Budget(games=10, proof=60, falsify=30))
    assert {r.name: r.status for r in report.results}["well_formed"] == "violated"
    assert all(b.get("by") != "exhaustive" for b in report.score_bounds)


def test_a_rule_error_before_the_first_state_is_reported_not_a_crash():
    # planted (a mutant `rulebook mutate` made): the flow leaves a range before the first decision
    g = inline(LADDER.replace("flow {", "var zero: 0..3 = 3\nflow {\n  zero = 5 - zero - zero", 1))
    stats: dict = {}
    found = falsify(g, g.engine.program, [WELL_FORMED], seconds=5, seed=1, strategies=("exhaustive",), stats=stats)
    assert [f.name for f in found] == [RULE_ERROR] and stats["complete"]


def test_a_finding_that_does_not_replay_is_not_confirmed():
    g = inline(LADDER)
    f = falsify(g, g.engine.program, [NO_DEADLOCK], seconds=30, seed=1, strategies=("exhaustive",))[0]
    assert confirms(g, f)
    assert not confirms(g, Finding(DEADLOCK, DEADLOCK, f.message, f.where, f.history[:-1]))
    assert not confirms(g, Finding(INVARIANT, "shut", "", "", f.history))


def test_unknown_properties_are_refused():
    g = inline(LADDER)
    with pytest.raises(ValueError, match="no_such"):
        falsify(g, g.engine.program, ["no_such"], seconds=1, seed=1)


def test_verify_reports_the_directed_finding_with_its_game():
    program, _ = check_text(LADDER, "ladder.rules")
    report = verify(program, {}, budget=Budget(games=50, proof=30, falsify=20), only={"no_deadlock"})
    (r,) = report.results
    assert r.status == "violated" and r.method == "directed"
    state = GameState.from_json(engine_from_text(LADDER), json.dumps(r.trace))
    assert state.s.V_rung == 12 and state.legal_actions() == []


# ------------------------------------------------------------------ Ramen Ink


def ramen_ink_deadlock(players: int, seed: int, strategies=("swarm",)) -> tuple[Game, Finding]:
    g = game(SPEC_PATHS["ramen_ink"], players, impossible_drawing="no_rule")
    found = falsify(g, g.engine.program, [NO_DEADLOCK], seconds=300, seed=seed, strategies=strategies)
    assert [f.kind for f in found] == [DEADLOCK]
    return g, found[0]


def assert_stuck_drawing(g: Game, f: Finding) -> None:
    assert confirms(g, f)
    state = GameState.from_json(g.engine, json.dumps(explore.trace_json(g, f.history, failing=f)))
    who = state.current_player()
    assert who not in (CHANCE,) and state.legal_actions(who) == []
    assert state.m.DECISIONS[state.s.pc][4] == f.where
    text = explore.render_trace(g, f.history, failing_text=f.describe())
    assert "no legal move" in text


def test_ramen_ink_drawing_gets_stuck_with_two_players_under_no_rule():
    g, f = ramen_ink_deadlock(2, seed=2)
    assert_stuck_drawing(g, f)


@pytest.mark.slow
def test_ramen_ink_drawing_gets_stuck_with_three_players_under_no_rule():
    g, f = ramen_ink_deadlock(3, seed=0, strategies=ALL)
    assert_stuck_drawing(g, f)


class _StateClock:
    """A clock for `falsify` that moves one tick per state the search visits: deadlines in states."""

    def __init__(self):
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now


def _ticking_tictactoe(monkeypatch) -> tuple:
    """(a `_StateClock` that `falsify` reads, tic-tac-toe): each state the search visits is one tick."""
    from verifier.verify import falsify as falsify_module
    clock = _StateClock()
    monkeypatch.setattr(falsify_module, "time", clock)
    visit = Falsifier.visit

    def ticking(self, state, how):
        clock.now += 1
        return visit(self, state, how)
    monkeypatch.setattr(Falsifier, "visit", ticking)
    return clock, game(EXAMPLES / "tictactoe.rules")


@pytest.mark.parametrize("deadline, stretch_to, complete", [
    (3900, None, False),  # its share ends in tic-tac-toe's eighth level (3,870 states before it)
    (3900, 9000, True),  # from the eighth level on the levels shrink: forecast to end by 8,430
    (3900, 8000, False),  # ... which is past this later deadline: it stops at the first
    (3800, 9000, False),  # the share ends while the levels still grow: no forecast, it stops
])
def test_the_exhaustive_search_runs_past_its_share_where_its_shrinking_levels_foretell_its_end(
        monkeypatch, deadline, stretch_to, complete):
    clock, ttt = _ticking_tictactoe(monkeypatch)
    search = Falsifier(ttt, ttt.engine.program, [NO_DEADLOCK], seed=1, deadline=10_000)
    assert search.exhaustive(EXHAUSTIVE_STATES, deadline, stretch_to) is complete
    assert clock.now <= (deadline if stretch_to is None or not complete else stretch_to) + 1


def test_the_exhaustive_search_gives_way_before_a_growing_level_it_cannot_finish(monkeypatch):
    """While the levels grow, a complete search visits the next level and the one after, which
    is forecast to grow alike: where that cannot end by the (stretched) deadline, the search gives
    way before the level, not at the deadline in its midst (a seed game's fourth level: 5 s of
    a count's 60 in vain). Only against a stretched deadline (`verify`'s), not a query's short one. In tic-tac-toe's states, one tick each: the fifth level (756 states,
    after 334, three times the fourth) is forecast to end at 334 + 756 + 2,268 = 3,358; the sixth
    (1,260 after 1,090) at 4,450."""
    clock, ttt = _ticking_tictactoe(monkeypatch)
    for deadline, stopped_at in ((3000, 334), (3400, 1090)):
        clock.now = 0.0
        search = Falsifier(ttt, ttt.engine.program, [NO_DEADLOCK], seed=1, deadline=10_000)
        assert search.exhaustive(EXHAUSTIVE_STATES, deadline, deadline) is False
        assert clock.now == stopped_at
    clock.now = 0.0  # without the forecast, the search runs to the deadline
    from verifier.verify import falsify as falsify_module
    monkeypatch.setattr(falsify_module, "_cannot_finish", lambda *args: False)
    search = Falsifier(ttt, ttt.engine.program, [NO_DEADLOCK], seed=1, deadline=10_000)
    assert search.exhaustive(EXHAUSTIVE_STATES, 3000, 3000) is False
    assert clock.now > 3000
    clock.now = 0.0  # nor without a stretched deadline (a query's search)
    monkeypatch.undo()
    clock, ttt = _ticking_tictactoe(monkeypatch)
    search = Falsifier(ttt, ttt.engine.program, [NO_DEADLOCK], seed=1, deadline=10_000)
    assert search.exhaustive(EXHAUSTIVE_STATES, 3000) is False
    assert clock.now > 3000
