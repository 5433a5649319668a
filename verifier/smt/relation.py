"""The transition relation T(s, a, s') of one game (one player count, one option setting), over a
free state `s` (step 0): one *alternative* per decision point and move kind (or chance draw, or
combination of move kinds at a simultaneous node), with symbolic parameters, its legality guard,
the successor state and the obligations the engine needs to run it.

Also owns the *frame facts* every induction starts from: the declared ranges of state values and
loop snapshots, `pc` a decision point or the end, `cur` the mover the decision point implies, and
per decision point the facts about the `for` loops around it (the loop variable is the snapshot's
current item; a loop over a collection that does not depend on the state holds exactly its
items). These are *candidates* proved by the same induction as the spec's invariants
(`prove.py`), never assumed.
"""
from __future__ import annotations

import itertools
import operator
import time
from dataclasses import dataclass

from ..frontend.typecheck import Program, walk
from ..ir import nodes as N
from .encode import (CTX, TRUE, Encoder, NotEncoded, OutOfTime, SeqVal, encoding_deadline, to_python, z3, StateVars, and_, and_all, eq_leaf, eq_val, implies, int_range, is_false, is_lit, is_num, is_true, lift,
                     names_read, num, or_all, range_constraints, same, select)
from .transition import (Step, chance_draw, chance_successor, decision_paths, fork_limit, fresh, fresh_params,
                         fresh_snapshots, joint_successor, legal, packed, snapshot_keys, successor)

__all__ = ["Alternative", "Relation", "Candidate", "SuccessorPath", "at_pc", "successor_cases", "successor_paths"]

MAX_JOINT = 64  # combinations of move kinds at a simultaneous node encoded one by one
MAX_CASES = 256  # cases of loop positions at one decision point
MAX_SPLIT = 256  # values of a choice asked one by one when the solver cannot settle it at once
# forks a walk may make in the first build of a decision point inside loops whose positions can be
# split into cases: past it, the build starts again split. On the bundled specs a walk that
# succeeds without the split forks at most 19 times; one that fails forks to the walk's own limit
# (256), up to 3 s a decision point on a seed game (`benchmarks/encode_time.py`)
UNSPLIT_FORKS = 32
# the positions of the loops around a decision point split innermost first, one loop more at each
# build that fails, rather than all at once: a loop whose position the walk never reads (a round's,
# read by a move only at the round's end) then multiplies no alternatives (False: none, then all)
SPLIT_INNERMOST_FIRST = True


@dataclass
class Alternative:
    decision: int
    label: str  # e.g. "P? take", "chance card", "simultaneous reveal, reveal"
    guard: object  # legality at s (parameters in their domains and sources, requirements)
    params: dict  # name -> Z3 value, for reading models
    step: Step  # s' and the successor's obligations
    pre: list  # obligations of evaluating legality at s
    pin: object = None  # the case of s this alternative covers (the mover's seat), None: all
    split: tuple = ()  # ((Z3 leaf, lo, hi), ...): choices worth asking about value by value
    source: tuple | None = None  # (state, snapshots): s in this alternative's case (pinned values)


def _split_leaves(values: list, types: list, n: int) -> tuple:
    """The int-like choices (a chance outcome, move parameters) with at most MAX_SPLIT
    combinations of values, as ((leaf, lo, hi), ...). Asked one value at a time, the solver sees a concrete index
    where it would otherwise reason about a symbolic one — e.g. that removing the drawn card
    from a set makes its size one less, which it cannot settle for a symbolic card within
    minutes and settles in milliseconds per card."""
    out, cases = [], 1
    for v, t in zip(values, types):
        if isinstance(v, tuple) or not is_int_leaf(v):
            continue
        lo, hi = int_range(t, n)
        if cases * (hi - lo + 1) <= MAX_SPLIT:  # all of them together: at most MAX_SPLIT cases
            out.append((v, lo, hi))
            cases *= hi - lo + 1
    return tuple(out)


