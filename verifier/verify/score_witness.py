"""Games that reach a seat's highest or lowest final score: the witnesses `verify` sets beside the
proved score bounds.

Random games rarely come near a seat's extremes (in a game where points are earned by careful
placement, random play scores a fraction of what a careful player makes), so the gap between the proved bound and the best
game seen says more about the witnesses than about the bound. This is a beam search on the
seat's score: from each state in the beam a few steps (every move when there are few; chance
outcomes too, since any outcome can happen, a witness may pick them), keeping the states whose
current score for the seat is best (ties at random); a finished game's final score is a witness.
Every witness is an ordinary history, replayable with `rulebook play --replay`.
"""
from __future__ import annotations

import random
import time

from ..engine.lib import RuleError
from ..engine.play import random_step
from ..engine.runtime import CHANCE, SIMULTANEOUS, Game, GameState
from .explore import apply_step, state_key

__all__ = ["extreme_games"]

WIDTH = 16  # states kept per depth in the first round (doubled each round)
BRANCHING = 6  # steps tried from each state
ROUND_GROWTH = 2  # a round of beams twice as wide takes about twice as long


def _steps(state: GameState, rng: random.Random) -> list:
    who = state.current_player()
    if who == CHANCE:
        options = [a for a, _ in state.chance_outcomes()]
    elif who == SIMULTANEOUS:
        legal = [state.legal_actions(p) for p in range(state.num_players())]
        return [[rng.choice(options) for options in legal] for _ in range(BRANCHING)]
    else:
        options = state.legal_actions(who)
    return options if len(options) <= BRANCHING else rng.sample(options, BRANCHING)


def extreme_games(game: Game, *, deadline: float, seed: int, max_steps: int = 5000,
                  bounds: dict | None = None, known: dict | None = None) -> dict:
    """{(seat, "low" | "high"): (final score, history)} found by beam searches until `deadline`
    (time.monotonic()); seats and directions take turns, so each gets a share.

    `bounds`: {(seat, aim): the proved bound} where known. An aim whose witness meets its bound
    is done (no game scores beyond it), and the search ends when every aim is: on a game whose
    scores take a few values (a sealed bid), the first round meets them all. `known`: witnesses
    found before (random play's), in the same form: the search starts from them."""
    rng = random.Random(seed)
    found: dict = dict(known or {})
    bounds = bounds or {}
    try:
        seats = game.new_initial_state().num_players()
    except RuleError:
        return found
    sign = {"high": 1, "low": -1}

    def met(key) -> bool:
        return key in bounds and key in found and sign[key[1]] * found[key][0] >= sign[key[1]] * bounds[key]

    aims = [(p, aim) for p in range(seats) for aim in ("high", "low")]
    width = WIDTH
    while time.monotonic() < deadline:  # rounds of ever wider beams, while time is left ...
        aims = [key for key in aims if not met(key)]
        if not aims:
            break  # ... while some aim can still find a better game ...
        before = {key: value for key, (value, _) in found.items()}
        started = time.monotonic()
        for k, (p, aim) in enumerate(aims):
            if met((p, aim)):
                continue
            share = max(0.0, deadline - time.monotonic()) / (len(aims) - k)
            _beam(game, p, aim, rng, width, min(deadline, time.monotonic() + share), max_steps, found,
                  bounds.get((p, aim)))
        if width > WIDTH and {key: value for key, (value, _) in found.items()} == before:
            break  # ... while a wider beam still finds better games (a small game: at once) ...
        if ROUND_GROWTH * (time.monotonic() - started) > deadline - time.monotonic():
            # ... and while the next round can end: cut short, each of its beams stops before the
            # game ends (a dice game's second round ran 6 s of a count's 14 and found nothing)
            break
        width *= 2
    return found


def _beam(game: Game, seat: int, aim: str, rng: random.Random, width: int, until: float, max_steps: int,
          found: dict, bound: int | None = None) -> None:
    """One beam search for the seat's `aim`, until `until` or a witness meets `bound`."""
    sign = 1 if aim == "high" else -1
    try:
        beam = [game.new_initial_state()]
    except RuleError:
        return
    depth = 0
    while beam and time.monotonic() < until and depth < max_steps:
        if bound is not None and (seat, aim) in found and sign * found[(seat, aim)][0] >= sign * bound:
            return  # no game scores beyond a proved bound
        depth += 1
        scored, seen = [], set()
        for state in beam:
            for step in _steps(state, rng):
                child = state.clone()
                try:
                    apply_step(child, step)
                    scores = child.scores()
                except RuleError:  # the searches report broken rules; a witness is a clean game
                    continue
                if child.is_terminal():
                    value = scores[seat]
                    best = found.get((seat, aim))
                    if best is None or sign * value > sign * best[0]:
                        found[(seat, aim)] = (value, list(child.history))
                    continue
                key = state_key(child)
                if key not in seen:
                    seen.add(key)
                    scored.append((sign * scores[seat], rng.random(), child))
            if time.monotonic() > until:
                return
        if len(scored) > width and len({x[0] for x in scored}) == 1:
            # the scores do not tell the states apart (a game scored only at its end: a sealed
            # bid's 8 seats reached 4-7 of a proved 10 so): each is ranked by a random game
            # from it to its end instead, itself a witness if it beats the best
            scored = [(_rollout(child, seat, sign, rng, max_steps - depth, until, found), r, child)
                      for _, r, child in scored]
        scored.sort(key=lambda x: (-x[0], x[1]))
        beam = [child for _, _, child in scored[:width]]


def _rollout(state: GameState, seat: int, sign: int, rng: random.Random, steps: int, until: float,
             found: dict) -> float:
    """`sign` times the seat's final score in a random game from `state` (a copy), recorded in
    `found` if it is the best yet; minus infinity where the game breaks a rule or does not end
    within `steps` or by `until`."""
    state = state.clone()
    try:
        while not state.is_terminal():
            if steps <= 0 or time.monotonic() > until:
                return float("-inf")
            random_step(state, rng)
            steps -= 1
        value = state.scores()[seat]
    except RuleError:
        return float("-inf")
    aim = "high" if sign > 0 else "low"
    best = found.get((seat, aim))
    if best is None or sign * value > sign * best[0]:
        found[(seat, aim)] = (value, list(state.history))
    return sign * value

