"""Mutation benchmark: plausible rule edits that each break one invariant of a seed spec.

Every invariant of `spec/ramen.rules`, `spec/ramen_ink.rules` and `spec/wasabi.rules` (and of the
example games in `SPECS` that state one) states a rulebook fact, so some plausible edit of the rules (a dropped `require`, an off-by-one limit, a
changed catalogue entry, a wrong adjacency) must make it false in some reachable state.  This
file is the catalogue of such edits (`MUTATIONS`, data only) and a runner that asks, for each
mutant, whether `rulebook verify` catches it:

    .venv/bin/python benchmarks/mutations.py --list                  # the catalogue
    .venv/bin/python benchmarks/mutations.py --engine-only           # can the mutant's engine reach the broken state?
    .venv/bin/python benchmarks/mutations.py                         # engine check + verify + verify --games 0
    .venv/bin/python benchmarks/mutations.py --only ink/bin_9 --budget 60 --json out.json

For each mutant the runner writes the mutated spec to a temporary directory and

1. **engine check**: plays the mutant's engine — random games (`verifier/verify/explore.search`,
   the search `verify` itself starts with), then, if those do not break the property, a
   directed search (below) — to show that the broken state is reachable at all;
2. **verify**: runs `rulebook verify MUTANT --players N --property P --json` and reads the
   property's status, method and time; a `violated` result counts as caught only if its trace
   replays through the mutant's engine to a state where the property fails;
3. **engine path without random play**: the same with `--games 0` — what the directed search
   (exhaustive, beam, swarm: `verifier/verify/falsify.py`) and Z3 (BMC, induction) find without
   random games; with `--solver-only`, also `--search 0`: what Z3 finds alone.

It prints the kill rate (caught by verify), the solver-path-only rate, and the number of
**false proofs**: a mutant's property reported `proved` although the mutant breaks it.  A false
proof is release-blocking; `unknown` is only a missed catch.  The exit status is 1 when there is
a false proof or a mutation no longer applies to its spec (its text is not found exactly once),
else 0.

**Directed search.** Some broken states need several unlikely events (three 9s for one player,
two Wasabi! cards on the board).  A mutation may carry a `guide`: an integer expression over the
spec's state, in the spec language, that grows as play nears the broken state.  The runner adds
it to the mutant as `def mutation_guide()` and plays greedily: at every decision, chance
included (any outcome of a draw can happen, so choosing it is fair for reachability), it tries
each option on a copy of the state and takes the one after which the property fails, else the
one with the highest guide (ties and a share of moves at random).  Without a guide the directed
search still looks one step ahead for the failure.

Nothing here is imported by `verifier/`: the game knowledge lives in the catalogue only.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SPECS = {"ramen": "spec/ramen.rules", "ramen_ink": "spec/ramen_ink.rules", "wasabi": "spec/wasabi.rules",
         # an example game whose invariant carries its no_deadlock proof
         "breakthrough": "spec/examples/breakthrough.rules",
         # an example game whose count is kept bean by bean through a `while`
         "mancala": "spec/examples/mancala.rules",
         # an example game whose deck is counted for its draws
         "blackjack": "spec/examples/blackjack.rules",
         # an example game whose score bound rests on when a player may roll
         "pig": "spec/examples/pig.rules"}
WASABI_LIMIT = {"turn_limit": "120"}
Z3_ALONE = False  # --solver-only
PLAY_METHODS = {"search"}  # verify methods that are random games (with --solver-only: "directed" too)  # games must end for play; a limit only cuts games short


@dataclass(frozen=True)
class Mutation:
    game: str             # a key of SPECS
    name: str             # short, unique within the game
    old: str              # text of the spec, found exactly once
    new: str              # its replacement
    breaks: str           # the invariant the edit should break
    players: int          # a player count under which it breaks
    rule: str             # the rule the edit gets wrong
    why: str              # the edit, in the rulebook's words
    options: dict = field(default_factory=dict)
    guide: str | None = None   # spec expression the directed search maximises
    # how the engine check reached the broken state when the catalogue was made: "random" = within the
    # 300 random games `rulebook verify` plays (seed 0), "directed" = only by the directed search
    reach: str = "random"

    @property
    def key(self) -> str:
        return f"{self.game}/{self.name}"

    @property
    def spec(self) -> str:
        return SPECS[self.game]


def M(*args, **kw) -> Mutation:
    return Mutation(*args, **kw)


MUTATIONS: list[Mutation] = [
    # ------------------------------------------------------------------ Ramen
    M("ramen", "no_kind_check",
      "def accepts(p: Player, b: BowlNo, k: Kind): bool = b < started[p] and bowl_count[p][b][k] == 0 @R-B1",
      "def accepts(p: Player, b: BowlNo, k: Kind): bool = b < started[p] @R-B1",
      "bowl_at_most_7", 3, "R-B1",
      "a started bowl takes any card, also a second of a kind: every card goes into the first bowl"),
    M("ramen", "keep_own_any_bowl",
      "placeable(q, revealed[q].kind, b)",
      "b <= started[q]",
      "one_per_kind", 3, "R-F1, R-B1",
      "in the final round the kept card may go into any bowl, also one that has its kind"),
    M("ramen", "shoyu_ratio_off_by_one",
      "2 * (bowl_shoyu[p][b] + 1) <= ingredients_in(p, b)",
      "2 * bowl_shoyu[p][b] + 1 <= ingredients_in(p, b)",
      "shoyu_ratio", 2, "R-B2",
      "the shōyu test counts the shōyu already in the bowl but not the one added: 2 shōyu on 3 ingredients",
      guide="10 * sum(p in players: shoyu_held[p]) + sum(p in players: started[p])"),
    M("ramen", "shoyu_anywhere",
      'require room "at most one shōyu per two ingredients" @R-B2: shoyu_fits(p, b)',
      'require room "at most one shōyu per two ingredients" @R-B2: b < started[p]',
      "shoyu_ratio", 3, "R-B2",
      "shōyu may go into any started bowl (the one-per-two-ingredients limit dropped)"),
    M("ramen", "shoyu_per_ingredient",
      "2 * (bowl_shoyu[p][b] + 1) <= ingredients_in(p, b)",
      "bowl_shoyu[p][b] + 1 <= ingredients_in(p, b)",
      "bowl_at_most_7", 2, "R-B2, R-B5",
      "one shōyu per ingredient instead of per two: 5 ingredients and 3 shōyu make 8 cards",
      guide="100 * shoyu_held[0] + 10 * max(b in BowlNo: sum(k in Kind: bowl_count[0][b][k])) "
            "+ max(b in BowlNo: bowl_shoyu[0][b])"),
    M("ramen", "new_bowl_anywhere",
      "(b == started[p] and not any(",
      "(b >= started[p] and not any(",
      "unstarted_empty", 3, "R-B3",
      "a card that fits no started bowl may start a bowl anywhere, not the next one"),
    M("ramen", "coins_26_yen",
      "const COIN: seq of 3..7 max 5 = [7, 6, 5, 4, 3]",
      "const COIN: seq of 3..7 max 5 = [7, 6, 5, 4, 4]",
      "tips_at_most_25", 3, "R-C2, R-S4",
      "a changed coin: the last tip is worth 4 yen, 26 yen in all"),
    M("ramen", "tips_to_every_holder",
      "def tips(p: Player): 0..35 = sum(i in Pos where tip_taker(i) == p: COIN[i])",
      "def tips(p: Player): 0..35 = sum(i in Pos where competes(p, pref[i]): COIN[i])",
      "tips_at_most_25", 3, "R-T1",
      "every player with cards of a kind takes its coin, not only the one with the lowest total"),
    M("ramen", "final_cards_join_offer",
      "      if last {\n        if is_grunchie(q) { add revealed[q] to removed @R-G3 }\n      } elif",
      "      if last and is_grunchie(q) {\n        add revealed[q] to removed @R-G3\n      } elif",
      "cards_conserved", 3, "R-F1",
      "in the final round the revealed cards still go to the offer, and their players keep them too"),
    M("ramen", "grunchie_last_card_stays",
      "if not last or is_grunchie(q) { remove revealed[q] from table }",
      "if not last { remove revealed[q] from table }",
      "cards_conserved", 2, "R-G3, R-F1",
      "in the final round Grunchie's card stays on the table although it is removed from the game"),
    M("ramen", "short_opening_offer",
      "  for seat in 0..seats() - 1 {\n    chance opening from deck @R-S3",
      "  for seat in 1..seats() - 1 {\n    chance opening from deck @R-S3",
      "offer_never_dry", 3, "R-S3",
      "the opening offer has one card fewer than there are players"),
    M("ramen", "grunchie_card_leaves",
      "} elif is_grunchie(q) and grunchie_offer == literal {",
      "} elif is_grunchie(q) {",
      "offer_never_dry", 2, "R-G3, R-A7",
      "Grunchie's revealed card always leaves the game, whatever the grunchie_offer reading"),

    # ------------------------------------------------------------------ Ramen Ink
    M("ramen_ink", "bin_9",
      "const BIN_SIZE: 8..8 = 8",
      "const BIN_SIZE: 9..9 = 9",
      "bin_capacity", 2, "I-D6",
      "the bin holds 9"),
    M("ramen_ink", "bin_off_by_one",
      "if binned[d] < BIN_SIZE { binned[d] += 1",
      "if binned[d] <= BIN_SIZE { binned[d] += 1",
      "bin_capacity", 2, "I-D6, I-A1",
      "a topping that fits nowhere goes into a full bin (off by one) instead of being lost",
      guide="100 * binned[0] + sum(b in Bowl: sum(k in Topping: bowls[0][b][k]) * sum(k in Topping: bowls[0][b][k]))"),
    M("ramen_ink", "bowl_7_fields",
      "const BOWL_SIZE: 6..6 = 6",
      "const BOWL_SIZE: 7..7 = 7",
      "bowl_capacity", 2, "I-D4",
      "a bowl has 7 fields"),
    M("ramen_ink", "extra_into_full_bowl",
      'require open_bowl "the extra topping goes into an unserved bowl with room" @I-F2 @I-D4: fits(d, into)',
      'require open_bowl "the extra topping goes into an unserved bowl with room" @I-F2 @I-D4: into not in served',
      "bowl_capacity", 2, "I-F2, I-D4",
      "a bonus's extra topping may go into a full bowl",
      guide="10 * count(b in Bowl where sum(k in Topping: bowls[0][b][k]) >= 6) "
            "+ max(b in Bowl: sum(k in Topping: bowls[0][b][k]))"),
    M("ramen_ink", "draw_into_served",
      "def fits(p: Player, b: Bowl): bool = b not in served and in_bowl(p, b) < BOWL_SIZE",
      "def fits(p: Player, b: Bowl): bool = in_bowl(p, b) < BOWL_SIZE",
      "served_scored", 2, "I-D4, I-V1",
      "toppings may still be drawn into a served bowl"),
    M("ramen_ink", "dislike_5_per_set",
      "least(8, 4 * min(",
      "least(10, 5 * min(",
      "dislike_cap", 2, "I-O3",
      "a don't-like order scores 5 per set of its three kinds, at most 10",
      guide="max(b in Bowl where orders[b].kind == dislike: "
            "10 * min(k in orders[b].wants: least(2, bowls[0][b][k])) + sum(k in orders[b].wants: least(2, bowls[0][b][k])))"),
    M("ramen_ink", "six_players",
      "players 2..5 @I-C1",
      "players 2..6 @I-C1",
      "deck_lasts", 6, "I-C1, I-R1",
      "the game allows 6 players: 6 rounds of 7 cards need 42 of the 40 topping cards"),
    M("ramen_ink", "deck_39_cards",
      "  ToppingCard(toppings=[egg, egg]), ToppingCard(toppings=[egg, egg]),\n",
      "  ToppingCard(toppings=[egg, egg]),\n",
      "deck_count", 2, "I-C1",
      "a changed catalogue: one [egg, egg] card fewer, 39 topping cards"),
    M("ramen_ink", "leftover_back_to_deck",
      "    remove leftover from revealed\n",
      "    remove leftover from revealed\n    add leftover to deck\n",
      "deck_count", 3, "I-R4",
      "the card left over goes back into the deck instead of leaving the game"),
    M("ramen_ink", "two_toppings_one_bowl",
      'require two_bowls "the two toppings of a card go into two different bowls" @I-D1:\n'
      "              n == 3 or x == 0 or x != y\n",
      "",
      "different_bowls", 2, "I-D1",
      "the two toppings of a 2-topping card may go into one bowl (require dropped)"),
    M("ramen_ink", "three_bowls_partly_distinct",
      "(x == 0 or (x != y and x != z)) and (y == 0 or y != z)",
      "(x == 0 or x != y) and (y == 0 or y != z)",
      "different_bowls", 2, "I-D2",
      "the first and third toppings of a 3-topping card may share a bowl"),
    M("ramen_ink", "window_with_gap",
      "def window(a: Bowl): set of Bowl = {a, nxt[a], nxt[nxt[a]]}",
      "def window(a: Bowl): set of Bowl = {a, nxt[a], nxt[nxt[nxt[a]]]}",
      "three_adjacent", 2, "I-D2",
      "three 'adjacent' bowls may skip an unserved bowl: 1, 2 and 4"),
    M("ramen_ink", "no_adjacency",
      'require adjacent "the three toppings go into adjacent bowls; served bowls are skipped and a binned topping '
      'leaves its bowl empty" @I-D2 @I-D3 @I-D5:\n              n == 2 or adjacent3(x, y, z)\n',
      "",
      "three_adjacent", 2, "I-D2",
      "the three toppings of a card need not go into adjacent bowls (adjacency require dropped)"),
    M("ramen_ink", "ring_ignores_served",
      "nxt[b] = ring_next(b, without(collect(c in Bowl), served)) @I-D3",
      "nxt[b] = ring_next(b, collect(c in Bowl)) @I-D3",
      "ring_order", 2, "I-D3",
      "adjacency to the right does not skip served bowls"),
    M("ramen_ink", "ring_not_circular",
      "var prv: array[Bowl] of Bowl = [8, 1, 2, 3, 4, 5, 6, 7]",
      "var prv: array[Bowl] of Bowl = [1, 1, 2, 3, 4, 5, 6, 7]",
      "ring_order", 2, "I-D2",
      "bowls in a row, not a circle: bowl 1 has no neighbour on its left"),

    # ------------------------------------------------------------------ Wasabi!
    M("wasabi", "area_off_by_one",
      "def in_area(c: Board): bool = col(c) < area_cols()",
      "def in_area(c: Board): bool = col(c) <= area_cols()",
      "tiles_in_area", 2, "W-C1, W-T1",
      "the area in use has one column more than the player count allows", WASABI_LIMIT),
    M("wasabi", "area_columns",
      "def area_cols(): 5..7 = num_players + 3",
      "def area_cols(): 5..7 = num_players + 4",
      "tiles_in_area", 3, "W-C1",
      "a wrong column count: 3 players use all 7 columns", WASABI_LIMIT),
    M("wasabi", "place_on_covered",
      '@W-T1 @W-C1 @W-A5: open_square(c)',
      '@W-T1 @W-C1 @W-A5: in_area(c)',
      "placement_uncovered", 3, "W-A5",
      "an ingredient may be placed on a square a Wasabi! card covers", WASABI_LIMIT,
      guide="100 * size(covered) + 10 * sum(p in players: cards[p][wasabi_card]) "
            "+ sum(p in players: size(completed[p]))"),
    M("wasabi", "place_on_tile",
      'require empty_square "an empty square, unless Stack! was played" @W-T1 @W-A1: size(tiles[c]) == 0 or stacking\n',
      "",
      "placement_empty", 2, "W-T1",
      "an ingredient may go on top of another without Stack! (the empty-square require dropped)", WASABI_LIMIT),
    M("wasabi", "stack_when_held",
      "size(tiles[c]) == 0 or stacking\n",
      "size(tiles[c]) == 0 or stacking or cards[current][stack] > 0\n",
      "placement_empty", 2, "W-A1",
      "holding Stack! is enough to stack: the card need not be played", WASABI_LIMIT,
      guide="100 * sum(p in players: cards[p][stack]) + 10 * sum(p in players: size(completed[p])) "
            "+ count(c in Board where size(tiles[c]) > 0)"),
    M("wasabi", "stack_lasts",
      "    stacking = false\n    chopped = false\n",
      "    chopped = false\n",
      "stack_played", 2, "W-A1",
      "Stack! stays in play after the turn it was played in", WASABI_LIMIT,
      guide="100 * (if stacking then 1 else 0) + 10 * sum(p in players: cards[p][stack]) "
            "+ sum(p in players: size(completed[p]))"),
    M("wasabi", "many_ingredients",
      'require turn_tile "one ingredient per turn (two with Spicy!)" @W-T1 @W-A2: placed < allowed\n',
      "",
      "one_ingredient", 2, "W-T1",
      "a turn may place any number of ingredients (the one-per-turn require dropped)", WASABI_LIMIT),
    M("wasabi", "two_per_turn",
      "    placed = 0\n    allowed = 1\n",
      "    placed = 0\n    allowed = 2\n",
      "spicy_allows_two", 2, "W-T1, W-A2",
      "every turn allows two ingredients, as if Spicy! were always played", WASABI_LIMIT),
    M("wasabi", "spicy_three",
      "          allowed = 2\n",
      "          allowed = 3\n",
      "spicy_allows_two", 3, "W-A2",
      "Spicy! allows two more ingredients, three in all", WASABI_LIMIT,
      guide="100 * (if spicy in used_type then 1 else 0) + 10 * sum(p in players: cards[p][spicy]) "
            "+ sum(p in players: size(completed[p]))"),
    M("wasabi", "overlapping_wasabi",
      "\n  and size(inter(wasabi_cells(c, vertical), covered)) == 0 @W-A5",
      " @W-A5",
      "wasabi_apart", 3, "W-A5",
      "a Wasabi! card may overlap another", WASABI_LIMIT,
      guide="100 * size(wasabi_at) + 10 * sum(p in players: cards[p][wasabi_card]) "
            "+ sum(p in players: size(completed[p]))"),
    M("wasabi", "wasabi_stays_covered",
      "          covered -= wasabi_cells(c, c in wasabi_vertical)\n",
      "",
      "wasabi_apart", 3, "W-T7, W-A5",
      "taking a Wasabi! card off the board does not uncover its squares", WASABI_LIMIT,
      guide="100 * size(wasabi_at) + 10 * sum(p in players: cards[p][wasabi_card]) "
            "+ sum(p in players: size(completed[p]))"),
    M("wasabi", "hand_of_three",
      "card_count(current) < 2\n          require new_type \"not a type used this turn, unless there is no other "
      "choice\" @W-T7: may_take(a)",
      "card_count(current) < 3\n          require new_type \"not a type used this turn, unless there is no other "
      "choice\" @W-T7: may_take(a)",
      "card_hand_limit", 2, "W-T7",
      "a hand may hold 3 action cards", WASABI_LIMIT,
      guide="100 * max(p in players: card_count(p)) + 10 * sum(p in players: size(completed[p])) "
            "+ count(c in Board where size(tiles[c]) > 0)",
      reach="directed"),
    M("wasabi", "refill_to_two",
      "while hand_count(current) < 3 and pantry_left()",
      "while hand_count(current) < 2 and pantry_left()",
      "ingredients_refilled", 2, "W-T7",
      "ingredients are refilled to 2, not 3", WASABI_LIMIT),
    M("wasabi", "recipe_stays_in_hand",
      "            remove rc from recipes[current]\n",
      "",
      "tokens_at_most_10", 2, "W-T4",
      "a completed recipe stays in hand (its token is not assigned to it), so it completes again", WASABI_LIMIT,
      guide="10 * sum(p in players: assigned[p]) + count(c in Board where size(tiles[c]) > 0)"),
    M("wasabi", "pass_under_shortest",
      "          append r to piles[len_of(r)]\n          passed = true",
      "          append r to piles[2]\n          passed = true",
      "piles_by_length", 2, "W-T2",
      "a passed recipe goes under the pile of the shortest recipes, whatever its length", WASABI_LIMIT),
    M("wasabi", "discard_keeps_copy",
      "        {\n          remove r from recipes[current]\n          append r to piles[len_of(r)]\n        }",
      "        {\n          append r to piles[len_of(r)]\n        }",
      "strips_apart", 2, "W-T2",
      "a recipe discarded after passing goes under its pile but also stays in hand", WASABI_LIMIT),
    M("wasabi", "two_five_tokens",
      "const TOKENS: array[Len] of 0..4 = [4, 3, 2, 1]",
      "const TOKENS: array[Len] of 0..4 = [4, 3, 2, 2]",
      "tokens_at_most_10", 2, "W-C4",
      "a changed catalogue entry: two challenge tokens of length 5, eleven in all", WASABI_LIMIT),
    M("wasabi", "two_token_worth_3",
      "const POINTS: array[Len] of 0..8 = [2, 3, 5, 8]",
      "const POINTS: array[Len] of 0..8 = [3, 3, 5, 8]",
      "tokens_kept", 2, "W-C4",
      "a changed token: the length-2 challenge token is worth 3 points", WASABI_LIMIT,
      guide="10 * sum(p in players: size(completed[p])) + count(c in Board where size(tiles[c]) > 0)"),
    M("wasabi", "three_worth_four",
      "const POINTS: array[Len] of 0..8 = [2, 3, 5, 8]",
      "const POINTS: array[Len] of 0..8 = [2, 4, 5, 8]",
      "points_and_tokens", 2, "W-C4",
      "a changed token: the length-3 challenge token is worth 4 points", WASABI_LIMIT,
      guide="100 * sum(p in players: size(completed[p])) + count(c in Board where size(tiles[c]) > 0)"),
    M("wasabi", "two_gifts_each",
      "for g in 1..3",
      "for g in 1..2",
      "gifts_in_turn", 2, "W-S1",
      "each player gives the next one 2 starting ingredients, not 3"),
    M("wasabi", "gift_of_a_kind_not_category",
      "STARTER[k] and pantry[k] > 0 and not any(j in Ingredient: ingredients[p][j] > 0 and CATEGORY[j] == CATEGORY[k])",
      "STARTER[k] and pantry[k] > 0 and ingredients[p][k] == 0",
      "one_per_category", 2, "W-S1",
      "the 3 starting ingredients must be different ingredients, not of different categories (salmon and tuna "
      "are both fish)"),
    M("wasabi", "gifts_not_from_pantry",
      "          ingredients[next_player(giver)][k] += 1\n          pantry[k] -= 1\n",
      "          ingredients[next_player(giver)][k] += 1\n",
      "gifts_from_pantry", 2, "W-S1, W-AM5",
      "the starting ingredients are given from the box, not taken out of the pantry"),
    M("wasabi", "twelve_strips_dealt",
      "for j in 1..13",
      "for j in 1..12",
      "piles_dealt", 2, "W-C3",
      "each recipe pile is dealt 12 strips, not 13"),
    M("wasabi", "twelve_strips_before_gifts",
      "for j in 1..13",
      "for j in 1..12",
      "piles_full_for_gifts", 2, "W-C3",
      "each recipe pile is dealt 12 strips, not 13: the gifts begin with 48 strips in the piles"),
    M("wasabi", "starting_recipe_stays_on_pile",
      "          add first(piles[n]) to recipes[taker]\n          remove first(piles[n]) from piles[n]\n",
      "          add first(piles[n]) to recipes[taker]\n",
      "piles_until_taken", 2, "W-S2",
      "a starting recipe is copied from its pile and the strip stays on the pile"),
    # ------------------------------------------------------------------ Breakthrough (an example)
    M("breakthrough", "far_row_no_win",
      "if row(dest(from, d)) == goal_row(turn) or not any(c in Cell: board[c] == enemy_of(turn)) {",
      "if not any(c in Cell: board[c] == enemy_of(turn)) {",
      "game_goes_on", 2, "B-E1",
      "reaching the far row does not win: only taking the last enemy piece does"),
    # ------------------------------------------------------------------ Mancala (an example)
    M("mancala", "capture_drops_last_bean",
      "board[store(turn)] += 1 + board[14 - at] @M-T2",
      "board[store(turn)] += board[14 - at] @M-T2",
      "beans_kept", 2, "M-T2",
      "a capture stores the opposite pit's beans but not the capturing bean"),
    # ------------------------------------------------------------------ Blackjack (an example)
    M("blackjack", "dealer_card_stays_in_deck",
      "    chance d from deck\n    remove d from deck\n",
      "    chance d from deck\n",
      "cards_kept", 1, "J-S1",
      "the dealer's two cards are dealt without leaving the deck"),
    # ------------------------------------------------------------------ Pig (an example)
    M("pig", "roll_on_past_winscore",
      "          points[turn] + turn_total < winscore\n",
      "          points[turn] < winscore\n",
      "below_winscore", 2, "roll",
      "a player may roll while their banked points are below winscore, whatever the turn's total"),
]


# ------------------------------------------------------------------ the mutants

class MutationStale(Exception):
    """The mutation's text is not in its spec exactly once (the spec changed under it)."""


