"""The Z3 encoding of game states and of the expression language.

This is the only module of the project that imports `z3` (a test enforces
it); later smt modules (transition relation, BMC, k-induction) get z3 and
every term-building helper from here.

Values are Python structures of Z3 terms that mirror the language's types:

| type                         | value                                                    |
|------------------------------|----------------------------------------------------------|
| bool                         | `BoolRef`                                                |
| ranges, Player, enum, grid   | `ArithRef` (an Int: enum and catalogue items by index,   |
| cell, catalogue item         | cells as row * cols + col — the engine's numbers)        |
| `set of D`                   | `SetVal`: a tuple of `BoolRef`, one per value of D       |
| `array[D] of T`              | a tuple of T-values, one per value of D                  |
| `seq of T max K`             | `SeqVal(length, items)`: K item slots, the first         |
|                              | `length` of which are the sequence                       |
| text                         | not encoded (display only): raises `NotEncoded`          |

A value carries its own shape (a set's tuple may be longer than another's,
sequences differ in slots), so an `if` over two sets of domains `0..5` and
`0..9` pads instead of losing members; types are consulted for what shapes
cannot say (a domain's first value, the items of a catalogue).

The player count `n` and the options are concrete Python values per
encoding: a proof is per player count and per option setting.

Partial operations (min over nothing, `first` of an empty sequence, an index
outside its domain, division by zero) never silently pick a value: the
encoder records an `Obligation` — a condition, guarded by the path under
which the engine would evaluate it (short-circuit `and`/`or`/`all`/`any`,
`if` branches, aggregate guards), with the source span and a sentence.
These become the `well_formed` check. An obligation its own path grants (the
condition is a conjunct of the guard, up to a flipped comparison) is not
recorded: it cannot fail.

Memo: a definition call, an outcome clause or an aggregate is encoded once
per (node, values of the names it reads) and shared by every Encoder of the
same program, player count, options and version of this module's code
(`names_read`, `Encoder._memo`); its obligations are replayed under each
caller's path. Successors of different moves reuse what a move left alone.

Folding: terms whose arguments are all literals are simplified on the spot
by Z3 itself (`lift`), and `If`/`And`/`Or` with literal conditions pick their
branch. Meaning comes only from the Z3 terms the operator tables build, so an
encoding of a concrete state is evaluated by the same formulas a proof uses.
"""
from __future__ import annotations

import contextlib
import operator
import time
import weakref
from dataclasses import dataclass
from typing import Any, Iterable, NamedTuple

import z3

from ..diagnostics import Span
from ..frontend.typecheck import Program, walk
from ..ir import nodes as N
from ..ir.types import (ArrayT, BoolT, CatalogueT, EmptyT, EnumT, GridT, IntT, PlayerT, RatT, SeqT, SetT, StrT,
                        Type, is_int_like, is_number, num_bounds)

__all__ = ["z3", "with_values", "SetVal", "SeqVal", "Obligation", "NotEncoded", "OutOfTime", "encoding_deadline", "StateVars", "concrete", "Encoder", "at_step",
           "to_python", "literal", "scope", "CMP_OPS", "INT_OPS", "EQ_OPS", "SET_OPS", "UNARY_OPS"]

# ====================================================================== terms
# z3py's generic constructors cost 5-40 µs each; the hot ones below call the
# C API directly (2-3 µs), which matters when a whole state is unrolled.

# z3py re-checks every argument in Python before each call (`_z3_assert` under `z3_debug()`):
# for a substitution, each pair's sorts — 10 million comparisons and 60 % of an induction's
# time on a seed game.  Z3's C API checks the same and raises Z3Exception, so they go.
z3.z3.Z3_DEBUG = False

CTX = z3.main_ctx()
_CR = CTX.ref()
TRUE = z3.BoolVal(True, CTX)
FALSE = z3.BoolVal(False, CTX)
_INTS: dict[int, z3.ArithRef] = {}


class NotEncoded(Exception):
    """A construct with no Z3 meaning (display text)."""


def num(i: int) -> z3.ArithRef:
    v = _INTS.get(i)
    if v is None:
        v = _INTS[i] = z3.IntVal(i, CTX)
    return v


def boolean(b: bool) -> z3.BoolRef:
    return TRUE if b else FALSE


def _unchecked(fn):
    """The C function behind a z3core wrapper, minus its error check: for pure queries on
    valid terms, which cannot fail (the check doubles their cost on the hot path)."""
    try:
        return fn.__defaults__[-1].f
    except (AttributeError, IndexError, TypeError):
        return fn


_bool_value = _unchecked(z3.Z3_get_bool_value)
_is_numeral = _unchecked(z3.Z3_is_numeral_ast)
_same = _unchecked(z3.Z3_is_eq_ast)
_ast_id = _unchecked(z3.Z3_get_ast_id)
_BUILTIN = type(len)
_L_TRUE, _L_FALSE, _L_UNDEF = z3.Z3_L_TRUE, z3.Z3_L_FALSE, z3.Z3_L_UNDEF


def is_true(b) -> bool:
    return b is TRUE or _bool_value(_CR, b.as_ast()) == _L_TRUE


def is_false(b) -> bool:
    return b is FALSE or _bool_value(_CR, b.as_ast()) == _L_FALSE


def is_num(x) -> bool:
    return bool(_is_numeral(_CR, x.as_ast()))


def is_lit(x) -> bool:
    a = x.as_ast()
    return bool(_is_numeral(_CR, a)) or _bool_value(_CR, a) != _L_UNDEF


def same(a, b) -> bool:
    """The same term (Z3 hash-conses terms: equal literals are the same term)."""
    return a is b or bool(_same(_CR, a.as_ast(), b.as_ast()))


def _wrap(ast, like):
    return z3.BoolRef(ast, CTX) if isinstance(like, z3.BoolRef) else z3.ArithRef(ast, CTX)


def _array(xs):
    arr = (z3.Ast * len(xs))()
    for i, x in enumerate(xs):
        arr[i] = x.as_ast()
    return arr


def ite(c, a, b):
    """If(c, a, b) on leaves, picking a branch when c is a literal."""
    if a is b:  # the same Python object: no need to ask Z3 (the common case when merging frames)
        return a
    ca = c.as_ast()
    lit = _bool_value(_CR, ca)
    if lit == _L_TRUE:
        return a
    if lit == _L_FALSE:
        return b
    return _ite_open(ca, a, b)


def _ite_open(ca, a, b):
    """If(c, a, b) for a condition `ca` (an AST) already known not to be a literal."""
    aa, ba = a.as_ast(), b.as_ast()
    if _same(_CR, aa, ba):
        return b
    return _wrap(z3.Z3_mk_ite(_CR, ca, aa, ba), a)


def and_(*xs):
    return and_all(xs)


def and_all(xs: Iterable) -> z3.BoolRef:
    keep = []
    for x in xs:
        if is_false(x):
            return FALSE
        if not is_true(x):
            keep.append(x)
    if not keep:
        return TRUE
    if len(keep) == 1:
        return keep[0]
    return z3.BoolRef(z3.Z3_mk_and(_CR, len(keep), _array(keep)), CTX)


def or_(*xs):
    return or_all(xs)


def flatten_and(term) -> list:
    """The conjuncts of a z3 formula (nested `And`s flattened; `True` dropped)."""
    out, stack = [], [term]
    while stack:
        t = stack.pop()
        if z3.is_and(t):
            stack.extend(reversed(t.children()))
        elif not z3.is_true(t):
            out.append(t)
    return out


def or_all(xs: Iterable) -> z3.BoolRef:
    keep = []
    for x in xs:
        if is_true(x):
            return TRUE
        if not is_false(x):
            keep.append(x)
    if not keep:
        return FALSE
    if len(keep) == 1:
        return keep[0]
    return z3.BoolRef(z3.Z3_mk_or(_CR, len(keep), _array(keep)), CTX)


def not_(x):
    if is_true(x):
        return FALSE
    if is_false(x):
        return TRUE
    return z3.BoolRef(z3.Z3_mk_not(_CR, x.as_ast()), CTX)


def implies(a, b):
    return or_(not_(a), b)


_ast_kind = _unchecked(z3.Z3_get_ast_kind)
_app_decl = _unchecked(z3.Z3_get_app_decl)
_decl_kind = _unchecked(z3.Z3_get_decl_kind)
_num_args = _unchecked(z3.Z3_get_app_num_args)
_app_arg = _unchecked(z3.Z3_get_app_arg)
_quantifier_body = _unchecked(z3.Z3_get_quantifier_body)
_APP, _AND, _OR, _QUANTIFIER = z3.Z3_APP_AST, z3.Z3_OP_AND, z3.Z3_OP_OR, z3.Z3_QUANTIFIER_AST
_FLIPPED = {z3.Z3_OP_LT: ("<", 0, 1), z3.Z3_OP_GT: ("<", 1, 0), z3.Z3_OP_LE: ("<=", 0, 1),
            z3.Z3_OP_GE: ("<=", 1, 0)}


def shape(a) -> tuple:
    """A Boolean term (a raw AST) as ("and"/"or", raw arguments) or ("atom", key), the key the
    same for `a < b` and `b > a` (and `a <= b`, `b >= a`). The C API directly: this runs for
    every obligation replayed."""
    if _ast_kind(_CR, a) == _APP:
        k = _decl_kind(_CR, _app_decl(_CR, a))
        if k == _AND or k == _OR:
            return ("and" if k == _AND else "or", tuple(_app_arg(_CR, a, i) for i in range(_num_args(_CR, a))))
        flip = _FLIPPED.get(k)
        if flip is not None:
            op, i, j = flip
            return ("atom", (op, _ast_id(_CR, _app_arg(_CR, a, i)), _ast_id(_CR, _app_arg(_CR, a, j))))
    return ("atom", _ast_id(_CR, a))


def eq_leaf(a, b) -> z3.BoolRef:
    if is_lit(a) and is_lit(b):  # literals are hash-consed: same value, same term
        return boolean(same(a, b))
    return z3.BoolRef(z3.Z3_mk_eq(_CR, a.as_ast(), b.as_ast()), CTX)


