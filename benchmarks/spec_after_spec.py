"""Benchmark: a spec verified after others in one `rulebook verify` command, in its own process
(`verify(..., isolated=True)`, what the command does) or in the command's process (as before).

    .venv/bin/python benchmarks/spec_after_spec.py
    .venv/bin/python benchmarks/spec_after_spec.py --budget=60 --runs=2

A count verified alone runs its proofs in the process that calls `verify`, and Z3 keeps the
memory it took; the worker processes of every later spec are forked from that process. Three
settings, in interleaved rounds, each a fresh `rulebook verify --no-cache -v` process: pig
alone; pig after checkers and oware, each spec isolated; the same in the command's own process
(`isolated=False`, and `lift`'s memory kept from spec to spec, as before). For pig it prints the
mean seconds of its Spacer queries on the run-time checks (the time from one `Spacer on check`
line of a count to its next line), its results not as the spec expects, and its seconds. The
ratios compare the settings within one run; nothing is asserted (the machine is shared).
"""
from __future__ import annotations

import re
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.ab_runs import passed_on  # noqa: E402

BEFORE = ["spec/examples/checkers.rules", "spec/examples/oware.rules"]
LAST = "spec/examples/pig.rules"
LINE = re.compile(r"^\[\s*([\d.]+)s\] (\S+): (\d+) players: (.*)$")


BUDGET = passed_on("budget", "SPEC_AFTER_SPEC_BUDGET", "60")
RUNS = int(passed_on("runs", "SPEC_AFTER_SPEC_RUNS", "1"))

# the child: `rulebook verify`, with the isolation and the memo's clearing undone when asked
CHILD = r"""
import sys
from verifier import cli
from verifier.verify import run
if sys.argv[1] == "shared":
    plain = run.verify
    run.verify = lambda *a, isolated=False, **k: plain(*a, **k)
    run.forget_lifted = lambda: None  # (the command imports `verify` from run when it runs)
sys.argv = ["rulebook", "verify", *sys.argv[2:]]
cli.main()
"""


def measure(setting: str, specs: list) -> dict:
    cmd = [sys.executable, "-c", CHILD, setting, *specs, "--budget", BUDGET, "--no-cache", "--no-progress", "-v"]
    out = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
    last = Path(LAST).name
    spacer, opened, unknown, seconds = [], {}, 0, None
    for line in out.splitlines():
        m = LINE.match(line)
        if m and m.group(2) == last:
            t, n, what = float(m.group(1)), m.group(3), m.group(4)
            if n in opened:
                spacer.append(t - opened.pop(n))
            if what.startswith("Spacer on check"):
                opened[n] = t
        if line.startswith("[") and f"{last}, " in line and "expected proved" in line:
            unknown += 1
    totals = re.findall(r"^\s+\d+ results, .*?([\d.]+) s$", out, re.M)  # one per spec, pig's last
    if totals:
        seconds = float(totals[-1])
    return {"spacer": statistics.mean(spacer) if spacer else float("nan"), "queries": len(spacer),
            "unknown": unknown, "seconds": seconds}


def main() -> None:
    settings = [("alone", "isolated", [LAST]), ("after, isolated", "isolated", BEFORE + [LAST]),
                ("after, shared", "shared", BEFORE + [LAST])]
    rows = {name: [] for name, _, _ in settings}
    for _ in range(RUNS):
        for name, setting, specs in settings:
            rows[name].append(measure(setting, specs))
    print(f"pig's Spacer queries on its checks, budget {BUDGET} s per count, {RUNS} round(s)")
    print(f"{'setting':18} {'Spacer s/query':>15} {'queries':>8} {'unexpected unknown':>19} {'pig s':>7}")
    for name, runs in rows.items():
        mean = statistics.mean(r["spacer"] for r in runs)
        print(f"{name:18} {mean:15.2f} {sum(r['queries'] for r in runs) / len(runs):8.0f} "
              f"{sum(r['unknown'] for r in runs) / len(runs):19.1f} "
              f"{statistics.mean(r['seconds'] or float('nan') for r in runs):7.1f}")
    base = statistics.mean(r["spacer"] for r in rows["alone"])
    for name in ("after, isolated", "after, shared"):
        print(f"Spacer s/query, {name} / alone: {statistics.mean(r['spacer'] for r in rows[name]) / base:.2f}")


if __name__ == "__main__":
    main()
