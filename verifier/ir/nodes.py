"""The IR: immutable dataclasses for every construct of the rules language.

Every node carries a `span` that is excluded from equality, so two programs
that differ only in layout compare equal (the printer round-trip relies on
this).  Nodes validate their fields when built (`__post_init__`), so a
malformed IR cannot exist.  Types of expressions are not stored on the nodes:
the type checker returns them in a side table keyed by node identity.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from typing import Optional

from ..diagnostics import Span

_NO_SPAN = Span.unknown()


def _span() -> Span:
    return field(default=_NO_SPAN, compare=False, repr=False)


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


class Node:
    """Base of all IR nodes; checks declared field kinds once built."""

    span: Span

    def __post_init__(self) -> None:
        # field names per class, looked up once: dataclasses.fields() per node cost a fifth of
        # lowering a large spec
        names = _FIELD_NAMES.get(type(self))
        if names is None:
            names = _FIELD_NAMES[type(self)] = tuple(f.name for f in fields(self))  # type: ignore[arg-type]
        for name in names:
            if isinstance(getattr(self, name), list):
                raise TypeError(f"{type(self).__name__}.{name}: use a tuple, not a list")

    def children(self):
        names = _FIELD_NAMES.get(type(self))
        if names is None:
            names = _FIELD_NAMES[type(self)] = tuple(f.name for f in fields(self))  # type: ignore[arg-type]
        for name in names:
            if name == "span":
                continue
            value = getattr(self, name)
            if isinstance(value, Node):
                yield value
            elif isinstance(value, tuple):
                for item in value:
                    if isinstance(item, Node):
                        yield item
                    elif isinstance(item, tuple):
                        yield from (x for x in item if isinstance(x, Node))


class SpannedText(str):
    """A word of the spec that is its text — it compares, hashes, prints and serialises as a
    plain string, so where it was written never affects equality — and remembers where it was
    written (`span`), for the caret of an error about it."""

    span: Span

    def __new__(cls, text: str, span: Span = _NO_SPAN) -> "SpannedText":
        self = super().__new__(cls, text)
        self.span = span
        return self

    def __reduce__(self):
        return (type(self), (str(self), self.span))

    def __repr__(self) -> str:
        return str.__repr__(self)


class Cite(SpannedText):
    """A cited rule ID (`@I-D4` is `Cite("I-D4")`)."""


class PointName(SpannedText):
    """A decision point named in an invariant's `at` clause: a move offered there, or the
    variable a `chance` draws (`at take, g`)."""


Cites = tuple[str, ...]  # of Cite (plain strings are accepted too: IR built by hand)

# ---------------------------------------------------------------- type syntax


@dataclass(frozen=True)
class NamedTypeRef(Node):
    name: str
    span: Span = _span()


@dataclass(frozen=True)
class BoolTypeRef(Node):
    span: Span = _span()


@dataclass(frozen=True)
class PlayerTypeRef(Node):
    span: Span = _span()


@dataclass(frozen=True)
class TextTypeRef(Node):
    """Display text: allowed as a definition's result and a record field, never as state."""

    span: Span = _span()


@dataclass(frozen=True)
class RangeTypeRef(Node):
    # an integer, the name of an integer constant or option, or (name, offset): `name + 5`
    lo: int | str | tuple
    hi: int | str | tuple
    span: Span = _span()


@dataclass(frozen=True)
class RationalTypeRef(Node):
    """`rational lo..hi`: an exact fraction between two whole bounds (results, never state)."""

    lo: int | str  # an integer, or the name of an integer constant
    hi: int | str
    span: Span = _span()


@dataclass(frozen=True)
class ArrayTypeRef(Node):
    index: "TypeRef"
    elem: "TypeRef"
    span: Span = _span()


@dataclass(frozen=True)
class SetTypeRef(Node):
    elem: "TypeRef"
    span: Span = _span()


@dataclass(frozen=True)
class SeqTypeRef(Node):
    elem: "TypeRef"
    capacity: int
    span: Span = _span()


TypeRef = NamedTypeRef | BoolTypeRef | PlayerTypeRef | TextTypeRef | RangeTypeRef | RationalTypeRef | ArrayTypeRef | SetTypeRef | SeqTypeRef

# ---------------------------------------------------------------- expressions


@dataclass(frozen=True)
class IntLit(Node):
    value: int
    span: Span = _span()


@dataclass(frozen=True)
class BoolLit(Node):
    value: bool
    span: Span = _span()