@dataclass
class Candidate:
    """A formula over one state proved by induction: a spec invariant or a frame fact."""

    name: str
    sentence: str
    node: object  # InvariantDecl, or None for frame facts
    at: callable  # StateVars, snapshots -> Z3 Bool
    decision: int | None = None  # the decision point a guess is about ("at d, ..."), where it is one


# guesses that a flow `let` before a decision point still has its definition's value there
# (`Relation._let_fact`)
LET_FACTS = True


class Relation:
    def __init__(self, program: Program, n: int, options: dict):
        self.p, self.n, self.options = program, n, dict(options)
        self.state = StateVars(program, n, options, 0)
        self.snaps = fresh_snapshots(program, n, 0)
        self._alts: dict[int, list] = {}
        self._positions: dict[int, list] = {}  # `loop_positions`, per decision point
        self.deadline: float | None = None  # perf_counter time after which building raises OutOfTime
        self._keys = snapshot_keys(program)

    # ------------------------------------------------------------ alternatives
    def alternatives(self, d: int) -> list[Alternative]:
        """The alternatives at decision point d. A walk that forks past its limit (a loop
        position left free lets the walk unroll a loop around the decision without end) is
        retried with the positions of the enclosing `for` loops split into cases, the innermost
        loop's first."""
        if d not in self._alts:
            # the deadline is looked at between cases (`_tick`) and, while a move's terms are
            # built, by the encoders themselves: one move can unfold past any budget
            line = self.p.decisions[d].node.span.line
            with encoding_deadline(self.deadline, f"out of time while encoding the decision point at line {line}"):
                loops = len(self._static_loops(d))
                # how many of the innermost loops' positions each build splits: none, then (with
                # SPLIT_INNERMOST_FIRST) one loop more at a time, then all of them. A walk that
                # would fork past UNSPLIT_FORKS is given up early where a split is still there to
                # fall back on.
                tries = list(range(loops + 1)) if SPLIT_INNERMOST_FIRST else sorted({0, loops})
                for k, split in enumerate(tries):
                    try:
                        with fork_limit(UNSPLIT_FORKS if k < len(tries) - 1 else None):
                            self._alts[d] = self._build(d, split)
                        break
                    except NotEncoded:
                        if k == len(tries) - 1:
                            raise
        return self._alts[d]

    def _build(self, d: int, split: int) -> list[Alternative]:
        p, n, o = self.p, self.n, self.options
        info = p.decisions[d]
        node = info.node
        out = []
        for label, s, snaps, held in self._cases(d, split):
            self._tick(node)
            if isinstance(node, N.Chance):
                t = p.type_of(node.source).elem
                x = fresh(t, f"{node.var}@draw{d}", n)
                ok, pre = chance_draw(p, n, o, s, d, x)
                step = chance_successor(p, n, o, s, d, x, snaps)
                out.append(Alternative(d, f"chance {node.var}{label}", and_all([ok] + range_constraints(x, t, n)),
                                       {node.var: x}, step, pre, held, _split_leaves([x], [t], n), (s, snaps)))
            elif isinstance(node, N.Choose):
                for mi in info.moves:
                    self._tick(node)
                    params = fresh_params(p, mi, n, f"m{d}")
                    ok, pre = legal(p, n, o, s, mi, params, s.cur)
                    step = successor(p, n, o, s, d, mi, params, snaps)
                    out.append(Alternative(d, mi.move.name + label, ok, params, step, pre, held,
                                           _split_leaves([params[q.name] for q in mi.move.params], mi.param_types, n),
                                           (s, snaps)))
            else:  # simultaneous: every combination of move kinds, in seat order
                combos = list(itertools.product(info.moves, repeat=n))
                if len(combos) > MAX_JOINT:
                    raise NotEncoded(f"{len(combos)} combinations of moves at a simultaneous node")
                for combo in combos:
                    guards, pre, moves, params = [], [], [], {}
                    for seat, mi in enumerate(combo):
                        ps = fresh_params(p, mi, n, f"m{d}p{seat}")
                        ok, obl = legal(p, n, o, s, mi, ps, num(seat))
                        guards.append(ok)
                        pre += obl
                        moves.append((mi, ps, num(seat)))
                        params.update({f"P{seat}.{k}": v for k, v in ps.items()})
                    step = joint_successor(p, n, o, s, d, moves, snaps)
                    out.append(Alternative(d, ", ".join(mi.move.name for mi in combo) + label, and_all(guards),
                                           params, step, pre, held, (), (s, snaps)))
        return out

    def _tick(self, node) -> None:
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise OutOfTime(f"out of time while encoding the decision point at line {node.span.line}")

    def _cases(self, d: int, split: int) -> list:
        """The free state at d split into cases by facts of the flow's structure: (label, state,
        snapshots, condition linking the case to the free state or None).

        - enclosing `for` loops over collections that do not depend on the state hold exactly
          those items (the snapshot was taken from that very collection); the `split`
          innermost of them one case per position (the loop variable its item);
        - entry pins (`_entry_pins`);
        - the mover: a `choose` naming its player by a variable, one case per seat, so every
          `x[mover]` in the move and the flow after it indexes one element."""
        s0 = self.state
        node = self.p.decisions[d].node
        base_vars, base_locals = dict(s0.vars), dict(s0.locals)
        snaps = dict(self.snaps)
        held = []
        splits = []  # (key, loop var, static items)
        loops = self._static_loops(d)
        for depth, (loop, key, static) in enumerate(loops):
            items, jv = snaps[key]
            held.append(eq_leaf(items.length, num(len(static))))
            held += [eq_val(items.items[i], v) for i, v in enumerate(static)]
            snaps[key] = (SeqVal(num(len(static)), tuple(static) + tuple(items.items[len(static):])), jv)
            if depth >= len(loops) - split:
                splits.append((key, loop.var, static))
        for x, v in self._entry_pins(d).items():
            where = base_locals if x in base_locals else base_vars if x in base_vars else None
            if where is not None and not isinstance(where[x], tuple):
                held.append(eq_leaf(where[x], v))
                where[x] = v
        positions = [[]]
        for key, var, static in splits:
            positions = [pos + [(key, var, i, v)] for pos in positions for i, v in enumerate(static)]
            if len(positions) > MAX_CASES:
                raise NotEncoded(f"more than {MAX_CASES} cases of loop positions")
        name = node.player.name if isinstance(node, N.Choose) and isinstance(node.player, N.Name) else None
        seat_where = "locals" if name in s0.locals else "vars" if name in s0.vars else None
        seats = list(range(self.n)) if seat_where and is_int_leaf(getattr(s0, seat_where)[name]) else [None]
        out = []
        for pos in positions:
            for seat in seats:
                vars_, locals_, sn, cond = dict(base_vars), dict(base_locals), dict(snaps), list(held)
                label = []
                for key, var, i, v in pos:
                    items, jv = sn[key]
                    cond.append(eq_leaf(jv, num(i + 1)))
                    sn[key] = (items, num(i + 1))
                    if var in locals_:
                        cond.append(eq_val(locals_[var], v))
                        locals_[var] = v
                    label.append(f"{var}={to_python(v)}")
                cur = s0.cur
                if seat is not None:
                    where = locals_ if seat_where == "locals" else vars_
                    cond += [eq_leaf(where[name], num(seat)), eq_leaf(s0.cur, num(seat))]
                    where[name], cur = num(seat), num(seat)
                    label.insert(0, f"P{seat + 1}")
                state = StateVars(self.p, self.n, self.options, None,
                                  values={"vars": vars_, "locals": locals_, "pc": s0.pc, "cur": cur})
                out.append((f" ({', '.join(label)})" if label else "", state, sn, and_all(cond) if cond else None))
        return out

    def _static_loops(self, d: int) -> list[tuple]:
        """[(loop, snapshot key, items)]: the `for` loops around decision point d over collections
        that do not depend on the state, whose items fit the loop's snapshot."""
        out = []
        frames = decision_paths(self.p)[d]
        for loop, _body in self._around(frames):
            if not (isinstance(loop, N.For) and id(loop) in self._keys):
                continue
            static = self._static_items(loop)
            key = self._keys[id(loop)][0]
            if static is not None and len(static) <= len(self.snaps[key][0].items):
                out.append((loop, key, static))
        return out

    def loop_positions(self, d: int) -> list[tuple]:
        """[(leaf, values)]: for each `for` loop around decision point d whose items do not depend
        on the state and whose variable is a number of the free state (a flow local), the values
        that variable takes. A query reading an array at such a variable reads a symbolic
        position; asked once per value, it reads one element (`Prover._holds_by_position`,
        which asks for them once per check: kept)."""
        if d in self._positions:
            return self._positions[d]
        out = self._positions[d] = []
        frames = decision_paths(self.p)[d]
        for loop, _body in self._around(frames):
            if not (isinstance(loop, N.For) and id(loop) in self._keys):
                continue
            leaf = self.state.locals.get(loop.var)
            if leaf is None or not is_int_leaf(leaf):
                continue
            static = self._static_items(loop)
            if static and all(is_num(v) for v in static):
                out.append((leaf, [v.as_long() for v in static]))
        return out

    def _entry_pins(self, d: int) -> dict:
        """Values the structure of the flow guarantees at decision point d: when d is a statement
        of a `while` body and no statement before it in that body writes what the loop's
        condition reads, the condition held at the head and still holds — and a condition
        `X`, `not X` or `X == literal` (X a bool/int var or flow local) pins X. Pinning saves the
        encoding every branch the other value would take (e.g. a phase-over flag)."""
        frames = decision_paths(self.p)[d]
        if len(frames) < 2:
            return {}
        outer, j = frames[-2]
        loop = outer[j]
        body, i = frames[-1]
        if not isinstance(loop, N.While) or body is not loop.body.stmts:
            return {}
        if written(body[:i]) & read_names(loop.cond):
            return {}
        c = loop.cond
        if isinstance(c, N.Unary) and c.op == "not" and isinstance(c.operand, N.Name):
            return {c.operand.name: z3.BoolVal(False, CTX)}
        if isinstance(c, N.Name):
            return {c.name: z3.BoolVal(True, CTX)}
        return {}

    def snap_keys(self) -> list[str]:
        return [key for key, _ in self._keys.values()]

    # ------------------------------------------------------------ frame facts
    def at_decision(self, d: int, state: StateVars):
        """`pc` is d and `cur` the mover d implies."""
        node = self.p.decisions[d].node
        c = eq_leaf(state.pc, num(d))
        if isinstance(node, N.Chance):
            return and_(c, eq_leaf(state.cur, num(-1)))
        if isinstance(node, N.Simultaneous):
            return and_(c, eq_leaf(state.cur, num(-2)))
        return and_(c, lift(operator.le, num(0), state.cur), lift(operator.lt, state.cur, num(self.n)))

    def ranges(self, state: StateVars, snaps: dict) -> list:
        """Declared ranges of the state and its snapshots (every reachable state satisfies them when
        the obligations hold: values are range-checked where they are written)."""
        out = state.constraints()
        for key, st in self._keys.values():
            items, j = snaps[key]
            elem = self.p.type_of(st.source).elem
            out += [lift(operator.le, num(0), items.length), lift(operator.le, items.length, num(len(items.items))),
                    lift(operator.le, num(0), j), lift(operator.le, j, items.length)]
            # only the slots below the length hold items: the rest is padding, which the
            # transition leaves at 0, outside an item type such as 1..4. Held to the type, the
            # padding contradicted the interval facts (which know it is 0), and a claim about
            # every state inside the loop was proved vacuously (as `range_constraints` guards a
            # sequence's items, for the same reason)
            for k, it in enumerate(items.items):
                inner = range_constraints(it, elem, self.n)
                if inner:
                    out.append(implies(lift(operator.lt, num(k), items.length), and_all(inner)))
        for k in range(len(self.p.measures)):
            out.append(lift(operator.le, num(-1), snaps[f"M_{k}"]))
        return [c for c in out if not is_true(c)]

    def frame_candidates(self) -> list[Candidate]:
        """Per decision point: pc/cur agree, and the facts of each `for` loop around it."""
        out = [Candidate("pc", "the flow is at a decision point or over", None, self._pc_fact)]
        paths = decision_paths(self.p)
        for d in range(len(self.p.decisions)):
            for loop, body in self._around(paths[d]):
                if isinstance(loop, N.For) and id(loop) in self._keys:
                    out += [self._loop_candidate(d, loop), *self._items_candidates(d, loop)]
                if isinstance(loop, N.While) and loop.decreases is not None:
                    out.append(Candidate(f"measure {loop.span}@{d}", f"the measure of the loop at {loop.span} is its "
                                         f"value at the loop's head", None, self._measure_fact(d, loop)))
                for cond in self._path_conditions(loop, body):
                    out.append(Candidate(f"path {cond.span}@{d}", f"the condition at {cond.span} holds at "
                                         f"decision point {d}", None, self._path_fact(d, cond)))
            if LET_FACTS:
                for stmts, i in paths[d]:
                    for st in stmts[:i]:
                        if isinstance(st, N.Let):
                            out.append(Candidate(f"let {st.name}@{d}", f"`{st.name}` (line {st.span.line}) still "
                                                 f"has the value of its definition at decision point {d}", None,
                                                 self._let_fact(d, st)))
        return out

    def _let_fact(self, d: int, let):
        """A `let` before the decision point in a block around it still equals its definition
        there: true when nothing the definition reads changed since (the last round's flag,
        `let last = round == 9`, at every point of the round). A guess: what the flow changed
        since makes it false, and the induction drops it."""
        def fact(state: StateVars, snaps: dict):
            return implies(eq_leaf(state.pc, num(d)), let_holds(self.p, self.n, self.options, let, state))
        return fact

    def loop_candidates(self, points) -> list[Candidate]:
        """For each decision point in `points`, the facts of each `for` loop around it (the loop's
        position within its items, its variable the item there, the items when static): what a
        claim `at` those points needs to read the loop's variable across an iteration."""
        if not points:
            return []
        paths = decision_paths(self.p)
        return [c for d in sorted(points) for loop, _ in self._around(paths[d])
                if isinstance(loop, N.For) and id(loop) in self._keys
                for c in [self._loop_candidate(d, loop), *self._items_candidates(d, loop)]]

    @staticmethod
    def _around(frames) -> list:
        """The statements around a decision point, outermost first, each with the statements of
        its part the point is in: [(statement, that part's statements)]."""
        return [(frames[k - 1][0][frames[k - 1][1]], frames[k][0]) for k in range(1, len(frames))]

    def _loop_candidate(self, d: int, loop) -> Candidate:
        return Candidate(f"loop {loop.var}@{d}", f"the loop over {loop.var} (line {loop.span.line}) at decision "
                         f"point {d}", None, self._loop_fact(d, loop))

    @staticmethod
    def _path_conditions(container, body) -> list:
        """Conditions that held when the flow entered `body` inside `container` (a `while`'s
        condition; an `if` arm's condition and the negations of the arms before it are left out
        for simplicity: the arm's own condition). Whether they still hold at the decision point
        is for the induction to settle: they are only candidates."""
        if isinstance(container, N.While):
            return [container.cond]
        if isinstance(container, N.If):
            return [c for c, b in container.branches if b.stmts is body]
        return []

    def _measure_fact(self, d: int, loop):
        key = f"M_{[id(w) for w in self.p.measures].index(id(loop))}"

        def fact(state: StateVars, snaps: dict):
            m = Encoder(self.p, self.n, self.options, state).expr(loop.decreases)
            return implies(eq_leaf(state.pc, num(d)), eq_leaf(snaps[key], m))
        return fact

    def _path_fact(self, d: int, cond):
        def fact(state: StateVars, snaps: dict):
            return implies(eq_leaf(state.pc, num(d)), Encoder(self.p, self.n, self.options, state).expr(cond))
        return fact

    def _pc_fact(self, state: StateVars, snaps: dict):
        return or_all([eq_leaf(state.pc, num(-1))] + [self.at_decision(d, state) for d in range(len(self.p.decisions))])

    def _loop_fact(self, d: int, loop):
        key = self._keys[id(loop)][0]
        static = self._static_items(loop)

        def fact(state: StateVars, snaps: dict):
            items, j = snaps[key]
            parts = [lift(operator.le, num(1), j), lift(operator.le, j, items.length)]
            if loop.var in state.locals:
                cur_item = select(items.items, lift(operator.sub, j, num(1)), state.locals[loop.var])
                parts.append(eq_val(state.locals[loop.var], cur_item))
            if static is not None:
                parts.append(eq_leaf(items.length, num(len(static))))
                parts += [eq_val(items.items[i], v) for i, v in enumerate(static) if i < len(items.items)]
            return implies(eq_leaf(state.pc, num(d)), and_all(parts))
        return fact

    def _items_candidates(self, d: int, loop) -> list[Candidate]:
        """[a Candidate] where the loop's items depend on the state but on nothing its body writes
        (`seats_from(active)` in a turn loop): the snapshot still holds what the collection holds
        now. Without it the loop's variable is not tied to its position (the k-th seat of the
        turn is `(active + k) % num_players`), and a count kept per turn ("one card fewer per
        player who took") cannot be read across an iteration. A candidate of its own: where the
        induction cannot keep it, the loop's other facts still stand."""
        if self._static_items(loop) is not None or \
                names_read(self.p, loop.source) & (written(loop.body.stmts) | {loop.var}):
            return []
        key = self._keys[id(loop)][0]

        def fact(state: StateVars, snaps: dict):
            items, _ = snaps[key]
            try:
                enc = Encoder(self.p, self.n, self.options, state)
                now = packed(enc.members(loop.source), self.p.type_of(loop.source).elem, self.n)
            except NotEncoded:
                return TRUE  # (a collection the encoder cannot read: no fact)
            parts = [eq_leaf(items.length, now.length)]
            parts += [implies(lift(operator.lt, num(i), now.length), eq_val(items.items[i], now.items[i]))
                      for i in range(min(len(items.items), len(now.items)))]
            return implies(eq_leaf(state.pc, num(d)), and_all(parts))
        return [Candidate(f"loop {loop.var}@{d} items", f"the items of the loop over {loop.var} (line "
                          f"{loop.span.line}) are still its collection's at decision point {d}", None, fact)]

    def _static_items(self, loop):
        """The items of a loop's collection if they do not depend on the state, else None."""
        enc = Encoder(self.p, self.n, self.options, self.state)
        try:
            rows = enc.members(loop.source)
        except Exception:  # noqa: BLE001 — a collection the encoder cannot pin is simply not static
            return None
        if enc.obligations or not all(is_true(g) or is_false(g) for g, _ in rows):
            return None
        items = [x for g, x in rows if is_true(g)]
        return items if all(_is_literal(x) for x in items) else None


