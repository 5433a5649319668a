"""The interval analysis (`verifier/smt/engines/intervals.py`): narrowing on environments that
contradict themselves, and widening made eager when the analysis's time runs low.

A compound node keeps what narrowing recorded of it (`x + y` in `[15, 20]`); once its parts are
narrowed apart from that (`x`, `y` in `[0, 2]`), `eval` gives the value from the parts, and a
narrowing of the node meets nothing of the record: no state is in that environment. It must say
so (None), not go on with no environment (the analysis crashed so on a seed game once widening
was made eager, `WIDEN_AFTER = 0`).
"""
from __future__ import annotations

import time

from verifier.frontend import check_text
from verifier.smt.dag import Dag
from verifier.smt.encode import CTX, z3
from verifier.smt.engines import intervals
from verifier.smt.engines.intervals import Env, Evaluator
from verifier.smt.prove import Prover
from verifier.smt.system import System


def _sum_dag():
    x, y = z3.Int("nx", CTX), z3.Int("ny", CTX)
    dag = Dag()
    s = dag.add(x + y)
    return dag, dag.add(x), dag.add(y), s


def test_narrowing_a_node_whose_record_its_parts_contradict_finds_no_state():
    dag, x, y, s = _sum_dag()
    ev = Evaluator(dag)
    env = Env({x: (0, 2), y: (0, 2), s: (15, 20)})
    assert ev.eval(s, env) == (0, 4)  # from the parts: the record is apart from it
    assert ev.narrow(s, (0, 3), env) is None


def test_narrowing_a_consistent_node_narrows_its_parts():
    dag, x, y, s = _sum_dag()
    ev = Evaluator(dag)
    env = Env({x: (0, 10), y: (5, 5)})
    out = ev.narrow(s, (0, 7), env)
    assert out is not None and out[x] == (0, 2) and out[y] == (5, 5)


COUNTER = '''
game counter "Counter"
players 1
var count: 0..20 = 0
flow {
  while count < 4 decreases 4 - count {
    choose 0 { move step() "steps" { count += 1 } }
  }
}
outcome { score p: count }
'''


def _counter_analysis(monkeypatch, eager_after: float):
    """(the interval of count at the loop's choice, moves evaluated, complete) of COUNTER's analysis with a
    deadline far off and eager widening from `eager_after` of the time to it."""
    program, diags = check_text(COUNTER, "counter.rules")
    assert program is not None, [d.message for d in diags]
    system = System(Prover(program, 1, {}, 10).rel)
    monkeypatch.setattr(intervals, "EAGER_AFTER", eager_after)
    evaluated = []
    evaluate = intervals.Intervals._evaluate
    monkeypatch.setattr(intervals.Intervals, "_evaluate",
                        lambda self, tr, here: evaluated.append(1) or evaluate(self, tr, here))
    facts = intervals.analyse(system, time.perf_counter() + 3600)
    d = system.decisions[0]
    names = {str(system.dag.term[leaf]).split("@")[0]: leaf for leaf in system.leaves}
    at = facts.states[d]
    return at[names["count"]], len(evaluated), facts.complete


def test_eager_widening_ends_sooner_with_wider_intervals_that_still_hold(monkeypatch):
    """Past `EAGER_AFTER` of its time, a growing bound jumps to its declared range at once. Here
    from the start: fewer evaluations, and an interval that contains the lazy one, which is exact
    (count 0..3 at the choice: three growths, fewer than `WIDEN_AFTER`)."""
    lazy, lazy_evaluations, lazy_complete = _counter_analysis(monkeypatch, 2.0)  # never eager
    eager, eager_evaluations, eager_complete = _counter_analysis(monkeypatch, 0.0)
    assert lazy_complete and eager_complete
    assert lazy == (0, 3)
    assert eager == (0, 20)  # the declared range: it contains every reachable value
    assert eager_evaluations < lazy_evaluations


def test_an_analysis_cut_short_goes_on_where_it_stopped_to_the_same_fixpoint(monkeypatch):
    """A count's first look of the proofs and its proofs after the searches share one analysis
    (`Prover.intervals`): cut short, it is resumed, not started over. Here a deadline already
    past cuts it before every step; each call then does one step, and the fixpoint it ends with
    is the uncut run's, with as many evaluations in all."""
    program, diags = check_text(COUNTER, "counter.rules")
    assert program is not None, [d.message for d in diags]
    monkeypatch.setattr(intervals, "WIDEN_AFTER", 100)  # no widening: the exact fixpoint
    monkeypatch.setattr(intervals, "EAGER_AFTER", 100.0)  # nor eager widening near a deadline

    def evaluations(analysis):
        count = []
        evaluate = analysis._evaluate
        analysis._evaluate = lambda tr, here: count.append(1) or evaluate(tr, here)
        return count

    system = System(Prover(program, 1, {}, 10).rel)
    whole = intervals.Intervals(system)
    whole_count = evaluations(whole)
    whole.run(None)
    assert whole.complete

    cut = intervals.Intervals(System(Prover(program, 1, {}, 10).rel))
    cut_count = evaluations(cut)
    steps = 0
    real_clock = time.perf_counter
    while not cut.complete:
        # the deadline passes right after the first decision point of each call is taken up
        ticks = iter([real_clock(), real_clock()])
        monkeypatch.setattr(intervals.time, "perf_counter", lambda: next(ticks, real_clock() + 10))
        cut.run(real_clock() + 5)
        monkeypatch.setattr(intervals.time, "perf_counter", real_clock)
        steps += 1
        assert steps < 100
    assert steps > 2  # it was cut short, and resumed, several times
    assert len(cut_count) == len(whole_count)
    assert {d: dict(e) if e is not None else None for d, e in cut.states.items()} == \
        {d: dict(e) if e is not None else None for d, e in whole.states.items()}


def test_an_if_is_split_by_its_condition_only_where_its_branches_read_what_it_reads():
    """`ite(x > 3, y + 1, y)`: narrowing x cannot change y, so the branches are evaluated as
    they are, no narrowed environment made (a seed game's moves write hundreds of cells each
    through such `if`s on the move's parameters: its analysis in 13 s instead of 23 s, the same
    intervals); `ite(x > 3, x, 3)` is still split, and says 3..10 where a plain join says 0..10."""
    x, y = z3.Int("sx", CTX), z3.Int("sy", CTX)
    dag = Dag()
    apart = dag.add(z3.If(x > 3, y + 1, y))
    shared = dag.add(z3.If(x > 3, x, z3.IntVal(3, CTX)))
    lx, ly = dag.add(x), dag.add(y)
    ev = Evaluator(dag)
    env = Env({lx: (0, 10), ly: (0, 5)})
    assert ev.eval(apart, env) == (0, 6)
    assert ev._assumed == {}  # nothing narrowed
    assert ev.eval(shared, env) == (3, 10)
    assert ev._assumed  # split by x > 3
