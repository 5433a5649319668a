"""Benchmark: the sliced induction on a spec's claims, before and after the fourteenth stop.

    .venv/bin/python benchmarks/sliced_claims.py --spec wasabi --players 2
    .venv/bin/python benchmarks/sliced_claims.py --spec ramen_ink --players 3 --budget=120
    .venv/bin/python benchmarks/sliced_claims.py --spec wasabi --players 2 --undo=cuts --budget=600

The sliced induction (`verifier/smt/engines/induction.py`) now (the "on" setting):

- reads a move's successor along each way its flow runs (`_holds_on_every_path`): an instance
  that reads, on every way, as true or as itself before the move needs no query;
- asks its whole query over the cone of influence of what must hold (`_cone`), not with every
  condition, instance and run-time check of the move;
- asks each claim the first pass did not prove again on its own, with what every claim of the
  first pass left (`RETRY_ALONE`), before the broken ones together.

"Off" is each of those undone. With `--undo=cuts`, "off" is the fifteenth stop's change undone
instead: a move whose decision-free loops change an instance is no longer shown one loop
iteration at a time (`induction.CUTS`, `_through_cuts`). For both settings, in interleaved rounds, each in a fresh
process: the transition system and the interval analysis (not timed), then `Induction.run` on
every invariant of the spec with a deadline of `--budget` seconds; its CPU seconds and the
claims proved. Prints the ratio on / off (below 1: faster); nothing is asserted (the machine
is shared: compare within one run).
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.ab_runs import induction_run, main_or_child, passed_on, proved_table  # noqa: E402

# the induction's deadline in seconds: `--budget=S` (the children read it from the environment)
BUDGET = float(passed_on("budget", "SLICED_BUDGET", "120"))
# what "off" undoes: "ways" (the fourteenth stop's three changes) or "cuts" (`--undo=cuts`)
UNDO = passed_on("undo", "SLICED_UNDO", "ways")


def one(spec: str, players: int, on: bool) -> dict:
    """The sliced induction on every invariant of the spec, in this process (the child's side)."""
    import verifier.smt.engines.induction as induction
    from verifier.frontend import load_program

    if not on and UNDO == "cuts":
        induction.CUTS = False
    elif not on:
        induction.RETRY_ALONE = False
        induction.Induction._holds_on_every_path = lambda self, tr, v, key, f, post: False

        def everything(self, tr, bits, keys, support):  # the whole query as before: no cone
            dag = self.sys.dag
            for i in tr.pre:
                bits |= dag.support(i)
            for k in keys:
                bits |= support[k]
            return list(tr.pre_terms), list(keys), [o.cond for o in tr.alt.pre + tr.alt.step.obligations], bits
        induction.Induction._cone = everything
    program, _ = load_program(ROOT / "spec" / f"{spec}.rules")
    return induction_run(program, players, BUDGET)


def main() -> None:
    if UNDO not in ("ways", "cuts"):
        sys.exit(f"--undo: 'ways' or 'cuts', not {UNDO!r}")
    parent = main_or_child(__file__, __doc__.splitlines()[0], one, ["wasabi"], 1)
    if parent is None:
        return
    args, runs = parent
    print(f"budget {BUDGET:.0f} s (--budget=S); off = {UNDO} undone (--undo=ways|cuts)")
    proved_table(args, runs, "before", "after", "claims", queries=True)

if __name__ == "__main__":
    main()
