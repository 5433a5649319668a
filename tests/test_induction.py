"""How the engines take a move whose successor may stop at several decision points.

- The sliced induction (`verifier/smt/engines/induction.py`) asks it once for all of them; only
  when that joint query is not settled is each decision point asked on its own.
- The interval analysis (`verifier/smt/engines/intervals.py`) evaluates a cheap move once per
  successor (narrowed by where it goes), a costly one once for all; and a move again only when
  a leaf it reads has grown.

Shown on an inline spec whose `step` move either stays in its loop or leaves it for a last
decision.
"""
from __future__ import annotations

import time
from pathlib import Path

from verifier.frontend import check_text
from verifier.smt.dag import abstract_apart, applications
from verifier.smt.encode import CTX, Encoder, z3
from verifier.smt.engines.induction import Claim, Induction, Outcome, instances_of
from verifier.smt.engines.intervals import analyse
from verifier.smt.prove import Prover
from verifier.smt.system import System

FORK = '''
game fork "Fork"
players 1
var count: 0..20 = 0
var twin: 0..20 = 0
flow {
  while count < 6 decreases 6 - count {
    choose 0 {
      move step() "steps" { count += 1  twin += 1 }
      move wait() "waits" { }
    }
  }
  choose 0 { move finish() "finishes" { } }
}
outcome { score p: twin }
invariant same "twin keeps count's pace": twin == count
invariant low "twin stays below 6 (false: the loop reaches 6)": twin <= 5
'''


def compiled(text: str, filename: str) -> tuple:
    """(program, prover, system) of a one-player inline spec."""
    program, diags = check_text(text, filename)
    assert program is not None, [d.message for d in diags]
    prover = Prover(program, 1, {}, 10)
    return program, prover, System(prover.rel)


def setting():
    program, prover, system = compiled(FORK, "fork.rules")
    return program, prover, system, analyse(system, None)


def claim(program, prover, name: str) -> Claim:
    inv = next(i for i in program.invariants if i.name == name)
    return Claim(name, inv, instances_of(Encoder(program, prover.n, {}, prover.rel.state).invariant(inv)))


def step_transition(system):
    return next(tr for d in system.decisions for tr in system.transitions(d) if tr.label.startswith("step"))


def test_a_move_with_two_successors_is_asked_once():
    program, prover, system, facts = setting()
    assert len([v for v, _ in step_transition(system).cases if v is not None]) == 2  # the loop, or the last choice
    asked = []
    ind = Induction(system, facts, timeout=10)
    check = ind._check_case
    ind._check_case = lambda d, tr, v, *rest: asked.append((tr.label, v)) or check(d, tr, v, *rest)
    assert ind.run([claim(program, prover, "same")])["same"].proved
    steps = [v for label, v in asked if label.startswith("step")]
    assert steps and all(isinstance(v, tuple) and len(v) == 2 for v in steps)


def test_a_joint_query_not_settled_is_asked_per_successor():
    program, prover, system, facts = setting()
    ind = Induction(system, facts, timeout=10)
    check = ind._check_case
    asked = []

    def give_up_on_joint(d, tr, v, *rest):
        asked.append(v)
        if isinstance(v, tuple):
            return Outcome(False, "unknown", d, tr.label, "planted: the solver gave up")
        return check(d, tr, v, *rest)

    ind._check_case = give_up_on_joint
    assert ind.run([claim(program, prover, "same")])["same"].proved
    assert any(isinstance(v, tuple) for v in asked)  # the joint query was asked first
    singles = [v for v in asked if not isinstance(v, tuple)]
    assert len(set(singles)) >= 2  # then each successor on its own


def test_a_false_claim_is_refuted_by_the_joint_query():
    program, prover, system, facts = setting()
    out = Induction(system, facts, timeout=10).run([claim(program, prover, "low")])["low"]
    assert not out.proved and out.kind == "sat" and out.move.startswith("step")


def count_at_finish(system, facts) -> tuple:
    finish = next(tr.decision for d in system.decisions for tr in system.transitions(d) if tr.label.startswith("finish"))
    leaf = next(x for x in system.leaves if str(system.dag.term[x]).startswith("count"))
    return facts.states[finish][leaf]


def test_a_cheap_move_is_evaluated_per_successor():
    """The interval analysis narrows a move's successor by where it goes: `step` reaches the last
    choice only when count becomes 6."""
    _, _, system, facts = setting()
    assert count_at_finish(system, facts) == (6, 6)


def test_a_costly_move_is_evaluated_once_for_all_successors(monkeypatch):
    """A move that used up its narrowings is evaluated once for all its successors: wider, but
    still containing every reachable value (here 6, the only one)."""
    from verifier.smt.engines import intervals
    monkeypatch.setattr(intervals, "MAX_ENVS", 0)  # every move counts as costly
    shared = []
    post = intervals.Intervals._post
    monkeypatch.setattr(intervals.Intervals, "_post",
                        lambda self, tr, env, together=None: shared.append(together is not None) or post(self, tr, env, together))
    _, _, system, _ = setting()
    lo, hi = count_at_finish(system, intervals.analyse(system, None))
    assert any(shared) and lo <= 6 <= hi and (lo, hi) != (6, 6)


RELAY = '''
game relay "Relay"
players 1
var count: 0..20 = 0
flow {
  while count < 6 decreases 6 - count {
    choose 0 { move note() "notes" { } }
    choose 0 { move step() "steps" { count += 1 } }
  }
}
outcome { score p: count }
'''


def evaluations(monkeypatch, reuse: bool) -> tuple:
    """(moves evaluated, by label; the intervals at every decision point) of the analysis of RELAY,
    with or without reusing a move's outcome when nothing it reads has grown."""
    from verifier.smt.engines import intervals
    _, _, system = compiled(RELAY, "relay.rules")
    labels = []
    evaluate = intervals.Intervals._evaluate
    monkeypatch.setattr(intervals.Intervals, "_evaluate",
                        lambda self, tr, here: labels.append(tr.label.split(" ")[0]) or evaluate(self, tr, here))
    if not reuse:  # every move counts as reading every leaf
        monkeypatch.setattr(intervals.Intervals, "_reads", lambda self, tr: -1)
    facts = intervals.analyse(system, None)
    return labels, {d: None if e is None else dict(e) for d, e in facts.states.items()}


def test_a_move_is_evaluated_again_only_when_what_it_reads_grew(monkeypatch):
    """`note` reads nothing that grows (count passes through it, and its successor is the next
    choice whatever count is): evaluated once, its outcome then reused with count's new interval,
    giving the same intervals as evaluating it at every growth; `step` reads count (the loop's
    test follows it) and is evaluated at every growth."""
    reused, facts = evaluations(monkeypatch, reuse=True)
    monkeypatch.undo()
    every, facts_every = evaluations(monkeypatch, reuse=False)
    assert facts == facts_every
    assert reused.count("note") == 1 < every.count("note")
    assert reused.count("step") == every.count("step") > 1


# A claim that rests on a later one: `at_most_one` holds only because a shelf not yet opened is
# empty (`unopened_empty`, listed after it). Alone, every one of its instances has a
# counterexample to induction.
SHELVES = '''
game shelves "Shelves"
players 1
var opened: 0..8 = 0
var held: array[0..7] of 0..5 = 0
flow {
  while opened < 8 {
    choose 0 {
      move put(b: 0..7) "puts into {b}"
        require fits "an empty opened shelf, or the next one": (b < opened and held[b] == 0) or b == opened
      {
        held[b] += 1
        if b == opened { opened += 1 }
      }
    }
  }
}
outcome { score p: opened }
invariant at_most_one "a shelf holds at most one": all(b in 0..7: held[b] <= 1)
invariant unopened_empty "a shelf not yet opened is empty": all(b in 0..7 where b >= opened: held[b] == 0)
'''