def by_key(key: str) -> Mutation:
    for m in MUTATIONS:
        if m.key == key:
            return m
    raise KeyError(key)


def mutant_text(m: Mutation, root: Path = ROOT, guide: bool = False) -> str:
    text = (root / m.spec).read_text(encoding="utf-8")
    n = text.count(m.old)
    if n != 1:
        raise MutationStale(f"{m.key}: the text to replace occurs {n} times in {m.spec}, not once")
    out = text.replace(m.old, m.new)
    if guide and m.guide:
        out += f"\n# added by benchmarks/mutations.py for the directed search\n" \
               f"def mutation_guide(): -1000000..1000000 = {m.guide}\n"
    return out


def program_of(text: str, path: str):
    """Type-check a spec text; raise ValueError with the errors if it has any."""
    from verifier.diagnostics import has_errors
    from verifier.frontend import check_text
    program, diags = check_text(text, path)
    if program is None or has_errors(diags):
        raise ValueError(f"{path}: " + "; ".join(d.message for d in diags if d.severity.value == "error"))
    return program


def game_of(m: Mutation, text: str, path: str):
    from verifier.engine.runtime import Engine, Game
    return Game(Engine(program_of(text, path)), m.players, dict(m.options), bounded=True)


def broken_at(state, name: str) -> bool:
    """Does invariant `name` fail in `state`? (A rule error while evaluating it counts as no.)"""
    from verifier.engine.lib import RuleError
    for inv_name, _, fn, _ in state.m.INVARIANTS:
        if inv_name == name:
            state.s.memo = {}
            try:
                return not fn(state.s)
            except RuleError:
                return False
    raise KeyError(f"no invariant {name!r}")


