"""Benchmark: two searches of a player count that stop where they can no longer help, or run on
(as before the forty-first stop).

    .venv/bin/python benchmarks/early_stops.py                                # a sealed bid, 6 players
    .venv/bin/python benchmarks/early_stops.py --spec ramen_ink --players 2
    .venv/bin/python benchmarks/early_stops.py --spec kuhn_poker --players 9 --runs 2 --budget=60

The two stops:
- the search for witness games (`score_witness.extreme_games`) ends where each witness meets
  its proved bound, the bounds being proved first (off: no bounds given, random play's witnesses
  not passed in);
- the exhaustive search gives way before a growing level that its time cannot finish
  (`falsify._cannot_finish`; off: never).

One player count verified as `rulebook verify` verifies a count among several (`verify_players`,
no search lane), `--budget=S` (default 60) for it. For both settings, in interleaved rounds, each
in a fresh process: the count's seconds (wall clock), the exhaustive search's and the witness
search's seconds, the sum of the score gaps and the results not proved. Prints the ratio on /
off; nothing is asserted (the machine is shared: compare within one run). A name is a seed spec
of `spec/` or an example of `spec/examples/`.
"""
from __future__ import annotations

import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.ab_runs import main_or_child, passed_on  # noqa: E402

BUDGET = float(passed_on("budget", "EARLY_STOPS_BUDGET", "60"))


def one(spec: str, players: int, on: bool) -> dict:
    import time

    from verifier.engine.runtime import Engine
    from verifier.frontend import load_program
    from verifier.verify import falsify, run

    path = ROOT / "spec" / f"{spec}.rules"
    program, _ = load_program(str(path if path.exists() else ROOT / "spec" / "examples" / f"{spec}.rules"))
    spent = {"exhaustive": 0.0, "witness": 0.0}
    exhaustive, witness = falsify.Falsifier.exhaustive, run.extreme_games

    def timed_exhaustive(self, *args, **kw):
        t = time.perf_counter()
        try:
            return exhaustive(self, *args, **kw)
        finally:
            spent["exhaustive"] += time.perf_counter() - t

    def timed_witness(*args, **kw):
        if not on:
            kw.pop("bounds", None)
            kw.pop("known", None)
        t = time.perf_counter()
        try:
            return witness(*args, **kw)
        finally:
            spent["witness"] += time.perf_counter() - t
    falsify.Falsifier.exhaustive = timed_exhaustive
    run.extreme_games = timed_witness
    if not on:
        falsify._cannot_finish = lambda *args: False
    t0 = time.perf_counter()
    results, bounds, _lengths = run.verify_players(program, Engine(program), players, {},
                                                   run.Budget(proof=BUDGET), lanes=1)
    return {"seconds": time.perf_counter() - t0, **spent,
            "gaps": sum(b["gap"] for b in bounds if b.get("gap") is not None),
            "unproved": [r.name for r in results if r.status != "proved"]}


if __name__ == "__main__":
    parsed = main_or_child(__file__, __doc__.splitlines()[0], one, ["first_sealed_auction"], 1)
    if parsed is not None:
        args, rows = parsed
        if "--players" not in sys.argv:
            args.players = 6
        print(f"budget {BUDGET:.0f} s (--budget=S)")
        print(f"{'spec':22} {'players':>7} {'setting':8} {'s':>6} {'exh. s':>6} {'wit. s':>6} {'gaps':>5}  not proved")
        for spec in args.spec:
            runs = rows(spec)
            for setting, name in ((False, "run on"), (True, "stop")):
                r = runs[setting]
                med = {k: statistics.median(x[k] for x in r) for k in ("seconds", "exhaustive", "witness")}
                print(f"{spec:22} {args.players:7d} {name:8} {med['seconds']:6.1f} {med['exhaustive']:6.1f} "
                      f"{med['witness']:6.1f} {r[0]['gaps']:5d}  {', '.join(r[0]['unproved']) or '-'}")
            ratio = statistics.median(x["seconds"] for x in runs[True]) / \
                statistics.median(x["seconds"] for x in runs[False])
            print(f"{spec:22} stop / run on: {ratio:.2f}")
