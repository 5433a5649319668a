"""Statements and moves as Z3 state updates: the transition relation's building block.

A *state value* is a `Frame`: the `var`s, the flow locals, the Python locals
of a move body (`let`, parameters, `for` variables), `pc`, `cur`, and the
snapshots of `for` loops around decision points (the engine's `I_`/`J_`
fields, keyed as the code generator keys them: `<var>__<k>`, k counting such
loops in pre-order). Every leaf is a Z3 term from `encode`.

- `Exec.block(stmts)` executes statements symbolically (GUIDE: the engine's
  `s_<Node>` code in `codegen.py`): an `if` on a symbolic condition runs both
  branches and `merge`s them leaf by leaf; a `for` unrolls over the items the
  collection may hold, each iteration guarded by membership; a `while` unrolls
  up to `WHILE_BOUND` iterations and records a "bound" obligation that the
  loop has stopped by then. Range checks are obligations exactly where the
  engine checks (`within`, `value_code`, `L.check_range`, `L.seq_append`, ...).
- `successor(program, n, options, state, decision, move, params)` applies a
  move's effects and runs the flow from the decision's continuation to the
  next decision point (any kind) or the end (`joint_successor`: a
  simultaneous node's moves in seat order, then the flow). The walk follows
  the IR flow itself, not the engine's segments: the rest of the flow is a
  stack of tasks, and a symbolic condition of an `if`/`while`/`for` around a
  decision point forks the walk, each side running to its own stop, the two
  final frames merged (pc and cur included). On a concrete state every
  condition is a literal and the walk is an interpreter over Z3 literals.
- Loop snapshots: `snapshots_of` (an engine state's) or `fresh_snapshots`
  (free; their range constraints are not stated yet). Not yet: `end` inside a decision-free loop under a symbolic
  condition (`NotEncoded`); walks forking more than `MAX_FORKS` times.
"""
from __future__ import annotations

import contextlib
import operator
from dataclasses import dataclass, field

from ..frontend.typecheck import Program, walk
from ..ir import nodes as N
from ..ir.types import ArrayT, PlayerT, SeqT, SetT, Type, is_int_like
from .encode import (CTX, FALSE, TRUE, Encoder, at_step, fresh, z3, NotEncoded, SeqVal, SetVal, StateVars, and_, and_all,
                     default_value, dom_pos, dom_size, eq_leaf, eq_val, int_range, is_false, is_num,
                     is_true, ite, ite_val, lift, literal, not_, num, or_, or_all, range_constraints, real,
                     same_sort, select, set_size, sized, total, bool_int, Obligation)

__all__ = ["Frame", "Exec", "Step", "packed", "merge", "successor", "loop_alone", "loop_steps_alone", "joint_successor", "fork_limit", "snapshot_keys", "snapshots_of", "fresh_snapshots", "WHILE_BOUND"]

WHILE_BOUND = 64  # iterations a decision-free `while` is unrolled (a "bound" obligation says it suffices)
CONCRETE_LOOP_LIMIT = 10_000  # a literal loop running longer is reported, not followed
MAX_CUT_STATES = 512  # states kept per move at the iterations of its loops (`Exec.cuts`)
_FORK_LIMIT: list = [None]  # forks a walk may make while `fork_limit` is open (None: `FlowWalk.MAX_FORKS`)


@contextlib.contextmanager
def fork_limit(limit: int | None):
    """Walks started while this is open give up (`NotEncoded`) past `limit` forks. A caller with a
    cheaper encoding to fall back on (`Relation.alternatives`) need not pay for a walk that is
    going to fail."""
    saved = _FORK_LIMIT[0]
    _FORK_LIMIT[0] = limit
    try:
        yield
    finally:
        _FORK_LIMIT[0] = saved


# ====================================================================== values

@dataclass
class Frame:
    """A state value: dicts of values plus pc, cur and loop snapshots {key: (SeqVal items, J)}."""

    vars: dict
    locals: dict
    py: dict = field(default_factory=dict)
    pc: object = None
    cur: object = None
    snaps: dict = field(default_factory=dict)

    def copy(self) -> "Frame":
        return Frame(dict(self.vars), dict(self.locals), dict(self.py), self.pc, self.cur, dict(self.snaps))


def merge(cond, a, b):
    """If(cond, a, b) over any value structure: frames, dicts (common keys), tuples, sets, sequences, leaves."""
    if a is b:
        return a
    if is_true(cond):
        return a
    if is_false(cond):
        return b
    return _merge_open(cond, a, b)


def _merge_open(cond, a, b):
    """merge for a condition known not to be a literal. Values a branch left alone are the same
    Python objects on both sides (frames are copied shallowly) and are kept without a term."""
    if a is b:
        return a
    if isinstance(a, Frame):
        return Frame(_merge_open(cond, a.vars, b.vars), _merge_open(cond, a.locals, b.locals),
                     _merge_open(cond, a.py, b.py), _merge_open(cond, a.pc, b.pc), _merge_open(cond, a.cur, b.cur),
                     _merge_open(cond, a.snaps, b.snaps))
    if isinstance(a, dict):
        return {k: _merge_open(cond, v, b[k]) for k, v in a.items() if k in b}
    if isinstance(a, (SetVal, SeqVal)):
        return ite_val(cond, a, b)
    if isinstance(a, tuple):
        if len(a) != len(b):
            raise ValueError(f"no common shape for {len(a)} and {len(b)} items")
        return tuple(_merge_open(cond, x, y) for x, y in zip(a, b))
    return ite(cond, a, b)


def conform(v, t: Type, n: int):
    """v padded to type t's shape (sequence slots up to the capacity, sets to the domain)."""
    if isinstance(t, SeqT) and isinstance(v, SeqVal):
        items = tuple(conform(x, t.elem, n) for x in v.items)
        if len(items) < t.cap:
            items += tuple(default_value(t.elem, n) for _ in range(t.cap - len(items)))
        return SeqVal(v.length, items)
    if isinstance(t, SetT) and isinstance(v, SetVal):
        size = dom_size(t.elem, n)
        return v if len(v) >= size else SetVal(tuple(v) + (FALSE,) * (size - len(v)))
    if isinstance(t, ArrayT) and isinstance(v, tuple):
        return tuple(conform(x, t.elem, n) for x in v)
    return v


@dataclass(frozen=True)
class MeasureCheck:
    """Internal statement: a measured loop's condition was found true (codegen's `measure_check`)."""

    loop: object


@dataclass(frozen=True)
class MeasureReset:
    """Internal statement: a measured flow loop was left (codegen: `s.M_k = -1`)."""

    loop: object


class _Multiply(Exception):
    """What follows an `if`, run on one side's frame, met another fork both of whose sides go
    on: run on its own, it would multiply (see `FlowWalk._fork`)."""


