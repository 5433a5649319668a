"""Z3's successor for each engine move equals the engine's (issue 6, transition layer).

1. Agreement: on random reachable states of every bundled spec (and of a spec
   using every statement form), at one-player decision points, for up to 5
   random legal actions (and random joint actions at simultaneous nodes),
   `successor` from `concrete(state)` equals `concrete(engine state after the
   move)` leaf by leaf — vars, flow locals, pc, cur and loop snapshots. When
   the engine's move succeeds every obligation holds; when it raises a rule
   error some obligation fails.
2. Symbolic: a move's effects executed on free state variables, and the whole
   successor of a free state (flow branches forked and merged), pinned to an
   engine state by substitution, give the engine's result.
3. Planted mutations of the statement encoding (`-=` read as `+=`, removal
   from a sequence taking the last occurrence) are caught by (1).
"""
from __future__ import annotations

import functools
import operator
import random

import pytest

from verifier.engine.lib import RuleError
from verifier.engine.play import random_step
from verifier.engine.runtime import Game
from verifier.smt import transition as T
from verifier.smt.encode import (NotEncoded, SeqVal, StateVars, and_, concrete, eq_val, is_true,
                                 ite, lift, literal, num, or_, to_python, z3)
from verifier.smt.transition import Exec, Frame, joint_successor, merge, snapshots_of, successor

from helpers import EXAMPLES, ROOT, SPEC_PATHS, engine_for, engine_from_text

PATHS = SPEC_PATHS

# Every statement form: append, add, remove (set and sequence, with duplicates), index and nested
# index assignment, += and -= (ints, sets) with range errors, let (move and flow), if/elif/else,
# for over sequences, sets and players, while, say, end; a decision inside a while.
STMTS_TEXT = r'''
game stmts "Every statement form"
players 2..3
type Digit = 0..9
var q: seq of Digit max 6 = []
var bag: set of Digit = {}
var board: array[Player] of array[0..2] of 0..20 = 0
var total: -30..30 = 0
var odd: Digit = 0
var turn: Player = 0
var rounds: 0..40 = 0
var on: bool = false
flow {
  let budget = 3
  while rounds < 30 {
    chance x from Digit
    choose turn {
      move push(d: 0..3) "push {d}" require room "there is room": size(q) < 6 {
        append d to q
        add d to bag
        total += d - 4
      }
      move pop(d: Digit) "pop {d}" require has "d is in q": d in q {
        remove d from q
        if d in bag { remove d from bag }
        total -= d
      }
      move poke(i: 0..5) "poke {i}" require inside "inside": i < size(q) {
        q[i] = x
        board[turn][i % 3] += x
        on = not on
      }
      move sweep() "sweep" {
        let k = 0
        for d in q {
          if d % 2 == 0 { k += 1 } elif d == 5 { total = 0 } else { odd = d }
        }
        for d in bag { board[turn][d % 3] = least(d, 20) }
        while k > 0 {
          k -= 1
          total += 1
        }
        bag -= {1, 2}
        bag += {x}
        say "swept"
      }
    }
    rounds += 1
    turn = next_player(turn)
    for p in players {
      if board[p][0] > 15 { board[p][0] = 0 }
    }
    budget = budget
    if total > 25 { end }
  }
}
outcome { score p: board[p][0] }
'''

CONFIGS = [
    ("tictactoe", 2, {}),
    ("goofspiel", 2, {}), ("goofspiel", 4, {}),
    ("ramen", 2, {}), ("ramen", 4, {"tips_need_card": "false", "narutos": "true"}),
    ("ramen_ink", 2, {}), ("ramen_ink", 4, {"drawing_order": "from_first"}),
    ("wasabi", 2, {"turn_limit": "60"}), ("wasabi", 3, {"wasabi_shape": "line", "diagonals": "true"}),
    ("stmts", 2, {}), ("stmts", 3, {}),
    ("pig", 3, {"winscore": "10", "piglet": "true", "diceoutcomes": "3"}),
]
SEEDS = 6
STATES_PER_SEED = 2
ACTIONS = 5


