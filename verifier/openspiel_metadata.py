"""What OpenSpiel's GameType and GameInfo say about one loaded game, and how each is found.

The OpenSpiel adapter (`openspiel.py`) asks this module for the figures of a game as loaded
(a player count and the options' actual values), never for the spec's declared maxima alone:

- `census`: an exhaustive walk over the game's distinct states (the engine's `state_key`), up to
  a number of states.  When it finishes, every figure it gives is exact: the longest game in
  decision nodes, the most moves one player makes, the highest legal action id and chance
  outcome id, and the range of the returns.
- `static_length`: otherwise, the flow's loops bound (`verify/length.py`) with each `while`
  measure's upper bound worked out with the options fixed at their loaded values
  (`bound_with_options`), so a horizon option of 10 bounds the game by 10, not by the option's
  declared maximum.
- `static_information`: perfect information unless a decision is simultaneous, a state
  variable is not public, or a value no player sees is kept in a flow variable: a chance draw
  read after the next decision point, or a flow variable a move sets.

Lengths count decision nodes (a simultaneous node once), not chance nodes: OpenSpiel's
`MaxGameLength` ("outcomes of chance nodes are not included").
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

from .engine.lib import RuleError
from .engine.runtime import CHANCE, SIMULTANEOUS, Game as RuntimeGame
from .frontend.typecheck import Program, interval
from .ir import nodes as N
from .ir.types import IntT
from .verify.explore import state_key
from .verify.length import max_length

CENSUS_MAX_STATES = 10_000  # distinct states the census visits before it gives way to static bounds
CENSUS_MAX_CHARS = 1_000_000 # ... and fewer when states are large: this many characters of printed
                            # state keys (at the initial state's size), so that a census that
                            # cannot finish costs about as much on a large game as on a small one


@dataclass(frozen=True)
class Census:
    """Exact figures of a game whose every reachable state was visited."""

    states: int
    longest: int            # decision nodes on the longest game (OpenSpiel's max_game_length)
    own_moves: int          # the most moves one player makes in one game
    actions: int            # 1 + the highest action id legal anywhere
    chance_outcomes: int    # 1 + the highest chance outcome id
    min_return: float
    max_return: float


class _Incomplete(Exception):
    """The census cannot finish: too many states, a cycle, or a state the rules do not cover."""


@dataclass
class _Frame:
    key: tuple
    state: object
    who: int
    steps: list
    next: int = 0
    longest: int = 0
    own: list | None = None


def census(rgame: RuntimeGame, max_states: int | None = None, max_chars: int | None = None) -> Census | None:
    """Visit every reachable state once (depth first); None when the game has more states than
    the budget, can come back to a state (no longest game), or stops with a rule error
    somewhere (the static bounds then stand, and play reports the error)."""
    try:
        root = rgame.new_initial_state()
        max_states = CENSUS_MAX_STATES if max_states is None else max_states
        max_chars = CENSUS_MAX_CHARS if max_chars is None else max_chars
        budget = min(max_states, max_chars // max(1, len(repr(state_key(root)))))
        return _Walk(rgame, budget).run(root)
    except (_Incomplete, RuleError, RecursionError):
        return None


class _Walk:
    def __init__(self, rgame: RuntimeGame, max_states: int):
        self.n = rgame.num_players
        self.rgame = rgame
        self.max_states = max_states
        self.done: dict[tuple, tuple[int, list]] = {}  # key -> (longest, most own moves per player)
        self.on_path: set[tuple] = set()
        self.max_action = self.max_outcome = -1
        self.returns: list[float] = []

    def run(self, root) -> Census:
        stack = [self.frame(root, state_key(root))]
        result = None
        while stack:
            top = stack[-1]
            if top.next < len(top.steps):
                step = top.steps[top.next]
                top.next += 1
                child = top.state.clone()
                child.apply_actions(step) if isinstance(step, list) else child.apply_action(step)
                key = state_key(child)
                if key in self.on_path:
                    raise _Incomplete("a state comes back: no longest game")
                if key in self.done:
                    self.merge(top, self.done[key])
                else:
                    stack.append(self.frame(child, key))
                continue
            stack.pop()
            self.on_path.discard(top.key)
            value = self.finish(top)
            self.done[top.key] = value
            if stack:
                self.merge(stack[-1], value)
            else:
                result = value
        longest, own = result
        return Census(states=len(self.done), longest=longest, own_moves=max(own, default=0),
                      actions=self.max_action + 1, chance_outcomes=self.max_outcome + 1,
                      min_return=min(self.returns), max_return=max(self.returns))

    def frame(self, state, key: tuple) -> _Frame:
        if len(self.done) + len(self.on_path) >= self.max_states:
            raise _Incomplete("too many states")
        self.on_path.add(key)
        frame = _Frame(key, state, state.current_player(), [], own=[0] * self.n)
        if state.is_terminal():
            self.returns.extend(state.returns())
        elif frame.who == CHANCE:
            frame.steps = [a for a, _ in state.chance_outcomes()]
            self.max_outcome = max(self.max_outcome, max(frame.steps))
        elif frame.who == SIMULTANEOUS:
            per_player = [state.legal_actions(p) for p in range(self.n)]
            if not all(per_player):
                raise _Incomplete("a player has no legal move")
            self.max_action = max(self.max_action, max(max(legal) for legal in per_player))
            joint = 1
            for legal in per_player:
                joint *= len(legal)
            if joint > self.max_states:
                raise _Incomplete("too many joint moves")
            frame.steps = [list(j) for j in itertools.product(*per_player)]
        else:
            frame.steps = state.legal_actions()
            if not frame.steps:
                raise _Incomplete("a player has no legal move")
            self.max_action = max(self.max_action, frame.steps[-1])
        return frame

    def merge(self, frame: _Frame, value: tuple[int, list]) -> None:
        longest, own = value
        frame.longest = max(frame.longest, longest)
        frame.own = [max(a, b) for a, b in zip(frame.own, own)]

    def finish(self, frame: _Frame) -> tuple[int, list]:
        own = list(frame.own)
        if frame.who == SIMULTANEOUS:
            own = [k + 1 for k in own]
        elif frame.who >= 0:
            own[frame.who] += 1
        decision = 1 if frame.who >= 0 or frame.who == SIMULTANEOUS else 0
        return frame.longest + decision if frame.steps else 0, own


# ---------------------------------------------------------------- static bounds

def bound_with_options(program: Program, expr, options: dict, n: int) -> IntT:
    """An interval for an integer expression with the options (and the player count) fixed at
    their loaded values: interval arithmetic where they occur, the type checker's range elsewhere."""
    op = type(expr).__name__
    if op == "IntLit":
        return IntT(expr.value, expr.value)
    if op == "Name":
        value = options.get(expr.name) if expr.name not in program.flow_locals else None
        if isinstance(value, int) and not isinstance(value, bool) and isinstance(program.option_types.get(expr.name), IntT):
            return IntT(value, value)
        if expr.name == "num_players" and expr.name not in program.flow_locals:
            return IntT(n, n)
    if op == "Binary" and expr.op in ("+", "-", "*", "//", "%"):
        left = bound_with_options(program, expr.left, options, n)
        right = bound_with_options(program, expr.right, options, n)
        return _narrowed(program, expr, interval(expr.op, (left.lo, left.hi), (right.lo, right.hi)))
    if op == "Unary" and expr.op == "-":
        inner = bound_with_options(program, expr.operand, options, n)
        return IntT(-inner.hi, -inner.lo)
    if op == "IfExpr":
        a = bound_with_options(program, expr.then, options, n)
        b = bound_with_options(program, expr.orelse, options, n)
        return _narrowed(program, expr, IntT(min(a.lo, b.lo), max(a.hi, b.hi)))
    t = program.type_of(expr)
    if not isinstance(t, IntT):
        raise _Incomplete(f"not an integer: {t}")
    return t


