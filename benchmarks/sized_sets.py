"""Benchmark: sets that carry their size (`encode.SizedSet`) against sizes as sums of bits.

    .venv/bin/python benchmarks/sized_sets.py                        # Ramen, 2 players, 1 round
    .venv/bin/python benchmarks/sized_sets.py --spec ramen --runs 2

The workload is what a deal leaves: the older engine's fixpoint (`Prover._fixpoint`, frame
facts' time-outs: 1.5 s a query, 20 s a move) over the guesses from 30 sampled games about the
set-up's decision points (the kinds' draw, the deal, the opening offer: `sampled_candidates`,
with the sizes piecewise in the deal loop's position) and the guesses that the deck and the
hands share no member, which a hand's growing by one rests on. For both settings, in interleaved
rounds, each in a fresh process: CPU seconds, guesses kept, and how many of the hands' size
guesses were kept. Prints the ratio with / without (below 1: faster); nothing is asserted (the
machine is shared: compare ratios within one run).
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

SETUP_POINTS = 3  # Ramen's set-up decision points: the kinds' draw, the deal, the opening offer


def one(spec: str, players: int, sized: bool) -> dict:
    """The set-up's fixpoint in this process (the child's side)."""
    from verifier.smt import encode
    encode.SIZED_SETS = sized
    from verifier.engine.runtime import Engine, Game
    from verifier.frontend import load_program
    from verifier.smt.encode import is_true, z3
    from verifier.smt.prove import Prover
    from verifier.smt.transition import initial
    from verifier.verify.run import _sample

    program, _ = load_program(ROOT / "spec" / f"{spec}.rules")
    game = Game(Engine(program), players, {})
    states, _ = _sample(game, 30, 1000 + players, 2000)
    prover = Prover(program, players, dict(game.option_values), 10, samples=states)
    for d in prover.decisions():
        prover.alternatives(d)
    init = initial(program, players, prover.options)
    apart = [c for c in prover.sampled_candidates() if c.name.startswith("disjoint ")
             and ("deck" in c.name or c.name.count("hand") == 2)]
    cands = [c for c in prover.rel.frame_candidates() + prover.sampled_candidates()
             if c.decision is not None and c.decision < SETUP_POINTS] + apart
    cands = [c for c in cands if is_true(z3.simplify(c.at(init.state, init.snapshots)))]
    t0 = time.process_time()
    kept = prover._fixpoint(cands, [], 1500, 20.0, {})
    hands = [c.name for c in cands if "size(hand)" in c.name or "size(grunchie_hand)" in c.name]
    return {"seconds": time.process_time() - t0, "guesses": len(cands), "kept": len(kept),
            "hands": len(hands), "hands_kept": sum(1 for c in kept if c.name in hands)}


def report(args, runs) -> None:
    print(f"{'spec':8} {'setting':12} {'CPU s':>7} {'kept':>9} {'hand sizes kept':>16}")
    for spec in args.spec:
        rows = runs(spec)
        for setting in (False, True):
            r = rows[setting]
            print(f"{spec:8} {'sized sets' if setting else 'bit sums':12} "
                  f"{statistics.median(x['seconds'] for x in r):7.1f} {r[0]['kept']:4d}/{r[0]['guesses']:<4d} "
                  f"{r[0]['hands_kept']:9d}/{r[0]['hands']:<4d}")
        ratio = statistics.median(x["seconds"] for x in rows[True]) / statistics.median(x["seconds"] for x in rows[False])
        print(f"{spec:8} sized sets / bit sums: {ratio:.2f}")


def main() -> None:
    parent = main_or_child(__file__, __doc__.splitlines()[0], one, ["ramen"], 1)
    if parent is not None:
        report(*parent)


if __name__ == "__main__":
    main()