# An `if` around a decision point, in a loop, whose two other branches both go on: a walk that
# runs what follows each branch on its own forks 2^items times (`FlowWalk._fork`).
JOINS_TEXT = r'''
game joins "Ifs whose sides meet again"
players 2..2
var flags: array[0..5] of bool = false
var hits: 0..100 = 0
var misses: 0..100 = 0
var picks: 0..100 = 0
var rounds: 0..9 = 0
var turn: Player = 0
flow {
  while rounds < 4 {
    rounds += 1
    choose turn {
      move flip(i: 0..5) "flip {i}" { flags[i] = not flags[i] }
      move wait() "wait" { }
    }
    for i in 0..5 {
      if flags[i] { hits += 1 }
      elif hits > misses + i { misses += 1 }
      else { choose turn { move pick() "pick" { picks += i } } }
    }
  }
}
outcome { score p: hits - misses + picks }
'''


@functools.lru_cache(maxsize=None)
def engine(spec: str):
    if spec == "stmts":
        return engine_from_text(STMTS_TEXT, "smt_stmts.rules")
    if spec == "joins":
        return engine_from_text(JOINS_TEXT, "smt_joins.rules")
    return engine_for(PATHS[spec])


def decision_states(g: Game, seed: int) -> list:
    """States at decision points of one random playout (chance nodes excluded), a few picked at random."""
    rng = random.Random(seed)
    state, seen = g.new_initial_state(), []
    for _ in range(400):
        if state.is_terminal():
            break
        if state.current_player() != -1:  # a player's or a simultaneous decision
            seen.append(state.clone())
        try:
            random_step(state, rng)
        except RuleError:
            break
    return rng.sample(seen, min(STATES_PER_SEED, len(seen)))


def differences(program, step, after) -> list[str]:
    """Leaf-by-leaf comparison of Z3's successor with the engine's state after the move."""
    want = concrete(program, after)
    out = []
    for kind, names in (("vars", program.var_types), ("locals", program.flow_locals)):
        for name in names:
            got, exp = to_python(getattr(step.state, kind)[name]), to_python(getattr(want, kind)[name])
            if got != exp:
                out.append(f"{name}: z3 {got} engine {exp}")
    for k in ("pc", "cur"):
        if to_python(getattr(step.state, k)) != getattr(after.s, k):
            out.append(f"{k}: z3 {to_python(getattr(step.state, k))} engine {getattr(after.s, k)}")
    for key, value in step.snapshots.items():
        if key.startswith("M_"):  # a loop measure's previous value
            if to_python(value) != getattr(after.s, key):
                out.append(f"loop measure {key}: z3 {to_python(value)} engine {getattr(after.s, key)}")
            continue
        items, j = value
        if to_python(items) != list(getattr(after.s, "I_" + key)) or to_python(j) != getattr(after.s, "J_" + key):
            out.append(f"loop snapshot {key}")
    return out


def holds(cond) -> bool:
    return is_true(z3.simplify(cond))


def check_move(program, state, moves, apply) -> tuple[list[str], bool]:
    """(disagreements, whether the engine completed the move); moves = [(action, player)]."""
    n = state.s.n
    before = concrete(program, state)
    joint = []
    for a, player in moves:
        mv, values = state._decode(a)
        mi = next(m for m in program.moves if m.offset == mv[1] and m.decision == mv[7])
        params = {p.name: literal(t, v, n) for p, t, v in zip(mi.move.params, mi.param_types, values)}
        joint.append((mi, params, num(player)))
    after = state.clone()
    try:
        apply(after)
        if after.is_terminal():  # the outcome's checks are the move's too (Step.checks)
            after.final_outcome()
        raised = None
    except RuleError as exc:
        raised = exc
    try:
        step = joint_successor(program, n, before.options, before, state.s.pc, joint, snapshots_of(program, state))
    except NotEncoded as exc:
        return [f"not encoded: {exc}"], raised is None
    failed = [o for o in step.checks if not holds(o.cond)]
    if raised is not None:
        return ([] if any(o.kind == "error" for o in failed) else [f"engine raised {raised}; no obligation fails"],
                False)
    out = [f"obligation fails: {o.sentence}" for o in failed]
    return out + differences(program, step, after), True


