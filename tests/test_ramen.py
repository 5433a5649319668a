"""Ramen: the compiled spec/ramen.rules against an independent oracle written from the rulebook.

The oracle (tests/oracles/ramen.py) is written from the published rulebook (the R-*
rules cited in the spec); only the catalogue order, option names,
move encoding and modelling conventions are shared with the spec.
"""
from __future__ import annotations

import functools
import random
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from helpers import ROOT, game
from lockstep import first_disagreement, semantic_chance, semantic_move
from oracles.ramen import (COINS, KINDS, Bowl, RamenOracle, card, kind_of, score_breakdown, strength,
                           tip_takers, value_of, winners_of)
from verifier.engine.runtime import CHANCE, SIMULTANEOUS

SPEC = ROOT / "spec" / "ramen.rules"


@functools.lru_cache(maxsize=None)
def _game(players: int, options: tuple = (), path: str = str(SPEC)):
    return game(path, players, **dict(options))


def _run(players, options, seed, path=str(SPEC)):
    g = _game(players, tuple(sorted(options.items())), path)
    return first_disagreement(g.new_initial_state(), RamenOracle(players, **options), seed)


# ---------------------------------------------------------------- lockstep over random games

CONFIGS = [
    (2, {}), (3, {}), (4, {}), (5, {}),
    (2, {"narutos": "true"}), (3, {"narutos": "true"}), (4, {"narutos": "true"}), (5, {"narutos": "true"}),
    (2, {"grunchie_offer": "literal"}),
    (2, {"grunchie_offer": "literal", "narutos": "true"}),
]


@pytest.mark.parametrize("players,options", CONFIGS, ids=[f"{n}p-{o}" for n, o in CONFIGS])
@given(seed=st.integers(0, 2**32 - 1))
def test_lockstep(players, options, seed):
    assert _run(players, options, seed) is None


# the other options (R-A1..R-A8 readings) that the oracle and the spec read alike; fewer examples each
OTHER = [
    {"tips_need_card": "false"},
    {"final_tiebreak": "shared"},
    {"unplaceable_shoyu": "keep", "narutos": "true"},
    {"shoyu_counts": "false"},
    {"bonus_outside_valid": "true"},
    {"final_nine_shoyu": "false"},
]


@pytest.mark.parametrize("options", OTHER, ids=[str(o) for o in OTHER])
@settings(max_examples=max(5, settings.default.max_examples // 4))
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 5))
def test_lockstep_other_options(options, seed, players):
    assert _run(players, options, seed) is None


# Found by this oracle: the spec once compared the tied players' best card by value only; R-K1 ranks
# cards by kind preference first, then value (fixed in spec/ramen.rules, best_card).
def test_lockstep_any_card_tiebreak():
    bad = [s for s in range(20) if _run(3, {"tip_tiebreak": "any_card"}, s) is not None]
    assert not bad, f"disagreements at seeds {bad}"


# ---------------------------------------------------------------- planted bugs are caught

MUTATIONS = [
    ("[7, 6, 5, 4, 3]", "[7, 6, 5, 3, 4]"),                          # R-S4 coins
    ("cards_in(p, b) >= 3", "cards_in(p, b) >= 2"),                   # R-B4 validity
    ("if c.value == 9 { shoyu_held[q] += 1", "if c.value == 8 { shoyu_held[q] += 1"),   # R-P8
    ("pos(revealed[one_by].kind) < pos(revealed[five_by].kind)",
     "pos(revealed[one_by].kind) > pos(revealed[five_by].kind)"),     # R-P4
]


@pytest.mark.parametrize("old,new", MUTATIONS, ids=[m[1] for m in MUTATIONS])
def test_planted_bug_is_detected(tmp_path, old, new):
    text = SPEC.read_text(encoding="utf-8")
    assert text.count(old) == 1
    mutant = tmp_path / "ramen.rules"
    mutant.write_text(text.replace(old, new), encoding="utf-8")
    found = next((seed for players in (3, 2, 4) for seed in range(12)
                  if _run(players, {}, seed, str(mutant)) is not None), None)
    assert found is not None, f"mutation {new!r} went unnoticed"