def let_holds(program: Program, n: int, options: dict, let, state: StateVars):
    """The `let`'s name still equals its definition in `state` (the older engine's frame
    candidates and the flow's facts, `path_facts`, both guess it)."""
    return eq_val(state.locals[let.name], Encoder(program, n, options, state).expr(let.value))


def _root(target) -> str | None:
    while isinstance(target, (N.Index, N.FieldAccess)):
        target = target.base
    return target.name if isinstance(target, N.Name) else None


def written(stmts) -> set:
    """Names a list of statements may write (assignment and edit targets, lets, loop variables)."""
    out = set()
    for st in stmts:
        for x in walk(st):
            if isinstance(x, (N.Assign, N.CollectionEdit)):
                out.add(_root(x.target))
            elif isinstance(x, N.Let):
                out.add(x.name)
            elif isinstance(x, (N.For, N.Chance)):
                out.add(x.var)
    return out


def read_names(e) -> set:
    return {x.name for x in walk(e) if isinstance(x, N.Name)}


def is_int_leaf(v) -> bool:
    return not isinstance(v, tuple) and v.sort().kind() == z3.Z3_INT_SORT


def _is_literal(v) -> bool:
    if isinstance(v, tuple):
        return all(_is_literal(x) for x in v)
    return is_lit(v)


