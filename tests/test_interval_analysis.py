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
