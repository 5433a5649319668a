"""Benchmark: the older engine's claims, asked per successor case or per path, conjunct by conjunct.

    .venv/bin/python benchmarks/claim_paths.py --spec ramen_ink --players 4
    .venv/bin/python benchmarks/claim_paths.py --spec ramen_ink --players 5   # about half an hour

The older mutual induction (`Prover._fixpoint` in `verifier/smt/prove.py`) asked a claim once per
decision point a move can lead to, with the successor merged over every way the flow runs there
(the same seat's next draw, the next seat's, the next round's after the bowls are served). Now
(the "on" setting) it asks the claims once per way (`successor_paths`), each goal specialised to
it and less the conjuncts that read as before the move (`Prover._what_changes`), and a claim the
solver gives up on as a whole is asked conjunct by conjunct (`Prover._each_conjunct`). The frame
facts keep one case per decision point in both settings.

The claims are those `verify` leaves to the older engine on that game (`CLAIMS`); the spec's
other invariants are given as lemmas, as the sliced induction proves them there. For both
settings, in interleaved rounds, each in a fresh process: the older engine's `invariants()`
without a deadline (its frame-fact fixpoint included, the same in both), CPU seconds, and each
claim's verdict. Prints the ratio on / off (below 1: faster); nothing is asserted (the machine
is shared: compare ratios within one run).
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

# the claims the sliced induction leaves to the older engine in `verify` (docs/architecture.md)
CLAIMS = {"ramen_ink": ["served_scored", "three_adjacent"]}


def one(spec: str, players: int, paths: bool) -> dict:
    """The older engine on the spec's hard claims, in this process (the child's side)."""
    import verifier.smt.prove as prove
    from verifier.engine.runtime import Engine, Game
    from verifier.frontend import load_program
    from verifier.smt.prove import Prover
    from verifier.verify.run import _sample

    if not paths:  # as before: one case per decision point, whole goals, no conjunct pass
        by_path, changes, houdini = prove.successor_paths, Prover._what_changes, Prover._houdini
        prove.successor_paths = lambda alt, by_value=False: by_path(alt, by_value=True)
        Prover._what_changes = staticmethod(lambda c, path, alt, before, pre_parts: changes(c, path, alt, before, None))

        def whole(self, *args, by_conjunct=False, **kw):
            return houdini(self, *args, by_conjunct=False, **kw)
        Prover._houdini = whole
    program, _ = load_program(ROOT / "spec" / f"{spec}.rules")
    game = Game(Engine(program), players, {})
    states, _ = _sample(game, 30, 1000 + players, 5000)  # as `verify` samples them
    prover = Prover(program, players, dict(game.option_values), 20, samples=states)
    hard = CLAIMS[spec]
    by_name = {c.name: c for c in prover.candidates()}
    given = [by_name[inv.name] for inv in program.invariants if inv.name not in hard]
    prover.spec_invariants = [inv for inv in program.invariants if inv.name in hard]
    t0 = time.process_time()
    verdicts = prover.invariants(given=given)
    return {"seconds": time.process_time() - t0,
            "proved": sorted(name for name, v in verdicts.items() if v.status == "proved" and name in hard)}


def main() -> None:
    parent = main_or_child(__file__, __doc__.splitlines()[0], one, list(CLAIMS), 1)
    if parent is None:
        return
    args, runs = parent
    print(f"{'spec':10} {'players':>7} {'setting':9} {'CPU s':>7}  proved")
    for spec in args.spec:
        rows = runs(spec)
        for setting, name in ((False, "per case"), (True, "per path")):
            r = rows[setting]
            print(f"{spec:10} {args.players:7d} {name:9} {statistics.median(x['seconds'] for x in r):7.1f}  "
                  f"{', '.join(r[0]['proved']) or '-'}")
        ratio = statistics.median(x["seconds"] for x in rows[True]) / statistics.median(x["seconds"] for x in rows[False])
        print(f"{spec:10} per path / per case: {ratio:.2f}")


if __name__ == "__main__":
    main()
