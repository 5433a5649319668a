"""Benchmark: the items each move names, read from the term table against a walk through the C API.

    .venv/bin/python benchmarks/named_items.py                 # Wasabi!, 2 players
    .venv/bin/python benchmarks/named_items.py --spec cards    # the cards fixture of the tests

A claim over a symbolic item assumes the claim at the items each move names
(`verifier/smt/parametric.py`, `named_items`): the terms an `==` compares with at least half the
item's values. They were found by walking each move's conditions and successor values through
Z3's C API (`dag.applications`), once per move and domain, in the first pass of the first claim
over an item; they are now read from the term table the system already holds
(`Dag.comparisons`, a walk of Python dicts). For every move of the spec's system and every
domain of its claims over an item, both ways in one process, one after the other: the seconds
of each, their ratio, and whether they name the same items (they must). Nothing is asserted
(the machine is shared: compare the ratio within one run).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SPECS = {"wasabi": ROOT / "spec" / "wasabi.rules", "cards": ROOT / "tests" / "fixtures" / "cards_apart.rules"}


def through_the_c_api(terms: list, domain: tuple, positions: frozenset) -> list:
    """The reference: `named_items` as it was, one walk of the terms per move and domain."""
    from verifier.smt import parametric as P
    from verifier.smt.dag import _to_expr, applications
    from verifier.smt.encode import CTX, z3
    lo, hi = domain[0], domain[-1]
    ctx = CTX.ref()
    get_id, numeral = z3.Z3_get_ast_id, z3.Z3_NUMERAL_AST
    seen: dict = {}
    for a, _, args in applications(terms):
        if len(args) != 2 or z3.Z3_get_decl_kind(ctx, z3.Z3_get_app_decl(ctx, a)) != z3.Z3_OP_EQ:
            continue
        x, y = args
        if z3.Z3_get_ast_kind(ctx, y) == numeral:
            x, y = y, x
        if z3.Z3_get_ast_kind(ctx, x) != numeral or z3.Z3_get_ast_kind(ctx, y) == numeral or \
                get_id(ctx, y) in positions or z3.Z3_get_sort_kind(ctx, z3.Z3_get_sort(ctx, y)) != z3.Z3_INT_SORT:
            continue
        value = int(z3.Z3_get_numeral_string(ctx, x))
        if lo <= value <= hi:
            seen.setdefault(get_id(ctx, y), [_to_expr(y, CTX), set()])[1].add(value)
    return [term for term, values in seen.values()
            if len(values) >= 2 and 2 * len(values) >= len(domain) and P._nodes_within(term, P.ITEM_NODES)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spec", choices=sorted(SPECS), default="wasabi")
    ap.add_argument("--players", type=int, default=2)
    args = ap.parse_args()
    from verifier.frontend import load_program
    from verifier.smt.encode import Encoder
    from verifier.smt.engines.induction import instances_of
    from verifier.smt.parametric import named_items
    from verifier.smt.prove import Prover
    from verifier.smt.system import System
    from verifier.verify.invariants import _over_an_item
    program, _ = load_program(str(SPECS[args.spec]))
    n = args.players
    from verifier.engine.runtime import Engine, Game
    options = dict(Game(Engine(program), n, {}).option_values)  # the defaults, as `verify` takes them
    prover = Prover(program, n, options, 20.0)
    rel = prover.rel
    system = System(rel)
    moves = [tr for d in system.decisions for tr in system.transitions(d)]
    domains = set()
    for inv in program.invariants:
        count = len(instances_of(Encoder(program, n, options, rel.state).invariant(inv)))
        par = _over_an_item(program, n, options, rel.state, inv, count)
        if par is not None:
            domains |= set(par.domains)
    positions = frozenset(snap[1].get_id() for snap in rel.snaps.values() if isinstance(snap, tuple))
    t = time.perf_counter()
    old = {(id(tr), dom): through_the_c_api(list(tr.pre_terms) + [post for _, post in tr.renaming], dom, positions)
           for tr in moves for dom in domains}
    t_old = time.perf_counter() - t
    t = time.perf_counter()
    new = {}
    for tr in moves:
        written = [j for i, j in zip(system.leaves, tr.post) if i != j]
        compared = system.dag.comparisons(list(tr.pre) + written)
        for dom in domains:
            new[(id(tr), dom)] = named_items(system.dag, compared, dom, positions)
    t_new = time.perf_counter() - t
    same = all(sorted(x.get_id() for x in old[k]) == sorted(x.get_id() for x in new[k]) for k in old)
    print(f"{args.spec}, {n} players: {len(moves)} moves, {len(domains)} domain(s), "
          f"{sum(len(v) for v in old.values())} items named")
    print(f"  through the C API {t_old:.2f} s, from the term table {t_new:.2f} s: "
          f"ratio {t_new / max(t_old, 1e-9):.3f} (below 1: faster); the same items: {same}")


if __name__ == "__main__":
    main()
