"""The Z3 encoding agrees with the engine: invariants, definitions, scores and winners.

1. Concrete agreement: random reachable states of every bundled spec (and of a
   spec that uses every expression form) are encoded as Z3 literals; every
   invariant, every definition over domain parameters (at random arguments),
   every score, the winners and the returns must equal what the engine
   computes — and an expression the engine cannot evaluate (it raises) must
   have a failing obligation, one it can must have none of kind "error".
2. Symbolic agreement and sanity: with the state as free variables, the range
   constraints are satisfiable, tic-tac-toe queries are sat/unsat as they
   should be, and with the variables pinned to an engine state a solver cannot
   make any encoded value differ from the engine's.
3. Planted mutations of the encoding (`<` read as `<=`, Euclidean `//` and
   `%`, an off-by-one symbolic index) are caught by these same checks.
"""
from __future__ import annotations

import functools
from fractions import Fraction
import random
from collections import Counter

import pytest
from hypothesis import given, settings, strategies as st

from verifier.engine.lib import RuleError
from verifier.engine.play import random_step
from verifier.engine.runtime import Engine, Game
from verifier.frontend.builtins import BUILTINS
from verifier.ir import nodes as N
from verifier.ir.types import ArrayT, BoolT, IntT, RatT, SeqT, StrT
from verifier.smt import encode as E
from verifier.smt.encode import (Encoder, NotEncoded, StateVars, concrete, dom_lo, dom_size, eq_val, literal, num,
                                 scope, to_python, z3)

from helpers import EXAMPLES, ROOT, SPEC_PATHS, engine_for, engine_from_text


