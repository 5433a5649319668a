"""Directed search for a game that breaks a property: the falsifier of `rulebook verify`.

Random play (`explore.search`) finds what is common; this module steers play
towards what is rare. Each property gets a *measure* of how close a state is
to breaking it (lower is closer, <= 0 is broken):

- an invariant: its slack (`engine.gen_slack`: `a <= b` is `b - a + 1`, `and`
  is `min`, ...), compiled from the invariant by the engine's code generator;
- `no_deadlock`: the *pressure* at a decision, the fewest legal moves any
  mover has there, as a share of the most ever seen at that decision point;
- `well_formed` (rule errors): none; the swarm's variety is what finds them.

It owns, in the order `falsify` runs them within its time:

- **exhaustive search** (`Falsifier.exhaustive`): breadth-first over distinct
  states, every option taken, up to a number of states. When it exhausts the
  game, every reachable state has been checked and the search stops: what it
  found is all there is, each by a shortest game.
- **beam search** (`Falsifier.beam`): level by level, a few sampled
  successors of each state kept (always the lowest and highest action ids
  among them, and chance outcomes sampled as choices), the `width` states
  closest to breaking the target property kept, duplicates dropped.
- **a swarm of biased policies** (`Falsifier.swarm_run`): whole games where,
  at each decision point, a rule picks the move: the lowest or highest action
  id, a random one, the move whose successor has the most or least of a state
  feature (`Feature`: a variable's sum of values, the mover's own entry of a
  per-player array), or (for an invariant) the one whose successor is closest
  to breaking it. Rules are drawn at random and kept when they come close (a small
  elite per property, mutated one decision point at a time: a cross-entropy
  search over policies), so runs concentrate on what works.

Every state any of them reaches is checked for every open property
(invariants, a mover without a legal move, a rule error raised by a move, a
legal-move computation or an invariant), so a run aimed at one property may
break another. Each finding is the shortest game seen for its property, and is
replayed and confirmed by the engine before it is reported (`confirms`).

Like `explore`, it knows no game, prints nothing (progress is a callback) and
drives the runtime's OpenSpiel-shaped API only; the slack functions are the
one piece of generated code it adds, loaded next to the engine module.
"""
from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Callable

from ..engine.gen_slack import load_slacks
from ..engine.lib import RuleError, show_player
from ..engine.runtime import CHANCE, SIMULTANEOUS, Game, GameState
from ..frontend.typecheck import Program
from ..ir.types import ArrayT, PlayerT, SeqT, SetT
from . import explore
from .explore import DEADLOCK, INVARIANT, RULE_ERROR, Finding

NO_DEADLOCK, WELL_FORMED = "no_deadlock", "well_formed"
SWARM = "swarm of biased policies"
# how often (seconds) a search with a `poll` asks it: a beam level or a policy's game takes
# milliseconds, so a property settled elsewhere stops being aimed at within this
POLL_S = 0.25

# Distinct states the exhaustive search may visit before giving way. It gives way early when a
# level's growth foretells passing this, so on big games a higher cap costs little (measured at
# 2 players, 10,000 against 100,000: the seed games 0.2-0.9 s against 0.9-4.7 s, checkers 0.5
# against 7.3 s), and it lets a game of some tens of thousands of states be proved by
# enumeration (a bundled bridge example: 12,209 decisions, 21.5 s), where the Z3 encoding of its
# outcome, a game-tree search written as definitions, cannot be built.
EXHAUSTIVE_STATES = 100_000
JOINT_MOVES = 10_000         # joint moves of one simultaneous decision the search may enumerate
EXHAUSTIVE_SHARE = 0.1       # ... and its share of the time
MIN_FORECAST_STATES = 100  # states visited before their time forecasts a level's (`_cannot_finish`)
BEAM_WIDTHS = (8, 16, 32, 64, 128)  # a property's beam runs widen in turn, then draw one of these
BEAM_SHARE = 0.1             # the longest one beam run may take, as a share of the time
BEAM_BRANCHING = 6           # successors sampled per state (the lowest and highest always among them)
BEAM_CHANCE = 2              # chance outcomes sampled per chance node
LOOKAHEAD = 16               # moves a swarm rule looks ahead at, at most (sampled beyond)
ELITE = 8                    # swarm policies kept per property
SWARM_SLICE = 1.0            # seconds of swarm runs per turn of a property
LEADER_SHARE = 3             # the strategy that came closer gets this many times the other's time
EDGES = ("low", "high", "random")
# How often each kind of rule is drawn. Steering by the measure pays for invariants (a slack is
# cheap to compute); for deadlocks it means enumerating every successor's legal moves, and on the
# deadlock of a bundled spec (3 players, 60 s of runs) it found 3 games in 26 s where feature
# rules found 15 in 20 s and edge rules 1 in 14 s: there, features get the draws.
RULE_KINDS = {"invariant": ("edge", "feature", "feature", "measure"),
              NO_DEADLOCK: ("edge", "feature", "feature", "feature"),
              WELL_FORMED: ("edge", "feature", "feature")}
