"""Benchmark: a decision point's loop positions split innermost first, or all at once.

    .venv/bin/python benchmarks/position_splits.py                       # Ramen, 2 players
    .venv/bin/python benchmarks/position_splits.py --players 3 --budget=60
    .venv/bin/python benchmarks/position_splits.py --spec ramen --spec wasabi --runs 2

Where the walk from a move to the next decision point cannot run with the positions of the loops
around the move left free, the relation splits them into cases. With
`relation.SPLIT_INNERMOST_FIRST` it splits the innermost loop's first and one loop more only while
the walk still fails; off, it splits every loop at once (before the forty-fourth stop). For both
settings, in interleaved rounds, each in a fresh process: the CPU seconds to build every
alternative of the transition relation (and how many there are), then `rulebook verify` on that
player count alone (`--budget` seconds, default 60, one job, no cache): its results proved. Prints
the build's ratio on / off (below 1: faster); nothing is asserted (the machine is shared:
compare within one run).
"""
from __future__ import annotations

import contextlib
import io
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.ab_runs import main_or_child, passed_on, proved_table  # noqa: E402

BUDGET = passed_on("budget", "POSITION_SPLITS_BUDGET", "60")


def one(spec: str, players: int, on: bool) -> dict:
    """The build and a verify run with the setting, in this process (the child's side)."""
    from verifier import cli
    from verifier.frontend import load_program
    from verifier.smt import relation

    relation.SPLIT_INNERMOST_FIRST = on
    path = ROOT / "spec" / f"{spec}.rules"
    program, _ = load_program(path)
    rel = relation.Relation(program, players, {})
    t0 = time.process_time()
    count = sum(len(rel.alternatives(d)) for d in range(len(program.decisions)))
    seconds = time.process_time() - t0
    del rel
    with tempfile.TemporaryDirectory() as tmp:
        saved = Path(tmp) / "verify.json"
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            cli.main(["verify", str(path), "--players", str(players), "--budget", BUDGET, "--no-cache",
                      "--jobs", "1", "--no-progress", "--save-json", str(saved)])
        results = json.loads(saved.read_text())["reports"][0]["results"]
    proved = sorted(r["name"] for r in results if r["status"] == "proved")
    return {"seconds": seconds, "alternatives": count, "proved": proved, "results": len(results),
            "missing": sorted(r["name"] for r in results if r["status"] != "proved")}


def main() -> None:
    parent = main_or_child(__file__, __doc__.splitlines()[0], one, ["ramen"], 1)
    if parent is None:
        return
    args, runs = parent
    print(f"verify --budget {BUDGET} (--budget=S); CPU s: building the relation's alternatives")

    def with_counts(spec: str) -> dict:
        rows = runs(spec)
        for setting, name in ((False, "all at once"), (True, "innermost first")):
            print(f"{spec:10} {args.players:7d} {name:15} {rows[setting][0]['alternatives']:5d} alternatives")
        return rows
    proved_table(args, with_counts, "all at once", "innermost first", "results")


if __name__ == "__main__":
    main()