class Stop(Exception):
    """The flow walk reached a decision point or the end (the frame is final)."""


def has_decision(st) -> bool:
    return any(isinstance(x, (N.Choose, N.Simultaneous, N.Chance)) for x in walk(st))


def packed(rows: list, elem, n: int) -> SeqVal:
    """A collection's members (`Encoder.members`: (guard, value) rows) packed to the front of
    a sequence, in order: what a `for` loop's snapshot holds (the engine's `list(source)`)."""
    slots = [default_value(elem, n) for _ in range(max(len(rows), 1))]
    count = num(0)
    for g, x in rows:
        if is_false(g):
            continue
        slots = [ite_val(and_(g, eq_leaf(count, num(k))), x, y) for k, y in enumerate(slots)]
        count = lift(operator.add, count, ite(g, num(1), num(0)))
    return SeqVal(count, tuple(slots))


def snapshot_keys(program: Program) -> dict:
    """id(For node) -> the engine's snapshot key, for every flow `for` that contains a decision point."""
    keys: dict = {}

    def visit(stmts):
        for st in stmts:
            if not has_decision(st):
                continue
            if isinstance(st, N.If):
                for _, body in st.branches:
                    visit(body.stmts)
                if st.orelse is not None:
                    visit(st.orelse.stmts)
            elif isinstance(st, N.While):
                visit(st.body.stmts)
            elif isinstance(st, N.For):
                keys[id(st)] = (f"{st.var}__{len(keys)}", st)
                visit(st.body.stmts)

    visit(program.flow.body.stmts if program.flow else ())
    return keys


def decision_paths(program: Program) -> dict:
    """decision index -> [(stmts, i), ...] from the flow's top block to the decision node."""
    out: dict = {}

    def visit(stmts, frames):
        for i, st in enumerate(stmts):
            here = frames + [(stmts, i)]
            if isinstance(st, (N.Choose, N.Simultaneous, N.Chance)):
                out[program.decision_of(st).index] = here
            elif isinstance(st, N.If):
                for _, body in st.branches:
                    visit(body.stmts, here)
                if st.orelse is not None:
                    visit(st.orelse.stmts, here)
            elif isinstance(st, (N.While, N.For)):
                visit(st.body.stmts, here)

    visit(program.flow.body.stmts if program.flow else (), [])
    return out


def snapshots_of(program: Program, state) -> dict:
    """The engine state's loop snapshots as Z3 literals: {key: (SeqVal, J)}."""
    s = getattr(state, "s", state)
    out = {}
    for key, st in snapshot_keys(program).values():
        elem = program.type_of(st.source).elem
        items = getattr(s, "I_" + key)
        out[key] = (SeqVal(num(len(items)), tuple(literal(elem, x, s.n) for x in items)), num(getattr(s, "J_" + key)))
    for k in range(len(program.measures)):
        out[f"M_{k}"] = num(getattr(s, f"M_{k}"))
    return out


def fresh_snapshots(program: Program, n: int, step=0) -> dict:
    """Free loop snapshots `I_<key>@step[i]`, `I_<key>@step#len`, `J_<key>@step`, one slot per item
    the loop's collection can hold (a set's domain, a sequence's capacity, an array's indices)."""
    out = {}
    for key, st in snapshot_keys(program).values():
        t = program.type_of(st.source)
        cap = t.cap if isinstance(t, SeqT) else dom_size(t.elem if isinstance(t, SetT) else t.index, n)
        name = at_step("I_" + key, step)
        items = tuple(fresh(t.elem, f"{name}[{i}]", n) for i in range(cap))
        out[key] = (SeqVal(z3.Int(f"{name}#len", CTX), items), z3.Int(at_step("J_" + key, step), CTX))
    for k in range(len(program.measures)):
        out[f"M_{k}"] = z3.Int(at_step(f"M_{k}", step), CTX)
    return out


# ====================================================================== statements

