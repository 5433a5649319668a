"""A claim over every item of a collection as one formula over a symbolic item.

`all(c in deck: not (c in table))` is, expanded, one instance per card; the induction asks
each at each move. Read instead with c a fresh constant x of the card's values (its membership
`x in deck` an `if` over the set's bits), the claim is one formula P(x), and "the move keeps
P at every item" is one query: P(x) before, and P at the items the move names (a card it
deals, the card a seat revealed), imply P(x) after (`Parametric.at`, `named_items`).

Why it is sound: where the claim holds at every item, it holds at x and at each named item,
whatever their values; so if those assumptions and the move leave P(x) true for every x, the
move keeps the claim at every item. It never needs the claim's body to be the same at every
item; where it is not, the query is only harder, not wrong. What it gives up is strength: a
move whose effect on an item needs the claim at an item it does not name (an item found by a
search over all of them, `argmin`, is a term too big to be taken as named: `ITEM_NODES`) is not
shown so, and the claim is then asked item by item as before (`engines/induction.py`).

This module owns the reading of an invariant's leading `all`s as fresh constants, the
instantiation of such a formula at other items, and the items a move names.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

from ..ir import nodes as N
from .dag import applications
from .encode import CTX, Encoder, eq_leaf, implies, is_false, is_num, num, or_all, z3

__all__ = ["Parametric", "parametric", "named_items", "SYMBOLIC_OVER"]

# a leading `all` over more values than this is read over a symbolic item; one over fewer (the
# players, a player's ten slots) is expanded, one formula per value, as the instances are. On
# a seed game, the claims over a player's ten slots read over a symbolic slot ran out of their
# share of the time or needed what the instances say of each other, where instance by instance
# they are proved; over 45 cards, instance by instance is too many queries (`notes/issue11.md`,
# twentieth stop)
SYMBOLIC_OVER = 16
# the most nodes a term the move names is taken as an item with (`named_items`)
ITEM_NODES = 64


@dataclass
class Parametric:
    formulas: list  # the claim over the constants `xs`, one per value of the expanded `all`s
    xs: tuple  # one fresh Int constant per symbolic `all`
    domains: tuple  # the literal values each constant stands for (sorted ints)

    def at(self, formula, items: tuple):
        """`formula` (one of `formulas`) at these items (terms) in place of `xs`."""
        return z3.substitute(formula, *zip(self.xs, items))

    def instantiations(self, formula, named: dict) -> list:
        """`formula` at the items the move names in each symbolic `all`'s domain (`named`:
        domain -> terms), each `all` also at its own constant: every combination but the
        constants' own."""
        choices = [[x] + list(named.get(dom, ())) for x, dom in zip(self.xs, self.domains)]
        out = []
        for items in itertools.product(*choices):
            if all(a.eq(x) for a, x in zip(items, self.xs)):
                continue
            f = self.at(formula, items)
            if not z3.is_true(f):
                out.append(f)
        return out


_constants: dict = {}  # (domain, k) -> the k-th constant over that domain (shared by every claim)


def _constant(domain: tuple, k: int):
    key = (domain, k)
    x = _constants.get(key)
    if x is None:
        x = _constants[key] = z3.FreshInt(f"item{domain[0]}_{domain[-1]}_{k}", CTX)
    return x


def parametric(enc: Encoder, inv: N.InvariantDecl) -> Parametric | None:
    """The invariant read with each leading `all` over more than `SYMBOLIC_OVER` integer items
    bound to a fresh constant, and each over fewer expanded (None when no `all` is read over a
    constant, or an item is not an integer literal); an `at` claim under "the game waits at one
    of its points", as `Encoder.invariant` reads it."""
    cond = inv.cond
    binders = []
    while isinstance(cond, N.Aggregate) and cond.kind == "all" and cond.body is not None:
        binders.append(cond)
        cond = cond.body
    formulas: list = []
    symbolic: list = []  # per formula: ((constant, domain), ...)

    def walk(i: int, guards: list, xs: tuple, used: dict) -> bool:
        if i == len(binders):
            formula = enc.expr(cond)
            for g in reversed(guards):
                formula = implies(g, formula)
            formulas.append(formula)
            symbolic.append(xs)
            return True
        b = binders[i]
        members = [(g, item) for g, item in enc.members(b.source) if not is_false(g)]
        if not all(is_num(item) for _, item in members):
            return False
        dom = tuple(sorted({item.as_long() for _, item in members}))
        if len(dom) > SYMBOLIC_OVER:
            k = used.get(dom, 0)
            x = _constant(dom, k)
            inside = or_all(eq_leaf(x, item) if z3.is_true(g) else z3.And(g, eq_leaf(x, item)) for g, item in members)
            values = [(inside, x, xs + ((x, dom),), {**used, dom: k + 1})]
        else:
            values = [(g, item, xs, used) for g, item in members]
        for g, item, xs2, used2 in values:
            enc.scopes.append({b.var: item})
            try:
                guard = g if b.where is None else z3.And(g, enc.expr(b.where))
                if not is_false(guard) and not walk(i + 1, guards + [guard], xs2, used2):
                    return False
            finally:
                enc.scopes.pop()
        return True

    if not binders or not walk(0, [], (), {}):
        return None
    if not symbolic or not symbolic[0] or any(xs != symbolic[0] for xs in symbolic):
        return None  # nothing symbolic, or not the same constants in every formula
    points = enc.p.invariant_points.get(inv.name)
    if points:
        here = or_all(eq_leaf(enc.pc, num(d)) for d in points)
        formulas = [implies(here, f) for f in formulas]
    formulas = [f for f in formulas if not z3.is_true(f)]
    xs, domains = zip(*symbolic[0])
    return Parametric(formulas, tuple(xs), tuple(domains))


def named_items(dag, compared: dict[int, set[int]], domain: tuple, positions: frozenset = frozenset()) -> list:
    """The terms compared with at least half the domain's values in a move's conditions and
    successor values (`compared`: `Dag.comparisons` of them): the items the move names
    (`x == 3` for every card 3 is how a set's bit reads "the card dealt is this one"). Leaves
    and small terms alike, but not the loops' positions (ids in `positions`: a move is split by
    them, not about them)."""
    lo, hi = domain[0], domain[-1]
    out = []
    for i, values in compared.items():
        # compared with at least half the values: a set's bits compare the item with every value;
        # and small: an item a move names is chosen or looked up (a parameter, `revealed[q]`),
        # where a value computed from the items (on a seed game, each seat's place in the order
        # of strength, thousands of nodes) is no item, and the claim at it would be a query the
        # solver gives up on
        inside = sum(1 for v in values if lo <= v <= hi)
        if i in positions or inside < 2 or 2 * inside < len(domain):
            continue
        term = dag.term_of(i)
        if _nodes_within(term, ITEM_NODES):
            out.append(term)
    return out


def _nodes_within(term, cap: int) -> bool:
    for k, _ in enumerate(applications([term])):
        if k >= cap:
            return False
    return True
