"""Latency of the legality query (`rulebook query --move`) and time of a `--can` answer.

    .venv/bin/python benchmarks/query_latency.py            # legality on every seed game
    .venv/bin/python benchmarks/query_latency.py --can      # and the issue's --can questions

For each seed spec (2 players, default options) it plays seeded random games, stops at 100
player decisions spread over them, and times `verifier.query.check_move` on one legal and one
illegal move there (the move's text written as `play` prints it; illegal: a legal move's
parameters changed). It prints the median and the 90th percentile in milliseconds. The engine
is compiled once, as `rulebook query` does per call; the compile time is printed apart.
With --can it times `verifier.query.can` on the issue's questions (budget 30 s). Figures
depend on the machine's load; nothing here asserts a time.
"""
from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verifier.engine.play import random_step  # noqa: E402
from verifier.engine.runtime import Engine, Game  # noqa: E402
from verifier.frontend import load_program  # noqa: E402
from verifier.query import can, check_move, query_program  # noqa: E402
from verifier.query.position import Position  # noqa: E402

SPECS = ["spec/ramen.rules", "spec/ramen_ink.rules", "spec/wasabi.rules", "spec/examples/tictactoe.rules"]
CAN = [
    ("spec/ramen_ink.rules", "binned[0] == 8"),
    ("spec/ramen_ink.rules", "in_bowl(0, 1) == 7"),
    ("spec/ramen_ink.rules",
     "any(p in players: any(b in Bowl where orders[b].kind == single: in_bowl(p, b) == 6 and order_points(p, b) == 0))"),
    ("spec/ramen.rules", "any(p in players: any(b in BowlNo: cards_in(p, b) == 7))"),
    ("spec/wasabi.rules", "rewards > 0 and card_count(current) == 2"),
]


def positions(game: Game, wanted: int = 100):
    out, seed = [], 0
    while len(out) < wanted:
        st = game.new_initial_state()
        rng = random.Random(seed)
        seed += 1
        while not st.is_terminal() and len(out) < wanted:
            if st.current_player() >= 0 and rng.random() < 0.2:
                out.append(st.clone())
            random_step(st, rng)
    return out


def main() -> None:
    for spec in SPECS:
        t = time.perf_counter()
        engine = Engine(load_program(spec)[0])
        compile_ms = (time.perf_counter() - t) * 1000
        game = Game(engine, 2, bounded=True)
        times = []
        for st in positions(game):
            p = st.current_player()
            legal = st.legal_actions(p)
            a = legal[len(legal) // 2]
            text = st.action_to_string(p, a)
            pos = Position(game, st, "bench", [])
            for asked in (text, text + "x"):
                t = time.perf_counter()
                check_move(pos, asked)
                times.append((time.perf_counter() - t) * 1000)
        times.sort()
        print(f"{spec:32} legality query: median {statistics.median(times):6.1f} ms, "
              f"p90 {times[int(0.9 * len(times))]:6.1f} ms over {len(times)} queries (compile {compile_ms:.0f} ms)")
    if "--can" in sys.argv:
        for spec, expr in CAN:
            q = query_program(load_program(spec)[0], expr)
            a = can(q, 2, budget=30)
            print(f"{spec:24} --can {expr[:50]!r:54} {a.verdict:8} {a.method:12} {a.seconds:5.1f} s")


if __name__ == "__main__":
    main()
