"""Benchmark: the claims' induction with loop steps keyed by a C-API walk, or by z3py's objects.

    .venv/bin/python benchmarks/canonical_walk.py                        # Wasabi!, 2 players
    .venv/bin/python benchmarks/canonical_walk.py --spec ramen --players 3 --budget=120

A loop iteration's query is keyed by its parts with their fresh constants renamed in the order
a walk meets them (`induction.canonical_parts`), so that an iteration alike an earlier one is
not asked again. The walk reads every node of the query's terms: through the C API
(`dag.named_constants`, "C API") or, as before, through z3py's objects ("z3py"), which build a
Python object per node visited. For both settings, in interleaved rounds, each in a fresh
process: the transition system and the interval analysis (not timed), then `Induction.run` on
every invariant of the spec (as `verify` reads them) with a deadline of `--budget` seconds; its
CPU seconds, queries and the claims proved. Prints the ratio on / off (below 1: faster); nothing
is asserted (the machine is shared: compare within one run).
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.ab_runs import induction_run, main_or_child, over_an_item, passed_on, proved_table  # noqa: E402

BUDGET = float(passed_on("budget", "CANONICAL_WALK_BUDGET", "240"))


def z3py_named_constants(terms: list, prefixes: tuple) -> list:
    """The walk as it was: depth first, left to right, each node once, through z3py's objects."""
    from verifier.smt.encode import z3

    seen, out, todo = set(), [], list(reversed(terms))
    while todo:
        t = todo.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if z3.is_const(t) and t.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            if t.decl().name().startswith(prefixes):
                out.append(t)
            continue
        todo.extend(reversed(t.children()))
    return out


def one(spec: str, players: int, on: bool) -> dict:
    """The sliced induction on the spec's invariants, in this process (the child's side)."""
    from verifier.frontend import load_program
    from verifier.smt.engines import induction

    if not on:
        induction.named_constants = z3py_named_constants
    program, _ = load_program(ROOT / "spec" / f"{spec}.rules")
    return induction_run(program, players, BUDGET, over_an_item(program, players))


def main() -> None:
    parent = main_or_child(__file__, __doc__.splitlines()[0], one, ["wasabi"], 1)
    if parent is None:
        return
    args, runs = parent
    print(f"budget {BUDGET:.0f} s (--budget=S)")
    proved_table(args, runs, "z3py", "C API", "claims", queries=True)


if __name__ == "__main__":
    main()
