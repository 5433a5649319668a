"""Abstract interpretation of a transition system (`system.System`) over intervals.

Per decision point d (and -1, the end of the game), an interval for every state leaf that
contains its value in every reachable state at d (booleans are intervals over {0, 1}). The
fixpoint starts from the concrete initial state and applies every transition of a reachable
decision point until nothing grows: a transition's legality is *assumed* (its conditions
narrow the intervals, constraint propagation in the manner of HC4: forward evaluation, then
each condition pushed back down to the leaves), and its successor's leaves are *evaluated*
over the narrowed intervals, path-sensitively at `if`s (each branch under its condition).

What it gives:

- facts: "at d, lo <= x <= hi" and "d is unreachable", proved (an over-approximation of the
  reachable states), free assumptions for the other engines;
- proofs: a claim whose formula evaluates to true over the intervals of every reachable
  decision point holds in every reachable state; a run-time check likewise.

Soundness rests on two things only: every operator is evaluated to an interval containing its
value on every point of its arguments' intervals (operators not in the table are unknown), and
a successor leaf is cut to its declared range (a value outside it is a run-time error, which
ends the game: `well_formed` refutes or proves that separately — every result says it rests on
`well_formed`). Widening: a bound that keeps moving jumps to the declared range (all state is
bounded), or to "unbounded".
"""
from __future__ import annotations

import time

from ..dag import Dag
from ..system import System, conjuncts

__all__ = ["Intervals", "BIG", "analyse"]

BIG = 10 ** 12  # "unbounded": every game value is far smaller
TOP = (-BIG, BIG)
BOOL = (0, 1)
TRUE_I, FALSE_I = (1, 1), (0, 0)
WIDEN_AFTER = 6  # growths of one leaf's bound at one decision point before it jumps
# of the time the analysis is given, the part after which every growth jumps at once (widening
# made eager): a fixpoint cut short at its deadline gives no fact at all, where one reached by
# eager widening gives slightly wider ones (on a seed game at 2 players, 16.9 s instead of 33.6 s,
# 719 leaves at their declared range of 8,442 instead of 705: docs/architecture.md). From the
# start (0): in `verify` beside 0.5 the same verdicts on the seed games where both completed, and
# a seed game's analysis in 13 s instead of 26 s; at 0.5 it was still cut short under load. With no
# deadline (the tests, the analysis asked alone) widening waits for `WIDEN_AFTER` growths.
EAGER_AFTER = 0.0
# growths of a leaf's bound at one decision point that eager widening still lets through: one,
# so that a value set once from a small range (a register set to `2 * k` for k in 0..3) keeps
# that range where a first growth jumping at once lost it (a test's proved score bound 6 -> 8)
EAGER_GROWTHS = 1
# narrowed environments per transition before `if`s are evaluated by a plain join: on the
# bundled specs, 1000 gives the same intervals as 4000 at a fraction of the time, 300 some
# wider ones (the figures: docs/architecture.md, "The interval analysis's cost")
MAX_ENVS = 1000
# an `if` is split by its condition only where a branch reads a leaf the condition reads; else
# both branches are evaluated as they are, with the same values (benchmarks/interval_splits.py:
# a seed game's analysis in 0.52-0.97 of the time at 2 and 3 players, the same intervals)
SPLIT_ONLY_WHERE_READ = True
MAX_SPLIT_DEPTH = 6  # nested constructive disjunctions (narrowing each side of an `or`/`if`)


def _clamp(x: int) -> int:
    return -BIG if x <= -BIG else BIG if x >= BIG else x


def _add(a, b):
    return (_clamp(a[0] + b[0]), _clamp(a[1] + b[1]))


def _neg(a):
    return (-a[1], -a[0])


def _meet(a, b):
    lo, hi = max(a[0], b[0]), min(a[1], b[1])
    return None if lo > hi else (lo, hi)


def _hull(a, b):
    return (min(a[0], b[0]), max(a[1], b[1]))


def _mul(a, b):
    if a[0] == a[1] == 0 or b[0] == b[1] == 0:
        return (0, 0)
    ps = [x * y for x in a for y in b]
    return (_clamp(min(ps)), _clamp(max(ps)))