def with_values(formulas: list, pairs: list) -> list:
    """`formulas` with each (leaf, value) of `pairs` substituted, and the equations that fix them:
    a choice asked value by value. Substituted rather than asserted (or pushed) on one solver, so
    that Z3 folds the value into every term (a measure over a 64-cell board: unsat in
    milliseconds so, unknown after 30 s with the cell fixed by an equation).

    Substituted into all of them at once, as the arguments of one conjunction (then split
    again: building it and substituting in it rewrite nothing, so each argument is the formula
    substituted): a substitution remembers what it did to a subterm only within one call, and a
    query's formulas share most of theirs (a seed game's value splits, 9,070 formulas in 16
    calls: 15.8 s substituted one by one, 0.4 s at once)."""
    fixed = [eq_leaf(a, b) for a, b in pairs]
    if len(formulas) < 2:
        return [z3.substitute(f, *pairs) for f in formulas] + fixed
    whole = z3.substitute(z3.And(*formulas), *pairs)
    return [whole.arg(i) for i in range(whole.num_args())] + fixed


LIFT_LIMIT = 200_000  # terms remembered by `lift`; past it the memory starts over
_lifted: dict = {}  # (f, argument ids) -> (term, arguments): terms built by a stable f


def lift(f, *args):
    """f(*args) as a Z3 term, evaluated by Z3 when every argument is a literal. For a built-in
    operator (`operator.lt`, ...) the term is remembered per arguments: z3py's operators cost
    tens of µs, and the same comparisons recur in every unrolled aggregate."""
    stable = type(f) is _BUILTIN
    if stable:
        key = (f,) + tuple(_ast_id(_CR, a.as_ast()) for a in args)
        hit = _lifted.get(key)
        if hit is not None:
            return hit[0]
    r = f(*args)
    if all(is_lit(a) for a in args):
        r = z3.simplify(r)
    if stable:
        if len(_lifted) >= LIFT_LIMIT:
            _lifted.clear()
        _lifted[key] = (r, args)  # the arguments keep their ids
    return r


def forget_lifted() -> None:
    """Drop what `lift` remembers: at the end of a spec's verification, whose terms the next spec
    never asks for. Kept, they hold up to `LIFT_LIMIT` terms alive in the parent process, whose
    workers inherit them, and every later spec's solving slows down (after two examples verified
    in the parent, 600,000 Python objects: a third spec's Spacer queries took 4-20 times as long,
    and a check proved alone came out unknown in `make verify`; `benchmarks/spec_after_spec.py`)."""
    _lifted.clear()


def total(xs: list) -> z3.ArithRef:
    zero = num(0)
    xs = [x for x in xs if not same(x, zero)]
    if not xs:
        return num(0)
    if len(xs) == 1:
        return xs[0]
    r = z3.ArithRef(z3.Z3_mk_add(_CR, len(xs), _array(xs)), CTX)
    return z3.simplify(r) if all(is_lit(x) for x in xs) else r


def bool_int(b) -> z3.ArithRef:
    return ite(b, num(1), num(0))


# ---------------------------------------------------------------- operator tables
# The language's operators mean what Python means on the engine's values.
# Z3's Int `/` and `%` are Euclidean (remainder >= 0); Python's `//` floors and
# its `%` takes the divisor's sign. They agree when the divisor is positive or
# the division is exact; otherwise Python's quotient is one less and its
# remainder is the Euclidean one plus the divisor.

def floordiv(a, b):
    exact_or_pos = z3.Or(b > 0, a % b == 0)
    return z3.If(exact_or_pos, a / b, a / b - 1)


def pymod(a, b):
    exact_or_pos = z3.Or(b > 0, a % b == 0)
    return z3.If(exact_or_pos, a % b, a % b + b)


def real(v):
    """An arithmetic term as a Real (exact fractions are Z3 Reals; whole numbers are Ints)."""
    if isinstance(v, z3.ArithRef) and v.is_int():
        r = z3.ToReal(v)
        return z3.simplify(r) if is_lit(v) else r
    return v


def same_sort(a, b) -> tuple:
    """Two arithmetic terms of one sort: an Int meeting a Real becomes a Real (the C-API
    constructors this module uses do not convert)."""
    if isinstance(a, z3.ArithRef) and isinstance(b, z3.ArithRef) and a.is_real() != b.is_real():
        return real(a), real(b)
    return a, b


def fraction_value(q) -> z3.ArithRef:
    """A whole number or a Fraction as a Real literal."""
    return z3.RealVal(f"{q.numerator}/{q.denominator}") if hasattr(q, "numerator") else z3.RealVal(q)


CMP_OPS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
INT_OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "//": floordiv, "%": pymod}
UNARY_OPS = {"not": not_, "-": lambda a: lift(operator.neg, a)}


# ====================================================================== values

class SetVal(tuple):
    """A set over a finite domain: one BoolRef per value, in the domain's order."""

    __slots__ = ()


class SizedSet(SetVal):
    """A set value that also carries `size`, a term equal to its number of members, where an
    edit knows it more simply than the sum of its bits does: `add x to S` leaves S's size plus
    one unless x was there, whatever the other bits are. A goal about a set's size after a move
    then reads the size before plus that one term; over the sum of the bits the solver had to
    find the one member among 45 that changed (measured on a seed game's deal: the hands' sizes
    were not settled in 10 s a guess). `set_size` reads it; every value built from the bits
    alone is a plain SetVal again, whose size is the sum of its bits, so a SizedSet is only ever
    a shortcut to the same number."""


# sets built by an edit or an `If` carry their size (`SizedSet`); off: every size is the sum of
# the bits (benchmarks/sized_sets.py compares the two)
SIZED_SETS = True


def sized(bits, size) -> SetVal:
    """A set of these bits whose size is `size`, a term or a function making it when asked (most
    sets a walk builds are never asked their size)."""
    if not SIZED_SETS:
        return SetVal(bits)
    out = SizedSet(bits)
    out.size = size
    return out


def set_size(v: SetVal):
    """The number of members of a set value."""
    if not isinstance(v, SizedSet):
        return total([bool_int(b) for b in v])
    if callable(v.size):
        v.size = v.size()
    return v.size


class SeqVal(NamedTuple):
    """A sequence: `length` and a fixed number of item slots (slots past the length mean nothing)."""

    length: Any
    items: tuple


def zero_like(v):
    if isinstance(v, z3.BoolRef):
        return FALSE
    if isinstance(v, z3.ArithRef):
        return num(0)
    if isinstance(v, SetVal):
        return SetVal(FALSE for _ in v)
    if isinstance(v, SeqVal):
        return SeqVal(num(0), tuple(zero_like(x) for x in v.items))
    return tuple(zero_like(x) for x in v)


def _pad_set(a: SetVal, size: int) -> SetVal:
    if len(a) >= size:
        return a
    bits = tuple(a) + (FALSE,) * (size - len(a))
    return sized(bits, a.size) if isinstance(a, SizedSet) else SetVal(bits)


def _pad_items(items: tuple, cap: int, like: tuple) -> tuple:
    if len(items) >= cap:
        return items
    return items + tuple(zero_like(like[i]) for i in range(len(items), cap))


def _same_seq_slots(a: SeqVal, b: SeqVal) -> tuple[tuple, tuple]:
    cap = max(len(a.items), len(b.items))
    return _pad_items(a.items, cap, b.items), _pad_items(b.items, cap, a.items)


def ite_val(c, a, b):
    """If(c, a, b) on values of any shape (sets and sequences are padded to match)."""
    if a is b:
        return a
    ca = c.as_ast()
    lit = _bool_value(_CR, ca)
    if lit == _L_TRUE:
        return a
    if lit == _L_FALSE:
        return b
    return _ite_val_open(ca, a, b)


def _ite_val_open(ca, a, b):
    """ite_val for a condition `ca` (an AST) already known not to be a literal: parts that are
    the same Python object on both sides are kept as they are, without asking Z3."""
    if a is b:
        return a
    if isinstance(a, SetVal):
        size = max(len(a), len(b))
        bits = (x if x is y else _ite_open(ca, x, y) for x, y in zip(_pad_set(a, size), _pad_set(b, size)))
        # the size of either, by the condition: a set chosen by a symbolic index (`hand[seat]`)
        # has the size of the one chosen, which the solver need not find bit by bit
        if not SIZED_SETS:
            return SetVal(bits)
        cond = z3.BoolRef(ca, CTX)  # held (counted by Z3) until the size is asked, if ever
        return sized(bits, lambda: _ite_open(cond.as_ast(), set_size(a), set_size(b)))
    if isinstance(a, SeqVal):
        xs, ys = _same_seq_slots(a, b)
        return SeqVal(_ite_val_open(ca, a.length, b.length), tuple(_ite_val_open(ca, x, y) for x, y in zip(xs, ys)))
    if isinstance(a, tuple):
        if len(a) != len(b):
            raise ValueError(f"arrays of {len(a)} and {len(b)} items have no common shape")
        return tuple(_ite_val_open(ca, x, y) for x, y in zip(a, b))
    return _ite_open(ca, a, b)


def eq_val(a, b) -> z3.BoolRef:
    """Python's `==` on the engine's values: sets by members, sequences by length and items."""
    if isinstance(a, SetVal):
        size = max(len(a), len(b))
        return and_all(eq_leaf(x, y) for x, y in zip(_pad_set(a, size), _pad_set(b, size)))
    if isinstance(a, SeqVal):
        ca, cb = len(a.items), len(b.items)
        parts = [eq_leaf(a.length, b.length)]
        if ca != cb:  # implied by the ranges of well-formed values; stated so the term stands alone
            parts.append(lift(operator.le, a.length, num(min(ca, cb))))
        for i in range(min(ca, cb)):
            parts.append(implies(lift(operator.lt, num(i), a.length), eq_val(a.items[i], b.items[i])))
        return and_all(parts)
    if isinstance(a, tuple):
        if len(a) != len(b):
            return FALSE  # lists of different lengths
        return and_all(eq_val(x, y) for x, y in zip(a, b))
    return eq_leaf(a, b)