def agreement(config, seeds=range(SEEDS)) -> tuple[list[str], int]:
    spec, players, options = config
    g = Game(engine(spec), players, options)
    program = engine(spec).program
    bad, checked = [], 0
    for seed in seeds:
        rng = random.Random(1000 + seed)
        for state in decision_states(g, seed):
            p = state.current_player()
            if p >= 0:
                legal = state.legal_actions(p)
                tries = [[(a, p)] for a in rng.sample(legal, min(ACTIONS, len(legal)))]
                applies = [functools.partial(lambda s, a: s.apply_action(a), a=t[0][0]) for t in tries]
            else:  # simultaneous: random joint actions
                tries = []
                for _ in range(ACTIONS):
                    joint = []
                    for q in range(state.num_players()):
                        legal = state.legal_actions(q)
                        if not legal:
                            break
                        joint.append((rng.choice(legal), q))
                    else:
                        tries.append(joint)
                applies = [functools.partial(lambda s, j: s.apply_actions([a for a, _ in j]), j=t) for t in tries]
            for moves, apply in zip(tries, applies):
                diffs, _ = check_move(program, state, moves, apply)
                checked += 1
                bad += [f"{spec} seed {seed} {moves}: {d}" for d in diffs]
    return bad, checked


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c[0]}-{c[1]}" if isinstance(c, tuple) else None)
def test_successor_agrees_with_engine(config):
    bad, checked = agreement(config)
    assert checked >= 5
    assert not bad, "\n".join(bad[:10])


# ---------------------------------------------------------------------- symbolic statements

def test_move_effects_symbolic_then_pinned():
    """Effects on free variables (symbolic indices, conditions, loops), pinned to an engine state by
    substitution, equal the effects computed from the concrete state."""
    program = engine("stmts").program
    g = Game(engine("stmts"), 2, {})
    rng = random.Random(7)
    checked = 0
    for seed in range(4):
        for state in decision_states(g, seed):
            n = state.s.n
            sym = StateVars(program, n, {}, 0)
            conc = concrete(program, state)
            pairs = []
            for name in program.var_types:
                pairs += leaf_pairs(sym.vars[name], conc.vars[name])
            for name in program.flow_locals:
                pairs += leaf_pairs(sym.locals[name], conc.locals[name])
            for mi in program.moves:
                params = {p.name: literal(t, dom_pick(t, n, rng), n) for p, t in zip(mi.move.params, mi.param_types)}
                results = []
                for start in (sym, conc):
                    ex = Exec(program, n, {}, Frame(dict(start.vars), dict(start.locals), dict(params)))
                    ex.block(mi.move.body.stmts)
                    results.append(ex.fr)
                for name in program.var_types:
                    for a, b in leaf_pairs(results[0].vars[name], results[1].vars[name]):
                        assert holds(z3.substitute(a, *pairs) == b), (mi.move.name, name)
                checked += 1
    assert checked > 10


def leaf_pairs(a, b) -> list:
    if isinstance(a, SeqVal):
        return [(a.length, b.length)] + [p for x, y in zip(a.items, b.items) for p in leaf_pairs(x, y)]
    if isinstance(a, tuple):
        return [p for x, y in zip(a, b) for p in leaf_pairs(x, y)]
    return [(a, b)]


def dom_pick(t, n, rng):
    from verifier.smt.encode import dom_lo, dom_size
    return dom_lo(t) + rng.randrange(dom_size(t, n))


def test_merge_pads_and_picks():
    c = z3.Bool("c")
    a = Frame({"x": num(1), "q": SeqVal(num(1), (num(4),))}, {}, {}, num(0), num(1))
    b = Frame({"x": num(2), "q": SeqVal(num(0), (num(0), num(0)))}, {}, {}, num(0), num(1))
    m = merge(c, a, b)
    assert len(m.vars["q"].items) == 2 and m.pc is a.pc
    assert merge(z3.BoolVal(True), a, b) is a
    s = z3.Solver()
    s.add(c)
    s.add(m.vars["x"] != 1)
    assert s.check() == z3.unsat