# A spec that uses every expression form, operator, aggregate and built-in,
# including negative division, out-of-domain values and partial operations.
SINK_TEXT = r'''
game sink "Every expression form"
players 2..4
enum Color { red "red", green "green", blue "blue" }
grid G rows 3 cols 4
type Small = -7..7
type Div = -3..3
type Digit = 0..9
record Item { color: Color, weight: 1..5, tags: seq of Color max 3 } shown "{color} {weight}"
catalogue ITEMS of Item = [
  Item(color=red, weight=3, tags=[red, blue]), Item(color=blue, weight=1, tags=[]),
  Item(color=green, weight=5, tags=[green, green, red]), Item(color=red, weight=2, tags=[blue])
]
const PRIMES: seq of 0..7 max 4 = [2, 3, 5, 7]
option bonus: 0..3 = 1 because "a test option"
option strict: bool = false because "a test option"
var marks: array[G] of Color = red
var pile: seq of Color max 5 = []
var q: seq of Digit max 6 = []
var chosen: set of ITEMS = {}
var lit: set of G = {}
var s5: set of 0..5 = {}
var s9: set of Digit = {}
var byval: array[Small] of bool = false
var pts: array[Player] of Small = 0
var flag: bool = false
var turn: Player = 0
def fdiv(a: Small, b: Div): -7..7 = a // b
def fmod(a: Small, b: Div): -7..7 = a % b
def arith(a: Small, b: Div): -60..60 = a * b + a - b - (-a)
def lt(a: Small, b: Div): bool = a < b
def le(a: Small, b: Div): bool = a <= b
def gt(a: Small, b: Div): bool = a > b
def ge(a: Small, b: Div): bool = a >= b
def ne(a: Small, b: Div): bool = a != b
def logic(f: bool, g: bool): bool = (f and not g) or (g and f)
def pick(f: bool, a: Small): -7..7 = if f then a else -a
def nums(a: Small, b: Div): -40..40 = abs(a - b) + least(a, b) - greatest(a, b)
def around(p: Player): Player = prev_player(next_player(next_player(p)))
def seats(p: Player): seq of Player max 4 = seats_from(p)
def cell(r: 0..2, c: 0..3): G = G(r, c)
def rc(c: G): 0..5 = row(c) + col(c)
def nb(c: G): set of G = neighbours(c)
def rn(c: G, k: 0..5): seq of seq of G max 4 max 8 = runs(c, k)
def dr(c: G, k: 0..5): seq of seq of G max 4 max 8 = diagonal_runs(c, k)
def avail(): set of Color = collect(k in Color where k in pile)
def rnext(c: Color): Color = ring_next(c, avail())
def rprev(p: Player): Player = ring_prev(p, collect(x in players where pts[x] > 0))
def head(): Color = first(pile)
def tail(): Color = last(pile)
def where_is(c: Color): 0..4 = position(pile, c)
def pre(k: -1..6): seq of Color max 5 = prefix(pile, k)
def at(i: 0..5): Color = pile[i]
def pile_size(): 0..5 = size(pile)
def mix(c: G): set of G = union(lit, {c}) - inter(lit, neighbours(c)) + without(lit, {c, G(0, 0)})
def in_pile(c: Color): bool = c in pile and c not in [blue]
def marked(c: Color): bool = c in marks
def lit_here(c: G): bool = c in lit and c not in neighbours(c)
def heavy(): 0..15 = sum(i in chosen where i.weight > 1: i.weight)
def reds(): 0..12 = count(c in G where marks[c] == red)
def all_pos(): bool = all(p in players: pts[p] >= 0)
def any_neg(): bool = any(p in players where p != turn: pts[p] < 0)
def lowest(): Small = min(p in players where pts[p] != 0: pts[p])
def highest(): 0..9 = max(x in q: x)
def leader(): Player = argmax(p in players: [pts[p], 0 - p])
def laggard(): Player = argmin(p in players where pts[p] > -7: pts[p])
def shortest(): ITEMS = argmin(i in ITEMS: [size(i.tags), i.weight])
def evens(): set of Digit = collect(x in q where x % 2 == 0)
def bumped(): set of Digit = collect(x in q: x + 1)
def span(a: 0..5, b: 0..5): 0..50 = sum(i in a..b: i) + sum(i in 1..3: i)
def greens(): 0..5 = count(k in Color where k in pile) + count(i in ITEMS where i.color == Color.green)
def nth_color(i: 0..2): Color = Color[i]
def tagged(c: Color): bool = any(i in ITEMS: c in i.tags)
def weight(i: ITEMS): 1..5 = i.weight
def tags(i: ITEMS): seq of Color max 3 = i.tags
def prime(i: 0..3): 0..7 = PRIMES[i]
def opt(): 0..4 = bonus + (if strict then 1 else 0)
def np(): 2..4 = num_players
def bset(f: bool): set of bool = {f, not f and strict}
def bmem(f: bool): bool = f in collect(g in [false, true] where g == flag)
def same(): bool = prefix(pile, 2) == [red, green] or q == [] or lit == {} or pile != pre(3)
def bv(a: Small): bool = byval[a]
def bv_up(a: Small): bool = byval[a + 1]
def bv_down(a: Small): bool = byval[a - 1]
def below(a: Small): bool = a in s9
def grow(f: bool): set of Digit = if f then s5 else s9
def longer(f: bool, i: ITEMS): seq of Color max 5 = if f then pile else tags(i)
def scored(p: Player): -10..20 = score(p) + size(s5)
def sums(): 0..200 = sum(x in marks: if x == red then 1 else 0) + sum(x in byval where x: 1)
def board(): text = table(c in G: "{marks[c]}")
flow {
  for round in 1..10 {
    chance c from G
    chance k from Color
    marks[c] = k
    if size(pile) < 5 { append k to pile }
    chance v from -7..7
    pts[turn] = v
    byval[v] = not byval[v]
    chance x from Digit
    if x in s9 { remove x from s9 } else { add x to s9 }
    if size(q) < 6 { append x to q }
    if x <= 5 { add x to s5 }
    if c in lit { remove c from lit } else { add c to lit }
    chance drop from [false, true]
    if drop and size(pile) > 0 { remove first(pile) from pile }
    choose turn {
      move take(i in ITEMS) "take {i}" require new "not taken": i not in chosen { add i to chosen }
      move skip() "skip" { }
      move toggle() "toggle" { flag = not flag }
    }
    turn = next_player(turn)
  }
}
outcome {
  score p: pts[p] + bonus
  tiebreak p: p lower
  wins p if flag and p == 0
  returns p: if p in winners then 1 else 0
}
invariant pile_fits "the pile fits": size(pile) <= 5
invariant lit_ok "lit cells are cells": all(c in lit: row(c) < 3)
'''