def replays_to_failure(game, history: list, name: str) -> bool:
    """Replaying `history` from the start reaches a state where invariant `name` fails."""
    from verifier.engine.lib import RuleError
    state = game.new_initial_state()
    try:
        if broken_at(state, name):
            return True
        for step in history:
            state.apply_actions(step) if isinstance(step, list) else state.apply_action(step)
            if broken_at(state, name):
                return True
    except (RuleError, ValueError, IndexError):
        return False
    return False


# ------------------------------------------------------------------ engine check

@dataclass
class EngineCheck:
    reached: bool
    how: str              # "random" (verify's own search), "directed", or "" (not reached)
    games: int            # games played until it was reached (or in all)
    seconds: float
    history: list | None = None

    def as_json(self) -> dict:
        out = asdict(self)
        out["length"] = len(self.history) if self.history is not None else None
        del out["history"]
        return out


def random_search(game, name: str, games: int, seed: int) -> tuple[list | None, int]:
    """The search `rulebook verify` starts with (uniform and edge-pressing random games)."""
    from verifier.verify import explore
    found = explore.search(game, games=games, max_steps=5000, seed=seed)
    for f in found.findings:
        if f.kind == explore.INVARIANT and f.name == name:
            return list(f.history), found.games
    return None, found.games


def _apply(state, step):
    state.apply_actions(step) if isinstance(step, list) else state.apply_action(step)