def shelves_run(monkeypatch, give_up: bool) -> tuple:
    program, prover, system = compiled(SHELVES, "shelves.rules")
    houdini = Induction._houdini
    if not give_up:
        monkeypatch.setattr(Induction, "_houdini", lambda self, cs, lemmas, give_up_at_sat=False, **_: houdini(self, cs, lemmas))
    ind = Induction(system, analyse(system, None))
    claims = [claim(program, prover, "at_most_one"), claim(program, prover, "unopened_empty")]
    results = ind.run(claims, [])
    monkeypatch.undo()
    # every instance left is passed on as a lemma, the second pass's too
    lemmas = {f.get_id() for f in ind.lemmas}
    assert all(f.get_id() in lemmas for c in claims if results[c.name].proved for f in c.instances)
    return {name: r.proved for name, r in results.items()}, ind.queries


def test_a_claim_a_move_breaks_is_left_at_its_first_counterexample(monkeypatch):
    """The first pass leaves `at_most_one` at its first counterexample to induction instead of
    refuting its eight instances one by one; the second pass proves it with `unopened_empty`,
    and what it leaves is passed on as lemmas."""
    proved, queries = shelves_run(monkeypatch, give_up=True)
    assert proved == {"at_most_one": True, "unopened_empty": True}
    proved_slow, queries_slow = shelves_run(monkeypatch, give_up=False)
    assert proved_slow == proved
    assert queries + 5 <= queries_slow, (queries, queries_slow)


# One move breaks six instances at once (every counter leaves 0 together); `steady` survives.
COUNTERS = '''
game counters "Counters"
players 1
var rounds: 0..9 = 0
var c: array[0..5] of 0..9 = 0
flow {
  while rounds < 3 {
    choose 0 {
      move bump() "bumps every counter" {
        rounds += 1
        for i in 0..5 { c[i] += 1 }
      }
    }
  }
}
outcome { score p: rounds }
invariant at_zero "every counter stays at 0 (false: bump raises them all)": all(i in 0..5: c[i] == 0)
invariant steady "every counter equals the first": all(i in 0..5: c[i] == c[0])
'''


def counters_run(monkeypatch, by_models: bool, whole_batch: bool = False) -> tuple:
    """(outcomes, the instances left, queries asked, instances refuted by models) of one Houdini
    over both COUNTERS claims; `by_models`: other instances a counterexample breaks are dropped
    with it; `whole_batch`: the changed instances are also asked all at once over the whole
    query (`_whole_batch`, which refutes by models on its own)."""
    program, prover, system = compiled(COUNTERS, "counters.rules")
    if not by_models:
        monkeypatch.setattr(Induction, "_also_broken", lambda self, *a: iter(()))
    if not whole_batch:
        monkeypatch.setattr(Induction, "_whole_batch", lambda self, *a: (set(), []))
    ind = Induction(system, analyse(system, None))
    claims = [claim(program, prover, "at_zero"), claim(program, prover, "steady")]
    out, left = ind._houdini(claims, [])
    return ({k: (v.proved, v.kind) for k, v in out.items()}, {f.sexpr() for f in left}, ind.queries,
            ind.refuted_by_models)


def test_one_counterexample_drops_every_instance_it_breaks(monkeypatch):
    """A model of a whole query satisfies every live instance before the move: an instance it
    falsifies after the move is not inductive, and is dropped without a query of its own. The
    outcome and what is left are those of dropping one instance per query."""
    out, left, queries, by_models = counters_run(monkeypatch, by_models=True)
    monkeypatch.undo()
    out_one, left_one, queries_one, _ = counters_run(monkeypatch, by_models=False)
    assert out == out_one == {"at_zero": (False, "sat"), "steady": (True, "")}
    assert left == left_one and len(left) == 6
    assert by_models >= 4 and queries < queries_one


def test_a_moves_instances_are_settled_together_over_the_whole_query(monkeypatch):
    """When the sliced query of a move's changed instances has a model, the whole query of them
    all refutes every instance false in its model and settles the rest: the same outcome and
    the same instances left as one query per instance, with fewer queries. A batch that refuted
    every instance of a model, `steady`'s true ones too, would lose `steady`."""
    out, left, queries, by_models = counters_run(monkeypatch, by_models=False, whole_batch=True)
    monkeypatch.undo()
    out_one, left_one, queries_one, _ = counters_run(monkeypatch, by_models=False)
    assert out == out_one == {"at_zero": (False, "sat"), "steady": (True, "")}
    assert left == left_one and len(left) == 6
    assert by_models == 6 and queries < queries_one, (queries, queries_one)


ALLOWANCES = '''
game allowances "Allowances"
players 1
var used: 0..5 = 0
var allowed: 1..2 = 1
var bonus: bool = false
var spent: 0..5 = 0
var cap: 2..3 = 2
var extra: bool = false
var done: bool = false
flow {
  while not done {
    choose 0 {
      move boost() "doubles the allowance" require once "once": not bonus { bonus = true  allowed = 2 }
      move use() "uses one" require room "within the allowance": used < allowed { used += 1 }
      move widen() "widens the cap" require once "once": not extra { extra = true  cap = 3 }
      move spend() "spends one" require room "within the cap": spent < cap { spent += 1 }
      move stop() "stops" { done = true }
    }
  }
}
outcome { score p: used + spent }
invariant a_used "used within what the bonus allows (rests on b_allowed, later)": used <= (if bonus then 2 else 1)
invariant h_spent "spent within what the extra allows (rests on g_cap, later)": spent <= (if extra then 3 else 2)
invariant b_allowed "the allowance follows the bonus": allowed == (if bonus then 2 else 1)
invariant g_cap "the cap follows the extra": cap == (if extra then 3 else 2)
'''


def test_a_claim_that_rests_on_a_later_one_is_proved_on_its_own_second_try():
    """`a_used` and `h_spent` each rest on a claim after them in the order: the first pass breaks
    both, and proves the two they rest on. Asked again, each on its own with what the first pass
    proved, both hold. Here the solver is planted to run the time out on any query about
    `spent` that assumes `g_cap` (one claim the solver struggles with): `a_used` must still come
    out proved — asked together with `h_spent`, as before, the time ran out for both."""
    program, prover, system = compiled(ALLOWANCES, "allowances.rules")
    facts = analyse(system, None)
    claims = [claim(program, prover, name) for name in ("a_used", "h_spent", "b_allowed", "g_cap")]

    out = Induction(system, facts, timeout=10).run(claims)
    assert all(out[c.name].proved for c in claims), {k: (v.proved, v.kind) for k, v in out.items()}

    ind = Induction(system, facts, timeout=10, deadline=time.perf_counter() + 30)
    solve = ind._solve

    def struggles(parts, ms, *how):
        text = [str(p) for p in parts]
        if any("spent@" in t for t in text) and any(t.startswith("cap@0 ==") for t in text):
            time.sleep(max(0.0, ind.deadline - time.perf_counter()))  # planted: out of time
            return z3.unknown, "planted"
        return solve(parts, ms, *how)
    ind._solve = struggles
    out = ind.run(claims)
    assert out["a_used"].proved, (out["a_used"].kind, out["a_used"].detail)
    assert out["b_allowed"].proved and out["g_cap"].proved
    assert not out["h_spent"].proved


def gives_up_on(ind: Induction, leaf: str) -> Induction:
    """Plant in `ind` a solver that gives up on any query mentioning `leaf` (e.g. "total@"): a
    query the solver cannot settle, made deterministic."""
    solve = ind._solve

    def planted(parts, ms, *how):
        if any(leaf in str(p) for p in parts):
            return z3.unknown, "planted"
        return solve(parts, ms, *how)
    ind._solve = planted
    return ind


CAPPED = '''
game capped "Capped"
players 1
var count: 0..9 = 0
var cap: 0..9 = 3
var total: 0..50 = 0
var done: bool = false
flow {
  while not done {
    choose 0 {
      move add(k: 1..5) "adds {k}" require room "below the cap": count < cap { count += 1  total += k }
      move stop() "stops" { done = true }
    }
  }
}
outcome { score p: total }
invariant at_most_3 "count stays within 3 (the cap's own claim carries it)": count <= 3
invariant cap_3 "the cap is 3": cap <= 3
'''


