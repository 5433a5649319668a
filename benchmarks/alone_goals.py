"""Benchmark: the older engine's frame facts, with and without asking each goal alone.

    .venv/bin/python benchmarks/alone_goals.py --spec ramen_ink --players 5   # the case it was built for
    .venv/bin/python benchmarks/alone_goals.py --spec ramen_ink --players 3 --runs 2

The older mutual induction (`Prover._fixpoint` in `verifier/smt/prove.py`) asks all of a move's
goals in one query per successor case. When that query gives up, `_houdini(alone=True)` now
asks each goal alone once, within `ALONE_MS`, and only what is still open goes on to the value
splits; before, one hard goal kept the easy ones in the splits until the move's allowance
(`HINT_BUDGET_S`) ran out, and they were dropped unsettled. For both settings, in interleaved
rounds, each in a fresh process: the frame-fact fixpoint alone (the proposals of 30 sampled
games, the time-outs `verify` uses, no overall deadline), its CPU seconds, the facts kept, and
those dropped because the solver gave up or time ran out (the rest are refuted by a model).
Prints the ratio alone / together (below 1: faster); nothing is asserted (the machine is
shared: compare ratios within one run).
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.ab_runs import main_or_child  # noqa: E402


def one(spec: str, players: int, alone: bool) -> dict:
    """The frame-fact fixpoint, in this process (the child's side)."""
    from verifier.smt.prove import Prover

    if not alone:
        houdini = Prover._houdini

        def together(self, *args, alone=False, **kw):  # whatever else `_fixpoint` passes, passed on
            return houdini(self, *args, alone=False, **kw)
        Prover._houdini = together
    return fixpoint_stats(spec, players)


def fixpoint_stats(spec: str, players: int) -> dict:
    """The older engine's frame-fact fixpoint as `verify` would start it, without its deadline:
    CPU seconds, the facts proposed and kept, and those dropped unsettled (also used by
    `size_deltas.py`)."""
    from verifier.engine.runtime import Engine, Game
    from verifier.frontend import load_program
    from verifier.smt.encode import is_true, z3
    from verifier.smt.prove import HINT_BUDGET_S, HINT_TIMEOUT_MS, Prover
    from verifier.smt.transition import initial
    from verifier.verify.run import _sample

    program, _ = load_program(ROOT / "spec" / f"{spec}.rules")
    game = Game(Engine(program), players, {})
    states, _ = _sample(game, 30, 1000 + players, 5000)  # as `verify` samples them
    prover = Prover(program, players, dict(game.option_values), 20, samples=states)
    init = initial(prover.p, prover.n, prover.options)
    proposals = [c for c in prover.candidates()
                 if c.node is None and is_true(z3.simplify(c.at(init.state, init.snapshots)))]
    failing: dict = {}
    t0 = time.process_time()
    kept = prover._fixpoint(proposals, [], HINT_TIMEOUT_MS, HINT_BUDGET_S, failing)
    return {"seconds": time.process_time() - t0, "proposed": len(proposals), "kept": len(kept),
            "unsettled": sum(1 for kind, *_ in failing.values() if kind == "unknown")}


def report(args, runs, off: str, on: str) -> None:
    """The table of both settings and the ratio on / off (also used by `size_deltas.py`)."""
    print(f"{'spec':10} {'players':>7} {'setting':8} {'CPU s':>7} {'proposed':>9} {'kept':>5} {'unsettled':>9}")
    for spec in args.spec:
        rows = runs(spec)
        for setting in (False, True):
            r = rows[setting]
            print(f"{spec:10} {args.players:7d} {on if setting else off:8} "
                  f"{statistics.median(x['seconds'] for x in r):7.1f} {r[0]['proposed']:9d} "
                  f"{statistics.median(x['kept'] for x in r):5.0f} {statistics.median(x['unsettled'] for x in r):9.0f}")
        ratio = statistics.median(x["seconds"] for x in rows[True]) / statistics.median(x["seconds"] for x in rows[False])
        print(f"{spec:10} {on} / {off}: {ratio:.2f}")


def main() -> None:
    parent = main_or_child(__file__, __doc__.splitlines()[0], one, ["ramen_ink"], 1)
    if parent is not None:
        report(*parent, "together", "alone")


if __name__ == "__main__":
    main()
