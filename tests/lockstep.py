"""Game-agnostic plumbing for lockstep tests of a compiled engine against an oracle.

An oracle is a hand-written implementation of a game's rules that knows
nothing of action ids.  It speaks in *semantic moves*: tuples of the move's
name and its parameter values, where an enum value is its item name (a str),
and ranges, players, grid cells and catalogue items are ints (catalogue items
by their index in the catalogue, from 0).  This module translates the
engine's action ids to and from that form, for any spec.

The oracle protocol (duck-typed):

    oracle.to_move() -> ("chance", None) | ("player", p) | ("simultaneous", None) | ("terminal", None)
    oracle.chance_values() -> sorted list of the values chance may draw now
    oracle.apply_chance(value)
    oracle.legal_moves() -> set of semantic moves for the player to move
    oracle.legal_moves(p) -> at a simultaneous node, player p's secret choices
    oracle.apply(move);  oracle.apply_joint([move of P1, move of P2, ...])
    oracle.scores() -> list of ints;  oracle.winners() -> sorted list of players
"""
from __future__ import annotations

import random

from verifier.engine.runtime import CHANCE, SIMULTANEOUS, GameState
from verifier.ir.types import EnumT


def _value(t, v):
    return t.items[v] if isinstance(t, EnumT) else int(v)


def semantic_move(state: GameState, action: int) -> tuple:
    """The engine's action id as (move name, parameter values...)."""
    (name, offset, sizes, los, *_), values = state._decode(action)
    program = state.game.engine.program
    info = next(m for m in program.moves if m.move.name == name and m.offset == offset)
    return (name, *(_value(t, v) for t, v in zip(info.param_types, values)))


def semantic_chance(state: GameState, action: int):
    """The value a chance action draws (an enum item's name, or an int)."""
    d = state.m.DECISIONS[state.s.pc]
    value = action + d[3].lo
    program = state.game.engine.program
    node = program.decisions[state.s.pc].node
    elem = program.type_of(node.source).elem
    return _value(elem, value)


def first_disagreement(engine_state: GameState, oracle, seed: int, max_steps: int = 10_000, policy=None):
    """Play one game through both; return None, "deadlock" (both agree nobody can move), or
    a description of the first difference.

    Moves are uniformly random unless `policy` is given: `policy(rng)` is called once with
    the game's random stream and returns `choose(moves, player) -> move`, picking from the
    sorted semantic moves (a game test steers play towards rare rules this way)."""
    rng = random.Random(seed)
    choose = policy(rng) if policy is not None else None
    for step in range(max_steps):
        who = engine_state.current_player()
        kind, p = oracle.to_move()
        if engine_state.is_terminal() or kind == "terminal":
            if not (engine_state.is_terminal() and kind == "terminal"):
                return f"step {step}: engine terminal={engine_state.is_terminal()}, oracle says {kind}"
            if engine_state.scores() != list(oracle.scores()):
                return f"final scores: engine {engine_state.scores()} oracle {oracle.scores()}"
            if engine_state.winners() != sorted(oracle.winners()):
                return f"winners: engine {engine_state.winners()} oracle {sorted(oracle.winners())}"
            return None
        if who == CHANCE:
            if kind != "chance":
                return f"step {step}: engine at chance, oracle says {kind} {p}"
            actions = [a for a, _ in engine_state.chance_outcomes()]
            engine_values = sorted(semantic_chance(engine_state, a) for a in actions)
            oracle_values = sorted(oracle.chance_values())
            if engine_values != oracle_values:
                return f"step {step}: chance values differ: engine {engine_values} oracle {oracle_values}"
            a = actions[rng.randrange(len(actions))]
            value = semantic_chance(engine_state, a)
            engine_state.apply_action(a)
            oracle.apply_chance(value)
            continue
        if who == SIMULTANEOUS:
            if kind != "simultaneous":
                return f"step {step}: engine at a simultaneous node, oracle says {kind} {p}"
            joint, moves = [], []
            for player in range(engine_state.num_players()):
                legal = engine_state.legal_actions(player)
                engine_moves = {semantic_move(engine_state, a) for a in legal}
                oracle_moves = set(oracle.legal_moves(player))
                if engine_moves != oracle_moves:
                    return (f"step {step}: P{player + 1}'s secret choices differ; engine only "
                            f"{sorted(engine_moves - oracle_moves)[:5]}; oracle only {sorted(oracle_moves - engine_moves)[:5]}")
                a = legal[rng.randrange(len(legal))]
                joint.append(a)
                moves.append(semantic_move(engine_state, a))
            engine_state.apply_actions(joint)
            oracle.apply_joint(moves)
            continue
        if kind != "player" or p != who:
            return f"step {step}: engine waits for P{who + 1}, oracle says {kind} {p}"
        legal = engine_state.legal_actions()
        by_move = {semantic_move(engine_state, a): a for a in legal}
        engine_moves = set(by_move)
        oracle_moves = set(oracle.legal_moves())
        if engine_moves != oracle_moves:
            only_e = sorted(engine_moves - oracle_moves)[:5]
            only_o = sorted(oracle_moves - engine_moves)[:5]
            return f"step {step}: legal moves differ; engine only {only_e}; oracle only {only_o}"
        if not legal:
            return "deadlock"
        if choose is None:
            a = legal[rng.randrange(len(legal))]
            move = semantic_move(engine_state, a)
        else:
            move = choose(sorted(engine_moves), who)
            a = by_move[move]
        engine_state.apply_action(a)
        oracle.apply(move)
        if engine_state.scores() != list(oracle.scores()):  # scores agree at every step, not only at the end
            return f"step {step} ({move}): scores differ: engine {engine_state.scores()} oracle {oracle.scores()}"
    return f"no end after {max_steps} steps"
