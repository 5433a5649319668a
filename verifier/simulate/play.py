"""Playing a chunk of games and counting what a simulation reports; the built-in policies.

A *policy* is any callable `policy(state, player, legal, rng) -> action`: `state` is the
`GameState` (clone it to look ahead; never change it), `player` the seat to choose for,
`legal` its legal action ids (ascending) and `rng` a `random.Random` to draw from. Chance is
drawn by the simulator, by the engine's probabilities. Built in (`POLICIES`):

- `random`: a uniformly random legal move;
- `greedy`: one step of lookahead on the spec's `score`: each legal move is tried on a clone
  (which runs the flow to the next decision) and one of the moves with the highest own score
  is taken; at a simultaneous decision the other players' moves are drawn at random;
- `mcts`: OpenSpiel's MCTS bot with random rollouts, through the OpenSpiel adapter (it
  searches the true state, hidden cards included, and needs sequential turns).

A chunk is `size` games played from `random.Random(f"{seed}:{index}")`, so a game's moves
depend only on the seed and its chunk, never on which worker plays it.
"""
from __future__ import annotations

import bisect
import random
import time
from collections import Counter
from dataclasses import dataclass

from ..engine.lib import RuleError
from ..engine.runtime import CHANCE, SIMULTANEOUS, Game, GameState

CHUNK_GAMES = 25  # games per chunk: fixed, so the same seed gives the same games for any --jobs
DEFAULT_MAX_MOVES = 100_000
DEFAULT_SIMULATIONS = 50


@dataclass(frozen=True)
class Setup:
    """Everything a worker needs to play chunks; the spec travels as text (a Ray node may not
    have the file)."""
    spec_path: str
    spec_text: str
    players: int  # 0: the spec's minimum
    options: tuple  # (NAME, VALUE) strings as the user gave them
    policy: object = "random"  # a name of POLICIES or a callable
    seed: int = 0
    max_moves: int = DEFAULT_MAX_MOVES
    usage: bool = True
    simulations: int = DEFAULT_SIMULATIONS

    def cache_key(self) -> tuple:
        return (self.spec_path, hash(self.spec_text), self.players, self.options, self.usage)


_GAMES: dict = {}  # per process: Setup.cache_key() -> the built Game


def build_game(setup: Setup) -> Game:
    """The game a setup plays (compiled once per process)."""
    key = setup.cache_key()
    if key not in _GAMES:
        from ..diagnostics import SpecError, has_errors
        from ..engine.gen_usage import UsageEngine
        from ..engine.runtime import Engine
        from ..frontend import check_text
        program, diags = check_text(setup.spec_text, setup.spec_path)
        if program is None or has_errors(diags):
            raise SpecError(diags)
        engine = UsageEngine(program) if setup.usage else Engine(program)
        _GAMES[key] = Game(engine, setup.players or None, dict(setup.options), bounded=True)
    return _GAMES[key]


# ------------------------------------------------------------------ policies

def random_policy(state: GameState, player: int, legal: list, rng: random.Random) -> int:
    return legal[rng.randrange(len(legal))]


def _own_score(state: GameState, player: int) -> float:
    state.s.memo = {}
    try:
        return state.m._score(state.s, player)
    except Exception:  # a score the rules cannot compute here ranks the move last
        return float("-inf")


def greedy_policy(state: GameState, player: int, legal: list, rng: random.Random) -> int:
    simultaneous = state.is_simultaneous_node()
    if simultaneous:
        joint = [random_policy(state, q, state.legal_actions(q), rng) if q != player else 0
                 for q in range(state.num_players())]
    best, choices = float("-inf"), []
    for a in legal:
        c = state.clone()
        try:
            if simultaneous:
                joint[player] = a
                c.apply_actions(list(joint))
            else:
                c.apply_action(a)
        except RuleError:
            continue
        v = _own_score(c, player)
        if v > best:
            best, choices = v, [a]
        elif v == best:
            choices.append(a)
    return choices[rng.randrange(len(choices))] if choices else random_policy(state, player, legal, rng)


