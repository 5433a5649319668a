"""Z3's legal moves are the engine's (issue 6, the `legal` and `chance_draw` parts of the relation).

1. Agreement: at random reachable states of every bundled spec (player counts
   and options varied), at every decision point met — one player's, each seat
   of a simultaneous node, chance — the models of `legal` (every move of the
   point, parameters free, obligations asserted) enumerated with blocking
   clauses, mapped to action ids the way the runtime decodes them, are exactly
   the engine's legal action ids of that move; the models of `chance_draw` are
   the engine's chance outcomes. No parameter value in its domain breaks an
   "error" obligation (the engine evaluated them all without raising). Where a
   move has more than `CAP` models, the enumerated models must be engine
   actions, and every engine action and a random sample of other in-domain
   parameter values are checked with the parameters pinned (no sampled state
   needs this at CAP = 600 — Wasabi!'s `place` has at most 8 x 64 — so a test
   runs it with a small cap).
2. Planted mutations are caught by (1): a move's `require` dropped, and `<`
   encoded as `<=`.
"""
from __future__ import annotations

import dataclasses
import functools
import random
from collections import Counter

import pytest
from hypothesis import settings

from verifier.engine.lib import RuleError
from verifier.engine.play import random_step
from verifier.engine.runtime import Game
from verifier.ir.types import BoolT, element_type
from verifier.smt import encode as E
from verifier.smt import transition as T
from verifier.smt.encode import CTX, concrete, dom_lo, dom_size, fresh, is_true, literal, num, or_all, to_python, z3

from helpers import EXAMPLES, ROOT, SPEC_PATHS, engine_for

PATHS = SPEC_PATHS

CONFIGS = [
    ("tictactoe", 2, {}),
    ("goofspiel", 2, {}), ("goofspiel", 4, {}),
    ("ramen", 2, {}), ("ramen", 4, {"tips_need_card": "false", "narutos": "true"}),
    ("ramen", 3, {"grunchie_offer": "literal", "narutos": "true"}),
    ("ramen_ink", 2, {}), ("ramen_ink", 4, {"drawing_order": "from_first"}),
    ("ramen_ink", 3, {"stylist_counting": "one_per_kind", "bonus_optional": "false"}),
    ("wasabi", 2, {"turn_limit": "60"}), ("wasabi", 3, {"wasabi_shape": "line", "diagonals": "true"}),
    ("wasabi", 4, {"pantry_limits": "false", "actions_complete": "false"}),
    ("pig", 3, {"winscore": "10", "piglet": "true", "diceoutcomes": "3"}),
]
CAP = 600  # models enumerated per move before switching to pinned checks (see test_capped_enumeration_agrees)
PINNED_SAMPLE = 40  # in-domain parameter tuples outside the engine's set, checked pinned, when capped
STATS: Counter = Counter()