@dataclass(frozen=True)
class StrLit(Node):
    """A string with `{expr}` interpolations, already split into parts."""

    parts: tuple  # of str and Expr, alternating freely
    span: Span = _span()


@dataclass(frozen=True)
class Name(Node):
    name: str
    span: Span = _span()


@dataclass(frozen=True)
class Index(Node):
    base: "Expr"
    index: "Expr"
    span: Span = _span()


@dataclass(frozen=True)
class FieldAccess(Node):
    base: "Expr"
    name: str
    span: Span = _span()


@dataclass(frozen=True)
class KeywordArg(Node):
    name: str
    value: "Expr"
    span: Span = _span()


@dataclass(frozen=True)
class Call(Node):
    func: str
    args: tuple  # of Expr or KeywordArg
    span: Span = _span()


@dataclass(frozen=True)
class Unary(Node):
    op: str  # "not", "-"
    operand: "Expr"
    span: Span = _span()


@dataclass(frozen=True)
class Binary(Node):
    op: str  # and or + - * / // % == != < <= > >= in notin
    left: "Expr"
    right: "Expr"
    span: Span = _span()


@dataclass(frozen=True)
class RangeExpr(Node):
    """`lo..hi`: the integers from lo to hi inclusive, in order (empty if hi < lo)."""

    lo: "Expr"
    hi: "Expr"
    span: Span = _span()


@dataclass(frozen=True)
class IfExpr(Node):
    cond: "Expr"
    then: "Expr"
    orelse: "Expr"
    span: Span = _span()


AGGREGATES = ("sum", "count", "all", "any", "min", "max", "argmin", "argmax", "collect", "table")


@dataclass(frozen=True)
class Aggregate(Node):
    """`kind(var in source where cond: body)` — a fold over a finite collection."""

    kind: str
    var: str
    source: "Expr"
    where: Optional["Expr"]
    body: Optional["Expr"]
    span: Span = _span()

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.kind not in AGGREGATES:
            raise ValueError(f"unknown aggregate {self.kind}")


@dataclass(frozen=True)
class SeqLit(Node):
    items: tuple
    span: Span = _span()


@dataclass(frozen=True)
class SetLit(Node):
    items: tuple
    span: Span = _span()


Expr = (IntLit | BoolLit | StrLit | Name | Index | FieldAccess | Call | Unary | Binary | RangeExpr | IfExpr | Aggregate
        | SeqLit | SetLit)

# ---------------------------------------------------------------- statements


@dataclass(frozen=True)
class Assign(Node):
    target: "Expr"  # Name or Index chain
    op: str  # "=", "+=", "-="
    value: "Expr"
    cites: Cites = ()
    span: Span = _span()


@dataclass(frozen=True)
class Let(Node):
    """`let name = value`, or `let name: type = value` (the type bounds every value it takes;
    without one, the variable's range is the union of the values bound to it)."""

    name: str
    value: "Expr"
    cites: Cites = ()
    span: Span = _span()
    type: Optional["TypeRef"] = None


@dataclass(frozen=True)
class If(Node):
    branches: tuple  # of (cond Expr, Block)
    orelse: Optional["Block"]
    span: Span = _span()


@dataclass(frozen=True)
class For(Node):
    var: str
    source: "Expr"
    body: "Block"
    cites: Cites = ()
    span: Span = _span()


@dataclass(frozen=True)
class While(Node):
    """`while cond decreases measure { body }`: the optional measure is an integer that is
    >= 0 whenever the condition holds and drops at every later iteration of one entry."""

    cond: "Expr"
    body: "Block"
    cites: Cites = ()
    decreases: Optional["Expr"] = None
    span: Span = _span()


@dataclass(frozen=True)
class Chance(Node):
    """A chance node: `var` takes a random element of `source`, uniformly, or with the
    probability `weight` (an expression over `var`) divided by the weights' total."""

    var: str
    source: "Expr"
    cites: Cites = ()
    span: Span = _span()
    weight: Optional["Expr"] = None


@dataclass(frozen=True)
class Require(Node):
    label: str
    message: str
    cites: Cites
    cond: "Expr"
    span: Span = _span()


@dataclass(frozen=True)
class MoveParam(Node):
    name: str
    type: Optional["TypeRef"]  # `c: Cell`
    source: Optional["Expr"]  # `c in hand[p]`
    span: Span = _span()


@dataclass(frozen=True)
class Move(Node):
    name: str
    params: tuple  # of MoveParam
    text: Optional[StrLit]
    cites: Cites
    requires: tuple  # of Require
    body: "Block"
    span: Span = _span()


