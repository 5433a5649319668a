"""Benchmark: the time to encode every alternative of the transition relation, per spec.

    .venv/bin/python benchmarks/encode_time.py                  # every bundled spec, its smallest player count
    .venv/bin/python benchmarks/encode_time.py --spec wasabi    # specs whose file name contains "wasabi"
    .venv/bin/python benchmarks/encode_time.py --players 3      # another player count (where the spec allows it)
    .venv/bin/python benchmarks/encode_time.py --profile 30     # cProfile of the run, top 30 by cumulative time

For each spec: the seconds to build `Relation(program, n, {}).alternatives(d)` for every
decision point d (free state, default options), the number of alternatives, and the slowest
decision point. This is what `rulebook verify` spends before any proof. Prints figures only;
nothing is asserted.
"""
from __future__ import annotations

import argparse
import cProfile
import glob
import pstats
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from verifier.frontend import load_program  # noqa: E402
from verifier.smt.relation import Relation  # noqa: E402


def encode_all(program, n: int) -> tuple[int, float, tuple[int, float]]:
    """(alternatives, seconds, (slowest decision point, its seconds))."""
    rel = Relation(program, n, {})
    count, slowest = 0, (-1, 0.0)
    start = time.perf_counter()
    for d in range(len(program.decisions)):
        t = time.perf_counter()
        count += len(rel.alternatives(d))
        slowest = max(slowest, (d, time.perf_counter() - t), key=lambda x: x[1])
    return count, time.perf_counter() - start, slowest


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--spec", default="", help="only specs whose file name contains this")
    ap.add_argument("--players", type=int, default=None)
    ap.add_argument("--profile", type=int, default=0, metavar="N", help="print the top N functions by cumulative time")
    args = ap.parse_args()
    paths = sorted(glob.glob(str(ROOT / "spec" / "*.rules")))
    paths += sorted(glob.glob(str(ROOT / "spec" / "examples" / "*.rules")))
    prof = cProfile.Profile() if args.profile else None
    total = 0.0
    for path in paths:
        if args.spec not in Path(path).name:
            continue
        program, _ = load_program(path)
        n = args.players or program.min_players
        if prof:
            prof.enable()
        count, seconds, (d, worst) = encode_all(program, n)
        if prof:
            prof.disable()
        total += seconds
        print(f"{Path(path).name:<20} {n} players  {count:4d} alternatives  {seconds:8.2f} s"
              f"   (slowest: decision point {d}, {worst:.2f} s)", flush=True)
    print(f"{'total':<20} {'':<34}{total:8.2f} s")
    if prof:
        pstats.Stats(prof).sort_stats("cumulative").print_stats(args.profile)


if __name__ == "__main__":
    main()