# ---------------------------------------------------------------- engine states with hand-built bowls

def load_bowls(state, pref, all_bowls, tokens=(), kept=None):
    """Write bowls straight into an engine state (its V_* fields)."""
    s = state.s
    s.V_pref = [KINDS.index(k) for k in pref]
    for p, bowls in enumerate(all_bowls):
        s.V_started[p] = len(bowls)
        s.V_bowled[p] = 0
        for b in range(10):
            s.V_bowl_count[p][b] = [0] * 5
            s.V_bowl_value[p][b] = [0] * 5
            s.V_bowl_shoyu[p][b] = 0
        for b, bowl in enumerate(bowls):
            for c in bowl.cards:
                k = KINDS.index(kind_of(c))
                s.V_bowl_count[p][b][k] += 1
                s.V_bowl_value[p][b][k] += value_of(c)
                s.V_bowled[p] |= 1 << c
            s.V_bowl_shoyu[p][b] = bowl.shoyu
        s.V_shoyu_kept[p] = (kept or [0] * len(all_bowls))[p]
    s.V_naruto_tokens = sum(1 << t for t in tokens)
    return s


def check_bowl_rules(all_bowls):
    cards = [c for bowls in all_bowls for b in bowls for c in b.cards]
    assert len(cards) == len(set(cards)), "a card appears twice"                 # R-C1
    for bowls in all_bowls:
        for b in bowls:
            kinds = [kind_of(c) for c in b.cards]
            assert len(kinds) == len(set(kinds))                                   # R-B1
            assert 2 * b.shoyu <= len(b.cards)                                     # R-B2


def B(*names, shoyu=0):
    """Bowl("9 supu", "3 yasai", shoyu=1)."""
    return Bowl([card(n.split()[1], int(n.split()[0])) for n in names], shoyu)


# R-E3: the rulebook's worked example.  Preference order (from the tips): Sūpu 7, Yasai 6, Nūdoru 5,
# Chāshū 4, Ajitama 3.  Cards chosen by us, consistent with every line; every player holds 10
# ingredient cards (9 takes + the last own card) and one shōyu per 9 taken.
E3_PREF = ["supu", "yasai", "nudoru", "chashu", "ajitama"]
E3_BOWLS = [
    [B("6 chashu", "1 nudoru", "9 supu", "9 yasai", shoyu=2),        # 6 cards
     B("8 supu", "6 ajitama", "3 yasai"),                            # started by the supu (bowl 1 had one)
     B("6 yasai", "5 ajitama", "2 chashu")],                         # started by the yasai
    [B("9 chashu", "4 nudoru", "1 supu", "5 yasai", "1 ajitama"),   # 5 cards
     B("3 supu", "5 chashu", "4 yasai", "2 ajitama", shoyu=1),       # 5 cards
     B("2 supu")],                                                    # no room for a 3rd supu: -2
    [B("1 yasai", "3 chashu", "8 nudoru", "6 supu", "8 ajitama", shoyu=1),   # 6 cards
     B("7 yasai", "9 nudoru", "4 ajitama", "5 supu"),
     B("2 yasai")],                                                   # no room for a 3rd yasai: -2
]
E3_LINES = [  # valid bowls, largest, tips, 6-8 bonus, unplaced, total
    dict(valid=3, largest=6, tips=5, bonus=4, unplaced=0, score=27),
    dict(valid=2, largest=5, tips=10, bonus=0, unplaced=2, score=18),
    dict(valid=2, largest=6, tips=10, bonus=4, unplaced=2, score=24),
]
# The rulebook prints "Total: 22 yenes" for the third player, but its own lines give
# 2x6 + 10 + 4 - 2 = 24: an arithmetic slip in the example (every line is checked instead).
E3_PRINTED_TOTALS = [27, 18, 22]
# coin -> player: 5 Nūdoru to P1; 7 Sūpu + 3 Ajitama to P2; 6 Yasai + 4 Chāshū to P3
E3_TIPS = {"supu": 1, "yasai": 2, "nudoru": 0, "chashu": 2, "ajitama": 1}


