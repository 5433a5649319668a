"""Benchmark: one player count verified with its searches before its proofs, or beside them.

    .venv/bin/python benchmarks/search_lane.py --spec wasabi --players 2          # about 8 minutes
    .venv/bin/python benchmarks/search_lane.py --spec ramen_ink --players 5 --runs 2

`verify_players` with `lanes` 1 (random play, the endless-game search and the directed search
first, then the proofs, then a second directed search for what they left) and with `lanes` 2
(`verifier/verify/lanes.py`: after the exhaustive search, the searches run in a child process
while the parent proves; the second directed search too, once the invariants' proofs end). The default budget, in interleaved rounds, each in a fresh process;
for each: the wall seconds, when the proofs began (the transition system's build), and the
properties proved. Run it with nothing else on the machine: the lane takes the second core.
Prints figures only; nothing is asserted.
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.ab_runs import main_or_child  # noqa: E402


def one(spec: str, players: int, beside: bool) -> dict:
    from verifier.engine.runtime import Engine
    from verifier.frontend import load_program
    from verifier.verify.run import Budget, verify_players

    program, _ = load_program(str(ROOT / "spec" / f"{spec}.rules"))
    t0 = time.perf_counter()
    began = [None]

    def progress(text: str) -> None:
        if began[0] is None and "building the transition system" in text:
            began[0] = time.perf_counter() - t0

    results, _, _ = verify_players(program, Engine(program), players, {}, Budget(), progress, started=t0,
                                   lanes=2 if beside else 1)
    return {"seconds": time.perf_counter() - t0, "proofs_began": began[0],
            "proved": sorted(r.name for r in results if r.status == "proved"),
            "open": sorted(r.name for r in results if r.status == "unknown"), "total": len(results)}


def main() -> None:
    parent = main_or_child(__file__, __doc__.splitlines()[0], one, ["wasabi"], 1)
    if parent is None:
        return
    args, runs = parent
    print(f"{'spec':10} {'players':>7} {'searches':8} {'wall s':>7} {'proofs began':>12} {'proved':>7}  not proved")
    for spec in args.spec:
        rows = runs(spec)
        for setting, name in ((False, "first"), (True, "beside")):
            for r in rows[setting]:
                print(f"{spec:10} {args.players:7d} {name:8} {r['seconds']:7.1f} {r['proofs_began'] or 0:12.1f} "
                      f"{len(r['proved']):3d}/{r['total']:<3d}  {', '.join(r['open']) or '-'}")
        began = [statistics.median(r["proofs_began"] or 0 for r in rows[s]) for s in (False, True)]
        print(f"{spec:10} proofs began, beside / first: {began[1] / began[0]:.2f}")


if __name__ == "__main__":
    main()