EPSILONS = (0.0, 0.05, 0.2)  # a policy's share of uniformly random moves

class _TooWide(Exception):
    """A simultaneous decision with more joint moves than the exhaustive search may visit."""


# ------------------------------------------------------------------ state features


@dataclass(frozen=True)
class Feature:
    """A number read off a state, seen from the mover: the swarm's policies push it up or down.

    `field` is a state field (`V_<var>`); a per-player array is read at the
    mover's index (`mine`); `index` picks one entry of an array; the value is
    the sum of everything inside (a set counts its members, a sequence its length).
    """
    name: str
    field: str
    kind: object
    mine: bool = False
    index: int | None = None

    def value(self, raw, mover: int) -> int:
        v, t = getattr(raw, self.field), self.kind
        if self.mine:
            v, t = v[mover], t.elem
        if self.index is not None:
            v, t = v[self.index], t.elem
        return _total(t, v)


def _total(t, v) -> int:
    if isinstance(t, SetT):
        return v.bit_count()  # sets are bitmasks
    if isinstance(t, SeqT):
        return len(v)
    if isinstance(t, ArrayT):
        return sum(_total(t.elem, x) for x in v)
    return int(v)


ENTRY_FEATURES = 16  # arrays this short also give one feature per entry


def state_features(program: Program, raw) -> list[Feature]:
    """Every variable's total, the mover's own entry of per-player arrays, and short arrays' entries."""
    out = []
    for name, t in program.var_types.items():
        f = f"V_{name}"
        value = getattr(raw, f)
        if isinstance(t, ArrayT) and isinstance(t.index, PlayerT):
            out.append(Feature(f"{name}[mover]", f, t, mine=True))
            inner = value[0] if value else None
            if isinstance(t.elem, ArrayT) and inner is not None and len(inner) <= ENTRY_FEATURES:
                out += [Feature(f"{name}[mover][#{i}]", f, t, mine=True, index=i) for i in range(len(inner))]
            continue
        out.append(Feature(name, f, t))
        if isinstance(t, ArrayT) and len(value) <= ENTRY_FEATURES:
            out += [Feature(f"{name}[#{i}]", f, t, index=i) for i in range(len(value))]
    return out


# ------------------------------------------------------------------ one decision


@dataclass
class Node:
    """A state's decision: who acts and their options (per player at a simultaneous node)."""
    who: int
    options: list
    pressure: float | None = None  # the deadlock measure (player nodes only)


@dataclass(frozen=True)
class Rule:
    """How a swarm policy moves at one decision point: `kind` is "edge" (pick by `edge` alone),
    "feature" (push `feature` in direction `sign`, ties by `edge`) or "measure" (closest to
    breaking the target, ties by `edge`)."""
    kind: str
    edge: str
    feature: int | None = None
    sign: int = 1

    def describe(self, features: list[Feature]) -> str:
        edge = {"low": "lowest action id", "high": "highest action id", "random": "a random move"}[self.edge]
        if self.kind == "feature":
            return f"{'most' if self.sign > 0 else 'least'} {features[self.feature].name}, then {edge}"
        if self.kind == "measure":
            return f"closest to breaking it, then {edge}"
        return edge


@dataclass
class Policy:
    epsilon: float
    rules: dict = field(default_factory=dict)  # decision point (pc) -> Rule, drawn when first needed


