"""Benchmark: a move's changed instances asked together over the whole query, against one by one.

    .venv/bin/python benchmarks/batch_models.py                       # Ramen Ink, 2 players, 1 round
    .venv/bin/python benchmarks/batch_models.py --spec ramen_ink --runs 2

When the sliced query of a move's changed instances has a model, the sliced induction
(`verifier/smt/engines/induction.py`) now asks them all at once over the whole query
(`Induction._whole_batch`): a model refutes every instance false in it, the rest are asked
again, and an unsatisfiable answer settles them. Before, each went to a sliced and a whole query
of its own. The workload is `houdini_models.py`'s (the older engine's sampled guesses, one
claim, the interval facts as a lemma). For both settings, in interleaved rounds, each in a fresh
process: the CPU seconds of that Houdini, its queries, the instances refuted by models, and
whether both kept the same instances. Prints the ratio with / without (below 1: faster);
nothing is asserted (the machine is shared: compare ratios within one run).
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.ab_runs import main_or_child  # noqa: E402
from benchmarks.houdini_models import houdini_over_guesses, report  # noqa: E402


def one(spec: str, players: int, together: bool) -> dict:
    from verifier.smt.engines.induction import Induction
    if not together:
        Induction._whole_batch = lambda self, *args: (set(), [])
    return houdini_over_guesses(spec, players)


def main() -> None:
    parent = main_or_child(__file__, __doc__.splitlines()[0], one, ["ramen_ink"], 1)
    if parent is not None:
        report(*parent, "one each", "together")


if __name__ == "__main__":
    main()