PATHS = SPEC_PATHS

# (spec, players, options): every player count the specs allow, and non-default readings
CONFIGS = [
    ("tictactoe", 2, {}),
    ("goofspiel", 2, {}), ("goofspiel", 3, {}), ("goofspiel", 4, {}),
    ("ramen", 2, {}),
    ("ramen", 3, {"narutos": "true", "tip_tiebreak": "any_card", "final_tiebreak": "shared",
                  "unplaceable_shoyu": "keep", "naruto_cards": "all_cards"}),
    ("ramen", 4, {"tips_need_card": "false", "shoyu_counts": "false", "bonus_outside_valid": "true"}),
    ("ramen", 5, {"narutos": "true", "final_nine_shoyu": "false"}),
    ("ramen", 2, {"grunchie_offer": "literal", "narutos": "true"}),
    ("ramen_ink", 2, {}),
    ("ramen_ink", 3, {"stylist_counting": "one_per_kind", "bonus_optional": "false"}),
    ("ramen_ink", 4, {"drawing_order": "from_first", "impossible_drawing": "no_rule"}),
    ("ramen_ink", 5, {}),
    ("wasabi", 2, {"turn_limit": "60"}),
    ("wasabi", 3, {"wasabi_shape": "line", "matching": "maximal", "style_reversed": "true", "diagonals": "true"}),
    ("wasabi", 4, {"pantry_limits": "false", "actions_complete": "false", "cubes_len4": "4"}),
    ("pig", 2, {"winscore": "20"}), ("pig", 3, {"winscore": "10", "piglet": "true", "diceoutcomes": "3"}),
    ("sink", 2, {}), ("sink", 3, {"bonus": "3", "strict": "true"}), ("sink", 4, {}),
]
SPEC_CONFIGS = [c for c in CONFIGS if c[0] != "sink"]
SINK_CONFIGS = [c for c in CONFIGS if c[0] == "sink"]
UNCHECKED = Counter()  # (spec, sentence) of values the engine computed outside their domain (reported, not failed)


@functools.lru_cache(maxsize=None)
def engine(spec: str) -> Engine:
    if spec == "sink":
        return engine_from_text(SINK_TEXT, "smt_sink.rules")
    return engine_for(PATHS[spec])


def make_game(config) -> Game:
    spec, players, options = config
    return Game(engine(spec), players, options)


def reach(g: Game, seed: int, steps: int):
    """A state after up to `steps` random steps (a deadlock stops play at the state before it)."""
    rng = random.Random(seed)
    state = g.new_initial_state()
    for _ in range(steps):
        if state.is_terminal():
            break
        done = list(state.history)
        try:
            random_step(state, rng)
        except RuleError:
            state = g.new_initial_state()
            for step in done:
                state.apply_actions(step) if isinstance(step, list) else state.apply_action(step)
            break
    return state


def defs_to_test(program):
    """Definitions whose parameters are all domains and whose result is not text."""
    out = []
    for name, d in program.defs.items():
        ptypes = [program.symbols_param_type(p) for p in d.params]
        if all(t.is_domain for t in ptypes) and not isinstance(program.symbols[name].type, StrT):
            out.append((name, ptypes, program.symbols[name].type))
    return out


def random_args(ptypes, n: int, rng: random.Random) -> list:
    out = []
    for t in ptypes:
        i = rng.randrange(dom_size(t, n))
        out.append(bool(i) if isinstance(t, BoolT) else dom_lo(t) + i)
    return out


def engine_value(v, t):
    """The engine's value in a comparable form (tuples as lists, bools as bools)."""
    if isinstance(t, BoolT):
        return bool(v)
    if isinstance(t, (SeqT, ArrayT)):
        return [engine_value(x, t.elem) for x in v]
    if isinstance(t, RatT):  # an exact fraction (to_python gives whole ones as ints)
        return int(v) if Fraction(v).denominator == 1 else Fraction(v)
    return int(v)


def holds(cond) -> bool:
    return E.is_true(z3.simplify(cond))