def lex_lt(a, b) -> z3.BoolRef:
    """Python's `<` on a number or a list of numbers (lists compare lexicographically)."""
    if not isinstance(a, SeqVal):
        return lift(CMP_OPS["<"], a, b)
    ca, cb = len(a.items), len(b.items)
    rest = FALSE  # past both ends with every item equal: not less
    for i in range(max(ca, cb) - 1, -1, -1):  # rest: "a[i:] < b[i:]", given a[:i] == b[:i]
        a_has = lift(operator.lt, num(i), a.length) if i < ca else FALSE
        b_has = lift(operator.lt, num(i), b.length) if i < cb else FALSE
        step = FALSE
        if i < ca and i < cb:
            step = or_(lift(CMP_OPS["<"], a.items[i], b.items[i]), and_(eq_leaf(a.items[i], b.items[i]), rest))
        rest = ite(a_has, ite(b_has, step, FALSE), b_has)  # a ended here: less iff b goes on
    return rest


def select(items: tuple, pos, default=None):
    """items[pos] for a symbolic position: an If-chain (out of range gives the last item or `default`)."""
    if not items:
        if default is None:
            raise ValueError("selecting from no items")
        return default
    if is_num(pos):
        i = pos.as_long()
        if 0 <= i < len(items):
            return items[i]
    result = items[-1]
    for i in range(len(items) - 2, -1, -1):
        result = ite_val(eq_leaf(pos, num(i)), items[i], result)
    return result


def set_union(a: SetVal, b: SetVal) -> SetVal:
    size = max(len(a), len(b))
    return SetVal(or_(x, y) for x, y in zip(_pad_set(a, size), _pad_set(b, size)))


def set_inter(a: SetVal, b: SetVal) -> SetVal:
    size = max(len(a), len(b))
    return SetVal(and_(x, y) for x, y in zip(_pad_set(a, size), _pad_set(b, size)))


def set_without(a: SetVal, b: SetVal) -> SetVal:
    size = max(len(a), len(b))
    return SetVal(and_(x, not_(y)) for x, y in zip(_pad_set(a, size), _pad_set(b, size)))


EQ_OPS = {"==": eq_val, "!=": lambda a, b: not_(eq_val(a, b))}
SET_OPS = {"+": set_union, "-": set_without}


def to_python(v, model: z3.ModelRef | None = None):
    """A value in the engine's representation (bool, int, set bitmask, list); `model` evaluates
    symbolic leaves, otherwise every leaf must simplify to a literal."""
    if isinstance(v, SetVal):
        return sum(1 << i for i, bit in enumerate(v) if to_python(bit, model))
    if isinstance(v, SeqVal):
        length = to_python(v.length, model)
        return [to_python(v.items[i], model) for i in range(length)]
    if isinstance(v, tuple):
        return [to_python(x, model) for x in v]
    leaf = model.eval(v, model_completion=True) if model is not None else z3.simplify(v)
    if is_true(leaf) or is_false(leaf):
        return is_true(leaf)
    if z3.is_int_value(leaf):
        return leaf.as_long()
    if z3.is_rational_value(leaf):  # an exact fraction: the engine's Fraction
        from fractions import Fraction
        q = Fraction(leaf.numerator_as_long(), leaf.denominator_as_long())
        return int(q) if q.denominator == 1 else q
    raise ValueError(f"not a concrete value: {leaf}")


# ====================================================================== domains and state

def dom_size(t: Type, n: int) -> int:
    return n if isinstance(t, PlayerT) else t.size(n)


def dom_lo(t: Type) -> int:
    return t.lo if isinstance(t, IntT) else 0


def dom_value(t: Type, i: int):
    """The i-th value of a domain, as a literal."""
    return boolean(i == 1) if isinstance(t, BoolT) else num(dom_lo(t) + i)


def dom_pos(t: Type, v):
    """A domain value's position in the domain (the engine's bit / list index)."""
    if isinstance(t, BoolT):
        return bool_int(v)
    lo = dom_lo(t)
    return v if lo == 0 else lift(operator.sub, v, num(lo))


def dom_label(t: Type, i: int) -> str:
    if isinstance(t, EnumT):
        return t.items[i]
    if isinstance(t, BoolT):
        return "true" if i else "false"
    return str(dom_lo(t) + i)


def int_range(t: Type, n: int) -> tuple[int, int]:
    """Bounds of an int-like leaf (ranges, players, enums, cells, catalogue items)."""
    if isinstance(t, IntT):
        return t.lo, t.hi
    return 0, dom_size(t, n) - 1


def at_step(name: str, step) -> str:
    """The name of a state variable's copy at step t (GUIDE §5.6)."""
    return f"{name}@{step}"


def fresh(t: Type, name: str, n: int):
    """Named Z3 variables for a value of type t."""
    if isinstance(t, BoolT):
        return z3.Bool(name, CTX)
    if isinstance(t, SetT):
        return SetVal(z3.Bool(f"{name}{{{dom_label(t.elem, i)}}}", CTX) for i in range(dom_size(t.elem, n)))
    if isinstance(t, SeqT):
        return SeqVal(z3.Int(f"{name}#len", CTX), tuple(fresh(t.elem, f"{name}[{i}]", n) for i in range(t.cap)))
    if isinstance(t, ArrayT):
        return tuple(fresh(t.elem, f"{name}[{dom_label(t.index, i)}]", n) for i in range(dom_size(t.index, n)))
    if isinstance(t, StrT):
        raise NotEncoded(f"{name}: text is not state")
    return z3.Int(name, CTX)


def default_value(t: Type, n: int):
    """A value of type t (the engine's default), used to fill unused slots."""
    if isinstance(t, BoolT):
        return FALSE
    if isinstance(t, SetT):
        return SetVal(FALSE for _ in range(dom_size(t.elem, n)))
    if isinstance(t, SeqT):
        return SeqVal(num(0), tuple(default_value(t.elem, n) for _ in range(t.cap)))
    if isinstance(t, ArrayT):
        return tuple(default_value(t.elem, n) for _ in range(dom_size(t.index, n)))
    if isinstance(t, (StrT, EmptyT)):
        raise NotEncoded(f"no value of type {t}")
    return num(int_range(t, n)[0])


def literal(t: Type, value, n: int):
    """An engine value (int, bool, bitmask, list) of type t as Z3 literals."""
    if isinstance(t, BoolT):
        return boolean(bool(value))
    if isinstance(t, SetT):
        size = dom_size(t.elem, n)
        if value < 0 or value >> size:
            raise ValueError(f"set bitmask {value:#x} has members outside its {size}-value domain")
        return SetVal(boolean(value >> i & 1) for i in range(size))
    if isinstance(t, SeqT):
        value = list(value)
        if len(value) > t.cap:
            raise ValueError(f"a sequence of {len(value)} items in {t}")
        items = [literal(t.elem, x, n) for x in value]
        items += [default_value(t.elem, n) for _ in range(t.cap - len(value))]
        return SeqVal(num(len(value)), tuple(items))
    if isinstance(t, ArrayT):
        value = list(value)
        if len(value) != dom_size(t.index, n):
            raise ValueError(f"an array of {len(value)} items in {t} (expected {dom_size(t.index, n)})")
        return tuple(literal(t.elem, x, n) for x in value)
    if isinstance(t, StrT):
        raise NotEncoded("text has no Z3 value")
    if isinstance(t, RatT):
        return fraction_value(value)
    return num(int(value))


def range_constraints(v, t: Type, n: int) -> list:
    """Every int-like leaf within its type's bounds, sequence lengths within capacity,
    no set member outside its domain."""
    if isinstance(t, BoolT):
        return []
    if isinstance(t, SetT):
        return [not_(bit) for bit in v[dom_size(t.elem, n):]]
    if isinstance(t, SeqT):
        out = [lift(operator.le, num(0), v.length), lift(operator.le, v.length, num(t.cap))]
        for i, item in enumerate(v.items):
            inner = range_constraints(item, t.elem, n)
            if inner:
                out.append(implies(lift(operator.lt, num(i), v.length), and_all(inner)))
        return out
    if isinstance(t, ArrayT):
        out = [] if len(v) == dom_size(t.index, n) else [FALSE]
        for item in v:
            out += range_constraints(item, t.elem, n)
        return out
    if isinstance(t, (StrT, EmptyT)):
        return []
    if isinstance(t, RatT):
        return [lift(operator.le, fraction_value(t.lo), v), lift(operator.le, v, fraction_value(t.hi))]
    lo, hi = int_range(t, n)
    return [lift(operator.le, num(lo), v), lift(operator.le, v, num(hi))]


class StateVars:
    """A game state as Z3 values: every `var` and flow local, plus `pc` and `cur`.

    `StateVars(program, n, options, step)` names fresh variables `name@step`
    (leaves `name@step[i]`, `name@step{v}`, `name@step#len`);
    `concrete(...)` builds the same structure from an engine state's literals.
    Loop snapshots of `for` loops around decision points (the engine's `I_`/`J_`
    fields) belong to the transition relation and are not here yet.
    """

    def __init__(self, program: Program, n: int, options: dict, step=0, *, values: dict | None = None):
        self.program, self.n, self.options, self.step = program, n, dict(options), step
        if values is not None:
            self.vars, self.locals = values["vars"], values["locals"]
            self.pc, self.cur = values["pc"], values["cur"]
            return
        self.vars = {name: fresh(t, at_step(name, step), n) for name, t in program.var_types.items()}
        self.locals = {name: fresh(t, at_step(name, step), n) for name, t in program.flow_locals.items()}
        self.pc = z3.Int(at_step("pc", step), CTX)
        self.cur = z3.Int(at_step("cur", step), CTX)

    def env(self) -> dict:
        return {**self.vars, **self.locals}

    def constraints(self) -> list:
        """The declared ranges: values within their types; `pc` a decision point or -1 (over),
        `cur` a player, -1 (chance) or -2 (simultaneous)."""
        p, n = self.program, self.n
        out = []
        for name, t in p.var_types.items():
            out += range_constraints(self.vars[name], t, n)
        for name, t in p.flow_locals.items():
            out += range_constraints(self.locals[name], t, n)
        out += [lift(operator.le, num(-1), self.pc), lift(operator.le, self.pc, num(len(p.decisions) - 1)),
                lift(operator.le, num(-2), self.cur), lift(operator.le, self.cur, num(n - 1))]
        return [c for c in out if not is_true(c)]


