"""Benchmark: the flow walk with and without the sides of an `if` meeting at its end.

    .venv/bin/python benchmarks/flow_joins.py                 # the three seed specs, 2 players, 2 rounds
    .venv/bin/python benchmarks/flow_joins.py --spec ramen --players 3 --runs 3

`FlowWalk` (verifier/smt/transition.py) runs the flow from a move to the next decision point.
At an `if` around a decision point whose two sides both go on, it either lets each side run
on to its own stop (`JOIN_IFS = False`, as before the eighth stop) or joins them at the `if`'s
end (`JOIN_IFS = True`, the default; see `FlowWalk._fork`). For each spec and both settings,
in interleaved rounds, each in a fresh process (the encoder's memo would otherwise carry over):
the CPU seconds to build the transition system (`System`, every decision point), the CPU
seconds of the interval analysis on it, the size of the term table, and whether the interval
facts at every decision point are the same leaf by leaf under both settings. Prints the
figures and the ratios joined / apart (below 1: the join is faster); nothing is asserted
(the machine is shared: compare ratios within one run).
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

SEEDS = ("ramen", "ramen_ink", "wasabi")


def one(spec: str, players: int, join: bool) -> dict:
    """Build and analyse once in this process (the child's side)."""
    from verifier.engine.runtime import Engine, Game
    from verifier.frontend import load_program
    from verifier.smt.engines.intervals import analyse
    from verifier.smt.prove import Prover
    from verifier.smt.system import System
    from verifier.smt.transition import FlowWalk

    FlowWalk.JOIN_IFS = join
    program, _ = load_program(ROOT / "spec" / f"{spec}.rules")
    game = Game(Engine(program), players, {})
    prover = Prover(program, players, dict(game.option_values), 10)
    t0 = time.process_time()
    system = System(prover.rel)
    for d in system.decisions:
        system.transitions(d)
    t1 = time.process_time()
    facts = analyse(system, None)
    t2 = time.process_time()
    states = {str(d): None if env is None else {str(system.dag.term[x]): env.get(x) for x in system.leaves}
              for d, env in facts.states.items()}
    return {"system": t1 - t0, "intervals": t2 - t1, "nodes": len(system.dag.op), "states": states,
            "complete": facts.complete}


def main() -> None:
    parent = main_or_child(__file__, __doc__.splitlines()[0], one, list(SEEDS), 2)
    if parent is None:
        return
    args, runs = parent
    print(f"{'spec':10} {'setting':7} {'system s':>9} {'intervals s':>12} {'nodes':>8}")
    for spec in args.spec:
        rows = runs(spec)
        for join in (False, True):
            r = rows[join]
            print(f"{spec:10} {'joined' if join else 'apart':7} {statistics.median(x['system'] for x in r):9.1f} "
                  f"{statistics.median(x['intervals'] for x in r):12.1f} {r[0]['nodes']:8d}")
        same = all(a["states"] == rows[True][0]["states"] and a["complete"] for a in rows[False] + rows[True])
        ratio = {k: statistics.median(x[k] for x in rows[True]) / statistics.median(x[k] for x in rows[False])
                 for k in ("system", "intervals")}
        total = (sum(x["system"] + x["intervals"] for x in rows[True])
                 / sum(x["system"] + x["intervals"] for x in rows[False]))
        print(f"{spec:10} joined/apart: system {ratio['system']:.2f}, intervals {ratio['intervals']:.2f}, "
              f"both {total:.2f}; interval facts {'identical' if same else 'DIFFER'}")


if __name__ == "__main__":
    main()