def scaled(fraction: int, least: int = 1) -> int:
    return max(least, settings.default.max_examples // fraction)


@functools.lru_cache(maxsize=None)
def engine(spec: str):
    return engine_for(PATHS[spec])


def sample_states(g: Game, seed: int, decisions: int, chances: int) -> list:
    """States of one random playout: a few at player or simultaneous decisions, a few at chance nodes."""
    rng = random.Random(seed)
    state, choose, chance = g.new_initial_state(), [], []
    for _ in range(400):
        if state.is_terminal():
            break
        (chance if state.is_chance_node() else choose).append(state.clone())
        try:
            random_step(state, rng)
        except RuleError:
            break
    return rng.sample(choose, min(decisions, len(choose))) + rng.sample(chance, min(chances, len(chance)))


# ---------------------------------------------------------------------- action ids

def move_row(state, mi):
    """The runtime's MOVES row of a move: (name, offset, sizes, los, ...)."""
    row = state.m.MOVES[mi.index]
    assert row[1] == mi.offset and row[0] == mi.move.name
    return row


def action_id(row, values) -> int:
    """The inverse of the runtime's `_decode`: mixed radix after the offset, first parameter most significant."""
    _, offset, sizes, los = row[:4]
    a = 0
    for v, size, lo in zip(values, sizes, los):
        assert 0 <= int(v) - lo < size, (row[0], values)
        a = a * size + int(v) - lo
    return offset + a


def id_range(row) -> range:
    total = 1
    for size in row[2]:
        total *= size
    return range(row[1], row[1] + total)


# ---------------------------------------------------------------------- models

def holds(cond) -> bool:
    return is_true(z3.simplify(cond))


def models(assertions, leaves, cap: int) -> tuple[list[tuple], bool]:
    """Up to `cap` distinct assignments of `leaves` satisfying `assertions`; True when all were found."""
    solver = z3.Solver(ctx=CTX)
    solver.add(*assertions)
    found = []
    while len(found) < cap:
        if solver.check() != z3.sat:
            return found, True
        m = solver.model()
        values = tuple(m.eval(x, model_completion=True) for x in leaves)
        found.append(tuple(to_python(v) for v in values))
        if not leaves:
            return found, True
        solver.add(or_all(x != v for x, v in zip(leaves, values)))
    return found, solver.check() != z3.sat


def breaks_error_obligation(obligations) -> bool:
    """Some parameter value makes the engine's evaluation fail (sat), while the engine did not raise."""
    errors = [o.cond for o in obligations if o.kind == "error"]
    if not errors:
        return False
    solver = z3.Solver(ctx=CTX)
    solver.add(or_all(z3.Not(c) for c in errors))
    return solver.check() == z3.sat


def pinned_legal(program, n, options, sv, mi, values, player) -> bool:
    params = {p.name: literal(t, v, n) for p, t, v in zip(mi.move.params, mi.param_types, values)}
    cond, _ = T.legal(program, n, options, sv, mi, params, player)
    return holds(cond)


def random_values(mi, n, rng) -> tuple:
    out = []
    for t in mi.param_types:
        i = rng.randrange(dom_size(t, n))
        out.append(bool(i) if isinstance(t, BoolT) else dom_lo(t) + i)
    return tuple(out)


# ---------------------------------------------------------------------- the checks

def check_move(state, sv, mi, player, rng, cap: int = CAP) -> list[str]:
    """Disagreements between Z3's legal parameter values of `mi` for `player` and the engine's."""
    program, n, options = state.game.engine.program, state.s.n, sv.options
    row = move_row(state, mi)
    ids = id_range(row)
    want = {a for a in state.legal_actions(player) if a in ids}
    params = T.fresh_params(program, mi, n, "legal")
    leaves = [params[p.name] for p in mi.move.params]
    cond, obligations = T.legal(program, n, options, sv, mi, params, num(player))
    label = f"{mi.move.name} for P{player + 1}"
    if breaks_error_obligation(obligations):
        return [f"{label}: some parameter value breaks an obligation; the engine listed its actions"]
    found, complete = models([cond] + [o.cond for o in obligations], leaves, cap)
    STATS["moves"] += 1
    STATS["models"] += len(found)
    got = {action_id(row, values) for values in found}
    if complete:
        if got == want:
            return []
        return [f"{label}: Z3 only {sorted(got - want)[:5]}, engine only {sorted(want - got)[:5]}"]
    STATS["capped moves"] += 1
    out = [f"{label}: Z3 model {a} is not an engine action" for a in sorted(got - want)[:5]]
    for a in sorted(want):  # every engine action is a model
        _, values = state._decode(a)
        if not pinned_legal(program, n, options, sv, mi, values, num(player)):
            out.append(f"{label}: engine action {a} is not legal for Z3")
    for _ in range(PINNED_SAMPLE):  # and a sample of the rest are not
        values = random_values(mi, n, rng)
        if action_id(row, values) not in want and pinned_legal(program, n, options, sv, mi, values, num(player)):
            out.append(f"{label}: Z3 finds {values} legal, the engine does not")
    STATS["pinned"] += len(want) + PINNED_SAMPLE
    return out


def check_chance(state, sv) -> list[str]:
    program, n = state.game.engine.program, state.s.n
    info = program.decisions[state.s.pc]
    outcome = fresh(element_type(program.type_of(info.node.source)), f"{info.node.var}@draw", n)
    cond, obligations = T.chance_draw(program, n, sv.options, sv, info.index, outcome)
    if not all(holds(o.cond) for o in obligations):
        return [f"chance {info.node.var}: an obligation fails; the engine has outcomes"]
    found, complete = models([cond], [outcome], CAP)
    assert complete
    STATS["chance nodes"] += 1
    STATS["models"] += len(found)
    lo = state.m.DECISIONS[state.s.pc][3].lo
    got = {int(v) - lo for (v,) in found}
    want = {a for a, _ in state.chance_outcomes()}
    return [] if got == want else [f"chance {info.node.var}: Z3 {sorted(got)}, engine {sorted(want)}"]


def check_state(state, rng, cap: int = CAP) -> list[str]:
    program = state.game.engine.program
    sv = concrete(program, state)
    if state.is_chance_node():
        return check_chance(state, sv)
    STATS["states"] += 1
    seats = [state.current_player()] if state.current_player() >= 0 else range(state.num_players())
    return [msg for player in seats for mi in program.decisions[state.s.pc].moves
            for msg in check_move(state, sv, mi, player, rng, cap)]


def agreement(config, seeds, decisions: int = 4, chances: int = 2, cap: int = CAP) -> list[str]:
    spec, players, options = config
    g = Game(engine(spec), players, options)
    bad = []
    for seed in seeds:
        rng = random.Random(3000 + seed)
        for state in sample_states(g, seed, decisions, chances):
            bad += [f"{spec} {players}p seed {seed} pc {state.s.pc}: {msg}" for msg in check_state(state, rng, cap)]
    return bad


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c[0]}-{c[1]}p" + ("-opts" if c[2] else ""))
def test_legal_models_are_engine_actions(config):
    bad = agreement(config, range(scaled(20)))
    assert not bad, "\n".join(bad[:10])