class Checker:
    """Compares one encoding with the engine on one state; collects disagreements as sentences."""

    def __init__(self, config, state):
        self.spec = config[0]
        self.g = state.game
        self.state, self.s, self.m = state, state.s, state.m
        self.p = self.g.engine.program
        self.n = self.s.n
        self.problems: list[str] = []

    def compare(self, label, value, obligations, run_engine, t) -> None:
        failed = [o for o in obligations if not holds(o.cond)]
        try:
            self.s.memo = {}
            expected, raised = engine_value(run_engine(), t), None
        except Exception as exc:  # the engine's rule errors, and Python errors it does not catch
            expected, raised = None, exc
        if raised is not None:
            if not failed:
                self.problems.append(f"{label}: the engine raised {raised!r}; Z3 found it well-defined")
            return
        errors = [o for o in failed if o.kind == "error"]
        if errors:
            self.problems.append(f"{label}: Z3 says '{errors[0].sentence}' fails; the engine computed {expected!r}")
            return
        if failed:  # a value outside its domain that the engine does not check: nothing to compare
            UNCHECKED[(self.spec, failed[0].sentence)] += 1
            return
        got = to_python(value)
        if got != expected:
            self.problems.append(f"{label}: Z3 {got!r}, engine {expected!r}")

    def run(self, rng: random.Random, arg_tuples: int) -> list[str]:
        p, m, s, n = self.p, self.m, self.s, self.n
        try:
            sv = concrete(p, self.state, self.g.option_values)
        except ValueError as exc:
            return [f"the engine state does not fit its types: {exc}"]
        outside = [c for c in sv.constraints() if not holds(c)]
        if outside:
            self.problems.append(f"the engine state breaks its declared ranges: {outside[0]}")
        enc = Encoder(p, n, self.g.option_values, sv)
        for inv, (name, _, fn, _) in zip(p.invariants, m.INVARIANTS):
            value, obligations = invariant_checked(enc, inv)
            self.compare(f"invariant {name}", value, obligations, lambda fn=fn: fn(s), BoolT())
        for name, ptypes, rtype in defs_to_test(p):
            for _ in range(arg_tuples if ptypes else 1):
                args = random_args(ptypes, n, rng)
                value, obligations = enc.checked_call(name, [literal(t, a, n) for t, a in zip(ptypes, args)])
                fn = getattr(m, "D_" + name)
                self.compare(f"{name}{tuple(args)}", value, obligations, lambda fn=fn, a=args: fn(s, *a), rtype)
        if p.outcome is not None:
            for q in range(n):
                with enc.asking() as obligations:
                    value = enc.score(num(q))
                self.compare(f"score({q})", value, obligations, lambda q=q: m._score(s, q), RatT(-10**9, 10**9))
                with enc.asking() as obligations:
                    value = enc.returns(num(q))
                self.compare(f"returns({q})", value, obligations, lambda q=q: m._returns(s)[q],
                             RatT(-10**9, 10**9))  # whole numbers or exact fractions
            with enc.asking() as obligations:
                value = enc.winners()
            self.compare("winners", value, obligations, lambda: m._winners(s), IntT(0, 2**n))
        return self.problems


def invariant_checked(enc: Encoder, inv) -> tuple:
    """(value, obligations) of an invariant as the engine checks it: one claimed `at` some
    decision points with their guard (true where the game waits elsewhere, where the flow
    variables it reads may be stale)."""
    with enc.asking() as asked:
        value = enc.invariant(inv)
    return value, asked


def check_concrete(config, seed: int, steps: int, arg_tuples: int = 3) -> list[str]:
    state = reach(make_game(config), seed, steps)
    return Checker(config, state).run(random.Random(seed), arg_tuples)


def scaled(fraction: int, least: int = 2) -> int:
    return max(least, settings.default.max_examples // fraction)


# ====================================================================== 1. concrete agreement

@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c[0]}-{c[1]}p" + ("-opts" if c[2] else ""))
def test_concrete_agreement(config):
    @settings(max_examples=scaled(10))
    @given(seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 400))
    def check(seed, steps):
        problems = check_concrete(config, seed, steps)
        assert problems == [], problems[:5]

    check()