def concrete(program: Program, state, options: dict | None = None) -> StateVars:
    """An engine state (a GameState or its raw `s`) as Z3 literals, shaped like `StateVars`."""
    s = getattr(state, "s", state)
    n = s.n
    if options is None:
        options = {name: getattr(s, "O_" + name) for name in program.options}
    values = {
        "vars": {name: literal(t, getattr(s, "V_" + name), n) for name, t in program.var_types.items()},
        "locals": {name: literal(t, getattr(s, "L_" + name), n) for name, t in program.flow_locals.items()},
        "pc": num(s.pc), "cur": num(s.cur),
    }
    return StateVars(program, n, options, None, values=values)


# ====================================================================== expressions

@dataclass(frozen=True)
class Obligation:
    """A condition the engine needs to evaluate an expression without error.

    `cond` is already guarded by the path to the expression. `kind` is
    "error" when the engine raises if it fails, "range" when a value leaves
    its domain and the engine does not reliably notice (it may compute on).
    """

    cond: Any
    span: Span
    sentence: str
    kind: str


# ---------------------------------------------------------------- encodings instantiated by substitution
# A definition's encoding is a function of the values it reads (the memo rests on it). Encoded
# over a state whose values are distinct free constants, it therefore holds for any values put in
# their place: substituting another state's values gives what encoding the body there would, up
# to simplification. A seed game's check of what a turn completed (a definition over 42 grid
# cells, one call per catalogue item) was encoded anew after each of five moves that change the
# grid (16 s of a 21 s decision point); instantiated, it is encoded once
# (benchmarks/substituted_calls.py). A state with a literal among its values is encoded directly,
# as before: simplification folds most of the body away there. A set's size is among the terms
# replaced, a constant of its own in the template: a set that carries its size (`SizedSet`) keeps
# it (read as the sum of its bits, it would bring back the count the carried size spares the
# solver), and a state whose sets carry sizes shares its template with one whose sets do not
# A call's encoding at a free state is a template only if its arguments do not hold the
# constants the template replaces (`plus(count)` has `count` in its argument: replacing it there
# too was wrong). That flaw made a fresh-clone `make verify` leave a seed game 35 of 48 results
# unknown; fixed, the relation built with substitution is the one built without, formula for
# formula, on every bundled spec (tests/test_substituted_calls.py), and `make verify` settles as
# much as without it (notes/issue11.md, forty-seventh stop)
SUBSTITUTED_CALLS = True
# a definition whose last encoding took this many units of work (`_tick`: expressions encoded,
# about 10 µs each) gets its template at a call's first state; counted, not timed, so that the
# terms a run builds do not depend on the machine's load
TEMPLATE_AFTER = 1000

_UNINTERPRETED = z3.Z3_OP_UNINTERPRETED


def _leaf_kind(t) -> int:
    """1: a free constant, 2: a literal, 0: any other term."""
    a = t.as_ast()
    if _is_numeral(_CR, a) or _bool_value(_CR, a) != _L_UNDEF:
        return 2
    if _ast_kind(_CR, a) == _APP and _num_args(_CR, a) == 0 and \
            _decl_kind(_CR, _app_decl(_CR, a)) == _UNINTERPRETED:
        return 1
    return 0


def _flat_value(v, leaves: list) -> tuple:
    """Append the terms of value `v` to `leaves`, in a fixed order; return its shape (what two
    values must share for the terms of one to stand in for the other's)."""
    if isinstance(v, SeqVal):
        return ("q", _flat_value(v.length, leaves), tuple(_flat_value(x, leaves) for x in v.items))
    if isinstance(v, SetVal):  # its bits, then its size (a carried one stands for itself)
        leaves.extend(v)
        leaves.append(set_size(v))
        return ("s", len(v))
    if isinstance(v, tuple):
        return ("a", tuple(_flat_value(x, leaves) for x in v))
    leaves.append(v)
    return ("b",) if z3.is_bool(v) else ("i",) if z3.is_int(v) else ("r",)


def _mentions(terms, targets: set) -> bool:
    """Whether a subterm of one of `terms` has its AST id in `targets` (raw walk, shared
    subterms visited once)."""
    seen: set = set()
    todo = [t.as_ast() for t in terms]
    while todo:
        a = todo.pop()
        i = _ast_id(_CR, a)
        if i in targets:
            return True
        if i in seen:
            continue
        seen.add(i)
        if _ast_kind(_CR, a) == _APP:
            todo.extend(_app_arg(_CR, a, k) for k in range(_num_args(_CR, a)))
        elif _ast_kind(_CR, a) == _QUANTIFIER:
            todo.append(_quantifier_body(_CR, a))
    return False


def _unflat(shp: tuple, terms):
    """A value of shape `shp` (`_flat_value`) made of the next terms of iterator `terms`."""
    if shp[0] == "q":
        return SeqVal(_unflat(shp[1], terms), tuple(_unflat(x, terms) for x in shp[2]))
    if shp[0] == "s":
        bits = tuple(next(terms) for _ in range(shp[1]))
        return sized(bits, next(terms))
    if shp[0] == "a":
        return tuple(_unflat(x, terms) for x in shp[1])
    return next(terms)


def substitute_value(v, pairs: list):
    """Value `v` with each (from, to) pair of terms replaced."""
    if not pairs:
        return v
    if isinstance(v, SeqVal):
        return SeqVal(substitute_value(v.length, pairs), tuple(substitute_value(x, pairs) for x in v.items))
    if isinstance(v, SizedSet):
        size = v.size
        return sized(tuple(z3.substitute(b, *pairs) for b in v),
                     (lambda: z3.substitute(set_size(v), *pairs)) if callable(size) else z3.substitute(size, *pairs))
    if isinstance(v, SetVal):
        return SetVal(z3.substitute(b, *pairs) for b in v)
    if isinstance(v, tuple):
        return tuple(substitute_value(x, pairs) for x in v)
    return z3.substitute(v, *pairs)


# ---------------------------------------------------------------- memo of encoded sub-expressions
# Encoding a definition call or an aggregate depends only on the values of the names it reads
# (parameters, names bound around it, state variables — through the definitions it calls too),
# on the player count and on the options. So its value and obligations are kept per
# (node, the values it reads) and shared by every Encoder of the same program, player count and
# option setting: the successors of different moves, which leave most of the state as it was,
# reuse what a move did not touch. Values are keyed by the ids of their Z3 terms (hash-consed:
# equal terms, equal ids); an entry keeps its key's terms alive, so no id is reused meanwhile.

MEMO_LIMIT = 400_000  # entries per (program, player count, options); past it the memo starts over

_MEMOS: dict[int, tuple] = {}  # id(program) -> (weak reference to it, {setting: memo}, {id(node): (names read, node)})


def code_version() -> tuple:
    """The functions and operator tables the encoding runs, as objects: a memo is valid for one
    version of them (tests plant mutations by patching them; a patched version gets a memo of
    its own, and the objects held in the key are never freed, so no id is reused)."""
    parts = [v for v in globals().values() if callable(v)]
    for table in (CMP_OPS, INT_OPS, UNARY_OPS, EQ_OPS, SET_OPS):
        parts += table.values()
    parts += [v for v in vars(Encoder).values() if callable(v) or isinstance(v, (staticmethod, classmethod))]
    return tuple(v for v in parts if _hashable(v))  # (C entry points are not: never patched)


def _hashable(v) -> bool:
    try:
        hash(v)
    except TypeError:
        return False
    return True


def _shared(program: Program) -> tuple:
    entry = _MEMOS.get(id(program))
    if entry is None or entry[0]() is not program:
        ref = weakref.ref(program, lambda _, k=id(program): _MEMOS.pop(k, None))
        entry = _MEMOS[id(program)] = (ref, {}, {})
    return entry


def names_read(program: Program, node) -> frozenset:
    """Every name an expression may read, through the definitions it calls (and `score` and
    `winners`, through the outcome). A superset is harmless: it only makes memo keys longer."""
    out: set = set()
    todo, seen = [node], set()
    while todo:
        for x in walk(todo.pop()):
            if isinstance(x, N.Name):
                out.add(x.name)
                extra = ("outcome!", program.outcome) if x.name == "winners" else None
            elif isinstance(x, N.Call):
                extra = (x.func, program.defs[x.func].body) if x.func in program.defs else \
                    ("outcome!", program.outcome) if x.func == "score" else None
            else:
                continue
            if extra is not None and extra[1] is not None and extra[0] not in seen:
                seen.add(extra[0])
                todo.append(extra[1])
    return frozenset(out)


class OutOfTime(Exception):
    """Encoding went past the deadline set by `encoding_deadline` (a move whose effects or checks
    unfold into an enormous term: e.g. a game-tree search written as nested definitions)."""


_DEADLINE: list = [None]  # perf_counter time past which `Encoder.expr` raises OutOfTime
_TICKS = 256  # expressions encoded between two looks at the clock


@contextlib.contextmanager
def encoding_deadline(deadline: float | None, what: str):
    """Encoders raise OutOfTime(`what`) past `deadline` while this is open (None: no limit)."""
    saved = _DEADLINE[0]
    _DEADLINE[0] = (deadline, what) if deadline is not None else None
    try:
        yield
    finally:
        _DEADLINE[0] = saved