def directed_playout(game, name: str, rng: random.Random, eps: float, max_steps: int = 3000,
                     sample: int = 48) -> list | None:
    """One greedy game (see the module docstring); the history that breaks `name`, or None."""
    from verifier.engine.lib import RuleError
    from verifier.engine.runtime import CHANCE, SIMULTANEOUS
    guide = getattr(game.module, "D_mutation_guide", None)

    def value(state):
        if broken_at(state, name):
            return float("inf")
        if guide is None:
            return 0.0
        state.s.memo = {}
        try:
            return float(guide(state.s))
        except RuleError:
            return float("-inf")

    def best(state, options, make):
        if rng.random() < eps:
            return rng.choice(options)
        pool = options if len(options) <= sample else rng.sample(options, sample)
        scored = []
        for o in pool:
            c = state.clone()
            try:
                _apply(c, make(o))
            except RuleError:
                continue
            scored.append((value(c), rng.random(), o))
        if not scored:
            return rng.choice(options)
        return max(scored)[2]

    state = game.new_initial_state()
    try:
        while True:
            if broken_at(state, name):
                return list(state.history)
            if state.is_terminal() or len(state.history) >= max_steps:
                return None
            who = state.current_player()
            if who == CHANCE:
                step = best(state, [a for a, _ in state.chance_outcomes()], lambda a: a)
            elif who == SIMULTANEOUS:
                n = state.num_players()
                legal = [state.legal_actions(p) for p in range(n)]
                if not all(legal):
                    return None
                joint = [rng.choice(options) for options in legal]
                for p in range(n):  # one pass of coordinate ascent, the others' moves fixed
                    joint[p] = best(state, legal[p], lambda a, p=p: joint[:p] + [a] + joint[p + 1:])
                step = joint
            else:
                legal = state.legal_actions(who)
                if not legal:
                    return None
                step = best(state, legal, lambda a: a)
            _apply(state, step)
    except RuleError:
        return None