def pinned(v, pairs):
    """A successor value with the free start state replaced by an engine state's literals."""
    if isinstance(v, SeqVal):
        return SeqVal(pinned(v.length, pairs), tuple(pinned(x, pairs) for x in v.items))
    if isinstance(v, tuple):
        return type(v)(pinned(x, pairs) for x in v)
    return z3.simplify(z3.substitute(v, *pairs)) if pairs else z3.simplify(v)


def free_to_engine(program, state, sym, free_snaps=None) -> list:
    """Substitution pairs from a free state's leaves (and free loop snapshots', if given) to an
    engine state's literals."""
    conc = concrete(program, state)
    pairs = [(sym.pc, conc.pc), (sym.cur, conc.cur)]
    for name in program.var_types:
        pairs += leaf_pairs(sym.vars[name], conc.vars[name])
    for name in program.flow_locals:
        pairs += leaf_pairs(sym.locals[name], conc.locals[name])
    snaps = snapshots_of(program, state)
    for key, value in (free_snaps or {}).items():
        if key.startswith("M_"):
            pairs.append((value, snaps[key]))
            continue
        items, j = value
        have, hj = snaps[key]
        pairs += [(items.length, have.length), (j, hj)]
        for i, x in enumerate(items.items):
            pairs += leaf_pairs(x, have.items[i] if i < len(have.items) else x)
    return [(a, b) for a, b in pairs if not a.eq(b)]


def pinned_step(program, n, options, step, pairs) -> T.Step:
    """A successor of a free state with that state replaced by an engine state's literals."""
    return T.Step(StateVars(program, n, options, None, values={
        "vars": {k: pinned(v, pairs) for k, v in step.state.vars.items()},
        "locals": {k: pinned(v, pairs) for k, v in step.state.locals.items()},
        "pc": pinned(step.state.pc, pairs), "cur": pinned(step.state.cur, pairs)}),
        {k: pinned(v, pairs) if k.startswith("M_") else (pinned(v[0], pairs), pinned(v[1], pairs))
         for k, v in step.snapshots.items()}, [])


def symbolic_agreement(config, seeds=range(2), actions=2, free_snapshots=False) -> tuple[list[str], int]:
    """The successor of a *free* state (branches of the flow forked and merged), pinned to an
    engine state, equals the engine's successor."""
    spec, players, options = config
    g = Game(engine(spec), players, options)
    program = engine(spec).program
    bad, checked = [], 0
    for seed in seeds:
        rng = random.Random(2000 + seed)
        for state in decision_states(g, seed):
            p = state.current_player()
            if p < 0:
                continue
            n = state.s.n
            sym = StateVars(program, n, state_options(program, state), 0)
            free = T.fresh_snapshots(program, n) if free_snapshots else None  # pinned to the engine's
            pairs = free_to_engine(program, state, sym, free)
            snaps = free if free_snapshots else snapshots_of(program, state)
            legal = state.legal_actions(p)
            for a in rng.sample(legal, min(actions, len(legal))):
                mv, values = state._decode(a)
                mi = next(m for m in program.moves if m.offset == mv[1] and m.decision == mv[7])
                params = {q.name: literal(t, v, n) for q, t, v in zip(mi.move.params, mi.param_types, values)}
                step = successor(program, n, sym.options, sym, state.s.pc, mi, params, snaps, player=num(p))
                after = state.clone()
                after.apply_action(a)
                got = pinned_step(program, n, sym.options, step, pairs)
                bad += [f"{spec} seed {seed} action {a}: {d}" for d in differences(program, got, after)]
                bad += [f"{spec} seed {seed} action {a}: obligation fails: {o.sentence}"
                        for o in step.checks if not holds(z3.substitute(o.cond, *pairs))]
                checked += 1
    return bad, checked


def state_options(program, state) -> dict:
    return {name: getattr(state.s, "O_" + name) for name in program.options}