class Encoder:
    """Expressions of a checked program -> Z3 values, over one state.

    `env` is a `StateVars` (symbolic or concrete) or a mapping from state
    variable and flow-local names to values. Definitions, scores and
    `winners` are inlined (each distinct call is encoded once and reused).
    Partial operations add to `self.obligations`.
    """

    def __init__(self, program: Program, n: int, options: dict | None, env):
        self.p = program
        self.n = n
        self._ticks = 0
        self.env = env.env() if hasattr(env, "env") else dict(env)
        self.pc = getattr(env, "pc", None)  # a state's control location (StateVars), for `at` claims
        self.scopes: list[dict] = [{}]
        self.path: list = []
        self.obligations: list[Obligation] = []
        self._seen: set = set()  # (condition, span, sentence) already in `obligations`
        self._asked: list[list] = []  # open `checked` calls: every obligation asked, repeated or not
        self._consts: dict = {}
        self._fields: dict = {}
        self._vkeys: dict = {}  # id(value) -> (value, key): keys of the values seen, by object
        self._templates_made = 0
        self._flats: dict = {}  # id(value) -> (value, terms, shape, kinds): `_flat_value`, by object
        _, memos, self._reads = _shared(program)
        self._calls: dict = {}  # the memo: this one while the options are worked out, then the shared one
        given = options or {}
        self.options = {name: self._option_value(name, given) for name in program.options}
        setting = (code_version(), n) + tuple((name, self.vkey(v)) for name, v in sorted(self.options.items()))
        self._calls = memos.setdefault(setting, {})

    # ------------------------------------------------------------ frames
    def _option_value(self, name, options):
        """A given option value (the engine's: bool, enum index or int), else the declared default."""
        t = self.p.option_types[name]
        if name in options:
            return boolean(options[name]) if isinstance(t, BoolT) else num(int(options[name]))
        with self._frame({}):  # the declared default
            return self.expr(self.p.options[name].default)

    @contextlib.contextmanager
    def _frame(self, scope: dict):
        """A fresh lexical scope, path and obligation list (a definition's body)."""
        saved = self.scopes, self.path, self.obligations, self._seen, self._asked
        self.scopes, self.path, self.obligations, self._seen, self._asked = [scope], [], [], set(), []
        try:
            yield self.obligations
        finally:
            self.scopes, self.path, self.obligations, self._seen, self._asked = saved

    @contextlib.contextmanager
    def _guard(self, cond):
        self.path.append(cond)
        try:
            yield
        finally:
            self.path.pop()

    @contextlib.contextmanager
    def _bind(self, name: str, value):
        self.scopes.append({name: value})
        try:
            yield
        finally:
            self.scopes.pop()

    def require(self, cond, node, sentence: str, kind: str = "error") -> None:
        """Record that `cond` must hold wherever the current path leads to `node` (unless the
        path itself says so: `cond` is one of its conjuncts)."""
        if is_true(cond):
            return
        guard = and_all(self.path)
        if is_false(guard):
            return
        if not is_true(guard) and self._granted(cond, self._facts(guard)):
            return
        self._add(Obligation(implies(guard, cond), node.span, sentence, kind))

    def _add(self, o: Obligation) -> None:
        for asked in self._asked:
            asked.append(o)
        key = (_ast_id(_CR, o.cond.as_ast()), o.span, o.sentence)
        if key not in self._seen:  # a definition used twice the same way asks the same thing once
            self._seen.add(key)
            self.obligations.append(o)

    def _replay(self, obligations: list[Obligation]) -> None:
        """Obligations of an inlined body, under the caller's path (those the path grants dropped)."""
        if not obligations:
            return
        guard = and_all(self.path)
        if is_false(guard):
            return
        if is_true(guard):
            for o in obligations:
                self._add(o)
            return
        facts, unless = self._facts(guard), not_(guard)
        for o in obligations:
            # replaying is work too: a game-tree search nested four deep replayed its leaves'
            # obligations under every path for an hour (16 GB) without encoding an expression
            self._tick()
            if not self._granted(o.cond, facts):
                self._add(Obligation(or_(unless, o.cond), o.span, o.sentence, o.kind))

    # ------------------------------------------------------------ what a path grants
    def _shape(self, a) -> tuple:
        """`shape` of a raw AST, remembered (with a reference that keeps the term, and so its id
        and arguments, alive)."""
        key = ("shape!", _ast_id(_CR, a))
        hit = self._calls.get(key)
        if hit is None:
            hit = self._calls[key] = shape(a) + (z3.BoolRef(a, CTX),)
        return hit

    def _facts(self, guard) -> frozenset:
        """The conjuncts of a path's guard (nested `And`s flattened), as `shape` atom keys."""
        key = ("facts!", _ast_id(_CR, guard.as_ast()))
        hit = self._calls.get(key)
        if hit is None:
            facts, todo = set(), [guard.as_ast()]
            while todo:
                a = todo.pop()
                kind, parts, _ = self._shape(a)
                if kind == "and":
                    todo.extend(parts)
                else:
                    facts.add(parts if kind == "atom" else ("id", _ast_id(_CR, a)))
            hit = self._calls[key] = (guard, frozenset(facts))  # the guard keeps its terms alive
        return hit[1]

    def _granted(self, cond, facts: frozenset) -> bool:
        """Does a path with these conjuncts imply cond? Syntactically: cond is among them, or it
        is an `And` of conditions granted, or an `Or` (an obligation replayed under a path is
        `Or(Not(path), cond)`) with a disjunct granted."""
        key = ("granted!", _ast_id(_CR, cond.as_ast()), id(facts))
        hit = self._calls.get(key)
        if hit is None:
            hit = self._calls[key] = (self._grants(cond.as_ast(), facts, 12, {}), cond, facts)
        return hit[0]

    def _grants(self, a, facts: frozenset, depth: int, seen: dict) -> bool:
        # `seen`: (term id, depth) -> answer, for this one question: sub-terms are shared, and a
        # walk that met them afresh at every path was exponential (a game-tree search written as
        # nested definitions: minutes, past any budget)
        k = (_ast_id(_CR, a), depth)
        known = seen.get(k)
        if known is not None:
            return known
        self._tick()
        kind, parts, _ = self._shape(a)
        if kind == "atom":
            r = parts in facts
        elif kind == "or" and ("id", _ast_id(_CR, a)) in facts:
            r = True
        elif depth == 0:  # (a bound on the walk's depth)
            r = False
        elif kind == "and":
            r = all(self._grants(x, facts, depth - 1, seen) for x in parts)
        else:
            r = any(self._grants(x, facts, depth - 1, seen) for x in parts)
        seen[k] = r
        return r

    def _keep(self, obligations: list[Obligation]) -> None:
        for o in obligations:
            self._add(o)

    @contextlib.contextmanager
    def asking(self):
        """Collects every obligation asked inside the block (also ones asked before)."""
        asked: list[Obligation] = []
        self._asked.append(asked)
        try:
            yield asked
        finally:
            self._asked.pop()

    def checked(self, e):
        """(value of e, the obligations its evaluation needs)."""
        with self.asking() as asked:
            v = self.expr(e)
        return v, asked

    def checked_call(self, name: str, args: list):
        """(value of definition `name` at argument values, the obligations it needs)."""
        with self.asking() as asked:
            v = self.call(name, args)
        return v, asked

    # ------------------------------------------------------------ memo (see `names_read`)
    def vkey(self, v):
        """A hashable identity of a value (Z3 terms are hash-consed: equal terms, equal ids),
        remembered per value object (a state array is keyed once, not at every call)."""
        if not isinstance(v, tuple):
            return _ast_id(_CR, v.as_ast())
        hit = self._vkeys.get(id(v))
        if hit is None:
            if isinstance(v, SeqVal):
                k = ("q", self.vkey(v.length), tuple(self.vkey(x) for x in v.items))
            elif isinstance(v, SetVal):
                k = ("s",) + tuple(_ast_id(_CR, x.as_ast()) for x in v)
            else:
                k = ("a",) + tuple(self.vkey(x) for x in v)
            hit = self._vkeys[id(v)] = (v, k)
        return hit[1]

    def reads(self, node) -> frozenset:
        hit = self._reads.get(id(node))
        if hit is None:
            hit = self._reads[id(node)] = (names_read(self.p, node), node)  # the node keeps its id
        return hit[0]

    def _state_key(self, names) -> tuple:
        """The values of the state names (`env`) among `names`, as a key; and the values."""
        env = self.env
        values = tuple(env[x] for x in sorted(names) if x in env)
        return tuple(self.vkey(v) for v in values), values

    def _memo(self, key, scope: dict, encode, alive):
        """encode() in a fresh frame binding `scope`, remembered under `key` (which must name
        everything encode() reads); its obligations replayed under the current path."""
        hit = self._calls.get(key)
        if hit is None:
            with self._frame(scope) as obligations:
                value = encode()
            if len(self._calls) >= MEMO_LIMIT:
                self._calls.clear()
            hit = self._calls[key] = (value, obligations, alive)  # `alive` keeps the key's terms alive
        self._replay(hit[1])
        return hit[0]

    # ------------------------------------------------------------ dispatch
    def T(self, e) -> Type:
        return self.p.type_of(e)

    def _tick(self) -> None:
        """Count a unit of encoding work; every `_TICKS`, past the deadline, raise OutOfTime."""
        self._ticks += 1
        if self._ticks % _TICKS == 0 and _DEADLINE[0] is not None and time.perf_counter() > _DEADLINE[0][0]:
            raise OutOfTime(_DEADLINE[0][1])

    def expr(self, e):
        self._tick()
        if isinstance(self.p.types.get(id(e)), StrT):
            raise NotEncoded(f"{e.span}: text is display only; it has no Z3 value")
        method = getattr(self, "e_" + type(e).__name__, None)
        if method is None:
            raise NotImplementedError(f"Z3 encoding has no rule for expression {type(e).__name__}")
        if isinstance(self.p.types.get(id(e)), RatT):  # a fraction is a Real, even when it is whole
            return real(method(e))
        return method(e)

    def e_IntLit(self, e):
        return num(e.value)

    def e_BoolLit(self, e):
        return boolean(e.value)

    def e_StrLit(self, e):
        raise NotEncoded(f"{e.span}: text is display only; it has no Z3 value")

    def e_KeywordArg(self, e):
        raise NotImplementedError("name=value arguments occur only in catalogue items, which are encoded as tables")

    def e_Name(self, e):
        name = e.name
        for sc in reversed(self.scopes):
            if name in sc:
                return sc[name]
        if name == "num_players":
            return num(self.n)
        if name == "players":
            return SeqVal(num(self.n), tuple(num(i) for i in range(self.n)))
        if name == "winners":
            return self.winners()
        if name in self.env:
            return self.env[name]
        if name in self.p.type_names:  # a type's name: all its values in order
            return self.domain_seq(self.T(e).elem)
        sym = self.p.symbols.get(name)
        kind = sym.kind if sym is not None else None
        if kind == "option":
            return self.options[name]
        if kind == "const":
            return self.const(name)
        if kind == "enum_item":
            return num(sym.type.items.index(name))
        if kind in ("var", "local"):
            raise KeyError(f"the encoding's environment has no value for {name!r}")
        raise KeyError(f"Z3 encoding: cannot resolve {name!r} ({kind})")

    def domain_seq(self, t: Type) -> SeqVal:
        size = dom_size(t, self.n)
        return SeqVal(num(size), tuple(dom_value(t, i) for i in range(size)))

    def const(self, name: str):
        if name not in self._consts:
            d = self.p.consts[name]
            with self._frame({}) as obligations:
                value = self.expr(d.value)
                self.require_fits(value, self.T(d.value), self.p.symbols[name].type, d,
                                  f"constant {name} is a value of its type")
            self._consts[name] = value
            self._keep(obligations)  # constants are computed unconditionally
        return self._consts[name]

    def e_Index(self, e):
        bt = self.T(e.base)
        base, idx = self.expr(e.base), self.expr(e.index)
        if isinstance(bt, ArrayT):
            pos = dom_pos(bt.index, idx)
            if not self.fits(self.T(e.index), bt.index):
                self.require(self._within(pos, len(base)), e, f"the index is a value of {bt.index}", "range")
            return select(base, pos, default_value(bt.elem, self.n))
        self.require(self._within(idx, base.length), e, "the position is inside the sequence")
        return select(base.items, idx, default_value(bt.elem, self.n))

    def fits(self, vt: Type | None, target: Type) -> bool:
        """Does every value of static type vt fit in target? (The type checker's intervals are
        sound as long as every value is within its type, which the state's range constraints
        and the "range" obligations ensure; an obligation they already guarantee is not recorded.)"""
        if vt is None:
            return False
        if vt == target or isinstance(vt, EmptyT):
            return True
        if is_int_like(vt) and is_int_like(target):
            (a, b), (c, d) = int_range(vt, self.n), int_range(target, self.n)
            return c <= a and b <= d
        if isinstance(target, RatT) and is_number(vt):
            a, b = num_bounds(vt, self.n)
            return target.lo <= a and b <= target.hi
        if isinstance(vt, SetT) and isinstance(target, SetT):
            return dom_lo(vt.elem) == dom_lo(target.elem) and self.fits(vt.elem, target.elem)
        if isinstance(vt, SeqT) and isinstance(target, SeqT):
            return vt.cap <= target.cap and self.fits(vt.elem, target.elem)
        if isinstance(vt, ArrayT) and isinstance(target, ArrayT):
            return dom_size(vt.index, self.n) == dom_size(target.index, self.n) and self.fits(vt.elem, target.elem)
        return False

    def require_fits(self, value, vt: Type | None, target: Type, node, sentence: str) -> None:
        """A "range" obligation that value (of static type vt) is a value of target."""
        if not self.fits(vt, target):
            self.require(and_all(range_constraints(value, target, self.n)), node, sentence, "range")

    @staticmethod
    def _within(pos, size) -> z3.BoolRef:
        size = num(size) if isinstance(size, int) else size
        return and_(lift(operator.le, num(0), pos), lift(operator.lt, pos, size))

    def e_FieldAccess(self, e):
        if isinstance(e.base, N.Name) and e.base.name in self.p.enums:  # Kind.item (as the checker reads it)
            return num(self.p.enums[e.base.name].items.index(e.name))
        bt = self.T(e.base)
        if not isinstance(bt, CatalogueT):
            raise NotImplementedError(f"field access on {bt}")
        item = self.expr(e.base)  # typed as an item of the catalogue: one of its indices
        table = self.field_table(bt.name, e.name)
        return select(table, item, None if table else default_value(bt.record.field(e.name), self.n))

    def field_table(self, catalogue: str, field: str) -> tuple:
        """A field's value for every item of a catalogue (the engine's K_ table)."""
        key = (catalogue, field)
        if key not in self._fields:
            t, decl = self.p.catalogues[catalogue]
            if isinstance(t.record.field(field), StrT):
                raise NotEncoded(f"{catalogue}.{field} is text")
            values = []
            with self._frame({}) as obligations:
                for item in decl.items:
                    arg = next(a for a in item.args if a.name == field)
                    values.append(self.expr(arg.value))
            self._keep(obligations)
            self._fields[key] = tuple(values)
        return self._fields[key]

    def e_Unary(self, e):
        return UNARY_OPS[e.op](self.expr(e.operand))

    def e_Binary(self, e):
        op = e.op
        if op in ("and", "or"):
            return self._logic(e)
        left = self.expr(e.left)
        right = self.expr(e.right)
        if op in ("in", "notin"):
            inside = self.member(left, self.T(e.left), right, self.T(e.right), e)
            return inside if op == "in" else not_(inside)
        left, right = same_sort(left, right)
        if op in EQ_OPS:
            return EQ_OPS[op](left, right)
        if op in CMP_OPS:
            return lift(CMP_OPS[op], left, right)
        if isinstance(left, SetVal):
            return SET_OPS[op](left, right)
        if op == "/":  # exact division: Reals (the engine's Fraction)
            left, right = real(left), real(right)
            self.require(not_(eq_leaf(right, real(num(0)))), e, "the divisor is not zero")
            return lift(operator.truediv, left, right)
        if op in ("//", "%"):
            self.require(not_(eq_leaf(right, num(0))), e, "the divisor is not zero")
        return lift(INT_OPS[op], left, right)

    def _logic(self, e):
        """`and`/`or` short-circuit: the right side is evaluated only when it decides."""
        left = self.expr(e.left)
        if e.op == "and":
            if is_false(left):
                return FALSE
            with self._guard(left):
                return and_(left, self.expr(e.right))
        if is_true(left):
            return TRUE
        with self._guard(not_(left)):
            return or_(left, self.expr(e.right))

    def member(self, x, xt: Type, coll, ct: Type, node) -> z3.BoolRef:
        """`x in coll` for a set (bit test), a sequence (its first `length` items) or an array."""
        if isinstance(coll, SetVal):
            pos = dom_pos(ct.elem, x)
            # the engine shifts by the position: a value below the domain raises there
            if is_int_like(xt) and int_range(xt, self.n)[0] < dom_lo(ct.elem):
                self.require(lift(operator.le, num(0), pos), node, "the item is not below the set's domain",
                             "range")
            if is_num(pos):
                i = pos.as_long()
                return coll[i] if 0 <= i < len(coll) else FALSE
            return or_all(and_(eq_leaf(pos, num(i)), bit) for i, bit in enumerate(coll) if not is_false(bit))
        if isinstance(coll, SeqVal):
            return or_all(and_(lift(operator.lt, num(i), coll.length), eq_val(item, x))
                          for i, item in enumerate(coll.items))
        return or_all(eq_val(item, x) for item in coll)

    def e_RangeExpr(self, e):
        lo, hi = self.expr(e.lo), self.expr(e.hi)
        t = self.T(e)
        if is_lit(lo) and is_lit(hi):
            a, b = lo.as_long(), hi.as_long()
            return SeqVal(num(max(0, b - a + 1)), tuple(num(v) for v in range(a, b + 1)))
        count = lift(lambda a, b: z3.If(b - a + 1 > 0, b - a + 1, 0), lo, hi)  # at most t.cap, by the bounds
        return SeqVal(count, tuple(lift(operator.add, lo, num(i)) for i in range(t.cap)))

    def e_IfExpr(self, e):
        c = self.expr(e.cond)
        if is_true(c):
            return self.expr(e.then)
        if is_false(c):
            return self.expr(e.orelse)
        with self._guard(c):
            a = self.expr(e.then)
        with self._guard(not_(c)):
            b = self.expr(e.orelse)
        return ite_val(c, *same_sort(a, b))

    def e_SeqLit(self, e):
        t = self.T(e)
        items = [self.expr(i) for i in e.items]
        if isinstance(t, (SeqT, ArrayT)):  # an item need not fit the element type it was typed against
            for item, value in zip(e.items, items):
                self.require_fits(value, self.T(item), t.elem, item, f"the item is a value of {t.elem}")
        if isinstance(t, ArrayT):  # one item per index
            size = dom_size(t.index, self.n)
            if len(items) != size:
                self.require(FALSE, e, f"the list has one item per value of {t.index} ({size})", "range")
                items = (items + [default_value(t.elem, self.n)] * size)[:size]
            return tuple(items)
        cap = t.cap if isinstance(t, SeqT) else len(items)
        if len(items) < cap and isinstance(t, SeqT):
            items += [default_value(t.elem, self.n) for _ in range(cap - len(items))]
        return SeqVal(num(len(e.items)), tuple(items))

    def e_SetLit(self, e):
        t = self.T(e)
        if not isinstance(t, SetT):  # `{}` with no context: the empty set of anything
            return SetVal(())
        return self.make_set(t.elem, [(TRUE, self.expr(i)) for i in e.items], e, [self.T(i) for i in e.items])

    def make_set(self, elem: Type, members: list, node, types: list) -> SetVal:
        """The set of the values x for which g holds, over (g, x) pairs of static types `types`
        (collect, set literals)."""
        size = dom_size(elem, self.n)
        bits = [[] for _ in range(size)]
        lo, hi = 0, size - 1
        for (g, x), xt in zip(members, types):
            pos = dom_pos(elem, x)
            if not self.fits(xt, elem):
                with self._guard(g):
                    self.require(self._within(pos, size), node, f"the item is a value of {elem}", "range")
            if is_num(pos):
                i = pos.as_long()
                if lo <= i <= hi:
                    bits[i].append(g)
                continue
            for i in range(size):
                bits[i].append(and_(g, eq_leaf(pos, num(i))))
        return SetVal(or_all(b) for b in bits)

    # ------------------------------------------------------------ aggregates
    def e_Aggregate(self, e):
        method = getattr(self, "a_" + e.kind, None)
        if method is None:
            raise NotImplementedError(f"Z3 encoding has no rule for aggregate {e.kind}")
        names = self.reads(e)
        scope = {}
        for x in names:  # the names bound around the aggregate that it reads
            for sc in reversed(self.scopes):
                if x in sc:
                    scope[x] = sc[x]
                    break
        bound = tuple(sorted(scope.items()))
        state_key, state_values = self._state_key(n for n in names if n not in scope)
        key = ("agg", id(e), tuple((x, self.vkey(v)) for x, v in bound), state_key)
        return self._memo(key, scope, lambda: method(e), (bound, state_values, e))

    def members(self, source) -> list:
        """(membership guard, item) for every item a collection may hold, in iteration order."""
        t = self.T(source)
        v = self.expr(source)
        if isinstance(v, SetVal):
            return [(bit, dom_value(t.elem, i)) for i, bit in enumerate(v) if not is_false(bit)]
        if isinstance(v, SeqVal):
            out = []
            for i, item in enumerate(v.items):
                g = lift(operator.lt, num(i), v.length)
                if not is_false(g):
                    out.append((g, item))
            return out
        return [(TRUE, item) for item in v]

    def rows(self, e, stop: str | None = None) -> list:
        """(guard, body value, item) per item: guard = membership and `where`. With `stop`
        ("all"/"any"), an item is evaluated only if the ones before did not decide."""
        out = []
        decided = FALSE
        for member, item in self.members(e.source):
            with self._bind(e.var, item), self._guard(not_(decided)), self._guard(member):
                g = member
                if e.where is not None:
                    g = and_(member, self.expr(e.where))
                if is_false(g):
                    continue
                with self._guard(g):
                    body = self.expr(e.body) if e.body is not None else item
            out.append((g, body, item))
            if stop == "all":
                decided = or_(decided, and_(g, not_(body)))
            elif stop == "any":
                decided = or_(decided, and_(g, body))
            if is_true(decided):
                break
        return out

    def a_sum(self, e):
        if isinstance(self.T(e), RatT):
            zero = real(num(0))
            return total([ite(g, real(b), zero) for g, b, _ in self.rows(e)])
        return total([ite(g, b, num(0)) for g, b, _ in self.rows(e)])

    def a_count(self, e):
        return total([bool_int(g) for g, _, _ in self.rows(e)])

    def a_all(self, e):
        return and_all(implies(g, b) for g, b, _ in self.rows(e, "all"))

    def a_any(self, e):
        return or_all(and_(g, b) for g, b, _ in self.rows(e, "any"))

    def _best(self, e, rows, better) -> tuple:
        """The first row whose key no later row beats (the engine's first-on-ties scan)."""
        self.require(or_all(g for g, _, _ in rows), e, f"{e.kind} has at least one item to choose from")
        if not rows:
            return None, None
        found, key, item = FALSE, None, None
        for g, k, x in rows:
            take = g if key is None else and_(g, or_(not_(found), better(k, key)))
            key = k if key is None else ite_val(take, k, key)
            item = x if item is None else ite_val(take, x, item)
            found = or_(found, g)
        return key, item

    def a_min(self, e):
        key, _ = self._best(e, self.rows(e), lex_lt)
        return key if key is not None else default_value(self.T(e), self.n)

    def a_max(self, e):
        key, _ = self._best(e, self.rows(e), lambda a, b: lex_lt(b, a))
        return key if key is not None else default_value(self.T(e), self.n)

    def a_argmin(self, e):
        _, item = self._best(e, self.rows(e), lex_lt)
        return item if item is not None else default_value(self.T(e), self.n)

    def a_argmax(self, e):
        _, item = self._best(e, self.rows(e), lambda a, b: lex_lt(b, a))
        return item if item is not None else default_value(self.T(e), self.n)

    def a_collect(self, e):
        t = self.T(e)
        rows = self.rows(e)
        item_t = self.T(e.body) if e.body is not None else self.T(e.source).elem
        return self.make_set(t.elem, [(g, b) for g, b, _ in rows], e, [item_t] * len(rows))

    def a_table(self, e):
        raise NotEncoded(f"{e.span}: table(...) is display text")

    # ------------------------------------------------------------ calls
    def e_Call(self, e):
        f = e.func
        if f in self.p.grids:
            g = self.p.grids[f]
            r, c = (self.expr(a) for a in e.args)
            rt, ct = (self.T(a) for a in e.args)
            if not (self.fits(rt, IntT(0, g.rows - 1)) and self.fits(ct, IntT(0, g.cols - 1))):
                self.require(and_(self._within(r, g.rows), self._within(c, g.cols)), e,
                             f"the row and column are inside grid {f}", "range")
            return lift(lambda r, c: r * g.cols + c, r, c)
        if f == "score":
            return self.score(self.expr(e.args[0]))
        sym = self.p.symbols.get(f)
        if sym is not None and sym.kind == "def":
            return self.call(f, [self.expr(a) for a in e.args], e, [self.T(a) for a in e.args])
        method = getattr(self, "b_" + f, None)
        if method is None:
            raise NotImplementedError(f"Z3 encoding has no rule for built-in {f}")
        return method(e, [self.expr(a) for a in e.args], [self.T(a) for a in e.args])

    def call(self, name: str, args: list, node=None, arg_types: list | None = None):
        """A definition applied to argument values: its body inlined, encoded once per distinct
        arguments. Arguments must be values of the parameters' types and the result a value of
        the declared type (the engine checks neither; the encoding relies on both)."""
        d = self.p.defs[name]
        result_t = self.p.symbols[name].type
        if isinstance(result_t, StrT):
            raise NotEncoded(f"{name} gives display text")
        if node is not None:
            for prm, a, at in zip(d.params, args, arg_types or [None] * len(args)):
                pt = self.p.symbols_param_type(prm)
                self.require_fits(a, at, pt, node, f"argument {prm.name} of {name} is a value of {pt}")
        # the state it reads (a parameter hides a flow variable of its name)
        names = self.reads(d.body) - {prm.name for prm in d.params}
        state_key, state_values = self._state_key(names)
        key = (name, tuple(self.vkey(a) for a in args), state_key)

        def encode():
            value = self.expr(d.body)
            self.require_fits(value, self.T(d.body), result_t, d,
                              f"the result of {name} is a value of its type {result_t}")
            return value
        if SUBSTITUTED_CALLS and state_values and key not in self._calls:
            return self._by_substitution(key, names, state_values, {prm.name: a for prm, a in zip(d.params, args)},
                                         encode, (args, state_values))
        return self._memo(key, {prm.name: a for prm, a in zip(d.params, args)}, encode, (args, state_values))

    def _flat(self, values: tuple) -> tuple:
        """(terms, shape, whether every term is a free constant, whether one is a literal) of the
        state values a body reads, remembered per value object."""
        terms, shapes, free, direct = [], [], True, False
        for v in values:
            hit = self._flats.get(id(v))
            if hit is None:
                leaves: list = []
                shp = _flat_value(v, leaves)
                kinds = {_leaf_kind(t) for t in leaves}
                hit = self._flats[id(v)] = (v, leaves, shp, kinds)
            terms += hit[1]
            shapes.append(hit[2])
            free = free and hit[3] <= {1}
            direct = direct or 2 in hit[3]
        return terms, tuple(shapes), free, direct

    def _by_substitution(self, key, names: list, state_values: tuple, scope: dict, encode, alive):
        """A definition call missing from the memo (`key`: name, arguments, state): instantiated
        by substitution from its encoding over free values of this state's shape (the template).
        The template is the call's first encoding where that state's values were distinct free
        constants; else it is made over fresh constants when the call meets its second state,
        or its first if the definition's last encoding took TEMPLATE_AFTER units of work or more (a
        cheap call met once costs what it did). A state with a literal among its values is
        encoded directly. See SUBSTITUTED_CALLS."""
        terms, shp, free, direct = self._flat(state_values)
        if direct:
            return self._memo(key, scope, encode, alive)
        tkey = ("template", key[0], key[1], shp)
        template = self._calls.get(tkey)
        if template is None:
            costly = self._calls.get(("cost", key[0]), 0) >= TEMPLATE_AFTER
            if free:  # not where an argument holds one of the constants the template replaces
                arg_terms: list = []
                for a in scope.values():
                    _flat_value(a, arg_terms)
                free = not _mentions(arg_terms, {_ast_id(_CR, t.as_ast()) for t in terms})
            if free or not (costly or (tkey + ("seen",)) in self._calls):
                start = self._ticks
                value = self._memo(key, scope, encode, alive)
                self._calls[("cost", key[0])] = self._ticks - start
                # a free state's encoding is the template (its terms must also be distinct: looked
                # at once it is used); another's is remembered as seen
                self._calls[tkey if free else tkey + ("seen",)] = [self._calls[key], terms, None] if free else True
                return value
            template = self._calls[tkey] = [self._template(key, names, shp, terms, scope, encode, alive),
                                            None, True]
            template[1] = template[0][3]
        if template[2] is None:
            template[2] = len({_ast_id(_CR, t.as_ast()) for t in template[1]}) == len(template[1])
        if not template[2]:  # one term standing for two values: no template
            return self._memo(key, scope, encode, alive)
        (value, obligations, *_), leaves, _ = template
        pairs = [(a, b) for a, b in zip(leaves, terms) if not _same(_CR, a.as_ast(), b.as_ast())]
        value = substitute_value(value, pairs)
        obligations = [Obligation(z3.substitute(o.cond, *pairs), o.span, o.sentence, o.kind) if pairs else o
                       for o in obligations]
        if len(self._calls) >= MEMO_LIMIT:
            self._calls.clear()
        self._calls[key] = (value, obligations, (alive, template))
        self._replay(obligations)
        return value

    def _template(self, key, names: list, shapes: tuple, terms: list, scope: dict, encode, alive) -> tuple:
        """(value, obligations, alive, leaves): the call encoded over fresh constants (`leaves`,
        one per term of the state it reads, `terms`, in that order; `shapes`: its values')."""
        names = [x for x in sorted(names) if x in self.env]
        # names of this template's own: in a template made while another is (a call inside a
        # call), the arguments may hold the outer one's constants, which must stay as they are
        self._templates_made += 1
        leaves = [z3.Const(f"~{self._templates_made}.{i}", t.sort()) for i, t in enumerate(terms)]
        it = iter(leaves)
        frees = {x: _unflat(shp, it) for x, shp in zip(names, shapes)}  # (the order `_state_key` reads)
        saved = self.env
        self.env = {**saved, **frees}
        try:
            fkey = key[:2] + (self._state_key(names)[0],)
            with self._frame({}):  # (its obligations, over the free values, replayed nowhere)
                self._memo(fkey, scope, encode, (alive, frees))
        finally:
            self.env = saved
        value, obligations, kept = self._calls[fkey]
        return value, obligations, kept, leaves

    def _clause(self, key, var: str, body, args=(), node=None):
        """An outcome clause (`node`: its expression, None: the whole outcome) at `args`."""
        state_key, state_values = self._state_key(self.reads(node if node is not None else self.p.outcome))
        return self._memo(key + (state_key,), {var: args[0]} if args else {}, body, (args, state_values))

    def score(self, p):
        o = self.p.outcome
        return self._clause(("score!", self.vkey(p)), o.score.var, lambda: self.expr(o.score.expr), (p,), o.score.expr)

    def tiebreak(self, i: int, p):
        tb = self.p.outcome.tiebreaks[i]
        return self._clause(("tiebreak!", i, self.vkey(p)), tb.var, lambda: self.expr(tb.expr), (p,), tb.expr)

    def winners(self) -> SetVal:
        """The engine's `_winners`: outright winners if any, else every player with the best
        (score, tiebreaks...) key (lexicographic; a `lower` tiebreak counts negated)."""
        return self._clause(("winners!",), "", self._winners)

    def _winners(self) -> SetVal:
        o, n = self.p.outcome, self.n
        keys = []
        for p in range(n):
            parts = [self.score(num(p))]
            for i, tb in enumerate(o.tiebreaks):
                v = self.tiebreak(i, num(p))
                parts.append(v if tb.direction == "higher" else lift(operator.neg, v))
            keys.append(SeqVal(num(len(parts)), tuple(parts)))
        best = SetVal(not_(or_all(lex_lt(keys[p], keys[q]) for q in range(n))) for p in range(n))
        if o.wins is None:
            return best
        outright = []
        for p in range(n):
            with self._bind(o.wins.var, num(p)):
                outright.append(self.expr(o.wins.cond))
        some = or_all(outright)
        return SetVal(ite(some, outright[p], best[p]) for p in range(n))

    def returns(self, p):
        o = self.p.outcome
        if o.returns is None:
            return self.score(p)
        return self._clause(("returns!", self.vkey(p)), o.returns.var, lambda: self.expr(o.returns.expr), (p,),
                            o.returns.expr)

    def invariant(self, inv: N.InvariantDecl):
        points = self.p.invariant_points.get(inv.name)
        if not points:
            return self.expr(inv.cond)
        if self.pc is None:
            raise ValueError(f"invariant {inv.name!r} is claimed at decision points: its encoding needs a state's pc")
        # claimed only where the game waits at these points; elsewhere its flow variables may be stale.
        # The guard goes onto each conjunct, so a claim over all seats keeps its instances apart.
        here = or_all(eq_leaf(self.pc, num(d)) for d in points)
        return and_all(implies(here, t) for t in flatten_and(self.expr(inv.cond)))

    # ------------------------------------------------------------ built-ins (builtins.py)
    def b_next_player(self, e, args, types):
        return lift(lambda p: pymod(p + 1, self.n), args[0])

    def b_prev_player(self, e, args, types):
        return lift(lambda p: pymod(p - 1, self.n), args[0])

    def b_seats_from(self, e, args, types):
        p = args[0]
        return SeqVal(num(self.n), tuple(lift(lambda q: pymod(q + i, self.n), p) for i in range(self.n)))

    def b_row(self, e, args, types):
        return lift(lambda c: floordiv(c, types[0].cols), args[0])

    def b_col(self, e, args, types):
        return lift(lambda c: pymod(c, types[0].cols), args[0])

    def _cell_cases(self, e, c, g: GridT) -> list[int]:
        """The cells a cell value may be: itself if known, else every cell."""
        cells = g.rows * g.cols  # c is typed as a cell of g: one of them
        if is_num(c) and 0 <= c.as_long() < cells:
            return [c.as_long()]
        return list(range(cells))

    def b_neighbours(self, e, args, types):
        g, c = types[0], args[0]
        cells = g.rows * g.cols
        bits = [[] for _ in range(cells)]
        for v in self._cell_cases(e, c, g):
            at = eq_leaf(c, num(v))
            for w in grid_neighbours(v, g.rows, g.cols):
                bits[w].append(at)
        return SetVal(or_all(b) for b in bits)

    def b_runs(self, e, args, types):
        return self._runs(e, args, types, grid_runs)

    def b_diagonal_runs(self, e, args, types):
        return self._runs(e, args, types, grid_diagonal_runs)

    def _runs(self, e, args, types, runs_of):
        g, (c, k) = types[0], args
        longest = max(g.rows, g.cols)

        def as_seq(runs) -> SeqVal:
            inner = [SeqVal(num(len(r)), tuple(num(x) for x in r) + (num(0),) * (longest - len(r))) for r in runs]
            inner += [SeqVal(num(0), (num(0),) * longest)] * (2 * longest - len(inner))
            return SeqVal(num(len(runs)), tuple(inner))

        if is_num(k):
            lengths = [k.as_long()]
        else:
            lo, hi = int_range(types[1], self.n) if is_int_like(types[1]) else (1, longest)
            lengths = list(range(max(1, lo), min(longest, hi) + 1))  # other lengths have no runs
        result = as_seq([])
        for v in self._cell_cases(e, c, g):
            for m in lengths:
                result = ite_val(and_(eq_leaf(c, num(v)), eq_leaf(k, num(m))),
                                 as_seq(runs_of(v, m, g.rows, g.cols)), result)
        return result

    def b_size(self, e, args, types):
        v = args[0]
        return set_size(v) if isinstance(v, SetVal) else v.length

    def b_abs(self, e, args, types):
        return lift(lambda a: z3.If(a >= 0, a, -a), args[0])

    def b_least(self, e, args, types):
        return lift(lambda a, b: z3.If(b < a, b, a), *args)

    def b_greatest(self, e, args, types):
        return lift(lambda a, b: z3.If(b > a, b, a), *args)

    def b_first(self, e, args, types):
        q = args[0]
        self.require(lift(operator.lt, num(0), q.length), e, "first() has a non-empty sequence")
        return q.items[0] if q.items else default_value(types[0].elem, self.n)

    def b_last(self, e, args, types):
        q = args[0]
        self.require(lift(operator.lt, num(0), q.length), e, "last() has a non-empty sequence")
        return select(q.items, lift(operator.sub, q.length, num(1)), default_value(types[0].elem, self.n))

    def b_position(self, e, args, types):
        q, x = args
        hits = [and_(lift(operator.lt, num(i), q.length), eq_val(item, x)) for i, item in enumerate(q.items)]
        self.require(or_all(hits), e, "position() finds the item in the sequence")
        result = num(max(len(hits) - 1, 0))
        for i in range(len(hits) - 2, -1, -1):
            result = ite(hits[i], num(i), result)
        return result

    def b_prefix(self, e, args, types):
        q, k = args
        length = lift(lambda k, n: z3.If(k <= 0, 0, z3.If(k < n, k, n)), k, q.length)
        return SeqVal(length, q.items)

    def b_ring_next(self, e, args, types):
        return self._ring(e, args, types, 1)

    def b_ring_prev(self, e, args, types):
        return self._ring(e, args, types, -1)

    def _ring(self, e, args, types, step: int):
        """The engine's ring_next: from x's position, the next open one going round (x itself last)."""
        x, open_set = args
        t = types[1].elem  # the ring is the open set's domain (see builtins._ring)
        self.require_fits(x, types[0], t, e.args[0], f"the position is a value of {t}")
        size, lo = dom_size(t, self.n), dom_lo(t)
        bits = _pad_set(open_set, size)[:size]
        self.require(or_all(bits), e, "some position of the ring is open")
        pos = lift(lambda a: pymod(a - lo, size), x)  # the engine works on x's position modulo the size

        def from_position(i: int):
            r = num(lo + i)  # nothing open: an obligation above, any value here
            for s in range(size, 0, -1):
                j = (i + step * s) % size
                r = ite(bits[j], num(lo + j), r)
            return r

        if is_num(pos):
            return from_position(pos.as_long())
        return select(tuple(from_position(i) for i in range(size)), pos)

    def b_union(self, e, args, types):
        return set_union(*args)

    def b_inter(self, e, args, types):
        return set_inter(*args)

    def b_without(self, e, args, types):
        return set_without(*args)