def directed_search(game, name: str, games: int, seed: int, deadline: float | None = None) -> tuple[list | None, int]:
    """Up to `games` directed games, more or less greedy in turn; (the first breaking history, games played)."""
    rng = random.Random(seed)
    for i in range(games):
        if deadline is not None and time.perf_counter() > deadline:
            return None, i
        history = directed_playout(game, name, rng, eps=(0.05, 0.2, 0.4)[i % 3])
        if history is not None:
            return history, i + 1
    return None, games


def engine_check(m: Mutation, games: int = 300, directed: int = 60, seed: int = 0,
                 seconds: float = 300.0) -> EngineCheck:
    """Can the mutant's engine reach a state that breaks `m.breaks`?"""
    t = time.perf_counter()
    path = f"{m.game}-{m.name}.rules"
    game = game_of(m, mutant_text(m, guide=True), path)
    history, played = random_search(game, m.breaks, games, seed)
    if history is not None:
        return EngineCheck(True, "random", played, time.perf_counter() - t, history)
    history, more = directed_search(game, m.breaks, directed, seed, deadline=t + seconds)
    return EngineCheck(history is not None, "directed" if history is not None else "", played + more,
                       time.perf_counter() - t, history)


# ------------------------------------------------------------------ rulebook verify

@dataclass
class VerifyRun:
    status: str           # proved / violated / unknown / error
    method: str
    seconds: float        # the property's own time, as verify reports it
    wall: float           # the whole command
    replayable: bool      # a violated result whose trace replays to the failure
    reason: str = ""
    trace_given: bool = False  # verify gave a trace (for a violation at the start it may give none:
                               # the empty game is then the trace, checked on the initial state)

    @property
    def caught(self) -> bool:
        return self.status == "violated" and self.replayable

    def as_json(self) -> dict:
        return asdict(self) | {"caught": self.caught}


