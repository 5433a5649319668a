"""Benchmark: the interval analysis with an `if` split by its condition everywhere (as before the
forty-second stop) or only where a branch reads what the condition reads
(`intervals.SPLIT_ONLY_WHERE_READ`).

    .venv/bin/python benchmarks/interval_splits.py                       # the three seed games, 2 players
    .venv/bin/python benchmarks/interval_splits.py --spec wasabi --players 3 --runs 2

For each setting, in interleaved rounds, each in a fresh process: the transition system is built
(not timed), then the analysis runs to its fixpoint with no deadline; its seconds, its moves
evaluated, and a digest of every interval it ends with. Prints the ratio split-where-read /
split-everywhere and whether the intervals are the same; nothing is asserted (the machine is
shared: compare within one run). A name is a seed spec of `spec/` or an example of
`spec/examples/`.
"""
from __future__ import annotations

import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.ab_runs import main_or_child  # noqa: E402


def one(spec: str, players: int, on: bool) -> dict:
    import hashlib
    import time

    from verifier.engine.runtime import Engine, Game
    from verifier.frontend import load_program
    from verifier.smt.engines import intervals
    from verifier.smt.prove import Prover
    from verifier.smt.system import System

    path = ROOT / "spec" / f"{spec}.rules"
    program, _ = load_program(str(path if path.exists() else ROOT / "spec" / "examples" / f"{spec}.rules"))
    game = Game(Engine(program), players, {})
    system = System(Prover(program, players, dict(game.option_values), 20, samples=[]).rel)
    for d in system.decisions:
        system.transitions(d)
    intervals.SPLIT_ONLY_WHERE_READ = on
    evaluated = []
    evaluate = intervals.Intervals._evaluate
    intervals.Intervals._evaluate = lambda self, tr, here: evaluated.append(1) or evaluate(self, tr, here)
    t0 = time.process_time()
    facts = intervals.Intervals(system).run(None)
    seconds = time.process_time() - t0
    shown = repr(sorted((d, sorted(e.items()) if e is not None else None) for d, e in facts.states.items()))
    return {"seconds": seconds, "evaluated": len(evaluated), "complete": facts.complete,
            "digest": hashlib.sha256(shown.encode()).hexdigest()[:12]}


if __name__ == "__main__":
    parsed = main_or_child(__file__, __doc__.splitlines()[0], one, ["ramen", "ramen_ink", "wasabi"], 1)
    if parsed is not None:
        args, rows = parsed
        print(f"{'spec':10} {'players':>7} {'setting':16} {'CPU s':>6} {'moves':>6}  intervals")
        for spec in args.spec:
            runs = rows(spec)
            for setting, name in ((False, "split everywhere"), (True, "split where read")):
                r = runs[setting]
                print(f"{spec:10} {args.players:7d} {name:16} {statistics.median(x['seconds'] for x in r):6.1f} "
                      f"{r[0]['evaluated']:6d}  {r[0]['digest']}")
            ratio = statistics.median(x["seconds"] for x in runs[True]) / \
                statistics.median(x["seconds"] for x in runs[False])
            same = {x["digest"] for x in runs[True] + runs[False]}
            print(f"{spec:10} where read / everywhere: {ratio:.2f}; intervals "
                  f"{'the same' if len(same) == 1 else 'DIFFER'}")