class Exec:
    """Symbolic execution of statements over a `Frame` (`self.fr`, replaced as statements run).

    `flow` chooses the flow's reading of `let`/`for` (flow locals, which are state) over a
    move body's (Python locals). Obligations go to `self.enc.obligations`, guarded by the path.
    """

    def __init__(self, program: Program, n: int, options: dict, frame: Frame, enc: Encoder | None = None):
        self.p, self.n = program, n
        self.fr = frame
        self.enc = enc or Encoder(program, n, options, {})
        self.flow = False
        self._snap_keys = snapshot_keys(program)
        self._measure_keys = {id(w): f"M_{k}" for k, w in enumerate(program.measures)}
        # the `var`s before each run of a `for` or `while` without decision points and after each
        # of its iterations (`keep_cuts`): a claim kept by every iteration is kept by the loop,
        # which the induction can show one iteration at a time (`Step.cuts`)
        self.cuts: list[tuple] = []
        # `loop_steps_alone`'s reading: (a `for` statement, a function called with the `var`s where
        # its iterations after the first start, which returns them with what the iterations before
        # changed read as fresh values); each iteration is then recorded as (its start, its end)
        self.between_iterations: tuple | None = None
        self.iteration_steps: list[tuple] = []
        self.iteration_checks: list[list] = []  # with each of those iterations: the checks raised in it
        self.cut_guards: list = []  # per run: the condition under which the loop runs (its `if`s)
        self.cut_flags: list = []  # per run: at each cut, the condition that the loop still runs
        self.cut_loops: list = []  # per run: its loop statement (`loop_alone` runs it on its own)
        # the checks each kept run's cuts are read by: id(obligation) -> (it, run, cut) — raised in
        # the iteration from that cut, or after the loop's last cut (until the next loop); the
        # innermost loop's (`Step.check_cuts`). The check is kept with its id: a walk retried
        # drops its checks, and a new one may get a dropped one's id
        self.check_cuts: dict = {}
        self._after: tuple | None = None  # (run, its last cut, the checks' count at its end)

    # ------------------------------------------------------------ loop measures (`while C decreases E`)
    def measure_slot(self, st) -> tuple[dict, str]:
        """Where the loop's previous measure lives: the state field M_k for a flow loop (codegen's
        `s.M_k`), a Python local of the move for a loop in a move's effects."""
        if self.flow and id(st) in self._measure_keys:
            return self.fr.snaps, self._measure_keys[id(st)]
        return self.fr.py, f"_measure@{id(st)}"

    def measure_enter(self, st) -> None:
        if st.decreases is not None:
            where, key = self.measure_slot(st)
            where[key] = num(-1)

    def measure_check(self, st) -> None:
        """codegen's `measure_check`, the loop's condition being true (the current path)."""
        where, key = self.measure_slot(st)
        prev, m = where[key], self.expr(st.decreases)
        self.require(or_(eq_leaf(prev, num(-1)), lift(operator.lt, m, prev)), st.decreases,
                     "the loop's measure decreases", "measure")
        self.require(lift(operator.le, num(0), m), st.decreases, "the loop's measure is not negative", "measure")
        where, key = self.measure_slot(st)
        where[key] = m

    # ------------------------------------------------------------ expressions over the current frame
    def sync(self) -> Encoder:
        enc = self.enc
        enc.env = {**self.fr.vars, **self.fr.locals}
        enc.scopes = [dict(self.fr.py)]  # (the encoder's memo is keyed by the values read: no reset)
        return enc

    def expr(self, e):
        return self.sync().expr(e)

    def T(self, e) -> Type:
        return self.p.type_of(e)

    def require(self, cond, node, sentence: str, kind: str = "error") -> None:
        self.enc.require(cond, node, sentence, kind)

    def guarded(self, cond):
        return self.enc._guard(cond)

    # ------------------------------------------------------------ blocks
    def block(self, stmts) -> None:
        for st in stmts:
            self.stmt(st)

    def stmt(self, st) -> None:
        method = getattr(self, "s_" + type(st).__name__, None)
        if method is None:
            raise NotImplementedError(f"Z3 transition has no rule for statement {type(st).__name__}")
        method(st)

    def branch(self, cond, stmts) -> Frame:
        """The frame after running stmts under cond (from the current frame, which is kept)."""
        if is_true(cond):  # in place: a `Stop` inside keeps what ran
            self.block(stmts)
            return self.fr
        saved = self.fr
        self.fr = saved.copy()
        try:
            with self.guarded(cond):
                self.block(stmts)
            return self.fr
        finally:
            self.fr = saved

    # ------------------------------------------------------------ names and targets
    def read_name(self, name: str):
        if name in self.fr.py:
            return self.fr.py[name]
        if name in self.fr.vars:
            return self.fr.vars[name]
        return self.fr.locals[name]

    def write_name(self, name: str, value) -> None:
        if name in self.fr.py:
            self.fr.py[name] = value
        elif name in self.fr.vars:
            self.fr.vars[name] = conform(value, self.p.var_types[name], self.n)
        elif name in self.fr.locals:
            self.fr.locals[name] = conform(value, self.p.flow_locals[name], self.n)
        else:
            raise KeyError(f"Z3 transition: cannot assign {name!r}")

    def update(self, target, fn) -> None:
        """target := fn(target's value), for a name or an index chain (symbolic indices: an If per slot)."""
        if isinstance(target, N.Name):
            self.write_name(target.name, fn(self.read_name(target.name)))
            return
        if not isinstance(target, N.Index):
            raise NotImplementedError(f"Z3 transition: assignment to {type(target).__name__}")
        bt = self.T(target.base)
        idx = self.expr(target.index)
        if isinstance(bt, ArrayT):
            pos = dom_pos(bt.index, idx)
            if not self.enc.fits(self.T(target.index), bt.index):  # codegen's `within`: L.check_range
                lo, hi = int_range(bt.index, self.n)
                self.require(and_(lift(operator.le, num(lo), idx), lift(operator.le, idx, num(hi))), target,
                             f"the index is a value of {bt.index}")

            def at(old):
                new = fn(select(old, pos, default_value(bt.elem, self.n)))
                if is_num(pos):
                    return tuple(new if pos.as_long() == i else x for i, x in enumerate(old))
                return tuple(ite_val(eq_leaf(pos, num(i)), new, x) for i, x in enumerate(old))
        else:  # a sequence slot: Python's list indexing
            def at(old):
                self.require(and_(lift(operator.le, num(0), idx), lift(operator.lt, idx, old.length)), target,
                             "the position is inside the sequence")
                new = fn(select(old.items, idx, default_value(bt.elem, self.n)))
                return SeqVal(old.length, tuple(ite_val(eq_leaf(idx, num(i)), new, x) for i, x in
                                                enumerate(old.items)))
        self.update(target.base, at)

    def value(self, e, target: Type | None = None):
        """codegen's `value_code`: the value, range-checked when assigned to a narrower int-like type."""
        v = self.expr(e)
        t = self.T(e)
        if target is not None and is_int_like(target) and is_int_like(t) and not self.enc.fits(t, target):
            lo, hi = int_range(target, self.n)
            self.require(and_(lift(operator.le, num(lo), v), lift(operator.le, v, num(hi))), e,
                         f"the value is within {lo}..{hi}")
        return v

    # ------------------------------------------------------------ statements
    def s_Assign(self, st) -> None:
        tt = self.T(st.target)
        if st.op == "=":
            v = self.value(st.value, tt)
            self.update(st.target, lambda old: v)
            return
        v = self.expr(st.value)
        if isinstance(tt, SetT):
            op = SET_EDITS[st.op]
            self.update(st.target, lambda old: op(old, v))
            return
        lo, hi = int_range(tt, self.n)

        def arith(old):
            r = lift(INT_EDITS[st.op], old, v)
            self.require(and_(lift(operator.le, num(lo), r), lift(operator.le, r, num(hi))), st,
                         f"the result is within {lo}..{hi}")
            return r
        self.update(st.target, arith)

    def s_Let(self, st) -> None:
        v = self.value(st.value, self.p.types.get(id(st)) if st.type is not None else None)
        if self.flow and st.name in self.p.flow_locals and st.name not in self.fr.py:
            self.fr.locals[st.name] = conform(v, self.p.flow_locals[st.name], self.n)
        else:
            self.fr.py[st.name] = v

    def s_If(self, st) -> None:
        arms = []
        taken = FALSE
        for cond, body in st.branches:
            with self.guarded(not_(taken)):
                c = self.expr(cond)
            arms.append((and_(not_(taken), c), body.stmts))
            taken = or_(taken, c)
            if is_true(taken):
                break
        rest = self.branch(not_(taken), st.orelse.stmts) if st.orelse is not None and not is_true(taken) \
            else self.fr
        for g, stmts in reversed(arms):
            if is_false(g):
                continue
            rest = merge(g, self.branch(g, stmts), rest)
        self.fr = rest

    def s_For(self, st) -> None:
        rows = self.sync().members(st.source)  # the engine iterates over list(source): evaluated once
        run = [dict(self.fr.vars)]  # (copies: statements after the loop edit the frame in place)
        marks = [self.checks_mark()]
        for g, item in rows:
            if is_false(g):
                continue
            steps = self.between_iterations is not None and self.between_iterations[0] is st
            if steps and len(run) > 1:
                self.fr.vars = self.between_iterations[1](self.fr.vars)
            start = dict(self.fr.vars)
            saved = self.fr
            self.fr = saved.copy()
            if self.flow and st.var in self.p.flow_locals:
                self.fr.locals[st.var] = item
            else:
                self.fr.py[st.var] = item
            with self.guarded(g):
                self.block(st.body.stmts)
            after = self.fr
            if not (self.flow and st.var in self.p.flow_locals):
                if st.var in saved.py:
                    after.py[st.var] = saved.py[st.var]
                else:
                    after.py.pop(st.var, None)
            self.fr = merge(g, after, saved)
            run.append(dict(self.fr.vars))
            marks.append(self.checks_mark())
            if steps:
                self.iteration_steps.append((start, run[-1]))
                self.iteration_checks.append(self.enc.obligations[marks[-2]:marks[-1]])
        self.keep_cuts(st, run, marks=marks)

    def keep_cuts(self, st, run: list, flags: list | None = None, marks: list | None = None) -> None:
        """Record a decision-free loop's run (the `var`s before it and after each iteration) as
        cut states, within MAX_CUT_STATES per move; a loop of one iteration has nothing to cut.
        `flags`: a `while`'s condition that it still runs, at each cut (a `for`'s is true);
        `marks`: the count of checks at each cut (`checks_mark`), to tag them (`check_cuts`)."""
        self._after = None
        if len(run) > 2 and sum(map(len, self.cuts)) + len(run) <= MAX_CUT_STATES:
            r = len(self.cuts)
            self.cuts.append(tuple(run))
            self.cut_guards.append(and_all(self.enc.path))
            self.cut_flags.append(tuple(flags or [TRUE] * len(run)))
            self.cut_loops.append(st)
            checks = self.enc.obligations
            for k, (a, b) in enumerate(zip(marks or [], (marks or [])[1:])):
                for o in checks[a:b]:
                    self.check_cuts.setdefault(id(o), (o, r, k))
            self._after = (r, len(run) - 1, len(checks))

    def checks_mark(self) -> int:
        """The count of checks so far, where a loop's iteration starts or ends: the checks
        since the last loop's end are tagged with its last cut (`check_cuts`)."""
        self.close_after()
        return len(self.enc.obligations)

    def close_after(self, extra: list = ()) -> None:
        """Tag the checks raised since the last kept loop's end (and `extra`) with its last cut."""
        if self._after is not None:
            r, k, a = self._after
            for o in [*self.enc.obligations[a:], *extra]:
                self.check_cuts.setdefault(id(o), (o, r, k))
            self._after = None

    def s_While(self, st) -> None:
        """Unrolled: each iteration guarded by the loop still running. A concrete loop runs to its
        end; once the condition is symbolic, at most WHILE_BOUND iterations, then an obligation."""
        running = TRUE
        self.measure_enter(st)
        run = [dict(self.fr.vars)]  # cut states, as for a `for` (an iteration that does not run keeps them)
        # the next iteration runs where every condition so far held: a term over all of them, which
        # the induction reads as a fresh flag when it asks one iteration from its cut alone
        flags = [TRUE]
        marks = [self.checks_mark()]
        steps = self.between_iterations is not None and self.between_iterations[0] is st
        for k in range(CONCRETE_LOOP_LIMIT):
            if steps and 0 < k < WHILE_BOUND:  # (at the bound the loop stops: no iteration to read)
                # each iteration from its own start (`loop_steps_alone`): what the ones before
                # wrote read as fresh values, and the loop taken as still running. Sound for what
                # is asked of a step (that it keeps a formula): where the loop had stopped, the
                # step changes nothing, and where it runs, its condition holds at that start
                self.fr.vars = self.between_iterations[1](self.fr.vars)
                running = TRUE
            start = dict(self.fr.vars)
            with self.guarded(running):
                c = self.expr(st.cond)
            g = and_(running, c)
            if is_false(g):
                break
            if k >= WHILE_BOUND and not is_true(g):
                self.require(not_(g), st, f"the loop stops within {WHILE_BOUND} iterations", "bound")
                break
            saved = self.fr
            body = ([MeasureCheck(st)] if st.decreases is not None else []) + list(st.body.stmts)
            self.fr = merge(g, self.branch(g, body), saved)
            run.append(dict(self.fr.vars))
            flags.append(g)
            marks.append(self.checks_mark())
            running = g
            if steps:
                self.iteration_steps.append((start, run[-1]))
                self.iteration_checks.append(self.enc.obligations[marks[-2]:marks[-1]])
        else:
            raise NotEncoded(f"{st.span}: a while loop ran {CONCRETE_LOOP_LIMIT} times")
        self.keep_cuts(st, run, flags, marks)
        if st.decreases is not None and self.flow and id(st) in self._measure_keys:
            self.measure_enter(st)  # codegen resets s.M_k when the loop is left

    def s_MeasureCheck(self, st) -> None:
        self.measure_check(st.loop)

    def s_MeasureReset(self, st) -> None:
        self.measure_enter(st.loop)

    def s_Say(self, st) -> None:
        pass  # display only

    def s_End(self, st) -> None:
        raise NotEncoded(f"{st.span}: `end` outside the flow walk")

    def s_CollectionEdit(self, st) -> None:
        ct = self.T(st.target)
        if st.op == "append":
            x = self.value(st.item)

            def app(q):
                q = conform(q, ct, self.n)
                self.require(lift(operator.lt, q.length, num(ct.cap)), st, f"the sequence has room ({ct.cap} items)")
                items = tuple(ite_val(eq_leaf(q.length, num(i)), x, y) for i, y in enumerate(q.items))
                return SeqVal(lift(operator.add, q.length, num(1)), items)
            self.update(st.target, app)
            return
        x = self.value(st.item)
        if isinstance(ct, SetT):
            size = dom_size(ct.elem, self.n)
            pos = dom_pos(ct.elem, x)
            hit = [eq_leaf(pos, num(i)) for i in range(size)]
            if st.op == "add":
                if not self.enc.fits(self.T(st.item), ct.elem):
                    lo, hi = int_range(ct.elem, self.n)
                    self.require(and_(lift(operator.le, num(lo), x), lift(operator.le, x, num(hi))), st.item,
                                 f"the item is a value of {ct.elem}")
                def put(s):
                    s = conform(s, ct, self.n)
                    fresh = and_(or_all(hit), not_(or_all(and_(b, h) for b, h in zip(s, hit))))
                    return sized((or_(b, h) for b, h in zip(s, hit)), lift(operator.add, set_size(s), bool_int(fresh)))
                self.update(st.target, put)
                return

            def rm(s):
                s = conform(s, ct, self.n)
                there = or_all(and_(b, h) for b, h in zip(s, hit))
                self.require(there, st, "the item to remove is in the set")
                return sized((and_(b, not_(h)) for b, h in zip(s, hit)), lift(operator.sub, set_size(s), bool_int(there)))
            self.update(st.target, rm)
            return
        self.update(st.target, lambda q: seq_remove_first(self, st, q, x))


