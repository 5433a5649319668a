"""Benchmark: a decision-free loop's run-time checks asked once for every move that runs it, or not.

    .venv/bin/python benchmarks/shared_loops.py                       # the tokens fixture, Wasabi!
    .venv/bin/python benchmarks/shared_loops.py --spec wasabi --players 3 --runs 2

`well_formed`'s checks at the decision points whose moves run a decision-free loop in the flow
that can be read on its own (`System.loop_alone`), with the spec's invariants assumed, not
proved: the benchmark measures the step that asks the loop's checks once per loop and seat
(`verifier/smt/loop_checks.py`), not the induction that proves what it assumes. Off, the step
settles nothing and the checks go on as before (the glance, the cut checks, the slices). For
both settings, in interleaved rounds, each in a fresh process: CPU seconds of
`Prover.obligations()` over those decision points (within `--budget=S`, default 120), its
verdict, and the checks the step settled. Prints the ratio on / off; nothing is asserted (the
machine is shared: compare within one run). `tokens_loop` is `tests/fixtures/tokens_loop.rules`;
any other name is a seed spec.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.ab_runs import main_or_child, passed_on, prover_assuming_invariants, verdict_table  # noqa: E402

BUDGET = float(passed_on("budget", "SHARED_LOOPS_BUDGET", "120"))


def one(spec: str, players: int, on: bool) -> dict:
    """`well_formed`'s checks at the decision points whose moves run a shared loop, in this process."""
    import time

    from verifier.smt import loop_checks
    from verifier.smt.system import System

    path = "tests/fixtures/tokens_loop.rules" if spec == "tokens_loop" else f"spec/{spec}.rules"
    _, prover = prover_assuming_invariants(path, players, BUDGET)
    system = prover.system = System(prover.rel)
    t0 = time.process_time()

    def runs_a_shared_loop(d: int) -> bool:
        for tr in system.transitions(d):
            if any(system.loop_alone(tr, r) is not None for r in range(len(system.cut_renamings(tr)))):
                return True
        return False
    points = [d for d in system.decisions if runs_a_shared_loop(d)]
    prover.decisions = lambda: points
    made = []
    init = loop_checks.SharedLoopChecks.__init__

    def keep(self, *args):
        init(self, *args)
        made.append(self)
    loop_checks.SharedLoopChecks.__init__ = keep
    if not on:
        loop_checks.SharedLoopChecks.settle = lambda self, d, alt, part, *rest: part
    verdict = prover.obligations()
    return {"seconds": time.process_time() - t0, "status": verdict.status, "points": len(points),
            "settled": sum(m.settled for m in made), "reason": verdict.reason}


def main() -> None:
    parent = main_or_child(__file__, __doc__.splitlines()[0], one, ["tokens_loop", "wasabi"], 1)
    if parent is None:
        return
    args, runs = parent
    verdict_table(args, runs, BUDGET, "shared", ("points", "settled"))


if __name__ == "__main__":
    main()