# ------------------------------------------------------------------ the search


def _finishes_by(when: float, began: float, visited: int, level: int, following: int) -> bool:
    """Will a breadth-first search that has visited `visited` states since `began`, whose last
    level of `level` states led to `following` new ones, visit the rest by `when`? Only when the
    levels shrink: the ones to come are forecast to shrink alike (following/level each time, a
    geometric sum), at the time per state so far."""
    if following >= level or visited == 0:
        return False
    rest = following / (1.0 - following / level)
    now = time.monotonic()
    return now + rest * (now - began) / visited <= when


def _cannot_finish(when: float, began: float, visited: int, previous: int, level: int) -> bool:
    """Is a breadth-first search that has visited `visited` states since `began`, and whose
    levels grow (`level` states to visit, after `previous`), out of time before it begins the
    level? A complete search visits this level and the next; while the levels grow, the next is
    forecast `level / previous` times this one, each state at the time per state so far. On a
    seed game, whose states are slow to visit, the fourth level (3,360 states, 5 s) was visited
    before the search gave way to the next one's forecast (47,000). The forecast is pessimistic
    where the levels later shrink (a deal played out): it is held against the stretched time."""
    if previous == 0 or level <= previous or visited < MIN_FORECAST_STATES:
        return False
    now = time.monotonic()
    per_state = (now - began) / visited
    return now + per_state * (level + level * level / previous) > when