def at_pc(st: StateVars, d: int) -> StateVars:
    """The state with `pc` the literal d (the decision point it is known to be at)."""
    return StateVars(st.program, st.n, st.options, None,
                     values={"vars": st.vars, "locals": st.locals, "pc": num(d), "cur": st.cur})


def successor_cases(alt: Alternative) -> list:
    """[(v, the successor state with `pc` the literal v)] for each decision point (or -1, the
    end) the move can lead to, read off the successor's `pc` term (literals under `if`s); or
    [(None, the successor)] when that term is not of this shape."""
    st = alt.step.state
    values, todo = [], [st.pc]
    while todo:
        t = todo.pop()
        if is_num(t):
            values.append(t.as_long())
        elif z3.is_app_of(t, z3.Z3_OP_ITE):
            todo += [t.arg(1), t.arg(2)]
        else:
            return [(None, st)]
    return [(v, at_pc(st, v)) for v in sorted(set(values))]


@dataclass(frozen=True)
class SuccessorPath:
    """One way a move's flow can run to its next decision point (or to the end): a leaf of the
    successor's `pc` term. `conds`: the `if` conditions on the way to it, each with the value it
    takes there; `state`: the successor with `pc` the literal `pc`; `term`: "the flow ran this
    way" (TRUE: every successor)."""
    pc: int | None
    conds: tuple  # ((condition, bool), ...)
    state: StateVars
    term: object

    def specialise(self, term):
        """`term` (over the successor) as it reads on this path: each condition replaced by its
        value here, then simplified. Equivalent to `term` wherever `self.term` holds; what the
        flow's other paths would have done to a variable drops out of its term (merged by
        `if`s on those very conditions)."""
        if not self.conds:
            return term
        return z3.simplify(z3.substitute(term, *[(c, z3.BoolVal(b, CTX)) for c, b in self.conds]))


