"""Benchmark: definition calls instantiated by substitution (`encode.SUBSTITUTED_CALLS`) against
every call encoded at each state it meets.

    .venv/bin/python benchmarks/substituted_calls.py                          # the default specs, 2 players
    .venv/bin/python benchmarks/substituted_calls.py --spec wasabi --players 4 --runs 3

The workload is what `rulebook verify` builds before any proof: every alternative of every
decision point of the transition relation (`Relation.alternatives`, free state, default
options). For both settings, in interleaved rounds, each in a fresh process (the encoder's memo
must not carry over): CPU seconds, the alternatives built, and how many calls were instantiated.
Prints the ratio with / without (below 1: faster); nothing is asserted (the machine is shared:
compare ratios within one run). A spec is a name under `spec/` or `spec/examples/`.
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

DEFAULT = ["wasabi", "ramen_ink", "ramen", "battleship", "checkers", "oware"]


def spec_path(name: str) -> Path:
    for folder in (ROOT / "spec", ROOT / "spec" / "examples"):
        if (folder / f"{name}.rules").exists():
            return folder / f"{name}.rules"
    raise SystemExit(f"no spec named {name} under spec/ or spec/examples/")


def one(spec: str, players: int, substituted: bool) -> dict:
    """The relation built in this process (the child's side)."""
    from verifier.smt import encode
    encode.SUBSTITUTED_CALLS = substituted
    from verifier.frontend import load_program
    from verifier.smt.relation import Relation

    instantiated = []
    real = encode.substitute_value

    def counted(v, pairs):
        instantiated.append(1)
        return real(v, pairs)
    encode.substitute_value = counted
    program, _ = load_program(spec_path(spec))
    rel = Relation(program, players, {})
    t0 = time.process_time()
    count = sum(len(rel.alternatives(d)) for d in range(len(program.decisions)))
    return {"seconds": time.process_time() - t0, "alternatives": count, "instantiated": len(instantiated)}


def report(args, runs) -> None:
    print(f"{'spec':12} {'players':>7} {'setting':12} {'CPU s':>7} {'alternatives':>12} {'instantiated':>12}")
    for spec in args.spec:
        rows = runs(spec)
        for setting in (False, True):
            r = rows[setting]
            print(f"{spec:12} {args.players:7d} {'substituted' if setting else 'direct':12} "
                  f"{statistics.median(x['seconds'] for x in r):7.2f} {r[0]['alternatives']:12d} "
                  f"{r[0]['instantiated']:12d}")
        ratio = statistics.median(x["seconds"] for x in rows[True]) / statistics.median(x["seconds"] for x in rows[False])
        print(f"{spec:12} substituted / direct: {ratio:.2f}")


def main() -> None:
    parent = main_or_child(__file__, __doc__.splitlines()[0], one, DEFAULT, 3)
    if parent is not None:
        report(*parent)


if __name__ == "__main__":
    main()
