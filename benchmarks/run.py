"""Benchmarks: compile time and random-playout speed of every spec,
tic-tac-toe against OpenSpiel's C++ and Python implementations, and the engine speed
table (`engine_speed.py`: every example against its OpenSpiel C++ game, every seed engine
against its oracle).

    .venv/bin/python benchmarks/run.py            # full run (about three minutes)
    .venv/bin/python benchmarks/run.py --quick    # a few seconds, noisier
    .venv/bin/python benchmarks/run.py --json     # the same figures as JSON

Prints figures only; nothing here is asserted (see benchmarks/README.md).
"""
from __future__ import annotations

import argparse
import glob
import json
import platform
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import pyspiel  # noqa: E402

from verifier.engine.play import random_step  # noqa: E402
from verifier.engine.runtime import Engine, Game  # noqa: E402
from verifier.frontend import load_program  # noqa: E402

import handwritten_tictactoe  # noqa: E402  (benchmarks/handwritten_tictactoe.py)
import engine_speed  # noqa: E402  (benchmarks/engine_speed.py)

MAX_STEPS = 100_000  # a playout longer than this is cut off and counted as unfinished


def spec_paths() -> list[str]:
    paths = sorted(glob.glob(str(ROOT / "spec" / "*.rules"))) + \
        sorted(glob.glob(str(ROOT / "spec" / "examples" / "*.rules")))
    return [str(Path(p).relative_to(ROOT)) for p in paths]


def compile_once(path: str) -> Engine:
    program, _ = load_program(path)  # parse + lower + type-check
    return Engine(program)           # codegen + exec of the generated module


def compile_time(path: str, repeats: int = 3) -> tuple[float, Engine]:
    best, engine = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        engine = compile_once(path)
        best = min(best, time.perf_counter() - start)
    return best, engine


def runtime_playouts(game: Game, seconds: float, seed: int = 0) -> dict:
    """Full random games (play.py's random_step: chance, simultaneous and turns) for `seconds`."""
    rng = random.Random(seed)
    games = steps = unfinished = 0
    start = time.perf_counter()
    while True:
        state = game.new_initial_state()
        n = 0
        while not state.is_terminal() and n < MAX_STEPS:
            random_step(state, rng)
            n += 1
        unfinished += not state.is_terminal()
        games += 1
        steps += n
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
    return {"games": games, "seconds": elapsed, "playouts_per_s": games / elapsed,
            "steps_per_s": steps / elapsed, "mean_length": steps / games, "unfinished": unfinished}


# ---------------------------------------------------------------- tic-tac-toe comparison

def playout(state, rng: random.Random) -> None:
    """One random game on any sequential OpenSpiel-style state; no clones."""
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])


def timed_round(new_state, seconds: float, rng: random.Random) -> float:
    """Playouts per second (initial-state creation included) over about `seconds`."""
    games = 0
    start = time.perf_counter()
    while True:
        playout(new_state(), rng)
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return games / elapsed


def tictactoe_comparison(rounds: int, seconds: float) -> dict:
    from open_spiel.python.games import tic_tac_toe  # noqa: F401 - registers python_tic_tac_toe

    from verifier.openspiel import load

    spec = str(ROOT / "spec" / "examples" / "tictactoe.rules")
    contenders = {
        "rulebook compiled (runtime GameState)": Game(compile_once(spec)).new_initial_state,
        "OpenSpiel C++ tic_tac_toe (via pyspiel)": pyspiel.load_game("tic_tac_toe").new_initial_state,
        "OpenSpiel Python python_tic_tac_toe": pyspiel.load_game("python_tic_tac_toe").new_initial_state,
        "rulebook via pyspiel adapter": load(spec).new_initial_state,
        "minimal hand-written Python": handwritten_tictactoe.State,
    }
    rates = {name: [] for name in contenders}
    rng = random.Random(1)
    for name, new_state in contenders.items():  # warm-up, not recorded
        timed_round(new_state, min(seconds, 0.05), rng)
    for _ in range(rounds):  # interleaved: A B C D, A B C D, ... so drift hits all alike
        for name, new_state in contenders.items():
            rates[name].append(timed_round(new_state, seconds, rng))
    medians = {name: statistics.median(r) for name, r in rates.items()}
    names = list(contenders)
    return {
        "rounds": rounds,
        "seconds_per_round": seconds,
        "playouts_per_s": medians,
        "min_max": {name: (min(r), max(r)) for name, r in rates.items()},
        "compiled_over_cpp": medians[names[0]] / medians[names[1]],
        "compiled_over_openspiel_python": medians[names[0]] / medians[names[2]],
        "adapter_over_compiled": medians[names[3]] / medians[names[0]],
        "compiled_over_handwritten": medians[names[0]] / medians[names[4]],
        "handwritten_over_cpp": medians[names[4]] / medians[names[1]],
    }


# ---------------------------------------------------------------- main

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="short run: fewer, shorter measurements")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args(argv)
    playout_seconds = 0.3 if args.quick else 2.0
    rounds, round_seconds = (3, 0.1) if args.quick else (9, 0.4)

    result = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "quick": args.quick,
        "specs": [],
    }
    for path in spec_paths():
        entry = {"spec": path}
        try:
            seconds, engine = compile_time(path)
        except Exception as exc:  # noqa: BLE001 - a benchmark reports, it does not stop
            entry["error"] = f"{type(exc).__name__}: {exc}"
            result["specs"].append(entry)
            continue
        game = Game(engine)
        entry.update({"players": game.num_players, "compile_s": seconds,
                      **runtime_playouts(game, playout_seconds)})
        result["specs"].append(entry)
    result["tictactoe"] = tictactoe_comparison(rounds, round_seconds)
    result["engine_speed"] = engine_speed.measure(args.quick)  # the seed engines vs their oracles too

    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"rulebook benchmarks — Python {result['python']} on {result['machine']}"
          f"{' (quick)' if args.quick else ''}")
    print()
    print(f"{'spec':<34}{'players':>8}{'compile ms':>12}{'playouts/s':>12}{'steps/s':>11}{'mean len':>10}")
    for e in result["specs"]:
        if "error" in e:
            print(f"{e['spec']:<34}  error: {e['error']}")
            continue
        line = (f"{e['spec']:<34}{e['players']:>8}{e['compile_s'] * 1000:>12.1f}{e['playouts_per_s']:>12.0f}"
                f"{e['steps_per_s']:>11.0f}{e['mean_length']:>10.1f}")
        if e["unfinished"]:
            line += f"  ({e['unfinished']} unfinished after {MAX_STEPS} steps)"
        print(line)
    t = result["tictactoe"]
    print()
    print(f"tic-tac-toe random playouts/s, median of {t['rounds']} interleaved rounds of {t['seconds_per_round']} s:")
    for name, rate in t["playouts_per_s"].items():
        lo, hi = t["min_max"][name]
        print(f"  {name:<42}{rate:>10.0f}   (range {lo:.0f}..{hi:.0f})")
    for label, key in (("compiled / C++", "compiled_over_cpp"),
                       ("compiled / OpenSpiel Python", "compiled_over_openspiel_python"),
                       ("adapter / compiled", "adapter_over_compiled"),
                       ("compiled / hand-written", "compiled_over_handwritten"),
                       ("hand-written / C++", "handwritten_over_cpp")):
        print(f"  {label + ':':<29}{t[key]:.3f}   (inverse {1 / t[key]:.2f})")
    print()
    engine_speed.print_table(result["engine_speed"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
