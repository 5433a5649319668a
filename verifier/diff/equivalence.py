"""Z3's proof that two specs are one game: the one-step product query of `rulebook diff`.

The structural proof (`structural.py`) sees that two specs are the same game when their
behavioural cores are equal as text; it cannot see that `x < 3` and `not (x >= 3)` are one
requirement. Here both specs are encoded as transition relations (`smt/relation.py`) over the
same state — the program's variables name the Z3 constants, so two specs with the same state
layout share them — and for every player count, every decision point and every alternative
(matched by position and label), Z3 is asked, over *every* state (reachable or not):

- the initial states are equal;
- the alternative's case (`pin`) and its legality read the same;
- its run-time checks (legality's and the move's own) hold together or fail together;
- under legality, the successor states are equal;
- at any state, every player's score and return, and the winners, are equal.

All valid: every position offers the same moves and chance outcomes, each leads to the same
position, and every end scores the same — the two games are the same (as far as play can tell;
texts and displays are wording). A query that is not valid names the first move that differs in
some state, which may be unreachable: that is a hint, not a witness, and lockstep play goes on.
A time-out is neither. The attempt is made only where the states can be compared: the same
variables with the same types, the same flow locals, the same decision points and alternatives,
and no weighted chance (weights are not in the relation).
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from ..ir import nodes as N
from ..smt.encode import CTX, Encoder, and_all, eq_leaf, eq_val, implies, num, z3
from ..smt.relation import OutOfTime, Relation
from ..smt.transition import initial
from ..smt.unroll import same_state

__all__ = ["Proof", "prove_same"]


@dataclass
class Proof:
    verdict: str  # "same" (proved), "differs" (some state, perhaps unreachable), "unknown", "skipped"
    reason: str = ""
    queries: int = 0
    seconds: float = 0.0


class _Differs(Exception):
    pass


class _GaveUp(Exception):
    pass


def comparable(old, new) -> str:
    """Why the two programs' states cannot be compared one to one ("" when they can)."""
    if {k: str(t) for k, t in old.var_types.items()} != {k: str(t) for k, t in new.var_types.items()}:
        return "the specs' variables differ (names or types)"
    if {k: str(t) for k, t in old.flow_locals.items()} != {k: str(t) for k, t in new.flow_locals.items()}:
        return "the flows' local variables differ"
    if len(old.decisions) != len(new.decisions):
        return "the flows have different decision points"
    for p in (old, new):
        if any(getattr(d.node, "weight", None) is not None for d in p.decisions if isinstance(d.node, N.Chance)):
            return "a chance node is weighted (weights are not in the transition relation)"
    return ""


def prove_same(old, new, counts: list, old_options: list, new_options: list, timeout: float = 5.0,
               deadline: float | None = None) -> Proof:
    """Proof that `old` and `new` (Programs) are the same game at each player count in `counts`
    (with the options at each count: `old_options[i]`, `new_options[i]`)."""
    t0 = time.perf_counter()
    why = comparable(old, new)
    if why:
        return Proof("skipped", why)
    asked = [0]

    def valid(formula, what: str) -> None:
        if deadline is not None and time.perf_counter() > deadline:
            raise _GaveUp("the time for the proof ran out")
        s = z3.Solver(ctx=CTX)
        ms = int(timeout * 1000)
        if deadline is not None:
            ms = max(1, min(ms, int((deadline - time.perf_counter()) * 1000)))
        s.set("timeout", ms)
        s.add(z3.Not(formula))
        asked[0] += 1
        r = s.check()
        if r == z3.sat:
            raise _Differs(what)
        if r != z3.unsat:
            raise _GaveUp(f"the solver gave up on: {what}")

    try:
        for n, oo, no in zip(counts, old_options, new_options):
            _same_at(old, new, n, oo, no, valid, deadline)
    except _Differs as exc:
        return Proof("differs", f"{exc} in some state (perhaps unreachable)", asked[0], time.perf_counter() - t0)
    except _GaveUp as exc:
        return Proof("unknown", str(exc), asked[0], time.perf_counter() - t0)
    except OutOfTime:  # encoding the moves ran past the deadline
        return Proof("unknown", "the time for the proof ran out", asked[0], time.perf_counter() - t0)
    except Exception as exc:  # a construct the encoding does not take: no proof, and no claim
        return Proof("unknown", f"not encoded: {exc}", asked[0], time.perf_counter() - t0)
    return Proof("same", f"{asked[0]} queries, every one valid", asked[0], time.perf_counter() - t0)


def _same_at(old, new, n: int, old_opts: dict, new_opts: dict, valid, deadline) -> None:
    ro, rn = Relation(old, n, old_opts), Relation(new, n, new_opts)
    ro.deadline = rn.deadline = deadline  # encoding a move raises OutOfTime past it
    io, in_ = initial(old, n, old_opts), initial(new, n, new_opts)
    valid(same_state(ro, io.state, io.snapshots, in_.state, in_.snapshots), f"the initial state ({n} players)")
    for d in range(len(old.decisions)):
        where = f"decision point at line {old.decisions[d].node.span.line}"
        alts_o, alts_n = ro.alternatives(d), rn.alternatives(d)
        if [a.label for a in alts_o] != [a.label for a in alts_n]:
            raise _Differs(f"the moves at the {where}")
        at = ro.at_decision(d, ro.state)
        for ao, an in zip(alts_o, alts_n):
            what = f"'{ao.label}' ({where}, {n} players)"
            if (ao.pin is None) != (an.pin is None):
                raise _Differs(f"the cases of {what}")
            case = at if ao.pin is None else z3.And(at, ao.pin)
            if ao.pin is not None:
                valid(implies(at, eq_leaf(ao.pin, an.pin)), f"the case of {what}")
            valid(implies(case, eq_leaf(ao.guard, an.guard)), f"the legality of {what}")
            valid(implies(case, eq_leaf(and_all([o.cond for o in ao.pre]), and_all([o.cond for o in an.pre]))),
                  f"the run-time checks of the legality of {what}")
            legal = z3.And(case, ao.guard)
            valid(implies(legal, eq_leaf(and_all([o.cond for o in ao.step.checks]),
                                         and_all([o.cond for o in an.step.checks]))), f"the run-time checks of {what}")
            valid(implies(legal, same_state(ro, ao.step.state, ao.step.snapshots, an.step.state, an.step.snapshots)),
                  f"the state after {what}")
    if old.outcome is not None or new.outcome is not None:
        eo, en = Encoder(old, n, old_opts, ro.state), Encoder(new, n, new_opts, ro.state)
        parts = []
        for p in range(n):
            parts += [eq_leaf(eo.score(num(p)), en.score(num(p))), eq_leaf(eo.returns(num(p)), en.returns(num(p)))]
        parts.append(eq_val(eo.winners(), en.winners()))
        valid(and_all(parts), f"the scores, returns or winners at the end ({n} players)")
