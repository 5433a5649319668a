"""The transition system of one game setting (program, player count, options), as the proof
engines see it: state leaves, their declared bounds, the initial state, and per decision point
the transitions — each a legality condition, the successor leaves and the decision points it
leads to — over one shared term table (`dag.Dag`).

It is a view of `relation.Relation` (which builds the Z3 terms): the same alternatives, read
once into the table, so that the engines (intervals, induction, bounded paths, Spacer) share
one encoding and one reading of it.

- `leaves`: every state leaf in `unroll.state_leaves` order (vars, flow locals, pc, cur, loop
  snapshots); `bounds[i]`: the declared (lo, hi) of leaf i, None where it has none (booleans,
  sequence slots past the length);
- `initial`: the concrete state at the first decision point (leaf values), and its `pc`;
- `transitions(d)`: `Transition`s at decision point d (built on first use: the Relation's
  alternatives, so encoding costs what it costs there).
"""
from __future__ import annotations

import operator
import re
from dataclasses import dataclass, field

from ..ir import nodes as N
from .dag import Dag
from .encode import SeqVal, StateVars, and_all, eq_leaf, flatten_and, is_num, lift, num, z3
from .relation import successor_cases
from .relation import Alternative, Relation
from .transition import initial, loop_alone, loop_steps_alone
from .unroll import leaves, map_leaves, state_leaves

__all__ = ["STATE_SHOWN", "System", "Transition", "as_text", "conjuncts", "flatten_and", "leaf_name"]

_STEP = re.compile(r"@\d+")  # a leaf's step mark (`count@0`), not part of the name a spec uses
_BIT = re.compile(r"^(.*)\{(\d+)\}$")  # a set's membership bit as `leaf_name` names it
# the values of a state shown in a reason (all of them in the JSON)
STATE_SHOWN = 12


def leaf_name(term) -> str:
    """A state leaf as a person reads it: `score[2]`, a set's member bit `held{7}`."""
    return _STEP.sub("", str(term))


def as_text(values: list, sizes: dict) -> list[str]:
    """`name = value` per leaf of `System.read_off`, a set's bits gathered into one entry where
    the first of them stands: `held = {7}` when each of its bits (`sizes`: set name -> bits) has
    a value, `held ⊇ {7}` (members known, the rest not all) otherwise."""
    bits: dict[str, dict] = {}
    for name, v in values:
        m = _BIT.match(name)
        if m:
            bits.setdefault(m.group(1), {})[int(m.group(2))] = v
    out, done = [], set()
    for name, v in values:
        m = _BIT.match(name)
        if not m:
            out.append(f"{name} = {v}")
        elif m.group(1) not in done:
            base = m.group(1)
            done.add(base)
            known = bits[base]
            members = "{" + ", ".join(str(i) for i in sorted(known) if known[i]) + "}"
            whole = len(known) == sizes.get(base)
            out.append(f"{base} = {members}" if whole else f"{base} ⊇ {members}")
    return out


@dataclass
class Transition:
    decision: int
    alt: Alternative
    label: str
    pre: list  # ids of the conjuncts of: pc is d, the alternative's case, legality
    post: list  # ids of the successor's leaves, aligned with System.leaves
    cases: list  # [(v, id of "the successor's pc is v")]: the decision points (-1: the end) it leads to
    params: list = field(default_factory=list)  # ids of the free constants that are not state leaves
    legality_obligations: list = field(default_factory=list)  # ids (checked without the guard)
    step_obligations: list = field(default_factory=list)  # ids (checked under the guard)
    pre_terms: list = field(default_factory=list)  # z3 terms of `pre`, in its order
    post_terms: list = field(default_factory=list)  # z3 terms of `post`
    case_terms: dict = field(default_factory=dict)  # v -> z3 term of "the successor's pc is v"
    renaming: list = field(default_factory=list)  # [(pre leaf term, post term)] where they differ
    written: int = 0  # the support bits of the leaves in `renaming`: a formula reading none is kept as is
    cuts: list | None = None  # `System.cut_renamings`, built on first use
    cut_guards: list | None = None  # with it: each run's condition (`Step.cut_guards`)
    cut_flags: list | None = None  # and each cut's "the loop still runs" (`Step.cut_flags`)
    cut_runs: list | None = None  # and each one's index in `Step.cuts`
    cut_loops: list | None = None  # and each one's loop statement


