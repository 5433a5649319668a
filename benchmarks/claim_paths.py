"""Benchmark: `verify` with the older engine's claims asked per successor case or per path.

    .venv/bin/python benchmarks/claim_paths.py --spec ramen_ink --players 3
    .venv/bin/python benchmarks/claim_paths.py --spec ramen_ink --players 5   # about 10 minutes

The older mutual induction (`Prover._fixpoint` in `verifier/smt/prove.py`) asked a claim once per
decision point a move can lead to, with the successor merged over every way the flow runs there
(the same seat's next draw, the next seat's, the next round's after the bowls are served). Now
(the "on" setting) it asks the claims once per way (`successor_paths`), each goal specialised to
it and less the conjuncts that read as before the move (`Prover._what_changes`), and a claim the
solver gives up on as a whole is asked conjunct by conjunct (`Prover._each_conjunct`). The frame
facts keep one case per decision point in both settings.

For both settings, in interleaved rounds, each in a fresh process: `rulebook verify SPEC
--players N --no-cache --jobs 1` at the default budget (the older engine gets the claims the
sliced induction leaves, with its lemmas, as in every run), its CPU seconds and the properties
proved. Prints the ratio on / off (below 1: faster); nothing is asserted (the machine is
shared: compare ratios within one run).
"""
from __future__ import annotations

import json
import os
import resource
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.ab_runs import main_or_child, proved_table  # noqa: E402


def _cpu() -> float:
    return sum(r.ru_utime + r.ru_stime for r in (resource.getrusage(resource.RUSAGE_SELF),
                                                 resource.getrusage(resource.RUSAGE_CHILDREN)))


def one(spec: str, players: int, paths: bool) -> dict:
    """`rulebook verify` on the spec at one count, in this process (the child's side)."""
    import verifier.smt.prove as prove
    from verifier.cli import main as rulebook
    from verifier.smt.prove import Prover

    if not paths:  # as before: one case per decision point, whole goals, no conjunct pass
        by_path, changes, houdini = prove.successor_paths, Prover._what_changes, Prover._houdini
        prove.successor_paths = lambda alt, by_value=False: by_path(alt, by_value=True)
        Prover._what_changes = staticmethod(lambda c, path, alt, before, pre_parts: changes(c, path, alt, before, None))

        def whole(self, *args, by_conjunct=False, **kw):
            return houdini(self, *args, by_conjunct=False, **kw)
        Prover._houdini = whole
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "verify.json"
        sys.argv = ["rulebook", "verify", str(ROOT / "spec" / f"{spec}.rules"), "--players", str(players),
                    "--no-cache", "--jobs", "1", "--no-progress", "--save-json", str(out)]
        t0 = _cpu()
        sys.stdout.flush()
        saved = os.dup(1)  # the report goes nowhere: this process's stdout is the parent's JSON
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            try:
                rulebook()
            except SystemExit:
                pass
            finally:
                sys.stdout.flush()
                os.dup2(saved, 1)
                os.close(saved)
        seconds = _cpu() - t0
        results = json.loads(out.read_text())["reports"][0]["results"]
    return {"seconds": seconds, "proved": sorted(r["name"] for r in results if r["status"] == "proved"),
            "missing": sorted(r["name"] for r in results if r["status"] != "proved"), "properties": len(results)}


def main() -> None:
    parent = main_or_child(__file__, __doc__.splitlines()[0], one, ["ramen_ink"], 1)
    if parent is None:
        return
    args, runs = parent
    proved_table(args, runs, "per case", "per path", "properties")

if __name__ == "__main__":
    main()
