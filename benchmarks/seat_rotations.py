"""Benchmark: the claims' induction with and without the seats' rotations.

    .venv/bin/python benchmarks/seat_rotations.py                        # Wasabi!, 2 players
    .venv/bin/python benchmarks/seat_rotations.py --spec ramen_ink --players 3
    .venv/bin/python benchmarks/seat_rotations.py --budget=120 --runs 2

With the rotations on (`induction.SEAT_ROTATIONS`), a query whose image under a rotation of
the seats was answered unsatisfiable is not asked (`verifier/smt/symmetry.py`): where every
seat plays alike, the queries about P2's moves are P1's, read one seat back. For both settings,
in interleaved rounds, each in a fresh process: the transition system and the interval
analysis (not timed), then `Induction.run` on every invariant of the spec (the claims over
many items read over a symbolic item, as `verify` reads them) with a deadline of `--budget`
seconds; its CPU seconds, queries, the claims proved, and how many queries a rotation
answered. Prints the ratio on / off (below 1: faster); nothing is asserted (the machine is
shared: compare within one run).
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.ab_runs import induction_run, main_or_child, over_an_item, passed_on, proved_table  # noqa: E402

BUDGET = float(passed_on("budget", "ROTATIONS_BUDGET", "300"))


def one(spec: str, players: int, on: bool) -> dict:
    """The sliced induction on the spec's invariants, in this process (the child's side)."""
    from verifier.frontend import load_program
    from verifier.smt.engines import induction

    induction.SEAT_ROTATIONS = on
    answered = []
    solve = induction.Induction._rotated_answer

    def counted(self, parts, fixed):
        hit = solve(self, parts, fixed)
        answered.append(hit)
        return hit
    induction.Induction._rotated_answer = counted
    program, _ = load_program(ROOT / "spec" / f"{spec}.rules")
    out = induction_run(program, players, BUDGET, over_an_item(program, players))
    out["rotated"] = sum(answered)
    return out


def main() -> None:
    parent = main_or_child(__file__, __doc__.splitlines()[0], one, ["wasabi"], 1)
    if parent is None:
        return
    args, runs = parent
    print(f"budget {BUDGET:.0f} s (--budget=S)")
    answered: dict = {}

    def remembered(spec: str) -> dict:
        rows = runs(spec)
        answered[spec] = [r["rotated"] for r in rows[True]]
        return rows
    proved_table(args, remembered, "every seat asked", "rotations", "claims", queries=True)
    for spec, hits in answered.items():
        print(f"{spec}: queries a rotation answered, per run: {', '.join(map(str, hits))}")


if __name__ == "__main__":
    main()