def _narrowed(program: Program, expr, found: IntT) -> IntT:
    """The tighter of the interval found and the type checker's own (both are sound)."""
    declared = program.type_of(expr)
    if isinstance(declared, IntT):
        return IntT(max(found.lo, declared.lo), min(found.hi, declared.hi))
    return found


def static_length(rgame: RuntimeGame) -> int | None:
    """Decision nodes on the longest game by the flow's loops with the loaded options, or None
    when a `while` around a decision point has no measure."""
    program = rgame.engine.program

    def measure_hi(expr) -> int:
        try:
            return bound_with_options(program, expr, rgame.option_values, rgame.num_players).hi
        except _Incomplete:
            return program.type_of(expr).hi

    bound = max_length(program, rgame.num_players, measure_hi)
    return bound.decisions


def static_information(program: Program) -> bool:
    """Perfect information when nothing is hidden from the mover: no simultaneous decision, every
    state variable public, and no chance draw kept in a flow variable past a decision point
    (flow variables are not observed: a draw read only before the next decision reaches the
    players through the public state it sets; one read later is seen by no one)."""
    if any(d.visibility != "public" for d in program.vars.values()):
        return False
    if program.flow is None:
        return True
    if any(type(node).__name__ == "Simultaneous" for node in _descendants(program.flow)):
        return False
    if any(_kept_past_a_decision(program, block) for block in _descendants(program.flow)
           if type(block).__name__ == "Block"):
        return False
    return not any(_root_name(node.target) in program.flow_locals  # a move's secret doing
                   for move in _descendants(program.flow) if type(move).__name__ == "Move"
                   for node in _descendants(move.body) if type(node).__name__ in ("Assign", "CollectionEdit"))


def _descendants(node):
    yield node
    for child in node.children():
        yield from _descendants(child)


def _kept_past_a_decision(program: Program, block) -> bool:
    """A chance draw into a flow variable in this block that is read anywhere but in the
    statements right after it, before the next statement that holds a decision."""
    for i, st in enumerate(block.stmts):
        if type(st).__name__ != "Chance" or st.var not in program.flow_locals:
            continue
        allowed: set[int] = set()
        for later in block.stmts[i + 1:]:
            if any(type(node).__name__ in ("Choose", "Simultaneous") for node in _descendants(later)):
                break
            allowed.update(id(node) for node in _descendants(later))
        reads = [node for node in _descendants(program.flow)
                 if type(node).__name__ == "Name" and node.name == st.var]
        if any(id(node) not in allowed for node in reads):
            return True
    return False


def _root_name(target) -> str | None:
    while type(target).__name__ in ("Index", "FieldAccess"):
        target = target.base
    return target.name if type(target).__name__ == "Name" else None
