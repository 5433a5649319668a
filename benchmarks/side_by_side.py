"""Benchmark: several specs in one `rulebook verify`, one after another (as before the
thirty-ninth stop) or their player counts side by side in one pool of processes.

    .venv/bin/python benchmarks/side_by_side.py                  # four one-count examples, --budget=20
    .venv/bin/python benchmarks/side_by_side.py --spec checkers,hex,pig --budget=30 --runs 2

A `--spec` is a comma-separated list of examples of `spec/examples/`, verified as the command
line verifies them with `--jobs 2` (no cache), `--budget=S` (default 20) per count: one after
another (`verify(..., jobs=2, isolated=True)`: a spec's counts side by side, a count alone with
its search lane) or side by side (`side_by_side.verify_side_by_side`). For both settings, in
interleaved rounds, each in a fresh process: the wall seconds and, per spec, the results not
proved. Prints the ratio side by side / one after another; nothing is asserted (the machine is
shared: compare within one run). `--players` is not used (every count of each spec).
"""
from __future__ import annotations

import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.ab_runs import example_program, main_or_child, passed_on  # noqa: E402

BUDGET = float(passed_on("budget", "SIDE_BY_SIDE_BUDGET", "20"))
JOBS = 2


def one(specs: str, _players: int, on: bool) -> dict:
    import time

    from verifier.verify.run import Budget, verify
    from verifier.verify.side_by_side import SpecRun, verify_side_by_side

    programs = [example_program(name) for name in specs.split(",")]
    budget = Budget(proof=BUDGET)
    t0 = time.perf_counter()
    if on:
        reports = list(verify_side_by_side([SpecRun(p, {}, None, budget) for p in programs], JOBS))
    else:
        reports = [verify(p, {}, None, budget, jobs=JOBS, isolated=True) for p in programs]
    return {"seconds": time.perf_counter() - t0,
            "unproved": {Path(r.spec).stem: sum(x.status == "unknown" for x in r.results) for r in reports}}


if __name__ == "__main__":
    parsed = main_or_child(__file__, __doc__.splitlines()[0], one, ["checkers,hex,mancala,oware"], 1)
    if parsed is not None:
        args, rows = parsed
        print(f"budget {BUDGET:.0f} s a count (--budget=S), {JOBS} processes")
        for specs in args.spec:
            runs = rows(specs)
            for setting, name in ((False, "one after another"), (True, "side by side")):
                r = runs[setting]
                print(f"{name:18} {statistics.median(x['seconds'] for x in r):7.1f} s  unknown: "
                      + ", ".join(f"{k} {v}" for k, v in r[0]["unproved"].items()))
            ratio = statistics.median(x["seconds"] for x in runs[True]) / \
                statistics.median(x["seconds"] for x in runs[False])
            print(f"{specs}: side by side / one after another: {ratio:.2f}")
