"""Ramen Ink: the compiled engine (spec/ramen_ink.rules) against an oracle written
from the rulebook (tests/oracles/ramen_ink.py), in lockstep and on scoring tables."""
from __future__ import annotations

import functools
import random
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from helpers import ROOT, game
from lockstep import first_disagreement, semantic_chance, semantic_move
from oracles.ramen_ink import RamenInkOracle, bin_penalty, order_points
from verifier.engine import play
from verifier.engine.lib import RuleError
from verifier.engine.runtime import CHANCE

SPEC = ROOT / "spec" / "ramen_ink.rules"
TOPPINGS = ("egg", "seaweed", "fishcake", "pork")

NON_DEFAULT_OPTIONS = [
    {"impossible_drawing": "no_rule"},
    {"bonus_optional": "false"},
    {"drawing_order": "from_first"},
    {"stylist_counting": "one_per_kind"},
]
# scaled to the loaded hypothesis profile (dev 100 -> 25, ci 40 -> 10, thorough 1000 -> 250)
FEWER = max(10, settings.default.max_examples // 4)
FEWEST = max(8, settings.default.max_examples // 6)   # the stuffing policy's games are slower


# ---------------------------------------------------------------- plumbing
def catalogues(module):
    """The order and topping catalogues of a compiled engine module, by item names."""
    orders = [(module.N_OrderKind[kind], [module.N_Topping[t] for t in wants])
              for kind, wants in zip(module.K_ORDERS__kind, module.K_ORDERS__wants)]
    cards = [[module.N_Topping[t] for t in toppings] for toppings in module.K_CARDS__toppings]
    return orders, cards


@functools.lru_cache(maxsize=None)
def _game(path: str, players: int, options: tuple):
    return game(path, players, **dict(options))


def engine_and_oracle(players: int, path: Path | str = SPEC, **options):
    state = _game(str(path), players, tuple(sorted(options.items()))).new_initial_state()
    orders, cards = catalogues(state.m)
    return state, RamenInkOracle(players, orders, cards, **options)


def lockstep(state, oracle, seed: int, options: dict, policy=None):
    """first_disagreement, accepting a deadlock under impossible_drawing=no_rule, provided the
    oracle agrees nobody can move and the engine reports it as a deadlock."""
    result = first_disagreement(state, oracle, seed, policy=policy)
    if result != "deadlock" or options.get("impossible_drawing") != "no_rule":
        return result
    assert not state.is_terminal() and state.legal_actions() == []
    assert oracle.to_move() == ("player", state.current_player())
    assert oracle.legal_moves() == set()
    with pytest.raises(RuleError, match="deadlock"):
        play.random_step(state, random.Random(seed))
    return None


def action_for(state, move):
    """The engine's action id whose semantic move (or chance value) is `move`."""
    if state.current_player() == CHANCE:
        return next(a for a, _ in state.chance_outcomes() if semantic_chance(state, a) == move)
    return next(a for a in state.legal_actions() if semantic_move(state, a) == move)


def step_both(state, oracle, move):
    if state.current_player() == CHANCE:
        state.apply_action(action_for(state, move))
        oracle.apply_chance(move)
    else:
        state.apply_action(action_for(state, move))
        oracle.apply(move)


def engine_moves(state):
    return {semantic_move(state, a) for a in state.legal_actions()}


def stuffing_policy(oracle):
    """A policy (see tests/lockstep.py) that reaches the bin's limit: bin toppings until the
    bin is full, then stuff the fullest bowls.  That makes impossible drawings (I-A1), full
    bowls and bonus chains common, which uniform random play rarely reaches."""
    def make(rng):
        def pick(moves, p):
            if moves[0][0] == "draw" and rng.random() < 0.8:
                def placed(m):
                    return [t for t in m[1:] if t]
                if oracle.binned[p] < 8:
                    key = lambda m: -len(placed(m))                        # noqa: E731
                else:
                    key = lambda m: (len(placed(m)),                       # noqa: E731
                                     sum(sum(oracle.bowls[p][b].values()) for b in placed(m)))
                best = max(map(key, moves))
                moves = [m for m in moves if key(m) == best]
            return rng.choice(moves)
        return pick
    return make


def stuffing_lockstep(state, oracle, seed: int):
    """Lockstep with the bin-stuffing policy: None, "deadlock" or the first difference."""
    return first_disagreement(state, oracle, seed, policy=stuffing_policy(oracle))


# ---------------------------------------------------------------- lockstep
@given(seed=st.integers(0, 10**6), players=st.integers(2, 5))
def test_lockstep_default_options(seed, players):
    state, oracle = engine_and_oracle(players)
    assert lockstep(state, oracle, seed, {}) is None


@pytest.mark.parametrize("options", NON_DEFAULT_OPTIONS, ids=lambda o: "=".join(*o.items()))
@settings(max_examples=FEWER)
@given(seed=st.integers(0, 10**6), players=st.integers(2, 5))
def test_lockstep_non_default_options(options, seed, players):
    state, oracle = engine_and_oracle(players, **options)
    assert lockstep(state, oracle, seed, options) is None


@pytest.mark.parametrize("options", [{}, {"impossible_drawing": "no_rule"}, {"bonus_optional": "false"}],
                         ids=["default", "no_rule", "bonus_mandatory"])
@settings(max_examples=FEWEST)
@given(seed=st.integers(0, 10**6), players=st.integers(2, 5))
def test_lockstep_stuffing_policy(options, seed, players):
    state, oracle = engine_and_oracle(players, **options)
    result = stuffing_lockstep(state, oracle, seed)
    if result == "deadlock":        # both agree nobody can move: only possible without a rule
        assert options.get("impossible_drawing") == "no_rule"
    else:
        assert result is None


def test_stuffing_policy_reaches_impossible_drawings():
    """The stuffing policy really exercises I-A1 (else the test above proves little):
    without a rule some game deadlocks; with the default rule toppings get lost."""
    ends = [stuffing_lockstep(*engine_and_oracle(2, impossible_drawing="no_rule"), seed)
            for seed in range(4)]
    assert "deadlock" in ends
    lost = []
    for seed in range(4):
        state, oracle = engine_and_oracle(2)
        assert stuffing_lockstep(state, oracle, seed) is None
        lost.append(sum(oracle.lost))
    assert any(lost)


# ---------------------------------------------------------------- planted bugs
def test_planted_bin_penalty_bug_is_caught(tmp_path):
    text = SPEC.read_text()
    right = "BIN_PENALTY: seq of 0..5 max 9 = [0, 0, 0, 1, 1, 2, 3, 4, 5]"
    assert right in text
    mutant = tmp_path / "ramen_ink.rules"
    mutant.write_text(text.replace(right, right.replace("[0, 0, 0, 1,", "[0, 0, 1, 1,")))
    found = [lockstep(*engine_and_oracle(2, path=mutant), seed, {}) for seed in range(3)]
    assert any(found), "a wrong bin penalty went unnoticed"
    assert any("scores differ" in f for f in found if f)


def test_planted_dislike_cap_bug_is_caught_by_the_table(tmp_path):
    """A 6-field bowl holds at most 2 full sets of 3 kinds, so the dislike cap of 8
    (I-O3) can never bind in play and lockstep cannot see it; the table does."""
    text = SPEC.read_text()
    assert text.count("least(8,") == 1
    mutant = tmp_path / "ramen_ink.rules"
    mutant.write_text(text.replace("least(8,", "least(12,"))
    counts = {"egg": 3, "seaweed": 3, "fishcake": 3}
    try:
        mutated = engine_order_points("dislike", ["egg", "seaweed", "fishcake"], counts, path=mutant)
    except RuleError as exc:  # 12 also leaves order_points' declared 0..10: caught either way
        assert "outside 0..10" in str(exc)
        mutated = None
    assert mutated != 8
    assert order_points("dislike", ["egg", "seaweed", "fishcake"], counts) == 8


# ---------------------------------------------------------------- scoring tables
def C(**kw):
    return kw


# (kind, wants, bowl contents, stylist_counting, points) -- worked out by hand from I-O1..I-O4
ORDER_CASES = [
    # I-O1 single: 2 per topping of the kind beyond the first
    ("single", ["egg"], C(), "per_kind", 0),
    ("single", ["egg"], C(egg=1), "per_kind", 0),
    ("single", ["egg"], C(egg=2), "per_kind", 2),
    ("single", ["egg"], C(egg=3), "per_kind", 4),
    ("single", ["egg"], C(egg=6), "per_kind", 10),                       # full bowl
    ("single", ["egg"], C(egg=1, seaweed=5), "per_kind", 0),             # full, others worth nothing
    ("single", ["pork"], C(pork=4, egg=2), "per_kind", 6),               # full
    ("single", ["seaweed"], C(egg=6), "per_kind", 0),
    # I-O2 combination: 7 once there are 2 of each kind
    ("combination", ["egg", "seaweed"], C(), "per_kind", 0),
    ("combination", ["egg", "seaweed"], C(egg=2, seaweed=2), "per_kind", 7),
    ("combination", ["egg", "seaweed"], C(egg=3, seaweed=1), "per_kind", 0),
    ("combination", ["egg", "seaweed"], C(egg=3, seaweed=3), "per_kind", 7),        # full, once only
    ("combination", ["egg", "seaweed"], C(egg=2, seaweed=1, fishcake=3), "per_kind", 0),
    ("combination", ["egg", "seaweed"], C(egg=2, seaweed=2, pork=2), "per_kind", 7),
    ("combination", ["fishcake", "pork"], C(fishcake=4, pork=2), "per_kind", 7),
    ("combination", ["fishcake", "pork"], C(fishcake=1, pork=5), "per_kind", 0),
    # I-O3 don't like: 4 per disjoint set of its three kinds, at most 8
    ("dislike", ["egg", "seaweed", "fishcake"], C(), "per_kind", 0),
    ("dislike", ["egg", "seaweed", "fishcake"], C(egg=1, seaweed=1, fishcake=1), "per_kind", 4),
    ("dislike", ["egg", "seaweed", "fishcake"], C(egg=2, seaweed=2, fishcake=2), "per_kind", 8),   # full
    ("dislike", ["egg", "seaweed", "fishcake"], C(egg=3, seaweed=3, fishcake=3), "per_kind", 8),   # 12 capped
    ("dislike", ["egg", "seaweed", "fishcake"], C(egg=2, seaweed=2, fishcake=1, pork=1), "per_kind", 4),
    ("dislike", ["egg", "seaweed", "fishcake"], C(egg=2, seaweed=2, pork=2), "per_kind", 0),
    ("dislike", ["seaweed", "fishcake", "pork"], C(seaweed=5, fishcake=1), "per_kind", 0),
    ("dislike", ["egg", "fishcake", "pork"], C(egg=1, fishcake=1, pork=4), "per_kind", 4),         # full
    # I-O4 food stylist 2x: 3 per disjoint pair of one kind
    ("stylist2", [], C(), "per_kind", 0),
    ("stylist2", [], C(egg=1), "per_kind", 0),
    ("stylist2", [], C(egg=5), "per_kind", 6),                           # 2 pairs
    ("stylist2", [], C(egg=6), "per_kind", 9),                           # 3 pairs, full
    ("stylist2", [], C(egg=1, seaweed=1, fishcake=1, pork=1), "per_kind", 0),
    ("stylist2", [], C(egg=2, seaweed=2, fishcake=2), "per_kind", 9),    # full
    ("stylist2", [], C(egg=3, seaweed=3), "per_kind", 6),
    ("stylist2", [], C(egg=6), "one_per_kind", 3),
    ("stylist2", [], C(egg=2, seaweed=4), "one_per_kind", 6),
    # food stylist 3x: 5 per disjoint triple of one kind
    ("stylist3", [], C(), "per_kind", 0),
    ("stylist3", [], C(egg=2), "per_kind", 0),
    ("stylist3", [], C(egg=5), "per_kind", 5),
    ("stylist3", [], C(egg=6), "per_kind", 10),                          # 2 triples, full
    ("stylist3", [], C(egg=3, seaweed=3), "per_kind", 10),               # full
    ("stylist3", [], C(egg=2, seaweed=2, fishcake=2), "per_kind", 0),    # full, no triple
    ("stylist3", [], C(egg=3, seaweed=2, pork=1), "per_kind", 5),        # full
    ("stylist3", [], C(egg=6), "one_per_kind", 5),
    ("stylist3", [], C(egg=3, seaweed=3), "one_per_kind", 10),
]
# I-D7, from the rulebook's bin fields
BIN_CASES = [(0, 0), (1, 0), (2, 0), (3, 1), (4, 1), (5, 2), (6, 3), (7, 4), (8, 5)]


def case_id(case):
    kind, wants, counts, counting, points = case
    contents = ",".join(f"{k}{v}" for k, v in counts.items()) or "empty"
    return f"{kind}{'/'.join(wants) and '-' + '/'.join(wants)}-{contents}-{counting}-{points}"


def engine_order_points(kind, wants, counts, stylist_counting="per_kind", path=SPEC):
    state = _game(str(path), 2, (("stylist_counting", stylist_counting),)).new_initial_state()
    orders, _ = catalogues(state.m)
    s = state.s
    s.V_orders[3 - 1] = orders.index((kind, list(wants)))
    s.V_bowls[1][3 - 1] = [counts.get(t, 0) for t in state.m.N_Topping]
    return state.m.D_order_points(s, 1, 3)


def test_order_cases_cover_every_kind():
    kinds = [c[0] for c in ORDER_CASES]
    assert all(kinds.count(k) >= 5 for k in ("single", "combination", "dislike", "stylist2", "stylist3"))


@pytest.mark.parametrize("case", ORDER_CASES, ids=case_id)
def test_engine_order_points(case):
    kind, wants, counts, counting, points = case
    assert engine_order_points(kind, wants, counts, counting) == points


@pytest.mark.parametrize("case", ORDER_CASES, ids=case_id)
def test_oracle_order_points(case):
    kind, wants, counts, counting, points = case
    assert order_points(kind, wants, counts, counting) == points


@pytest.mark.parametrize("binned,penalty", BIN_CASES)
def test_engine_bin_penalty(binned, penalty):
    state = _game(str(SPEC), 2, ()).new_initial_state()
    state.s.V_binned[0] = binned
    assert state.m.D_penalty(state.s, 0) == penalty


@pytest.mark.parametrize("binned,penalty", BIN_CASES)
def test_oracle_bin_penalty(binned, penalty):
    assert bin_penalty(binned) == penalty


# ---------------------------------------------------------------- a chained bonus (I-F2)
def test_chained_bonus():
    """A drawing fills bowl 1; the extra topping taken as its bonus fills bowl 2;
    that earns a second bonus decision in the same turn."""
    state, oracle = engine_and_oracle(2)
    for order in range(8):                       # bowl b gets order card b-1
        step_both(state, oracle, order)
    orders, cards = catalogues(state.m)
    egg2, seaweed2, fishcake2 = (cards.index([t, t]) for t in ("egg", "seaweed", "fishcake"))
    for card in (egg2, seaweed2, fishcake2):
        step_both(state, oracle, card)
    step_both(state, oracle, ("take", egg2))     # P1 (seat 0) is active
    step_both(state, oracle, ("take", seaweed2))
    assert state.current_player() == 0 and oracle.to_move() == ("player", 0)

    # bowl 1 holds 5 eggs, bowl 2 holds 5 seaweed
    state.s.V_bowls[0][0] = [5, 0, 0, 0]
    state.s.V_bowls[0][1] = [0, 5, 0, 0]
    oracle.bowls[0][1] = {"egg": 5, "seaweed": 0, "fishcake": 0, "pork": 0}
    oracle.bowls[0][2] = {"egg": 0, "seaweed": 5, "fishcake": 0, "pork": 0}
    assert engine_moves(state) == oracle.legal_moves()
    assert ("draw", 1, 3, 0) in oracle.legal_moves()

    step_both(state, oracle, ("draw", 1, 3, 0))  # fills bowl 1: a bonus
    first_bonus = engine_moves(state)
    assert state.current_player() == 0 and first_bonus == oracle.legal_moves()
    assert {("extra", "seaweed", 2), ("points", "points_a"), ("decline",)} <= first_bonus
    assert not any(m[0] == "extra" and m[2] == 1 for m in first_bonus)   # bowl 1 is full
    assert not any(m[0] == "draw" for m in first_bonus)

    step_both(state, oracle, ("extra", "seaweed", 2))   # fills bowl 2: a second bonus
    second_bonus = engine_moves(state)
    assert state.current_player() == 0 and second_bonus == oracle.legal_moves()
    assert {("points", "points_a"), ("points", "points_b"), ("extra", "egg", 3)} <= second_bonus
    assert not any(m[0] == "extra" and (m[1] == "seaweed" or m[2] in (1, 2)) for m in second_bonus)
    assert not any(m[0] == "draw" for m in second_bonus)

    step_both(state, oracle, ("points", "points_a"))    # the chain ends: P1 draws the leftover
    assert state.scores() == oracle.scores() == [3, 0]
    after = engine_moves(state)
    assert state.current_player() == 0 and after == oracle.legal_moves()
    assert after and all(m[0] == "draw" for m in after)