class MCTSPolicy:
    """OpenSpiel's MCTS bot, kept in step with the simulated game through the adapter."""

    def __init__(self, game: Game, seed: int, simulations: int):
        import numpy as np
        from open_spiel.python.algorithms import mcts

        from .. import openspiel
        m = game.module
        if any(d[0] == "simultaneous" for d in m.DECISIONS):
            raise PolicyError(f"{m.GAME_TITLE} has simultaneous decisions; OpenSpiel's MCTS needs sequential "
                              "turns: use --policy random or greedy")
        self.psgame = openspiel.load(game.engine.program.spec.path, game.num_players, **game.option_strings())
        rs = np.random.RandomState(seed)
        self.bot = mcts.MCTSBot(self.psgame, 2.0, simulations, mcts.RandomRolloutEvaluator(1, rs),
                                random_state=rs, solve=False)
        self.ps, self.applied = None, []

    def __call__(self, state: GameState, player: int, legal: list, rng: random.Random) -> int:
        history = state.history
        if self.ps is None or history[:len(self.applied)] != self.applied:
            self.ps, self.applied = self.psgame.new_initial_state(), []
        for step in history[len(self.applied):]:
            self.ps.apply_action(step)
            self.applied.append(step)
        return self.bot.step(self.ps)


class PolicyError(Exception):
    """A policy that cannot play this game (a user's problem: exit 1)."""


POLICIES = ("random", "greedy", "mcts")


def make_policy(setup: Setup, game: Game, rng: random.Random):
    if callable(setup.policy):
        return setup.policy
    if setup.policy == "random":
        return random_policy
    if setup.policy == "greedy":
        return greedy_policy
    if setup.policy == "mcts":
        return MCTSPolicy(game, rng.randrange(2 ** 31), setup.simulations)
    raise PolicyError(f"unknown policy {setup.policy!r}: expected one of {', '.join(POLICIES)} or a callable")


# ------------------------------------------------------------------ one chunk

def empty_tally(n: int) -> dict:
    return {"games": 0, "unfinished": 0, "draws": 0, "wins": [0] * n, "shared": [0] * n,
            "scores": [Counter() for _ in range(n)], "decisions": Counter(), "chance": Counter(),
            "moves": Counter(), "usage": Counter(), "rule_games": Counter(), "seconds": 0.0}


def merge(into: dict, part: dict) -> dict:
    for key in ("games", "unfinished", "draws", "seconds"):
        into[key] += part[key]
    for key in ("wins", "shared"):
        into[key] = [a + b for a, b in zip(into[key], part[key])]
    for a, b in zip(into["scores"], part["scores"]):
        a.update(b)
    for key in ("decisions", "chance", "moves", "usage", "rule_games"):
        into[key].update(part[key])
    return into


class MoveNames:
    """Action id -> the name of its move, by the engine's mixed-radix blocks."""

    def __init__(self, module):
        blocks = []
        for name, offset, sizes, *_ in module.MOVES:
            blocks.append((offset, name))
        blocks.sort()
        self.offsets = [b[0] for b in blocks]
        self.names = [b[1] for b in blocks]

    def __call__(self, action: int) -> str:
        return self.names[bisect.bisect_right(self.offsets, action) - 1]


def play_chunk(setup: Setup, index: int, size: int) -> dict:
    """Play games [index * CHUNK_GAMES, + size) of the simulation and count them."""
    game = build_game(setup)
    rng = random.Random(f"{setup.seed}:{index}")
    policy = make_policy(setup, game, rng)
    tally = empty_tally(game.num_players)
    start = time.perf_counter()
    outcome = _OutcomeProbes(game) if setup.usage else None
    names = MoveNames(game.module)
    for _ in range(size):
        _play_game(game, policy, rng, setup.max_moves, tally, outcome, names, policy is random_policy)
    tally["seconds"] = time.perf_counter() - start
    return tally


