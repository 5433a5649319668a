"""A hand-written oracle of Ramen (with Grunchie and the Narutos), written from the rulebook.

Source: the published Spanish rulebook, its rules numbered R-* as in the spec's
citations.  It is deliberately NOT a translation of
spec/ramen.rules: only the catalogue order, the option names and values, the
move encoding and the engine's modelling conventions (seat numbering, order of
the chance draws, one decision per take / kept card / shōyu) are shared.

Two parts:

* plain scoring functions (`Bowl`, `score_breakdown`, `tip_takers`,
  `naruto_takers`, `winners_of`) that work on hand-built bowls, mid-game or at
  the end;
* `RamenOracle(num_players, **options)`, the whole game as a Python generator,
  speaking the lockstep protocol of tests/lockstep.py.

Moves: ("reveal", card), ("swap_one", seat), ("keep_one",), ("swap_kinds", i, j),
("keep_order",), ("take", card, bowl), ("keep_own", bowl), ("add_shoyu", bowl),
("cannot_place",).  Cards are catalogue indices: kind_index * 9 + value - 1.
"""
from __future__ import annotations

from dataclasses import dataclass, field

KINDS = ("chashu", "nudoru", "supu", "yasai", "ajitama")     # R-C1, catalogue order
COINS = (7, 6, 5, 4, 3)                                      # R-S4: by preference position
NARUTO_YEN = 3                                               # R-N2
SHOYU_TOKEN = 5                                              # naruto tokens 0..4 = KINDS, 5 = shōyu
MIN_VALID = 3                                                # R-B4

DEFAULTS = {
    "narutos": False,
    "tips_need_card": True,           # R-A1
    "tip_tiebreak": "of_kind",        # R-A2 (or "any_card")
    "final_tiebreak": "lowest_coin",  # R-A3 (or "shared")
    "unplaceable_shoyu": "discard",   # R-A4 (or "keep")
    "shoyu_counts": True,             # R-A5
    "bonus_outside_valid": False,     # R-A6
    "grunchie_offer": "rejoin",       # R-A7 (or "literal")
    "final_nine_shoyu": True,         # R-A8
}


def card(kind: str, value: int) -> int:
    """The catalogue index of a card."""
    return KINDS.index(kind) * 9 + value - 1