class Falsifier:
    """One directed search: the open properties, the findings, the measures and the clock."""

    def __init__(self, game: Game, program: Program, properties, *, seed: int, deadline: float,
                 max_steps: int = 5000, poll: Callable[[dict], set | None] | None = None):
        self.game = game
        self.m = game.module
        self.program = program
        self.rng = random.Random(seed)
        self.deadline = deadline
        self.max_steps = max_steps
        self.start = time.monotonic()
        names = [inv[0] for inv in self.m.INVARIANTS]
        wanted = set(properties)
        unknown = wanted - set(names) - {NO_DEADLOCK, WELL_FORMED}
        if unknown:
            raise ValueError(f"no such property: {', '.join(sorted(unknown))}")
        self.open: set[str] = wanted
        self.found: dict[str, Finding] = {}
        self.extremes: dict = {}  # (player, "low"/"high") -> (final score, game) among the ends visited
        self.slacks = dict(zip(names, load_slacks(program, self.m)))
        self.inv_info = {inv[0]: (inv[1], inv[3]) for inv in self.m.INVARIANTS}
        self.most_legal: dict[int, int] = {}   # decision point -> most legal moves a mover had there
        self.features: list[Feature] | None = None
        self.varying: dict[int, list[int]] = {}  # decision point -> features its moves change
        self.elite: dict[str, list[tuple[float, int, Policy]]] = {}
        self.policies_tried = 0
        self.policy: Policy | None = None  # the swarm policy playing now
        # asked every POLL_S while searching, with the findings so far (by property): the
        # properties settled elsewhere since (no longer targets), or None: stop now (a search
        # racing the proofs, `lanes.py`, which passes on each finding as it comes)
        self.poll = poll
        self._polled = 0.0

    # -------------------------------------------------------------- bookkeeping
    def out_of_time(self) -> bool:
        now = time.monotonic()
        if self.poll is not None and now >= self._polled + POLL_S:
            self._polled = now
            settled = self.poll(self.found)
            if settled is None:
                self.deadline = now
            else:
                self.open -= settled
        return now > self.deadline

    @property
    def done(self) -> bool:
        return not self.open or self.out_of_time()

    def note(self, prop: str, finding: Finding, how: str) -> None:
        """Keep the shortest game per property; a property found is no longer a target."""
        if prop not in self.open and prop not in self.found:
            return  # not asked for
        old = self.found.get(prop)
        if old is None or len(finding.history) < len(old.history):
            if how == SWARM and self.policy is not None:
                how = f"{how} ({self.describe(self.policy)})"
            finding.found_by = how
            finding.seconds = time.monotonic() - self.start
            self.found[prop] = finding
        self.open.discard(prop)

    def wanted(self, prop: str) -> bool:
        return prop in self.open or prop in self.found

    def rule_error(self, exc: RuleError, history: list, how: str, step=None, where: str = "") -> None:
        if not self.wanted(WELL_FORMED):
            return
        old = self.found.get(WELL_FORMED)
        if old is not None and len(old.history) <= len(history):
            return
        text = ""
        if step is not None:  # the step is not in the history: replaying it raises the error
            text = explore.step_text(explore.replay_history(self.game, history), step)
        self.note(WELL_FORMED, Finding(RULE_ERROR, RULE_ERROR, exc.plain, exc.where or where, list(history), step,
                                       text), how)

    # -------------------------------------------------------------- one state
    def visit(self, state: GameState, how: str) -> Node | None:
        """Check `state` for every open property; its decision, or None where play cannot go on."""
        history = state.history
        try:
            broken = state.check_invariants()
        except RuleError as exc:  # an invariant that cannot be evaluated here
            self.rule_error(exc, history, how)
            return None
        for name, sentence, where in broken:
            if self.wanted(name):
                old = self.found.get(name)
                if old is None or len(history) < len(old.history):
                    self.note(name, Finding(INVARIANT, name, sentence, where, list(history)), how)
        if state.is_terminal():
            try:
                scores = state.final_outcome()[0]
            except RuleError as exc:  # the final scoring breaks a declared type
                self.rule_error(exc, history, how)
                return None
            for p, v in enumerate(scores):  # a complete exhaustive search makes these the bounds
                lo, hi = self.extremes.get((p, "low")), self.extremes.get((p, "high"))
                if lo is None or v < lo[0]:
                    self.extremes[(p, "low")] = (v, list(history))
                if hi is None or v > hi[0]:
                    self.extremes[(p, "high")] = (v, list(history))
            return None
        if len(history) >= self.max_steps:
            return None
        where = self.m.DECISIONS[state.s.pc][4]
        who = state.current_player()
        try:
            if who == CHANCE:
                return Node(CHANCE, [a for a, _ in state.chance_outcomes()])
            movers = range(state.num_players()) if who == SIMULTANEOUS else [who]
            options = [state.legal_actions(p) for p in movers]
        except RuleError as exc:  # a requirement or a chance source failed to evaluate
            self.rule_error(exc, history, how, where=where)
            return None
        for p, legal in zip(movers, options):
            if not legal:
                if self.wanted(NO_DEADLOCK):
                    old = self.found.get(NO_DEADLOCK)
                    if old is None or len(history) < len(old.history):
                        at = " at a simultaneous decision" if who == SIMULTANEOUS else ""
                        self.note(NO_DEADLOCK, Finding(DEADLOCK, DEADLOCK, f"{show_player(p)} has no legal move{at}",
                                                       where, list(history)), how)
                return None
        pc = state.s.pc
        fewest = min(len(legal) for legal in options)
        most = self.most_legal[pc] = max(self.most_legal.get(pc, 0), max(len(legal) for legal in options))
        return Node(who, options if who == SIMULTANEOUS else options[0], fewest / most)

    def successor(self, state: GameState, step, how: str) -> GameState | None:
        """A copy of `state` after `step`, or None if the step raises a rule error (noted)."""
        child = state.clone()
        try:
            explore.apply_step(child, step)
        except RuleError as exc:
            self.rule_error(exc, state.history, how, step=step)
            return None
        return child

    def measure(self, target: str, state: GameState, node: Node | None) -> float | None:
        """How close `state` is to breaking `target` (lower is closer); None where it says nothing."""
        if target == NO_DEADLOCK:
            return node.pressure if node is not None else None
        fn = self.slacks.get(target)
        if fn is None or state.is_terminal():
            return None
        try:
            return fn(state.s)
        except Exception:  # a partial operation: the invariant's own check reports it as a rule error
            return None

    # -------------------------------------------------------------- exhaustive search
    def exhaustive(self, max_states: int, deadline: float, stretch_to: float | None = None) -> bool:
        """Breadth-first over distinct states; True when every reachable state was checked.
        With `stretch_to` (a later deadline), the search goes on past `deadline` while its levels
        shrink and their forecast (`_finishes_by`) says it ends by then: a complete search is a
        proof, and the game trees that end (a deal played out) narrow level by level."""
        how = "exhaustive search"
        began = time.monotonic()
        limit = deadline
        self.graph = {}  # state key -> the keys of its successors (for `acyclic`)
        try:
            first = self.game.new_initial_state()
        except RuleError as exc:  # the game breaks a rule before its first state: that is all of it
            self.rule_error(exc, [], how)
            return True
        seen = {explore.state_key(first)}
        level = [first]
        before = 0  # the size of the level before `level`
        while level:
            # (only against a stretched deadline: the forecast is pessimistic where the growth
            # slows, and a query's 2 s share gave up on a small board game under load where it completes)
            if stretch_to is not None and _cannot_finish(stretch_to, began, len(seen) - len(level), before,
                                                         len(level)):
                return False
            before = len(level)
            following = []
            for state in level:
                if time.monotonic() > limit or len(seen) > max_states:
                    return False
                node = self.visit(state, how)
                if node is None:
                    if not state.is_terminal() and len(state.history) >= self.max_steps:
                        return False  # not the whole game
                    continue
                try:
                    steps = self.all_steps(node)
                except _TooWide:
                    return False
                edges = self.graph.setdefault(explore.state_key(state), set())
                for step in steps:
                    child = self.successor(state, step, how)
                    if child is None:
                        continue
                    key = explore.state_key(child)
                    edges.add(key)
                    if key not in seen:
                        seen.add(key)
                        following.append(child)
            # give way early when the next level, growing as this one did, would pass the limit
            if len(seen) + len(following) * len(following) // max(1, len(level)) > max_states:
                return False
            limit = deadline
            if stretch_to is not None and _finishes_by(stretch_to, began, len(seen) - len(following), len(level),
                                                         len(following)):
                limit = stretch_to
            level = following
        return True

    def acyclic(self) -> bool:
        """After a complete exhaustive search: no state can come back (every game ends). An
        iterative depth-first search for a back edge over the recorded successors."""
        colour: dict = {}  # key -> 1 on the current path, 2 done
        for root in self.graph:
            if root in colour:
                continue
            colour[root] = 1
            stack = [(root, iter(self.graph.get(root, ())))]
            while stack:
                key, children = stack[-1]
                for child in children:
                    c = colour.get(child)
                    if c == 1:
                        return False
                    if c is None:
                        colour[child] = 1
                        stack.append((child, iter(self.graph.get(child, ()))))
                        break
                else:
                    colour[key] = 2
                    stack.pop()
        return True

    @staticmethod
    def all_steps(node: Node) -> list:
        if node.who != SIMULTANEOUS:
            return list(node.options)
        size = 1
        for legal in node.options:
            size *= len(legal)
        if size > JOINT_MOVES:  # more joint moves than the search may enumerate at one state
            raise _TooWide
        joint = [[]]
        for legal in node.options:
            joint = [j + [a] for j in joint for a in legal]
        return joint

    # -------------------------------------------------------------- beam search
    def sample_steps(self, node: Node, rng: random.Random, branching: int) -> list:
        if node.who == CHANCE:
            return rng.sample(node.options, min(BEAM_CHANCE, len(node.options)))
        if node.who == SIMULTANEOUS:
            joint = [[legal[0] for legal in node.options], [legal[-1] for legal in node.options]]
            joint += [[rng.choice(legal) for legal in node.options] for _ in range(branching - 2)]
            unique = {tuple(j): j for j in joint}
            return list(unique.values())
        legal = node.options
        if len(legal) <= branching:
            return list(legal)
        return [legal[0], legal[-1]] + rng.sample(legal[1:-1], branching - 2)

    def beam(self, target: str, width: int, rng: random.Random, until: float) -> float:
        """One beam search towards breaking `target`, stopped at `until`; the lowest measure it reached."""
        how = f"beam search (width {width})"
        try:
            first = self.game.new_initial_state()
        except RuleError as exc:
            self.rule_error(exc, [], how)
            return float("inf")
        best = float("inf")
        # a state's score: its measure; at chance nodes (no pressure) the last one seen on its way
        beam = [(first, self.visit(first, how), 1.0)]
        while beam and not self.done and target in self.open:
            scored, seen = [], set()
            for state, node, score in beam:
                if node is None:
                    continue
                for step in self.sample_steps(node, rng, BEAM_BRANCHING):
                    child = self.successor(state, step, how)
                    if child is None:
                        continue
                    key = explore.state_key(child)
                    if key in seen:
                        continue
                    seen.add(key)
                    child_node = self.visit(child, how)
                    if child_node is None:
                        continue
                    m = self.measure(target, child, child_node)
                    s = score if m is None else m
                    best = min(best, s)
                    scored.append((s, rng.random(), child, child_node))
                if time.monotonic() > until:
                    return best
            scored.sort(key=lambda x: (x[0], x[1]))
            beam = [(c, n, s) for s, _, c, n in scored[:width]]
        return best

    # -------------------------------------------------------------- swarm
    def feature_list(self, state: GameState) -> list[Feature]:
        if self.features is None:
            self.features = state_features(self.program, state.s)
        return self.features

    def lookahead(self, state: GameState, node: Node, rng: random.Random, how: str) -> list:
        """(action, successor) for the mover's moves, at most `LOOKAHEAD` of them (the lowest and
        highest action ids always among them)."""
        legal = node.options
        if len(legal) > LOOKAHEAD:
            legal = [legal[0], legal[-1]] + sorted(rng.sample(legal[1:-1], LOOKAHEAD - 2))
        out = []
        for a in legal:
            child = self.successor(state, a, how)
            if child is not None:
                out.append((a, child))
        return out

    def learn_varying(self, pc: int, mover: int, successors: list) -> None:
        """Which features the moves at decision point `pc` change: the ones worth steering by."""
        raws = [c.s for _, c in successors]
        varying = []
        for j, f in enumerate(self.features or ()):
            values = {f.value(r, mover) for r in raws}
            if len(values) > 1:
                varying.append(j)
        self.varying[pc] = varying

    def draw_rule(self, target: str, pc: int, rng: random.Random) -> Rule:
        edge = rng.choice(EDGES)
        kind = rng.choice(RULE_KINDS.get(target, RULE_KINDS["invariant"]))
        varying = self.varying.get(pc, [])
        if kind == "feature" and varying:
            return Rule("feature", edge, rng.choice(varying), rng.choice((1, -1)))
        if kind == "measure":
            return Rule("measure", edge)
        return Rule("edge", edge)

    def pick_by_edge(self, options: list, edge: str, rng: random.Random):
        return options[0] if edge == "low" else options[-1] if edge == "high" else rng.choice(options)

    def swarm_run(self, target: str, policy: Policy, rng: random.Random) -> float:
        """One game under `policy`; the lowest measure of `target` it reached."""
        how = SWARM
        self.policy = policy
        try:
            state = self.game.new_initial_state()
        except RuleError as exc:
            self.rule_error(exc, [], how)
            return float("inf")
        best = float("inf")
        features = self.feature_list(state)
        while not self.out_of_time():
            node = self.visit(state, how)
            if node is None:
                break
            m = self.measure(target, state, node)
            if m is not None:
                best = min(best, m)
            if node.who == CHANCE:
                step = rng.choice(node.options)  # outcomes are equally likely
            elif node.who == SIMULTANEOUS:
                rule = policy.rules.setdefault(state.s.pc, Rule("edge", rng.choice(EDGES)))
                step = [self.pick_by_edge(legal, rule.edge, rng) for legal in node.options]
            elif rng.random() < policy.epsilon:
                step = rng.choice(node.options)
            else:
                step = self.choose(target, policy, state, node, features, rng, how)
                if step is None:
                    break  # every move looked at raised a rule error (noted)
            child = self.successor(state, step, how)
            if child is None:
                break
            state = child
        return best

    def choose(self, target, policy: Policy, state: GameState, node: Node, features, rng, how):
        pc, mover = state.s.pc, node.who
        rule = policy.rules.get(pc)
        successors = None
        if rule is None:
            if pc not in self.varying:
                successors = self.lookahead(state, node, rng, how)
                self.learn_varying(pc, mover, successors)
            rule = policy.rules[pc] = self.draw_rule(target, pc, rng)
        if rule.kind == "edge":
            return self.pick_by_edge(node.options, rule.edge, rng)
        if successors is None:
            successors = self.lookahead(state, node, rng, how)
        if not successors:  # every move looked at raised a rule error (noted); others may not
            return rng.choice(node.options) if len(node.options) > LOOKAHEAD else None
        if rule.kind == "feature":
            f = features[rule.feature]
            values = [rule.sign * f.value(c.s, mover) for _, c in successors]
        else:  # closest to breaking the target (an invariant: `RULE_KINDS`): the lowest slack
            values = []
            for _, c in successors:
                m = self.measure(target, c, None)
                values.append(-m if m is not None else float("-inf"))
        best = max(values)
        return self.pick_by_edge([a for (a, _), v in zip(successors, values) if v == best], rule.edge, rng)

    def next_policy(self, target: str, rng: random.Random) -> Policy:
        """A fresh random policy, or (half the time) an elite one with one decision point's rule redrawn."""
        elite = self.elite.get(target, [])
        if elite and rng.random() < 0.5:
            _, _, parent = rng.choice(elite)
            child = Policy(parent.epsilon, dict(parent.rules))
            if child.rules and rng.random() < 0.8:
                pc = rng.choice(sorted(child.rules))
                child.rules[pc] = self.draw_rule(target, pc, rng)
            else:
                child.epsilon = rng.choice(EPSILONS)
            return child
        return Policy(rng.choice(EPSILONS))

    def swarm(self, target: str, seconds: float, rng: random.Random) -> float:
        """Swarm runs for `seconds` (at least one); the lowest measure reached."""
        until = min(self.deadline, time.monotonic() + seconds)
        best = float("inf")
        while True:
            policy = self.next_policy(target, rng)
            reached = self.swarm_run(target, policy, rng)
            self.policies_tried += 1
            best = min(best, reached)
            if target != WELL_FORMED:  # the elite: lowest measure first, then the newest
                elite = self.elite.setdefault(target, [])
                elite.append((reached, -self.policies_tried, policy))
                elite.sort(key=lambda x: (x[0], x[1]))
                del elite[ELITE:]
            if time.monotonic() > until or self.done or target not in self.open:
                return best

    def describe(self, policy: Policy) -> str:
        """A policy in words, e.g. `at spec.rules:12:5 least score[mover], then lowest action id`."""
        rules = "; ".join(f"at {self.m.DECISIONS[pc][4]} {rule.describe(self.features or [])}"
                          for pc, rule in sorted(policy.rules.items()))
        return f"{rules}; {policy.epsilon:.0%} random moves" if rules else f"{policy.epsilon:.0%} random moves"


