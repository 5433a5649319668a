"""Benchmark: the older engine's frame facts, with and without the sets' size deltas.

    .venv/bin/python benchmarks/size_deltas.py --spec ramen --players 2     # about 10 minutes
    .venv/bin/python benchmarks/size_deltas.py --spec ramen_ink --players 5

`Prover._fixpoint` (`verifier/smt/prove.py`) now hands `_houdini`, for every set the move
changes, "its size after = its size before - the members it lost + the members it gained"
(`size_deltas`: a tautology over the changed members), added when the goals are asked alone
after the joint query gave up (in every query it cost Ramen more than it gained: the README
has both measurements). Facts that relate sets' sizes
("both hands hold as many cards", "a hand's size plus the round is 10") otherwise make the
solver find, in a sum over the whole domain, the one member that moved. For both settings, in
interleaved rounds, each in a fresh process: `alone_goals.fixpoint_stats` (the fixpoint as
`verify` would start it, no overall deadline): CPU seconds, the facts kept, and those dropped
unsettled. Prints the ratio with / without; nothing is asserted (the machine is shared:
compare ratios within one run).
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.ab_runs import main_or_child  # noqa: E402
from benchmarks.alone_goals import fixpoint_stats, report  # noqa: E402


def one(spec: str, players: int, with_deltas: bool) -> dict:
    from verifier.smt import prove

    if not with_deltas:
        prove.size_deltas = lambda before, after: []
    return fixpoint_stats(spec, players)


def main() -> None:
    parent = main_or_child(__file__, __doc__.splitlines()[0], one, ["ramen"], 1)
    if parent is not None:
        report(*parent, "without", "with")


if __name__ == "__main__":
    main()