def rulebook_command() -> list[str]:
    exe = ROOT / ".venv" / "bin" / "rulebook"
    if exe.exists():
        return [str(exe)]
    found = shutil.which("rulebook")
    return [found] if found else [sys.executable, "-c", "import sys; from verifier.cli import main; sys.exit(main())"]


def run_verify(m: Mutation, spec_path: Path, solver_only: bool, budget: float, timeout: float) -> VerifyRun:
    args = rulebook_command() + ["verify", str(spec_path), "--players", str(m.players), "--property", m.breaks,
                                 "--json", "--no-progress", "--budget", str(budget), "--timeout", str(timeout)]
    for k, v in m.options.items():
        args += ["--option", f"{k}={v}"]
    if solver_only:
        args += ["--games", "0"] + (["--search", "0"] if Z3_ALONE else [])
    t = time.perf_counter()
    proc = subprocess.run(args, capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - t
    try:
        data = json.loads(proc.stdout)
        results = [r for rep in data["reports"] for r in rep["results"]
                   if r["name"] == m.breaks and r.get("players") in (None, m.players)]
        (r,) = results
    except (ValueError, KeyError, TypeError):
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
        return VerifyRun("error", "", 0.0, wall, False, tail[0][:300])
    replayable, given = False, isinstance(r.get("trace"), dict)
    if r["status"] == "violated" and (given or r.get("method") == "initiation"):
        game = game_of(m, spec_path.read_text(encoding="utf-8"), str(spec_path))
        replayable = replays_to_failure(game, r["trace"].get("history", []) if given else [], m.breaks)
    return VerifyRun(r["status"], r.get("method", ""), float(r.get("seconds", 0.0)), wall, replayable,
                     r.get("reason", "")[:300], given)


# ------------------------------------------------------------------ the runner

def check_catalogue() -> list[str]:
    """Problems with the catalogue itself: duplicate names, stale texts, mutants that do not
    type-check, properties that are not invariants of the spec."""
    problems, seen = [], set()
    for m in MUTATIONS:
        if m.key in seen:
            problems.append(f"{m.key}: duplicate name")
        seen.add(m.key)
        try:
            for guided in (False, True):
                program = program_of(mutant_text(m, guide=guided), f"{m.key}.rules")
            if m.breaks not in {i.name for i in program.invariants}:
                problems.append(f"{m.key}: {m.breaks} is not an invariant of {m.spec}")
        except (MutationStale, ValueError) as exc:
            problems.append(str(exc))
    return problems


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--list", action="store_true", help="print the catalogue and exit")
    ap.add_argument("--only", action="append", default=[], help="a mutant (game/name) or a game; repeatable")
    ap.add_argument("--engine-only", action="store_true", help="only the engine check, no rulebook verify")
    ap.add_argument("--no-engine", action="store_true", help="skip the engine check")
    ap.add_argument("--no-full", action="store_true", help="skip the full verify (run only --games 0)")
    ap.add_argument("--solver-only", action="store_true", help="the --games 0 run also without directed "
                    "search (--search 0): Z3 alone")
    ap.add_argument("--budget", type=float, default=120.0, help="verify --budget per run (default 120 s)")
    ap.add_argument("--timeout", type=float, default=20.0, help="verify --timeout per solver call")
    ap.add_argument("--games", type=int, default=300, help="random games of the engine check (default 300)")
    ap.add_argument("--directed", type=int, default=60, help="directed games of the engine check (default 60)")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    ap.add_argument("--trace-dir", metavar="DIR", help="write each engine-check game as a replay file")
    args = ap.parse_args(argv)
    global Z3_ALONE
    Z3_ALONE = args.solver_only

    chosen = [m for m in MUTATIONS if not args.only or m.key in args.only or m.game in args.only]
    if args.list:
        for m in chosen:
            print(f"{m.key:40} breaks {m.breaks:22} {m.players}p  {m.rule:12} {m.why}")
        print(f"{len(chosen)} mutations, {len({(m.game, m.breaks) for m in chosen})} invariants")
        return 0

    problems = check_catalogue()
    for p in problems:
        print("catalogue:", p)
    rows = []
    tmp = Path(tempfile.mkdtemp(prefix="mutants-"))
    try:
        for m in chosen:
            row = {"mutant": m.key, "breaks": m.breaks, "players": m.players, "rule": m.rule}
            try:
                text = mutant_text(m)
            except MutationStale as exc:
                row["error"] = str(exc)
                rows.append(row)
                print(f"{m.key}: STALE ({exc})", flush=True)
                continue
            path = tmp / f"{m.game}-{m.name}.rules"
            path.write_text(text, encoding="utf-8")
            if not args.no_engine:
                e = engine_check(m, games=args.games, directed=args.directed)
                row["engine"] = e.as_json()
                if args.trace_dir and e.history is not None:
                    Path(args.trace_dir).mkdir(parents=True, exist_ok=True)
                    (Path(args.trace_dir) / f"{m.game}-{m.name}.json").write_text(json.dumps(
                        {"game": m.game, "players": m.players, "options": m.options, "history": e.history}))
            if not args.engine_only:
                if not args.no_full:
                    row["verify"] = run_verify(m, path, False, args.budget, args.timeout).as_json()
                row["solver"] = run_verify(m, path, True, args.budget, args.timeout).as_json()
            rows.append(row)
            print(line(row), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    print()
    print(summary(rows))
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "problems": problems}, indent=1))
    false_proofs = sum(1 for r in rows for k in ("verify", "solver") if r.get(k, {}).get("status") == "proved")
    stale = sum(1 for r in rows if "error" in r)
    return 1 if false_proofs or stale or problems else 0