def kind_of(c: int) -> str:
    return KINDS[c // 9]


def value_of(c: int) -> int:
    return c % 9 + 1


def card_name(c: int) -> str:
    return f"{value_of(c)} {kind_of(c)}"


def strength(c: int, pref) -> int:
    """R-K1: the kind's preference position first, the value second."""
    return (5 - list(pref).index(kind_of(c))) * 10 + value_of(c)


def parse_options(options: dict) -> dict:
    out = dict(DEFAULTS)
    for name, raw in options.items():
        if name not in DEFAULTS:
            raise ValueError(f"unknown Ramen option {name!r}")
        if isinstance(DEFAULTS[name], bool):
            if isinstance(raw, bool):
                out[name] = raw
            else:
                text = str(raw).strip().lower()
                if text not in ("true", "false"):
                    raise ValueError(f"option {name}: expected true/false, got {raw!r}")
                out[name] = text == "true"
        else:
            out[name] = str(raw).strip().lower()
    return out


# ---------------------------------------------------------------- bowls and scoring

@dataclass
class Bowl:
    cards: list = field(default_factory=list)   # catalogue indices
    shoyu: int = 0

    def kinds(self) -> set:
        return {kind_of(c) for c in self.cards}

    def size(self, shoyu_counts: bool = True) -> int:
        return len(self.cards) + (self.shoyu if shoyu_counts else 0)

    def is_valid(self, shoyu_counts: bool = True) -> bool:          # R-B4, R-A5
        return self.size(shoyu_counts) >= MIN_VALID

    def accepts(self, kind: str) -> bool:                          # R-B1
        return kind not in self.kinds()

    def shoyu_room(self) -> bool:                                  # R-B2: one shōyu per two ingredients
        return 2 * (self.shoyu + 1) <= len(self.cards)


def bowl_choices(bowls, kind: str) -> list:
    """R-B3: the bowls a card of `kind` may go to (a new bowl only if no started one lacks the kind)."""
    fit = [b for b, bowl in enumerate(bowls) if bowl.accepts(kind)]
    return fit if fit else [len(bowls)]


def _valid_cards(bowls, shoyu_counts):
    return [c for bowl in bowls if bowl.is_valid(shoyu_counts) for c in bowl.cards]


def tip_takers(all_bowls, pref, *, tips_need_card=True, tip_tiebreak="of_kind", shoyu_counts=True) -> list:
    """R-T1/R-T2/R-A1/R-A2: for each preference position, the player who takes its coin (or None)."""
    takers = []
    for kind in pref:
        best = None
        for p, bowls in enumerate(all_bowls):
            valid = _valid_cards(bowls, shoyu_counts)
            of_kind = [value_of(c) for c in valid if kind_of(c) == kind]
            if tips_need_card and not of_kind:
                continue
            total = sum(of_kind)
            if tip_tiebreak == "of_kind":
                high = max(of_kind, default=0)
            else:   # R-K1 defines "the highest card": the kind's preference position first, then the value
                high = max((strength(c, pref) for c in valid), default=0)
            key = (total, -high, p)        # lowest total; then highest card; then earliest seat
            if best is None or key < best[0]:
                best = (key, p)
        takers.append(best[1] if best else None)
    return takers


def naruto_takers(all_bowls, tokens, shoyu_total, *, shoyu_counts=True) -> dict:
    """R-N2: token -> the unique player with the highest total of the kind (most shōyu); any tie: None."""
    out = {}
    for t in tokens:
        if t == SHOYU_TOKEN:
            amounts = list(shoyu_total)
        else:
            kind = KINDS[t]
            amounts = [sum(value_of(c) for c in _valid_cards(bowls, shoyu_counts) if kind_of(c) == kind)
                       for bowls in all_bowls]
        top = max(amounts)
        leaders = [p for p, a in enumerate(amounts) if a == top]
        out[t] = leaders[0] if len(leaders) == 1 else None
    return out


def score_breakdown(all_bowls, pref, tokens=(), kept=None, **options) -> list:
    """R-E1 per player: dict with valid, largest, tips, coins, narutos, bonus, unplaced, score.

    all_bowls[p] is player p's list of Bowl; kept[p] the shōyu kept unplaced (R-A4 keep)."""
    o = parse_options(options)
    sc = o["shoyu_counts"]
    n = len(all_bowls)
    kept = kept or [0] * n
    takers = tip_takers(all_bowls, pref, tips_need_card=o["tips_need_card"],
                        tip_tiebreak=o["tip_tiebreak"], shoyu_counts=sc)
    shoyu_total = [sum(b.shoyu for b in all_bowls[p]) + kept[p] for p in range(n)]
    nar = naruto_takers(all_bowls, tokens, shoyu_total, shoyu_counts=sc)
    rows = []
    for p, bowls in enumerate(all_bowls):
        valid = [b for b in bowls if b.is_valid(sc)]
        invalid = [b for b in bowls if not b.is_valid(sc)]
        coins = [COINS[i] for i, t in enumerate(takers) if t == p]
        row = {
            "valid": len(valid),
            "largest": max((b.size(sc) for b in valid), default=0),
            "coins": coins,
            "tips": sum(coins),
            "narutos": sum(1 for t in nar.values() if t == p),
            "bonus": sum(1 for b in (bowls if o["bonus_outside_valid"] else valid)
                         for c in b.cards if 6 <= value_of(c) <= 8),
            "unplaced": sum(value_of(c) for b in invalid for c in b.cards),
        }
        row["score"] = (row["valid"] * row["largest"] + row["tips"] + NARUTO_YEN * row["narutos"]
                        + row["bonus"] - row["unplaced"])
        rows.append(row)
    return rows


def winners_of(rows, final_tiebreak="lowest_coin") -> list:
    """R-E2/R-A3: most yen; a tie goes to the smallest coin won (none = 8); still tied: shared."""
    top = max(r["score"] for r in rows)
    tied = [p for p, r in enumerate(rows) if r["score"] == top]
    if final_tiebreak == "lowest_coin" and len(tied) > 1:
        smallest = {p: min(rows[p]["coins"], default=8) for p in tied}
        low = min(smallest.values())
        tied = [p for p in tied if smallest[p] == low]
    return sorted(tied)


# ---------------------------------------------------------------- the game

class RamenOracle:
    def __init__(self, num_players: int, **options):
        assert 2 <= num_players <= 5
        self.n = num_players
        self.opt = parse_options(options)
        self.grunchie = 2 if num_players == 2 else None          # R-G1
        self.seats = 3 if num_players == 2 else num_players
        self.hand_size = 8 if num_players == 5 else 9           # R-S2
        self.pref: list = []
        self.hands = [set() for _ in range(self.seats)]
        self.offer: set = set()
        self.bowls = [[] for _ in range(self.n)]
        self.shoyu = [0] * self.n          # held, not yet placed
        self.kept = [0] * self.n           # unplaceable, kept (R-A4 keep)
        self.tokens: list = []
        self.out_of_game: set = set()
        self.log: list = []
        self._gen = self._play()
        self._req = next(self._gen)

    # -------------------------------------------------- protocol
    def to_move(self):
        kind = self._req[0]
        return (kind, self._req[1] if kind == "player" else None)

    def chance_values(self):
        assert self._req[0] == "chance"
        return sorted(self._req[1])

    def apply_chance(self, value):
        assert self._req[0] == "chance" and value in self._req[1], (value, self._req)
        self._send(value)

    def legal_moves(self, p=None):
        if self._req[0] == "simultaneous":
            return set(self._req[1][p])
        assert self._req[0] == "player" and (p is None or p == self._req[1])
        return set(self._req[2])

    def apply(self, move):
        assert self._req[0] == "player" and tuple(move) in self._req[2], (move, self._req[:2])
        self._send(tuple(move))

    def apply_joint(self, moves):
        assert self._req[0] == "simultaneous"
        for p, m in enumerate(moves):
            assert tuple(m) in self._req[1][p], (p, m)
        self._send([tuple(m) for m in moves])

    def _send(self, x):
        try:
            self._req = self._gen.send(x)
        except StopIteration:
            self._req = ("terminal",)

    def breakdown(self):
        kept = self.kept if self.opt["unplaceable_shoyu"] == "keep" else [0] * self.n
        opts = {k: self.opt[k] for k in ("tips_need_card", "tip_tiebreak", "shoyu_counts", "bonus_outside_valid")}
        return score_breakdown(self.bowls, self.pref, self.tokens, kept, **opts)

    def scores(self):
        return [r["score"] for r in self.breakdown()]

    def winners(self):
        return winners_of(self.breakdown(), self.opt["final_tiebreak"])

    # -------------------------------------------------- helpers
    def _place(self, p, c, b):
        bowls = self.bowls[p]
        assert b in bowl_choices(bowls, kind_of(c))
        if b == len(bowls):
            bowls.append(Bowl())
        bowls[b].cards.append(c)

    def _take_moves(self, p, cards):
        return [("take", c, b) for c in cards for b in bowl_choices(self.bowls[p], kind_of(c))]

    # -------------------------------------------------- the flow
    def _play(self):
        # R-S1: preference cards at random, leftmost most valuable; R-S4 coins by position
        kinds = list(KINDS)
        while kinds:
            k = yield ("chance", list(kinds))
            kinds.remove(k)
            self.pref.append(k)
        deck = set(range(45))
        for seat in range(self.seats):                 # R-S2, R-G1 (Grunchie's 9 cards at seat 2)
            for _ in range(self.hand_size):
                c = yield ("chance", sorted(deck))
                deck.remove(c)
                self.hands[seat].add(c)
        for _ in range(self.seats):                     # R-S3
            c = yield ("chance", sorted(deck))
            deck.remove(c)
            self.offer.add(c)
        self.out_of_game |= deck
        if self.opt["narutos"]:                         # R-N1
            pool = list(range(6))
            for _ in range(3):
                t = yield ("chance", list(pool))
                pool.remove(t)
                self.tokens.append(t)

        for rnd in range(1, self.hand_size + 1):
            last = rnd == self.hand_size                # R-F1
            moves = yield ("simultaneous", [[("reveal", c) for c in self.hands[p]] for p in range(self.n)])
            shown = [None] * self.seats
            for p, (_, c) in enumerate(moves):
                self.hands[p].remove(c)
                shown[p] = c
            if self.grunchie is not None:               # R-G2
                g = yield ("chance", sorted(self.hands[self.grunchie]))
                self.hands[self.grunchie].remove(g)
                shown[self.grunchie] = g

            # R-P2..R-P5, R-G4: a 1 (5) acts only if it is the only 1 (5) and not Grunchie's
            effects = []
            for value in (1, 5):
                who = [q for q in range(self.seats) if value_of(shown[q]) == value]
                if len(who) == 1 and who[0] != self.grunchie:
                    effects.append((value, who[0], shown[who[0]]))
            # R-P4: in preference order of the revealed cards
            effects.sort(key=lambda e: -strength(e[2], self.pref))
            for value, owner, _ in effects:
                if value == 1:
                    opts = [("keep_one",)] + [("swap_one", q) for q in range(self.seats) if q != owner]
                    m = yield ("player", owner, opts)
                    if m[0] == "swap_one":
                        q = m[1]
                        shown[owner], shown[q] = shown[q], shown[owner]
                else:
                    opts = [("keep_order",)] + [("swap_kinds", i, j) for i in range(5) for j in range(i + 1, 5)]
                    m = yield ("player", owner, opts)
                    if m[0] == "swap_kinds":
                        i, j = m[1], m[2]
                        self.pref[i], self.pref[j] = self.pref[j], self.pref[i]

            # R-P6/R-P7: strongest revealed card first
            order = sorted(range(self.seats), key=lambda q: -strength(shown[q], self.pref))
            next_offer = set()
            for q in order:
                mine = shown[q]
                if q == self.grunchie:                  # R-G3
                    if last or self.opt["grunchie_offer"] == "literal":
                        self.out_of_game.add(mine)
                    else:
                        next_offer.add(mine)            # R-A7 rejoin
                    if self.offer:
                        low = min(self.offer, key=lambda c: strength(c, self.pref))
                        self.offer.remove(low)
                        self.out_of_game.add(low)
                    continue
                if not last:
                    next_offer.add(mine)
                if self.offer:
                    m = yield ("player", q, self._take_moves(q, sorted(self.offer)))
                    _, c, b = m
                    self.offer.remove(c)
                    self._place(q, c, b)
                    if value_of(c) == 9:                # R-P8
                        self.shoyu[q] += 1
                if last:                                # R-F1: keep one's own card too
                    m = yield ("player", q, [("keep_own", b) for b in bowl_choices(self.bowls[q], kind_of(mine))])
                    self._place(q, mine, m[1])
                    if value_of(mine) == 9 and self.opt["final_nine_shoyu"]:   # R-A8
                        self.shoyu[q] += 1
            self.offer = next_offer

        # R-F2: shōyu into bowls, one per two ingredients (R-B2)
        for p in range(self.n):
            while self.shoyu[p]:
                room = [b for b, bowl in enumerate(self.bowls[p]) if bowl.shoyu_room()]
                opts = [("add_shoyu", b) for b in room] if room else [("cannot_place",)]
                m = yield ("player", p, opts)
                self.shoyu[p] -= 1
                if m[0] == "add_shoyu":
                    self.bowls[p][m[1]].shoyu += 1
                else:
                    self.kept[p] += 1
