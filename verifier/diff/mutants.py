"""Mutants of a spec, generated from its IR: plausible rule edits, each one point changed.

Operators (a table: node class -> the mutations of one node):

- a requirement dropped, or its condition negated (`Move`);
- a comparison moved by one (`<` and `<=`, `>` and `>=`), `==` and `!=`, `and` and `or`, `+` and
  `-` swapped (`Binary`); a `not` dropped (`Unary`);
- a number moved by one, up and down (`IntLit`);
- a statement dropped (an assignment, an edit of a collection, an `if` or a `for` without a
  decision inside) (`Block`);
- a variable's declared range widened by one (`VarDecl`);
- two neighbouring catalogue entries swapped (`CatalogueDecl`).

Only what play reads is mutated: definitions, constants, catalogues, variables, the flow and the
outcome — never invariants, examples, expectations, rule texts, `say` statements or move texts
(mutating the checks would measure nothing). A mutant is the whole spec printed back to text
with the one change; one that does not type-check is dropped by the runner.
"""
from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass

from ..ir import nodes as N

SWAP = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "==", "and": "or", "or": "and",
        "+": "-", "-": "+"}
OPERATOR = {"<": "comparison", "<=": "comparison", ">": "comparison", ">=": "comparison", "==": "comparison",
            "!=": "comparison", "and": "logic", "or": "logic", "+": "arithmetic", "-": "arithmetic"}
MUTATED_DECLS = (N.DefDecl, N.ConstDecl, N.CatalogueDecl, N.VarDecl, N.FlowDecl, N.OutcomeDecl)
SKIPPED = (N.Say, N.StrLit)  # wording: a mutant there plays as the original
DROPPABLE = (N.Assign, N.CollectionEdit, N.If, N.For)


@dataclass(frozen=True)
class Mutant:
    id: int
    operator: str  # drop_require, negate_require, comparison, logic, arithmetic, drop_not, number, drop_statement,
    #                widen_range, swap_entries
    description: str
    span: object  # where in the original spec
    rules: tuple  # rule IDs cited by the mutated clause (or its move or declaration)
    spec: N.Spec


def _has_decision(node) -> bool:
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, (N.Choose, N.Simultaneous, N.Chance, N.End)):
            return True
        stack.extend(n.children())
    return False


# ------------------------------------------------------------------ one node's mutations

def m_Binary(n: N.Binary):
    if n.op in SWAP:
        yield dataclasses.replace(n, op=SWAP[n.op]), OPERATOR[n.op], f"`{n.op}` -> `{SWAP[n.op]}`"


def m_Unary(n: N.Unary):
    if n.op == "not":
        yield n.operand, "drop_not", "a `not` dropped"


def m_IntLit(n: N.IntLit):
    yield dataclasses.replace(n, value=n.value + 1), "number", f"{n.value} -> {n.value + 1}"
    if n.value > 0:
        yield dataclasses.replace(n, value=n.value - 1), "number", f"{n.value} -> {n.value - 1}"


def m_Move(n: N.Move):
    for i, r in enumerate(n.requires):
        rest = n.requires[:i] + n.requires[i + 1:]
        yield (dataclasses.replace(n, requires=rest), "drop_require",
               f"requirement {r.label} of move {n.name} dropped", r)
        negated = dataclasses.replace(r, cond=N.Unary("not", r.cond, span=r.cond.span))
        yield (dataclasses.replace(n, requires=n.requires[:i] + (negated,) + n.requires[i + 1:]), "negate_require",
               f"requirement {r.label} of move {n.name} negated", r)


def m_Block(n: N.Block):
    for i, st in enumerate(n.stmts):
        if isinstance(st, DROPPABLE) and not _has_decision(st):
            yield (dataclasses.replace(n, stmts=n.stmts[:i] + n.stmts[i + 1:]), "drop_statement",
                   f"a statement dropped ({type(st).__name__.lower()})", st)


def m_VarDecl(n: N.VarDecl):
    t = n.type
    while isinstance(t, N.ArrayTypeRef):
        t = t.elem
    if isinstance(t, N.RangeTypeRef) and isinstance(t.hi, int):
        wider = dataclasses.replace(t, hi=t.hi + 1)
        yield (_replace_type(n, t, wider), "widen_range", f"the range of {n.name} widened to {t.lo}..{t.hi + 1}")


def _replace_type(n: N.VarDecl, old, new):
    def swap(t):
        if t is old:
            return new
        if isinstance(t, N.ArrayTypeRef):
            return dataclasses.replace(t, elem=swap(t.elem))
        return t
    return dataclasses.replace(n, type=swap(n.type))


def m_CatalogueDecl(n: N.CatalogueDecl):
    for i in range(len(n.items) - 1):
        a, b = n.items[i], n.items[i + 1]
        if a != b:
            items = n.items[:i] + (b, a) + n.items[i + 2:]
            yield (dataclasses.replace(n, items=items), "swap_entries",
                   f"entries {i + 1} and {i + 2} of catalogue {n.name} swapped")


LOCAL = {name[2:]: fn for name, fn in globals().items() if name.startswith("m_")}


# ------------------------------------------------------------------ every mutation of a tree

def mutations(node, cites=()):
    """(new node, operator, description, span, cites) for every point mutation in `node`'s tree."""
    if isinstance(node, SKIPPED):
        return
    cites = tuple(getattr(node, "cites", ()) or ()) or cites
    for out in LOCAL.get(type(node).__name__, lambda n: ())(node):
        new, op, text = out[:3]
        at = out[3] if len(out) > 3 else node
        yield new, op, text, at.span, tuple(getattr(at, "cites", ()) or ()) or cites
    for f in dataclasses.fields(node):
        if f.name == "span" or (isinstance(node, N.Move) and f.name == "text"):
            continue
        value = getattr(node, f.name)
        for new_value, op, text, span, c in _in_value(value, cites):
            yield dataclasses.replace(node, **{f.name: new_value}), op, text, span, c


def _in_value(value, cites):
    if isinstance(value, N.Node):
        yield from mutations(value, cites)
    elif isinstance(value, tuple) and not isinstance(value, str):
        for i, item in enumerate(value):
            for new, *rest in _in_value(item, cites):
                yield (value[:i] + (new,) + value[i + 1:], *rest)


def generate(spec: N.Spec) -> list[Mutant]:
    out = []
    for i, decl in enumerate(spec.decls):
        if not isinstance(decl, MUTATED_DECLS):
            continue
        source = mutations(decl) if not isinstance(decl, N.VarDecl) else \
            ((new, op, text, decl.span, tuple(decl.cites)) for new, op, text in m_VarDecl(decl))
        for new, op, text, span, cites in source:
            decls = spec.decls[:i] + (new,) + spec.decls[i + 1:]
            out.append(Mutant(len(out), op, text, span, tuple(cites), dataclasses.replace(spec, decls=decls)))
    return out


def pick(mutants: list[Mutant], limit: int, seed: int = 0) -> list[Mutant]:
    """At most `limit` mutants, spread over the operators (round robin, shuffled within each)."""
    if len(mutants) <= limit:
        return mutants
    rng = random.Random(seed)
    by_op: dict = {}
    for m in mutants:
        by_op.setdefault(m.operator, []).append(m)
    for group in by_op.values():
        rng.shuffle(group)
    out, groups = [], [by_op[k] for k in sorted(by_op)]
    while len(out) < limit:
        for g in groups:
            if g and len(out) < limit:
                out.append(g.pop())
    return sorted(out, key=lambda m: m.id)