@pytest.mark.parametrize("config", [("tictactoe", 2, {}), ("stmts", 2, {}), ("ramen_ink", 2, {})],
                         ids=lambda c: c[0])
def test_symbolic_successor_pinned_agrees(config):
    bad, checked = symbolic_agreement(config, free_snapshots=True)
    assert checked >= 2
    assert not bad, "\n".join(bad[:10])


@pytest.mark.parametrize("join_ifs", [True, False], ids=["joined", "apart"])
def test_ifs_whose_sides_meet_agree_with_the_engine(monkeypatch, join_ifs):
    """JOINS_TEXT's successors from a free state (its loop positions the engine's: free, the
    walk would unroll the loop without end), pinned to engine states, are the engine's: with
    the sides of each `if` meeting at its end, and apart."""
    monkeypatch.setattr(T.FlowWalk, "JOIN_IFS", join_ifs)
    bad, checked = symbolic_agreement(("joins", 2, {}), seeds=range(12), actions=3)
    assert checked >= 20
    assert not bad, "\n".join(bad[:10])


def walk_tasks(monkeypatch, join_ifs: bool) -> int:
    """The tasks the flow walk runs for the `flip` move of JOINS_TEXT from a free state."""
    program = engine("joins").program
    monkeypatch.setattr(T.FlowWalk, "JOIN_IFS", join_ifs)
    walks = []
    init = T.FlowWalk.__init__

    def record(self, *args, **kwargs):
        init(self, *args, **kwargs)
        walks.append(self)
    monkeypatch.setattr(T.FlowWalk, "__init__", record)
    sym = StateVars(program, 2, {}, 0)
    flip = next(m for m in program.moves if m.move.name == "flip")
    successor(program, 2, {}, sym, flip.decision, flip, {"i": num(0)}, T.fresh_snapshots(program, 2), player=num(0))
    return sum(w.tasks for w in walks)


def test_what_follows_an_if_runs_once_where_its_sides_meet(monkeypatch):
    """The two branches of an `if` that go on meet at its end, and what follows runs once on
    their merged frames: the walk is linear in the loop's items, not exponential (the successors
    themselves are checked against the engine by `test_ifs_whose_sides_meet_agree_with_the_engine`)."""
    joined = walk_tasks(monkeypatch, True)
    apart = walk_tasks(monkeypatch, False)
    assert joined * 8 < apart, (joined, apart)


# ---------------------------------------------------------------------- planted mutations

def test_mutation_minus_as_plus_is_caught(monkeypatch):
    monkeypatch.setitem(T.INT_EDITS, "-=", operator.add)
    bad, _ = agreement(("stmts", 2, {}))
    assert bad
    bad, _ = agreement(("wasabi", 2, {"turn_limit": "60"}))
    assert bad


def remove_last(ex, st, q, x):
    """The planted bug: removes the last occurrence instead of the first."""
    hits = [and_(lift(operator.lt, num(i), q.length), eq_val(item, x)) for i, item in enumerate(q.items)]
    later = z3.BoolVal(False)
    gone_at = []
    for i in range(len(hits) - 1, -1, -1):
        gone_at.insert(0, and_(hits[i], z3.Not(later)) if not is_true(later) else z3.BoolVal(False))
        later = or_(later, hits[i])
    gone, items = z3.BoolVal(False), []
    for i, item in enumerate(q.items):
        gone = or_(gone, gone_at[i])
        nxt = q.items[i + 1] if i + 1 < len(q.items) else item
        items.append(ite(gone, nxt, item) if not isinstance(item, tuple) else item)
    return SeqVal(ite(later, lift(operator.sub, q.length, num(1)), q.length), tuple(items))


def test_mutation_seq_remove_last_is_caught(monkeypatch):
    monkeypatch.setattr(T, "seq_remove_first", remove_last)
    bad, _ = agreement(("stmts", 2, {}), seeds=range(12))
    assert bad


