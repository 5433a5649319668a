"""Benchmark: `rulebook verify` time per spec and per property, in one run.

    .venv/bin/python benchmarks/verify_time.py                 # every bundled spec, its smallest player count
    .venv/bin/python benchmarks/verify_time.py --budget 60     # proof budget per player count (default 120 s)
    .venv/bin/python benchmarks/verify_time.py --json

For each spec: the time of each property's check (search, proofs, termination), the total,
and the ratio of the total to the time of 300 random games of the same setting (the search
`verify` starts with): a machine-independent measure of what proving costs over playing.
Prints figures only; nothing is asserted.
"""
from __future__ import annotations

import argparse
import glob
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from verifier.engine.play import random_step  # noqa: E402
from verifier.engine.runtime import Engine, Game  # noqa: E402
from verifier.frontend import load_program  # noqa: E402
from verifier.verify.run import Budget, verify  # noqa: E402


def play_seconds(game: Game, games: int = 300) -> float:
    rng = random.Random(1)
    t = time.perf_counter()
    for _ in range(games):
        st = game.new_initial_state()
        while not st.is_terminal() and len(st.history) < 5000:
            random_step(st, rng)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--budget", type=float, default=120.0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = []
    for path in sorted(glob.glob(str(ROOT / "spec" / "*.rules"))) + sorted(glob.glob(str(ROOT / "spec" / "examples" / "*.rules"))):
        program, _ = load_program(path)
        n = program.min_players
        t = time.perf_counter()
        report = verify(program, {}, players=[n], budget=Budget(proof=args.budget))
        total = time.perf_counter() - t
        base = play_seconds(Game(Engine(program), n, {}))
        rows.append({"spec": Path(path).name, "players": n, "seconds": round(total, 1),
                     "verify_over_300_games": round(total / base, 1),
                     "properties": {r.name: {"status": r.status, "method": r.method, "seconds": round(r.seconds, 1)}
                                    for r in report.results}})
        if not args.json:
            print(f"{Path(path).name} ({n} players): {total:.1f} s = {total / base:.1f} x the time of 300 random games")
            for r in report.results:
                print(f"    {r.name:<24} {r.status:<9} {r.method:<13} {r.seconds:7.1f} s")
    if args.json:
        print(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
