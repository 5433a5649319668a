"""Benchmark: claims over many items, asked over a symbolic item or instance by instance.

    .venv/bin/python benchmarks/over_an_item.py
    .venv/bin/python benchmarks/over_an_item.py --players 3 --runs 3
    .venv/bin/python benchmarks/over_an_item.py --spec ramen_ink --budget=120

A leading `all` over more than `parametric.SYMBOLIC_OVER` items, in a claim of more than
`invariants.ITEM_INSTANCES` instances, is first asked as one formula over a symbolic item
(`verifier/smt/parametric.py`, `Induction._over_an_item`: the "on" setting; a move whose
queries so take more than `induction.ITEM_MS` is asked of the instances); "off" asks every claim instance by instance (`invariants.OVER_AN_ITEM = False`).
The default spec, `cards`, is `tests/fixtures/cards_apart.rules`: 45 cards dealt from a deck into the players'
hands, played onto a table and cleared onto a pile, with "each card in one place" claims of
the kind Ramen's offer and hands need (`notes/issue11.md`). `--spec NAME` takes a seed spec's
invariants instead. For both settings, in interleaved rounds, each in a fresh process: the
transition system and the interval analysis (not timed), then `Induction.run` on the claims
with a deadline of `--budget` seconds; its CPU seconds, queries and the claims proved. Prints
the ratio on / off (below 1: faster); nothing is asserted (the machine is shared: compare
within one run).
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.ab_runs import induction_run, main_or_child, over_an_item, passed_on, proved_table  # noqa: E402

BUDGET = float(passed_on("budget", "ITEM_BUDGET", "300"))

CARDS = ROOT / "tests" / "fixtures" / "cards_apart.rules"


def one(spec: str, players: int, on: bool) -> dict:
    """The sliced induction on the spec's invariants, in this process (the child's side)."""
    import verifier.verify.invariants as invariants
    from verifier.frontend import check_text, load_program

    invariants.OVER_AN_ITEM = on
    if spec == "cards":
        program, _ = check_text(CARDS.read_text(encoding="utf-8"), str(CARDS))
    else:
        program, _ = load_program(ROOT / "spec" / f"{spec}.rules")
    return induction_run(program, players, BUDGET, over_an_item(program, players))


def main() -> None:
    parent = main_or_child(__file__, __doc__.splitlines()[0], one, ["cards"], 1)
    if parent is None:
        return
    args, runs = parent
    print(f"budget {BUDGET:.0f} s (--budget=S)")
    proved_table(args, runs, "one by one", "over an item", "claims", queries=True)


if __name__ == "__main__":
    main()