DEEP = '''
game deep "Deep"
players 2
type Idx = 0..63
var board: array[Idx] of 0..3 = 0
var turn: Player = 0
def heavy(): 0..10000 = sum(i in Idx: sum(j in Idx: if board[i] == board[j] then 1 else 0))
flow {
  choose turn { move go() "go" { board[0] = heavy() % 4 } }
}
outcome { score p: heavy() }
'''


def test_encoding_stops_at_its_deadline():
    """A move can unfold into an enormous term (a game-tree search written as nested definitions:
    tiny_bridge_2p's returns ran for minutes past a 10 s budget). The encoders look at the clock
    while `encoding_deadline` is open, and the relation opens it while it builds a move."""
    import time

    from verifier.frontend import check_text
    from verifier.smt.encode import Encoder, OutOfTime, encoding_deadline
    from verifier.smt.relation import Relation

    program, diags = check_text(DEEP, "deep.rules")
    assert program is not None, [d.message for d in diags]
    heavy = program.defs["heavy"].body
    state = StateVars(program, 2, {}, 0)
    with encoding_deadline(time.perf_counter() - 1, "out of time in the test"):
        with pytest.raises(OutOfTime, match="out of time in the test"):
            Encoder(program, 2, {}, state).expr(heavy)
    Encoder(program, 2, {}, state).expr(heavy)  # no deadline: it is encoded
    rel = Relation(program, 2, {})
    rel.deadline = time.perf_counter() - 1  # already past: the move is not built
    with pytest.raises(OutOfTime):
        rel.alternatives(0)


def test_replaying_a_bodys_obligations_and_the_outcome_stop_at_the_deadline():
    """Encoding is not the only work: a game-tree search nested four deep replayed its leaves'
    obligations under every path for an hour (16 GB) without encoding one expression, and the
    outcome's checks were encoded with no deadline at all. Both look at the clock now."""
    import time

    from verifier.frontend import check_text
    from verifier.smt.encode import Encoder, Obligation, OutOfTime, encoding_deadline, z3
    from verifier.smt.prove import Prover

    program, diags = check_text(DEEP, "deep.rules")
    assert program is not None, [d.message for d in diags]
    enc = Encoder(program, 2, {}, StateVars(program, 2, {}, 0))
    span = program.defs["heavy"].body.span
    obligations = [Obligation(z3.Int(f"x{i}") > 0, span, "a check", "error") for i in range(600)]
    enc.path.append(z3.Bool("on_this_path"))
    with encoding_deadline(time.perf_counter() - 1, "out of time replaying"):
        with pytest.raises(OutOfTime, match="out of time replaying"):
            enc._replay(obligations)
    prover = Prover(program, 2, {}, 10_000, budget=0.01)
    time.sleep(0.05)
    verdict = prover.obligations()
    assert verdict.status == "unknown" and "encoding the outcome's checks" in verdict.reason


# ---------------------------------------------------------------------- the relation's cases

def relation_agreement(spec: str, players: int, moves: set, seeds) -> tuple[list[str], int]:
    """At engine states whose decision point offers one of `moves`, the relation's alternatives
    over the free state (its cases: loop positions, seats), pinned to the state: for a random
    legal action, exactly one alternative of that move covers the state, its guard holds with
    the action's parameters, its checks hold, and its successor is the engine's."""
    from verifier.smt.relation import Relation
    g = Game(engine(spec), players, {})
    program = engine(spec).program
    rel = Relation(program, players, dict(g.option_values))
    bad, checked = [], 0
    for seed in seeds:
        rng = random.Random(3000 + seed)
        for state in decision_states(g, seed):
            p = state.current_player()
            d = state.s.pc
            if p < 0 or not any(m.move.name in moves for m in program.decisions[d].moves):
                continue
            pairs = free_to_engine(program, state, rel.state, rel.snaps)
            a = rng.choice(state.legal_actions(p))
            mv, values = state._decode(a)
            mi = next(m for m in program.moves if m.offset == mv[1] and m.decision == mv[7])
            covering = [alt for alt in rel.alternatives(d) if alt.label.split(" ")[0] == mi.move.name
                        and (alt.pin is None or holds(z3.substitute(alt.pin, *pairs)))]
            if len(covering) != 1:
                bad.append(f"seed {seed} {mi.move.name}: {len(covering)} alternatives cover the state")
                continue
            alt = covering[0]
            given = pairs + [(alt.params[q.name], literal(t, v, players))
                             for q, t, v in zip(mi.move.params, mi.param_types, values)]
            if not holds(z3.substitute(alt.guard, *given)):
                bad.append(f"seed {seed} {alt.label}: the guard fails on a legal action")
            bad += [f"seed {seed} {alt.label}: obligation fails: {o.sentence}"
                    for o in alt.pre + alt.step.checks if not holds(z3.substitute(o.cond, *given))]
            after = state.clone()
            after.apply_action(a)
            got = pinned_step(program, players, rel.state.options, alt.step, given)
            bad += [f"seed {seed} {alt.label}: {d}" for d in differences(program, got, after)]
            checked += 1
    return bad, checked