def seq_remove_first(ex: Exec, st, q: SeqVal, x) -> SeqVal:
    """Python's list.remove: the first occurrence goes, later items shift left."""
    hits = [and_(lift(operator.lt, num(i), q.length), eq_val(item, x)) for i, item in enumerate(q.items)]
    ex.require(or_all(hits), st, "the item to remove is in the sequence")
    found = or_all(hits)
    gone = FALSE  # the removed slot is at or before i
    items = []
    for i, item in enumerate(q.items):
        gone = or_(gone, hits[i])
        nxt = q.items[i + 1] if i + 1 < len(q.items) else item
        items.append(ite_val(gone, nxt, item))
    return SeqVal(ite(found, lift(operator.sub, q.length, num(1)), q.length), tuple(items))


SET_EDITS = {"+=": lambda a, b: SetVal(or_(x, y) for x, y in zip(*_same(a, b))),
             "-=": lambda a, b: SetVal(and_(x, not_(y)) for x, y in zip(*_same(a, b)))}
INT_EDITS = {"+=": operator.add, "-=": operator.sub}


def _same(a: SetVal, b: SetVal):
    size = max(len(a), len(b))
    return (tuple(a) + (FALSE,) * (size - len(a)), tuple(b) + (FALSE,) * (size - len(b)))