def test_the_whole_query_leaves_out_the_checks_outside_its_cone():
    """`at_most_3` holds after `add` because of `cap_3`, which reads `cap` only: the sliced query
    (what shares a leaf with `count`) leaves it out and has a model; the whole query takes what
    shares a leaf with anything in it, closed, and is unsatisfiable. `add`'s run-time check on
    `total` (a sum within 0..50, unrelated to `count`) is outside that cone. The solver is planted
    to give up on any query that mentions `total`: the claim must still be proved — with every
    check in the whole query, as before, it was unknown."""
    program, prover, system = compiled(CAPPED, "capped.rules")
    at_most, cap = claim(program, prover, "at_most_3"), claim(program, prover, "cap_3")
    add = next(tr for d in system.decisions for tr in system.transitions(d) if tr.label.startswith("add"))
    assert any("total" in str(o.cond) for o in add.alt.step.obligations)  # the check the cone leaves out
    ind = gives_up_on(Induction(system, None, timeout=10), "total@")
    out = ind.run([at_most], cap.instances)["at_most_3"]
    assert out.proved, (out.kind, out.move, out.detail)
    sliced = Induction(system, None, timeout=10).run([at_most])["at_most_3"]
    assert not sliced.proved and sliced.kind == "sat"  # not inductive without cap_3


ROUNDS = '''
game rounds "Rounds"
players 1
var allowed: 1..2 = 1
var bonus: bool = false
var rounds: 0..5 = 0
var turn_over: bool = false
flow {
  while rounds < 5 decreases 5 - rounds {
    allowed = 1
    bonus = false
    turn_over = false
    while not turn_over {
      choose 0 {
        move boost() "boosts" require once "once a round": not bonus { bonus = true  allowed = 2 }
        move pass() "ends the round" { turn_over = true }
      }
    }
    rounds += 1
  }
}
outcome { score p: rounds }
invariant pinned "the allowance follows the bonus": allowed == (if bonus then 2 else 1)
'''


def test_an_instance_the_move_resets_or_leaves_alone_needs_no_query():
    """`pass` ends the round: on the way to the next round the allowance and the bonus are reset,
    on the way to the game's end they are left alone. Merged, the successor's `allowed` reads
    `if rounds + 1 < 5 then 1 else allowed`; read along each way the flow runs, it is `1` (and the
    claim `true`) or the claim itself. The solver is planted to give up on any query that reads
    `rounds`: the claim must still be proved — without reading the ways apart it was unknown."""
    program, prover, system = compiled(ROUNDS, "rounds.rules")
    ends = next(tr for d in system.decisions for tr in system.transitions(d) if tr.label.startswith("pass"))
    assert len({v for v, _ in ends.cases}) == 2  # the next round's choice, or the end
    ind = gives_up_on(Induction(system, None, timeout=10), "rounds@")
    out = ind.run([claim(program, prover, "pinned")])["pinned"]
    assert out.proved, (out.kind, out.move, out.detail)


MATCHES = '''
game matches "Matches"
players 1
type Slot = 0..3
var board: array[Slot] of 0..3 = 0
var held: set of Slot = {0, 1}
var won: set of Slot = {}
var finished: bool = false
flow {
  while not finished {
    choose 0 {
      move mark(c: Slot, x: 0..3) "marks {c} with {x}" {
        board[c] = x
        for r in collect(y in Slot where y in held) {
          if board[(r + 1) % 4] == 2 and board[(r + 2) % 4] != 1 {
            remove r from held
            add r to won
          }
        }
      }
      move stop() "stops" { finished = true }
    }
  }
}
outcome { score p: size(won) }
invariant apart "a slot is never both held and won": size(inter(held, won)) == 0
'''


def test_what_the_instance_does_not_read_is_left_free_at_first():
    """After `mark`, whether a held slot is won depends on the board; "never both held and won"
    does not: both ways it holds. The first look leaves every part of the successor that reads
    no leaf the instance reads (the board's tests) free, and settles it. The solver is planted to
    give up on any query that reads the board: the claim must still be proved — asked only as it
    is, it was unknown."""
    program, prover, system = compiled(MATCHES, "matches.rules")
    ind = gives_up_on(Induction(system, None, timeout=10), "board@")
    out = ind.run([claim(program, prover, "apart")])["apart"]
    assert out.proved, (out.kind, out.move, out.detail)
    assert ind.abstract_settled >= 1


def test_a_part_left_free_is_the_same_constant_in_every_query():
    """The same part left free twice (the same instance at another loop position of a move) is
    the same constant, so the two abstracted queries are one formula and the second is answered
    by the first (`Induction._solve`): a fresh constant per query made no two of them alike."""
    program, prover, system = compiled(MATCHES, "matches.rules")
    ind = Induction(system, None, timeout=10)
    inst = claim(program, prover, "apart").instances[0]
    mark = next(tr for d in system.decisions for tr in system.transitions(d) if tr.label.startswith("mark"))
    post = z3.substitute(inst, *mark.renaming)
    dag = system.dag
    dag.add(post)
    first = abstract_apart(dag, post, dag.support(dag.add(inst)))
    assert first is not None and abstract_apart(dag, post, dag.support(dag.add(inst))).eq(first)


def test_a_free_part_proves_nothing_it_should_not():
    """The abstraction is sound, not blind: with a planted edit that wins a slot without giving
    it up, the claim is broken (a counterexample from the real query), never proved."""
    program, prover, system = compiled(MATCHES.replace("            remove r from held\n", ""), "matches.rules")
    out = Induction(system, None, timeout=10).run([claim(program, prover, "apart")])["apart"]
    assert not out.proved and out.kind == "sat" and out.move.startswith("mark")


TALLIES = '''
game tallies "Tallies"
players 1
type Slot = 0..3
var board: array[Slot] of 0..3 = 0
var held: set of Slot = {0, 1, 2, 3}
var won: set of Slot = {}
var tally: 0..4 = 0
var tokens: 0..4 = 4
var finished: bool = false
flow {
  while not finished {
    choose 0 {
      move mark(c: Slot, x: 0..3) "marks {c} with {x}" { board[c] = x }
      move stop() "stops" { finished = true }
    }
    for r in collect(y in Slot where y in held) {
      if tokens > 0 and board[r] == 2 {
        remove r from held
        add r to won
        tokens -= 1
        tally += 1
      }
    }
  }
}
outcome { score p: tally }
invariant apart "a slot is never both held and won": size(inter(held, won)) == 0
invariant tallied "each win spends a token and counts once": tally == size(won) and tally + tokens == 4
'''


def whole_moves_given_up(ind: Induction, unless_fixed: tuple = ()) -> Induction:
    """Plant in `ind` a solver that gives up on every query about a move as a whole (the instance
    after the move must hold: the query's goal is not the constant `false`), except one that
    assumes one of the literals named in `unless_fixed`; the queries about one loop iteration
    (`_step_holds`, whose goal is `false`) are answered."""
    ask = ind._ask

    def planted(d, bits, conds, hyps, case, post, *rest, **kw):
        if not z3.is_false(post) and not any(str(h) in unless_fixed for h in hyps):
            ind.queries += 1
            return z3.unknown, "planted"
        return ask(d, bits, conds, hyps, case, post, *rest, **kw)
    ind._ask = planted
    return ind


def test_a_count_a_loop_keeps_is_proved_one_iteration_at_a_time(monkeypatch):
    """After each move the flow runs a loop over the held slots: a slot whose square shows 2 is
    won, spending a token. "The tally is the number won, and tally plus tokens is 4" holds
    after every iteration, given "never both held and won"; over the whole move it reads as
    nested `if`s, one per slot, which a seed game's 52 items made a query the solver gave up
    on. The planted solver gives up on every query about a move as a whole: the claim must
    still be proved through the loop's iterations — without them it was unknown."""
    system = proved_through_iterations(monkeypatch, TALLIES)
    mark = next(tr for d in system.decisions for tr in system.transitions(d) if tr.label.startswith("mark"))
    assert [len(run) for run in system.cut_renamings(mark)] == [5]  # before the loop, after each of 4 slots


