"""Rotations of the seats, read on terms: what lets a proof engine answer the query about one
seat's move with the answer it got for another seat's.

Renaming the state's leaves by a permutation, and reading a seat-valued leaf (`cur`, a `Player`
var, a `seq of Player`'s items) through a permutation π of the seats, is a bijection of the
states: a set of formulas is satisfiable exactly when its image is. So a query whose image is
equivalent, formula by formula, to a query answered unsatisfiable is unsatisfiable — whatever
the game. That is the whole soundness argument, and it assumes nothing about the rules: where
the seats do not play alike, no image is among the answers, and the query is asked.

Where every seat plays by the same rules, the query about P2's move (P2's `hand`, "`cur` is 1")
is the image of P1's under the rotation that takes seat 2 to seat 1, up to the order of
commutative arguments: the encoder builds both the same way, and a sum over the players comes
in the other order. Rotations, not every permutation: a turn passes to the next seat, and only
a rotation maps "the seat after P1" to "the seat after P2".

The images are compared by canonical keys (`SeatRotations.key`), not built: a key names a term
up to the order of a commutative operator's arguments, and the key of a term read through a
rotation is the key of its image. A seat-valued leaf `s` is read through π only where it is
compared: `s == k` is `s == π(k)`, `s < c` where every seat is on one side of c stays, and
`s == t` stays; anywhere else its image would be an `If` chain, and the term has no key under
the rotation (it matches nothing: the query is asked).
"""
from __future__ import annotations

import math
import operator

from ..ir.types import ArrayT, PlayerT, SeqT, SetT
from .encode import dom_size
from .unroll import leaves

__all__ = ["SeatRotations", "leaf_paths"]



def leaf_paths(t, n: int) -> list[tuple[tuple, bool]]:
    """Per leaf of a value of type t, in `unroll.leaves`' order (that of `encode.fresh`): (its
    path, whether it holds a seat). A path is ((is it a seat's coordinate, index), ...) through
    arrays, sets and sequences: an `array[Player]`'s element and a `set of Player`'s member bit
    are a seat's coordinates, which a permutation of the seats moves."""
    if isinstance(t, SetT):
        seat = isinstance(t.elem, PlayerT)
        return [(((seat, i),), False) for i in range(dom_size(t.elem, n))]
    if isinstance(t, SeqT):
        out = [(((False, -1),), False)]  # the length
        for i in range(t.cap):
            out += [(((False, i),) + path, s) for path, s in leaf_paths(t.elem, n)]
        return out
    if isinstance(t, ArrayT):
        seat = isinstance(t.index, PlayerT)
        return [(((seat, i),) + path, s) for i in range(dom_size(t.index, n)) for path, s in leaf_paths(t.elem, n)]
    return [((), isinstance(t, PlayerT))]


# operators whose arguments may come in any order (a rotation of the seats reorders a sum over
# the players: P1's `a_0 + a_1` is P2's `a_1 + a_0`)
_COMMUTATIVE = frozenset({"and", "or", "add", "mul", "eq", "distinct", "xor"})
_ORDER = {"le": operator.le, "lt": operator.lt, "ge": operator.ge, "gt": operator.gt}
# operators evaluated where every argument is a constant (`SeatRotations._folded`); not integer
# division and modulo, whose meaning in Z3 (Euclidean, and total at zero) is not Python's
_FOLDS = {**_ORDER, "eq": lambda a, b: a == b, "not": lambda a: not a, "neg": operator.neg,
          "add": lambda *a: sum(a), "sub": lambda a, *b: a - sum(b), "mul": lambda *a: math.prod(a),
          "implies": lambda a, b: (not a) or b, "xor": operator.xor}
# the most `==`-within-`If`-within-`==` levels a key is taken through (each is a few Python
# frames; the front end raises Python's recursion limit far past what the C stack holds)
MAX_NESTING = 200


class _TooDeep(Exception):
    """A term nested past MAX_NESTING levels: it gets no key."""