@dataclass(frozen=True)
class Choose(Node):
    """A decision point: the player `player` picks one of `moves`."""

    player: "Expr"
    moves: tuple
    cites: Cites = ()
    span: Span = _span()


@dataclass(frozen=True)
class Simultaneous(Node):
    """Every player picks one of `moves` in secret; effects run in seat order."""

    var: str
    moves: tuple
    cites: Cites = ()
    span: Span = _span()


@dataclass(frozen=True)
class End(Node):
    cites: Cites = ()
    span: Span = _span()


@dataclass(frozen=True)
class Say(Node):
    text: StrLit
    cites: Cites = ()
    span: Span = _span()


@dataclass(frozen=True)
class CollectionEdit(Node):
    """`add x to c`, `remove x from c`, `append x to c`."""

    op: str  # "add", "remove", "append"
    item: "Expr"
    target: "Expr"
    cites: Cites = ()
    span: Span = _span()


@dataclass(frozen=True)
class Block(Node):
    stmts: tuple
    span: Span = _span()


Stmt = Assign | Let | If | For | While | Chance | Choose | Simultaneous | End | Say | CollectionEdit

# ---------------------------------------------------------------- declarations


@dataclass(frozen=True)
class GameDecl(Node):
    name: str
    title: str
    cites: Cites = ()
    span: Span = _span()


@dataclass(frozen=True)
class UtilityDecl(Node):
    """`utility zero_sum | constant_sum N | general_sum | identical [when COND]`: what every
    finished game's returns satisfy (`total` is constant_sum's N). A spec may hold several; the
    first whose `when` (a condition on options and num_players) holds for the game as loaded
    applies, and none: general_sum."""

    kind: str
    total: int | None = None
    when: Optional["Expr"] = None
    cites: Cites = ()
    span: Span = _span()


@dataclass(frozen=True)
class PlayersDecl(Node):
    lo: int
    hi: int
    cites: Cites = ()
    span: Span = _span()


@dataclass(frozen=True)
class OptionDecl(Node):
    """`finite` is the value tools use when they need every game to end (e.g. a turn limit)."""

    name: str
    type: TypeRef
    default: "Expr"
    reason: str
    cites: Cites = ()
    finite: Optional["Expr"] = None
    span: Span = _span()


@dataclass(frozen=True)
class EnumItem(Node):
    name: str
    display: Optional[str]
    aka: Optional[str]
    span: Span = _span()


@dataclass(frozen=True)
class EnumDecl(Node):
    name: str
    items: tuple
    cites: Cites = ()
    span: Span = _span()


@dataclass(frozen=True)
class FieldDecl(Node):
    name: str
    type: TypeRef
    span: Span = _span()


@dataclass(frozen=True)
class RecordDecl(Node):
    name: str
    fields: tuple
    shown: Optional[str]
    cites: Cites = ()
    span: Span = _span()


@dataclass(frozen=True)
class TypeDecl(Node):
    name: str
    type: TypeRef
    cites: Cites = ()
    span: Span = _span()


@dataclass(frozen=True)
class GridDecl(Node):
    name: str
    rows: int
    cols: int
    cites: Cites = ()
    span: Span = _span()


@dataclass(frozen=True)
class ConstDecl(Node):
    name: str
    type: TypeRef
    value: "Expr"
    cites: Cites = ()
    span: Span = _span()


@dataclass(frozen=True)
class CatalogueDecl(Node):
    """Components as data: a named list of records; the name is also a type."""

    name: str
    record: str
    assumption: Optional[str]  # set when the data is replaceable
    items: tuple
    cites: Cites = ()
    span: Span = _span()


@dataclass(frozen=True)
class VarDecl(Node):
    name: str
    type: TypeRef
    init: Optional["Expr"]
    visibility: str  # public, private (owner only), hidden
    cites: Cites = ()
    span: Span = _span()


@dataclass(frozen=True)
class Param(Node):
    name: str
    type: TypeRef
    span: Span = _span()


@dataclass(frozen=True)
class DefDecl(Node):
    name: str
    params: tuple
    result: TypeRef
    body: "Expr"
    cites: Cites = ()
    span: Span = _span()


@dataclass(frozen=True)
class FlowDecl(Node):
    body: Block
    span: Span = _span()


@dataclass(frozen=True)
class ScoreClause(Node):
    var: str
    expr: "Expr"
    cites: Cites = ()
    span: Span = _span()


@dataclass(frozen=True)
class TiebreakClause(Node):
    var: str
    expr: "Expr"
    direction: str  # higher / lower wins
    cites: Cites = ()
    span: Span = _span()


