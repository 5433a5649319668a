"""Benchmark: a choice's value substituted into a query's formulas at once, or one by one.

    .venv/bin/python benchmarks/shared_substitution.py                        # Wasabi!, 2 players
    .venv/bin/python benchmarks/shared_substitution.py --spec ramen --players 3 --budget 120

Where the solver gives up on a query and the move has a choice of few values, the query is
asked once per value, the value substituted into every formula (`encode.with_values`): as the
arguments of one conjunction, in one traversal ("at once"), or formula by formula ("one by
one", as before the fiftieth stop), which walks the subterms the formulas share once per
formula. The spec's invariants are proved as `verify` proves them (`prove_invariants`, no
Spacer, a deadline of `--budget` seconds); at each call, both ways run on the same formulas,
one after the other, each timed, and their terms compared. Prints the calls, the formulas, the
seconds of each way and the ratio at once / one by one (below 1: faster); both ways are timed
in one process on the same input, so the ratio is not the machine's noise. Nothing is
asserted.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spec", default="wasabi", help="a seed spec's name (default: wasabi)")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--budget", type=float, default=240.0, help="seconds for the invariants (default 240)")
    args = ap.parse_args()

    from verifier.frontend import load_program
    from verifier.smt import encode, prove
    from verifier.smt.encode import eq_leaf, z3
    from verifier.smt.engines import induction
    from verifier.verify.invariants import prove_invariants

    at_once = encode.with_values
    tally = {"calls": 0, "formulas": 0, "one by one": 0.0, "at once": 0.0, "same": True}

    def one_by_one(formulas: list, pairs: list) -> list:
        return [z3.substitute(f, *pairs) for f in formulas] + [eq_leaf(a, b) for a, b in pairs]

    def both(formulas: list, pairs: list) -> list:
        t0 = time.process_time()
        old = one_by_one(formulas, pairs)
        t1 = time.process_time()
        new = at_once(formulas, pairs)
        t2 = time.process_time()
        tally["calls"] += 1
        tally["formulas"] += len(formulas)
        tally["one by one"] += t1 - t0
        tally["at once"] += t2 - t1
        tally["same"] = tally["same"] and len(old) == len(new) and all(x.eq(y) for x, y in zip(old, new))
        return new

    induction.with_values = prove.with_values = both
    program, _ = load_program(ROOT / "spec" / f"{args.spec}.rules")
    prover = prove.Prover(program, args.players, {}, 10.0, budget=args.budget)
    verdicts = prove_invariants(prover, list(program.invariants), time.perf_counter() + args.budget,
                                progress=lambda text: None, spacer=False)
    proved = sum(v.status == "proved" for v in verdicts.values())
    print(f"{args.spec}, {args.players} players, budget {args.budget:.0f} s: {proved} of {len(verdicts)} invariants proved")
    print(f"value splits: {tally['calls']} calls, {tally['formulas']} formulas substituted, "
          f"the same terms: {'yes' if tally['same'] else 'NO'}")
    print(f"CPU s  one by one {tally['one by one']:.2f}  at once {tally['at once']:.2f}")
    if tally["one by one"] > 0:
        print(f"at once / one by one: {tally['at once'] / tally['one by one']:.3f}")
    # (the proofs leave millions of z3 terms, which Python's shutdown would free one by one)
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
