"""A hand-written oracle of Wasabi!, written from the rulebook.

Source: the published Spanish rulebook, its rules numbered W-* as in the spec's
citations.  It is deliberately NOT a translation of
spec/wasabi.rules: only the data (the recipe catalogue, passed in; the tile
counts, categories, starting-hand kinds, tokens and points below), the option
names and the move encoding are shared with the engine, plus the engine's
modelling conventions (the order of chance draws, one move per tile given /
recipe taken / card taken, the phase-1 move loop, the board numbering).

It speaks the lockstep protocol of tests/lockstep.py:

    to_move(), chance_values(), apply_chance(value), legal_moves(), apply(move),
    scores(), winners()

Moves (semantic form):
    ("give", kind)                W-S1  a starting tile for the player on the giver's left
    ("take_recipe", length)       W-S2  the first recipe of that pile
    ("place", kind, cell)         W-T1  (a second one after Spicy!; on top after Stack!)
    ("play_stack",)               W-A1
    ("play_spicy",)               W-A2
    ("play_switch", a, b)         W-A3
    ("play_chop", cell, keep)     W-A4
    ("play_wasabi", cell, vert)   W-A5
    ("end_phase",)                W-T1
    ("pass_turn", recipe)         W-T2  then ("discard_more", recipe) / ("stop_discarding",)
    ("take_card", type) ("take_board_wasabi", cell) ("return_card", type) ("no_reward",)   W-T7 (1)
    ("refill", kind)              W-T7 (2)
    ("draw_recipe", length)       W-T7 (3)
"""
from __future__ import annotations

INGREDIENTS = ("salmon", "tuna", "shrimp", "maki", "rice", "avocado", "tempura", "omelette")
CATEGORY = {"salmon": "fish", "tuna": "fish", "shrimp": "seafood", "maki": "roll", "rice": "grain",
            "avocado": "vegetable", "tempura": "egg_fried", "omelette": "egg_fried"}      # W-C2 (assumed)
TILES = {"salmon": 10, "tuna": 10, "shrimp": 9, "maki": 10, "rice": 12, "avocado": 9,
         "tempura": 8, "omelette": 4}                                                   # W-C2 (assumed)
STARTER = ("salmon", "tuna", "shrimp", "avocado", "tempura")                            # W-S1
CARDS = ("stack", "spicy", "switch", "chop", "wasabi_card")                             # W-C5
LENGTHS = (2, 3, 4, 5)
TOKENS = {2: 4, 3: 3, 4: 2, 5: 1}                                                       # W-C4
POINTS = {2: 2, 3: 3, 4: 5, 5: 8}                                                       # W-C4
ROWS, WIDTH = 6, 7                                                                      # W-C1
PILE_SIZE = 13
HAND_TILES, HAND_RECIPES, HAND_CARDS = 3, 3, 2


def kitchen_for(n: int) -> dict:
    """W-C5: which action cards are in play."""
    if n == 4:
        return {c: 2 for c in CARDS}
    if n == 3:
        return {"stack": 1, "spicy": 2, "switch": 1, "chop": 1, "wasabi_card": 2}
    return {c: 1 for c in CARDS}


def score_of(points: int, cubes: int) -> int:
    """W-E3: token points plus one per wasabi cube."""
    return points + cubes


def _truthy(v) -> bool:
    if isinstance(v, str):
        return v.strip().lower() in ("true", "1", "yes")
    return bool(v)


