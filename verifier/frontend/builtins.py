"""Built-in functions of the language: one table, read by every back end.

Each entry gives the arity, a typing rule, and the Python the engine emits.
Python templates use `{0}`, `{1}` for the compiled arguments and may call
helpers of `verifier.engine.lib` (imported as `L` in generated code).
All of these are general constructs (players in seat order, grids, rings,
sequences, sets); none knows any game.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..ir.types import GridT, IntT, PlayerT, SeqT, SetT, Type, element_type, int_bounds, is_int_like


class BuiltinError(Exception):
    pass


@dataclass(frozen=True)
class Builtin:
    arity: int
    typer: Callable[[list[Type], int], Type]
    doc: str


def _need(cond: bool, msg: str) -> None:
    if not cond:
        raise BuiltinError(msg)


def _player(ts, n):
    _need(is_int_like(ts[0]), f"expected a player, got {ts[0]}")
    return PlayerT()


def _seats(ts, n):
    _need(is_int_like(ts[0]), f"expected a player, got {ts[0]}")
    return SeqT(PlayerT(), n)


def _grid(ts):
    _need(isinstance(ts[0], GridT), f"expected a grid cell, got {ts[0]}")
    return ts[0]


def _row(ts, n):
    g = _grid(ts)
    return IntT(0, g.rows - 1)


def _col(ts, n):
    g = _grid(ts)
    return IntT(0, g.cols - 1)


def _neighbours(ts, n):
    return SetT(_grid(ts))


def _runs(ts, n):
    if isinstance(ts[0], SeqT) and isinstance(ts[0].elem, GridT):  # `runs(Cell, 4)`: every run is asked for
        raise BuiltinError(f"expected one cell (the runs through it), got {ts[0]}: to go through every run, "
                           f"go through the cells, e.g. any(c in {ts[0].elem}: any(r in runs(c, 4): ...))")
    g = _grid(ts)
    _need(is_int_like(ts[1]), f"the run length is a number, got {ts[1]}")
    longest = max(g.rows, g.cols)
    return SeqT(SeqT(g, longest), 2 * longest)


def _size(ts, n):
    t = ts[0]
    if isinstance(t, SeqT):
        return IntT(0, t.cap)
    _need(isinstance(t, SetT), f"size needs a set or a sequence, got {t}")
    return IntT(0, t.elem.size(n))


def _abs(ts, n):
    _need(is_int_like(ts[0]), f"expected a number, got {ts[0]}")
    lo, hi = int_bounds(ts[0], n)
    return IntT(0 if lo <= 0 <= hi else min(abs(lo), abs(hi)), max(abs(lo), abs(hi)))


def _two_ints(ts, n, pick):
    _need(all(is_int_like(t) for t in ts), f"expected numbers, got {ts[0]} and {ts[1]}")
    (alo, ahi), (blo, bhi) = int_bounds(ts[0], n), int_bounds(ts[1], n)
    return IntT(pick(alo, blo), pick(ahi, bhi))


def _first(ts, n):
    _need(isinstance(ts[0], SeqT), f"expected a sequence, got {ts[0]}")
    return ts[0].elem


def _position(ts, n):
    _need(isinstance(ts[0], SeqT), f"expected a sequence, got {ts[0]}")
    return IntT(0, ts[0].cap - 1)


def _prefix(ts, n):
    _need(isinstance(ts[0], SeqT), f"expected a sequence, got {ts[0]}")
    _need(is_int_like(ts[1]), f"expected a number of items, got {ts[1]}")
    return ts[0]


def _ring(ts, n):
    # The ring is the open set's domain, not x's: x may be typed wider (a flow variable reused
    # over another range), and the set's bits count from its own domain's first value.
    t, s = ts
    _need(isinstance(s, SetT), f"the second argument is the set of open positions, got {s}")
    _need(s.elem.is_domain, f"the open positions are values of a finite domain, got {s}")
    _need(t == s.elem or (is_int_like(t) and is_int_like(s.elem)),
          f"the first argument is a position of the ring ({s.elem}), got {t}")
    return s.elem


def _setop(ts, n):
    a, b = ts
    _need(isinstance(a, SetT) and isinstance(b, SetT), f"expected two sets, got {a} and {b}")
    return a


BUILTINS: dict[str, Builtin] = {
    "next_player": Builtin(1, _player, "the player to the left (seat + 1, wrapping)"),
    "prev_player": Builtin(1, _player, "the player to the right (seat - 1, wrapping)"),
    "seats_from": Builtin(1, _seats, "all players in seat order, starting with the given one"),
    "row": Builtin(1, _row, "the row of a grid cell, from 0"),
    "col": Builtin(1, _col, "the column of a grid cell, from 0"),
    "neighbours": Builtin(1, _neighbours, "the orthogonally adjacent cells of a grid cell"),
    "runs": Builtin(2, _runs, "every horizontal and vertical run of n cells that contains a cell, each "
                              "in reading order (left to right, top to bottom)"),
    "diagonal_runs": Builtin(2, _runs, "every diagonal run of n cells that contains a cell (down-right, "
                                       "then down-left), each from its top end"),
    "size": Builtin(1, _size, "the number of items in a set or a sequence"),
    "abs": Builtin(1, _abs, "absolute value"),
    "least": Builtin(2, lambda ts, n: _two_ints(ts, n, min), "the smaller of two numbers"),
    "greatest": Builtin(2, lambda ts, n: _two_ints(ts, n, max), "the larger of two numbers"),
    "first": Builtin(1, _first, "the first item of a non-empty sequence"),
    "last": Builtin(1, _first, "the last item of a non-empty sequence"),
    "position": Builtin(2, _position, "where an item stands in a sequence, from 0"),
    "prefix": Builtin(2, _prefix, "the first n items of a sequence (all of it if shorter)"),
    "ring_next": Builtin(2, _ring, "the next open position after x, going round the domain"),
    "ring_prev": Builtin(2, _ring, "the previous open position before x, going round the domain"),
    "union": Builtin(2, _setop, "items in either set"),
    "inter": Builtin(2, _setop, "items in both sets"),
    "without": Builtin(2, _setop, "items of the first set not in the second"),
}

# Python emitted for each builtin; `L` is verifier.engine.lib, `s` the state.
PY_BUILTINS: dict[str, str] = {
    "next_player": "(({0}) + 1) % s.n",
    "prev_player": "(({0}) - 1) % s.n",
    "seats_from": "L.seats_from({0}, s.n)",
    "row": "(({0}) // {cols})",
    "col": "(({0}) % {cols})",
    "neighbours": "L.neighbours({0}, {rows}, {cols})",
    "runs": "L.runs({0}, {1}, {rows}, {cols})",
    "diagonal_runs": "L.diagonal_runs({0}, {1}, {rows}, {cols})",
    "size": "L.size({0})",
    "abs": "abs({0})",
    "least": "min({0}, {1})",
    "greatest": "max({0}, {1})",
    "first": "L.first({0})",
    "last": "L.last({0})",
    "position": "L.position({0}, {1})",
    "prefix": "list(({0})[:max(0, {1})])",
    "ring_next": "L.ring_next({0}, {1}, {lo}, {size}, 1)",
    "ring_prev": "L.ring_next({0}, {1}, {lo}, {size}, -1)",
    "union": "(({0}) | ({1}))",
    "inter": "(({0}) & ({1}))",
    "without": "(({0}) & ~({1}))",
}

assert set(PY_BUILTINS) == set(BUILTINS), "every builtin needs Python code"
_ = element_type  # re-exported for back ends that type builtin results