def line(row: dict) -> str:
    parts = [f"{row['mutant']:38} {row['breaks']:20} {row['players']}p"]
    e = row.get("engine")
    if e is not None:
        parts.append(f"engine: {e['how'] + ' ' + format(e['seconds'], '.0f') + 's' if e['reached'] else 'NOT REACHED'}")
    for k, label in (("verify", "verify"), ("solver", "--games 0")):
        v = row.get(k)
        if v is not None:
            flag = " FALSE PROOF" if v["status"] == "proved" else ""
            trace = (" (trace replays)" if v["caught"] and v.get("trace_given", True) else
                     " (no trace: the initial state breaks it)" if v["caught"] else
                     " (trace does not replay)" if v["status"] == "violated" else "")
            parts.append(f"{label}: {v['status']}/{v['method'] or '-'} {v['seconds']:.0f}s{trace}{flag}")
    return "  ".join(parts)


def summary(rows: list) -> str:
    n = len(rows)
    out = [f"{n} mutants"]
    engine = [r["engine"] for r in rows if "engine" in r]
    if engine:
        by = {h: sum(1 for e in engine if e["reached"] and e["how"] == h) for h in ("random", "directed")}
        out.append(f"engine reaches the broken state: {by['random'] + by['directed']}/{len(engine)} "
                   f"(random search {by['random']}, directed search {by['directed']})")
    solver_label = "Z3 alone (--games 0 --search 0)" if Z3_ALONE else "without random play (--games 0)"
    for k, label in (("verify", "kill rate (verify)"), ("solver", solver_label)):
        runs = [r[k] for r in rows if k in r]
        if runs:
            caught = sum(1 for v in runs if v["caught"])
            methods = {}
            for v in runs:
                if v["caught"]:
                    methods[v["method"]] = methods.get(v["method"], 0) + 1
            proved = sum(1 for v in runs if v["status"] == "proved")
            errors = sum(1 for v in runs if v["status"] == "error")
            out.append(f"{label}: {caught}/{len(runs)} = {100 * caught / len(runs):.0f}% caught as violated with a "
                       f"replayable trace {methods or ''}; false proofs: {proved}; errors: {errors}")
            if k == "solver":
                played = sum(n for m, n in methods.items() if m in PLAY_METHODS | ({"directed"} if Z3_ALONE else set()))
                if played:
                    out.append(f"  warning: {played} of them found by play although the run asks for none")
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
