"""Benchmark: a batch glance whose image under a rotation of the seats was given up on, not asked.

    .venv/bin/python benchmarks/rotated_glances.py                        # Ramen Ink, 3 players
    .venv/bin/python benchmarks/rotated_glances.py --players 2
    .venv/bin/python benchmarks/rotated_glances.py --spec wasabi --budget=240

In the sliced induction, a move's changed instances are first asked together, for 1.5 s at most
(`Induction._batch`'s glance); where the solver gives up, they are asked one by one, and those
of P2's move are then answered by P1's (their images under a rotation of the seats). P2's glance
is P1's image too: with `induction.SKIP_ROTATED_GLANCES` it is not asked once P1's was given up
on. For both settings, in interleaved rounds, each in a fresh process: the transition system and
the interval analysis (not timed), then `Induction.run` on every invariant of the spec (as
`verify` reads them) with a deadline of `--budget` seconds; its CPU seconds, queries and the
claims proved. Prints the ratio on / off (below 1: faster); nothing is asserted (the machine is
shared: compare within one run).
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.ab_runs import induction_with, main_or_child, passed_on, proved_table  # noqa: E402

# room for the induction to finish either way (about 80 s on Ramen Ink at 3 players)
BUDGET = float(passed_on("budget", "ROTATED_GLANCES_BUDGET", "240"))


def one(spec: str, players: int, on: bool) -> dict:
    """The sliced induction on the spec's invariants, in this process (the child's side)."""
    return induction_with("SKIP_ROTATED_GLANCES", on, spec, players, BUDGET)


def main() -> None:
    parent = main_or_child(__file__, __doc__.splitlines()[0], one, ["ramen_ink"], 1)
    if parent is None:
        return
    args, runs = parent
    print(f"budget {BUDGET:.0f} s (--budget=S)")
    proved_table(args, runs, "every glance", "skipped", "claims", queries=True)


if __name__ == "__main__":
    main()
