"""Observation and information-state tensors of a loaded game: what each player sees, as numbers.

The tensor shows exactly what the observation string shows (`observe` in the generated engine):
every `public` state variable, and of each `private` variable (an `array[Player] of T`) the
observing player's own element.  `hidden` variables, flow variables and options are not in it.
Each variable is one named piece, laid out from its type alone:

| type                         | floats                                                      |
|------------------------------|-------------------------------------------------------------|
| `bool`                       | 1: 1.0 when true                                            |
| integer range of <= 16 values| one-hot over the range                                      |
| larger integer range         | 1: the number itself                                        |
| enum, grid cell, catalogue   | one-hot over the domain                                     |
| `Player`                     | one-hot over the loaded player count                        |
| `set of D`                   | one per value of D: 1.0 when in the set                     |
| `seq of T max K`             | K slots of (1 presence flag + T's floats), first item first |
| `array[D] of T`              | T's floats for each value of D, in D's order                |

The information-state tensor adds the piece `my_moves`: the player's own past moves (those the
information-state string lists), one slot per move up to the most moves a player can make
(`own_moves`), each slot one-hot over the action ids when there are at most 64 of them, and
otherwise a presence flag and the id's binary digits (least significant first).
"""
from __future__ import annotations

import numpy as np

from .engine.runtime import SIMULTANEOUS
from .ir.types import ArrayT, BoolT, EnumT, IntT, PlayerT, SeqT, SetT, Type

ONE_HOT_INT_MAX = 16      # an integer range with more values is one number, not a one-hot
ONE_HOT_ACTION_MAX = 64   # more action ids than this are written in binary in `my_moves`


class _Layout:
    """How one type's value becomes floats: `size`, and `fill(value, at, ones, numbers)`, which
    appends the indices set to 1.0 to `ones` and (index, number) pairs to `numbers`."""

    def __init__(self, t: Type, n: int):
        kind = type(t).__name__
        build = getattr(self, f"layout_{kind}", None)
        if build is None:
            raise ValueError(f"a state variable of type {t} cannot be written as a tensor")
        self.scalar = False  # the value is written as the number itself (one float)
        self.size, self.fill = build(t, n)

    def layout_BoolT(self, t: BoolT, n: int):
        def fill(v, at, ones, numbers):
            if v:
                ones.append(at)
        return 1, fill

    def layout_IntT(self, t: IntT, n: int):
        lo, size = t.lo, t.hi - t.lo + 1
        if size > ONE_HOT_INT_MAX:
            self.scalar = True

            def number(v, at, ones, numbers):
                numbers.append((at, v))
            return 1, number
        return size, self._one_hot(lo, size)

    def layout_PlayerT(self, t: PlayerT, n: int):
        return n, self._one_hot(0, n)

    def layout_EnumT(self, t: EnumT, n: int):
        return t.size(n), self._one_hot(0, t.size(n))

    layout_GridT = layout_EnumT
    layout_CatalogueT = layout_EnumT

    @staticmethod
    def _one_hot(lo: int, size: int):
        def fill(v, at, ones, numbers):
            if 0 <= v - lo < size:
                ones.append(at + v - lo)
        return fill

    def layout_SetT(self, t: SetT, n: int):
        size = _domain_size(t.elem, n)

        def fill(mask, at, ones, numbers):
            i = 0
            while mask:
                if mask & 1:
                    ones.append(at + i)
                mask >>= 1
                i += 1
        return size, fill

    def layout_SeqT(self, t: SeqT, n: int):
        item = _Layout(t.elem, n)
        width = 1 + item.size

        def fill(items, at, ones, numbers):
            for k, v in enumerate(items[:t.cap]):
                ones.append(at + k * width)
                item.fill(v, at + k * width + 1, ones, numbers)
        return t.cap * width, fill

    def layout_ArrayT(self, t: ArrayT, n: int):
        item = _Layout(t.elem, n)
        count = _domain_size(t.index, n)
        if item.scalar:  # a row of numbers: written in one go (scores, counters per player)
            def numbers_row(items, at, ones, numbers):
                numbers.extend(zip(range(at, at + len(items)), items))
            return count, numbers_row

        def fill(items, at, ones, numbers):
            for k, v in enumerate(items):
                item.fill(v, at + k * item.size, ones, numbers)
        return count * item.size, fill