def proved_through_iterations(monkeypatch, text: str) -> System:
    """`tallied` in the tallies spec `text`: proved by a planted solver that gives up on every
    query about a move as a whole (through the loop's iterations), unknown without the
    iterations. The system."""
    import verifier.smt.engines.induction as induction
    program, prover, system = compiled(text, "tallies.rules")
    apart, tallied = claim(program, prover, "apart"), claim(program, prover, "tallied")
    ind = whole_moves_given_up(Induction(system, None, timeout=10))
    out = ind.run([tallied], apart.instances)["tallied"]
    assert out.proved, (out.kind, out.move, out.detail)
    assert ind.cut_settled >= 2
    monkeypatch.setattr(induction, "CUTS", False)
    out = whole_moves_given_up(Induction(system, None, timeout=10)).run([tallied], apart.instances)["tallied"]
    assert not out.proved and out.kind == "unknown"
    return system


# the same count kept by a `while` (a loop whose number of iterations the state decides)
TALLIES_WHILE = TALLIES.replace('''    for r in collect(y in Slot where y in held) {
      if tokens > 0 and board[r] == 2 {
        remove r from held
        add r to won
        tokens -= 1
        tally += 1
      }
    }''', '''    while tokens > 0 and any(y in held: board[y] == 2) decreases tokens {
      let r = argmin(y in held where board[y] == 2: y)
      remove r from held
      add r to won
      tokens -= 1
      tally += 1
    }''')


def test_a_count_a_while_loop_keeps_is_proved_one_iteration_at_a_time(monkeypatch):
    """As above, with the slots won by a `while` loop: its unrolled iterations are cut points
    too. The planted solver gives up on every query about the move as a whole; the claim is
    proved through the iterations, and is unknown without them."""
    assert TALLIES_WHILE != TALLIES
    system = proved_through_iterations(monkeypatch, TALLIES_WHILE)
    mark = next(tr for d in system.decisions for tr in system.transitions(d) if tr.label.startswith("mark"))
    assert len(system.cut_renamings(mark)) == 1


SOWING = '''
game sowing "Sowing"
players 1
type Pit = 0..3
var board: array[Pit] of 0..8 = [2, 2, 2, 2]
var hand: 0..8 = 0
var at: Pit = 0
var bank: 0..8 = 0
var moves: 0..20 = 0
flow {
  while moves < 20 {
    choose 0 {
      move sow(i: Pit) "sows {i}" require full "a pit with beans": board[i] > 0 {
        hand += board[i]
        board[i] = 0
        at = i
        while hand > 0 decreases hand {
          at = (at + 1) % 4
          board[at] += 1
          hand -= 1
        }
        if board[at] == 1 {
          bank += 1
          board[at] = 0
        }
      }
    }
    moves += 1
  }
}
outcome { score p: bank }
invariant kept "the beans in the pits, the hand and the bank make 8": sum(i in Pit: board[i]) + hand + bank == 8
'''


def term_size(t) -> int:
    """The number of distinct subterms of a z3 term."""
    seen, stack = set(), [t]
    while stack:
        x = stack.pop()
        if x.get_id() not in seen:
            seen.add(x.get_id())
            stack.extend(x.children())
    return len(seen)


def big_goals_given_up(ind: Induction, nodes: int = 150) -> Induction:
    """Plant in `ind` a solver that gives up on every query whose goal (what must hold after the
    move) has more than `nodes` distinct subterms: a goal that reads a loop's unrolled
    iterations. Smaller goals, and the loop iterations' queries (goal `false`), are answered."""
    ask = ind._ask

    def planted(d, bits, conds, hyps, case, post, *rest, **kw):
        if term_size(post) > nodes:
            ind.queries += 1
            return z3.unknown, "planted: gave up"
        return ask(d, bits, conds, hyps, case, post, *rest, **kw)
    ind._ask = planted
    return ind


def test_what_follows_a_loop_reads_its_end_state_as_fresh_values(monkeypatch):
    """A move sows a pit's beans one by one (a `while`), then banks a last bean that lands in an
    empty pit. "Pits, hand and bank make 8" is kept by each iteration; after the loop, the bank
    reads the loop's end state, which over the unrolled iterations is a goal the planted solver
    gives up on. Read with the end state as fresh values (the instance held there, within the
    declared ranges), the goal is small and settled: the claim is proved, and is unknown when
    the end state is not read apart."""
    program, prover, system = compiled(SOWING, "sowing.rules")
    sow = next(tr for d in system.decisions for tr in system.transitions(d) if tr.label.startswith("sow"))
    assert len(system.cut_renamings(sow)) == 1
    kept = claim(program, prover, "kept")
    ind = big_goals_given_up(Induction(system, None, timeout=10))
    out = ind.run([kept])["kept"]
    assert out.proved, (out.kind, out.move, out.detail)
    assert ind.cut_settled >= 1
    monkeypatch.setattr(Induction, "_loop_ends", lambda self, *a: ([], []))
    out = big_goals_given_up(Induction(system, None, timeout=10)).run([kept])["kept"]
    assert not out.proved and out.kind == "unknown"


def big_steps_given_up(ind: Induction, nodes: int = 300) -> Induction:
    """Plant in `ind` a solver that gives up on every loop-iteration query (goal `false`) whose
    step has more than `nodes` distinct subterms: from the state the move starts in, the state
    at the k-th iteration is a term that grows with k."""
    ask = ind._ask

    def planted(d, bits, conds, hyps, case, post, *rest, **kw):
        if z3.is_false(post) and hyps and term_size(hyps[-1]) > nodes:
            ind.queries += 1
            return z3.unknown, "planted: gave up"
        return ask(d, bits, conds, hyps, case, post, *rest, **kw)
    ind._ask = planted
    return ind


def test_a_late_iteration_is_asked_from_its_cut_alone(monkeypatch):
    """The sowing loop's later iterations, asked from the state before the move, are steps
    that grow with each iteration; the planted solver gives up on the large ones. Each is also
    asked from the cut before it read as fresh values (where the loop runs, within their
    bounds): small, and settled. Proved; unknown when the cut is not read alone. (Here the
    loop's steps are not read from their own starts, `FRESH_STEPS`: that would settle them too,
    `test_a_while_loops_iterations_are_asked_from_their_own_starts_and_once_when_alike`.)"""
    import verifier.smt.engines.induction as induction
    monkeypatch.setattr(induction, "FRESH_STEPS", False)
    program, prover, system = compiled(SOWING, "sowing.rules")
    kept = claim(program, prover, "kept")
    ind = big_steps_given_up(Induction(system, None, timeout=10))
    out = ind.run([kept])["kept"]
    assert out.proved, (out.kind, out.move, out.detail)
    monkeypatch.setattr(Induction, "_cut_alone",
                        lambda self, tr, r, k, guard, before, goal: z3.And(before, z3.Not(goal)))
    out = big_steps_given_up(Induction(system, None, timeout=10)).run([kept])["kept"]
    assert not out.proved


def test_a_bean_lost_after_the_loop_proves_nothing():
    """The end state's fresh values are constrained, not chosen: with a planted edit that drops
    the banked bean, the claim is broken (a counterexample), never proved."""
    program, prover, system = compiled(SOWING.replace("          bank += 1\n", ""), "sowing.rules")
    # (30 s per query: the counterexample takes about 5 s alone, and beside another test run it
    # once took past 10 s and came back "unknown")
    out = Induction(system, None, timeout=30).run([claim(program, prover, "kept")])["kept"]
    assert not out.proved and out.kind == "sat"


def test_a_loop_iteration_that_breaks_the_count_proves_nothing():
    """The iterations are asked, not assumed: with a planted edit that wins a slot without
    spending a token, the claim is broken (a counterexample), never proved."""
    program, prover, system = compiled(TALLIES.replace("        tokens -= 1\n", ""), "tallies.rules")
    apart, tallied = claim(program, prover, "apart"), claim(program, prover, "tallied")
    out = Induction(system, None, timeout=10).run([tallied], apart.instances)["tallied"]
    assert not out.proved and out.kind == "sat"