def test_rulebook_example_is_consistent():
    check_bowl_rules(E3_BOWLS)
    for bowls in E3_BOWLS:
        cards = [c for b in bowls for c in b.cards]
        assert len(cards) == 10
        assert sum(b.shoyu for b in bowls) == sum(1 for c in cards if value_of(c) == 9)   # R-P8
        for i, b in enumerate(bowls[1:], 1):       # R-B3: each later bowl's first card had no earlier room
            first = kind_of(b.cards[0])
            assert all(first in {kind_of(c) for c in e.cards} for e in bowls[:i])


def test_rulebook_example_printed_totals():
    """Two of the three printed totals follow from their lines; the third does not (see E3_LINES)."""
    sums = [r["valid"] * r["largest"] + r["tips"] + r["bonus"] - r["unplaced"] for r in E3_LINES]
    assert sums == [27, 18, 24]
    assert [a == b for a, b in zip(sums, E3_PRINTED_TOTALS)] == [True, True, False]


def test_rulebook_example_oracle():
    rows = score_breakdown(E3_BOWLS, E3_PREF)
    for row, line in zip(rows, E3_LINES):
        assert {k: row[k] for k in line} == line
    takers = tip_takers(E3_BOWLS, E3_PREF)
    assert {kind: takers[i] for i, kind in enumerate(E3_PREF)} == E3_TIPS
    assert [sorted(r["coins"]) for r in rows] == [[5], [3, 7], [4, 6]]
    assert winners_of(rows) == [0]


def test_rulebook_example_engine():
    state = _game(3).new_initial_state()
    s = load_bowls(state, E3_PREF, E3_BOWLS)
    m = state.m
    for p, line in enumerate(E3_LINES):
        assert m.D_valid_count(s, p) == line["valid"], p
        assert m.D_largest(s, p) == line["largest"], p
        assert m.D_tips(s, p) == line["tips"], p
        assert m.D_bonus678(s, p) == line["bonus"], p
        assert m.D_unplaced(s, p) == line["unplaced"], p
        assert m.D_final_score(s, p) == line["score"], p
    assert {kind: m.D_tip_taker(s, i) for i, kind in enumerate(E3_PREF)} == E3_TIPS
    assert state.scores() == [27, 18, 24]
    assert state.winners() == [0]


# ---------------------------------------------------------------- tips with ties (R-T1, R-T2, R-A1, R-A2)

TIE_PREF = ["supu", "yasai", "nudoru", "chashu", "ajitama"]
TIE_BOWLS = [
    [B("2 supu", "4 ajitama", "9 chashu"), B("5 supu", "2 nudoru", "1 yasai")],
    [B("7 supu", "1 ajitama", "3 nudoru"), B("3 ajitama", "2 chashu", "8 yasai")],
]


@pytest.mark.parametrize("options,expected", [
    # supu 7 vs 7: P2's 7 beats P1's 5 (R-T2).  ajitama 4 vs 1+3: P1's 4 beats P2's 3.
    # yasai 1 < 8: P1.  nudoru 2 < 3: P1.  chashu 9 > 2: P2.
    ({}, {"supu": 1, "yasai": 0, "nudoru": 0, "chashu": 1, "ajitama": 0}),
    ({"tips_need_card": "false"}, {"supu": 1, "yasai": 0, "nudoru": 0, "chashu": 1, "ajitama": 0}),
])
def test_tip_ties(options, expected):
    check_bowl_rules(TIE_BOWLS)
    takers = tip_takers(TIE_BOWLS, TIE_PREF, **{k: v == "true" if v in ("true", "false") else v
                                                for k, v in options.items()})
    assert {k: takers[i] for i, k in enumerate(TIE_PREF)} == expected
    state = _game(2, tuple(options.items())).new_initial_state()
    s = load_bowls(state, TIE_PREF, TIE_BOWLS)
    assert {k: state.m.D_tip_taker(s, i) for i, k in enumerate(TIE_PREF)} == expected
    rows = score_breakdown(TIE_BOWLS, TIE_PREF, **options)
    assert state.scores() == [r["score"] for r in rows]