def successor_paths(alt: Alternative, by_value: bool = False) -> list[SuccessorPath]:
    """Each way the move's flow can run to a decision point or the end (`SuccessorPath`), read
    off the successor's `pc` term (literals under `if`s); one path with no conditions when that
    term is not of this shape. Finer than one case per decision point: two paths can reach one
    (the next seat's turn, or the same seat's next draw). `by_value`: one case per decision
    point after all ("the successor is at v", no conditions to specialise by), as
    `successor_cases`."""
    st = alt.step.state
    if by_value:
        return [SuccessorPath(v, (), after, TRUE if v is None else eq_leaf(st.pc, num(v)))
                for v, after in successor_cases(alt)]
    out: list = []
    todo = [(st.pc, ())]
    while todo:
        t, conds = todo.pop()
        if is_num(t):
            lits = and_all([c if b else z3.Not(c) for c, b in conds])
            out.append(SuccessorPath(t.as_long(), conds, at_pc(st, t.as_long()), lits))
        elif z3.is_app_of(t, z3.Z3_OP_ITE):
            c = t.arg(0)
            known = [b for x, b in conds if same(x, c)]
            if known:  # decided higher up: only that branch is a way the flow can run
                todo.append((t.arg(1) if known[0] else t.arg(2), conds))
            else:
                todo += [(t.arg(2), conds + ((c, False),)), (t.arg(1), conds + ((c, True),))]
        else:
            return [SuccessorPath(None, (), st, TRUE)]
    return out