def test_a_second_look_is_capped_per_query_not_per_claim(monkeypatch):
    """`tallied` is asked first, without `apart`: every query about the move as a whole is given
    up on (planted), and the loop's iterations need `apart`, so the solver gives up on it. Its
    second look, once `apart` is proved, is a dozen iteration queries, each planted to take
    0.25 s: more than `AGAIN_S` (2 s) in all, each far below it. It must be proved — with the cap
    on the whole claim, as before, it ran out of time. (The iterations asked from the move's own
    start: shared by the moves, `_loop_keeps`, they are asked with the board's test left free,
    and not planted slow.)"""
    import verifier.smt.engines.induction as induction
    monkeypatch.setattr(induction, "SHARED_LOOPS", False)
    program, prover, system = compiled(TALLIES, "tallies.rules")
    apart, tallied = claim(program, prover, "apart"), claim(program, prover, "tallied")
    ind = whole_moves_given_up(Induction(system, None, timeout=10, deadline=time.perf_counter() + 120))
    solve = ind._solve
    slow = []

    def slow_steps(parts, ms, *how):
        if how and how[0]:  # a loop iteration's query
            slow.append(ms)
            time.sleep(0.25)
        return solve(parts, ms, *how)
    ind._solve = slow_steps
    out = ind.run([tallied, apart])
    assert out["apart"].proved
    assert out["tallied"].proved, (out["tallied"].kind, out["tallied"].move, out["tallied"].detail)
    assert len(slow) * 0.25 > induction.AGAIN_S


def test_a_query_asked_again_with_the_same_parts_is_answered_by_the_first(monkeypatch):
    """At each loop position of a move (54 transitions of one move on a seed game) an instance
    whose query does not read the position is the same query: an unsatisfiable answer is kept
    by its parts, in any order. A satisfiable one is asked again (its model refutes)."""
    program, prover, system, facts = setting()
    induction = Induction(system, facts)
    asked = []
    real = Induction._solve_once
    monkeypatch.setattr(Induction, "_solve_once",
                        lambda self, parts, ms, simplify_first=False: asked.append(1) or real(self, parts, ms, simplify_first))
    x = z3.Int("memo_x")
    assert induction._solve([x > 3, x < 2], 1000)[0] == z3.unsat
    assert induction._solve([x < 2, x > 3], 1000)[0] == z3.unsat
    assert (len(asked), induction.repeated) == (1, 1)
    for _ in range(2):  # (never kept: an answer other than unsat is asked again)
        answer = induction._solve([x > 3, x < 9], 1000)
        assert answer[0] != z3.unsat, answer
    assert induction._solve([x > 3, x < 3], 1000)[0] == z3.unsat  # other parts: asked
    assert len(asked) == 4


CLIMB = '''
game climb "Climb"
players 1
var a: 0..20 = 0
var b: 0..20 = 0
var slips: 0..5 = 0
flow {
  while a < 10 decreases 10 - a {
    choose 0 { move step() "steps" { if a >= 12 { slips += 1 }  a += 1  b += 1 } }
  }
}
outcome { score p: b }
invariant b_low "b stays at most 10: true (b keeps a's pace) but not inductive alone": b <= 10
invariant no_slip "no step slips: true (a stays below 10 in the loop), not inductive alone": slips == 0
'''


def test_a_claim_not_inductive_says_what_it_reads_in_the_state_a_move_breaks_it_from():
    """The verdict on a claim some move breaks from a state the proved facts allow names the
    values the claim reads there (the intervals widen b to 0..20 past ten growths, so the
    induction alone meets b = 10 before a step): what a stronger invariant must rule out."""
    from verifier.verify.invariants import _induction_verdict
    program, prover, system = compiled(CLIMB, "climb.rules")
    facts = analyse(system, None)
    c = claim(program, prover, "b_low")
    out = Induction(system, facts, 10, None).run([c])["b_low"]
    assert not out.proved and out.kind == "sat"
    verdict = _induction_verdict(program, c, out, 0.0, system)
    # b after a step is b + 1: it reads b alone, as the claim does
    assert verdict.details["state_before"] == {"b": 10}
    assert "read there: b = 10" in verdict.reason
    without = _induction_verdict(program, c, out, 0.0)  # no system: the reason as before
    assert "state_before" not in without.details and "read there" not in without.reason
    # a counter the move bumps under a test: its value after the move reads what was tested
    c = claim(program, prover, "no_slip")
    out = Induction(system, facts, 10, None).run([c])["no_slip"]
    state = _induction_verdict(program, c, out, 0.0, system).details["state_before"]
    assert list(state)[0] == "slips" and state["slips"] == 0 and state["a"] >= 12


def test_a_sets_bits_are_shown_as_its_members():
    """A set's membership bits read as one entry: `= {…}` when every bit has a value, `⊇ {…}`
    (the members known) when the model left some out."""
    from verifier.smt.system import as_text
    values = [("dry", 0), ("offer{0}", False), ("offer{1}", True), ("offer{2}", False), ("hand{3}", True)]
    assert as_text(values, {"offer": 3, "hand": 5}) == ["dry = 0", "offer = {1}", "hand ⊇ {3}"]


STOCK = '''
game stock "Stock"
players 1
var stock: set of 0..5 = {0, 1, 2}
var kept: 0..9 = 0
flow {
  for i in 1..3 {
    choose 0 { move take(c in stock) "takes {c}" { remove c from stock  kept += 1 } }
  }
}
outcome { score p: kept }
'''


def test_a_deadlock_not_ruled_out_says_what_the_moves_conditions_read_there():
    """`no_deadlock` left open names the values the moves' conditions read in the state where
    none is legal: here an empty stock at a take, which a fact relating the stock to the loop's
    position would rule out. Without the system (no engine built it), the reason is as before."""
    program, prover, system = compiled(STOCK, "stock.rules")
    prover.proved = []  # nothing proved: the deadlock query assumes no invariant
    bare = prover.deadlocks()
    assert bare.status == "unknown" and "read there" not in bare.reason
    prover.system = system
    verdict = prover.deadlocks()
    assert verdict.status == "unknown" and "has no legal move" in verdict.reason
    assert verdict.details["state_before"] == {f"stock{{{k}}}": False for k in range(6)}
    assert verdict.reason.endswith("what the moves' conditions read there: stock = {}")



def test_the_claims_over_a_symbolic_item_left_open_are_asked_again_last():
    # two claims over a symbolic card that rest on each other, left broken by the earlier
    # passes (the third proved): the last stage asks each again over the symbolic card (no round proves one), then
    # the broken ones together, which proves both
    from test_parametric import DEAL, claims, compiled
    from verifier.smt.engines.intervals import analyse
    program, prover, system = compiled(DEAL)
    ind = Induction(system, analyse(system, None), timeout=10)
    cs = claims(program, prover)
    results = {c.name: Outcome(c.name == "deck_apart", "" if c.name == "deck_apart" else "sat") for c in cs}
    tried = []
    alone_or_together = ind._over_an_item
    ind._over_an_item = lambda c, known, part: tried.append([x.name for x in c]) or alone_or_together(c, known, part)
    deck = next(c for c in cs if c.name == "deck_apart")
    ind._last(cs, [], results, {"deck_apart": deck.instances}, None)
    assert tried == [["hand_apart"], ["table_apart"]]
    assert results["hand_apart"].proved and results["table_apart"].proved


# the tallies' loop runs only while scoring is on (a move turns it off): after the move, each
# leaf the loop writes is "the loop's end if scoring, else as before"
TALLIES_SCORING = TALLIES.replace('''var finished: bool = false''', '''var finished: bool = false
var scoring: bool = true''').replace('''      move stop() "stops" { finished = true }''', '''      move stop() "stops" { finished = true }
      move pause() "pauses the scoring" { scoring = false }''').replace('''    for r in collect(y in Slot where y in held) {''', '''    if scoring {
    for r in collect(y in Slot where y in held) {''').replace('''        tally += 1
      }
    }''', '''        tally += 1
      }
    }
    }''')


def guard_unfixed_given_up(ind: Induction) -> Induction:
    """A solver that answers a query about a move as a whole only with "scoring" fixed true or
    false among its assumptions: on a seed game's count of 52 items, the query after a loop
    under an `if` took Z3 beyond 30 s, and 0.02 s with the `if`'s condition fixed either way."""
    return whole_moves_given_up(ind, unless_fixed=("scoring@0", "Not(scoring@0)"))