# ------------------------------------------------------------------ the entry point


def falsify(game: Game, program: Program, properties, *, seconds: float, seed: int,
            progress: Callable[[str], None] | None = None, max_steps: int = 5000,
            strategies: tuple = ("exhaustive", "beam", "swarm"), stats: dict | None = None,
            poll: Callable[[dict], set | None] | None = None, stretch: float | None = None) -> list[Finding]:
    """Search up to `seconds` for games that break `properties` (invariant names, `no_deadlock`,
    `well_formed`); the shortest game found per broken property, each confirmed by replay.
    `stretch`: seconds the exhaustive search may take in all, past its share of `seconds`, where
    its forecast says it will check every state by then (`Falsifier.exhaustive`).

    `strategies` selects among exhaustive search, beam search and the swarm (all by default; tests
    select one to show what it finds alone). Properties take turns; for each, the beam and the
    swarm share the time, the one that came closer to breaking it with `LEADER_SHARE` times the other's.

    `stats`, when given, gets `complete`: True when the exhaustive search checked every reachable
    state (then a property it did not break holds in every one: a proof by enumeration), and
    `acyclic`: complete, and no reachable state can come back (then every game ends).

    `poll`, when given, is asked every `POLL_S` seconds with the findings so far (property ->
    Finding, not yet confirmed): the properties settled elsewhere since (they stop being
    targets), or None to stop the search there (its findings so far returned).
    """
    start = time.monotonic()
    search = Falsifier(game, program, properties, seed=seed, deadline=start + seconds, max_steps=max_steps,
                       poll=poll)
    rng = random.Random(seed)

    def say(text):
        if progress is not None:
            progress(text)

    if "exhaustive" in strategies:
        complete = search.exhaustive(EXHAUSTIVE_STATES, start + EXHAUSTIVE_SHARE * seconds,
                                     None if stretch is None else start + max(stretch, EXHAUSTIVE_SHARE * seconds))
        if stats is not None:
            stats["complete"] = complete
            stats["acyclic"] = complete and search.acyclic()
            # (player, "low"/"high") -> (final score, game): over every end the search reached
            stats["extremes"] = search.extremes
        if complete:
            say("exhaustive search: every reachable state checked")
            return _confirmed(game, search)
    directed = [s for s in ("beam", "swarm") if s in strategies]
    closest: dict[tuple[str, str], float] = {}  # (property, strategy) -> lowest measure reached
    beams: dict[str, int] = {}                   # property -> beam runs so far
    spent: dict[tuple[str, str], float] = {}    # (property, strategy) -> seconds
    while directed and not search.done:
        for target in sorted(search.open):
            if search.done:
                break
            if target == WELL_FORMED or len(directed) == 1:
                strategy = "swarm" if "swarm" in directed else directed[0]
            else:  # both, the one that came closer with three times the time of the other
                ahead = min(directed, key=lambda s: (closest.get((target, s), float("inf")), s))
                behind = [s for s in directed if s != ahead][0]
                strategy = ahead if spent.get((target, ahead), 0.0) <= LEADER_SHARE * spent.get((target, behind), 0.0) \
                    else behind
            t = time.monotonic()
            if strategy == "beam":  # narrow first: a wide beam through a long game takes long
                k = beams[target] = beams.get(target, 0) + 1
                width = BEAM_WIDTHS[k - 1] if k <= len(BEAM_WIDTHS) else rng.choice(BEAM_WIDTHS)
                until = min(search.deadline, t + max(SWARM_SLICE, BEAM_SHARE * seconds))
                reached = search.beam(target, width, rng, until)
            else:
                reached = search.swarm(target, SWARM_SLICE, rng)
            key = (target, strategy)
            spent[key] = spent.get(key, 0.0) + time.monotonic() - t
            closest[key] = min(closest.get(key, float("inf")), reached)
            if target in search.found:
                f = search.found[target]
                say(f"directed search: {target} broken after {f.seconds:.1f} s by {f.found_by} "
                    f"({len(f.history)} steps)")
    return _confirmed(game, search)