# ====================================================================== the flow walk

def applicable_utility(program: Program, n: int, options: dict) -> N.UtilityDecl | None:
    """The first `utility` declaration whose `when` holds with n players and these options (the
    engine's `_utility_of`); None: none applies (general_sum). The conditions read options and
    num_players only, which are concrete here, so each is decided."""
    for d in program.utilities:
        if d.when is None:
            return d
        holds = z3.simplify(Encoder(program, n, options, {}).expr(d.when))
        if is_true(holds):
            return d
        if not is_false(holds):
            raise NotEncoded(f"{d.span}: the utility's condition is not decided by the options")
    return None


def outcome_checks(program: Program, n: int, options: dict, state: StateVars, ended) -> list:
    """The engine's outcome on `state` where `ended` (pc = -1): every player's score and
    tiebreaks, the winners, the returns (`_score`, `_winners`, `_returns`), and the returns
    against the `utility` declaration that applies to the game as loaded (`_check_utility`). A
    rule error in any of them is a rule error of the game: their run-time checks, and the
    utility's, as obligations guarded by `ended`."""
    enc = Encoder(program, n, options, state)
    with enc._guard(ended):
        enc.winners()  # every score and tiebreak, and the `wins` condition
        returns = [real(enc.returns(num(p))) for p in range(n)]
    out = list(enc.obligations)
    u = applicable_utility(program, n, options)
    if u is None or u.kind == "general_sum":
        return out
    if u.kind == "identical":
        holds = and_all(eq_leaf(returns[0], r) for r in returns[1:])
    else:
        holds = eq_leaf(real(total(returns)), real(num(0 if u.kind == "zero_sum" else u.total)))
    sentence = f"the returns satisfy `utility {u.kind}{'' if u.total is None else f' {u.total}'}`"
    return out + [Obligation(or_(not_(ended), holds), u.span, sentence, "error")]