def test_tips_need_card_and_zero_totals():
    """R-A1: without a card of the kind a player does not compete (default); with the option off a
    0 total wins, and two 0 totals fall to the earliest seat (the engine's convention)."""
    bowls = [[B("3 supu", "4 yasai", "5 nudoru")], [B("2 supu", "6 chashu", "7 nudoru")],
             [B("1 supu", "8 yasai", "9 nudoru", shoyu=1)]]
    check_bowl_rules(bowls)
    pref = list(KINDS)
    for options, chashu, ajitama in [({}, 1, None), ({"tips_need_card": "false"}, 0, 0)]:
        flags = {k: v == "true" for k, v in options.items()}
        takers = tip_takers(bowls, pref, **flags)
        assert (takers[0], takers[4]) == (chashu, ajitama)
        state = _game(3, tuple(options.items())).new_initial_state()
        s = load_bowls(state, pref, bowls)
        assert [state.m.D_tip_taker(s, i) for i in range(5)] == [-1 if t is None else t for t in takers]
        assert state.scores() == [r["score"] for r in score_breakdown(bowls, pref, **options)]


def test_narutos_and_ties():
    """R-N2: the highest total of the kind takes the token; any tie (also all zero): nobody."""
    bowls = [[B("3 supu", "4 yasai", "5 nudoru", shoyu=1)], [B("2 supu", "6 chashu", "7 nudoru")],
             [B("5 supu", "3 yasai", "9 nudoru", shoyu=1), B("1 chashu")]]
    check_bowl_rules(bowls)
    pref = list(KINDS)
    tokens = (2, 4, 5)   # supu (5: P3), ajitama (nobody has any: tie), shōyu (1 vs 0 vs 1: tie)
    state = _game(3, (("narutos", "true"),)).new_initial_state()
    s = load_bowls(state, pref, bowls, tokens)
    rows = score_breakdown(bowls, pref, tokens)
    assert [r["narutos"] for r in rows] == [0, 0, 1]
    assert [state.m.D_narutos_won(s, p) for p in range(3)] == [0, 0, 1]
    assert state.scores() == [r["score"] for r in rows]


# R-T2/R-A2 with tip_tiebreak=any_card: 2 supu (position 0) outranks 9 chashu (position 3) by R-K1,
# so the ajitama coin goes to P2.
def test_any_card_tiebreak_uses_card_rank():
    pref = ["supu", "yasai", "nudoru", "chashu", "ajitama"]
    bowls = [[B("4 ajitama", "9 chashu", "2 nudoru")],
             [B("1 ajitama", "2 supu", "3 yasai"), B("3 ajitama", "1 chashu", "1 nudoru")]]
    check_bowl_rules(bowls)
    assert max(strength(c, pref) for c in bowls[1][0].cards) > max(strength(c, pref) for c in bowls[0][0].cards)
    assert tip_takers(bowls, pref, tip_tiebreak="any_card")[4] == 1
    state = _game(2, (("tip_tiebreak", "any_card"),)).new_initial_state()
    s = load_bowls(state, pref, bowls)
    assert state.m.D_tip_taker(s, 4) == 1


def test_final_tiebreak_smallest_coin():
    rows = [dict(score=10, coins=[7]), dict(score=10, coins=[3, 6]), dict(score=9, coins=[4])]
    assert winners_of(rows) == [1]
    assert winners_of(rows, "shared") == [0, 1]
    assert winners_of([dict(score=5, coins=[]), dict(score=5, coins=[])]) == [0, 1]


# ---------------------------------------------------------------- scripted rounds, engine and oracle together