class WasabiOracle:
    """Wasabi!, from the rulebook, driven one decision at a time."""

    def __init__(self, num_players, recipes, *, wasabi_shape="block", matching="segment",
                 style_reversed=False, diagonals=False, pantry_limits=True, actions_complete=True,
                 cubes_len4=2, cubes_len5=3, turn_limit=0):
        self.n = int(num_players)
        self.recipes = [tuple(r) for r in recipes]
        self.shape = wasabi_shape
        self.matching = matching
        self.style_reversed = _truthy(style_reversed)
        self.diagonals = _truthy(diagonals)
        self.pantry_limits = _truthy(pantry_limits)
        self.actions_complete = _truthy(actions_complete)
        self.cube_values = {2: 0, 3: 1, 4: int(cubes_len4), 5: int(cubes_len5)}   # W-C4, W-AM7
        self.turn_limit = int(turn_limit)
        self.cols = self.n + 3                                                    # W-C1
        self.area = {r * WIDTH + c for r in range(ROWS) for c in range(self.cols)}

        self.pantry = dict(TILES)
        self.kitchen = kitchen_for(self.n)
        self.piles = {L: [] for L in LENGTHS}
        self.board = {c: [] for c in range(ROWS * WIDTH)}   # stacks, bottom first
        self.wasabis = {}                                    # anchor cell -> frozenset of covered cells
        self.hand = [dict.fromkeys(INGREDIENTS, 0) for _ in range(self.n)]
        self.hand_recipes = [set() for _ in range(self.n)]
        self.cards = [dict.fromkeys(CARDS, 0) for _ in range(self.n)]
        self.tokens = [dict(TOKENS) for _ in range(self.n)]
        self.points = [0] * self.n
        self.cubes = [0] * self.n
        self.turns = 0
        self.over = False
        self.instant_winner = None

        # stage: "piles" -> "give" -> "take" -> "phase1" -> "discard" -> "reward" -> "refill" -> "draw"
        self.stage = "piles"
        self.giver, self.gifts = 0, 0
        self.taker, self.taken = 0, 0
        self.current = 0
        self._new_turn()

    # ------------------------------------------------------------ helpers
    def _new_turn(self):
        self.placed = 0
        self.allowed = 1
        self.card_played = None          # the type of the action card played this turn
        self.stacking = False
        self.kept = None                 # a chopped tile kept as this turn's ingredient
        self.changed = set()
        self.done_now = 0
        self.rewards = 0

    def covered(self):
        out = set()
        for cells in self.wasabis.values():
            out |= cells
        return out

    def top(self, c):
        return self.board[c][-1] if self.board[c] else None

    def _pile_for_setup(self):
        for L in LENGTHS:
            if len(self.piles[L]) < PILE_SIZE:
                return L
        return None

    def _wasabi_cells(self, c, vertical):
        r, col = divmod(c, WIDTH)
        if c not in self.area:
            return None
        if self.shape == "block":
            if vertical or col + 1 >= self.cols or r + 1 >= ROWS:
                return None
            return frozenset({c, c + 1, c + WIDTH, c + WIDTH + 1})
        if vertical:
            if r + 3 >= ROWS:
                return None
            return frozenset(c + WIDTH * i for i in range(4))
        if col + 3 >= self.cols:
            return None
        return frozenset(c + i for i in range(4))

    def _empty_cells(self):
        cov = self.covered()
        return [c for c in sorted(self.area) if c not in cov and not self.board[c]]

    def _can_place_something(self):
        has_tile = self.kept is not None or sum(self.hand[self.current].values()) > 0
        return has_tile and bool(self._empty_cells())

    def _runs(self, length):
        """Every straight run of `length` usable squares, as cell lists in reading order."""
        cov = self.covered()
        dirs = [(0, 1), (1, 0)] + ([(1, 1), (1, -1)] if self.diagonals else [])

        def usable(r, c):
            return 0 <= r < ROWS and 0 <= c < self.cols and (r * WIDTH + c) not in cov \
                and bool(self.board[r * WIDTH + c])

        for dr, dc in dirs:
            for r in range(ROWS):
                for c in range(self.cols):
                    cells = [(r + dr * i, c + dc * i) for i in range(length)]
                    if not all(usable(*rc) for rc in cells):
                        continue
                    if self.matching == "maximal":
                        if usable(r - dr, c - dc) or usable(r + dr * length, c + dc * length):
                            continue
                    yield [rr * WIDTH + cc for rr, cc in cells]

    def _check_completions(self):
        """W-T3..W-T6: complete every recipe in hand that a run through a changed square shows."""
        p = self.current
        for idx in sorted(self.hand_recipes[p]):
            recipe = self.recipes[idx]
            L = len(recipe)
            if self.tokens[p][L] == 0:                     # W-T4
                continue
            found, style = False, False
            for run in self._runs(L):
                if not (set(run) & self.changed):
                    continue
                tops = [self.top(c) for c in run]
                if sorted(tops) != sorted(recipe):
                    continue
                found = True
                if tuple(tops) == recipe or (self.style_reversed and tuple(reversed(tops)) == recipe):
                    style = True
            if not found:
                continue
            self.hand_recipes[p].discard(idx)
            self.tokens[p][L] -= 1
            self.points[p] += POINTS[L]
            if style:                                      # W-T5
                self.cubes[p] += self.cube_values[L]
            self.done_now += 1
            if sum(self.tokens[p].values()) == 0:          # W-E1
                self.instant_winner = p
                self.over = True
                return

    def _available_types(self):
        avail = {t for t in CARDS if self.kitchen[t] > 0}
        if self.wasabis:
            avail.add("wasabi_card")
        return avail

    def _allowed_types(self):
        avail = self._available_types()
        others = avail - {self.card_played}
        return others if others else avail

    # ------------------------------------------------------------ protocol
    def to_move(self):
        if self.over:
            return ("terminal", None)
        if self.stage == "piles":
            return ("chance", None)
        if self.stage == "give":
            return ("player", self.giver)
        if self.stage == "take":
            return ("player", self.taker)
        return ("player", self.current)

    def chance_values(self):
        L = self._pile_for_setup()
        return sorted(i for i, r in enumerate(self.recipes) if len(r) == L and i not in self.piles[L])

    def apply_chance(self, value):
        L = self._pile_for_setup()
        assert value in self.chance_values()
        self.piles[L].append(value)
        if self._pile_for_setup() is None:
            self.stage = "give"

    def _has(self, kind):
        return self.pantry[kind] > 0 or not self.pantry_limits

    def _take_from_pantry(self, kind):
        self.pantry[kind] -= 1

    def legal_moves(self, player=None):
        if self.over:
            return set()
        st = self.stage
        if st == "give":
            receiver = (self.giver + 1) % self.n
            held = {CATEGORY[k] for k, v in self.hand[receiver].items() if v}
            return {("give", k) for k in STARTER if self._has(k) and CATEGORY[k] not in held}
        if st == "take":
            return {("take_recipe", L) for L in LENGTHS if self.piles[L]}
        p = self.current
        if st == "phase1":
            return self._phase1_moves()
        if st == "discard":
            return {("discard_more", r) for r in self.hand_recipes[p]} | {("stop_discarding",)}
        if st == "reward":
            moves = set()
            hand_size = sum(self.cards[p].values())
            allowed = self._allowed_types()
            if hand_size < HAND_CARDS:
                moves |= {("take_card", t) for t in allowed if self.kitchen[t] > 0}
                if "wasabi_card" in allowed:
                    moves |= {("take_board_wasabi", a) for a in self.wasabis}
            if hand_size == HAND_CARDS:
                moves |= {("return_card", t) for t in CARDS if self.cards[p][t]}
            if not self._available_types():
                moves.add(("no_reward",))
            return moves
        if st == "refill":
            return {("refill", k) for k in INGREDIENTS if self._has(k)}
        if st == "draw":
            return {("draw_recipe", L) for L in LENGTHS if self.piles[L]}
        raise AssertionError(st)

    def _phase1_moves(self):
        p = self.current
        cov = self.covered()
        free = [c for c in sorted(self.area) if c not in cov]
        moves = set()
        # W-T1 / W-A1 / W-A2 / W-A4: placing
        if self.placed < self.allowed:
            kinds = [self.kept] if self.kept is not None else [k for k, v in self.hand[p].items() if v]
            cells = free if self.stacking else [c for c in free if not self.board[c]]
            moves |= {("place", k, c) for k in kinds for c in cells}
        if self.card_played is None:
            mine = self.cards[p]
            if mine["stack"] and self.placed == 0:                    # W-A1: before placing
                moves.add(("play_stack",))
            if mine["spicy"]:                                          # W-A2
                moves.add(("play_spicy",))
            if mine["switch"]:                                         # W-A3: orthogonal neighbours
                for a in free:
                    for b in (a + 1, a + WIDTH):
                        if b in free and (b == a + WIDTH or b % WIDTH == a % WIDTH + 1):
                            moves.add(("play_switch", a, b))
            if mine["chop"]:                                           # W-A4
                for c in free:
                    if self.board[c]:
                        moves.add(("play_chop", c, 0))
                        if self.placed == 0:
                            moves.add(("play_chop", c, 1))
            if mine["wasabi_card"]:                                    # W-A5: never overlapping
                for c in sorted(self.area):
                    for v in (0, 1):
                        cells = self._wasabi_cells(c, v)
                        if cells and not (cells & cov):
                            moves.add(("play_wasabi", c, v))
        if (self.placed >= 1 or not self._can_place_something()) and self.kept is None:
            moves.add(("end_phase",))
        if self.placed == 0 and self.card_played is None:              # W-T2
            moves |= {("pass_turn", r) for r in self.hand_recipes[p]}
        return moves

    def apply(self, move):
        assert move in self.legal_moves(), (move, sorted(self.legal_moves()))
        name, *args = move
        st = self.stage
        if st == "give":
            receiver = (self.giver + 1) % self.n
            self._take_from_pantry(args[0])
            self.hand[receiver][args[0]] += 1
            self.gifts += 1
            if self.gifts == 3:
                self.gifts = 0
                self.giver += 1
                if self.giver == self.n:
                    self.stage = "take"
            return
        if st == "take":
            self.hand_recipes[self.taker].add(self.piles[args[0]].pop(0))
            self.taken += 1
            if self.taken == 3:
                self.taken = 0
                self.taker += 1
                if self.taker == self.n:
                    self.stage = "phase1"
            return
        p = self.current
        if st == "phase1":
            self._apply_phase1(name, args)
            return
        if st == "discard":
            if name == "discard_more":
                self._discard(args[0])
                if not self.hand_recipes[p]:
                    self._start_phase2()
            else:
                self._start_phase2()
            return
        if st == "reward":
            if name == "take_card":
                self.kitchen[args[0]] -= 1
                self.cards[p][args[0]] += 1
                self.rewards -= 1
            elif name == "take_board_wasabi":
                del self.wasabis[args[0]]
                self.cards[p]["wasabi_card"] += 1
                self.rewards -= 1
            elif name == "return_card":
                self.cards[p][args[0]] -= 1
                self.kitchen[args[0]] += 1
            else:  # no_reward
                self.rewards = 0
            if self.rewards == 0:
                self._to_refill()
            return
        if st == "refill":
            self._take_from_pantry(args[0])
            self.hand[p][args[0]] += 1
            self._to_refill()
            return
        if st == "draw":
            self.hand_recipes[p].add(self.piles[args[0]].pop(0))
            self._to_draw()
            return
        raise AssertionError(st)

    def _discard(self, r):
        p = self.current
        self.hand_recipes[p].remove(r)
        self.piles[len(self.recipes[r])].append(r)      # W-T2: to the bottom of its pile

    def _apply_phase1(self, name, args):
        p = self.current
        if name == "place":
            kind, c = args
            if self.kept is not None:
                self.kept = None
            else:
                self.hand[p][kind] -= 1
            self.board[c].append(kind)
            self.placed += 1
            self.changed.add(c)
        elif name == "play_stack":
            self._play("stack")
            self.stacking = True
        elif name == "play_spicy":
            self._play("spicy")
            self.allowed = 2
        elif name == "play_switch":
            a, b = args
            self._play("switch")
            self.board[a], self.board[b] = self.board[b], self.board[a]
            if self.actions_complete:
                self.changed |= {a, b}
        elif name == "play_chop":
            c, keep = args
            self._play("chop")
            tile = self.board[c].pop()
            if keep:
                self.kept = tile
            else:
                self.pantry[tile] += 1
            if self.actions_complete:
                self.changed.add(c)
        elif name == "play_wasabi":
            c, vertical = args
            self.card_played = "wasabi_card"
            self.cards[p]["wasabi_card"] -= 1            # stays on the board, not in the kitchen
            self.wasabis[c] = self._wasabi_cells(c, vertical)
            self.cubes[p] += 1
        elif name == "end_phase":
            self._check_completions()
            if not self.over:
                self._start_phase2()
            return
        elif name == "pass_turn":
            self._discard(args[0])
            if self.hand_recipes[p]:
                self.stage = "discard"
            else:
                self._start_phase2()
            return
        self._check_completions()

    def _play(self, card):
        self.card_played = card
        self.cards[self.current][card] -= 1
        self.kitchen[card] += 1

    def _start_phase2(self):
        self.rewards = self.done_now
        if self.rewards > 0:
            self.stage = "reward"
        else:
            self._to_refill()

    def _to_refill(self):
        p = self.current
        if sum(self.hand[p].values()) < HAND_TILES and any(self._has(k) for k in INGREDIENTS):
            self.stage = "refill"
        else:
            self._to_draw()

    def _to_draw(self):
        p = self.current
        if len(self.hand_recipes[p]) < HAND_RECIPES and any(self.piles.values()):
            self.stage = "draw"
        else:
            self._end_turn()

    def _end_turn(self):
        cov = self.covered()
        if all(self.board[c] or c in cov for c in self.area):     # W-E2
            self.over = True
            return
        self.turns += 1
        if self.turn_limit and self.turns >= self.turn_limit:
            self.over = True
            return
        self.current = (self.current + 1) % self.n
        self.stage = "phase1"
        self._new_turn()

    # ------------------------------------------------------------ results
    def scores(self):
        return [score_of(self.points[p], self.cubes[p]) for p in range(self.n)]

    def winners(self):
        if self.instant_winner is not None:
            return [self.instant_winner]
        sc = self.scores()
        best = max(sc)
        tied = [p for p in range(self.n) if sc[p] == best]
        most = max(self.cubes[p] for p in tied)
        return sorted(p for p in tied if self.cubes[p] == most)
