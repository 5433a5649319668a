"""Benchmark: Houdini dropping every instance one counterexample breaks, against one per query.

    .venv/bin/python benchmarks/houdini_models.py                     # Ramen Ink, 2 players, 1 round
    .venv/bin/python benchmarks/houdini_models.py --spec ramen_ink --runs 2

The sliced induction (`verifier/smt/engines/induction.py`) drops an instance when a model of
its whole query breaks it. That model satisfies every live instance before the move, so every
other instance it falsifies after the move is not inductive either: `Induction._also_broken`
drops those too, without a query each. The effect shows with many guesses, so the workload is
the one the older engine proposes (`Prover.sampled_candidates`: relations among sizes, counters
and loop positions seen in 30 random games, constants, disjoint sets), asked as one claim with
the interval facts as a lemma. For both settings, in interleaved rounds, each in a fresh
process: the CPU seconds of that Houdini, its queries, how many instances models dropped, and
whether both kept the same instances. Prints the ratio with / without (below 1: faster);
nothing is asserted (the machine is shared: compare ratios within one run).
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


def one(spec: str, players: int, by_models: bool) -> dict:
    """One Houdini over the sampled guesses, in this process (the child's side)."""
    from verifier.smt.engines.induction import Induction
    if not by_models:
        Induction._also_broken = lambda self, *args: iter(())
    return houdini_over_guesses(spec, players)


def houdini_over_guesses(spec: str, players: int) -> dict:
    """The sliced induction's Houdini over the older engine's sampled guesses that hold at the
    start, asked as one claim with the interval facts as a lemma (also `batch_models.py`'s)."""
    from verifier.engine.runtime import Engine, Game
    from verifier.frontend import load_program
    from verifier.smt.encode import is_true, z3
    from verifier.smt.engines.induction import Claim, Induction
    from verifier.smt.engines.intervals import analyse
    from verifier.smt.prove import Prover
    from verifier.smt.system import System
    from verifier.smt.transition import initial
    from verifier.verify.invariants import _interval_lemma
    from verifier.verify.run import _sample

    program, _ = load_program(ROOT / "spec" / f"{spec}.rules")
    game = Game(Engine(program), players, {})
    states, _ = _sample(game, 30, 1000 + players, 2000)
    prover = Prover(program, players, dict(game.option_values), 10, samples=states)
    rel = prover.rel
    system = System(rel)
    for d in system.decisions:
        system.transitions(d)
    facts = analyse(system, None)
    init = initial(program, players, prover.options)
    guesses = [c.at(rel.state, rel.snaps) for c in prover.sampled_candidates()
               if not c.name.startswith("sampled") and is_true(z3.simplify(c.at(init.state, init.snapshots)))]
    lemma = _interval_lemma(system, facts)
    t0 = time.process_time()
    ind = Induction(system, facts, 10, None)
    ind.run([Claim("guesses", None, guesses)], [lemma])
    seconds = time.process_time() - t0
    kept = sorted(f.sexpr() for f in ind.lemmas if not f.eq(lemma))
    return {"seconds": seconds, "queries": ind.queries, "by_models": ind.refuted_by_models,
            "guesses": len(guesses), "kept": kept}


def report(args, runs, off: str, on: str) -> None:
    """The table of both settings per spec, the ratio on / off and whether they kept the same
    instances (also `batch_models.py`'s)."""
    print(f"{'spec':10} {'setting':10} {'CPU s':>7} {'queries':>8} {'by models':>10} {'kept':>9}")
    for spec in args.spec:
        rows = runs(spec)
        for setting in (False, True):
            r = rows[setting]
            print(f"{spec:10} {on if setting else off:10} "
                  f"{statistics.median(x['seconds'] for x in r):7.1f} {r[0]['queries']:8d} "
                  f"{r[0]['by_models']:10d} {len(r[0]['kept']):4d}/{r[0]['guesses']:<4d}")
        same = all(x["kept"] == rows[True][0]["kept"] for x in rows[False] + rows[True])
        ratio = statistics.median(x["seconds"] for x in rows[True]) / statistics.median(x["seconds"] for x in rows[False])
        print(f"{spec:10} {on} / {off}: {ratio:.2f}; instances kept {'identical' if same else 'DIFFER'}")


def main() -> None:
    parent = main_or_child(__file__, __doc__.splitlines()[0], one, ["ramen_ink"], 1)
    if parent is not None:
        report(*parent, "one each", "by models")


if __name__ == "__main__":
    main()
