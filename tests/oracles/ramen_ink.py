"""A hand-written oracle of Ramen Ink, written from the rulebook.

Source: the published English rulebook, its rules numbered I-* as in the spec's
citations.  It is deliberately NOT a translation of
spec/ramen_ink.rules; only the catalogue data (order and topping cards), the
option names and the move encoding are shared with the engine, plus the
engine's modelling conventions (seat numbering, the order of chance draws,
one move per drawn card, one decision per bonus).

It speaks the lockstep protocol of tests/lockstep.py:

    to_move(), chance_values(), apply_chance(value), legal_moves(), apply(move),
    scores(), winners()

Moves:
    ("take", card)              I-R2   take one of the revealed topping cards
    ("draw", x, y, z)           I-D*   targets of the card's 1st/2nd/3rd topping; 0 = bin
    ("extra", kind, bowl)       I-F2   cross off an extra-topping field and draw it
    ("points", field)           I-F1   cross off a +3 points field
    ("decline",)                I-A2   take no bonus
"""
from __future__ import annotations

TOPPINGS = ("egg", "seaweed", "fishcake", "pork")       # I-C1
BOWLS = range(1, 9)                                       # 8 bowls
BOWL_SIZE = 6                                             # I-D4
BIN_SIZE = 8                                              # I-D6
ROUNDS = 6                                                # I-R1
EXTRA_FIELDS = {k: "extra_" + k for k in TOPPINGS}        # I-F1
POINTS_FIELDS = ("points_a", "points_b")                  # I-F1
POINTS_PER_FIELD = 3
# I-V1: which bowls are served after which round
SERVED_AFTER = {3: [1], 4: [2], 5: [3], 6: [4, 5, 6, 7, 8]}


def bin_penalty(n: int) -> int:
    """I-D7: penalty points for n toppings in the bin (0-2 free, 3-4 -1, 5 -2, 6 -3, 7 -4, 8 -5)."""
    if n <= 2:
        return 0
    if n <= 4:
        return 1
    return n - 3


def order_points(kind: str, wants, counts: dict, stylist_counting: str = "per_kind") -> int:
    """Points a bowl holding `counts` (topping name -> number) earns for an order (I-O1..I-O4)."""
    def count(k):
        return counts.get(k, 0)

    if kind == "single":            # I-O1: 2, 4, 6, ... for 2, 3, 4, ... of the wanted kind
        c = count(wants[0])
        return 2 * (c - 1) if c >= 2 else 0
    if kind == "combination":       # I-O2: 2 of each of the two kinds
        return 7 if all(count(k) >= 2 for k in wants) else 0
    if kind == "dislike":           # I-O3: disjoint sets of the three kinds, max 8
        sets = min(count(k) for k in wants)
        return min(8, 4 * sets)
    if kind in ("stylist2", "stylist3"):   # I-O4: disjoint pairs / triples of one kind
        size, value = (2, 3) if kind == "stylist2" else (3, 5)
        total = 0
        for k in TOPPINGS:
            groups = count(k) // size
            if stylist_counting == "one_per_kind":
                groups = min(groups, 1)
            total += groups
        return value * total
    raise ValueError(f"unknown order kind {kind!r}")


def _truthy(v) -> bool:
    if isinstance(v, str):
        return v.strip().lower() in ("true", "1", "yes")
    return bool(v)


