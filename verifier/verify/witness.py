"""A path the solver found (bounded model checking from the initial state) turned into a game.

The solver's model gives every state along the path, not the moves; the engine gives the moves.
From the initial state, each step is the one legal step (move, chance outcome, or simultaneous
combination) whose successor is the model's next state. The result is an ordinary history that
`rulebook play --replay` replays, so a bounded counterexample is reported like any found by play:
as a real game, checked by the engine. A path the engine cannot follow is an encoding fault,
reported as such rather than trusted.
"""
from __future__ import annotations

import itertools

from ..engine.lib import RuleError
from ..engine.runtime import CHANCE, SIMULTANEOUS, Game, GameState
from ..smt.encode import concrete, is_true
from ..smt.transition import snapshots_of
from ..smt.unroll import same_state
from .explore import apply_step

__all__ = ["game_of_path"]

MAX_JOINT_STEPS = 20000  # combinations tried at one simultaneous node


def _steps(state: GameState) -> list:
    who = state.current_player()
    if who == CHANCE:
        return [a for a, _ in state.chance_outcomes()]
    if who == SIMULTANEOUS:
        per_player = [state.legal_actions(p) for p in range(state.num_players())]
        return [list(c) for c in itertools.islice(itertools.product(*per_player), MAX_JOINT_STEPS)]
    return state.legal_actions(who)


def game_of_path(game: Game, program, path, model, depth: int) -> list | None:
    """The history whose states are the model's s1..s_depth, or None if the engine cannot follow."""
    state = game.new_initial_state()
    for j in range(1, depth + 1):
        target, target_snaps = path.state(j)
        for step in _steps(state):
            nxt = state.clone()
            try:
                apply_step(nxt, step)
            except RuleError:
                continue
            here = same_state(path.rel, concrete(program, nxt.s, dict(game.option_values)),
                              snapshots_of(program, nxt.s), target, target_snaps)
            if is_true(model.eval(here, model_completion=True)):
                state = nxt
                break
        else:
            return None
    return list(state.history)


def failing_step(game: Game, history: list, where: str = ""):
    """The engine's confirmation of a run-time check the solver reached: from the state after
    `history`, a step that raises a rule error — one at `where` if some step's does — as
    (step, its text, the error), or None if no step breaks."""
    from .explore import replay_history, step_text
    state = replay_history(game, history)
    broken = None
    for step in _steps(state):
        nxt = state.clone()
        try:
            apply_step(nxt, step)
            if nxt.is_terminal():  # the outcome is computed where the flow ends
                nxt.final_outcome()
        except RuleError as exc:
            found = (step, step_text(state, step), exc)
            if not where or where in (exc.where or ""):
                return found
            broken = broken or found
    return broken
