"""Candidate lemmas read off the flow's structure: what held on the way into a decision point.

A decision point inside `while C` was reached with C true, inside an `if` branch with its
condition true (and the earlier branches' false), and inside a measured loop (`while C decreases
E`) with the loop's remembered measure `M_k` equal to E, as the loop's check left it. Nothing
between the check and the decision point may have changed what C or E reads — or something may
have: these are guesses, and the induction engine (`engines/induction.py`) keeps only those that
are inductive, i.e. proved. They give what one-step induction on a single claim lacks when a
move is legal only because the loop around it said so (`while can_move(turn) { choose turn
{...} }`: "at the choice, the player to move can move" is the fact behind `no_deadlock`, and
"the remembered measure is the board's count" the fact behind the loop's measure check).

Walk: the flow's statements in order; a move body holds no decision point (moves are atomic).
"""
from __future__ import annotations

from ..ir import nodes as N
from .encode import Encoder, NotEncoded, eq_leaf, implies, is_true, num, z3

__all__ = ["path_conditions", "path_facts"]


def path_conditions(program) -> dict[int, list[tuple]]:
    """decision index -> what held on the way in: ("cond", expr, truth) and ("measure", k, expr)."""
    index = {id(d.node): d.index for d in program.decisions}
    measure_of = {id(w): k for k, w in enumerate(program.measures)}
    out: dict[int, list[tuple]] = {}

    def walk(node, held: list) -> None:
        if id(node) in index:
            out[index[id(node)]] = list(held)
            return
        if isinstance(node, N.While):
            inner = held + [("cond", node.cond, True)]
            if node.decreases is not None and id(node) in measure_of:
                inner.append(("measure", measure_of[id(node)], node.decreases))
            walk(node.body, inner)
        elif isinstance(node, N.If):
            earlier: list = []  # the earlier branches did not hold
            for cond, block in node.branches:
                walk(block, held + earlier + [("cond", cond, True)])
                earlier.append(("cond", cond, False))
            if node.orelse is not None:
                walk(node.orelse, held + earlier)
        elif isinstance(node, N.Block):
            for stmt in node.stmts:
                walk(stmt, held)
        elif isinstance(node, N.For):
            walk(node.body, held)
        # assignments, lets, edits, `say`, `end`: no decision point inside

    if program.flow is not None:
        walk(program.flow.body, [])
    return out


def path_facts(program, n: int, options: dict, state, snaps) -> list:
    """The candidates over the free state (`state`, `snaps`: the relation's step 0): for each
    decision point d and each thing that held on the way in, "pc is d implies it". Conditions the
    encoding cannot read over the state (a name bound only while a move is chosen) or that are
    constant are left out."""
    out, seen = [], set()
    for d, held in sorted(path_conditions(program).items()):
        at_d = eq_leaf(state.pc, num(d))
        for kind, what, expr in held:
            try:
                value = Encoder(program, n, options, state).expr(what if kind == "cond" else expr)
            except (KeyError, NotEncoded, NotImplementedError):
                continue
            if not z3.is_expr(value):
                continue
            if kind == "cond":
                f = value if expr else z3.Not(value)  # ("cond", condition, whether it held)
            else:
                f = eq_leaf(snaps[f"M_{what}"], value)  # ("measure", k, the measure)
            f = z3.simplify(f)
            if is_true(f) or z3.is_false(f):  # a constant condition (e.g. the player count) says nothing
                continue
            formula = implies(at_d, f)
            if formula.get_id() not in seen:
                seen.add(formula.get_id())
                out.append(formula)
    return out