# ====================================================================== grid geometry
# Written from the language reference, not shared with the engine's helpers,
# so the agreement tests compare two readings of it.

def grid_neighbours(c: int, rows: int, cols: int) -> list[int]:
    r, k = divmod(c, cols)
    out = []
    for dr, dk in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        if 0 <= r + dr < rows and 0 <= k + dk < cols:
            out.append((r + dr) * cols + k + dk)
    return out


def grid_runs(c: int, n: int, rows: int, cols: int) -> list[list[int]]:
    """Every horizontal, then every vertical, run of n cells through c, in reading order."""
    r, k = divmod(c, cols)
    out = [[r * cols + x for x in range(k0, k0 + n)] for k0 in range(max(0, k - n + 1), min(k, cols - n) + 1)]
    out += [[y * cols + k for y in range(r0, r0 + n)] for r0 in range(max(0, r - n + 1), min(r, rows - n) + 1)]
    return out if n >= 1 else []


def grid_diagonal_runs(c: int, n: int, rows: int, cols: int) -> list[list[int]]:
    """Every diagonal run of n cells through c: down-right ones, then down-left ones, from the top end."""
    r, k = divmod(c, cols)
    out = []
    for dk in (1, -1):
        for back in range(n):
            cells = [(r - back + i, k - back * dk + i * dk) for i in range(n)]
            if all(0 <= y < rows and 0 <= x < cols for y, x in cells):
                out.append([y * cols + x for y, x in cells])
    return out


# ====================================================================== solver scopes

@contextlib.contextmanager
def scope(solver: z3.Solver, *assertions):
    """A solver scope: push, assert, yield, and always pop (GUIDE §5.7)."""
    solver.push()
    try:
        for a in assertions:
            solver.add(a)
        yield solver
    finally:
        solver.pop()
