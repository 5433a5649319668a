"""Benchmark: a move's run-time checks refuted by models first, against sliced one by one.

    .venv/bin/python benchmarks/check_models.py                       # Ramen's decision point 5, Ramen Ink, 2 players
    .venv/bin/python benchmarks/check_models.py --spec ramen_ink --runs 3

`well_formed` asks every run-time check of every move (`Prover.obligations` in
`verifier/smt/prove.py`) over the proved facts. A first query asks them all at once; when it is
satisfiable, its model now refutes every check false in it and the rest are asked again
(`Prover._glance`), so a move whose checks partly fail is settled in a few whole queries. Before,
any satisfiable glance sent each check to a sliced query of its own (`_sliced_holds`, about 0.1 s
each on Ramen's moves), then to the whole-query Houdini. For both settings, in interleaved
rounds, each in a fresh process, with the interval facts as the proved invariants: the seconds of
the obligations (CPU), the checks not proved and how many of them have a counterexample, and
whether both leave the same checks unproved. Prints the ratio models / slices (below 1: faster);
nothing is asserted (the machine is shared: compare ratios within one run). Wasabi!'s glances
give up rather than find a model, so both settings slice its checks (a run of each was stopped
unfinished after 10 minutes or more).
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

# the decision points asked (default: all): Ramen's from 6 on take minutes each the old way (about
# 17 s per move of the 1-swap's 108), so the benchmark keeps to its Grunchie's chance move
DECISIONS = {"ramen": [5]}


def one(spec: str, players: int, by_models: bool) -> dict:
    """The obligations of the chosen decision points, in this process (the child's side)."""
    from verifier.engine.runtime import Engine, Game
    from verifier.frontend import load_program
    from verifier.smt.encode import and_all, not_, z3
    from verifier.smt.engines.intervals import analyse
    from verifier.smt.prove import GLANCE_MS, Prover
    from verifier.smt.relation import Candidate
    from verifier.smt.system import System
    from verifier.verify.invariants import _interval_lemma

    if not by_models:
        def glance(self, sol, goals, failing, d, alt, deadline):  # one query: all hold, or each on its own
            sol.set("timeout", min(GLANCE_MS, self._call_ms()))
            try:
                return {} if sol.check(not_(and_all(goals.values()))) == z3.unsat else goals
            finally:
                sol.set("timeout", self._call_ms())
        Prover._glance = glance
    program, _ = load_program(ROOT / "spec" / f"{spec}.rules")
    game = Game(Engine(program), players, {})
    prover = Prover(program, players, dict(game.option_values), 10)
    system = System(prover.rel)
    for d in system.decisions:
        system.transitions(d)
    lemma = _interval_lemma(system, analyse(system, None))
    prover.proved = [Candidate("intervals", "", None, lambda s, sn: lemma)]
    chosen = DECISIONS.get(spec)
    if chosen is not None:
        every = prover.decisions
        prover.decisions = lambda: [d for d in every() if d in chosen]
    t0 = time.process_time()
    verdict = prover.obligations()
    seconds = time.process_time() - t0
    unproved = sorted({(o.sentence, str(o.span)) for _, _, o, _ in prover.unproved_checks})
    return {"seconds": seconds, "status": verdict.status, "unproved": unproved, "checks": len(prover.unproved_checks),
            "refuted": len(prover.failed_checks), "decisions": chosen or "all"}


def main() -> None:
    parent = main_or_child(__file__, __doc__.splitlines()[0], one, ["ramen", "ramen_ink"], 1)
    if parent is None:
        return
    args, runs = parent
    # unproved: checks not proved (by place: a check of several moves counts once per move);
    # refuted: of those, with a counterexample (the rest: the solver gave up or time ran out)
    print(f"{'spec':10} {'setting':8} {'CPU s':>7} {'unproved':>9} {'refuted':>8} {'status':8} decision points")
    for spec in args.spec:
        rows = runs(spec)
        for by_models in (False, True):
            r = rows[by_models]
            print(f"{spec:10} {'models' if by_models else 'slices':8} {statistics.median(x['seconds'] for x in r):7.1f} "
                  f"{r[0]['checks']:9d} {r[0]['refuted']:8d} {r[0]['status']:8} {r[0]['decisions']}")
        same = all(x["unproved"] == rows[True][0]["unproved"] for x in rows[False] + rows[True])
        ratio = statistics.median(x["seconds"] for x in rows[True]) / statistics.median(x["seconds"] for x in rows[False])
        print(f"{spec:10} models / slices: {ratio:.2f}; unproved checks {'identical' if same else 'DIFFER'}")


if __name__ == "__main__":
    main()
