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

import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.ab_runs import main_or_child, passed_on  # noqa: E402

BUDGET = float(passed_on("budget", "LOOP_POSITIONS_BUDGET", "120"))


def one(spec: str, players: int, on: bool) -> dict:
    """`well_formed`'s checks at the decision points inside static loops, in this process."""
    import time

    from verifier.engine.runtime import Engine, Game
    from verifier.frontend import load_program
    from verifier.smt.prove import Prover
    from verifier.smt.relation import Relation

    # relative to the project's root (the children's working directory): the verdicts name it
    program, _ = load_program("tests/fixtures/piles_dealt.rules" if spec == "piles_dealt" else f"spec/{spec}.rules")
    game = Game(Engine(program), players, {})
    prover = Prover(program, players, dict(game.option_values), 20, budget=BUDGET)
    prover.proved = [c for c in prover.candidates() if c.node is not None]  # assumed: see above
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
    print(f"budget {BUDGET:.0f} s (--budget=S)")
    print(f"{'spec':12} {'players':>7} {'setting':9} {'CPU s':>7} {'points':>6}  verdict")
    for spec in args.spec:
        rows = runs(spec)
        for setting, name in ((False, "off"), (True, "positions")):
            r = rows[setting]
            print(f"{spec:12} {args.players:7d} {name:9} {statistics.median(x['seconds'] for x in r):7.1f}"
                  f" {r[0]['points']:6d}  {r[0]['status']}: {r[0]['reason'][:110]}")
        ratio = statistics.median(x["seconds"] for x in rows[True]) / statistics.median(x["seconds"] for x in rows[False])
        print(f"{spec:12} positions / off: {ratio:.2f}")


if __name__ == "__main__":
    main()
