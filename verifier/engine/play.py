"""Random and replayed play: one game as a readable log, many as a summary.

A game's result is a win (one winner), a shared win (some players tie for the win) or a
draw (every player ties); summaries count the three apart, so a draw is never half a win.
"""
from __future__ import annotations

import random
import statistics
import sys
import time

from .lib import RuleError
from .replayfile import ReplayFile, read_replay
from .runtime import CHANCE, SIMULTANEOUS, Game, GameState, replay_steps


def random_step(state: GameState, rng: random.Random) -> None:
    """Apply one random step: a chance outcome by its probability, or random moves."""
    player = state.current_player()
    if player == CHANCE:
        state.apply_action(state.sample_chance(rng))
        return
    if player == SIMULTANEOUS:
        joint = []
        for p in range(state.num_players()):
            legal = state.legal_actions(p)
            if not legal:
                raise RuleError(f"deadlock: P{p + 1} has no legal move at a simultaneous decision",
                                state.m.DECISIONS[state.s.pc][4])
            joint.append(legal[rng.randrange(len(legal))])
        state.apply_actions(joint)
        return
    legal = state.legal_actions(player)
    if not legal:
        raise RuleError(f"deadlock: P{player + 1} has no legal move", state.m.DECISIONS[state.s.pc][4])
    state.apply_action(legal[rng.randrange(len(legal))])


def result_kind(winners: list, players: int) -> str:
    """`win`, `shared_win` or `draw` (every player ties; a one-player game is never a draw)."""
    if len(winners) == 1:
        return "win"
    return "draw" if len(winners) == players and players > 1 else "shared_win"


def _finish(game: Game, state: GameState, seed, log: bool, ended: bool) -> dict:
    report = {
        "game": game.module.GAME_NAME,  # what a replay checks the file against
        "title": game.module.GAME_TITLE,
        "spec": game.engine.program.spec.path,
        "players": state.num_players(),
        "seed": seed,
        "options": game.option_strings(),
        "ended": ended,
        "length": len(state.history),
        "history": state.history,
    }
    if log:  # steps (moves, chance, reveals) are tagged by the runtime; plain strings come from `say`
        report["log"] = [{"step": e[0], "text": e[1]} if isinstance(e, tuple) else {"say": e}
                         for e in state.s.log]
    if ended:
        try:
            scores, winners, returns = state.scores(), state.winners(), state.returns()
        except RuleError as exc:  # the final scoring breaks a rule: the game has no result
            report["rule_error"] = str(exc)
            return report
        report["scores"] = scores
        report["winners"] = winners
        report["result"] = result_kind(winners, state.num_players())
        report["returns"] = returns
    return report


def play_one(game: Game, seed: int, max_moves: int, log: bool = False) -> dict:
    rng = random.Random(seed)
    state = game.new_initial_state(logging=log)
    while not state.is_terminal() and len(state.history) < max_moves:
        random_step(state, rng)
    return _finish(game, state, seed, log, state.is_terminal())


def replay(game: Game, text: str, path: str) -> dict:
    """Replay a saved game (a replay file's text) with logging on; a bad file raises
    ValueError naming `path`. The file's players and options count, not `game`'s."""
    return replay_report(game, read_replay(text, path))[0]


def replay_report(game: Game, replay_file: ReplayFile) -> tuple[dict, GameState]:
    """The report of a replayed game, and the state it ends in."""
    state = replay_steps(game.engine, replay_file, logging=True)
    return _finish(state.game, state, None, True, state.is_terminal()), state


