"""The harness of an A/B benchmark whose two settings run in fresh processes, interleaved.

A benchmark script defines `one(spec, players, setting) -> dict` (the measurement, in this
process) and calls `main_or_child`: run as a child (`--one SPEC PLAYERS 0|1`) it prints `one`'s
result as JSON; otherwise it parses the common flags (`--spec`, `--players`, `--runs`) and
returns them with `rows(spec)`, which runs both settings `--runs` times, each in a fresh
process (a memo or a monkeypatch of one setting must not carry over to the other), off before
on in every round, and returns {False: [results], True: [results]}.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def passed_on(flag: str, env: str, default: str) -> str:
    """The value of `--FLAG=V` on the command line, else of the environment variable `env` (how
    the children get it), else `default`. The value is left in the environment for the children
    and the flag taken off `sys.argv` (`main_or_child`'s parser does not know it)."""
    prefix = f"--{flag}="
    value = next((a.split("=", 1)[1] for a in sys.argv if a.startswith(prefix)), os.environ.get(env, default))
    os.environ[env] = value
    sys.argv = [a for a in sys.argv if not a.startswith(prefix)]
    return value


def main_or_child(script: str, description: str, one, default_specs: list, default_runs: int):
    """None in a child (after printing its result); else (args, rows) for the parent."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--spec", action="append", help=f"a seed spec's name (repeatable; default: "
                                                    f"{', '.join(default_specs)})")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--runs", type=int, default=default_runs,
                    help=f"interleaved rounds per spec (default {default_runs})")
    ap.add_argument("--one", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        spec, players, setting = args.one
        print(json.dumps(one(spec, int(players), setting == "1")))
        return None
    args.spec = args.spec or list(default_specs)

    def rows(spec: str) -> dict:
        out = {True: [], False: []}
        for _ in range(args.runs):
            for setting in (False, True):
                done = subprocess.run([sys.executable, script, "--one", spec, str(args.players), str(int(setting))],
                                      cwd=ROOT, check=True, capture_output=True, text=True)
                out[setting].append(json.loads(done.stdout))
        return out

    return args, rows


def proved_table(args, runs, off: str, on: str, total: str, queries: bool = False) -> None:
    """The table of a proving benchmark's two settings: per spec, each setting's median CPU
    seconds (`seconds`), its solver queries (`queries`, when asked), the properties proved of
    `total` (`proved`, `missing`), and the ratio on / off (below 1: faster)."""
    width = max(len(off), len(on), 7)
    print(f"{'spec':10} {'players':>7} {'setting':{width}} {'CPU s':>7}" + (f" {'queries':>7}" if queries else "")
          + f" {'proved':>6}  not proved")
    for spec in args.spec:
        rows = runs(spec)
        for setting, name in ((False, off), (True, on)):
            r = rows[setting]
            print(f"{spec:10} {args.players:7d} {name:{width}} {statistics.median(x['seconds'] for x in r):7.1f}"
                  + (f" {r[0]['queries']:7d}" if queries else "")
                  + f" {len(r[0]['proved']):3d}/{r[0][total]:<3d}  {', '.join(r[0]['missing']) or '-'}")
        ratio = statistics.median(x["seconds"] for x in rows[True]) / statistics.median(x["seconds"] for x in rows[False])
        print(f"{spec:10} {on} / {off}: {ratio:.2f}")


def verdict_table(args, runs, budget: float, on: str, counts: tuple) -> None:
    """The table of a benchmark of one step of `well_formed` (see `prover_assuming_invariants`):
    per spec, each setting's median CPU seconds (`seconds`), the integer columns `counts` of its
    first run, and its verdict (`status`, `reason`); then the ratio on / off (below 1: faster)."""
    width = max(len(on), 7)
    print(f"budget {budget:.0f} s (--budget=S)")
    print(f"{'spec':12} {'players':>7} {'setting':{width}} {'CPU s':>7}" + "".join(f" {c:>6}" for c in counts)
          + "  verdict")
    for spec in args.spec:
        rows = runs(spec)
        for setting, name in ((False, "off"), (True, on)):
            r = rows[setting]
            print(f"{spec:12} {args.players:7d} {name:{width}} {statistics.median(x['seconds'] for x in r):7.1f}"
                  + "".join(f" {r[0][c]:6d}" for c in counts) + f"  {r[0]['status']}: {r[0]['reason'][:110]}")
        ratio = statistics.median(x["seconds"] for x in rows[True]) / statistics.median(x["seconds"] for x in rows[False])
        print(f"{spec:12} {on} / off: {ratio:.2f}")


def example_program(name: str):
    """The program of `spec/examples/NAME.rules` (relative to the project's root: the children's
    working directory)."""
    from verifier.frontend import load_program

    program, _ = load_program(f"spec/examples/{name}.rules")
    return program


def prover_assuming_invariants(path: str, players: int, budget: float):
    """A `Prover` of the spec at `path` (relative to the project's root: the children's working
    directory, and the verdicts name it) under its default options, whose spec invariants are
    assumed rather than proved: for a benchmark of a step of `well_formed`, not of the
    induction that proves what it assumes. (program, prover)."""
    from verifier.engine.runtime import Engine, Game
    from verifier.frontend import load_program
    from verifier.smt.prove import Prover

    program, _ = load_program(path)
    game = Game(Engine(program), players, {})
    prover = Prover(program, players, dict(game.option_values), 20, budget=budget)
    prover.proved = [c for c in prover.candidates() if c.node is not None]
    return program, prover


def induction_run(program, players: int, budget: float, param=None) -> dict:
    """The sliced induction on every invariant of `program`, in this process: the transition
    system and the interval analysis (not timed), then `Induction.run` with a deadline of
    `budget` seconds; its CPU seconds, queries and the claims proved. `param(rel, inv)`: a
    claim's reading over a symbolic item (`Claim.param`), or None."""
    import time

    from verifier.engine.runtime import Engine, Game
    from verifier.smt.encode import Encoder
    from verifier.smt.engines import induction
    from verifier.smt.engines.intervals import analyse
    from verifier.smt.prove import Prover
    from verifier.smt.system import System

    game = Game(Engine(program), players, {})
    prover = Prover(program, players, dict(game.option_values), 20, samples=[])
    rel = prover.rel
    system = System(rel)
    for d in system.decisions:
        system.transitions(d)
    facts = analyse(system, None)
    claims = sorted((induction.Claim(i.name, i, induction.instances_of(
        Encoder(program, players, rel.options, rel.state).invariant(i)), param(rel, i) if param else None)
        for i in program.invariants), key=lambda c: len(c.instances))
    t0 = time.process_time()
    ind = induction.Induction(system, facts, prover.timeout_ms / 1000, time.perf_counter() + budget)
    out = ind.run(claims, [])
    return {"seconds": time.process_time() - t0, "queries": ind.queries,
            "proved": sorted(c.name for c in claims if out[c.name].proved),
            "missing": sorted(c.name for c in claims if not out[c.name].proved), "claims": len(claims)}


def induction_with(setting: str, on: bool, spec: str, players: int, budget: float) -> dict:
    """`induction_run` on every invariant of `spec/SPEC.rules` (each over a symbolic item as
    `verify` reads it), with `verifier.smt.engines.induction.SETTING` set to `on`: the child's
    side of a benchmark of one switch of the sliced induction."""
    from verifier.frontend import load_program
    from verifier.smt.engines import induction

    if not hasattr(induction, setting):
        raise AttributeError(f"induction has no setting {setting}")
    setattr(induction, setting, on)
    program, _ = load_program(ROOT / "spec" / f"{spec}.rules")
    return induction_run(program, players, budget, over_an_item(program, players))


def over_an_item(program, players: int):
    """`param` for `induction_run`: each claim's reading over a symbolic item as `verify` gives
    it (`invariants._over_an_item`), or None."""
    import verifier.verify.invariants as invariants
    from verifier.smt.encode import Encoder
    from verifier.smt.engines.induction import instances_of

    def param(rel, inv):
        count = len(instances_of(Encoder(program, players, rel.options, rel.state).invariant(inv)))
        return invariants._over_an_item(program, players, rel.options, rel.state, inv, count)
    return param
