"""Benchmark: small games as a new user writes them, verified with the default settings.

    .venv/bin/python benchmarks/new_user_games.py              # --budget 30, every game in benchmarks/new_user/
    .venv/bin/python benchmarks/new_user_games.py --budget 60 --json

Issue 11's target: a small game written without strengthening invariants or loop measures
(tic-tac-toe without its `decreases`, a Connect Four, a Kuhn poker) verifies clean within 30 s.
For each game this runs `rulebook verify GAME --budget B --no-cache --json` (every property at
every player count the spec allows), and prints whether the game came out clean (every result as
the spec expects), each result's status and method, the wall time, and the time as a share of
the budget. Figures only; nothing is asserted (tests/test_new_user_games.py checks the verdicts).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GAMES = sorted((ROOT / "benchmarks" / "new_user").glob("*.rules"))


def verify(path: Path, budget: float) -> tuple[dict, float, int]:
    cmd = [sys.executable, "-m", "verifier.cli", "verify", str(path), "--budget", str(budget),
           "--no-cache", "--json", "--no-progress"]
    t = time.perf_counter()
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - t
    report = json.loads(done.stdout)["reports"][0]
    return report, seconds, done.returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--budget", type=float, default=30.0, help="seconds per player count (default 30)")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = ap.parse_args()
    rows = []
    for path in GAMES:
        report, seconds, code = verify(path, args.budget)
        results = [(r["name"], r["players"], r["status"], r["method"]) for r in report["results"]]
        clean = all(r["status"] == r["expected"] for r in report["results"])
        rows.append({"game": path.name, "clean": clean, "exit": code, "seconds": round(seconds, 1),
                     "share_of_budget": round(seconds / args.budget, 2), "results": results})
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"rulebook verify GAME --budget {args.budget:g} --no-cache (wall time, share of the budget)")
    for row in rows:
        verdict = "clean" if row["clean"] else "NOT clean"
        print(f"{row['game']:<22} {verdict:<10} {row['seconds']:>6.1f} s  {row['share_of_budget']:.2f}")
        for prop, players, status, method in row["results"]:
            print(f"    {prop:<16} {players!s:<4} {status:<9} {method}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