class Duo:
    """Drive the engine and the oracle with chosen moves, checking they offer the same choices."""

    def __init__(self, players, **options):
        self.e = _game(players, tuple(sorted(options.items()))).new_initial_state()
        self.o = RamenOracle(players, **options)

    def chance(self, value):
        assert self.e.current_player() == CHANCE and self.o.to_move()[0] == "chance"
        outs = {semantic_chance(self.e, a): a for a, _ in self.e.chance_outcomes()}
        assert sorted(outs) == self.o.chance_values()
        self.e.apply_action(outs[value])
        self.o.apply_chance(value)

    def who(self):
        kind, p = self.o.to_move()
        e = self.e.current_player()
        if e == SIMULTANEOUS:
            assert kind == "simultaneous"
            return "all"
        assert kind == "player" and p == e, (kind, p, e)
        return e

    def legal(self, player=None):
        acts = self.e.legal_actions(player)
        moves = {semantic_move(self.e, a): a for a in acts}
        assert set(moves) == self.o.legal_moves(player)
        return moves

    def reveal(self, *cards):
        assert self.who() == "all"
        joint = [self.legal(p)[("reveal", c)] for p, c in enumerate(cards)]
        self.e.apply_actions(joint)
        self.o.apply_joint([("reveal", c) for c in cards])

    def move(self, *move):
        self.who()
        a = self.legal()[move]
        self.e.apply_action(a)
        self.o.apply(move)
        assert self.e.scores() == self.o.scores()

    def revealed(self):
        return list(self.e.s.V_revealed[:self.o.seats])


def C(name):
    v, k = name.split()
    return card(k, int(v))


def setup(duo, pref, hands, offer, tokens=()):
    """Deal: `hands[seat]` lists some of the seat's cards; the rest are filled from unused cards."""
    used = {C(x) for h in hands for x in h} | {C(x) for x in offer}
    spare = iter(c for c in range(45) if c not in used)
    for k in pref:
        duo.chance(k)
    for seat, h in enumerate(hands):
        cards = [C(x) for x in h]
        cards += [next(spare) for _ in range(duo.o.hand_size - len(cards))]
        for c in cards:
            duo.chance(c)
    for x in offer:
        duo.chance(C(x))
    for t in tokens:
        duo.chance(t)


PREF = list(KINDS)          # chashu most valuable ... ajitama least


def test_single_one_swaps():
    """R-P2: the lone 1 may swap with any other revealed card; the swap changes the choice order."""
    d = Duo(3)
    setup(d, PREF, [["1 ajitama"], ["9 chashu"], ["3 supu"]], ["4 nudoru", "6 yasai", "2 chashu"])
    d.reveal(C("1 ajitama"), C("9 chashu"), C("3 supu"))
    assert d.who() == 0
    assert set(d.legal()) == {("keep_one",), ("swap_one", 1), ("swap_one", 2)}
    d.move("swap_one", 1)
    assert d.revealed() == [C("9 chashu"), C("1 ajitama"), C("3 supu")]
    assert d.who() == 0                                  # now holds the 9 chashu: chooses first
    d.move("take", C("2 chashu"), 0)
    assert d.who() == 2
    d.move("take", C("4 nudoru"), 0)
    assert d.who() == 1
    assert set(d.legal()) == {("take", C("6 yasai"), 0)}


def test_two_ones_cancel():
    """R-P5: two 1s: neither acts; choice order by strength straight away."""
    d = Duo(3)
    setup(d, PREF, [["1 ajitama"], ["1 yasai"], ["3 supu"]], ["4 nudoru", "6 yasai", "2 chashu"])
    d.reveal(C("1 ajitama"), C("1 yasai"), C("3 supu"))
    assert d.who() == 2
    assert all(m[0] == "take" for m in d.legal())