def test_options_default_to_their_declared_values():
    g = make_game(("ramen", 3, {}))
    p = g.engine.program
    sv = StateVars(p, 3, {}, 0)
    given, defaulted = Encoder(p, 3, g.option_values, sv), Encoder(p, 3, None, sv)
    assert [to_python(given.options[k]) for k in p.options] == [to_python(defaulted.options[k]) for k in p.options]
    assert [to_python(v) for v in given.options.values()] == list(g.option_values.values())


def test_engine_scores_match_state_scores():
    """`score(p)` agrees with the runtime's own `scores()` (not only the generated `_score`)."""
    for config in SPEC_CONFIGS[::3]:
        state = reach(make_game(config), 7, 150)
        enc = Encoder(state.game.engine.program, state.s.n, state.game.option_values,
                      concrete(state.game.engine.program, state))
        assert [to_python(enc.score(num(q))) for q in range(state.s.n)] == state.scores()


def test_negative_division_and_partial_operations():
    """Python's floor `//` and `%` for every sign, and errors where the engine raises."""
    config = ("sink", 2, {})
    state = reach(make_game(config), 1, 30)
    problems = Checker(config, state).run(random.Random(0), 0)
    assert problems == []
    p, n = state.game.engine.program, state.s.n
    enc = Encoder(p, n, state.game.option_values, concrete(p, state))
    for a in range(-7, 8):
        for b in range(-3, 4):
            for name, py in (("fdiv", lambda a, b: a // b), ("fmod", lambda a, b: a % b)):
                value, obligations = enc.checked_call(name, [num(a), num(b)])
                if b == 0:
                    assert not all(holds(o.cond) for o in obligations)
                else:
                    assert all(holds(o.cond) for o in obligations) and to_python(value) == py(a, b), (name, a, b)


def seq_of(xs: list, cap: int):
    return E.SeqVal(num(len(xs)), tuple(num(x) for x in xs) + (num(0),) * (cap - len(xs)))


@given(a=st.lists(st.integers(-2, 2), max_size=3), b=st.lists(st.integers(-2, 2), max_size=4),
       x=st.integers(-9, 9), y=st.integers(-4, 4).filter(bool))
def test_value_operations_match_python(a, b, x, y):
    """List `<` (lexicographic, any lengths), list `==` across capacities, `//` and `%`: literal and symbolic."""
    va, vb = seq_of(a, 3), seq_of(b, 4)
    literal_results = [E.lex_lt(va, vb), E.lex_lt(vb, va), eq_val(va, vb),
                       E.lift(E.INT_OPS["//"], num(x), num(y)), E.lift(E.INT_OPS["%"], num(x), num(y))]
    expected = [a < b, b < a, a == b, x // y, x % y]
    assert [to_python(v) for v in literal_results] == expected
    sa, sb = E.fresh(SeqT(IntT(-2, 2), 3), "a", 2), E.fresh(SeqT(IntT(-2, 2), 4), "b", 2)
    sx, sy = z3.Int("x"), z3.Int("y")
    symbolic = [E.lex_lt(sa, sb), E.lex_lt(sb, sa), eq_val(sa, sb), E.INT_OPS["//"](sx, sy), E.INT_OPS["%"](sx, sy)]
    solver = z3.Solver()
    solver.add(eq_val(sa, va), eq_val(sb, vb), sx == x, sy == y)
    for v, want in zip(symbolic, expected):
        with scope(solver, v != (E.boolean(want) if isinstance(want, bool) else num(want))):
            assert solver.check() == z3.unsat


# ====================================================================== 2. symbolic

def pins(symbolic: StateVars, values: StateVars) -> list:
    # the decision point too: an invariant claimed `at` some points reads it
    return [eq_val(symbolic.vars[k], values.vars[k]) for k in symbolic.vars] + \
           [eq_val(symbolic.locals[k], values.locals[k]) for k in symbolic.locals] + [symbolic.pc == values.pc]


def check_symbolic(config, seed: int, steps: int, defs: int = 6) -> list[str]:
    """With the state's variables pinned to an engine state, no encoded value can differ."""
    state = reach(make_game(config), seed, steps)
    g, s, m = state.game, state.s, state.m
    p, n, rng = g.engine.program, s.n, random.Random(seed)
    sv = StateVars(p, n, g.option_values, 0)
    enc = Encoder(p, n, g.option_values, sv)
    solver = z3.Solver()
    solver.add(pins(sv, concrete(p, state)) + sv.constraints())
    problems = []
    if solver.check() != z3.sat:
        return ["the engine state is not a model of the state constraints"]

    def agree(label, value, obligations, run_engine, t):
        defined = E.and_all(o.cond for o in obligations)
        try:
            s.memo = {}
            expected = literal(t, run_engine(), n)
        except Exception as exc:
            with scope(solver, z3.Not(defined)):
                if solver.check() != z3.sat:
                    problems.append(f"{label}: the engine raised {exc!r}; Z3 found it well-defined")
            return
        with scope(solver, z3.Not(defined)):
            if solver.check() == z3.sat:
                return  # an obligation fails (the concrete test says which kinds may)
        with scope(solver, z3.Not(eq_val(value, expected))):
            if solver.check() != z3.unsat:
                problems.append(f"{label}: Z3 can differ from the engine's {to_python(expected)!r}")

    for inv, (name, _, fn, _) in zip(p.invariants, m.INVARIANTS):
        value, obligations = invariant_checked(enc, inv)
        agree(f"invariant {name}", value, obligations, lambda fn=fn: fn(s), BoolT())
    candidates = defs_to_test(p)
    for name, ptypes, rtype in rng.sample(candidates, min(defs, len(candidates))):
        args = random_args(ptypes, n, rng)
        # arguments over small domains are free variables pinned by the solver (symbolic indexing);
        # over large ones (cells, cards) literals, which keeps symbolic `runs` lengths cheap
        symbolic_args = [E.fresh(t, f"{name}.{i}", n) if dom_size(t, n) <= 16 else literal(t, a, n)
                         for i, (t, a) in enumerate(zip(ptypes, args))]
        with scope(solver, *[eq_val(x, literal(t, a, n)) for x, t, a in zip(symbolic_args, ptypes, args)]):
            value, obligations = enc.checked_call(name, symbolic_args)
            agree(f"{name}{tuple(args)}", value, obligations,
                  lambda f=getattr(m, "D_" + name), a=args: f(s, *a), rtype)
    if p.outcome is not None:
        for q in range(n):
            with enc.asking() as obligations:
                value = enc.score(num(q))
            agree(f"score({q})", value, obligations, lambda q=q: m._score(s, q), IntT(-10**9, 10**9))
    return problems


@pytest.mark.parametrize("config", CONFIGS[::2], ids=lambda c: f"{c[0]}-{c[1]}p")
def test_symbolic_agreement(config):
    @settings(max_examples=scaled(33))
    @given(seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 300))
    def check(seed, steps):
        problems = check_symbolic(config, seed, steps)
        assert problems == [], problems[:5]

    check()


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c[0]}-{c[1]}p" + ("-opts" if c[2] else ""))
def test_state_constraints_are_satisfiable(config):
    g = make_game(config)
    sv = StateVars(g.engine.program, g.num_players, g.option_values, 3)
    solver = z3.Solver()
    solver.add(sv.constraints())
    assert solver.check() == z3.sat
    assert all("@3" in str(v) for v in (sv.pc, sv.cur))


def tictactoe_with(extra: str):
    text = PATHS["tictactoe"].read_text() + extra
    g = Game(engine_from_text(text, "tictactoe.rules"), 2, {})
    p = g.engine.program
    sv = StateVars(p, 2, {}, 0)
    return g, p, sv, Encoder(p, 2, {}, sv)


def test_tictactoe_queries():
    g, p, sv, enc = tictactoe_with("\ndef clash(): bool = board[0] == x and board[0] == o\n")
    x, o = num(1), num(2)
    solver = z3.Solver()
    solver.add(sv.constraints())
    with scope(solver, enc.call("line_of", [x])):
        assert solver.check() == z3.sat
    goal = E.and_(enc.call("line_of", [x]), enc.call("full", []), E.not_(enc.call("line_of", [o])))
    with scope(solver, goal):
        assert solver.check() == z3.sat
        model = solver.model()
        # the model's board, loaded into the engine, is a full board where x has a line and o has none
        s = g.module.new_state(2, {})
        s.V_board = to_python(sv.vars["board"], model)
        assert all(c != 0 for c in s.V_board)
        assert g.module.D_line_of(s, 1) and not g.module.D_line_of(s, 2) and g.module.D_full(s)
    with scope(solver, enc.call("clash", [])):
        assert solver.check() == z3.unsat
    with scope(solver, sv.vars["board"][0] == 3):  # outside the enum Mark: excluded by the ranges
        assert solver.check() == z3.unsat


def test_text_and_unknown_nodes_are_refused():
    g = make_game(("sink", 2, {}))
    p = g.engine.program
    enc = Encoder(p, 2, g.option_values, StateVars(p, 2, g.option_values, 0))
    with pytest.raises(NotEncoded):
        enc.call("board", [])
    with pytest.raises(NotImplementedError):
        enc.expr(N.Block(()))


def test_every_expression_form_is_encoded(monkeypatch):
    """Every IR expression node, operator, aggregate and built-in goes through the encoder in these tests."""
    seen = set()
    original = Encoder.expr

    def recording(self, e):
        seen.add(type(e).__name__)
        if isinstance(e, (N.Binary, N.Unary)):
            seen.add(f"op {e.op}")
        elif isinstance(e, N.Aggregate):
            seen.add(f"aggregate {e.kind}")
        elif isinstance(e, N.Call) and e.func in BUILTINS:
            seen.add(f"builtin {e.func}")
        return original(self, e)

    monkeypatch.setattr(Encoder, "expr", recording)
    for seed in range(3):
        for config in SINK_CONFIGS:
            assert check_concrete(config, seed, 40 + 20 * seed, arg_tuples=2) == []
    expected = {"IntLit", "BoolLit", "Name", "Index", "FieldAccess", "Call", "Unary", "Binary", "RangeExpr",
                "IfExpr", "Aggregate", "SeqLit", "SetLit"}
    expected |= {f"op {op}" for op in "and or + - * // % == != < <= > >= in notin not".split()}
    expected |= {f"aggregate {k}" for k in N.AGGREGATES if k != "table"}  # table is text
    expected |= {f"builtin {f}" for f in BUILTINS}
    assert expected - seen == set()
    assert all(hasattr(Encoder, "b_" + f) for f in BUILTINS)


# ====================================================================== 3. planted mutations

FIXED = [(config, seed, steps) for config in SPEC_CONFIGS[::2] for seed, steps in ((1, 60), (2, 200), (3, 400))]


def all_problems(check, cases) -> list[str]:
    return [msg for config, seed, steps in cases for msg in check(config, seed, steps)]


def test_fixed_states_agree():
    assert all_problems(check_concrete, FIXED) == []


def test_concrete_check_catches_less_than_as_at_most(monkeypatch):
    monkeypatch.setitem(E.CMP_OPS, "<", E.CMP_OPS["<="])
    assert all_problems(check_concrete, FIXED) != []


@pytest.mark.parametrize("op", ["//", "%"])
def test_concrete_check_catches_euclidean_division(monkeypatch, op):
    def check(config, seed, steps):
        return check_concrete(config, seed, steps, arg_tuples=12)

    sink_cases = [(config, seed, 30) for config in SINK_CONFIGS for seed in range(2)]
    assert all_problems(check, sink_cases) == []
    monkeypatch.setitem(E.INT_OPS, op, {"//": lambda a, b: a / b, "%": lambda a, b: a % b}[op])  # z3: Euclidean
    assert any(msg.startswith(("fdiv", "fmod")) for msg in all_problems(check, sink_cases))


def test_symbolic_check_catches_off_by_one_index(monkeypatch):
    cases = [(("ramen_ink", 3, {}), 5, 120), (("sink", 3, {}), 5, 30), (("ramen", 3, {}), 4, 150)]
    assert all_problems(check_symbolic, cases) == []
    original = E.select

    def shifted(items, pos, default=None):  # a symbolic index reads the next item
        if E.is_lit(pos):
            return original(items, pos, default)
        return original(items[1:] + items[:1], pos, default)

    monkeypatch.setattr(E, "select", shifted)
    assert all_problems(check_symbolic, cases) != []
