"""`rulebook play`: random games (one as a log, many as a summary), or a saved game replayed.

A replay takes its player count, options and moves from the file, so `--replay` refuses
the flags that would set them. A verify trace ends with its failing clause, checked by
replaying it (`verify/counterexample.py`); a trace that no longer fails exits 1.
"""
from __future__ import annotations

import sys

from ..diagnostics import Sources
from .common import EXIT_OK, EXIT_USER, Output, UsageError, UserError

DEFAULT_GAMES, DEFAULT_SEED, DEFAULT_MAX_MOVES = 1, 0, 100_000


def add_interactive_flags(parser) -> None:
    """`--interactive` and its flags (called by cli.build_parser)."""
    from .common import whole_number
    parser.add_argument("--interactive", action="store_true",
                        help="play against bots at the terminal: your legal moves are numbered; `why TEXT` says "
                             "whether a move is legal and which rule forbids it; `help` lists the commands")
    parser.add_argument("--seat", type=whole_number(1), metavar="K",
                        help="with --interactive: your seat, 1 for P1 (default 1)")
    parser.add_argument("--bot", choices=("random", "mcts"), help="with --interactive: the other seats' bots: "
                        "uniformly random moves, or OpenSpiel's Monte Carlo tree search (default random)")
    parser.add_argument("--simulations", type=whole_number(1), metavar="N",
                        help="with --bot mcts: simulations per move (default 200)")


def _interactive(args, out: Output) -> int:
    from ..engine.runtime import Engine, Game
    from ..frontend import load_program
    from ..query.interactive import Session
    given = [flag for flag, value in (("--replay", args.replay), ("--games", args.games), ("--json", out.as_json),
                                      ("--max-moves", args.max_moves)) if value not in (None, [], False)]
    if given:
        raise UsageError(f"--interactive plays one game at the terminal: leave out {', '.join(given)}",
                         prog="rulebook play")
    program, _ = load_program(args.spec)
    game = Game(Engine(program), args.players, dict(args.option), bounded=True)
    seat = (args.seat or 1) - 1
    if seat >= game.num_players:
        raise UserError(f"--seat {seat + 1}: this game has {game.num_players} seats")
    session = Session(game, seat, args.bot or "random", DEFAULT_SEED if args.seed is None else args.seed,
                      sys.stdout, sys.stdin, args.simulations or 200)
    session.run()  # leaving a game early is not an error
    return EXIT_OK


def run(args, sources: Sources, out: Output) -> int:
    from ..engine import play
    from ..engine.runtime import Engine, Game
    from ..frontend import load_program
    if getattr(args, "interactive", False):
        return _interactive(args, out)
    extra = [flag for flag, value in (("--seat", getattr(args, "seat", None)), ("--bot", getattr(args, "bot", None)),
                                      ("--simulations", getattr(args, "simulations", None))) if value is not None]
    if extra:
        raise UsageError(f"{', '.join(extra)} go with --interactive", prog="rulebook play")
    if args.replay:
        given = [flag for flag, value in (("--players", args.players), ("--option", args.option),
                                          ("--seed", args.seed), ("--games", args.games),
                                          ("--max-moves", args.max_moves)) if value not in (None, [])]
        if given:
            raise UsageError(f"--replay takes the players, options and moves from {args.replay}: "
                             f"leave out {', '.join(given)}", prog="rulebook play")
    program, _ = load_program(args.spec, sources)
    engine = Engine(program)
    if args.replay:
        return _replay(engine, args.replay, out)
    seed = DEFAULT_SEED if args.seed is None else args.seed
    games = DEFAULT_GAMES if args.games is None else args.games
    max_moves = DEFAULT_MAX_MOVES if args.max_moves is None else args.max_moves
    # random play needs games that end: options with a `finite` value use it unless set
    game = Game(engine, args.players, dict(args.option), bounded=True)
    if games == 1:
        report = play.play_one(game, seed, max_moves, log=True)
        out.add(dict(report, kind="game"))
        if not out.as_json:
            print(play.format_game(report))
        return EXIT_OK
    summary = play.play_many(game, games, seed, max_moves, progress=not args.no_progress and not out.as_json)
    out.add(dict(summary, kind="summary"))
    if not out.as_json:
        print(play.format_summary(summary))
    return EXIT_OK


def read_text(path: str) -> str:
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(f"{path} is not UTF-8 text (byte {exc.start})") from None


def load_replay(engine, text: str, path: str):
    """What --replay makes of a file's text: the replayed game (`counterexample.Replayed`), or a
    UserError naming the file. The replay fuzzer (tests/test_replay.py) drives this function."""
    from ..engine.replayfile import ReplayError, read_replay
    from ..verify import counterexample
    try:
        return counterexample.replay(engine, read_replay(text, path))
    except ReplayError as exc:
        raise UserError(str(exc)) from None


def _replay(engine, path: str, out: Output) -> int:
    from ..engine import play
    from ..verify import counterexample
    replayed = load_replay(engine, read_text(path), path)
    report = dict(replayed.report, kind="replay")
    ending = replayed.ending
    if ending is not None:
        report["failing"] = ending.as_json()
    out.add(report)
    if not out.as_json:
        print(counterexample.render(replayed, full=True) if ending is not None else play.format_game(report))
    if ending is not None and ending.shown is False:
        print(f"error: {path}: the replay does not show what the trace says fails ({ending.property})",
              file=sys.stderr)
        return EXIT_USER
    return EXIT_OK