class SeatRotations:
    """The rotations r = 1..n-1 of a system's seats (seat s read as seat s - r), and a canonical
    key for each term read through one (`key`): two terms with the same key are equal up to the
    order of a commutative operator's arguments, and a term's key under r is that of its image.

    The state's leaves are laid out by `unroll.state_leaves`: the vars and the flow locals (by
    their types), `pc`, `cur` (a seat, or -1/-2 at chance and simultaneous moves), the loop
    snapshots (left as they are)."""

    def __init__(self, system):
        self.n, self.dag = system.n, system.dag
        p, rel = system.p, system.rel
        typed = [(rel.state.vars[x], t) for x, t in p.var_types.items()]
        typed += [(rel.state.locals[x], t) for x, t in p.flow_locals.items()]
        layout: list[tuple[int, tuple, bool]] = []  # per typed leaf: (its block, its path, seat-valued)
        for block, (value, t) in enumerate(typed):
            paths = leaf_paths(t, self.n)
            if len(paths) != len(leaves(value)):  # a shape not `fresh`'s: its leaves stay as they are
                paths = [(((False, i),), False) for i in range(len(leaves(value)))]
            layout += [(block, path, seat) for path, seat in paths]
        ids = system.leaves
        assert len(layout) + 2 <= len(ids), "the state's leaves are not laid out as the system's"
        where = {(block, path): k for k, (block, path, _) in enumerate(layout)}
        self.seat_valued = {ids[k] for k, (_, _, seat) in enumerate(layout) if seat} | {ids[len(layout) + 1]}
        # what a move gives a seat-valued leaf (its successor's term there: "the next seat" as
        # an `If` over numbers), read as a seat wherever it is compared (`_seat_key`); taken
        # from the moves built so far (`_more_seat_terms`: building one here could run past the
        # deadline, and a move not built yet is in no query)
        self._system = system
        self._seat_positions = [k for k, leaf in enumerate(ids) if leaf in self.seat_valued]
        self.seat_terms: set[int] = set()
        self._moves_read = 0
        self._moves: list[dict] = [{}]  # per rotation: leaf id -> the leaf id it is read as
        self._moved = [0]  # per rotation: the support bits of the leaves it moves
        for r in range(1, self.n):
            moves, moved = {}, 0
            for k, (block, path, _) in enumerate(layout):
                j = where[(block, tuple((s, self.seat(i, r) if s else i) for s, i in path))]
                if j != k:
                    moves[ids[k]] = ids[j]
                    moved |= self.dag.support(ids[k])
            self._moves.append(moves)
            self._moved.append(moved)
        self._forms: dict[tuple, int] = {}  # a canonical form -> its key
        self._constant: dict[int, int | bool] = {}  # the key of a number or truth value -> it
        self._seat_below: dict[int, bool] = {}  # node id -> `_holds_seat_term`
        self._nesting = 0  # `_key` calls under way (`MAX_NESTING`)
        # a reading: a rotation, and the seat-valued leaves read as plain numbers (`reading`)
        self._readings: dict[tuple, int] = {}
        self._rotation: list[int] = []
        self._seat_leaves: list[set] = []  # per reading: the leaves read through π
        self._pins: list[dict] = []  # per reading: seat-valued leaf id -> the number it is read as
        self._touched: list[int] = []  # per reading: the bits of the leaves it moves or reads through π
        self._keys: list[dict] = []  # per reading: node id -> key (None: none)
        self._seats: list[dict] = []  # per reading: node id -> `_seat_key`
        self._owners: list[dict] = []  # per reading: a stand-in's key -> its constant
        self.reading(0)

    def reading(self, r: int, plain: frozenset = frozenset(), pins: frozenset = frozenset()) -> int:
        """The reading of terms through rotation r with the seat-valued leaves in `plain` read
        as plain numbers, not through π (each is a bijection of the states, so either is
        sound): a fact that does arithmetic on a seat (`left == 52 - 3 * seat`) has no image through π
        that matches anything, and the same fact, left as it is, is in both seats' queries.
        `pins` ((leaf id, number), ...): seat-valued leaves read as those numbers, for the
        parts of a query that also says "leaf == number" (`pins_of`). Reading 0 is the
        identity. Its index, for `key`."""
        plain = frozenset() if r == 0 else plain
        q = self._readings.get((r, plain, pins))
        if q is None:
            q = self._readings[(r, plain, pins)] = len(self._rotation)
            seats = self.seat_valued - plain
            touched = self._moved[r]
            for x in seats:
                touched |= self.dag.support(x)
            self._rotation.append(r)
            self._seat_leaves.append(seats)
            pinned = dict(pins)
            self._pins.append(pinned)
            self._touched.append((touched if r else 0) | self._bits_of(pinned))
            self._keys.append({})
            self._seats.append({})
            self._owners.append({})
        return q

    def _bits_of(self, leaves) -> int:
        bits = 0
        for x in leaves:
            bits |= self.dag.support(x)
        return bits

    def keyer(self, parts: list, r: int, plain: frozenset = frozenset()):
        """The key of each part of a query (a conjunction) in rotation r's reading: where a part
        pins a seat-valued leaf to a number ("`cur == 1`"), the other parts are read with the
        leaf as that number. The query is equivalent to its pins and its other parts with the
        leaves substituted, so their keys name it as well; P2's `If(cur == 0, a[0], a[1])`
        beside "`cur == 1`" is then read as `a[1]`, whose image is P1's `a[0]`. Returns
        (part -> its key or None, reading q for the query's other terms, e.g. a fixed choice)."""
        pins, pin_parts = self.pins_of(parts)
        q = self.reading(r, plain)
        if not pins:
            return (lambda t: self.key(t, q)), q
        pinned = self.reading(r, plain, pins)
        return (lambda t: self.key(t, q if t.get_id() in pin_parts else pinned)), q

    def pins_of(self, parts: list) -> tuple[frozenset, set]:
        """((seat-valued leaf id, number), ...) that some parts say ("`leaf == number`"), and the
        ids of those parts. A leaf said to be two numbers is left out (the query is
        unsatisfiable as it is, and asked)."""
        dag, found, ids = self.dag, {}, {}
        for t in parts:
            i = t.get_id()
            if i not in dag.op:
                i = dag.add(t)
            if dag.op[i] != "eq" or len(dag.args[i]) != 2:
                continue
            a, b = dag.args[i]
            leaf, number = (a, b) if dag.op[b] == "num" else (b, a)
            if leaf in self.seat_valued and dag.op[number] == "num":
                found.setdefault(leaf, set()).add(dag.value[number])
                ids.setdefault(leaf, set()).add(t.get_id())
        pins = frozenset((x, next(iter(v))) for x, v in found.items() if len(v) == 1)
        return pins, {k for x, _ in pins for k in ids[x]}

    def seat_valued_in(self, term) -> list[int]:
        """The seat-valued leaves `term` reads."""
        bits = self.dag.support(self.dag.add(term))
        return [x for x in self.seat_valued if self.dag.support(x) & bits]

    def seat(self, k: int, r: int) -> int:
        """π_r: seat k read as seat k - r; a value that is no seat (-1: chance) stays."""
        return (k - r) % self.n if 0 <= k < self.n else k

    def key(self, term, q: int = 0) -> int | None:
        """The canonical key of `term` (added to the system's table) in reading q (`reading`):
        None where a seat-valued leaf is read otherwise than compared with a number or another
        seat-valued leaf (its image would be an `If` chain, which matches no other term)."""
        self._more_seat_terms()
        i = term.get_id()
        try:
            return self._key(i if i in self.dag.op else self.dag.add(term), q)
        except _TooDeep:
            return None

    def _more_seat_terms(self) -> None:
        """Add the seat terms of the moves built since the last call. (A node keyed before one
        is added keeps its key: both readings of a compared seat are sound, only the match
        differs.)"""
        built = self._system.built_transitions()
        if len(built) != self._moves_read:
            for tr in built[self._moves_read:]:
                self.seat_terms.update(tr.post[k] for k in self._seat_positions)
            self._moves_read = len(built)

    def key_of_value(self, leaf, value: int, q: int = 0) -> int | None:
        """The key of "leaf == value" (a choice fixed when a query is split), without the term."""
        k = self.key(leaf, q)
        return None if k is None else self._form(("eq", tuple(sorted((k, self._form(("num", value)))))))

    def _form(self, form: tuple) -> int:
        k = self._forms.get(form)
        if k is None:
            k = self._forms[form] = len(self._forms)
            if form[0] == "num":
                self._constant[k] = form[1]
            elif form[0] in ("true", "false"):
                self._constant[k] = form[0] == "true"
        return k

    def _folded(self, o: str, below: list) -> int | None:
        """The key of an operator over keys that is a constant's, or an `If` whose condition is
        one, as the value or branch it stands for (None where it is not so): a claim read at an
        item substitutes the item's number, and P2's `If(1 == 1, x, 0)` must meet P1's
        `If(0 == 0, x, 0)` as `x`. (A closed term equals its value in every state: the key of
        its image is the key of its value.)"""
        const = self._constant
        if o == "ite":
            cond = const.get(below[0])
            return None if cond is None else below[1] if cond else below[2]
        if o in ("and", "or"):
            unit = o == "and"  # the argument that changes nothing
            if any(const.get(k) is (not unit) for k in below):
                return self._form((str(not unit).lower(),))
            rest = [k for k in below if const.get(k) is not unit]
            if len(rest) == len(below):
                return None
            if not rest:
                return self._form((str(unit).lower(),))
            return rest[0] if len(rest) == 1 else self._form((o, tuple(sorted(rest))))
        values = [const.get(k) for k in below]
        fold = _FOLDS.get(o)
        if fold is None or None in values:
            return None
        try:
            value = fold(*values)
        except TypeError:  # (arguments of another sort than the operator's: left as it is)
            return None
        if isinstance(value, bool):
            return self._form((str(value).lower(),))
        return self._form(("num", value))

    def _key(self, root: int, q: int) -> int | None:
        memo = self._keys[q]
        if root in memo:
            return memo[root]
        # `_key` and `_seat_key` call each other where an `==` compares an `If` whose condition
        # holds an `==`...: past MAX_NESTING such levels the term gets no key (it is asked)
        self._nesting += 1
        try:
            if self._nesting > MAX_NESTING:
                raise _TooDeep
            return self._walk(root, q, memo)
        finally:
            self._nesting -= 1

    def _walk(self, root: int, q: int, memo: dict) -> int | None:
        dag = self.dag
        op, args = dag.op, dag.args
        rotated = self._rotation[q]
        moves, seats, touched, pins = self._moves[rotated], self._seat_leaves[q], self._touched[q], self._pins[q]
        stack = [(root, False)]
        while stack:
            x, expanded = stack.pop()
            if x in memo:
                continue
            if q and not dag.support(x) & (touched | dag.stand_in_bits) and not self._holds_seat_term(x):
                memo[x] = self._key(x, 0)  # reads nothing the reading moves: as it is
                continue
            o = op[x]
            if not expanded:
                if o == "leaf" and x in dag.stands_for:
                    memo[x] = self._stand_in(x, q)
                    continue
                if o == "eq" and len(args[x]) == 2:
                    pair = [self._seat_key(c, q) for c in args[x]]
                    if None not in pair and (pair[0][1] or pair[1][1]):
                        memo[x] = self._form(("eq", tuple(sorted(k for k, _ in pair))))
                        continue
                if rotated and o in _ORDER:
                    pattern = self._order_pattern(x, q)
                    if pattern is not None:
                        memo[x] = pattern
                        continue
                stack.append((x, True))
                stack.extend((c, False) for c in args[x] if c not in memo)
                continue
            if o == "num":
                memo[x] = self._form(("num", dag.value[x]))
            elif o in ("true", "false"):
                memo[x] = self._form((o,))
            elif o == "leaf" and not args[x]:
                if x in pins:
                    memo[x] = self._form(("num", pins[x]))
                else:
                    memo[x] = None if rotated and x in seats else self._form(("leaf", moves.get(x, x)))
            elif o == "?" or o == "leaf":
                # an operator the table does not name: only as the very term it is
                memo[x] = None if rotated else self._form(("?", x))
            else:
                below = [memo[c] for c in args[x]]
                if None in below:
                    memo[x] = None
                else:
                    folded = self._folded(o, below)
                    memo[x] = folded if folded is not None else \
                        self._form((o, tuple(sorted(below)) if o in _COMMUTATIVE else tuple(below)))
        return memo[root]

    def _holds_seat_term(self, root: int) -> bool:
        """Whether what a move gives a seat-valued leaf (`seat_terms`) is below node `root`: its
        numbers are seats, which a reading maps, though it reads no leaf the reading moves."""
        memo, terms, args = self._seat_below, self.seat_terms, self.dag.args
        stack = [(root, False)]
        while stack:
            x, expanded = stack.pop()
            if x in memo:
                continue
            if expanded:
                memo[x] = x in terms or any(memo[c] for c in args[x])
            else:
                stack.append((x, True))
                stack.extend((c, False) for c in args[x] if c not in memo)
        return memo[root]

    def _stand_in(self, x: int, q: int) -> int | None:
        """A fresh constant's key: that of the term it stands for (`Dag.stand_in`), in reading
        q — so the constant P2's query puts for P2's term is read as the one P1's puts for
        P1's. Two constants must never share a key (the reading would merge two free values):
        the second one to claim a key in a reading gets none."""
        below = self._key(self.dag.add(self.dag.stands_for[x]), q)
        if below is None:
            return None
        k = self._form(("for", below))
        owner = self._owners[q].setdefault(k, x)
        return k if owner == x else None

    def _seat_key(self, root: int, q: int) -> tuple[int, bool] | None:
        """(the key of π applied to the node's image, whether it is a seat: reads a leaf read
        through π or is what a move gives a seat-valued leaf), for such a leaf, a number, or an
        `If` over them; None for anything else. π of the image of a leaf read through π is the
        leaf it is moved to; of a number, its seat's; of an `If`, the `If` of its branches'. An
        `==` between two such terms is the `==` between their π's (π is one-to-one), which is
        how the value a move gives a seat-valued leaf ("the next seat": 1 after P1, 0 after P2)
        is read. (A walk, not a recursion: a move's "next seat" is an `If` chain as long as
        its flow has ways.)"""
        memo = self._seats[q]
        if root in memo:
            return memo[root]
        dag, r = self.dag, self._rotation[q]
        stack = [(root, False)]
        while stack:
            x, expanded = stack.pop()
            if x in memo:
                continue
            o = dag.op[x]
            if o == "num":
                memo[x] = (self._form(("num", self.seat(dag.value[x], r))), False)
            elif o == "leaf" and x in self._pins[q]:  # a number, read as one (`keyer`)
                memo[x] = (self._form(("num", self.seat(self._pins[q][x], r))), False)
            elif o == "leaf" and x in self._seat_leaves[q]:
                memo[x] = (self._form(("leaf", self._moves[r].get(x, x))), True)
            elif o != "ite":
                memo[x] = None
            elif not expanded:
                stack.append((x, True))
                stack.extend((c, False) for c in dag.args[x][1:] if c not in memo)
            else:
                c, a, b = dag.args[x]
                then, other = memo[a], memo[b]
                cond = self._key(c, q) if then is not None and other is not None else None
                known = self._constant.get(cond)
                if known is not None:  # a closed condition: the branch it picks (`_folded`)
                    memo[x] = then if known else other
                else:
                    memo[x] = None if cond is None else \
                        (self._form(("ite", (cond, then[0], other[0]))), x in self.seat_terms or then[1] or other[1])
        return memo[root]

    def _order_pattern(self, x: int, q: int) -> int | None:
        """The key of `s < c` (and `<=`, `>`, `>=`, either way round) for s a leaf read through
        π and c a number every seat is on one side of: as it is, with s moved. None for any
        other node."""
        dag = self.dag
        o, (a, b) = dag.op[x], dag.args[x]
        seats = self._seat_leaves[q]
        if (a in seats) == (b in seats):
            return None
        s, c, seat_first = (a, b, True) if a in seats else (b, a, False)
        if dag.op[c] != "num" or s in self._pins[q]:
            return None
        value = dag.value[c]
        compare = _ORDER[o]
        if len({compare(k, value) if seat_first else compare(value, k) for k in range(self.n)}) != 1:
            return None
        moves = self._moves[self._rotation[q]]
        leaf, number = self._form(("leaf", moves.get(s, s))), self._form(("num", value))
        return self._form((o, (leaf, number) if seat_first else (number, leaf)))