class FlowWalk(Exec):
    """Runs the flow from a decision point's continuation to the next decision point or the end.

    The rest of the flow is a stack of tasks — ("stmts", block, i): run a block from statement
    i; ("if", st, k): test an `if`'s branches from the k-th; ("loop", st): a loop head — so a
    symbolic condition of a statement around a decision point *forks* the walk: each side runs
    on to its own decision point (or the end) under its guard, and the two final frames are
    merged (pc and cur included). Statements without decision points are executed by `Exec`.
    """

    MAX_FORKS = 256      # forks of one walk (a symbolic loop around a decision point unrolls this far)
    MAX_TASKS = 200_000  # tasks of one walk (a literal loop that never reaches a decision point)
    JOIN_IFS = True      # the sides of an `if` meet at its end (False: each runs on to its own stop)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.forks = 0
        self.max_forks = _FORK_LIMIT[0] if _FORK_LIMIT[0] is not None else self.MAX_FORKS
        self.tasks = 0
        self.on_its_own = False  # walking what follows an `if` on one side's frame (`_fork`)

    def step(self, options: dict) -> "Step":
        """The walk's final frame as a successor."""
        fr = self.fr
        out = StateVars(self.p, self.n, options, None,
                        values={"vars": fr.vars, "locals": fr.locals, "pc": fr.pc, "cur": fr.cur})
        final = self.outcome_obligations(out, options)
        self.close_after(final)  # the outcome reads the state the last loop left
        return Step(out, fr.snaps, list(self.enc.obligations),
                    tuple(self.cuts), tuple(self.cut_guards), tuple(self.cut_flags), dict(self.check_cuts), final,
                    tuple(self.cut_loops))

    def outcome_obligations(self, out: StateVars, options: dict) -> list:
        """Where the flow ends, the engine computes the outcome on the final state (`outcome_checks`)."""
        ended = eq_leaf(self.fr.pc, num(-1))
        if is_false(ended):
            return []
        return outcome_checks(self.p, self.n, options, out, ended)

    def walks(self, st) -> bool:
        """Followed by the walk rather than executed: it holds a decision point, or is an `if`
        holding an `end` (which stops the flow: a fork, not a merge)."""
        if isinstance(st, (MeasureCheck, MeasureReset)):
            return False
        return has_decision(st) or (isinstance(st, N.If) and any(isinstance(x, N.End) for x in walk(st)))

    def s_End(self, st) -> None:  # an `end` inside decision-free flow code (a loop's body)
        if self.enc.path and not is_true(and_all(self.enc.path)):
            raise NotEncoded(f"{st.span}: `end` inside a loop under a symbolic condition")
        self.fr.pc = num(-1)
        raise Stop

    def walk(self, stack: list) -> None:
        """Run tasks until every path has stopped at a decision point or the end; the frame is then
        final (the stopped frames merged by the conditions of the forks that separated them)."""
        live, stopped = self._walk(stack, 0)
        if live is not None and stopped is not None:  # some paths ran off the end of the flow
            self.fr = merge(live, self.fr, stopped)
        elif live is None:
            self.fr = stopped

    def _fork(self, c, yes: list, no: list, join: int, base: int, rest: list, enter=None) -> tuple:
        """Each side of a symbolic condition walked until its stack is back to `join` items (the
        `if`'s end; `rest` is the stack there). When both sides get there, what follows runs
        on each side's frame on its own (to `base`, the enclosing walk's join), unless it meets
        another such fork: then it runs once, on the two frames merged. On its own, its terms
        have no merge inside, which the interval analysis reads faster; but a round of a card
        game forking at every turn would run the rest of the round 2^turns times.
        As `_walk`: (the condition under which the frame in `self.fr` got to where the walk
        stands, or None; the frame of the paths that stopped, or None), then the condition of
        those (all relative to here), and where the walk stands (`join` or `base`)."""
        self.forks += 1
        if self.forks > self.max_forks:
            raise NotEncoded(f"the flow walk forked {self.max_forks} times before reaching decision points")
        saved = self.fr
        sides = []
        for g, stack in ((c, yes), (not_(c), no)):
            self.fr = saved.copy()
            with self.guarded(g):
                if enter is not None and g is c:
                    enter()
                live, stopped = self._walk(stack, join)
            sides.append([live, self.fr, stopped])
        at = join
        if join > base and all(side[0] is not None for side in sides):
            if self.on_its_own:
                raise _Multiply
            enc, mark = self.enc, (len(self.enc.obligations), set(self.enc._seen), self.forks, self.tasks)
            self.on_its_own = True
            try:
                sides = [self._go_on(g, *side, list(rest), base) for g, side in zip((c, not_(c)), sides)]
                at = base
            except _Multiply:  # run it once, merged
                del enc.obligations[mark[0]:]
                enc._seen, self.forks, self.tasks = mark[1], mark[2], mark[3]
            finally:
                self.on_its_own = False
        (ly, fy, sy), (ln, fn, sn) = sides
        if ly is not None and ln is not None:
            self.fr = merge(c, fy, fn)
        elif ly is not None or ln is not None:
            self.fr = fy if ly is not None else fn
        live = None
        if ly is not None or ln is not None:
            live = or_(and_(c, FALSE if ly is None else ly), and_(not_(c), FALSE if ln is None else ln))
        if sy is not None and sn is not None:
            stopped = merge(c, sy, sn)
        else:
            stopped = sy if sy is not None else sn
        return live, stopped, or_(and_(c, self._stops(ly, sy)), and_(not_(c), self._stops(ln, sn))), at

    def _go_on(self, g, live, frame, stopped, stack: list, base: int) -> list:
        """A side of a fork (its condition `g`; live under `live` with `frame` at the join, its
        stopped paths' frame `stopped`) walked on from the join to `base` on its own."""
        self.fr = frame.copy()  # the walk writes into its frame: `frame` is kept, should this be undone
        with self.guarded(g), self.guarded(live):
            more_live, more_stopped = self._walk(stack, base)
        if more_stopped is not None:
            if stopped is None:
                stopped = more_stopped
            else:
                stopped = merge(self._stops(live, stopped), stopped, more_stopped)
        return [None if more_live is None else and_(live, more_live), self.fr, stopped]

    @staticmethod
    def _stops(live, stopped):
        """The condition of a side's stopped paths (relative to the side): what is not live."""
        return FALSE if stopped is None else TRUE if live is None else not_(live)

    def _walk(self, stack: list, base: int) -> tuple:
        """Run tasks until the stack is back to `base` items (the join of a fork) or every path
        has stopped at a decision point or the end: (the condition under which the frame in
        `self.fr` got to the join, None if none did; the frame of the paths that stopped, None
        if none did), relative to the walk's start."""
        extra: list = []  # the conditions of going on past each fork some paths stopped at
        chain: list = []  # (condition, frame) of those stops, each relative to the forks before it
        path = self.enc.path

        def stopped():
            if not chain:
                return None
            fr = chain[-1][1]
            for cond, f in reversed(chain[:-1]):
                fr = merge(cond, f, fr)
            return fr

        try:
            while len(stack) > base:
                self.tasks += 1
                if self.tasks > self.MAX_TASKS:
                    raise NotEncoded(f"the flow ran {self.MAX_TASKS} steps without reaching a decision point")
                task = stack.pop()
                kind = task[0]
                if kind == "stmts":
                    _, stmts, i = task
                    if i >= len(stmts):
                        continue
                    st = stmts[i]
                    stack.append(("stmts", stmts, i + 1))
                    if isinstance(st, N.End):
                        self.fr.pc = num(-1)
                        chain.append((TRUE, self.fr))
                        return None, stopped()
                    if not self.walks(st):
                        self.stmt(st)
                        continue
                    if isinstance(st, (N.Choose, N.Simultaneous, N.Chance)):
                        self.decision(st)
                        chain.append((TRUE, self.fr))
                        return None, stopped()
                    if isinstance(st, N.If):
                        stack.append(("if", st, 0))
                    elif isinstance(st, N.While):
                        self.measure_enter(st)
                        stack.append(("loop", st))
                    elif isinstance(st, N.For):
                        self.snapshot(st)
                        stack.append(("loop", st))
                    else:
                        raise NotImplementedError(f"decision inside {type(st).__name__}")
                    continue
                if kind == "if":
                    _, st, k = task
                    if k < len(st.branches):
                        cond, body = st.branches[k]
                        c = self.expr(cond)
                        yes, no = stack + [("stmts", body.stmts, 0)], stack + [("if", st, k + 1)]
                        if is_true(c) or is_false(c):
                            stack[:] = yes if is_true(c) else no
                            continue
                        join = len(stack) if self.JOIN_IFS else base  # the `if`'s end: what follows it
                        live, fork_stopped, stop, at = self._fork(c, yes, no, join, base, stack)
                        del stack[at:]
                    elif st.orelse is not None:
                        stack.append(("stmts", st.orelse.stmts, 0))
                        continue
                    else:
                        continue
                else:
                    st = task[1]
                    enter = None
                    if isinstance(st, N.While):
                        c = self.expr(st.cond)
                        yes = stack + [task, ("stmts", st.body.stmts, 0)]
                        no = list(stack)
                        if st.decreases is not None:
                            yes.append(("stmts", (MeasureCheck(st),), 0))
                            no.append(("stmts", (MeasureReset(st),), 0))
                    else:
                        key = self._snap_keys[id(st)][0]
                        items, j = self.fr.snaps[key]
                        c = lift(operator.lt, j, items.length)
                        yes, no = stack + [task, ("stmts", st.body.stmts, 0)], list(stack)
                        if is_true(c):
                            self.next_item(st, key)
                        elif not is_false(c):
                            enter = lambda st=st, key=key: self.next_item(st, key)  # noqa: E731
                    if is_true(c) or is_false(c):
                        stack[:] = yes if is_true(c) else no
                        continue
                    # a loop's two sides (another iteration, or out) meet only at this walk's join
                    live, fork_stopped, stop, _ = self._fork(c, yes, no, base, base, stack, enter)
                    del stack[base:]
                if fork_stopped is not None:
                    chain.append((stop, fork_stopped))
                if live is None:
                    return None, stopped()
                if not is_true(live):
                    extra.append(live)
                    path.append(live)
            return and_all(extra), stopped()
        except Stop:
            chain.append((TRUE, self.fr))
            return None, stopped()
        finally:
            for _ in extra:
                path.pop()

    def next_item(self, st, key) -> None:
        items, j = self.fr.snaps[key]
        self.fr.locals[st.var] = select(items.items, j, default_value(self.T(st.source).elem, self.n))
        self.fr.snaps[key] = (items, lift(operator.add, j, num(1)))

    def decision(self, st) -> None:
        info = self.p.decision_of(st)
        self.fr.pc = num(info.index)
        if isinstance(st, N.Choose):
            who = self.expr(st.player)
            if not isinstance(self.T(st.player), PlayerT):  # codegen: L.check_range(who, 0, s.n - 1)
                self.require(and_(lift(operator.le, num(0), who), lift(operator.lt, who, num(self.n))),
                             st.player, "the chooser is a player")
            self.fr.cur = who
        else:
            self.fr.cur = num(-2 if isinstance(st, N.Simultaneous) else -1)

    def snapshot(self, st) -> None:
        """The engine's `I_ = list(source)`, `J_ = 0`: the items the collection holds, packed to the
        front (a set's members or a sequence's first `length` items, in order)."""
        key = self._snap_keys[id(st)][0]
        self.fr.snaps[key] = (packed(self.sync().members(st.source), self.T(st.source).elem, self.n), num(0))

    def resume(self, decision: int) -> None:
        """Everything after decision point `decision`: the rest of each enclosing block, innermost
        last on the stack, with the enclosing loops' heads between them; then the end of the flow."""
        frames = decision_paths(self.p)[decision]
        stack: list = []
        for k, (stmts, i) in enumerate(frames):
            if k > 0:
                outer_stmts, j = frames[k - 1]
                container = outer_stmts[j]
                if isinstance(container, (N.While, N.For)):
                    stack.append(("loop", container))
            stack.append(("stmts", stmts, i + 1))
        self.fr.pc = num(-1)  # if the walk runs off the end of the flow
        self.walk(stack)


