"""Benchmark: the older engine between the sliced induction's passes, or only after them.

    .venv/bin/python benchmarks/between_passes.py                      # Ramen Ink, 2 players
    .venv/bin/python benchmarks/between_passes.py --players 3 --budget=60
    .venv/bin/python benchmarks/between_passes.py --spec wasabi --runs 2

The claims the sliced induction's first pass gives up on go to the older engine (whole queries
over frame facts guessed from sampled states) before their second looks
(`induction.ELSEWHERE_FIRST`, `invariants._Between`); off, the second looks come first and the
older engine after the induction, as before the forty-third stop. For both settings, in
interleaved rounds, each in a fresh process: 30 sampled games (as `verify` samples them, not
timed), then `prove_invariants` on every invariant of the spec with a deadline of `--budget`
seconds from the start of the transition system's build; its CPU seconds and the claims proved.
Prints the ratio on / off (below 1: faster); nothing is asserted (the machine is shared: compare
within one run).
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.ab_runs import main_or_child, passed_on, proved_table  # noqa: E402

# about the invariants' share of `make verify`'s --budget 60 on a seed game, and then some
BUDGET = float(passed_on("budget", "BETWEEN_PASSES_BUDGET", "45"))


def one(spec: str, players: int, on: bool) -> dict:
    """`prove_invariants` with the setting, in this process (the child's side)."""
    from verifier.engine.runtime import Engine, Game
    from verifier.frontend import load_program
    from verifier.smt.engines import induction
    from verifier.smt.prove import Prover
    from verifier.verify.invariants import prove_invariants
    from verifier.verify.run import Budget, _sample

    induction.ELSEWHERE_FIRST = on
    program, _ = load_program(ROOT / "spec" / f"{spec}.rules")
    game = Game(Engine(program), players, {})
    budget = Budget()
    states, _ = _sample(game, budget.samples, 1000 + players, budget.max_steps)
    prover = Prover(program, players, dict(game.option_values), budget.timeout, samples=states, budget=BUDGET)
    t0 = time.process_time()
    verdicts = prove_invariants(prover, list(program.invariants), time.perf_counter() + BUDGET)
    seconds = time.process_time() - t0
    proved = sorted(name for name, v in verdicts.items() if v.status == "proved")
    return {"seconds": seconds, "proved": proved, "claims": len(program.invariants),
            "missing": sorted(inv.name for inv in program.invariants if inv.name not in proved)}


def main() -> None:
    parent = main_or_child(__file__, __doc__.splitlines()[0], one, ["ramen_ink"], 1)
    if parent is None:
        return
    args, runs = parent
    print(f"budget {BUDGET:.0f} s (--budget=S)")
    proved_table(args, runs, "after", "between", "claims")


if __name__ == "__main__":
    main()
