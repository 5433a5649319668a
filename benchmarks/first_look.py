"""Benchmark: a first look of the proofs before the quick directed search, or the search first
(as before the thirty-ninth stop).

    .venv/bin/python benchmarks/first_look.py                          # pig, 4 players
    .venv/bin/python benchmarks/first_look.py --spec kuhn_poker --players 9 --runs 2
    .venv/bin/python benchmarks/first_look.py --spec goofspiel --players 4 --budget=60

One player count verified as `rulebook verify` verifies a count among several (`verify_players`,
no search lane), `--budget=S` (default 60) for it, with `run.LOOK_SHARE_OF_SEARCH` at its value
or 0 (no look). For both settings, in interleaved rounds, each in a fresh process: the count's
seconds (wall clock: Spacer's queries run in forked processes), whether the beam-and-swarm
search ran, and the results not proved. Prints the ratio on / off; nothing is asserted (the
machine is shared: compare within one run). A name is an example of `spec/examples/`.
"""
from __future__ import annotations

import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.ab_runs import example_program, main_or_child, passed_on  # noqa: E402

BUDGET = float(passed_on("budget", "FIRST_LOOK_BUDGET", "60"))


def one(spec: str, players: int, on: bool) -> dict:
    import time

    from verifier.engine.runtime import Engine
    from verifier.verify import run

    program = example_program(spec)
    if not on:
        run.LOOK_SHARE_OF_SEARCH = 0
    searched = []
    real = run.falsify

    def recording(*args, **kw):
        searched.append("+".join(kw.get("strategies", ())))
        return real(*args, **kw)
    run.falsify = recording
    t0 = time.perf_counter()
    results, _bounds, _lengths = run.verify_players(program, Engine(program), players, {},
                                                    run.Budget(proof=BUDGET), lanes=1)
    return {"seconds": time.perf_counter() - t0, "searches": searched,
            "unproved": [r.name for r in results if r.status != "proved"]}


if __name__ == "__main__":
    parsed = main_or_child(__file__, __doc__.splitlines()[0], one, ["pig"], 1)
    if parsed is not None:
        args, rows = parsed
        if "--players" not in sys.argv:
            args.players = 4
        print(f"budget {BUDGET:.0f} s (--budget=S)")
        print(f"{'spec':22} {'players':>7} {'setting':13} {'s':>7}  searches; not proved")
        for spec in args.spec:
            runs = rows(spec)
            for setting, name in ((False, "search first"), (True, "look first")):
                r = runs[setting]
                print(f"{spec:22} {args.players:7d} {name:13} {statistics.median(x['seconds'] for x in r):7.1f}  "
                      f"{', '.join(r[0]['searches'])}; {', '.join(r[0]['unproved']) or '-'}")
            ratio = statistics.median(x["seconds"] for x in runs[True]) / \
                statistics.median(x["seconds"] for x in runs[False])
            print(f"{spec:22} look first / search first: {ratio:.2f}")