def _domain_size(t: Type, n: int) -> int:
    return n if isinstance(t, PlayerT) else t.size(n)


class _Piece:
    """One named part of the tensor: a variable, or the player's own moves."""

    def __init__(self, name: str, size: int, fill):
        self.name, self.size, self.fill = name, size, fill


def _variable_pieces(program, n: int, public: bool, private: str) -> list[_Piece]:
    """`private`: "own" (the observer's element), "all" (every player's) or "none"."""
    pieces = []
    for name, decl in program.vars.items():
        t = program.var_types[name]
        field = "V_" + name
        if decl.visibility == "public" and public:
            layout = _Layout(t, n)
            pieces.append(_Piece(name, layout.size, _reader(field, layout.fill)))
        elif decl.visibility == "private" and isinstance(t, ArrayT) and private != "none":
            layout = _Layout(t.elem, n)
            if private == "own":
                pieces.append(_Piece(name, layout.size, _own_reader(field, layout.fill)))
            else:
                whole = _Layout(t, n)
                pieces.append(_Piece(name, whole.size, _reader(field, whole.fill)))
    return pieces


def _reader(field: str, fill):
    def read(state, player, at, ones, numbers):
        fill(getattr(state.s, field), at, ones, numbers)
    return read


def _own_reader(field: str, fill):
    def read(state, player, at, ones, numbers):
        if 0 <= player < state.s.n:
            fill(getattr(state.s, field)[player], at, ones, numbers)
    return read


def _own_moves_piece(num_actions: int, slots: int) -> _Piece:
    if num_actions <= ONE_HOT_ACTION_MAX:
        width = num_actions

        def write(action, at, ones):
            ones.append(at + action)
    else:
        digits = max(1, (num_actions - 1).bit_length())
        width = 1 + digits

        def write(action, at, ones):
            ones.append(at)
            for d in range(digits):
                if (action >> d) & 1:
                    ones.append(at + 1 + d)

    def read(state, player, at, ones, numbers):
        own = own_moves(state, player)
        if len(own) > slots:
            raise ValueError(f"P{player + 1} has made {len(own)} moves, more than the {slots} the game's "
                             f"information-state tensor has room for (its max_game_length is an estimate: "
                             f"load it with max_game_length=N)")
        for k, action in enumerate(own):
            write(action, at + k * width, ones)
    return _Piece("my_moves", slots * width, read)


def own_moves(state, player: int) -> list[int]:
    """The player's own past moves, as the runtime's information-state string lists them."""
    return [h[player] if who == SIMULTANEOUS else h
            for h, who in zip(state.history, state.actors) if who == player or who == SIMULTANEOUS]


class Encoder:
    """The tensor layout of one loaded game for one kind of observer."""

    def __init__(self, program, n: int, *, public: bool = True, private: str = "own",
                 own_moves: int | None = None, num_actions: int = 0):
        self.pieces = _variable_pieces(program, n, public, private)
        if own_moves is not None and private != "none":
            self.pieces.append(_own_moves_piece(num_actions, own_moves))
        self.size = sum(p.size for p in self.pieces)

    def views(self, tensor: np.ndarray) -> dict:
        out, at = {}, 0
        for piece in self.pieces:
            out[piece.name] = tensor[at:at + piece.size]
            at += piece.size
        return out

    def fill(self, tensor: np.ndarray, state, player: int) -> None:
        """`state`: a runtime GameState."""
        ones: list[int] = []
        numbers: list[tuple[int, int]] = []
        at = 0
        for piece in self.pieces:
            piece.fill(state, player, at, ones, numbers)
            at += piece.size
        tensor.fill(0.0)
        if ones:
            tensor[ones] = 1.0
        if numbers:
            where, values = zip(*numbers)
            tensor[list(where)] = values