def _floordiv(a, b):
    """Z3's integer division (Euclidean; it differs from Python's floor only for negative
    divisors, and the encoding's `//` is built on it) — evaluated only for a constant positive
    divisor; else unknown."""
    if b[0] == b[1] and b[0] > 0 and abs(a[0]) < BIG and abs(a[1]) < BIG:
        return (a[0] // b[0], a[1] // b[0])
    return TOP


def _mod(a, b):
    if b[0] == b[1] and b[0] > 0:
        k = b[0]
        if abs(a[0]) < BIG and abs(a[1]) < BIG and a[1] - a[0] < k and a[0] % k <= a[1] % k:
            return (a[0] % k, a[1] % k)
        return (0, k - 1)
    return TOP


def _cmp(op, a, b):
    """Three-valued comparison of two intervals."""
    if op == "le":
        return TRUE_I if a[1] <= b[0] else FALSE_I if a[0] > b[1] else BOOL
    if op == "lt":
        return TRUE_I if a[1] < b[0] else FALSE_I if a[0] >= b[1] else BOOL
    if op == "ge":
        return _cmp("le", b, a)
    return _cmp("lt", b, a)  # gt


class Env(dict):
    """leaf id (or a narrowed compound node's id) -> interval; a leaf not in it is unknown (TOP,
    or BOOL for a formula). An Env narrowed from another keeps it as `parent`, with the keys it
    changed (`changed`) and their support (`bits`): what reads none of them is evaluated as in
    the parent, and a join looks only at what changed."""
    __slots__ = ("parent", "changed", "bits")

    def __init__(self, *args, parent=None, changed=frozenset(), bits=0):
        super().__init__(*args)
        self.parent, self.changed, self.bits = parent, changed, bits


def _changed_since(env: Env, base: Env) -> set | None:
    """The keys env changed since base, if env was narrowed from base; else None."""
    keys: set = set()
    while env is not base:
        if env is None:
            return None
        keys |= env.changed
        env = env.parent
    return keys


class Evaluator:
    """Forward evaluation and narrowing over one Dag; memoised per environment."""

    def __init__(self, dag: Dag):
        self.dag = dag
        self.op, self.args, self.value, self.is_bool = dag.op, dag.args, dag.value, dag.is_bool
        self.reset()

    def reset(self) -> None:
        self._memo: dict[int, dict] = {}
        self._keep: list = []  # environments alive while their memo is (ids are not reused)
        self._assumed: dict = {}
        self.envs = 0

    # ------------------------------------------------------------ forward
    def eval(self, i: int, env: Env) -> tuple:
        memo = self._memo.get(id(env))
        if memo is None:
            memo = self._memo[id(env)] = {}
            self._keep.append(env)
        r = memo.get(i)
        if r is not None:
            return r
        # iterative post-order over the part not yet evaluated, so deep terms cannot overflow
        parent = self._memo.get(id(env.parent)) if env.parent is not None else None
        support, bits = self.dag.support, env.bits
        stack = [(i, False)]
        while stack:
            x, ready = stack.pop()
            if x in memo:
                continue
            if parent is not None:
                r = parent.get(x)
                if r is not None and not support(x) & bits:
                    memo[x] = r
                    continue
            if not ready:
                stack.append((x, True))
                if self.op[x] != "ite":  # an `if` evaluates its branches under their conditions
                    stack.extend((c, False) for c in self.args[x] if c not in memo)
                else:
                    stack.append((self.args[x][0], False))
                continue
            memo[x] = self._refined(x, env, memo)
        return memo[i]

    def _node(self, x: int, env: Env, memo: dict) -> tuple:
        op, args = self.op[x], self.args[x]
        if op == "num":
            v = self.value[x]
            return (v, v)
        if op == "leaf":
            r = env.get(x)
            return r if r is not None else (BOOL if self.is_bool[x] else TOP)
        if op == "true":
            return TRUE_I
        if op == "false":
            return FALSE_I
        if op == "ite":
            c = memo[args[0]]
            if c == TRUE_I:
                return self.eval(args[1], env)
            if c == FALSE_I:
                return self.eval(args[2], env)
            support = self.dag.support
            if self.envs < MAX_ENVS and SPLIT_ONLY_WHERE_READ and \
                    not support(args[0]) & (support(args[1]) | support(args[2])):
                # the condition reads nothing its branches read: narrowing by it leaves their
                # values as they are, so each is evaluated here (the environments the split
                # would make still count against MAX_ENVS, which then ends the splitting where
                # it did before)
                self.envs += 2
            elif self.envs < MAX_ENVS:
                yes = self.assume(args[0], env, True)
                no = self.assume(args[0], env, False)
                if yes is None:
                    return self.eval(args[2], no) if no is not None else self.eval(args[2], env)
                if no is None:
                    return self.eval(args[1], yes)
                return _hull(self.eval(args[1], yes), self.eval(args[2], no))
            return _hull(self.eval(args[1], env), self.eval(args[2], env))
        vals = [memo[a] for a in args]
        if op == "and":
            return FALSE_I if FALSE_I in vals else TRUE_I if all(v == TRUE_I for v in vals) else BOOL
        if op == "or":
            return TRUE_I if TRUE_I in vals else FALSE_I if all(v == FALSE_I for v in vals) else BOOL
        if op == "not":
            v = vals[0]
            return (1 - v[1], 1 - v[0])
        if op == "implies":
            a, b = vals
            return TRUE_I if a == FALSE_I or b == TRUE_I else FALSE_I if a == TRUE_I and b == FALSE_I else BOOL
        if op == "xor":
            a, b = vals
            if a[0] == a[1] and b[0] == b[1]:
                return TRUE_I if a[0] != b[0] else FALSE_I
            return BOOL
        if op in ("eq", "distinct"):
            if len(vals) != 2:
                return BOOL
            a, b = vals
            r = TRUE_I if a[0] == a[1] == b[0] == b[1] else FALSE_I if _meet(a, b) is None else BOOL
            return r if op == "eq" else (1 - r[1], 1 - r[0])
        if op in ("le", "lt", "ge", "gt"):
            return _cmp(op, vals[0], vals[1])
        if op == "add":
            r = (0, 0)
            for v in vals:
                r = _add(r, v)
            return r
        if op == "sub":
            r = vals[0]
            for v in vals[1:]:
                r = _add(r, _neg(v))
            return r
        if op == "neg":
            return _neg(vals[0])
        if op == "mul":
            r = (1, 1)
            for v in vals:
                r = _mul(r, v)
            return r
        if op == "idiv":
            return _floordiv(vals[0], vals[1])
        if op == "mod":
            return _mod(vals[0], vals[1])
        return BOOL if self.is_bool[x] else TOP

    def _refined(self, x: int, env: Env, memo: dict) -> tuple:
        """The node's value, met with what narrowing recorded about it in env (a compound node
        narrowed by a condition, e.g. `x` in the else branch of `if 8 < x then 8 else x`)."""
        v = self._node(x, env, memo)
        known = env.get(x)
        if known is not None and self.op[x] != "leaf":
            m = _meet(v, known)
            return m if m is not None else v
        return v

    # ------------------------------------------------------------ backward
    def assume(self, c: int, env: Env, want: bool, depth: int = 0) -> Env | None:
        """env narrowed by "formula c has the value `want`", or None if that cannot be."""
        key = (id(env), c, want)
        if key in self._assumed:
            return self._assumed[key]
        r = self._assume(c, env, want, depth)
        self._assumed[key] = r
        if r is not None and r is not env:
            self._keep.append(r)
        return r

    def _assume(self, c: int, env: Env, want: bool, depth: int) -> Env | None:
        v = self.eval(c, env)
        if v == (TRUE_I if want else FALSE_I):
            return env
        if v == (FALSE_I if want else TRUE_I):
            return None
        op, args = self.op[c], self.args[c]
        if op == "not":
            return self.assume(args[0], env, not want, depth)
        if op == "leaf":
            return self._set(env, c, TRUE_I if want else FALSE_I)
        if op in ("and", "or"):
            if (op == "and") == want:  # every part has the value wanted
                for a in args:
                    env = self.assume(a, env, want, depth)
                    if env is None:
                        return None
                return env
            # some part has the value wanted: those that may, each narrowed, joined
            able = [a for a in args if self.eval(a, env) != (FALSE_I if want else TRUE_I)]
            if len(able) == 1:
                return self.assume(able[0], env, want, depth)
            return self._either([(a, want) for a in able], env, depth)
        if op == "implies":
            a, b = args
            if want:
                return self._either([(a, False), (b, True)], env, depth)
            env = self.assume(a, env, True, depth)
            return None if env is None else self.assume(b, env, False, depth)
        if op == "ite":
            cond, a, b = args
            cv = self.eval(cond, env)
            if cv == TRUE_I:
                return self.assume(a, env, want, depth)
            if cv == FALSE_I:
                return self.assume(b, env, want, depth)
            if depth >= MAX_SPLIT_DEPTH or self.envs >= MAX_ENVS:
                return env
            sides = []
            for truth, branch in ((True, a), (False, b)):
                e = self.assume(cond, env, truth, depth + 1)
                if e is not None:
                    e = self.assume(branch, e, want, depth + 1)
                if e is not None:
                    sides.append(e)
            return self._join_envs(sides, env)
        if op in ("eq", "distinct") and len(args) == 2:
            want = want if op == "eq" else not want
            a, b = args
            if self.is_bool[a]:
                if want:  # both true or both false
                    return self._both(env, depth, [[(a, True), (b, True)], [(a, False), (b, False)]])
                return self._both(env, depth, [[(a, True), (b, False)], [(a, False), (b, True)]])
            ia, ib = self.eval(a, env), self.eval(b, env)
            if want:
                m = _meet(ia, ib)
                if m is None:
                    return None
                env = self.narrow(a, m, env, depth)
                return None if env is None else self.narrow(b, m, env, depth)
            # a != b: only a point at the other's bound can shrink it
            if ib[0] == ib[1]:
                env = self._exclude(a, ia, ib[0], env, depth)
                ia = self.eval(a, env) if env is not None else None
            if env is not None and ia is not None and ia[0] == ia[1]:
                env = self._exclude(b, self.eval(b, env), ia[0], env, depth)
            return env
        if op in ("le", "lt", "ge", "gt"):
            a, b = args
            if op in ("ge", "gt"):
                a, b, op = b, a, ("le" if op == "ge" else "lt")
            if not want:  # not (a <= b) is b < a; not (a < b) is b <= a
                a, b, op = b, a, ("lt" if op == "le" else "le")
            gap = 0 if op == "le" else 1  # a + gap <= b
            ia, ib = self.eval(a, env), self.eval(b, env)
            env = self.narrow(a, (-BIG, _clamp(ib[1] - gap)), env, depth)
            if env is None:
                return None
            return self.narrow(b, (_clamp(ia[0] + gap), BIG), env, depth)
        return env

    def _exclude(self, x: int, ix: tuple, point: int, env: Env, depth: int) -> Env | None:
        if ix[0] == point == ix[1]:
            return None
        if ix[0] == point:
            return self.narrow(x, (point + 1, ix[1]), env, depth)
        if ix[1] == point:
            return self.narrow(x, (ix[0], point - 1), env, depth)
        return env

    def _either(self, options: list, env: Env, depth: int) -> Env | None:
        """Some of the (formula, value) options holds: each narrowed, then joined."""
        if depth >= MAX_SPLIT_DEPTH or self.envs >= MAX_ENVS or len(options) > 8:
            return env
        sides = [e for e in (self.assume(a, env, w, depth + 1) for a, w in options) if e is not None]
        return self._join_envs(sides, env)

    def _both(self, env: Env, depth: int, alternatives: list) -> Env | None:
        if depth >= MAX_SPLIT_DEPTH or self.envs >= MAX_ENVS:
            return env
        sides = []
        for conds in alternatives:
            e = env
            for a, w in conds:
                e = self.assume(a, e, w, depth + 1)
                if e is None:
                    break
            if e is not None:
                sides.append(e)
        return self._join_envs(sides, env)

    def _join_envs(self, sides: list, base: Env) -> Env | None:
        if not sides:
            return None
        if len(sides) == 1 or all(s is sides[0] for s in sides):
            return sides[0]
        if any(s is base for s in sides):
            return base
        keys = set()
        for side in sides:
            diff = _changed_since(side, base)
            if diff is None:  # not narrowed from base: compare everything
                keys = set(base.keys()).union(*(s.keys() for s in sides))
                break
            keys |= diff
        out = Env(base, parent=base)
        changed = set()
        for key in keys:
            vals = [s.get(key) for s in sides]
            if any(v is None for v in vals):
                if key in out:
                    del out[key]
                    changed.add(key)
                continue
            h = vals[0]
            for v in vals[1:]:
                h = _hull(h, v)
            if out.get(key) != h:
                out[key] = h
                changed.add(key)
        if not changed:
            return base
        out.changed = frozenset(changed)
        bits = 0
        for key in changed:
            bits |= self.dag.support(key)
        out.bits = bits
        self.envs += 1
        return out

    def _set(self, env: Env, leaf: int, value: tuple) -> Env | None:
        cur = env.get(leaf) or (BOOL if self.is_bool[leaf] else TOP)
        m = _meet(cur, value)
        if m is None:
            return None
        if m == cur:
            return env
        out = Env(env, parent=env, changed=frozenset((leaf,)), bits=self.dag.support(leaf))
        out[leaf] = m
        self.envs += 1
        return out

    def narrow(self, x: int, want: tuple, env: Env, depth: int = 0) -> Env | None:
        """env narrowed by "int node x lies in `want`", or None if it cannot."""
        cur = self.eval(x, env)
        m = _meet(cur, want)
        if m is None:
            return None
        if m == cur:
            return env
        op, args = self.op[x], self.args[x]
        if op == "leaf":
            return self._set(env, x, m)
        if op == "num":
            return env
        env = self._set(env, x, m)  # the node itself, then what it is made of
        if env is None:
            # what narrowing recorded of the node before meets nothing of `m`: `eval` gave the
            # value computed from its parts (`_refined` keeps it when the two are apart), so the
            # environment contradicts itself, and no state is in it
            return None
        if op == "add" or op == "sub":
            signs = [1] * len(args) if op == "add" else [1] + [-1] * (len(args) - 1)
            vals = [self.eval(a, env) for a in args]
            for k, a in enumerate(args):
                rest = (0, 0)
                for j, v in enumerate(vals):
                    if j != k:
                        rest = _add(rest, v if signs[j] > 0 else _neg(v))
                if rest[0] <= -BIG or rest[1] >= BIG:
                    continue
                target = (_clamp(m[0] - rest[1]), _clamp(m[1] - rest[0]))
                if signs[k] < 0:
                    target = _neg(target)
                env = self.narrow(a, target, env, depth)
                if env is None:
                    return None
            return env
        if op == "neg":
            return self.narrow(args[0], _neg(m), env, depth)
        if op == "mul" and len(args) == 2:
            for k in (0, 1):
                c, y = args[k], args[1 - k]
                if self.op[c] == "num" and self.value[c] > 0:
                    q = self.value[c]
                    lo = -BIG if m[0] <= -BIG else -((-m[0]) // q)  # ceil(m0 / q)
                    hi = BIG if m[1] >= BIG else m[1] // q
                    return self.narrow(y, (lo, hi), env, depth)
            return env
        if op == "ite":
            cond, a, b = args
            cv = self.eval(cond, env)
            if cv == TRUE_I:
                return self.narrow(a, m, env, depth)
            if cv == FALSE_I:
                return self.narrow(b, m, env, depth)
            if depth >= MAX_SPLIT_DEPTH or self.envs >= MAX_ENVS:
                return env
            sides = []
            for truth, branch in ((True, a), (False, b)):
                e = self.assume(cond, env, truth, depth + 1)
                if e is not None:
                    e = self.narrow(branch, m, e, depth + 1)
                if e is not None:
                    sides.append(e)
            return self._join_envs(sides, env)
        return env


class Intervals:
    """The fixpoint: `states[d]` is the Env of decision point d (-1: the end), None if no
    reachable state is at d. `complete` is False when the deadline cut it short (then nothing
    it says may be used). Past `EAGER_AFTER` of the time to its deadline, every growth widens
    at once (`eager`), so that it ends with facts, wider ones, where it could."""

    def __init__(self, system: System):
        self.sys, self.deadline = system, None
        self.eager = False  # widening at the first growth (set once past EAGER_AFTER)
        self.ev = Evaluator(system.dag)
        self.states: dict[int, Env | None] = {d: None for d in system.decisions + [-1]}
        self.complete = False
        self.seconds = 0.0
        self.feasible: dict[int, list] = {}  # d -> transitions not shown impossible
        self._last: dict[int, tuple] = {}  # id(transition) -> (the state it was evaluated from, outcome)
        self._read_bits: dict[int, int] = {}
        self._todo: list[int] | None = None  # the worklist (None: not started)
        self._growth: dict[tuple, int] = {}  # (decision point, leaf) -> growths of its bounds so far

    def run(self, deadline: float | None = None) -> "Intervals":
        """The fixpoint, until `deadline` (None: no deadline). Called again on
        an analysis its deadline cut short, it goes on where it stopped: the worklist, the
        growths and the states it reached are kept, so the fixpoint it completes is the one a
        run without a cut reaches by the same steps (a count's first look at the proofs and its
        proofs after the searches then share one analysis; before, each started over and a
        seed game's was cut short twice)."""
        t0 = time.perf_counter()
        self.deadline = deadline
        s = self.sys
        if self._todo is None:
            start = Env()
            for leaf, v in zip(s.leaves, s.initial):
                start[leaf] = (v, v)
            self.states[s.initial_pc] = start
            self._todo = [s.initial_pc]
        todo, growth = self._todo, self._growth
        pc = s.index[s.pc_leaf]
        eager_at = None if self.deadline is None else t0 + EAGER_AFTER * (self.deadline - t0)
        while todo:
            now = time.perf_counter()
            if self.deadline is not None and now > self.deadline:
                self.seconds += now - t0
                return self
            self.eager = self.eager or (eager_at is not None and now > eager_at)
            # the earliest decision point in the flow first: its successors then take in the
            # growth of several predecessors at once (on the seed games 10-22 % fewer evaluations
            # than first-in first-out, the same intervals: docs/architecture.md)
            d = min(todo, key=lambda x: (x == -1, x))
            todo.remove(d)
            if d == -1:
                continue
            here = self.states[d]
            feasible = []
            for tr in s.transitions(d):
                outcome = self._outcome(tr, here)
                if outcome is None:
                    continue
                feasible.append(tr)
                for targets, post in outcome:
                    post = list(post)
                    for target in targets:
                        post[pc] = (target, target)
                        if self._join(target, post, growth) and target not in todo:
                            todo.append(target)
            self.feasible[d] = feasible
        self.complete = True
        self.seconds += time.perf_counter() - t0
        return self

    def _outcome(self, tr, here: Env) -> list | None:
        """[(successor decision points, successor leaves)] of tr from the state `here`, or None
        if tr cannot be taken there. Evaluated again only when `here` changed in a leaf that tr
        reads (its conditions, or a leaf it writes a new value to); otherwise the last outcome is
        reused with the leaves tr leaves unchanged read afresh — exactly what a new evaluation
        gives, since the evaluation of a term depends only on the intervals of the leaves it
        reads (on the largest bundled spec, 251 of 848 evaluations are reused)."""
        s = self.sys
        key = id(tr)
        last = self._last.get(key)
        if last is not None:
            seen, outcome = last
            moved = [leaf for leaf, v in here.items() if seen.get(leaf) != v]
            bits = 0
            for leaf in moved:
                bits |= s.dag.support(leaf)
            if not bits & self._reads(tr):
                if outcome is not None and moved:
                    renew = [(s.index[leaf], self._cut(s.index[leaf], here[leaf])) for leaf in moved
                             if tr.post[s.index[leaf]] == leaf]
                    outcome = [(targets, [*post]) for targets, post in outcome]
                    for _, post in outcome:
                        for k, v in renew:
                            post[k] = v
                self._last[key] = (dict(here), outcome)
                return outcome
        outcome = self._evaluate(tr, here)
        self._last[key] = (dict(here), outcome)
        return outcome

    def _reads(self, tr) -> int:
        """The support bits of what tr's evaluation reads: its conditions, its cases, and the
        new values it writes (a leaf it leaves unchanged is read through, not evaluated)."""
        bits = self._read_bits.get(id(tr))
        if bits is None:
            support = self.sys.dag.support
            bits = 0
            for x in tr.pre:
                bits |= support(x)
            for _, c in tr.cases:
                if c is not None:
                    bits |= support(c)
            for leaf, x in zip(self.sys.leaves, tr.post):
                if x != leaf:
                    bits |= support(x)
            self._read_bits[id(tr)] = bits
        return bits

    def _evaluate(self, tr, here: Env) -> list | None:
        s = self.sys
        self.ev.reset()
        env = self._assume_all(tr.pre, here)
        if env is None:
            return None
        outcome = []
        shared = None
        for v, case in tr.cases:
            e = env if case is None else self.ev.assume(case, env, True)
            if e is None:
                continue
            targets = [v] if v is not None else s.decisions + [-1]
            if shared is None and len(tr.cases) > 1 and self.ev.envs >= MAX_ENVS:
                # a costly move (it used up its narrowings): what it writes is evaluated
                # once for all its successors, not once each (what it leaves is still read
                # per successor) — sound, possibly wider; on the seed games the same
                # intervals in 60-70 % of the time (docs/architecture.md)
                shared = self._post(tr, env)
            outcome.append((targets, self._post(tr, e, shared)))
        return outcome

    def _assume_all(self, conds: list, env: Env) -> Env | None:
        # twice: a later condition's narrowing can sharpen an earlier one's
        for _ in range(2):
            before = env
            for c in conds:
                env = self.ev.assume(c, env, True)
                if env is None:
                    return None
            if env is before:
                break
        return env

    def _post(self, tr, env: Env, shared: list | None = None) -> list:
        s = self.sys
        out = []
        for k, x in enumerate(tr.post):
            if shared is not None and x != s.leaves[k]:
                out.append(shared[k])
                continue
            out.append(self._cut(k, self.ev.eval(x, env)))
        return out

    def _cut(self, k: int, v: tuple) -> tuple | None:
        """Leaf k's interval cut to its declared range (None: outside it, a run-time error, no
        state)."""
        b = self.sys.bounds[k]
        if b is None:
            return v
        lo = v[0] if b[0] is None else max(v[0], b[0])
        hi = v[1] if b[1] is None else min(v[1], b[1])
        return (lo, hi) if lo <= hi else None

    def _join(self, d: int, post: list, growth: dict) -> bool:
        """Join a successor into the state of d; True if it grew."""
        if any(v is None for v in post):
            return False
        s = self.sys
        old = self.states[d]
        if old is None:
            self.states[d] = Env(zip(s.leaves, post))
            return True
        grew = False
        for k, (leaf, v) in enumerate(zip(s.leaves, post)):
            o = old[leaf]
            if o[0] <= v[0] and v[1] <= o[1]:
                continue
            lo, hi = min(o[0], v[0]), max(o[1], v[1])
            n = growth[(d, leaf)] = growth.get((d, leaf), 0) + 1
            if n > (EAGER_GROWTHS if self.eager else WIDEN_AFTER):  # widen: the declared bound, else unbounded
                b = s.bounds[k]
                if lo < o[0]:
                    lo = b[0] if b is not None and b[0] is not None else -BIG
                if hi > o[1]:
                    hi = b[1] if b is not None and b[1] is not None else BIG
            old[leaf] = (lo, hi)
            grew = True
        return grew

    # ------------------------------------------------------------ what it proves
    def reachable(self) -> list[int]:
        return [d for d, e in self.states.items() if e is not None]

    def holds(self, formula_at) -> bool:
        """formula_at(d) -> dag id of the formula over the state at d (or None: not asked at d);
        True if it is true over the intervals of every reachable decision point."""
        for d in self.reachable():
            i = formula_at(d)
            if i is None:
                continue
            self.ev.reset()
            if self.ev.eval(i, self.states[d]) != TRUE_I:
                return False
        return True


def analyse(system: System, deadline: float | None = None) -> Intervals:
    return Intervals(system).run(deadline)
