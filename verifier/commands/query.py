"""`rulebook query` and `rulebook explain`: questions about a position, answered with reasons.

A thin layer over `verifier.query`: it reads the position flags (`--replay FILE [--at N]`,
`--history TEXT`, `--example NAME`; the start of the game by default), asks the question and
prints the report (text, or one JSON report per answer). Any answer exits 0 — an illegal move
or an `unknown` is an answer, not an error; a bad position or expression exits 1 with the
place it went wrong.
"""
from __future__ import annotations

import json
import os

from ..diagnostics import Sources
from .common import EXIT_OK, Output, UsageError, UserError

POSITION_FLAGS = ("--replay", "--history", "--example")


def _position_flags(args) -> list[str]:
    return [flag for flag, value in (("--replay", args.replay), ("--history", args.history),
                                     ("--example", args.example)) if value is not None]


def check_position_flags(args, prog: str) -> None:
    given = _position_flags(args)
    if len(given) > 1:
        raise UsageError(f"give one position: {' or '.join(given)}", prog=prog)
    if args.at is not None and args.replay is None:
        raise UsageError("--at cuts a saved game: use it with --replay", prog=prog)
    if given and given[0] in ("--replay", "--example") and (args.players is not None):
        raise UsageError(f"{given[0]} sets the player count: leave out --players", prog=prog)
    if args.replay is not None and args.option:
        raise UsageError("--replay takes the options from the file: leave out --option", prog=prog)


def load_position(args, engine, sources: Sources):
    from ..query import position
    players = args.players[0] if isinstance(args.players, list) else args.players
    if isinstance(args.players, list) and len(args.players) > 1:
        raise UsageError("a position is for one player count: --players N", prog="rulebook query")
    options = dict(args.option)
    if args.replay is not None:
        return position.from_replay(engine, args.replay, args.at)
    if args.history is not None:
        sources.add("--history", args.history)
        return position.from_history(engine, args.history, players, options)
    if args.example is not None:
        return position.from_example(engine, args.example, options)
    return position.start(engine, players, options)


def run(args, sources: Sources, out: Output) -> int:
    from ..engine.runtime import Engine
    from ..frontend import load_program
    asked = [flag for flag, v in (("--move", args.move), ("--legal", args.legal or None), ("--can", args.can))
             if v is not None]
    if len(asked) != 1:
        raise UsageError("ask one question: --move TEXT, --legal or --can EXPR" if not asked else
                         f"ask one question at a time, not {' and '.join(asked)}", prog="rulebook query")
    check_position_flags(args, "rulebook query")
    if args.can is not None:
        if _position_flags(args):
            raise UsageError("--can asks about every reachable state: leave out the position "
                             f"({', '.join(_position_flags(args))})", prog="rulebook query")
        return _can(args, sources, out)
    if args.witness is not None or args.budget is not None or args.seed is not None:
        raise UsageError("--witness, --budget and --seed go with --can", prog="rulebook query")
    program, _ = load_program(args.spec, sources)
    engine = Engine(program)
    pos = load_position(args, engine, sources)
    from ..query import check_move, format_check, format_legal, legal_moves
    player = _player(args.player, pos.state.num_players()) if args.player is not None else None
    if args.move is not None:
        report = check_move(pos, args.move, player)
        text = format_check(report)
    else:
        report = legal_moves(pos)
        text = format_legal(report)
    out.add(dict(report, spec=args.spec))
    if not out.as_json:
        print(text)
    return EXIT_OK


def _player(text: str, n: int) -> int:
    t = text.strip().upper().removeprefix("P")
    if not t.isdigit() or not 1 <= int(t) <= n:
        raise UserError(f"--player {text}: this position has players P1..P{n}")
    return int(t) - 1


def _can(args, sources: Sources, out: Output) -> int:
    from ..engine.runtime import Engine, Game
    from ..frontend import load_program
    from ..query import can, query_program
    if args.move is not None or args.player is not None:
        raise UsageError("--player goes with --move", prog="rulebook query")
    program, _ = load_program(args.spec, sources)
    query = query_program(program, args.can, "--can", sources)
    counts = args.players if isinstance(args.players, list) else [args.players or program.min_players]
    for n in counts:  # the player counts and options are the spec's to judge, before any search
        Game(Engine(program), n, dict(args.option))
    budget = args.budget if args.budget is not None else DEFAULT_BUDGET
    for n in counts:
        answer = can(query, n, dict(args.option), budget=budget, seed=args.seed or 0)
        report = dict(answer.as_json(), kind="can", spec=args.spec)
        if answer.witness is not None and args.witness:
            path = _witness_path(args.witness, n, len(counts))
            try:
                with open(path, "w", encoding="utf-8") as fh:
                    json.dump(answer.witness, fh)
            except OSError as exc:
                raise UserError(f"cannot write {path}: {exc.strerror or exc}") from None
            report["witness_file"] = path
        out.add(report)
        if not out.as_json:
            print(format_can(report))
    return EXIT_OK


DEFAULT_BUDGET = 30.0


def _witness_path(path: str, n: int, counts: int) -> str:
    if counts == 1:
        return path
    root, ext = os.path.splitext(path)
    return f"{root}-{n}p{ext or '.json'}"