@dataclass
class Step:
    """A move's successor: the state after it, the loop snapshots, and what the engine needs to run it."""

    state: StateVars
    snapshots: dict
    obligations: list
    # per run of a loop (`for`, `while`) without decision points on the way: the `var`s before it and after each
    # iteration ({name: value}), in the order the runs happened; and for each, the condition of the
    # `if`s around it (within the move: not the flow's way to it)
    cuts: tuple = ()
    cut_guards: tuple = ()
    cut_flags: tuple = ()  # per run, at each cut: the `while` still runs (true for a `for`)
    # id(obligation) -> (it, run, cut): the check reads the state at that cut (`Exec.check_cuts`)
    check_cuts: dict = field(default_factory=dict)
    # the checks of the outcome computed where the flow ends (`FlowWalk.outcome_obligations`):
    # checked with the others, but never assumed by the proofs of what follows the move (nothing
    # follows the end, and thousands of them in a rich scoring would only slow every query)
    outcome_checks: list = field(default_factory=list)
    cut_loops: tuple = ()  # per run: its loop statement

    @property
    def checks(self) -> list:
        """Every run-time check of the move: what `well_formed` asks."""
        return self.obligations + self.outcome_checks


def successor(program: Program, n: int, options: dict, state: StateVars, decision: int, move, params: dict,
              snapshots: dict | None = None, player=None) -> Step:
    """Apply `move` (a MoveInfo or its index) with parameter values `params` (name -> Z3 value) at
    decision point `decision`, then run the flow to the next decision point (any kind) or the end.

    `snapshots` are the loop snapshots ({key: (SeqVal, J)}, see `snapshots_of`); `player` is the
    mover (bound to a simultaneous node's player variable; default `state.cur`)."""
    return joint_successor(program, n, options, state, decision, [(move, params, player)], snapshots)


def joint_successor(program: Program, n: int, options: dict, state: StateVars, decision: int, moves: list,
                    snapshots: dict | None = None) -> Step:
    """Several moves at one decision point — a simultaneous node's secret choices, which take effect
    in seat order: `moves` is [(move, params, player), ...] in that order — then the flow."""
    fr = Frame(dict(state.vars), dict(state.locals), {}, state.pc, state.cur, dict(snapshots or {}))
    walker = FlowWalk(program, n, options, fr)
    for move, params, player in moves:
        mi = program.moves[move] if isinstance(move, int) else move
        if mi.decision != decision:
            raise ValueError(f"move {mi.move.name} is not a move of decision point {decision}")
        walker.fr.py = {p.name: params[p.name] for p in mi.move.params}
        if mi.player_var:
            walker.fr.py[mi.player_var] = player if player is not None else state.cur
        walker.block(mi.move.body.stmts)
    walker.fr.py = {}
    walker.flow = True
    walker.resume(decision)
    return walker.step(options)


def loop_alone(program: Program, n: int, options: dict, state: StateVars, snapshots: dict, st) -> list | None:
    """The decision-free loop `st` (a flow `for` or `while`) run on its own from `state`: its `var`s
    before it and after each iteration ({name: value}, as a run of `Step.cuts`), or None where
    it cannot be run so (it reads a move's parameter, stops the flow, or is not kept as a run).
    A loop on the way of many moves is then one term over the state it starts from, whichever
    move led there (`System.loop_alone`)."""
    fr = Frame(dict(state.vars), dict(state.locals), {}, state.pc, state.cur, dict(snapshots))
    ex = Exec(program, n, options, fr)
    ex.flow = True
    try:
        ex.stmt(st)
    except (KeyError, ValueError, NotEncoded, NotImplementedError, z3.Z3Exception):
        # (a name the loop's frame lacks, a shape the symbolic start cannot merge: the moves
        # then ask the loop's iterations from their own starts, as they can)
        return None
    if not ex.cut_loops or ex.cut_loops[-1] is not st:
        return None
    return list(ex.cuts[-1])


