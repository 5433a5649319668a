"""Throughput of `rulebook simulate`: scaling from 1 to 2 workers, and the cost of rule usage.

    .venv/bin/python benchmarks/simulate_throughput.py              # the three seed games
    .venv/bin/python benchmarks/simulate_throughput.py --games 200  # shorter, noisier
    .venv/bin/python benchmarks/simulate_throughput.py --rounds 3   # best of 3 per figure
    .venv/bin/python benchmarks/simulate_throughput.py --seconds 8  # more games for fast specs

Per spec (3 players where the spec allows, default options, random policy) it times the same
seeded games four ways, in one run, interleaved round by round so that a change of load hits
every variant alike:

- plain engine, 1 worker (this process) and 2 forked workers: the *scaling* ratio
  (games/s with 2 / games/s with 1; the issue's target is at least 1.8);
- instrumented (rule-usage) engine and plain engine, 1 worker: the *overhead* ratio
  (time with usage / time without - 1; the target is at most 20 %), in CPU time of this
  process (less disturbed by other jobs than the wall clock, which is printed too).

Each figure is the best of `--rounds` runs (the least disturbed one). Each spec plays at least
`--games` games and, where one worker would finish them in less than `--seconds`, as many more as
fill that time (a short probe first): Ramen's 500 games take one second, which forking the pool
and handing out its chunks then weigh too much in. The engines are compiled
before timing; the 2-worker time includes forking the pool. As a control, the same run first
measures what the machine gives two processes of pure arithmetic (`machine` scaling): with 2
cores and another job running, no program can scale past it, so the simulation's scaling is
also printed as a share of it. The load average is printed before and after. Nothing here
asserts a time.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verifier.simulate.api import make_setup  # noqa: E402
from verifier.simulate.play import build_game  # noqa: E402
from verifier.simulate.runner import run  # noqa: E402

SPECS = ["spec/ramen.rules", "spec/ramen_ink.rules", "spec/wasabi.rules"]


def timed(setup, games: int, jobs: int) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process: the whole run when jobs == 1)."""
    cpu = time.process_time()
    wall = run(setup, games, jobs).seconds
    return wall, time.process_time() - cpu


def _spin(n: int) -> int:
    total = 0
    for i in range(n):
        total += i * i
    return total


def machine_scaling(n: int = 10_000_000, rounds: int = 2) -> float:
    """Pure-CPU work in 1 process vs 2 forked ones: what this machine can give 2 workers now."""
    import multiprocessing
    one = two = float("inf")
    for _ in range(rounds):
        t = time.perf_counter()
        _spin(n), _spin(n)
        one = min(one, time.perf_counter() - t)
        t = time.perf_counter()
        with multiprocessing.get_context("fork").Pool(2) as pool:
            pool.map(_spin, [n, n])
        two = min(two, time.perf_counter() - t)
    return one / two


CHUNK = 25  # games per chunk of the runner: counts are whole chunks


def measure(spec: str, games: int, rounds: int, seconds: float = 0.0) -> dict:
    players = min(3, build_game(make_setup(spec, usage=False)).module.MAX_PLAYERS)
    plain = make_setup(spec, players, usage=False, seed=1)
    usage = make_setup(spec, players, usage=True, seed=1)
    build_game(plain), build_game(usage)  # compile outside the timings
    if seconds > 0:  # enough games that one worker needs about `seconds`
        probe = max(CHUNK, games // 5 // CHUNK * CHUNK)
        wall, _ = timed(plain, probe, 1)
        games = max(games, int(probe * seconds / max(wall, 1e-6)) // CHUNK * CHUNK)
    inf = float("inf")
    best = {"one": inf, "two": inf, "one_cpu": inf, "usage": inf, "usage_cpu": inf}
    for _ in range(rounds):
        wall, cpu = timed(plain, games, 1)
        best["one"], best["one_cpu"] = min(best["one"], wall), min(best["one_cpu"], cpu)
        best["two"] = min(best["two"], timed(plain, games, 2)[0])
        wall, cpu = timed(usage, games, 1)
        best["usage"], best["usage_cpu"] = min(best["usage"], wall), min(best["usage_cpu"], cpu)
    return {"spec": spec, "players": players, "games": games,
            "games_per_s_1": round(games / best["one"], 1), "games_per_s_2": round(games / best["two"], 1),
            "scaling": round(best["one"] / best["two"], 2),
            "games_per_s_usage": round(games / best["usage"], 1),
            "overhead_pct": round((best["usage_cpu"] / best["one_cpu"] - 1) * 100, 1),
            "overhead_wall_pct": round((best["usage"] / best["one"] - 1) * 100, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=500)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=4.0,
                    help="at least this much work for one worker per spec (0: exactly --games)")
    args = ap.parse_args()
    print(f"cores {os.cpu_count()}, load average before {os.getloadavg()[0]:.2f}")
    machine = machine_scaling()
    print(f"machine scaling (pure arithmetic, 2 processes vs 1): {machine:.2f}x")
    print(f"{'spec':<24}{'players':>8}{'games':>7}{'1 worker':>12}{'2 workers':>12}{'scaling':>9}{'of machine':>11}"
          f"{'with usage':>12}{'overhead':>10}{'(wall)':>9}")
    for spec in SPECS:
        r = measure(spec, args.games, args.rounds, args.seconds)
        print(f"{spec:<24}{r['players']:>8}{r['games']:>7}{r['games_per_s_1']:>10} /s{r['games_per_s_2']:>10} /s"
              f"{r['scaling']:>8}x{r['scaling'] / machine * 100:>10.0f}%{r['games_per_s_usage']:>10} /s"
              f"{r['overhead_pct']:>9}%"
              f"{r['overhead_wall_pct']:>8}%", flush=True)
    print(f"load average after {os.getloadavg()[0]:.2f} (targets: scaling >= 1.8x, overhead <= 20%)")


if __name__ == "__main__":
    main()
