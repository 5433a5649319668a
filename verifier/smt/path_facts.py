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
from .encode import Encoder, NotEncoded, StateVars, eq_leaf, implies, is_true, names_read, num, z3
from .relation import Candidate, let_holds, written
from .transition import fresh_snapshots

__all__ = ["path_conditions", "path_facts"]


def path_conditions(program) -> dict[int, list[tuple]]:
    """decision index -> what held on the way in: ("cond", expr, truth), ("measure", k, expr) and
    ("let", the statement, expr)."""
    index = {id(d.node): d.index for d in program.decisions}
    measure_of = {id(w): k for k, w in enumerate(program.measures)}
    out: dict[int, list[tuple]] = {}

    def still(held: list, body) -> list:
        """`held` without the lets whose value reads what `body` may write."""
        w = written(body.stmts if isinstance(body, N.Block) else [body])
        return [h for h in held if h[0] != "let" or not (names_read(program, h[2]) & (w | {h[1].name}))]

    def walk(node, held: list) -> None:
        if id(node) in index:
            out[index[id(node)]] = list(held)
            return
        if isinstance(node, N.While):
            inner = still(held, node.body) + [("cond", node.cond, True)]
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
                # a `let`'s value, while nothing it reads is written: the decision points after
                # it in its block see the name equal to it (`let n = size(drawn.toppings)`, then a
                # move reads `drawn.toppings[i]` for i below n)
                held = still(held, stmt)
                if isinstance(stmt, N.Let) and stmt.name not in names_read(program, stmt.value):
                    held = held + [("let", stmt, stmt.value)]
        elif isinstance(node, N.For):
            walk(node.body, still(held, node.body))
        # assignments, lets, edits, `say`, `end`: no decision point inside

    if program.flow is not None:
        walk(program.flow.body, [])
    return out


def path_facts(program, n: int, options: dict) -> list[Candidate]:
    """The candidates: for each decision point d and each thing that held on the way in, "pc is d
    implies it" (a `Candidate`: a formula over any state, e.g. the initial one, where it must hold
    too before induction may keep it). Conditions the encoding cannot read over a state (a name
    bound only while a move is chosen) or that are constant (the player count) are left out."""
    out = []
    for d, held in sorted(path_conditions(program).items()):
        for kind, what, expr in held:
            cand = _candidate(program, n, options, d, kind, what, expr)
            if cand is not None:
                out.append(cand)
    return out


def _candidate(program, n: int, options: dict, d: int, kind: str, what, expr) -> Candidate | None:
    def fact(state, snaps):
        if kind == "let":  # ("let", the statement, its value)
            return let_holds(program, n, options, what, state)
        value = Encoder(program, n, options, state).expr(what if kind == "cond" else expr)
        if kind == "cond":
            return value if expr else z3.Not(value)  # ("cond", condition, whether it held)
        return eq_leaf(snaps[f"M_{what}"], value)  # ("measure", k, the measure)

    def at(state, snaps):
        return implies(eq_leaf(state.pc, num(d)), fact(state, snaps))

    try:
        probe = z3.simplify(fact(*_free_state(program, n, options)))
    except (KeyError, NotEncoded, NotImplementedError):
        return None
    if is_true(probe) or z3.is_false(probe):
        return None
    line = (what if kind == "cond" else expr).span.line
    text = f"the condition at line {line} {'held' if kind != 'cond' or expr else 'did not hold'}" \
        if kind == "cond" else f"{what.name} is still the value it was bound to (line {line})" if kind == "let" \
        else f"the loop's remembered measure is its measure (line {line})"
    return Candidate(f"path {d} {kind} line {line}" + ("" if kind != "cond" or expr else " (not)"),
                     f"at decision point {d}, {text}", None, at)


def _free_state(program, n: int, options: dict):
    return StateVars(program, n, options, "probe"), fresh_snapshots(program, n, "probe")
