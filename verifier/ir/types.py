"""Semantic types of the rules language.

Every type is finite, so every back end can enumerate or encode it.
"Domain" types (bool, integer ranges, enums, players, grid cells, catalogue
items) have values that are small integers (bools are Python bools) with an
`index` from 0; collections are built over domains:

- `ArrayT(index, elem)` — one `elem` per value of a domain (Python list);
- `SetT(elem)` — a subset of a domain (Python int bitmask over the index);
- `SeqT(elem, cap)` — an ordered list of at most `cap` items (Python list).

One type is not finite: `RatT`, an exact fraction (Python `Fraction`, Z3 `Real`) between
two bounds. It is the type of a division `a / b` and may be a definition's result, a
score, a return or a chance weight, never state: the state stays finite.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction


class Type:
    is_domain = False

    def __str__(self) -> str:  # pragma: no cover - overridden
        return type(self).__name__


@dataclass(frozen=True)
class BoolT(Type):
    is_domain = True
    lo = 0

    def size(self, max_players: int) -> int:
        return 2

    def __str__(self) -> str:
        return "bool"


@dataclass(frozen=True)
class IntT(Type):
    """An integer in lo..hi (inclusive).

    `loaded`: for a range whose bounds name options (`0..winscore + 5`), the bounds as the
    options are loaded, each None (the static bound) or (option, offset); lo..hi are then the
    widest bounds over the options' declared ranges. Not part of equality: the static type
    is the type; the loaded bounds are one more check where a value is stored."""

    lo: int
    hi: int
    loaded: tuple | None = field(default=None, compare=False)
    is_domain = True

    def size(self, max_players: int) -> int:
        return self.hi - self.lo + 1

    def __str__(self) -> str:
        return str(self.lo) if self.lo == self.hi else f"{self.lo}..{self.hi}"


@dataclass(frozen=True)
class RatT(Type):
    """An exact fraction in lo..hi (inclusive; the bounds are Fractions or ints)."""

    lo: Fraction | int
    hi: Fraction | int

    def __str__(self) -> str:
        return f"rational {self.lo}" if self.lo == self.hi else f"rational {self.lo}..{self.hi}"


@dataclass(frozen=True)
class PlayerT(Type):
    is_domain = True
    lo = 0

    def size(self, max_players: int) -> int:
        return max_players

    def __str__(self) -> str:
        return "Player"


@dataclass(frozen=True)
class EnumT(Type):
    name: str
    items: tuple[str, ...]
    displays: tuple[str, ...]
    is_domain = True
    lo = 0

    def size(self, max_players: int) -> int:
        return len(self.items)

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class GridT(Type):
    """Cells of a rows x cols grid, numbered row by row from 0."""

    name: str
    rows: int
    cols: int
    is_domain = True
    lo = 0

    def size(self, max_players: int) -> int:
        return self.rows * self.cols

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class RecordT(Type):
    name: str
    fields: tuple[tuple[str, Type], ...]
    shown: str | None

    def field(self, name: str) -> Type | None:
        return dict(self.fields).get(name)

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class CatalogueT(Type):
    """An item of a catalogue: an index into its list of records."""

    name: str
    record: RecordT
    count: int
    is_domain = True
    lo = 0

    def size(self, max_players: int) -> int:
        return self.count

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class ArrayT(Type):
    index: Type
    elem: Type

    def __str__(self) -> str:
        return f"array[{self.index}] of {self.elem}"


@dataclass(frozen=True)
class SetT(Type):
    elem: Type

    def __str__(self) -> str:
        return f"set of {self.elem}"


@dataclass(frozen=True)
class SeqT(Type):
    elem: Type
    cap: int

    def __str__(self) -> str:
        return f"seq of {self.elem} max {self.cap}"


@dataclass(frozen=True)
class StrT(Type):
    def __str__(self) -> str:
        return "string"


@dataclass(frozen=True)
class EmptyT(Type):
    """The type of `{}` and `[]` before context gives them an element type."""

    def __str__(self) -> str:
        return "empty collection"


INT_LIKE = (IntT, PlayerT, GridT)


def is_int_like(t: Type) -> bool:
    return isinstance(t, INT_LIKE)


def int_bounds(t: Type, max_players: int) -> tuple[int, int]:
    if isinstance(t, IntT):
        return t.lo, t.hi
    if isinstance(t, PlayerT):
        return 0, max_players - 1
    if isinstance(t, GridT):
        return 0, t.rows * t.cols - 1
    raise TypeError(t)


def is_number(t: Type) -> bool:
    """A whole number or an exact fraction: what arithmetic and comparisons take."""
    return isinstance(t, INT_LIKE) or isinstance(t, RatT)


def num_bounds(t: Type, max_players: int) -> tuple:
    """The bounds of a number type (whole or fractional)."""
    if isinstance(t, RatT):
        return t.lo, t.hi
    return int_bounds(t, max_players)


def contains_rational(t: Type) -> bool:
    while isinstance(t, (ArrayT, SeqT, SetT)):
        t = t.elem
    return isinstance(t, RatT)


def element_type(t: Type) -> Type | None:
    """The type of the items a collection yields when iterated."""
    if isinstance(t, (SetT, SeqT)):
        return t.elem
    if isinstance(t, ArrayT):
        return t.elem
    return None


def assignable(target: Type, value: Type) -> bool:
    """Can a value of type `value` be stored where `target` is expected?

    Integer-like types convert to each other (ranges are checked when the
    value is stored); enums and catalogue items are nominal; an empty literal
    fits any set or sequence.
    """
    if target == value:
        return True
    if is_int_like(target) and is_int_like(value):
        return True
    if isinstance(target, RatT):  # a whole number is a fraction too (never the other way)
        return is_number(value)
    if isinstance(value, EmptyT):
        return isinstance(target, (SetT, SeqT))
    if isinstance(target, SetT) and isinstance(value, SetT):
        # a set is a bitmask over its domain's index: the domains must start alike
        if isinstance(target.elem, IntT) and isinstance(value.elem, IntT):
            return target.elem.lo == value.elem.lo
        return target.elem == value.elem
    if isinstance(target, SeqT) and isinstance(value, SeqT):
        return assignable(target.elem, value.elem)
    if isinstance(target, ArrayT) and isinstance(value, ArrayT):
        return assignable(target.index, value.index) and assignable(target.elem, value.elem)
    return False
