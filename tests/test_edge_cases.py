"""Edge-case tables: rulebook situations of each seed game, each with the verdict the rulebook
gives and the rule ID that decides it, answered by the legality query (`verifier.query`).

A case names a situation, how to recognise it in a state (a predicate over the engine's raw
state, written here from the rulebook, not from the spec), the move to ask about (written in
call form, `NAME(values)`), the verdict, the requirement's label and the rule ID the answer
must cite. Positions are real: seeded random games are played until the situation occurs.
Ambiguities are covered under each of their readings (the `options` of a case).
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable

import pytest

from verifier.engine.play import random_step
from verifier.engine.runtime import Engine, Game
from verifier.frontend import load_program
from verifier.query import check_move
from verifier.query.position import Position

RAMEN, INK, WASABI = "spec/ramen.rules", "spec/ramen_ink.rules", "spec/wasabi.rules"
_ENGINES: dict = {}


@dataclass
class Case:
    spec: str
    situation: str
    rule: str  # the rule ID the answer cites
    ask: Callable  # raw state -> the move to ask about (call form), or None where the situation is not met
    verdict: str  # legal, illegal, not_now, not_your_turn
    label: str = ""  # the broken requirement (illegal)
    options: dict = field(default_factory=dict)
    players: int = 2
    effect: str = ""  # legal: a variable the move must change ("-" prefix: must not change)
    games: int = 300


def engine(path: str) -> Engine:
    if path not in _ENGINES:
        _ENGINES[path] = Engine(load_program(path)[0])
    return _ENGINES[path]


def bits(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


def moves_here(m, s) -> set:
    if s.pc < 0 or s.cur < 0:
        return set()
    return {m.MOVES[k][0] for k in m.DECISIONS[s.pc][3]}


# ------------------------------------------------------------------ Ramen (R-...)
# cards are 0..44, kind = card // 9 (chāshū, nūdoru, sūpu, yasai, ajitama), value = card % 9 + 1

def _accepting(s, q, kind) -> list[int]:
    return [b for b in range(s.V_started[q]) if s.V_bowl_count[q][b][kind] == 0]


def r_into_bowl_with_kind(s):
    q = s.cur
    for c in bits(s.V_offer):
        full = [b for b in range(s.V_started[q]) if s.V_bowl_count[q][b][c // 9] > 0]
        if full:
            return f"take({c}, {full[0]})"


def r_new_bowl_while_one_accepts(s):
    q = s.cur
    for c in bits(s.V_offer):
        if _accepting(s, q, c // 9) and s.V_started[q] < 10:
            return f"take({c}, {s.V_started[q]})"


def r_forced_new_bowl(s, skip=0):
    q = s.cur
    for c in bits(s.V_offer):
        if not _accepting(s, q, c // 9) and s.V_started[q] + skip < 10:
            return f"take({c}, {s.V_started[q] + skip})"


def r_into_accepting(s):
    q = s.cur
    for c in bits(s.V_offer):
        ok = _accepting(s, q, c // 9)
        if ok:
            return f"take({c}, {ok[-1]})"


def r_not_in_offer(s):
    missing = [c for c in range(45) if not s.V_offer >> c & 1]
    return f"take({missing[0]}, 0)" if missing else None


def _ingredients(s, p, b):
    return sum(s.V_bowl_count[p][b])


def r_shoyu_without_ingredient(s):
    p = s.cur
    bowls = [b for b in range(10) if 2 * (s.V_bowl_shoyu[p][b] + 1) > _ingredients(s, p, b)]
    return f"add_shoyu({bowls[0]})" if bowls else None


def r_shoyu_fits(s):
    p = s.cur
    bowls = [b for b in range(s.V_started[p]) if 2 * (s.V_bowl_shoyu[p][b] + 1) <= _ingredients(s, p, b)]
    return f"add_shoyu({bowls[0]})" if bowls else None


def r_cannot_place(s, room: bool):
    p = s.cur
    has_room = any(2 * (s.V_bowl_shoyu[p][b] + 1) <= _ingredients(s, p, b) for b in range(s.V_started[p]))
    return "cannot_place()" if has_room == room else None


def r_revealed_values(s, m):
    n = 3 if s.n == 2 else s.n
    return [m.K_CARDS__value[s.V_revealed[q]] for q in range(n)]


def _ramen(situation, rule, move, ask, verdict, label="", **kw):
    def asker(s, m):
        if move not in moves_here(m, s):
            return None
        return ask(s) if ask.__code__.co_argcount == 1 else ask(s, m)
    return Case(RAMEN, situation, rule, asker, verdict, label, **kw)


RAMEN_CASES = [
    _ramen("a card into a started bowl that already holds its kind", "R-B1", "take", r_into_bowl_with_kind,
           "illegal", "fits_bowl"),
    _ramen("a card into a new bowl while a started bowl still accepts its kind", "R-B3", "take",
           r_new_bowl_while_one_accepts, "illegal", "fits_bowl"),
    _ramen("forced to start a new bowl: no started bowl accepts the card", "R-B3", "take",
           lambda s: r_forced_new_bowl(s),
           "legal", effect="started"),
    _ramen("forced to start a new bowl, but skipping one", "R-B3", "take", lambda s: r_forced_new_bowl(s, 1),
           "illegal", "fits_bowl"),
    _ramen("a card into any started bowl that accepts it: the player chooses", "R-B1", "take", r_into_accepting,
           "legal", effect="bowl_count"),
    _ramen("a card that is not in the offer", "R-P7", "take", r_not_in_offer, "illegal", "from_c"),
    _ramen("shōyu without an ingredient (or fewer than two per shōyu)", "R-B2", "add_shoyu",
           r_shoyu_without_ingredient, "illegal", "room"),
    _ramen("shōyu into a bowl with two ingredients per shōyu", "R-B2", "add_shoyu", r_shoyu_fits, "legal",
           effect="bowl_shoyu"),
    _ramen("no bowl for a shōyu claimed while one has room", "R-B2", "cannot_place",
           lambda s: r_cannot_place(s, True), "illegal", "no_room"),
    _ramen("a shōyu no bowl can take, discarded (unplaceable_shoyu=discard)", "R-A4", "cannot_place",
           lambda s: r_cannot_place(s, False), "legal", effect="-shoyu_kept"),
    _ramen("a shōyu no bowl can take, kept unplaced (unplaceable_shoyu=keep)", "R-A4", "cannot_place",
           lambda s: r_cannot_place(s, False), "legal", effect="shoyu_kept", options={"unplaceable_shoyu": "keep"}),
    _ramen("a 1 swapped with the player's own card", "R-P2", "swap_one", lambda s: f"swap_one({s.cur})",
           "illegal", "other_card"),
    _ramen("a 1 swapped with the Grunchie's card (2 players)", "R-P2", "swap_one", lambda s: "swap_one(2)",
           "legal", effect="revealed"),
    _ramen("a 1 swapped with a seat that is not playing (3 players, seat 4)", "R-P2", "swap_one",
           lambda s: "swap_one(4)", "illegal", "other_card", players=3),
    _ramen("the 5 swaps a preference card with itself", "R-P3", "swap_kinds", lambda s: "swap_kinds(1, 1)",
           "illegal", "two_cards"),
    _ramen("the 5 swaps two preference cards (coins stay)", "R-P3", "swap_kinds", lambda s: "swap_kinds(0, 4)",
           "legal", effect="pref"),
    _ramen("a Grunchie cancellation: two 1s revealed, nobody may swap", "R-P5", "take",
           lambda s, m: "keep_one()" if r_revealed_values(s, m).count(1) >= 2 else None, "not_now"),
    _ramen("the last round: the player's own card obeys the placement rule", "R-B3", "keep_own",
           lambda s: (f"keep_own({s.V_started[s.cur]})"
                      if _accepting(s, s.cur, s.V_revealed[s.cur] // 9) else None), "illegal", "fits_bowl"),
    _ramen("the last round: a kept 9 gives a shōyu (final_nine_shoyu=true)", "R-A8", "keep_own",
           lambda s: (f"keep_own({(_accepting(s, s.cur, s.V_revealed[s.cur] // 9) or [s.V_started[s.cur]])[0]})"
                      if s.V_revealed[s.cur] % 9 == 8 else None), "legal", effect="shoyu_held", games=2000),
    _ramen("the last round: a kept 9 gives no shōyu (final_nine_shoyu=false)", "R-A8", "keep_own",
           lambda s: (f"keep_own({(_accepting(s, s.cur, s.V_revealed[s.cur] // 9) or [s.V_started[s.cur]])[0]})"
                      if s.V_revealed[s.cur] % 9 == 8 else None), "legal", effect="-shoyu_held",
           options={"final_nine_shoyu": "false"}, games=2000),
    _ramen("taking for another player", "R-P6", "take",
           lambda s: next((f"take({c}, 0)" for c in bits(s.V_offer)), None), "not_your_turn"),
]


# ------------------------------------------------------------------ Ramen Ink (I-...)
# bowls 1..8, target 0 = the bin; drawn card's topping count is the flow local `n`

def _fits(s, p, b):
    return b not in bits_bowls(s.V_served) and sum(s.V_bowls[p][b - 1]) < 6


def bits_bowls(mask):
    return [b + 1 for b in bits(mask)]


def _ink(situation, rule, move, ask, verdict, label="", **kw):
    def asker(s, m):
        if move not in moves_here(m, s):
            return None
        return ask(s)
    return Case(INK, situation, rule, asker, verdict, label, **kw)


def i_two_in_one(s):
    fit = [b for b in range(1, 9) if _fits(s, s.cur, b)]
    return f"draw({fit[0]}, {fit[0]}, 0)" if s.L_n == 2 and fit else None


def i_both_binned(s):
    return "draw(0, 0, 0)" if s.L_n == 2 and s.V_binned[s.cur] + 2 <= 8 else None


def i_three(s, pick):
    if s.L_n != 3:
        return None
    for x in range(1, 9):
        got = pick(s, x)
        if got and all(_fits(s, s.cur, b) for b in got):
            return f"draw({got[0]}, {got[1]}, {got[2]})"


def _ring(s, b, k):
    for _ in range(abs(k)):
        b = (s.V_nxt if k > 0 else s.V_prv)[b - 1]
    return b


def i_not_adjacent(s, x):
    y, z = _ring(s, x, -2), _ring(s, x, 2)
    return (x, y, z) if len({x, y, z}) == 3 else None


def i_over_served(s, x):
    if not s.V_served or x in bits_bowls(s.V_served):
        return None
    y, z = _ring(s, x, 1), _ring(s, x, 2)
    skips = y != x % 8 + 1 or z != y % 8 + 1  # the window jumps over a served bowl
    return (x, y, z) if skips and len({x, y, z}) == 3 else None


def i_into(s, which):
    bowls = [b for b in range(1, 9) if which(s, b)]
    if not bowls:
        return None
    return f"draw({bowls[0]}, 0, 0)" if s.L_n == 2 else f"draw({bowls[0]}, 0, 0)"


def i_full_bin(s):
    if s.V_binned[s.cur] != 8 or s.L_n != 2:
        return None
    fit = [b for b in range(1, 9) if _fits(s, s.cur, b)]
    return f"draw(0, {fit[0]}, 0)" if len(fit) >= 2 else None


def i_extra_closed(s):
    bad = [b for b in range(1, 9) if not _fits(s, s.cur, b)]
    crossed = bits(s.V_crossed[s.cur])
    free = [k for k in range(4) if k not in crossed]
    return f"extra({free[0]}, {bad[0]})" if bad and free else None


def i_field_twice(s):
    crossed = [f for f in bits(s.V_crossed[s.cur]) if f >= 4]
    return f"points({crossed[0]})" if crossed else None


INK_CASES = [
    _ink("the two toppings of a card into one bowl", "I-D1", "draw", i_two_in_one, "illegal", "two_bowls"),
    _ink("both toppings of a card into the bin", "I-D5", "draw", i_both_binned, "legal", effect="binned"),
    _ink("a 3-topping card into bowls that are not adjacent", "I-D2", "draw",
         lambda s: i_three(s, i_not_adjacent), "illegal", "adjacent"),
    _ink("a 3-topping card with two toppings in one bowl", "I-D2", "draw",
         lambda s: i_three(s, lambda s, x: (x, x, _ring(s, x, 1))), "illegal", "three_bowls"),
    _ink("a 3-topping card over a served bowl: the served bowl is skipped", "I-D3", "draw",
         lambda s: i_three(s, i_over_served), "legal", effect="bowls", games=400),
    _ink("a topping into a served bowl", "I-V1", "draw",
         lambda s: i_into(s, lambda s, b: b in bits_bowls(s.V_served)), "illegal", "from_x"),
    _ink("a topping into a full bowl", "I-D4", "draw",
         lambda s: i_into(s, lambda s, b: b not in bits_bowls(s.V_served) and sum(s.V_bowls[s.cur][b - 1]) == 6),
         "illegal", "from_x"),
    _ink("a full bin: a topping binned while bowls can take the card", "I-D6", "draw", i_full_bin, "illegal",
         "bin_room", games=600),
    _ink("an extra topping into a full or served bowl", "I-F2", "extra", i_extra_closed, "illegal", "open_bowl"),
    _ink("a points field crossed off twice", "I-F1", "points", i_field_twice, "illegal", "field_free",
         games=600),
    _ink("a points bonus on an extra-topping field", "I-F1", "points", lambda s: "points(extra_egg)", "illegal",
         "points_field"),
    _ink("declining a bonus (bonus_optional=true)", "I-A2", "decline", lambda s: "decline()", "legal",
         effect="pending"),
    _ink("declining a bonus that could be taken (bonus_optional=false)", "I-A2", "decline",
         lambda s: "decline()", "illegal", "may", options={"bonus_optional": "false"}),
    _ink("taking a card that was not turned up", "I-R2", "take",
         lambda s: next((f"take({c})" for c in range(40) if not s.V_revealed >> c & 1), None), "illegal", "from_c"),
    _ink("taking a turned-up card", "I-R2", "take",
         lambda s: next((f"take({c})" for c in bits(s.V_revealed)), None), "legal", effect="revealed"),
    _ink("drawing when a card is to be taken", "I-D1", "take", lambda s: "draw(1, 2, 0)", "not_now"),
    _ink("taking for another player", "I-R2", "take",
         lambda s: next((f"take({c})" for c in bits(s.V_revealed)), None), "not_your_turn"),
]


# ------------------------------------------------------------------ Wasabi! (W-...)
# the board: 6 rows x 7 columns, cells 0..41 row by row; actions stack, spicy, switch, chop, wasabi

COLS = 7


def _area(s):
    return s.n + 3


def _tiles(s, c):
    return len(s.V_tiles[c])


def _open(s, c):
    return c % COLS < _area(s) and not s.V_covered >> c & 1


def _w(situation, rule, move, ask, verdict, label="", **kw):
    def asker(s, m):
        if move not in moves_here(m, s):
            return None
        return ask(s)
    return Case(WASABI, situation, rule, asker, verdict, label, **kw)


def _held(s):
    return [k for k in range(8) if s.V_ingredients[s.cur][k] > 0]


def _has(s, a):
    return s.V_cards[s.cur][a] > 0 and not s.V_card_used


def w_place(s, where):
    held = _held(s)
    if s.V_chopped or not held or s.V_placed >= s.V_allowed:
        return None
    cells = [c for c in range(42) if where(s, c)]
    return f"place({held[0]}, {cells[0]})" if cells else None


WASABI_CASES = [
    _w("placement on a covered square", "W-A5", "place",
       lambda s: w_place(s, lambda s, c: s.V_covered >> c & 1), "illegal", "in_use", games=600),
    _w("placement outside the area in use (2 players: 5 columns)", "W-C1", "place",
       lambda s: w_place(s, lambda s, c: c % COLS >= _area(s)), "illegal", "in_use"),
    _w("placement on an occupied square without Stack!", "W-A1", "place",
       lambda s: w_place(s, lambda s, c: _open(s, c) and _tiles(s, c) > 0) if not s.V_stacking else None,
       "illegal", "empty_square"),
    _w("placement on an occupied square after Stack!", "W-A1", "place",
       lambda s: w_place(s, lambda s, c: _open(s, c) and _tiles(s, c) > 0) if s.V_stacking else None,
       "legal", effect="tiles", games=600),
    _w("a second ingredient without Spicy!", "W-T1", "place",
       lambda s: (f"place({_held(s)[0]}, {next(c for c in range(42) if _open(s, c) and _tiles(s, c) == 0)})"
                  if s.V_placed == 1 and s.V_allowed == 1 and _held(s) and not s.V_chopped else None),
       "illegal", "turn_tile"),
    _w("Switch! on two squares that are not adjacent", "W-A3", "play_switch",
       lambda s: "play_switch(0, 2)" if _has(s, 2) else None, "illegal", "adjacent", games=1500),
    _w("Switch! on adjacent squares", "W-A3", "play_switch",
       lambda s: "play_switch(0, 1)" if _has(s, 2) and _open(s, 0) and _open(s, 1) else None, "legal",
       effect="cards", games=1500),
    _w("Switch! without the card", "W-T1", "play_switch",
       lambda s: "play_switch(0, 1)" if not _has(s, 2) else None, "illegal", "card"),
    _w("Chop! on an empty square", "W-A4", "play_chop",
       lambda s: (f"play_chop({next(c for c in range(42) if _open(s, c) and _tiles(s, c) == 0)}, false)"
                  if _has(s, 3) else None), "illegal", "a_tile", games=1500),
    _w("Chop! keeping the tile after an ingredient was placed", "W-A4", "play_chop",
       lambda s: (f"play_chop({next((c for c in range(42) if _open(s, c) and _tiles(s, c) > 0), 0)}, true)"
                  if _has(s, 3) and s.V_placed > 0 else None), "illegal", "keep_rule", games=3000),
    _w("Stack! after the ingredient", "W-A1", "play_stack",
       lambda s: "play_stack()" if _has(s, 0) and s.V_placed > 0 else None, "illegal", "before", games=1500),
    _w("ending phase 1 without placing while a square is free", "W-T1", "end_phase",
       lambda s: "end_phase()" if s.V_placed == 0 and _held(s) and not s.V_chopped else None, "illegal",
       "placed_one"),
    _w("passing after placing", "W-T2", "pass_turn",
       lambda s: (f"pass_turn({bits(s.V_recipes[s.cur])[0]})" if s.V_placed > 0 and s.V_recipes[s.cur]
                  else None), "illegal", "instead"),
    _w("a third action card: 2 in hand, a reward to take", "W-T7", "take_card",
       lambda s: (f"take_card({next((a for a in range(5) if s.V_kitchen[a] > 0), 0)})"
                  if sum(s.V_cards[s.cur]) == 2 else None), "illegal", "hand_limit", games=3000),
    _w("a reward of the type used this turn while another is available", "W-T7", "take_card",
       lambda s: next((f"take_card({a})" for a in bits(s.V_used_type) if s.V_kitchen[a] > 0
                       and any(s.V_kitchen[b] > 0 and not s.V_used_type >> b & 1 for b in range(5))
                       and sum(s.V_cards[s.cur]) < 2), None), "illegal", "new_type", games=3000),
    _w("a starting ingredient from a category already given", "W-S1", "give",
       lambda s: next((f"give({k})" for k in range(8) if s.V_ingredients[(s.cur + 1) % s.n][k] > 0), None),
       "illegal", "starter"),
    _w("rice as a starting ingredient", "W-S1", "give", lambda s: "give(rice)", "illegal", "starter"),
]


ALL = [pytest.param(c, id=f"{c.spec.split('/')[-1][:-6]}: {c.situation}") for c in RAMEN_CASES + INK_CASES
       + WASABI_CASES]


def find_position(case: Case) -> tuple[Position, str]:
    game = Game(engine(case.spec), case.players, case.options, bounded=True)
    m = game.module
    for seed in range(case.games):
        st = game.new_initial_state()
        rng = random.Random(seed)
        while not st.is_terminal():
            text = case.ask(st.s, m)
            if text is not None:
                return Position(game, st, f"seed {seed} after {len(st.history)} steps", []), text
            random_step(st, rng)
    pytest.fail(f"the situation did not occur in {case.games} random games: {case.situation}")


@pytest.mark.parametrize("case", ALL)
def test_edge_case(case: Case):
    pos, text = find_position(case)
    ask_as = pos.state.current_player()
    if case.verdict == "not_your_turn":
        ask_as = (ask_as + 1) % pos.state.num_players()
    r = check_move(pos, text, player=ask_as)
    where = f"{case.situation}: {text} at {pos.source}: {r['failed']}"
    if case.verdict == "legal":
        assert r["legal"], where
        assert case.rule in r["rules"], (where, r["rules"])
        changed = {e["what"].split("[")[0] for e in r["effects"]}
        if case.effect.startswith("-"):
            assert case.effect[1:] not in changed, (where, changed)
        elif case.effect:
            assert case.effect in changed, (where, changed)
        return
    assert not r["legal"], where
    assert r["reason"] == case.verdict, where
    if case.verdict == "illegal":
        labels = {f["label"]: f for f in r["failed"]}
        assert case.label in labels, where
        f = labels[case.label]
        assert f["at"].startswith(case.spec + ":"), where
        if not case.label.startswith(("from_", "player_")):
            assert case.rule in f["rules"], (where, f["rules"])


def test_every_seed_game_has_at_least_15_situations():
    for spec in (RAMEN, INK, WASABI):
        assert sum(1 for c in RAMEN_CASES + INK_CASES + WASABI_CASES if c.spec == spec) >= 15
