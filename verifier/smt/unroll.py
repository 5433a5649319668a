"""Paths of several steps through the transition relation: the states s0, s1, ..., sk as free
copies (`name@u<i>`), linked by T(s_i, s_i+1), for k-induction and bounded model checking.

The relation (`relation.py`) is built once, over the free state at step 0; step i's copy of an
alternative is the same formula with the step-0 state renamed to step i's and every other free
constant (move parameters, chance outcomes) renamed apart, so two steps never share a choice.
T(s_i, s_i+1) is the disjunction over decision points d and their alternatives of

    pc_i = d  and  the alternative's case and legality  and  its obligations  and  s_i+1 = successor

— the obligations are assumed as the one-step induction assumes them: a game whose run-time
check fails stops there (`well_formed` is proved or refuted on its own).

`Path` owns the copies and their links; the proof strategies that use it live in `prove.py`.
"""
from __future__ import annotations

from .dag import free_constants
from .encode import SeqVal, SetVal, StateVars, and_all, eq_leaf, eq_val, or_all, z3
from .relation import Relation
from .transition import fresh_snapshots

__all__ = ["Path", "leaves", "map_leaves", "state_leaves", "same_state"]


def leaves(v) -> list:
    if isinstance(v, tuple):  # arrays, sets and sequences (SeqVal is a tuple: length, items)
        return [y for x in v for y in leaves(x)]
    return [v]


def map_leaves(v, fn):
    """`v` with each leaf replaced by `fn(leaf)`, in `leaves`' order; the same shape."""
    if isinstance(v, SeqVal):
        return SeqVal(map_leaves(v.length, fn), tuple(map_leaves(x, fn) for x in v.items))
    if isinstance(v, SetVal):
        return SetVal(fn(x) for x in v)
    if isinstance(v, tuple):
        return tuple(map_leaves(x, fn) for x in v)
    return fn(v)


def state_leaves(rel: Relation, state: StateVars, snaps: dict) -> list:
    """Every Z3 leaf of a state and its loop snapshots, in one fixed order (same shape, same order:
    the basis of renaming one step's state into another's)."""
    out = []
    for name in rel.p.var_types:
        out += leaves(state.vars[name])
    for name in rel.p.flow_locals:
        out += leaves(state.locals[name])
    out += [state.pc, state.cur]
    for key in sorted(snaps):
        out += leaves(snaps[key])
    return out


def same_state(rel: Relation, a: StateVars, a_snaps: dict, b: StateVars, b_snaps: dict, *,
               with_snapshots: bool = True):
    """a and b are the same state (sequences compared up to their lengths, as the engine does)."""
    parts = [eq_val(a.vars[x], b.vars[x]) for x in rel.p.var_types]
    parts += [eq_val(a.locals[x], b.locals[x]) for x in rel.p.flow_locals]
    parts += [eq_leaf(a.pc, b.pc), eq_leaf(a.cur, b.cur)]
    if with_snapshots:
        parts += [eq_val(a_snaps[k], b_snaps[k]) for k in sorted(a_snaps)]
    return and_all(parts)


class Path:
    """States s0..sk (free copies; s0 is the relation's own free state) and the links between them.

    `alternatives(d)` is the relation's (it may raise what the relation raises: out of time,
    beyond the encoding); `link(i)` is T(s_i, s_i+1), built on first use; `check()` is called
    between alternatives while they are read, so that a deadline can stop a long build (it
    raises what the caller wants raised)."""

    def __init__(self, rel: Relation, alternatives, check=lambda: None):
        self.rel, self._alternatives, self._check = rel, alternatives, check
        self.states = [(rel.state, rel.snaps)]
        self._links: dict[int, object] = {}
        self._bodies: dict[int, list] = {}  # d -> [(alternative formula over s0 and a free s1, its constants)]
        self._base = state_leaves(rel, rel.state, rel.snaps)

    def state(self, i: int) -> tuple[StateVars, dict]:
        while len(self.states) <= i:
            k = len(self.states)
            self.states.append((StateVars(self.rel.p, self.rel.n, self.rel.options, f"u{k}"),
                                fresh_snapshots(self.rel.p, self.rel.n, f"u{k}")))
        return self.states[i]

    def _alternative_bodies(self, d: int) -> list:
        """Each alternative at d as one formula over s0 and s1: T restricted to it."""
        if d not in self._bodies:
            s1, snaps1 = self.state(1)
            own = {e.get_id() for e in self._base} | {e.get_id() for e in state_leaves(self.rel, s1, snaps1)}
            out = []
            for alt in self._alternatives(d):
                self._check()
                body = and_all([self.rel.at_decision(d, self.rel.state)] + ([alt.pin] if alt.pin is not None else [])
                               + [alt.guard] + [o.cond for o in alt.pre + alt.step.obligations]
                               + [same_state(self.rel, s1, snaps1, alt.step.state, alt.step.snapshots)])
                choices = [c for c in free_constants([body]) if c.get_id() not in own]
                out.append((alt, body, choices))
            self._bodies[d] = out
        return self._bodies[d]

    def at(self, i: int, formula, tag: str = "c"):
        """A formula over s0 (and free choices: move parameters, chance outcomes) read at state i,
        its choices renamed apart from the links' (`name@<tag><i>`)."""
        own = {e.get_id() for e in self._base}
        pairs = list(zip(self._base, state_leaves(self.rel, *self.state(i)))) if i else []
        pairs += [(c, z3.Const(f"{c.decl().name()}@{tag}{i}", c.sort()))
                  for c in free_constants([formula]) if c.get_id() not in own]
        pairs = [(a, b) for a, b in pairs if not a.eq(b)]
        return z3.substitute(formula, *pairs) if pairs else formula

    def link(self, i: int):
        """T(s_i, s_i+1): some alternative of the decision point s_i is at takes s_i to s_i+1."""
        if i not in self._links:
            src, nxt = self.state(i), self.state(i + 1)
            to_src = list(zip(self._base, state_leaves(self.rel, *src)))
            s1 = state_leaves(self.rel, *self.state(1))
            to_nxt = list(zip(s1, state_leaves(self.rel, *nxt)))
            disjuncts = []
            for d in range(len(self.rel.p.decisions)):
                for alt, body, choices in self._alternative_bodies(d):
                    renamed = [(c, z3.Const(f"{c.decl().name()}@u{i}", c.sort())) for c in choices]
                    pairs = ([] if i == 0 else to_src) + ([] if i == 0 else to_nxt) + renamed
                    pairs = [(a, b) for a, b in pairs if not a.eq(b)]
                    disjuncts.append(z3.substitute(body, *pairs) if pairs else body)
            self._links[i] = or_all(disjuncts)
        return self._links[i]