def format_can(report: dict) -> str:
    verdict = {"yes": "yes", "never": "never", "unknown": "unknown"}[report["verdict"]]
    lines = [f"can {report['expr']!r} happen with {report['players']} players? {verdict} "
             f"({report['method'] or 'not settled'}, {report['seconds']:.1f} s)",
             f"  {report['reason']}"]
    if report.get("steps"):
        lines.append(f"  the game ({len(report['steps'])} steps):")
        lines += [f"    {i:>4}. {s}" for i, s in enumerate(report["steps"], start=1)]
        if report.get("witness_file"):
            lines.append(f"  written to {report['witness_file']} (rulebook play SPEC --replay FILE)")
        else:
            lines.append("  (--witness FILE writes it as a replay file)")
    return "\n".join(lines)


def run_explain(args, sources: Sources, out: Output) -> int:
    from ..engine.runtime import Engine
    from ..frontend import load_program
    from ..query import explain, format_explain
    check_position_flags(args, "rulebook explain")
    program, _ = load_program(args.spec, sources)
    pos = load_position(args, Engine(program), sources)
    report = explain(pos)
    out.add(dict(report, spec=args.spec))
    if not out.as_json:
        print(format_explain(report))
    return EXIT_OK


# ------------------------------------------------------------------ the command line

POSITION_HELP = ("Positions: --replay FILE [--at N] (a saved game: `play --json` output or a verify trace, "
                 "cut after N steps), --history \"STEP; STEP; ...\" (steps as `play` prints them: a move's text, "
                 "`var = outcome` for chance, one move per player at a simultaneous decision), --example NAME "
                 "(the state an `example` block sets); the start of the game by default.")


def add_position_flags(parser, players_help: str) -> None:
    from .common import add_settings, whole_number
    add_settings(parser, players_help, many_players=True)
    parser.add_argument("--replay", metavar="FILE", help="the position of a saved game (its players and options "
                        "come from the file)")
    parser.add_argument("--at", type=whole_number(0), metavar="N", help="with --replay: after its first N steps")
    parser.add_argument("--history", metavar="STEPS", help="the position after these steps, separated by ';'")
    parser.add_argument("--example", metavar="NAME", help="the state the spec's example NAME sets")
    parser.add_argument("--json", action="store_true", help="print the answer as JSON")


def add_parsers(sub, formatter) -> None:
    """`rulebook query` and `rulebook explain` (called by cli.build_parser)."""
    from .common import positive_seconds
    q = sub.add_parser(
        "query", help="is a move legal here (and which rule forbids it)? what is legal? can a state ever happen?",
        description="Ask a question about a position of a game.\n\n"
                    "--move TEXT: is this move legal for the player to act? If not, every requirement it "
                    "breaks (label, text, rule IDs, file:line:col) and the nearest legal moves of the same kind; "
                    "if it is, the state changes it causes and the rules cited on the way. A move is written as "
                    "`play` prints it, or NAME(values).\n"
                    "--legal: every legal move, grouped by move kind; for a kind with none, the requirements "
                    "that rule it out.\n"
                    "--can EXPR: can a state satisfying EXPR (a condition of the rules language over the "
                    "state) ever be reached? yes (with a replayable game, as short as the search made it), "
                    "never (with the proof: every reachable state visited, or an inductive invariant), or "
                    "unknown (with the reason), within --budget seconds per player count.\n\n" + POSITION_HELP,
        epilog="Examples:\n"
               "  rulebook query spec/examples/tictactoe.rules --history \"x(0,0)\" --move \"o(0,0)\"\n"
               "  rulebook query spec/examples/tictactoe.rules --history \"x(0,0); o(1,1)\" --legal\n"
               "  rulebook query spec/ramen_ink.rules --players 2 --can \"binned[0] == 8\" --witness w.json\n"
               "Exit codes: 0 answered (whatever the answer); 1 a bad position, expression or spec; 2 bad "
               "command line; 3 internal error.",
        formatter_class=formatter)
    q.add_argument("spec", metavar="SPEC")
    q.add_argument("--move", metavar="TEXT", help="is this move legal here?")
    q.add_argument("--legal", action="store_true", help="every legal move here")
    q.add_argument("--can", metavar="EXPR", help="can a state satisfying EXPR ever be reached?")
    q.add_argument("--player", metavar="P", help="with --move: whose move (P1, P2, ...; default: whoever acts, "
                   "the first it is written for at a simultaneous decision)")
    add_position_flags(q, "the player count (default: the spec's minimum); --can takes a list, e.g. 2,3")
    q.add_argument("--budget", type=positive_seconds, metavar="S",
                   help=f"with --can: seconds per player count for the searches and the proof (default "
                        f"{DEFAULT_BUDGET:.0f})")
    q.add_argument("--seed", type=int, metavar="S", help="with --can: the searches' random seed (default 0)")
    q.add_argument("--witness", metavar="FILE", help="with --can: write a `yes` game as a replay file "
                   "(FILE-<N>p.json per player count when there are several)")

    e = sub.add_parser(
        "explain", help="the scores at a position term by term, and why each winner wins",
        description="Each player's score at a position, term by term: each term of the spec's `score` "
                    "(a score written as one definition's call is unfolded into its body) with its value, "
                    "the definitions it calls and their values, and the rule IDs they cite; then the winners "
                    "and why: an outright win, the highest score, each tiebreak in turn.\n\n" + POSITION_HELP,
        epilog="Examples:\n"
               "  rulebook explain spec/ramen.rules --example final_scoring\n"
               "  rulebook explain spec/examples/tictactoe.rules --history \"x(0,0); o(1,1); x(0,1); o(2,2); "
               "x(0,2)\"\n"
               "Exit codes: 0 explained; 1 a bad position or spec; 2 bad command line; 3 internal error.",
        formatter_class=formatter)
    e.add_argument("spec", metavar="SPEC")
    add_position_flags(e, "the player count (default: the spec's minimum)")
