"""Benchmark: the second look at a claim that ran out of time, capped by its first pass or not.

    .venv/bin/python benchmarks/second_look.py                        # Ramen Ink, 2 players
    .venv/bin/python benchmarks/second_look.py --spec wasabi --players 2
    .venv/bin/python benchmarks/second_look.py --budget=120 --runs 2

A claim whose first pass in the sliced induction ran out of its share of the time gets a second
look. With the cap on (`induction.SECOND_LOOK_NO_LONGER`), that look takes at most what the
first pass took; off, a fair share of all that is left. For both settings, in interleaved
rounds, each in a fresh process: the transition system and the interval analysis (not timed),
then `Induction.run` on every invariant of the spec (as `verify` reads them) with a deadline of
`--budget` seconds; its CPU seconds, queries and the claims proved. Prints the ratio on / off
(below 1: the induction leaves more of its time to the engines after it); nothing is asserted
(the machine is shared: compare within one run).
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.ab_runs import induction_with, main_or_child, passed_on, proved_table  # noqa: E402

# about the induction's share of `rulebook verify`'s default budget on a seed game
BUDGET = float(passed_on("budget", "SECOND_LOOK_BUDGET", "110"))


def one(spec: str, players: int, on: bool) -> dict:
    """The sliced induction on the spec's invariants, in this process (the child's side)."""
    return induction_with("SECOND_LOOK_NO_LONGER", on, spec, players, BUDGET)


def main() -> None:
    parent = main_or_child(__file__, __doc__.splitlines()[0], one, ["ramen_ink"], 1)
    if parent is None:
        return
    args, runs = parent
    print(f"budget {BUDGET:.0f} s (--budget=S)")
    proved_table(args, runs, "a fair share", "no longer", "claims", queries=True)


if __name__ == "__main__":
    main()