@pytest.mark.parametrize("grunchie_card,decides", [("5 supu", None), ("3 supu", 0), ("1 supu", 0)])
def test_grunchie_five_cancels(grunchie_card, decides):
    """R-G4: Grunchie's 5 never acts but cancels a player's 5; any other card lets the 5 act."""
    d = Duo(2)
    setup(d, PREF, [["5 nudoru"], ["2 chashu"], [grunchie_card]], ["4 nudoru", "6 yasai", "2 supu"])
    d.reveal(C("5 nudoru"), C("2 chashu"))
    d.chance(C(grunchie_card))
    if decides is None:
        assert d.who() == 1                              # 2 chashu is the strongest card: P2 takes first
        assert all(m[0] == "take" for m in d.legal())
    else:
        assert d.who() == 0
        assert ("swap_kinds", 0, 4) in d.legal() and ("keep_order",) in d.legal()


def test_grunchie_lone_one_or_five_does_nothing():
    d = Duo(2)
    setup(d, PREF, [["2 nudoru"], ["3 chashu"], ["5 supu", "1 yasai"]], ["4 nudoru", "6 yasai", "2 supu"])
    d.reveal(C("2 nudoru"), C("3 chashu"))
    d.chance(C("5 supu"))
    assert d.who() == 1 and all(m[0] == "take" for m in d.legal())


def test_one_and_five_five_first():
    """R-P4: the 5 nudoru (position 1) resolves before the 1 yasai (position 3)."""
    d = Duo(3)
    setup(d, PREF, [["1 yasai"], ["5 nudoru"], ["7 ajitama"]], ["4 nudoru", "6 yasai", "2 chashu"])
    d.reveal(C("1 yasai"), C("5 nudoru"), C("7 ajitama"))
    assert d.who() == 1
    d.move("swap_kinds", 0, 4)                           # ajitama becomes the most valuable
    assert [KINDS[k] for k in d.e.s.V_pref] == ["ajitama", "nudoru", "supu", "yasai", "chashu"]
    assert d.who() == 0
    d.move("swap_one", 2)                                # P1 grabs the 7 ajitama
    assert d.who() == 0


def test_one_and_five_one_first_effect_stays_with_revealer():
    """R-P4: the 1 chashu (position 0) resolves first; after swapping it for the 5, the 5's effect
    still belongs to P2, who revealed it."""
    d = Duo(3)
    setup(d, PREF, [["1 chashu"], ["5 ajitama"], ["7 supu"]], ["4 nudoru", "6 yasai", "2 chashu"])
    d.reveal(C("1 chashu"), C("5 ajitama"), C("7 supu"))
    assert d.who() == 0
    d.move("swap_one", 1)
    assert d.revealed() == [C("5 ajitama"), C("1 chashu"), C("7 supu")]
    assert d.who() == 1
    assert ("swap_kinds", 0, 1) in d.legal()
    d.move("keep_order")
    assert d.who() == 1                                  # 1 chashu beats 7 supu: P2 chooses first


def test_forced_placement():
    """R-B3: a card that fits a started bowl must go there; one that fits none starts a new bowl."""
    d = Duo(3)
    setup(d, PREF, [["9 chashu", "8 chashu"], ["6 yasai", "4 yasai"], ["3 nudoru", "2 nudoru"]],
          ["4 chashu", "7 chashu", "6 nudoru"])
    d.reveal(C("9 chashu"), C("6 yasai"), C("3 nudoru"))
    assert d.who() == 0
    assert set(d.legal()) == {("take", C(x), 0) for x in ("4 chashu", "7 chashu", "6 nudoru")}
    d.move("take", C("4 chashu"), 0)
    assert d.who() == 2
    d.move("take", C("6 nudoru"), 0)
    d.move("take", C("7 chashu"), 0)
    # round 2: the offer is the three revealed cards
    d.reveal(C("8 chashu"), C("4 yasai"), C("2 nudoru"))
    assert d.who() == 0
    assert set(d.legal()) == {("take", C("9 chashu"), 1), ("take", C("6 yasai"), 0),
                              ("take", C("3 nudoru"), 0)}
    d.move("take", C("9 chashu"), 1)
    assert d.o.shoyu[0] == 1 and d.e.s.V_shoyu_held[0] == 1       # R-P8