def _confirmed(game: Game, search: Falsifier) -> list[Finding]:
    return [f for f in search.found.values() if confirms(game, f)]


def confirms(game: Game, finding: Finding) -> bool:
    """Replay `finding`'s game on a fresh engine state: the failure must show again."""
    try:
        state = explore.replay_history(game, finding.history)
    except RuleError:
        return finding.kind == RULE_ERROR and not finding.history  # the game's set-up itself breaks
    if finding.kind == INVARIANT:
        try:
            return finding.name in [name for name, _, _ in state.check_invariants()]
        except RuleError:
            return False
    if finding.kind == DEADLOCK:
        if state.is_terminal():
            return False
        who = state.current_player()
        if who == CHANCE:
            return False
        movers = range(state.num_players()) if who == SIMULTANEOUS else [who]
        try:
            return any(not state.legal_actions(p) for p in movers)
        except RuleError:
            return False
    if finding.kind == RULE_ERROR:
        try:
            if finding.failing_step is not None:
                explore.apply_step(state, finding.failing_step)
                if state.is_terminal():  # the step ends the game: the error may be in its outcome
                    state.final_outcome()
            else:
                state.check_invariants()
                if state.is_terminal():
                    state.final_outcome()
                else:
                    if state.current_player() == CHANCE:
                        state.chance_outcomes()
                    else:
                        who = state.current_player()
                        for p in (range(state.num_players()) if who == SIMULTANEOUS else [who]):
                            state.legal_actions(p)
        except RuleError:
            return True
        return False
    return False