def test_what_follows_a_loop_under_an_if_is_asked_with_its_condition_fixed(monkeypatch):
    """The tallies' loop under `if scoring`: the planted solver answers a query about the whole
    move only with "scoring" fixed. The last query after the loop is asked under each value of
    the `if`'s condition (`_by_guards`): proved; unknown without the split."""
    import verifier.smt.engines.induction as induction
    assert TALLIES_SCORING.count("if scoring {") == 1 and "pause()" in TALLIES_SCORING
    program, prover, system = compiled(TALLIES_SCORING, "tallies.rules")
    mark = next(tr for d in system.decisions for tr in system.transitions(d) if tr.label.startswith("mark"))
    assert [str(system.cut_guard(mark, 0))] == ["scoring@0"]
    apart, tallied = claim(program, prover, "apart"), claim(program, prover, "tallied")
    out = guard_unfixed_given_up(Induction(system, None, timeout=10)).run([tallied], apart.instances)["tallied"]
    assert out.proved, (out.kind, out.move, out.detail)
    monkeypatch.setattr(induction, "GUARD_SPLITS", 0)
    out = guard_unfixed_given_up(Induction(system, None, timeout=10)).run([tallied], apart.instances)["tallied"]
    assert not out.proved and out.kind == "unknown"


def test_a_count_broken_where_the_loop_does_not_run_is_not_proved():
    """The split asks both values: with a planted edit that, where scoring is off, adds to the
    tally after the loop, the claim is not proved at `mark` (a split that asked only "scoring"
    true let `mark` pass, and the claim failed at another move)."""
    text = TALLIES_SCORING.replace('''        tally += 1
      }
    }
    }''', '''        tally += 1
      }
    }
    } else { if tally < 4 { tally += 1 } }''')
    assert text != TALLIES_SCORING
    program, prover, system = compiled(text, "tallies.rules")
    apart, tallied = claim(program, prover, "apart"), claim(program, prover, "tallied")
    out = guard_unfixed_given_up(Induction(system, None, timeout=10)).run([tallied], apart.instances)["tallied"]
    assert not out.proved and out.move.startswith("mark"), (out.kind, out.move)


def iteration_queries(ind: Induction) -> list:
    """Plant in `ind` a record of the queries about one loop iteration (goal `false`, asked by
    `_step_holds` from a move's start or by `_loop_iterations` from the loop's): the list."""
    ask, asked = ind._ask, []

    def recorded(d, bits, conds, hyps, case, post, *rest, **kw):
        if z3.is_false(post):
            asked.append(d)
        return ask(d, bits, conds, hyps, case, post, *rest, **kw)
    ind._ask = recorded
    return asked


def test_a_loop_on_the_way_of_two_moves_has_its_iterations_asked_once(monkeypatch):
    """The tallies' loop runs after `mark` and after `stop`. Its iterations are asked once from
    the loop's start read as the state's leaves (`_loop_keeps`), with `apart` assumed there, and
    serve both moves: proved, with fewer iteration queries than from each move's own start."""
    import verifier.smt.engines.induction as induction
    program, prover, system = compiled(TALLIES, "tallies.rules")
    apart, tallied = claim(program, prover, "apart"), claim(program, prover, "tallied")
    ind = whole_moves_given_up(Induction(system, None, timeout=10))
    shared = iteration_queries(ind)
    out = ind.run([tallied], apart.instances)["tallied"]
    assert out.proved, (out.kind, out.move, out.detail)
    # each instance's iterations asked once, and used at both moves
    assert len(ind._loop_proofs) == len(tallied.instances) == 2 and ind.loops_shared == 4
    monkeypatch.setattr(induction, "SHARED_LOOPS", False)
    ind = whole_moves_given_up(Induction(system, None, timeout=10))
    own = iteration_queries(ind)
    out = ind.run([tallied], apart.instances)["tallied"]
    assert out.proved and ind.loops_shared == 0
    assert len(shared) < len(own), (len(shared), len(own))


def test_a_move_that_breaks_what_the_shared_iterations_assume_is_asked_on_its_own():
    """The shared iterations assume `apart` at the loop's start. A planted edit adds a move that,
    before the loop, takes a won slot back into hand: there `apart` fails at the loop's start,
    the loop wins the slot a second time (the tally grows, the set of won slots does not), and
    the claim is broken. With every query about a move as a whole given up on (planted), the
    moves rest on the loop's iterations: `regain` must not borrow `mark`'s."""
    text = TALLIES.replace('''      move stop() "stops" { finished = true }''', '''      move stop() "stops" { finished = true }
      move regain(c: Slot) "takes back {c}" { add c to held }''')
    assert text != TALLIES
    program, prover, system = compiled(text, "tallies.rules")
    apart, tallied = claim(program, prover, "apart"), claim(program, prover, "tallied")
    ind = whole_moves_given_up(Induction(system, None, timeout=10))
    out = ind.run([tallied], apart.instances)["tallied"]
    assert ind._loop_proofs, "the iterations were not shared: the test shows nothing"
    assert not out.proved and out.move.startswith("regain"), (out.kind, out.move)


def iteration_sizes(ind: Induction) -> list:
    """Plant in `ind` a record of the size (the number of distinct subterms) of each query that
    `_loop_iterations` asks about one iteration (goal `false`, no decision point): the list."""
    ask, sizes = ind._ask, []

    def recorded(d, bits, conds, hyps, case, post, *rest, **kw):
        if z3.is_false(post) and d is None:
            sizes.append(sum(1 for _ in applications(list(hyps))))
        return ask(d, bits, conds, hyps, case, post, *rest, **kw)
    ind._ask = recorded
    return sizes


def test_each_shared_iteration_is_asked_from_its_own_start(monkeypatch):
    """The tallies' loop asked once for both moves (`_loop_keeps`), each iteration from its own
    start: what the iterations before changed read as fresh values (`System.loop_steps`). Every
    step is then a query of one iteration's size: from the second step to the last it grows only
    by the declared bounds of the values earlier iterations wrote and a later one reads (a
    term each here), where from the loop's start it grows by a whole iteration's terms."""
    import verifier.smt.engines.induction as induction
    program, prover, system = compiled(TALLIES, "tallies.rules")
    apart, tallied = claim(program, prover, "apart"), claim(program, prover, "tallied")
    sizes = {}
    for fresh in (True, False):
        monkeypatch.setattr(induction, "FRESH_STEPS", fresh)
        ind = whole_moves_given_up(Induction(system, None, timeout=10))
        asked = iteration_sizes(ind)
        out = ind.run([tallied], apart.instances)["tallied"]
        assert out.proved, (fresh, out.kind, out.move, out.detail)
        assert (ind.fresh_steps > 0) == fresh
        sizes[fresh] = asked
    # per instance, 4 steps (the first is the same either way); the counts' instance is the second
    fresh, whole = sizes[True], sizes[False]
    assert len(fresh) == len(whole) and len(fresh) >= 4, (fresh, whole)
    assert max(fresh[1:4]) < whole[3] and fresh[3] - fresh[1] <= 2 < whole[3] - whole[1], (fresh, whole)
    assert whole[1] < whole[2] < whole[3], whole


def test_a_step_from_its_own_start_still_sees_an_iteration_that_breaks_the_count():
    """Fresh values at an iteration's start stand for whatever the iterations before left:
    reading them so proves less, never more. A planted edit keeps the token of the third slot
    (`tokens` is not spent there, so `tally + tokens == 4` breaks when it is won): not proved,
    with every query about a move as a whole given up on, so the loop's steps decide."""
    text = TALLIES.replace("        tokens -= 1\n", "        if r != 2 { tokens -= 1 }\n")
    assert text != TALLIES
    program, prover, system = compiled(text, "tallies.rules")
    apart, tallied = claim(program, prover, "apart"), claim(program, prover, "tallied")
    ind = whole_moves_given_up(Induction(system, None, timeout=10))
    out = ind.run([tallied], apart.instances)["tallied"]
    assert not out.proved, (out.kind, out.move)