def conjuncts(dag: Dag, i: int) -> list[int]:
    """The conjuncts of node i (nested `and`s flattened; `true` dropped)."""
    out, stack = [], [i]
    while stack:
        x = stack.pop()
        if dag.op[x] == "and":
            stack.extend(reversed(dag.args[x]))
        elif dag.op[x] != "true":
            out.append(x)
    return out


class System:
    def __init__(self, rel: Relation):
        self.rel, self.p, self.n = rel, rel.p, rel.n
        self.dag = Dag()
        terms = state_leaves(rel, rel.state, rel.snaps)
        self.leaf_terms = terms
        self.leaves = [self.dag.add(t) for t in terms]
        self.index = {leaf: k for k, leaf in enumerate(self.leaves)}
        self._set_sizes: dict | None = None  # a set's name -> its member bits (`shown`)
        self.pc_leaf = self.dag.add(rel.state.pc)
        self.bounds = self._declared_bounds()
        init = initial(rel.p, rel.n, rel.options)
        self.initial_terms = state_leaves(rel, init.state, _conform(rel.snaps, init.snapshots, lambda slot: num(0)))
        assert len(self.initial_terms) == len(self.leaves), "the initial state's shape is not the relation's"
        self.initial = [_literal_value(t) for t in self.initial_terms]
        self.initial_pc = init.state.pc.as_long()
        self._transitions: dict[int, list[Transition]] = {}
        self._alone: dict = {}  # id(loop statement) -> `loop_alone`'s answer
        self._steps_alone: dict = {}  # id(loop statement) -> `loop_steps`'s answer
        self._steps_checks: dict = {}  # the same key -> per iteration, the checks raised in it

    @property
    def decisions(self) -> list[int]:
        return list(range(len(self.p.decisions)))

    def _declared_bounds(self) -> list:
        """(lo, hi) per leaf from the relation's range constraints `lo <= x`, `x <= hi`."""
        lo: dict[int, int] = {}
        hi: dict[int, int] = {}
        dag = self.dag
        for c in self.rel.ranges(self.rel.state, self.rel.snaps):
            i = dag.add(c)
            for x in conjuncts(dag, i):
                op = dag.op[x]
                if op not in ("le", "ge"):
                    continue
                a, b = dag.args[x]
                if op == "ge":  # b <= a
                    a, b = b, a
                if dag.op[a] == "num" and dag.op[b] == "leaf":
                    lo[b] = max(lo.get(b, dag.value[a]), dag.value[a])
                elif dag.op[a] == "leaf" and dag.op[b] == "num":
                    hi[a] = min(hi.get(a, dag.value[b]), dag.value[b])
        pc = self.pc_leaf
        lo[pc], hi[pc] = -1, len(self.p.decisions) - 1
        # a loop snapshot's slots past its length hold whatever the engine left there: the
        # relation's range constraints about them are not facts of reachable states
        for snap in self.rel.snaps.values():
            if isinstance(snap, tuple):
                for t in leaves(snap[0].items):
                    i = dag.add(t)
                    lo.pop(i, None)
                    hi.pop(i, None)
        return [(lo.get(leaf), hi.get(leaf)) if leaf in lo or leaf in hi else None for leaf in self.leaves]

    def transitions(self, d: int) -> list[Transition]:
        if d not in self._transitions:
            out = []
            rel, dag = self.rel, self.dag
            state_ids = set(self.leaves)
            for alt in rel.alternatives(d):
                whole = [rel.at_decision(d, rel.state)] + ([alt.pin] if alt.pin is not None else []) + [alt.guard]
                pre_terms = [c for t in whole for c in flatten_and(t)]
                pre = [dag.add(t) for t in pre_terms]
                post_terms = state_leaves(rel, alt.step.state, _conform(rel.snaps, alt.step.snapshots, lambda slot: slot))
                assert len(post_terms) == len(self.leaves), "a successor's shape is not the relation's"
                post = [dag.add(t) for t in post_terms]
                case_terms = {v: eq_leaf(alt.step.state.pc, num(v)) for v, _ in successor_cases(alt) if v is not None}
                cases = [(v, dag.add(case_terms[v]) if v is not None else None) for v, _ in successor_cases(alt)]
                tr = Transition(d, alt, alt.label, pre, post, cases, pre_terms=pre_terms, post_terms=post_terms,
                                case_terms=case_terms,
                                renaming=[(a, b) for a, b, i, j in zip(self.leaf_terms, post_terms, self.leaves, post)
                                          if i != j])
                for i, j in zip(self.leaves, post):
                    if i != j:
                        tr.written |= dag.support(i)
                tr.legality_obligations = [dag.add(o.cond) for o in alt.pre]
                tr.step_obligations = [dag.add(o.cond) for o in alt.step.obligations]
                support = 0
                for x in pre + post:
                    support |= dag.support(x)
                tr.params = [x for x in dag.leaves_of(support) if x not in state_ids]
                out.append(tr)
            self._transitions[d] = out
        return self._transitions[d]

    def built_transitions(self) -> list[Transition]:
        """Every transition built so far (`transitions`), in the order they were built."""
        return [tr for trs in self._transitions.values() for tr in trs]

    def read_off(self, model, formulas: list, within: int = -1) -> list[tuple[str, object]]:
        """(leaf name, value) for each state leaf the formulas read that `model` gives a value,
        among the leaves `within` (support bits: what the query asserted anything about), those
        of the first formula first. A leaf the query left out, or replaced by a constant of its
        own (`abstract_apart`), has no value in the model and is not shown: a value completed by
        default would be a guess."""
        dag = self.dag
        order, seen = [], set()
        for f in formulas:
            reads = dag.support(dag.add(f)) & within
            for leaf, term in zip(self.leaves, self.leaf_terms):
                if leaf not in seen and dag.support(leaf) & reads:
                    seen.add(leaf)
                    order.append((leaf, term))
        out = []
        for leaf, term in order:
            v = model.eval(term, model_completion=False)
            if z3.is_int_value(v):
                out.append((leaf_name(term), v.as_long()))
            elif z3.is_true(v) or z3.is_false(v):
                out.append((leaf_name(term), z3.is_true(v)))
        return out

    def shown(self, values: list) -> str:
        """The values `read_off` gave as a reason shows them: at most `STATE_SHOWN` entries (a
        set's bits as one), and how many more the JSON lists."""
        if self._set_sizes is None:
            self._set_sizes = {}
            for term in self.leaf_terms:
                m = _BIT.match(leaf_name(term))
                if m:
                    self._set_sizes[m.group(1)] = self._set_sizes.get(m.group(1), 0) + 1
        text = as_text(values, self._set_sizes)
        more = f" and {len(text) - STATE_SHOWN} more (--json lists them)" if len(text) > STATE_SHOWN else ""
        return ", ".join(text[:STATE_SHOWN]) + more

    def var_bits(self) -> int:
        """The support bits of the `var` leaves (the first leaves, in `state_leaves` order)."""
        width = sum(len(leaves(self.rel.state.vars[x])) for x in self.p.var_types)
        bits = 0
        for leaf in self.leaves[:width]:
            bits |= self.dag.support(leaf)
        return bits

    def cut_renamings(self, tr: Transition) -> list[list[list]]:
        """Per run of a decision-free `for` or `while` on the way of `tr`'s move (`Step.cuts`): the state
        before it and after each iteration, each as a renaming [(pre leaf term, term)] of the
        `var` leaves where they differ (flow locals, pc and snapshots are not renamed: a formula
        reading them is not read at a cut). A run whose shape is not the state's is left out."""
        if tr.cuts is None:
            out, guards, flags, index, loops = [], [], [], [], []
            step = tr.alt.step
            for r, (run, guard, running, loop) in enumerate(zip(step.cuts, step.cut_guards, step.cut_flags,
                                                                 step.cut_loops)):
                states = self._renamings(run)
                if states is not None:
                    out.append(states)
                    guards.append(guard)
                    flags.append(running)
                    index.append(r)
                    loops.append(loop)
            tr.cuts, tr.cut_guards, tr.cut_flags, tr.cut_runs, tr.cut_loops = out, guards, flags, index, loops
        return tr.cuts

    def _renamings(self, run: list) -> list | None:
        """A loop's cut states ({name: value} of the `var`s) as renamings [(pre leaf term, term)]
        of the `var` leaves where they differ; None where a state's shape is not the state's."""
        names = self.p.var_types
        width = sum(len(leaves(self.rel.state.vars[x])) for x in names)
        pre = self.leaf_terms[:width]
        states = []
        for values in run:
            terms = [t for x in names for t in leaves(values[x])]
            if len(terms) != width:
                return None
            states.append([(a, b) for a, b in zip(pre, terms) if not a.eq(b)])
        return states

    def loop_alone(self, tr: Transition, r: int) -> tuple | None:
        """Run r of `cut_renamings(tr)` as its loop runs on its own from the state's leaves
        (`transition.loop_alone`): (the loop statement, [its cuts, each as a renaming of the `var`
        leaves as `cut_renamings` gives them], the support bits of the leaves its cuts read);
        None where it cannot be read so, or where its
        terms read a leaf other than a `var` (a flow local, `pc`, `cur`: a move may have changed
        it before the loop, and a cut renames only `var`s). The same for every move whose flow
        runs the loop: its terms at a move are these with the leaves replaced by the loop's
        start there (`cut_renamings(tr)[r][0]`), which every one of its `var`s is."""
        self.cut_renamings(tr)
        loop = tr.cut_loops[r]
        key = id(loop)
        if key not in self._alone:
            rel = self.rel
            run = loop_alone(rel.p, rel.n, rel.options, rel.state, rel.snaps, loop)
            states = self._renamings(run) if run is not None else None
            out = None
            if states is not None:
                reads = 0
                for renaming in states:
                    for _, b in renaming:
                        reads |= self.dag.support(self.dag.add(b))
                if not reads & ~self.var_bits():
                    out = (loop, states, reads)
            self._alone[key] = out  # (the loop kept alive with its terms: its id stays its own)
        return self._alone[key]

    def loop_steps(self, tr: Transition, r: int, pins: tuple = ()) -> list | None:
        """The iterations of run r of `cut_renamings(tr)` each from its own start, where what
        the iterations before it changed is read as fresh constants (`transition.
        loop_steps_alone`; a `var` leaf the loop has not changed by then is still the leaf):
        [(its start, its end, each a renaming of the `var` leaves as `cut_renamings` gives them;
        the declared bounds and the support bits of every fresh constant made so far: its start
        reads those of every iteration before, a value changed at the 13th and not since read at
        the 14th)], or None where the loop is
        not read on its own (`loop_alone`) or not so. A formula shown to hold at an iteration's
        end for every value of the constants within their bounds holds for the values the
        iterations before gave, whatever they were: so the steps' queries are each of one
        iteration's size, where the loop's own terms at the 50th iteration nest 50 of them. The
        bounds hold where every assignment is range-checked: what rests on them rests on
        `well_formed`, as `as_fresh`'s reading does. `pins` ([(leaf term, value)]) are fixed
        where the loop starts: read with a leaf the loop indexes by (the mover's seat), an
        iteration's terms change every seat's items, each as "if the seat is this one"."""
        alone = self.loop_alone(tr, r)
        if alone is None:
            return None
        loop = alone[0]
        key = (id(loop), tuple((a.get_id(), b.get_id()) for a, b in pins))
        if key not in self._steps_alone:
            state = self.rel.state
            if pins:
                fixed = {a.get_id(): b for a, b in pins}
                values = {x: map_leaves(v, lambda t: fixed.get(t.get_id(), t)) for x, v in state.vars.items()}
                state = StateVars(self.p, self.n, self.rel.options, None, values={
                    "vars": values, "locals": state.locals, "pc": state.pc, "cur": state.cur})
            made: list = []  # per iteration after the first: ({term id: (term, constant)}, [bounds])

            def between(values: dict) -> dict:
                fresh, bounds = {}, []
                made.append((fresh, bounds))
                pre = iter(self.leaf_terms)  # (the `var` leaves come first, in `var_types`' order)
                return {x: map_leaves(values[x], lambda b: self.fresh_value(next(pre), b, fresh, bounds, "step"))
                        for x in self.p.var_types}
            rel = self.rel
            checks: list = []
            pairs = loop_steps_alone(rel.p, rel.n, rel.options, state, rel.snaps, loop, between, checks)
            # (a `while`'s checks are not read so: its measure's check compares with the value
            # the loop remembered, which the fresh reading does not renew)
            self._steps_checks[key] = checks if pairs is not None and isinstance(loop, N.For) else None
            out = None
            # (a `while` read so runs as many iterations as on its own: else its steps do not
            # line up with its cuts)
            if pairs is not None and len(made) == len(pairs) - 1 and len(pairs) == len(alone[1]) - 1:
                out = []
                # every constant made so far: the start reads those an earlier iteration made too
                bits, bounds = 0, []
                for k, (start, end) in enumerate(pairs):
                    renamed = self._renamings([start, end])
                    if renamed is None:
                        out = None
                        break
                    fresh, more = made[k - 1] if k > 0 else ({}, [])
                    bounds = bounds + more
                    for _, c in fresh.values():
                        bits |= self.dag.support(self.dag.add(c))
                    out.append((renamed[0], renamed[1], bounds, bits))
            self._steps_alone[key] = out
        return self._steps_alone[key]

    def loop_step_checks(self, tr: Transition, r: int, pins: tuple = ()) -> list | None:
        """With `loop_steps(tr, r, pins)`: per iteration, the run-time checks raised in it (`Obligation`s
        over that iteration's start as `loop_steps` reads it), or None where it gives None."""
        if self.loop_steps(tr, r, pins) is None:
            return None
        loop = self.loop_alone(tr, r)[0]
        return self._steps_checks.get((id(loop), tuple((a.get_id(), b.get_id()) for a, b in pins)))

    def loop_pins(self, tr: Transition, r: int) -> tuple:
        """The values `tr`'s move fixes at the start of run r of what the loop reads, as
        [(leaf term, value)] (`loop_alone` must not be None): the mover's seat, for one. A move's
        run is the loop run on its own with these values put in (`loop_steps`' `pins`)."""
        reads = self.loop_alone(tr, r)[2]
        start = self.cut_renamings(tr)[r][0]
        dag = self.dag
        return tuple((a, b) for a, b in start if (is_num(b) or z3.is_true(b) or z3.is_false(b))
                     and dag.support(dag.add(a)) & reads)

    def bounds_of(self, bits: int) -> list:
        """The declared bounds of the state leaves among `bits` (`bounds`), as formulas."""
        out = []
        for leaf in self.dag.leaves_of(bits):
            k = self.index.get(leaf)
            b = self.bounds[k] if k is not None else None
            if b is None:
                continue
            x = self.dag.term[leaf]
            if b[0] is not None:
                out.append(x >= b[0])
            if b[1] is not None:
                out.append(x <= b[1])
        return out

    def cut_guard(self, tr: Transition, k: int):
        """The condition under which run k of `cut_renamings(tr)` runs (the `if`s around it)."""
        self.cut_renamings(tr)
        return tr.cut_guards[k]

    def cut_flag(self, tr: Transition, r: int, k: int):
        """At cut k of run r of `cut_renamings(tr)`: the condition that the loop still runs."""
        self.cut_renamings(tr)
        return tr.cut_flags[r][k]

    def check_cut(self, tr: Transition, o) -> tuple | None:
        """(run of `cut_renamings(tr)`, cut) whose state the step's check `o` reads
        (`Step.check_cuts`), or None."""
        tag = tr.alt.step.check_cuts.get(id(o))
        self.cut_renamings(tr)
        if tag is None or tag[0] is not o or tag[1] not in tr.cut_runs:
            return None
        return tr.cut_runs.index(tag[1]), tag[2]

    def fresh_value(self, a, b, fresh: dict, bounds: list, prefix: str):
        """The value `b` of pre leaf `a` somewhere in a loop, read as a fresh constant unless it is
        a number or a leaf (the same term, the same constant: `fresh`, term id -> (term,
        constant)); a new constant's declared bounds (those of `a`) go to `bounds`."""
        if z3.is_const(b):
            return b
        k = b.get_id()
        if k not in fresh:
            c = z3.FreshConst(b.sort(), prefix)
            fresh[k] = (b, c)
            self.dag.stand_in(c, b)
            bound = self.bounds[self.index[self.dag.add(a)]]
            if bound is not None and bound[0] is not None:
                bounds.append(c >= bound[0])
            if bound is not None and bound[1] is not None:
                bounds.append(c <= bound[1])
        return fresh[k][1]

    def as_fresh(self, tr: Transition, r: int, state: list, fresh: dict, facts: list) -> list:
        """A cut state of run r of `tr` ([(pre leaf term, its value there)]) with each value that
        is neither a number nor a leaf (the same term means more than the cut) read as a fresh
        constant: the same term, the same constant (`fresh`: term id -> (term, constant)). Its
        declared bounds go to `facts`, under the condition that the loop runs (every assignment
        is range-checked: what rests on these bounds rests on `well_formed`; where the `if`s
        around the loop keep it from running, nothing checked its values). [(pre leaf term,
        value)]."""
        out, bounds = [], []
        for a, b in state:
            out.append((a, self.fresh_value(a, b, fresh, bounds, "cut")))
        if bounds:
            facts.append(z3.Implies(self.cut_guard(tr, r), z3.And(*bounds)))
        return out

    def cut_as_fresh(self, tr: Transition, r: int, k: int) -> tuple[list, list, list]:
        """The state at cut k of run r read as fresh constants (`as_fresh`), and the loop's
        "still runs" there as a fresh flag (a conjunction of every condition so far, which the
        cut's values do not contain): ([(term, its constant)], [their bounds], [(pre leaf term,
        its constant or value)]). A formula over the cut, read with the swap, holds for any
        state within the bounds: what it shows holds at the cut, and its size does not grow
        with the iterations before it. A formula over the state, read with the last renaming,
        is that formula at the cut."""
        fresh: dict = {}
        facts: list = []
        renaming = self.as_fresh(tr, r, self.cut_renamings(tr)[r][k], fresh, facts)
        swap = list(fresh.values())
        running = self.cut_flag(tr, r, k)
        if not (z3.is_true(running) or z3.is_false(running)):
            flag = z3.FreshConst(z3.BoolSort(running.ctx), "running")
            self.dag.stand_in(flag, running)
            swap.append((running, flag))
        return swap, facts, renaming

    def term(self, i: int):
        """The z3 term of a leaf id."""
        return self.dag.term[i]


def _conform(shape: dict, snaps: dict, filler) -> dict:
    """`snaps` with each loop snapshot's item slots padded to the relation's (`shape`): a loop over
    the players iterates `n` items, and its snapshot has the slots of the most players the spec
    allows. Slots past a sequence's length mean nothing; `filler(slot)` fills them (a number for
    the initial state, the slot itself, i.e. unchanged, for a successor)."""
    out = {}
    for key, value in snaps.items():
        like = shape.get(key)
        if isinstance(value, tuple) and isinstance(like, tuple) and isinstance(value[0], SeqVal) \
                and isinstance(like[0], SeqVal) and len(value[0].items) < len(like[0].items):
            seq = value[0]
            items = seq.items + tuple(filler(slot) for slot in like[0].items[len(seq.items):])
            value = (SeqVal(seq.length, items), *value[1:])
        out[key] = value
    return out


def _literal_value(t):
    if is_num(t):
        return t.as_long()
    if z3.is_true(t):
        return 1
    if z3.is_false(t):
        return 0
    raise ValueError(f"the initial state is not concrete: {t}")