def loop_steps_alone(program: Program, n: int, options: dict, state: StateVars, snapshots: dict, st,
                     between, checks: list | None = None) -> list | None:
    """The decision-free `for` loop `st` run on its own from `state` as `loop_alone` runs it,
    but each iteration after the first from the `var`s `between` gives for those the iterations
    before left ({name: value} -> {name: value}; the items and their membership tests are still
    read where the loop starts, as the engine's `list(source)` is): [(the `var`s where each
    iteration starts, where it ends)], or None where it cannot be run so. An iteration's step
    is then a term of one iteration's size, not of every iteration's before it. `checks`, if
    given, receives per iteration the run-time checks raised in it (their terms as small)."""
    if not isinstance(st, (N.For, N.While)):
        return None
    fr = Frame(dict(state.vars), dict(state.locals), {}, state.pc, state.cur, dict(snapshots))
    ex = Exec(program, n, options, fr)
    ex.flow = True
    ex.between_iterations = (st, between)
    try:
        ex.stmt(st)
    except (KeyError, ValueError, NotEncoded, NotImplementedError, z3.Z3Exception):
        return None  # (as `loop_alone`)
    if not ex.cut_loops or ex.cut_loops[-1] is not st:
        return None
    if checks is not None:
        checks.extend(ex.iteration_checks)
    return list(ex.iteration_steps)


# ====================================================================== the relation's other parts

def initial_vars(program: Program, n: int, options: dict) -> dict:
    """The `var`s before the flow starts (codegen's `init_code`): declared initial values, a
    scalar filling an array, a type's first value when none is given."""
    enc = Encoder(program, n, options, {})

    def value(t: Type, init, init_t):
        if isinstance(t, ArrayT):
            if init is not None and init_t is not None and enc.fits(init_t, t):
                return conform(enc.expr(init), t, n)
            return tuple(value(t.elem, init, init_t) for _ in range(dom_size(t.index, n)))
        if init is None:
            return default_value(t, n)
        return conform(enc.expr(init), t, n)

    out = {}
    for name, d in program.vars.items():
        init_t = program.types.get(id(d.init)) if d.init is not None else None
        out[name] = value(program.var_types[name], d.init, init_t)
    if enc.obligations:
        raise NotEncoded(f"{enc.obligations[0].span}: an initial value may fail ({enc.obligations[0].sentence})")
    return out


def empty_snapshots(program: Program, n: int) -> dict:
    """The engine's `I_ = []`, `J_ = 0` of a new state, shaped like `fresh_snapshots`."""
    out = {}
    for key, st in snapshot_keys(program).values():
        t = program.type_of(st.source)
        cap = t.cap if isinstance(t, SeqT) else dom_size(t.elem if isinstance(t, SetT) else t.index, n)
        out[key] = (SeqVal(num(0), tuple(default_value(t.elem, n) for _ in range(cap))), num(0))
    for k in range(len(program.measures)):
        out[f"M_{k}"] = num(-1)
    return out


def initial(program: Program, n: int, options: dict) -> Step:
    """The state at the first decision point (or the end): the flow run from its start on the
    initial `var`s. It is concrete: chance happens at decision points, which are transitions."""
    locals_ = {name: default_value(t, n) for name, t in program.flow_locals.items()}
    fr = Frame(initial_vars(program, n, options), locals_, {}, num(-1), num(-1), empty_snapshots(program, n))
    walker = FlowWalk(program, n, options, fr)
    walker.flow = True
    if program.flow is not None:
        walker.walk([("stmts", program.flow.body.stmts, 0)])
    return walker.step(options)


def chance_successor(program: Program, n: int, options: dict, state: StateVars, decision: int, outcome,
                     snapshots: dict | None = None) -> Step:
    """The chance node `decision` draws `outcome` (codegen's `_draw<D>`: the node's variable, a
    flow local, takes it), then the flow runs to the next decision point or the end."""
    node = program.decisions[decision].node
    if not isinstance(node, N.Chance):
        raise ValueError(f"decision point {decision} is not a chance node")
    fr = Frame(dict(state.vars), dict(state.locals), {}, state.pc, state.cur, dict(snapshots or {}))
    fr.locals[node.var] = outcome
    walker = FlowWalk(program, n, options, fr)
    walker.flow = True
    walker.resume(decision)
    return walker.step(options)


def _state_encoder(program: Program, n: int, options: dict, state: StateVars, scope_: dict) -> Encoder:
    enc = Encoder(program, n, options, state)
    enc.scopes = [dict(scope_)]
    return enc


def _member(enc: Encoder, source, x):
    """x is one of the items collection `source` holds."""
    return or_all(and_(g, eq_val(item, x)) for g, item in enc.members(source))


def chance_draw(program: Program, n: int, options: dict, state: StateVars, decision: int, outcome):
    """(outcome is among the node's outcomes, obligations): the engine raises when there are none."""
    node = program.decisions[decision].node
    enc = _state_encoder(program, n, options, state, {})
    ok = _member(enc, node.source, outcome)
    rows = enc.members(node.source)
    enc.require(or_all(g for g, _ in rows), node.source, "a chance node has something to draw from")
    if node.weight is not None:  # an outcome is possible when its weight is positive
        positive = []
        for g, item in rows:
            with enc._guard(g), enc._bind(node.var, item):
                w = enc.expr(node.weight)
                enc.require(lift(operator.ge, *same_sort(w, num(0))), node.weight, "a chance weight is not below 0")
            positive.append(and_(g, lift(operator.gt, *same_sort(w, num(0)))))
        enc.require(or_all(positive), node.weight, "some outcome of the chance node has a positive weight")
        with enc._bind(node.var, outcome):
            ok = and_(ok, lift(operator.gt, *same_sort(enc.expr(node.weight), num(0))))
    return ok, list(enc.obligations)


def legal(program: Program, n: int, options: dict, state: StateVars, move, params: dict, player) -> tuple:
    """(the move is legal for `player` with parameter values `params`, obligations): each
    parameter within its domain and, if it has a source, one of the source's items (later
    sources may read earlier parameters), and every `require` holds. Not included: that the
    state is at the move's decision point with `player` to move (the caller's `pc`/`cur`)."""
    mi = program.moves[move] if isinstance(move, int) else move
    scope_ = {mi.player_var: player} if mi.player_var else {}
    enc = _state_encoder(program, n, options, state, scope_)
    parts = []
    for p, t in zip(mi.move.params, mi.param_types):
        x = params[p.name]
        parts += range_constraints(x, t, n)
        if p.source is not None:
            # the engine evaluates a source only for earlier parameters drawn from theirs: its
            # checks rest on them (`y in partners(x)` reads x as one of x's items, never -1)
            with enc._guard(and_all(parts)):
                parts.append(_member(enc, p.source, x))
        enc.scopes[-1][p.name] = x
    for r in mi.move.requires:
        with enc._guard(and_all(parts)):
            parts.append(enc.expr(r.cond))
    return and_all(parts), list(enc.obligations)


def fresh_params(program: Program, move, n: int, tag: str) -> dict:
    """Free parameter values `<move>.<param>@tag`."""
    mi = program.moves[move] if isinstance(move, int) else move
    return {p.name: fresh(t, at_step(f"{mi.move.name}.{p.name}", tag), n) for p, t in zip(mi.move.params, mi.param_types)}