def play_many(game: Game, games: int, seed: int, max_moves: int, progress: bool) -> dict:
    rng = random.Random(seed)
    n = game.num_players
    lengths, scores, unfinished, draws = [], [[] for _ in range(n)], 0, 0
    wins, shared = [0] * n, [0] * n  # games won alone; games won together with some, not all
    bar = None
    if progress and sys.stderr.isatty():
        from tqdm import tqdm
        bar = tqdm(total=games, unit="game", file=sys.stderr, leave=False)
    start = time.perf_counter()
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal() and len(state.history) < max_moves:
            random_step(state, rng)
        lengths.append(len(state.history))
        if state.is_terminal():
            for p, sc in enumerate(state.scores()):
                scores[p].append(sc)
            winners = state.winners()
            kind = result_kind(winners, n)
            if kind == "draw":
                draws += 1
            for w in winners if kind != "draw" else ():
                (wins if kind == "win" else shared)[w] += 1
        else:
            unfinished += 1
        if bar is not None:
            bar.update(1)
    elapsed = time.perf_counter() - start
    if bar is not None:
        bar.close()
    finished = games - unfinished

    def rate(count):
        return round(count / finished, 4) if finished else None
    return {
        "game": game.module.GAME_NAME,
        "title": game.module.GAME_TITLE,
        "spec": game.engine.program.spec.path,
        "players": n,
        "seed": seed,
        "options": game.option_strings(),
        "games": games,
        "unfinished": unfinished,
        "draws": draws,
        "draw_rate": rate(draws),
        "seconds": round(elapsed, 4),
        "games_per_second": round(games / elapsed, 1) if elapsed > 0 else None,
        "mean_length": round(statistics.fmean(lengths), 2),
        "seats": [{
            "seat": f"P{p + 1}",
            "mean_score": round(statistics.fmean(scores[p]), 3) if scores[p] else None,
            "min_score": min(scores[p]) if scores[p] else None,
            "max_score": max(scores[p]) if scores[p] else None,
            "stdev_score": round(statistics.pstdev(scores[p]), 3) if scores[p] else None,
            "wins": wins[p],
            "win_rate": rate(wins[p]),  # won alone
            "shared_wins": shared[p],
            "shared_win_rate": rate(shared[p]),  # won together with some players, not all
        } for p in range(n)],
    }


RESULT_WORDS = {"win": "Winner: ", "shared_win": "Shared win: "}


def format_game(r: dict) -> str:
    opts = ", ".join(f"{k}={v}" for k, v in r["options"].items()) or "none"
    head = f"{r['title']} — {r['players']} players" + (f", seed {r['seed']}" if r["seed"] is not None else "")
    lines = [head, f"options: {opts}", ""]
    step = 0
    for entry in r.get("log", []):
        if "step" in entry:
            step += 1
            lines.append(f"{step:4d}. {entry['text']}")
        else:
            lines.extend(f"      {line}" for line in entry["say"].splitlines() or [""])
    lines.append("")
    if not r["ended"]:
        lines.append(f"The game did not end within {r['length']} decisions.")
        return "\n".join(lines)
    if "rule_error" in r:
        lines.append(f"The game ended, and its final scoring breaks a rule: {r['rule_error']}")
        return "\n".join(lines)
    lines.append("Final scores: " + ", ".join(f"P{p + 1} {s}" for p, s in enumerate(r["scores"])))
    if r["result"] == "draw":
        lines.append("Draw: every player ties")
    else:
        lines.append(RESULT_WORDS[r["result"]] + ", ".join(f"P{p + 1}" for p in r["winners"]))
    lines.append("Returns: " + ", ".join(f"P{p + 1} {v:g}" for p, v in enumerate(r["returns"])))
    return "\n".join(lines)


def format_summary(r: dict) -> str:
    opts = ", ".join(f"{k}={v}" for k, v in r["options"].items()) or "none"
    lines = [f"{r['title']} — {r['players']} players, {r['games']} games, seed {r['seed']}, options: {opts}",
             f"{r['games_per_second']} games/s ({r['seconds']} s); mean length {r['mean_length']} decisions"]
    if r["unfinished"]:
        lines.append(f"{r['unfinished']} game(s) did not end within the move limit")
    with_shared = any(s["shared_wins"] for s in r["seats"])  # a column only when some game had one
    lines.append(f"{'seat':<6}{'mean':>9}{'min':>7}{'max':>7}{'stdev':>9}{'wins':>9}"
                 + (f"{'shared':>9}" if with_shared else ""))
    for s in r["seats"]:
        if s["mean_score"] is None:
            lines.append(f"{s['seat']:<6}{'—':>9}")
            continue
        lines.append(f"{s['seat']:<6}{s['mean_score']:>9}{s['min_score']:>7}{s['max_score']:>7}"
                     f"{s['stdev_score']:>9}{s['win_rate'] * 100:>8.1f}%"
                     + (f"{s['shared_win_rate'] * 100:>8.1f}%" if with_shared else ""))
    if r["draw_rate"] is not None:
        lines.append(f"draws {r['draw_rate'] * 100:.1f}% ({r['draws']} of {r['games'] - r['unfinished']} "
                     "finished games: every player tied)")
    return "\n".join(lines)
