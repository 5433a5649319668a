"""Benchmark: a loop measure's decrease asked summand by summand, or not.

    .venv/bin/python benchmarks/measure_checks.py                    # clobber, checkers
    .venv/bin/python benchmarks/measure_checks.py --spec clobber --runs 3 --budget=60

`well_formed`'s run-time checks (`Prover.obligations()`) of an example whose flow loop has a
measure over a board (`while ... decreases count(...)`), after the invariants' induction (not
timed: the measure's remembered value is tied to the state by a fact it proves). Off, the step
of `verifier/smt/measure_checks.py` settles nothing and the checks go on as before (the slices,
the whole queries). For both settings, in interleaved rounds, each in a fresh process: CPU
seconds of the checks within `--budget=S` (default 200), the measure checks the step settled,
and the verdict. Prints the ratio on / off; nothing is asserted (the machine is shared: compare
within one run). A name is an example of `spec/examples/`.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.ab_runs import example_program, main_or_child, passed_on, verdict_table  # noqa: E402

BUDGET = float(passed_on("budget", "MEASURE_CHECKS_BUDGET", "200"))


def one(spec: str, players: int, on: bool) -> dict:
    import time

    from verifier.engine.runtime import Engine, Game
    from verifier.smt import measure_checks
    from verifier.smt.prove import Prover

    program = example_program(spec)
    game = Game(Engine(program), players, {})
    prover = Prover(program, players, dict(game.option_values), 20, budget=BUDGET)
    prover.invariants()
    made = []
    real = measure_checks.MeasureChecks.settle

    def settle(self, sol, d, alt, part, goals, deadline, pool):
        if self not in made:
            made.append(self)
        return real(self, sol, d, alt, part, goals, deadline, pool) if on else part
    measure_checks.MeasureChecks.settle = settle
    t0 = time.process_time()
    verdict = prover.obligations()
    return {"seconds": time.process_time() - t0, "settled": sum(m.settled for m in made),
            "status": verdict.status, "reason": verdict.reason}


if __name__ == "__main__":
    parsed = main_or_child(__file__, __doc__.splitlines()[0], one, ["clobber", "checkers"], 1)
    if parsed is not None:
        args, rows = parsed
        verdict_table(args, rows, BUDGET, "summands", ("settled",))