def _play_game(game: Game, policy, rng, max_moves: int, tally: dict, outcome, names, plain: bool) -> None:
    m = game.module
    flags = scratch = None
    if outcome is not None:
        flags, scratch = bytearray(len(m._F)), bytearray(len(m._F))
        m._F = flags
    state = game.new_initial_state()
    moves, decisions, draws = tally["moves"], 0, 0
    while not state.is_terminal() and len(state.history) < max_moves:
        player = state.current_player()
        if player == CHANCE:
            state.apply_action(state.sample_chance(rng))
            draws += 1
            continue
        decisions += 1
        seats = range(state.num_players()) if player == SIMULTANEOUS else (player,)
        legal = [state.legal_actions(p) for p in seats]
        for p, acts in zip(seats, legal):
            if not acts:
                raise RuleError(f"deadlock: P{p + 1} has no legal move", m.DECISIONS[state.s.pc][4])
        if not plain and flags is not None:
            m._F = scratch  # a policy's lookahead is not play
        chosen = [_choose(policy, state, p, acts, rng) for p, acts in zip(seats, legal)]
        if flags is not None:
            m._F = flags
        for a in chosen:
            moves[names(a)] += 1
        if player == SIMULTANEOUS:
            state.apply_actions(chosen)
        else:
            state.apply_action(chosen[0])
    tally["games"] += 1
    tally["decisions"][decisions] += 1
    tally["chance"][draws] += 1
    if not state.is_terminal():
        tally["unfinished"] += 1
        if flags is not None:
            outcome.count(_fired(flags), tally)
        return
    scores, winners = state.scores(), state.winners()
    for p, sc in enumerate(scores):
        tally["scores"][p][sc] += 1
    if len(winners) == 1:
        tally["wins"][winners[0]] += 1
    elif len(winners) == len(scores) and len(scores) > 1:
        tally["draws"] += 1
    else:
        for w in winners:
            tally["shared"][w] += 1
    if outcome is not None:
        hits = _fired(flags)
        outcome.fire(state, hits, scores)
        outcome.count(hits, tally)


def _fired(flags: bytearray) -> set:
    return {k for k, f in enumerate(flags) if f}


def _choose(policy, state: GameState, player: int, legal: list, rng) -> int:
    a = policy(state, player, legal, rng)
    if policy is random_policy or policy is greedy_policy or a in legal:
        return a
    raise PolicyError(f"the policy chose {a!r} for P{player + 1}, which is not a legal action here "
                      f"(legal: {legal[:10]}{' ...' if len(legal) > 10 else ''})")


class _OutcomeProbes:
    """The outcome's clauses, fired from the final state: `score` always, `wins` when someone wins
    outright, a `tiebreak` when it decides between players tied for the win so far."""

    def __init__(self, game: Game):
        clauses = game.engine.clauses
        o = game.engine.program.outcome
        index = {id(c.node): c.index for c in clauses}
        self.score = index.get(id(o.score)) if o is not None else None
        self.wins = index.get(id(o.wins)) if o is not None and o.wins is not None else None
        self.tiebreaks = [index.get(id(tb)) for tb in (o.tiebreaks if o is not None else ())]
        self.any = any(k is not None for k in [self.score, self.wins, *self.tiebreaks])
        self.m = game.module
        self.rules_of = {c.index: c.rules for c in clauses}

    def count(self, hits: set, tally: dict) -> None:
        """One game's clauses, and the rules they cite, counted once each."""
        tally["usage"].update(hits)
        tally["rule_games"].update({rule for k in hits for rule in self.rules_of[k]})

    def fire(self, state: GameState, hits: set, scores: list) -> None:
        """Right after `winners()`: the memo of read-only definitions still holds for this final
        state, so the rank keys below reuse what scoring computed, and they are computed only
        when the best score is shared (a tiebreak cannot matter otherwise)."""
        if not self.any:
            return
        s, m = state.s, self.m
        if self.score is not None:
            hits.add(self.score)
        if self.wins is not None and m._outright(s):
            hits.add(self.wins)
            return
        best = max(scores)
        top = [p for p in range(s.n) if scores[p] == best]
        if len(top) < 2 or not any(k is not None for k in self.tiebreaks):
            return
        keys = {p: m._rank_key(s, p) for p in top}
        for i, k in enumerate(self.tiebreaks):
            if len(top) < 2:
                break
            values = {keys[p][i + 1] for p in top}
            if len(values) > 1 and k is not None:
                hits.add(k)
            high = max(values)
            top = [p for p in top if keys[p][i + 1] == high]
