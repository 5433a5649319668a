"""Benchmark: an instance whose sliced query the solver gives up on, asked assuming itself alone.

    .venv/bin/python benchmarks/alone_look.py                        # Ramen Ink, 2 players
    .venv/bin/python benchmarks/alone_look.py --players 3
    .venv/bin/python benchmarks/alone_look.py --spec wasabi --budget=200

In the sliced induction, an instance's query assumes every live instance that reads what the
move writes; where the solver gives up on it, the instance is asked assuming itself alone
(`induction.SELF_LOOK`, `_kept_alone`), and once that settles an instance of a claim, the
claim's others are asked so first. For both settings, in interleaved rounds, each in a fresh
process: the transition system and the interval analysis (not timed), then `Induction.run` on
every invariant of the spec (as `verify` reads them) with a deadline of `--budget` seconds; its
CPU seconds, queries and the claims proved. Prints the ratio on / off (below 1: faster; where
the claims proved differ, the count says more than the ratio); nothing is asserted (the machine
is shared: compare within one run).
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.ab_runs import induction_with, main_or_child, passed_on, proved_table  # noqa: E402

# room for the induction to finish with the look (about 60 s on Ramen Ink at 2 players)
BUDGET = float(passed_on("budget", "ALONE_LOOK_BUDGET", "240"))


def one(spec: str, players: int, on: bool) -> dict:
    """The sliced induction on the spec's invariants, in this process (the child's side)."""
    return induction_with("SELF_LOOK", on, spec, players, BUDGET)


def main() -> None:
    parent = main_or_child(__file__, __doc__.splitlines()[0], one, ["ramen_ink"], 1)
    if parent is None:
        return
    args, runs = parent
    print(f"budget {BUDGET:.0f} s (--budget=S)")
    proved_table(args, runs, "with the others", "alone", "claims", queries=True)


if __name__ == "__main__":
    main()