def test_an_iteration_starts_from_fresh_values_only_where_the_iterations_before_wrote():
    """`System.loop_steps`: one (start, end) per iteration; the first starts at the loop's start;
    each later one reads as fresh values what the loop writes (held, won, tokens, tally) and as
    the leaves what it only reads (the board)."""
    program, prover, system = compiled(TALLIES, "tallies.rules")
    mark = next(tr for d in system.decisions for tr in system.transitions(d) if tr.label.startswith("mark"))
    steps = system.loop_steps(mark, 0)
    assert steps is not None and len(steps) == len(system.loop_alone(mark, 0)[1]) - 1 == 4
    assert steps[0][0] == [] and steps[0][3] == 0
    for start, end, bounds, fresh in steps[1:]:
        renamed = {str(a) for a, _ in start}
        assert renamed and all(str(b).startswith("step!") for _, b in start)
        assert not any(x.startswith("board") for x in renamed), renamed
        assert {"tally@0", "tokens@0"} <= renamed, renamed
        assert fresh and {str(b) for b in bounds} >= {f"{c} >= 0" for a, c in start if str(a) == "tally@0"}


ONE_BY_ONE = '''
game one_by_one "One by one"
players 1
type Pit = 0..5
var board: array[Pit] of 0..12 = [2, 2, 2, 2, 2, 2]
var hand: 0..12 = 0
var at: Pit = 0
var moves: 0..20 = 0
flow {
  while moves < 20 decreases 20 - moves {
    choose 0 {
      move sow(i: Pit) "{i}" require full "the pit has seeds": board[i] > 0 {
        hand += board[i]
        board[i] = 0
        at = i
        while hand > 0 decreases hand {
          at = (at + 1) % 6
          board[at] += 1
          hand -= 1
        }
      }
    }
    moves += 1
  }
}
outcome { score p: board[0] }
invariant kept "the pits and the hand hold all 12 seeds": sum(i in Pit: board[i]) + hand == 12
'''


def test_a_while_loops_iterations_are_asked_from_their_own_starts_and_once_when_alike(monkeypatch):
    """A sowing loop (`while hand > 0`, one seed into the next pit) read as a `for` is: each
    iteration from its own start, what the ones before wrote read as fresh values, the loop
    taken as still running (`transition.loop_steps_alone`). Its iterations are then one query
    each, alike but for the fresh constants: the first answered, the others read off it
    (`SAME_STEPS`). A mancala example's claim: 49 s to 3.7 s. Off, no step is from its own
    start (before this, none of a `while`'s was)."""
    import verifier.smt.engines.induction as induction
    program, prover, system = compiled(ONE_BY_ONE, "one_by_one.rules")
    sow = next(tr for d in system.decisions for tr in system.transitions(d) if tr.label.startswith("sow"))
    steps = system.loop_steps(sow, 0)
    assert steps is not None and len(steps) == len(system.loop_alone(sow, 0)[1]) - 1 > 10
    assert system.loop_step_checks(sow, 0) is None  # (a measure's check is not read so)
    for fresh in (True, False):
        monkeypatch.setattr(induction, "FRESH_STEPS", fresh)
        ind = whole_moves_given_up(Induction(system, None, timeout=10))
        out = ind.run([claim(program, prover, "kept")], [])["kept"]
        assert out.proved, (fresh, out.kind, out.move, out.detail)
        assert (ind.fresh_steps > 0) == fresh
        assert (ind.same_steps >= len(steps) - 3) == fresh, ind.same_steps


def test_a_while_loop_step_from_its_own_start_still_sees_an_iteration_that_loses_a_seed():
    """A planted edit drops the seed sown into pit 3: `kept` breaks at the first sowing that
    passes it. Not proved, with every query about a move as a whole given up on, so the loop's
    steps decide; and no step alike an answered one is read off it where it is not alike."""
    text = ONE_BY_ONE.replace("board[at] += 1", "if at != 3 { board[at] += 1 }")
    assert text != ONE_BY_ONE
    program, prover, system = compiled(text, "one_by_one.rules")
    ind = whole_moves_given_up(Induction(system, None, timeout=10))
    out = ind.run([claim(program, prover, "kept")], [])["kept"]
    assert not out.proved, (out.kind, out.move)


def test_map_leaves_keeps_the_shape_and_the_order_of_leaves():
    from verifier.smt.encode import SeqVal, SetVal
    from verifier.smt.unroll import leaves, map_leaves
    a, b, c, d = (z3.Int(x, CTX) for x in "abcd")
    value = (SeqVal(a, (b, c)), SetVal([z3.Bool("p", CTX)]), d)
    out = map_leaves(value, lambda t: z3.FreshConst(t.sort(), "m"))
    assert isinstance(out[0], SeqVal) and isinstance(out[1], SetVal)
    assert [t.sort() for t in leaves(out)] == [t.sort() for t in leaves(value)]
    assert [str(t) for t in leaves(map_leaves(value, lambda t: t))] == [str(t) for t in leaves(value)]


def test_a_loop_that_reads_what_a_move_may_change_is_not_read_on_its_own():
    """`System.loop_alone` runs a loop from the state's leaves, so its terms must read `var`s
    only: a loop in a move's body that reads the move's parameter, and a flow loop that reads a
    flow local set before it, are not read on its own (each move asks its own iterations); the
    tallies' scoring loop, which reads `var`s only, is."""
    program, prover, system = compiled(TALLIES, "tallies.rules")
    mark = next(tr for d in system.decisions for tr in system.transitions(d) if tr.label.startswith("mark"))
    assert system.loop_alone(mark, 0) is not None
    with_param = TALLIES.replace('''{ board[c] = x }''', '''{
        for r in collect(y in Slot where y <= c) { board[r] = x }
      }''')
    with_local = TALLIES.replace('''    for r in collect(y in Slot where y in held) {''', '''    let bonus = if finished then 0 else 1
    for r in collect(y in Slot where y in held) {''').replace("        tally += 1\n", "        tally += bonus\n")
    assert with_param != TALLIES and with_local != TALLIES
    # [is each of `mark`'s runs read on its own]: the body's loop runs first, then the flow's
    for text, expected in ((with_param, [False, True]), (with_local, [False])):
        program, prover, system = compiled(text, "tallies.rules")
        mark = next(tr for d in system.decisions for tr in system.transitions(d) if tr.label.startswith("mark"))
        runs = system.cut_renamings(mark)
        assert [system.loop_alone(mark, r) is not None for r in range(len(runs))] == expected


def test_a_look_given_up_on_through_a_shared_loop_is_not_taken_again_at_that_move(monkeypatch):
    """At `mark`, both instances of `tallied` go through the loop read on its own, and the first
    look with what they do not read left free reads every iteration: here the planted solver
    gives up on it. The second instance goes straight through the loop's iterations at that move
    (one look per move and case, not one per instance), and the claim is still proved."""
    import verifier.smt.engines.induction as induction
    program, prover, system = compiled(TALLIES, "tallies.rules")
    apart, tallied = claim(program, prover, "apart"), claim(program, prover, "tallied")
    assert len(tallied.instances) == 2
    looks = {}
    for skip in (True, False):
        ind = whole_moves_given_up(Induction(system, None, timeout=10))
        if not skip:  # the looks' failures forgotten: each instance takes its own
            ind._abstract_failed = type("Forgetful", (set,), {"add": lambda self, x: None})()
        ask, asked = ind._ask, []

        def recorded(d, bits, conds, hyps, case, post, checks, splits=(), ms=None, *rest, ask=ask, asked=asked, **kw):
            if ms == induction.ABSTRACT_MS:
                asked.append(d)
            return ask(d, bits, conds, hyps, case, post, checks, splits, ms, *rest, **kw)
        ind._ask = recorded
        out = ind.run([tallied], apart.instances)["tallied"]
        assert out.proved, (skip, out.kind, out.move, out.detail)
        looks[skip] = asked
    assert looks[False] and len(looks[True]) < len(looks[False]), looks


TURN_COUNT = Path(__file__).parent / "fixtures" / "turn_count.rules"