def test_capped_enumeration_agrees():
    """The path for moves with more models than the cap, run with a cap of 25 on Wasabi!'s moves."""
    before = STATS["capped moves"]
    bad = agreement(("wasabi", 2, {"turn_limit": "60"}), range(3), decisions=6, chances=0, cap=25)
    assert not bad, "\n".join(bad[:10])
    assert STATS["capped moves"] > before


# ---------------------------------------------------------------------- planted mutations

def drop_require(move_name: str, label: str):
    """`legal` with one requirement of one move left out."""
    original = T.legal

    def mutated(program, n, options, state, move, params, player):
        mi = program.moves[move] if isinstance(move, int) else move
        if mi.move.name == move_name:
            kept = tuple(r for r in mi.move.requires if r.label != label)
            assert len(kept) == len(mi.move.requires) - 1, (move_name, label)
            mi = dataclasses.replace(mi, move=dataclasses.replace(mi.move, requires=kept))
        return original(program, n, options, state, mi, params, player)

    return mutated


def first_disagreement(config, seeds, marker: str) -> int | None:
    """The first seed with a disagreement mentioning `marker` (a mutation test stops when caught)."""
    for seed in seeds:
        if any(marker in msg for msg in agreement(config, [seed], decisions=6, chances=0)):
            return seed
    return None


def caught(monkeypatch, config, marker: str) -> None:
    """The planted mutation (already applied) disagrees on some seed; the unmutated code agrees there."""
    seed = first_disagreement(config, range(8), marker)
    assert seed is not None
    monkeypatch.undo()
    assert agreement(config, [seed], decisions=6, chances=0) == []


DROPS = [
    (("tictactoe", 2, {}), "place", "empty_cell"),
    (("wasabi", 2, {"turn_limit": "60"}), "place", "empty_square"),
    (("wasabi", 2, {"turn_limit": "60"}), "end_phase", "placed_one"),
    (("wasabi", 2, {"turn_limit": "60"}), "play_wasabi", "fits"),
    (("ramen", 3, {}), "swap_kinds", "two_cards"),
    (("ramen_ink", 2, {}), "draw", "two_bowls"),
]


@pytest.mark.parametrize("config, move, label", DROPS, ids=[f"{c[0]}-{m}-{r}" for c, m, r in DROPS])
def test_dropped_require_is_caught(monkeypatch, config, move, label):
    monkeypatch.setattr(T, "legal", drop_require(move, label))
    caught(monkeypatch, config, f"{move} for")


@pytest.mark.parametrize("config", [("wasabi", 2, {"turn_limit": "60"}), ("ramen", 3, {})], ids=lambda c: c[0])
def test_less_than_as_at_most_is_caught(monkeypatch, config):
    """`placed < allowed` (Wasabi!'s place) and `i < j` (ramen's swap_kinds) read as `<=`."""
    monkeypatch.setitem(E.CMP_OPS, "<", E.CMP_OPS["<="])
    caught(monkeypatch, config, "")