def test_the_relations_cases_split_innermost_first_agree_with_the_engine():
    """Ramen's choices inside a round's steps and turns: their loop positions split innermost
    first (the round's position, which a move's walk reads only at the round's end, is not:
    12 alternatives for the 1's swap at 2 players, not 108), and each case, pinned to engine
    states, is the engine's move."""
    from verifier.smt.relation import Relation
    program = engine("ramen").program
    rel = Relation(program, 2, {})
    swap = next(m.decision for m in program.moves if m.move.name == "swap_one")
    labels = [alt.label for alt in rel.alternatives(swap)]
    assert len(labels) == 12 and all("step=" in x and "round=" not in x for x in labels), labels
    bad, checked = relation_agreement("ramen", 2, {"swap_one", "keep_one", "swap_kinds", "keep_order", "take",
                                                   "keep_own"}, range(24))
    assert checked >= 20
    assert not bad, "\n".join(bad[:10])


def test_a_walk_gives_up_past_the_fork_limit_it_is_given():
    """`fork_limit` caps the forks of the walks started under it (the relation's first build,
    which has a split to fall back on); outside it, the walk's own limit holds again."""
    program = engine("joins").program
    sym = StateVars(program, 2, {}, 0)
    flip = next(m for m in program.moves if m.move.name == "flip")

    def walk():
        return successor(program, 2, {}, sym, flip.decision, flip, {"i": num(0)}, T.fresh_snapshots(program, 2),
                         player=num(0))
    with T.fork_limit(1):
        with pytest.raises(NotEncoded, match="forked 1 times"):
            walk()
    assert walk().state is not None


# A later parameter's source reads an earlier parameter through a definition of a narrower
# argument type: the engine evaluates `partners(x)` only for x among x's items (0..8 here), so
# the check "argument b of near is a value of 1..8" (x != 0 in its branch) must rest on that
# (Ramen Ink's draw move: `y in partners(d, x)` was reported as failing for x = -1)
SOURCE_READS_PARAM = r'''
game chained "Chained sources"
players 2
type Bowl = 1..8
type Target = 0..8
var hits: 0..20 = 0
def near(b: Bowl): set of Bowl = {b}
def partners(a: Target): set of Target = if a == 0 then {0} else collect(t in Target where t == 0 or t in near(a))
flow {
  choose 0 { move draw(x in collect(t in Target), y in partners(x)) "draws {x} {y}" { hits += 1 } }
}
outcome { score p: hits }
'''


def test_a_sources_checks_rest_on_the_earlier_parameters_domains():
    from verifier.frontend import check_text
    from verifier.smt.prove import Prover
    program, _ = check_text(SOURCE_READS_PARAM, "chained.rules")
    prover = Prover(program, 2, {}, 10)
    asked = 0
    for d in range(len(program.decisions)):
        for alt in prover.alternatives(d):
            for o in alt.pre:
                s = z3.Solver()
                s.add(*prover._at(d, alt), z3.Not(o.cond))
                assert s.check() == z3.unsat, o.sentence
                asked += 1
    assert asked  # the check of near's argument is among them