def turn_count_through_the_loop(text: str) -> dict:
    """The claims of `turn_count.rules` (as `text`), every query about `mark` (the move whose
    loop runs) as a whole planted given up on, but those through its loop (the iterations, and
    what follows the loop's end: asked within CUT_MS): each claim's outcome."""
    import verifier.smt.engines.induction as induction
    program, diags = check_text(text, str(TURN_COUNT))
    assert program is not None, [d.message for d in diags]
    prover = Prover(program, 2, {}, 10)
    system = System(prover.rel)
    claims = [Claim(i.name, i, instances_of(Encoder(program, 2, {}, prover.rel.state).invariant(i)))
              for i in program.invariants]
    ind = Induction(system, analyse(system, None), timeout=10)
    ask, check, moving = ind._ask, ind._check_case, []

    def asked_at(d, tr, *rest):
        moving[:] = [tr.label]
        return check(d, tr, *rest)

    def only_through_the_loop(d, bits, conds, hyps, case, post, checks, splits=(), ms=None, *rest, **kw):
        if moving[0].startswith("mark") and not z3.is_false(post) and ms != induction.CUT_MS:
            ind.queries += 1
            return z3.unknown, "planted"
        return ask(d, bits, conds, hyps, case, post, checks, splits, ms, *rest, **kw)
    ind._check_case, ind._ask = asked_at, only_through_the_loop
    return ind.run(claims)


def test_an_instance_that_reads_the_mover_is_read_with_the_moves_seat():
    """`turn_count` ("this turn's completions are at most the mover's used tokens") is kept by
    each iteration of the loop after a move, which is read for the mover's seat (the move of
    seat 0 is the move under "current is 0"). Where the query after the loop no longer reads
    `current` (the loop's end, read for seat 0), the instance still does: without the move's
    condition on the mover in its slice, a model pairs this turn's count with another seat's
    tokens, the loop's proof is lost, and the claim was left unproved. With the count not reset
    when the mover changes (planted), the claim is false and is not proved."""
    text = TURN_COUNT.read_text(encoding="utf-8")
    out = turn_count_through_the_loop(text)
    assert out["tokens_kept"].proved
    assert out["turn_count"].proved, (out["turn_count"].kind, out["turn_count"].move, out["turn_count"].detail)
    carried = text.replace("    current = (current + 1) % num_players\n    done_now = 0\n",
                           "    current = (current + 1) % num_players\n")
    assert carried != text
    assert not turn_count_through_the_loop(carried)["turn_count"].proved


SERVED = '''
game served "Served"
players 1
type Dish = 1..6
var served: set of Dish = {}
var filled: array[Dish] of 0..9 = 0
var points: array[Dish] of 0..40 = 0
var rate: 2..3 = 2
flow {
  while size(served) < 6 decreases 6 - size(served) {
    choose 0 {
      move fill(i: Dish) "fills {i}" require open "only an unserved dish is filled": i not in served and filled[i] < 9 {
        filled[i] += 1
      }
      move serve(i: Dish) "serves {i}" require open "a dish is served once": i not in served {
        points[i] = rate * filled[i]
        add i to served
      }
    }
  }
}
outcome { score p: sum(i in Dish: points[i]) }
invariant kept "a served dish keeps the points it was served with": all(i in served: points[i] == rate * filled[i])
'''


def crowded_queries_given_up(ind: Induction, instances: list) -> list:
    """Plant in `ind` a solver that gives up on any query assuming two or more of `instances`
    (each reads `rate`, so each is in the slice of every other's query): a query that the
    instances like the asked one make hard, made deterministic. The list of such queries,
    filled as they come."""
    solve, given_up = ind._solve, []
    ids = {f.get_id() for f in instances}

    def planted(parts, ms, *how, **kw):
        if sum(1 for p in parts if p.get_id() in ids) >= 2:
            given_up.append(1)
            return z3.unknown, "planted"
        return solve(parts, ms, *how, **kw)
    ind._solve = planted
    return given_up


def served_run(monkeypatch, text: str, alone: bool) -> tuple:
    import verifier.smt.engines.induction as induction
    monkeypatch.setattr(induction, "SELF_LOOK", alone)
    program, prover, system = compiled(text, "served.rules")
    kept = claim(program, prover, "kept")
    ind = Induction(system, None, timeout=10)
    given_up = crowded_queries_given_up(ind, kept.instances)
    return ind.run([kept])["kept"], ind, given_up


def test_an_instance_whose_slice_the_others_make_hard_is_asked_alone(monkeypatch):
    """"A served dish keeps its points": each dish's instance reads the shared rate, so the
    slice of each query assumes the other five, and the planted solver gives up on any query
    that assumes two of them. Asked alone (the instance itself, the move's conditions), each
    is settled: the claim is proved; without that look it is not. After the first instance
    settled so, the claim's others are asked alone first: the solver gives up on fewer
    queries than there are instances."""
    out, ind, given_up = served_run(monkeypatch, SERVED, alone=True)
    assert out.proved, (out.kind, out.move, out.detail)
    assert ind.self_settled >= 6
    assert 0 < len(given_up) < 6
    out, ind, _ = served_run(monkeypatch, SERVED, alone=False)
    assert not out.proved and ind.self_settled == 0


def test_a_fill_of_a_served_dish_is_not_proved_kept_alone(monkeypatch):
    """The planted edit: a served dish may be filled again. Asked alone, the instance is not
    kept (a model: the dish filled after it was served); the claim is not proved."""
    broken = SERVED.replace('i not in served and filled[i] < 9', 'filled[i] < 9')
    assert broken != SERVED
    out, ind, _ = served_run(monkeypatch, broken, alone=True)
    assert not out.proved


def test_a_look_alone_that_fails_twice_at_a_move_is_not_asked_there_again(monkeypatch):
    """Where the look alone fails too (the planted solver gives up on every query assuming any
    of the claim's instances), it costs its time at each instance: after two failures at a
    move, and more failures than instances settled there, it is not asked at that move again
    (a seed game's later pass lost the time a later engine needed so). Without that rule, all
    six dishes' looks at each move were asked."""
    import verifier.smt.engines.induction as induction
    program, prover, system = compiled(SERVED, "served.rules")
    kept = claim(program, prover, "kept")
    ind = Induction(system, None, timeout=10)
    solve, ids = ind._solve, {f.get_id() for f in kept.instances}

    def planted(parts, ms, *how, **kw):
        if any(p.get_id() in ids for p in parts):
            return z3.unknown, "planted"
        return solve(parts, ms, *how, **kw)
    ind._solve = planted
    assert not ind.run([kept])["kept"].proved
    misses = [tally[1] for tally in ind._alone_tally.values()]
    assert misses and max(misses) == 2, ind._alone_tally
    assert induction.SELF_MIN_HYPS <= 5  # (each dish's slice assumes the other five)


def deadlines_of_first_passes(claims: list, elsewhere=None) -> tuple:
    """(the run's deadline, the deadline each first pass was given), for the fork's `claims`."""
    program, prover, system, facts = setting()
    final = time.perf_counter() + 100
    ind = Induction(system, facts, timeout=10, deadline=final)
    ind.elsewhere = elsewhere
    given = []
    houdini = ind._houdini

    def noted(cs, *args, **kw):
        given.append(ind.deadline)
        return houdini(cs, *args, **kw)
    ind._houdini = noted
    ind.run([claim(program, prover, name) for name in claims])
    return final, given


def test_a_lone_claim_has_the_whole_time_of_its_run():
    """Nothing comes after a lone plain claim's first pass (no second pass, no other engine):
    keeping half its time for one left the facts of the flow's structure of a card game cut
    short at every budget tried. Two claims still keep a share for the second pass, and a lone
    claim with another engine to hand it to keeps that share too."""
    final, given = deadlines_of_first_passes(["same"])
    assert abs(given[0] - final) < 0.01
    final, given = deadlines_of_first_passes(["same", "low"])
    assert given[0] < final - 50  # (a third each: the time left over two claims and a second pass)
    final, given = deadlines_of_first_passes(["same"], elsewhere=lambda *a: {})
    assert given[0] < final - 40
