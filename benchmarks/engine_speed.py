"""Engine speed (issue 15): one row per game, the compiled engine against its reference.

    .venv/bin/python benchmarks/engine_speed.py            # about a minute and a half
    .venv/bin/python benchmarks/engine_speed.py --quick    # about 20 s, noisier
    .venv/bin/python benchmarks/engine_speed.py --only hex,pig --profile   # cProfile our side

* Every example with an OpenSpiel counterpart: full random games per second through one
  Python loop (`playout`, OpenSpiel's state API) on our spec registered in pyspiel
  (`verifier.openspiel.load`) and on `pyspiel.load_game(name, params)`, OpenSpiel's C++
  game driven from Python.  Target: ours / C++ >= 0.5.  `direct`: the same engine's runtime
  `GameState` in the same loop (no pyspiel in between).  The clone column runs the same games
  with a `clone()` before every step (what a tree search pays per child).  The floor row is a
  game without rules hosted in pyspiel (`floor_game.py`): what pyspiel's hosting of a Python
  game costs per step before any rule runs.
* Every seed game: the compiled engine (runtime `GameState`, `play.random_step`) against its
  hand-written oracle (`engine_vs_oracle.py`).  Target: engine / oracle >= 1.5.

Rounds are interleaved (A B A B ...) so drift in the machine's load hits both sides alike;
the figures are medians of the rounds, and only the ratios of one run mean anything.
Nothing here is asserted (benchmarks/README.md).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for extra in (ROOT, Path(__file__).resolve().parent):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

import pyspiel  # noqa: E402

from engine_vs_oracle import engine_vs_oracle  # noqa: E402  (benchmarks/engine_vs_oracle.py)

CPP_TARGET = 0.5     # issue 15: every example at least half its C++ counterpart's speed
ORACLE_TARGET = 1.5  # issue 15: every seed engine at least 1.5x its oracle

# spec in spec/examples/, pyspiel name, pyspiel parameters, the spec's options (the same
# settings), players.  OpenSpiel's defaults, except goofspiel's 5 cards (the spec's default).
OPENSPIEL_ROWS = (
    ("tictactoe", "tic_tac_toe", {}, {}, 2),
    ("pig", "pig", {}, {}, 2),
    ("kuhn_poker", "kuhn_poker", {}, {}, 2),
    ("goofspiel", "goofspiel", {"num_cards": 5}, {}, 2),
    ("nim", "nim", {}, {}, 2),
    ("breakthrough", "breakthrough", {}, {}, 2),
    ("dots_and_boxes", "dots_and_boxes", {}, {}, 2),
    ("oware", "oware", {}, {}, 2),
    ("hex", "hex", {}, {}, 2),
    ("clobber", "clobber", {}, {}, 2),
    ("catch", "catch", {}, {}, 1),
    ("mancala", "mancala", {}, {}, 2),
    ("first_sealed_auction", "first_sealed_auction", {}, {}, 2),
    ("tiny_hanabi", "tiny_hanabi", {}, {}, 2),
    ("leduc_poker", "leduc_poker", {}, {}, 2),
    ("tiny_bridge_2p", "tiny_bridge_2p", {}, {}, 2),
    ("checkers", "checkers", {}, {}, 2),
    ("blackjack", "blackjack", {}, {}, 1),
    ("battleship", "battleship", {}, {}, 2),
)


# ---------------------------------------------------------------- the one loop

def playout(state, rng: random.Random, clone: bool = False) -> int:
    """One random game through OpenSpiel's state API, as OpenSpiel's own examples drive a
    game (open_spiel/python/examples/example.py), ending by reading the returns (what a
    rollout is played for); `clone`: clone the state before each step.  Returns the number
    of steps."""
    steps = 0
    while not state.is_terminal():
        if clone:
            state = state.clone()
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            actions = [a for a, _ in outcomes]
            state.apply_action(rng.choices(actions, [p for _, p in outcomes])[0])
        elif state.is_simultaneous_node():
            joint = []
            for p in range(state.num_players()):
                legal = state.legal_actions(p)
                joint.append(legal[rng.randrange(len(legal))])
            state.apply_actions(joint)
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
        steps += 1
    state.returns()
    return steps


def timed_round(game, seconds: float, rng: random.Random, clone: bool) -> tuple[float, float]:
    """(games/s, steps/s) over about `seconds`; making the initial state counts."""
    games = steps = 0
    start = time.perf_counter()
    while True:
        steps += playout(game.new_initial_state(), rng, clone)
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return games / elapsed, steps / elapsed


def compare(sides: dict, rounds: int, seconds: float, clone: bool) -> dict:
    """Median games/s and steps/s of each side (name -> game) over interleaved rounds."""
    rng = random.Random(1)
    for game in sides.values():  # warm-up, not recorded
        timed_round(game, seconds / 4, rng, clone)
    rates: dict = {name: [] for name in sides}
    for _ in range(rounds):  # interleaved: noise hits every side alike
        for name, game in sides.items():
            rates[name].append(timed_round(game, seconds, rng, clone))
    return {name: {"games_per_s": statistics.median(r[0] for r in rs),
                   "steps_per_s": statistics.median(r[1] for r in rs)} for name, rs in rates.items()}


def openspiel_rows(rounds: int, seconds: float, only: set | None, clone: bool) -> list[dict]:
    """Per example: `adapter` (our spec registered in pyspiel), `direct` (the same engine's
    runtime GameState, which has the same state API, in the same loop: no pyspiel between) and
    `cpp` (pyspiel's own game)."""
    from verifier.openspiel import load

    out = []
    for spec, name, params, options, players in OPENSPIEL_ROWS:
        if only and spec not in only:
            continue
        entry = {"game": spec, "openspiel": name, "players": players}
        try:
            ours = load(ROOT / "spec" / "examples" / f"{spec}.rules", players, **options)
            sides = {"adapter": ours, "direct": ours.runtime_game, "cpp": pyspiel.load_game(name, params)}
            entry["plain"] = compare(sides, rounds, seconds, clone=False)
            if clone:
                entry["clone"] = compare({k: sides[k] for k in ("adapter", "cpp")}, rounds, seconds, clone=True)
        except Exception as exc:  # noqa: BLE001 - a benchmark reports, it does not stop
            entry["error"] = f"{type(exc).__name__}: {exc}"
        out.append(entry)
    return out


def floor_row(rounds: int, seconds: float) -> dict:
    """A game with no rules at all, written in Python and registered in pyspiel (nine moves,
    the same legal list each time, the Python-side queries defined as the adapter defines
    them), against C++ tic-tac-toe: what hosting any Python game in pyspiel costs per step.
    `apply_action` crosses into C++ and back twice (the mover, then `_apply_action`), which
    a C++ game does not."""
    import floor_game  # benchmarks/floor_game.py

    res = compare({"floor": floor_game.game(), "cpp": pyspiel.load_game("tic_tac_toe")}, rounds, seconds, False)
    return {"steps_ratio": res["floor"]["steps_per_s"] / res["cpp"]["steps_per_s"], **res}


def profile(only: set | None, seconds: float) -> None:
    """cProfile of our side of each selected row: where a move's time goes."""
    import cProfile
    import pstats

    from verifier.openspiel import load

    for spec, _, _, options, players in OPENSPIEL_ROWS:
        if only and spec not in only:
            continue
        game = load(ROOT / "spec" / "examples" / f"{spec}.rules", players, **options)
        prof = cProfile.Profile()
        prof.enable()
        timed_round(game, seconds, random.Random(1), False)
        prof.disable()
        print(f"==== {spec}")
        pstats.Stats(prof).sort_stats("tottime").print_stats(14)


# ---------------------------------------------------------------- report

def ratio(res: dict, a: str, b: str = "cpp") -> float:
    return res[a]["games_per_s"] / res[b]["games_per_s"]


def print_table(result: dict) -> None:
    print(f"engine speed: random full games/s, median of {result['rounds']} interleaved rounds of "
          f"{result['seconds']} s (load average {result['load']})")
    print("adapter: the spec registered in pyspiel (verifier/openspiel.py); direct: its runtime GameState in "
          "the same loop;")
    print(f"C++: pyspiel.load_game(name); ratio = adapter / C++ (target {CPP_TARGET}); clone: a clone() "
          f"before every step")
    print()
    print(f"{'game':<22}{'p':>2}{'adapter/s':>11}{'direct/s':>10}{'C++/s':>9}{'ratio':>7}{'direct':>8}"
          f"{'clone ratio':>13}")
    for e in result["openspiel"]:
        if "error" in e:
            print(f"{e['game']:<22}  error: {e['error']}")
            continue
        p = e["plain"]
        r = ratio(p, "adapter")
        line = (f"{e['game']:<22}{e['players']:>2}{p['adapter']['games_per_s']:>11.0f}"
                f"{p['direct']['games_per_s']:>10.0f}{p['cpp']['games_per_s']:>9.0f}{r:>7.2f}"
                f"{ratio(p, 'direct'):>8.2f}")
        line += f"{ratio(e['clone'], 'adapter'):>13.2f}" if "clone" in e else f"{'':>13}"
        print(line + ("" if r >= CPP_TARGET else "  below"))
    f = result.get("floor")
    if f:
        print(f"{'(no rules: the floor)':<24}{f['floor']['steps_per_s']:>9.0f} steps/s vs C++ tic-tac-toe "
              f"{f['cpp']['steps_per_s']:.0f}: {f['steps_ratio']:.2f} (a Python game hosted in pyspiel)")
    print()
    print(f"{'seed game':<22}{'p':>2}{'engine/s':>11}{'oracle/s':>10}{'ratio':>7}  target {ORACLE_TARGET}")
    for e in result["oracles"]:
        name = Path(e["spec"]).stem
        if "error" in e:
            print(f"{name:<22}  error: {e['error']}")
            continue
        r = e["engine_over_oracle"]
        print(f"{name:<22}{e['players']:>2}{e['engine_playouts_per_s']:>11.0f}{e['oracle_playouts_per_s']:>10.0f}"
              f"{r:>7.2f}" + ("" if r >= ORACLE_TARGET else "  below"))


def measure(quick: bool, only: set | None = None, clone: bool = True) -> dict:
    rounds, seconds = (3, 0.1) if quick else (5, 0.25)
    result = {"rounds": rounds, "seconds": seconds, "quick": quick,
              "load": " ".join(f"{x:.2f}" for x in os.getloadavg())}
    result["openspiel"] = openspiel_rows(rounds, seconds, only, clone)
    if not only:
        result["floor"] = floor_row(rounds, seconds)
    seeds = [e for e in ("ramen_ink", "ramen", "wasabi") if not only or e in only]
    result["oracles"] = engine_vs_oracle(rounds, 2 * seconds, seeds) if seeds else []
    return result


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer, shorter rounds")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--no-clone", action="store_true", help="skip the clone-per-step columns")
    ap.add_argument("--only", help="comma-separated game names (spec file stems)")
    ap.add_argument("--profile", action="store_true", help="cProfile our side of each selected example")
    args = ap.parse_args(argv)
    only = set(args.only.split(",")) if args.only else None
    if args.profile:
        profile(only, 1.0)
        return 0
    result = measure(args.quick, only, clone=not args.no_clone)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print_table(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
