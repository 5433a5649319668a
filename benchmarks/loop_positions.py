"""Benchmark: run-time checks asked once per loop position, with the counting facts, or not.

    .venv/bin/python benchmarks/loop_positions.py                       # the deal fixture, Wasabi!
    .venv/bin/python benchmarks/loop_positions.py --spec wasabi --players 3 --runs 2

`well_formed`'s checks at the decision points inside `for` loops with static items (a setup's
deals and gifts), with the spec's invariants assumed, not proved: the benchmark measures the
step that asks a check once per position of those loops (`Prover._holds_by_position`, with the
facts of `verifier/smt/counting.py`), not the induction that proves what it assumes. Off, the
loops report no positions, as before the step. For both settings, in interleaved rounds, each
in a fresh process: CPU seconds of `Prover.obligations()` over those decision points (within
`--budget=S`, default 120) and its verdict. Prints the ratio on / off; nothing is asserted
(the machine is shared: compare within one run). `piles_dealt` is
`tests/fixtures/piles_dealt.rules`; any other name is a seed spec.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.ab_runs import main_or_child, passed_on, prover_assuming_invariants, verdict_table  # noqa: E402

BUDGET = float(passed_on("budget", "LOOP_POSITIONS_BUDGET", "120"))


def one(spec: str, players: int, on: bool) -> dict:
    """`well_formed`'s checks at the decision points inside static loops, in this process."""
    import time

    from verifier.smt.relation import Relation

    path = "tests/fixtures/piles_dealt.rules" if spec == "piles_dealt" else f"spec/{spec}.rules"
    program, prover = prover_assuming_invariants(path, players, BUDGET)
    points = [d for d in range(len(program.decisions)) if Relation.loop_positions(prover.rel, d)]
    prover.decisions = lambda: points
    if not on:
        prover.rel.loop_positions = lambda d: []
    t0 = time.process_time()
    verdict = prover.obligations()
    return {"seconds": time.process_time() - t0, "status": verdict.status, "points": len(points),
            "reason": verdict.reason}


def main() -> None:
    parent = main_or_child(__file__, __doc__.splitlines()[0], one, ["piles_dealt", "wasabi"], 1)
    if parent is None:
        return
    args, runs = parent
    verdict_table(args, runs, BUDGET, "positions", ("points",))


if __name__ == "__main__":
    main()
