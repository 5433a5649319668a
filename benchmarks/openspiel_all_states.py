"""OpenSpiel's `get_all_states` on tic-tac-toe: the adapter against OpenSpiel's C++ and Python games.

`get_all_states` is a tree search that clones a state per child, so it measures the adapter's
per-call overheads (pyspiel's Python-game clone, legal actions, apply, the C++/Python
trampolines) rather than the engine.  Three contenders walk the same tree to the same depth,
in interleaved rounds so that machine noise hits all alike; the figures are ratios of the
median times, measured in one run (never a timing assertion in a test):

- `rulebook / C++`: the adapter's time over `pyspiel.load_game("tic_tac_toe")`'s;
- `python game / C++`: OpenSpiel's own pure-Python `python_tic_tac_toe`, the floor any game
  written in Python reaches through pyspiel (its Clone makes a new initial state and
  deep-copies the Python attributes);
- `rulebook / python game`: the adapter against that floor.

    .venv/bin/python benchmarks/openspiel_all_states.py [--quick] [--depth N] [--json]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import pyspiel  # noqa: E402
from open_spiel.python.algorithms import get_all_states  # noqa: E402
from open_spiel.python.games import tic_tac_toe  # noqa: E402,F401 - registers python_tic_tac_toe

from verifier.openspiel import load  # noqa: E402


def contenders() -> dict:
    return {
        "C++ tic_tac_toe": pyspiel.load_game("tic_tac_toe"),
        "python_tic_tac_toe": pyspiel.load_game("python_tic_tac_toe"),
        "rulebook adapter": load(ROOT / "spec" / "examples" / "tictactoe.rules"),
    }


def measure(rounds: int, depth: int) -> dict:
    games = contenders()
    times: dict = {name: [] for name in games}
    counts: dict = {}
    for _ in range(rounds):
        for name, game in games.items():
            start = time.perf_counter()
            counts[name] = len(get_all_states.get_all_states(game, depth_limit=depth))
            times[name].append(time.perf_counter() - start)
    if len(set(counts.values())) != 1:
        raise SystemExit(f"the contenders found different numbers of states: {counts}")
    median = {name: statistics.median(ts) for name, ts in times.items()}
    cpp, python, ours = (median[n] for n in ("C++ tic_tac_toe", "python_tic_tac_toe", "rulebook adapter"))
    return {"depth": depth, "states": counts["rulebook adapter"], "rounds": rounds,
            "median_seconds": median,
            "rulebook_over_cpp": ours / cpp, "python_game_over_cpp": python / cpp,
            "rulebook_over_python_game": ours / python}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="3 rounds to depth 4 (default: 5 rounds to depth 5)")
    parser.add_argument("--depth", type=int, help="the depth limit (-1: the whole tree, 549,946 states)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rounds = 3 if args.quick else 5
    depth = args.depth if args.depth is not None else (4 if args.quick else 5)
    result = measure(rounds, depth)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"get_all_states on tic-tac-toe to depth {depth} ({result['states']:,} states), "
          f"median of {rounds} interleaved rounds")
    for name, seconds in result["median_seconds"].items():
        print(f"  {name:<20} {seconds:8.3f} s")
    print(f"  rulebook / C++          {result['rulebook_over_cpp']:6.1f}x the time")
    print(f"  python game / C++       {result['python_game_over_cpp']:6.1f}x the time")
    print(f"  rulebook / python game  {result['rulebook_over_python_game']:6.2f}x the time")


if __name__ == "__main__":
    main()