class RamenInkOracle:
    """Ramen Ink, from the rulebook, driven one decision at a time."""

    def __init__(self, num_players, orders_catalogue, cards_catalogue, *,
                 impossible_drawing="lose_topping", bonus_optional=True,
                 drawing_order="from_active", stylist_counting="per_kind"):
        assert 2 <= num_players <= 5
        self.n = num_players
        self.orders_catalogue = [(kind, list(wants)) for kind, wants in orders_catalogue]
        self.cards_catalogue = [list(ts) for ts in cards_catalogue]
        self.impossible_drawing = impossible_drawing
        self.bonus_optional = _truthy(bonus_optional)
        self.drawing_order = drawing_order
        self.stylist_counting = stylist_counting

        self.orders = {}                                  # bowl -> order catalogue index
        self.order_pool = set(range(len(self.orders_catalogue)))
        self.deck = set(range(len(self.cards_catalogue)))
        self.served = []                                  # served bowls, in serving order
        # per player: bowl -> {topping: count}
        self.bowls = [{b: {k: 0 for k in TOPPINGS} for b in BOWLS} for _ in range(self.n)]
        self.binned = [0] * self.n
        self.lost = [0] * self.n                          # toppings that fit nowhere (I-A1)
        self.crossed = [set() for _ in range(self.n)]     # bonus fields crossed off
        self.bowl_points = [{} for _ in range(self.n)]    # served bowl -> points

        self._flow = self._game()
        # the pending decision: ("chance", values) | ("player", p, legal) | ("terminal",),
        # where legal() computes the player's moves from the current state
        self._decision = next(self._flow)

    # ------------------------------------------------------------ protocol
    def to_move(self):
        kind = self._decision[0]
        if kind == "player":
            return ("player", self._decision[1])
        return (kind, None)

    def chance_values(self):
        assert self._decision[0] == "chance"
        return sorted(self._decision[1])

    def apply_chance(self, value):
        assert self._decision[0] == "chance" and value in self._decision[1], value
        self._decision = self._flow.send(value)

    def legal_moves(self):
        assert self._decision[0] == "player"
        return set(self._decision[2]())

    def apply(self, move):
        assert self._decision[0] == "player" and tuple(move) in self.legal_moves(), move
        self._decision = self._flow.send(tuple(move))

    def scores(self):
        """I-E1, at any moment: served bowls + 3 per points field - bin penalty."""
        return [sum(self.bowl_points[p].values())
                + POINTS_PER_FIELD * len(self.crossed[p] & set(POINTS_FIELDS))
                - bin_penalty(self.binned[p])
                for p in range(self.n)]

    def winners(self):
        """I-E1: most points; a tie goes to the fewest toppings in the bin; still tied: all."""
        sc = self.scores()
        best = max(sc)
        tied = [p for p in range(self.n) if sc[p] == best]
        fewest = min(self.binned[p] for p in tied)
        return sorted(p for p in tied if self.binned[p] == fewest)

    # ------------------------------------------------------------ the game
    def _game(self):
        # I-S1: one order card per bowl
        for b in BOWLS:
            o = yield ("chance", sorted(self.order_pool))
            self.order_pool.remove(o)
            self.orders[b] = o
        for rnd in range(1, ROUNDS + 1):
            active = (rnd - 1) % self.n                    # I-R4
            revealed = []
            for _ in range(self.n + 1):                    # I-R1
                c = yield ("chance", sorted(self.deck))
                self.deck.remove(c)                        # used cards leave the game (I-R4)
                revealed.append(c)
            taken = {}
            for i in range(self.n):                        # I-R2
                p = (active + i) % self.n
                move = yield ("player", p, lambda: {("take", c) for c in revealed})
                taken[p] = move[1]
                revealed.remove(move[1])
            (leftover,) = revealed                         # I-R3
            first = active if self.drawing_order == "from_active" else 0
            for i in range(self.n):                        # I-A3
                p = (first + i) % self.n
                for card in (taken[p], leftover):
                    yield from self._draw_card(p, card)
            for b in SERVED_AFTER.get(rnd, []):            # I-V1
                self._serve(b)
        while True:
            yield ("terminal",)

    def _unserved(self):
        return [b for b in BOWLS if b not in self.served]

    def _room(self, p, b):
        return b not in self.served and sum(self.bowls[p][b].values()) < BOWL_SIZE

    def _windows(self):
        """I-D2/I-D3: sets of 3 circularly adjacent unserved bowls (served ones skipped)."""
        ring = self._unserved()
        if len(ring) <= 3:
            return [set(ring)]
        return [{ring[i], ring[(i + 1) % len(ring)], ring[(i + 2) % len(ring)]}
                for i in range(len(ring))]

    def _placements(self, p, card):
        """All (x, y, z) placing the card's toppings legally, ignoring the bin's capacity."""
        k = len(self.cards_catalogue[card])
        windows = self._windows()
        targets = [0] + [b for b in BOWLS if self._room(p, b)]  # the bin, or a bowl with room (I-D4)
        result = []
        for x in targets:
            for y in targets:
                for z in (targets if k == 3 else [0]):
                    placed = [t for t in (x, y, z)[:k] if t != 0]
                    if len(set(placed)) != len(placed):                  # I-D1/I-D2: different bowls
                        continue
                    if k == 3 and not any(set(placed) <= w for w in windows):   # I-D2, I-D5
                        continue
                    result.append(((x, y, z), k - len(placed)))
        return result

    def _legal_drawings(self, p, card):
        placements = self._placements(p, card)
        fewest = min(u for _, u in placements)             # (0,0,0) is always a placement
        legal = set()
        for (x, y, z), u in placements:
            if self.binned[p] + u <= BIN_SIZE:             # I-D6
                legal.add(("draw", x, y, z))
            elif self.impossible_drawing == "lose_topping" and u == fewest:   # I-A1
                legal.add(("draw", x, y, z))
        return legal

    def _draw_card(self, p, card):
        toppings = self.cards_catalogue[card]
        move = yield ("player", p, lambda: self._legal_drawings(p, card))
        targets = move[1:1 + len(toppings)]
        filled = 0
        undrawn = 0
        for topping, b in zip(toppings, targets):
            if b == 0:
                undrawn += 1
                continue
            self.bowls[p][b][topping] += 1
            if sum(self.bowls[p][b].values()) == BOWL_SIZE:
                filled += 1
        room = BIN_SIZE - self.binned[p]
        self.binned[p] += min(undrawn, room)               # I-D5
        self.lost[p] += max(0, undrawn - room)             # I-A1: lost, no penalty
        yield from self._bonuses(p, filled)

    def _bonus_moves(self, p):
        moves = set()
        open_bowls = [b for b in BOWLS if self._room(p, b)]
        for k in TOPPINGS:
            if EXTRA_FIELDS[k] not in self.crossed[p]:
                moves |= {("extra", k, b) for b in open_bowls}
        for f in POINTS_FIELDS:
            if f not in self.crossed[p]:
                moves.add(("points", f))
        return moves

    def _bonus_decisions(self, p):
        moves = self._bonus_moves(p)
        if self.bonus_optional or not moves:               # I-A2: "may"
            moves.add(("decline",))
        return moves

    def _bonuses(self, p, pending):
        """I-F1, I-F2: one bonus decision per bowl filled; extra toppings may chain."""
        while pending > 0:
            move = yield ("player", p, lambda: self._bonus_decisions(p))
            pending -= 1
            if move[0] == "extra":
                _, k, b = move
                self.crossed[p].add(EXTRA_FIELDS[k])
                self.bowls[p][b][k] += 1
                if sum(self.bowls[p][b].values()) == BOWL_SIZE:
                    pending += 1
            elif move[0] == "points":
                self.crossed[p].add(move[1])

    def _serve(self, b):
        for p in range(self.n):
            kind, wants = self.orders_catalogue[self.orders[b]]
            self.bowl_points[p][b] = order_points(kind, wants, self.bowls[p][b], self.stylist_counting)
        self.served.append(b)
