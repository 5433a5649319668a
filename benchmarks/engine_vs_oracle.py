"""Compiled engine vs hand-written oracle: random full-game playouts per second.

Both sides play the same kind of game (uniformly random chance outcomes and
moves) for the same wall time, in interleaved rounds so that machine noise
hits both alike; the figure that matters is the ratio, measured in one run.
"""
from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for extra in (ROOT, ROOT / "tests"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from verifier.engine.play import random_step  # noqa: E402
from verifier.engine.runtime import Engine, Game  # noqa: E402
from verifier.frontend import load_program  # noqa: E402


def oracle_playout(oracle, players: int, rng: random.Random) -> None:
    """One random game through the lockstep protocol (tests/lockstep.py)."""
    while True:
        kind, _ = oracle.to_move()
        if kind == "terminal":
            return
        if kind == "chance":
            values = oracle.chance_values()
            oracle.apply_chance(values[rng.randrange(len(values))])
        elif kind == "simultaneous":
            joint = []
            for p in range(players):
                moves = list(oracle.legal_moves(p))
                joint.append(moves[rng.randrange(len(moves))])
            oracle.apply_joint(joint)
        else:
            moves = list(oracle.legal_moves())
            oracle.apply(moves[rng.randrange(len(moves))])


def engine_playout(game: Game, rng: random.Random) -> None:
    state = game.new_initial_state()
    while not state.is_terminal():
        random_step(state, rng)


def _ramen_ink(engine: Engine, players: int):
    from oracles.ramen_ink import RamenInkOracle
    from test_ramen_ink import catalogues
    orders, cards = catalogues(engine.module)
    return lambda: RamenInkOracle(players, orders, cards)


def _ramen(engine: Engine, players: int):
    from oracles.ramen import RamenOracle
    return lambda: RamenOracle(players)


def _wasabi(engine: Engine, players: int):
    from oracles.wasabi import WasabiOracle
    from test_wasabi import recipes_of
    recipes = recipes_of(engine.module)
    return lambda: WasabiOracle(players, recipes, turn_limit=120)


# spec, players, options for the engine, oracle factory
GAMES = (
    ("spec/ramen_ink.rules", 4, {}, _ramen_ink),
    ("spec/ramen.rules", 4, {}, _ramen),
    ("spec/wasabi.rules", 3, {"turn_limit": "120"}, _wasabi),
)


def _rate(play, seconds: float) -> float:
    games, start = 0, time.perf_counter()
    while True:
        play()
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return games / elapsed


def engine_vs_oracle(rounds: int, seconds: float, only=None) -> list[dict]:
    """`only`: the spec file stems to measure (all when None)."""
    out = []
    for spec, players, options, factory in GAMES:
        if only is not None and Path(spec).stem not in only:
            continue
        entry = {"spec": spec, "players": players}
        try:
            engine = Engine(load_program(str(ROOT / spec))[0])
            game = Game(engine, players, options)
            new_oracle = factory(engine, players)
        except Exception as exc:  # noqa: BLE001 - a benchmark reports, it does not stop
            entry["error"] = f"{type(exc).__name__}: {exc}"
            out.append(entry)
            continue
        rng_e, rng_o = random.Random(1), random.Random(1)
        engine_rates, oracle_rates = [], []
        for _ in range(rounds):  # interleaved, so noise hits both alike
            engine_rates.append(_rate(lambda: engine_playout(game, rng_e), seconds))
            oracle_rates.append(_rate(lambda: oracle_playout(new_oracle(), players, rng_o), seconds))
        e, o = statistics.median(engine_rates), statistics.median(oracle_rates)
        entry.update({"engine_playouts_per_s": e, "oracle_playouts_per_s": o, "engine_over_oracle": e / o})
        out.append(entry)
    return out
