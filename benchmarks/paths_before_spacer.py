"""Benchmark: on a short game, the run-time checks induction left open followed on every path to
every end before Spacer strengthens them, or after (as before the thirty-eighth stop).

    .venv/bin/python benchmarks/paths_before_spacer.py                  # kuhn_poker, 10 players
    .venv/bin/python benchmarks/paths_before_spacer.py --spec first_sealed_auction --players 5 --runs 2

One player count verified as `rulebook verify` verifies a count among several (`verify_players`,
no search lane), `--budget=S` (default 60) for it, with `run.PATHS_BEFORE_SPACER` at its value or
0. For both settings, in interleaved rounds, each in a fresh process: the count's seconds (wall
clock: Spacer's queries run in forked processes, whose CPU this process's clock does not see),
how `well_formed` was settled, and the results not proved. Prints the ratio on / off; nothing is
asserted (the machine is shared: compare within one run). A name is an example of
`spec/examples/`.
"""
from __future__ import annotations

import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.ab_runs import example_program, main_or_child, passed_on  # noqa: E402

BUDGET = float(passed_on("budget", "PATHS_BEFORE_SPACER_BUDGET", "60"))


def one(spec: str, players: int, on: bool) -> dict:
    import time

    from verifier.engine.runtime import Engine
    from verifier.verify import run

    program = example_program(spec)
    if not on:
        run.PATHS_BEFORE_SPACER = 0
    t0 = time.perf_counter()
    results, _bounds, _lengths = run.verify_players(program, Engine(program), players, {},
                                                    run.Budget(proof=BUDGET), lanes=1)
    wf = next(r for r in results if r.name == "well_formed")
    return {"seconds": time.perf_counter() - t0, "well_formed": f"{wf.status} ({wf.method})",
            "unproved": [r.name for r in results if r.status != "proved"]}


if __name__ == "__main__":
    parsed = main_or_child(__file__, __doc__.splitlines()[0], one, ["kuhn_poker"], 1)
    if parsed is not None:
        args, rows = parsed
        print(f"budget {BUDGET:.0f} s (--budget=S)")
        print(f"{'spec':22} {'players':>7} {'setting':13} {'s':>7}  well_formed; not proved")
        for spec in args.spec:
            runs = rows(spec)
            for setting, name in ((False, "Spacer first"), (True, "paths first")):
                r = runs[setting]
                print(f"{spec:22} {args.players:7d} {name:13} {statistics.median(x['seconds'] for x in r):7.1f}  "
                      f"{r[0]['well_formed']}; {', '.join(r[0]['unproved']) or '-'}")
            ratio = statistics.median(x["seconds"] for x in runs[True]) / \
                statistics.median(x["seconds"] for x in runs[False])
            print(f"{spec:22} paths first / Spacer first: {ratio:.2f}")