@dataclass(frozen=True)
class WinsClause(Node):
    """`wins p if cond`: players meeting cond win outright, whatever the scores."""

    var: str
    cond: "Expr"
    cites: Cites = ()
    span: Span = _span()


@dataclass(frozen=True)
class ReturnsClause(Node):
    var: str
    expr: "Expr"
    span: Span = _span()


@dataclass(frozen=True)
class OutcomeDecl(Node):
    score: ScoreClause
    tiebreaks: tuple
    returns: Optional[ReturnsClause]
    wins: Optional[WinsClause] = None
    span: Span = _span()


@dataclass(frozen=True)
class InvariantDecl(Node):
    name: str
    sentence: str
    cond: "Expr"
    cites: Cites = ()
    span: Span = _span()
    # `at take, g`: the condition is claimed only where the game waits at these decision points
    # (of PointName); empty: at every decision point
    at: tuple[str, ...] = ()


@dataclass(frozen=True)
class ExampleGiven(Node):
    target: "Expr"
    value: "Expr"
    span: Span = _span()


@dataclass(frozen=True)
class ExampleExpect(Node):
    cond: "Expr"
    span: Span = _span()


@dataclass(frozen=True)
class ExampleDecl(Node):
    name: str
    sentence: str
    cites: Cites
    items: tuple
    span: Span = _span()


EXPECT_STATUSES = ("proved", "violated", "unknown")
BUILTIN_PROPERTIES = ("termination", "no_deadlock", "well_formed")


@dataclass(frozen=True)
class ExpectDecl(Node):
    """`expect PROPERTY STATUS [when COND] "why"`: the status `rulebook verify` should report
    for an invariant or a built-in property whenever COND (on options and num_players) holds."""

    name: str
    status: str
    when: Optional["Expr"]
    text: str
    cites: Cites = ()
    span: Span = _span()


RULE_ID = re.compile(r"[A-Z][A-Z0-9]*(-[A-Z0-9]+)+")  # the grammar's CITE without its '@'
SECTION_KINDS = ("components", "setup", "turn", "scoring", "end", "variants", "ambiguities")


@dataclass(frozen=True)
class RuleDecl(Node):
    """`@I-D4 "text"`: one rule of the rulebook, in the spec's own words."""

    id: str
    text: str
    span: Span = _span()

    def __post_init__(self) -> None:
        super().__post_init__()
        if not RULE_ID.fullmatch(self.id):
            raise ValueError(f"not a rule ID: {self.id!r}")


@dataclass(frozen=True)
class RulesDecl(Node):
    """`rules KIND "Title" { @ID "text" ... }`: a section of the rulebook. KIND places it in the
    rulebook's order (SECTION_KINDS); the sections of a spec follow that order."""

    kind: str
    title: str
    rules: tuple  # of RuleDecl
    span: Span = _span()

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.kind not in SECTION_KINDS:
            raise ValueError(f"unknown section kind {self.kind}")


DISPLAY_KINDS = ("board", "row", "cards", "value")


@dataclass(frozen=True)
class DisplayItem(Node):
    """`KIND "Title" [per p] [for x in S]: expr` — how a part of a state is drawn: `board` a grid
    (an array over a grid type, or `for c in GRID: label`), `row` a row of labelled boxes (an
    array, or `for x in S: label`, each box captioned with x), `cards` card faces (a set or a
    sequence, or `for x in S: face`), `value` one value as text. `per p` draws the item once per
    player, with `p` bound to the player."""

    kind: str  # one of DISPLAY_KINDS: a name in the grammar, checked by the type checker
    title: str
    player: Optional[str]
    var: Optional[str]
    source: Optional["Expr"]
    expr: "Expr"
    span: Span = _span()


@dataclass(frozen=True)
class DisplayDecl(Node):
    """`display { item ... }`: the pictures of a state (docs, SVG)."""

    items: tuple  # of DisplayItem
    span: Span = _span()


Decl = (GameDecl | PlayersDecl | OptionDecl | EnumDecl | RecordDecl | TypeDecl | GridDecl | ConstDecl
        | CatalogueDecl | VarDecl | DefDecl | FlowDecl | OutcomeDecl | InvariantDecl | ExampleDecl
        | ExpectDecl | RulesDecl | DisplayDecl | UtilityDecl)


@dataclass(frozen=True)
class Spec(Node):
    path: str
    decls: tuple
    span: Span = _span()

    def of_kind(self, kind: type) -> list:
        return [d for d in self.decls if isinstance(d, kind)]
