"""The `rulebook` command: subcommands, exit codes, --json everywhere.

Exit codes: 0 success; 1 a user-facing error (a bad spec, option, state or
move, or a game whose rules break while playing; for `verify`, a result that
contradicts what the spec expects); 2 a usage error (bad command line); 3 an
internal error of rulebook itself (a bug: please report); 4 (`verify` only)
nothing contradicts the spec but some expected proofs were not found.
No Python traceback reaches a user unless --debug is given.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
import traceback

from .diagnostics import Sources, SpecError, has_errors, render
from .engine.lib import RuleError

EXIT_OK, EXIT_USER, EXIT_USAGE, EXIT_INTERNAL, EXIT_UNPROVED = 0, 1, 2, 3, 4


class UserError(Exception):
    """A problem the user can fix; printed as `error: message` and exit 1."""


def _option_pairs(values: list[str] | None) -> dict:
    out = {}
    for item in values or []:
        if "=" not in item:
            raise UserError(f"--option expects NAME=VALUE, got {item!r}")
        name, value = item.split("=", 1)
        out[name.strip()] = value.strip()
    return out


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="rulebook",
        description="Write a tabletop game's rules as a spec, check them, compile them to an engine, "
                    "and play them.",
        epilog="Start with `rulebook check spec/examples/tictactoe.rules`, then "
               "`rulebook play spec/examples/tictactoe.rules --seed 7`. Exit codes: 0 ok, 1 a problem "
               "in your spec/input (for verify: a result the spec does not expect), 2 bad command line, "
               "3 internal error, 4 (verify) expected proofs not found.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--debug", action="store_true", help="show Python tracebacks for internal errors")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    c = sub.add_parser("check", help="parse and type-check specs, run their examples",
                       description="Parse and type-check each SPEC, reporting every error with "
                                   "file:line:col and a caret, then compile it and run the spec's "
                                   "`example` blocks. Exit 1 if any spec has an error.")
    c.add_argument("specs", nargs="+", metavar="SPEC", help="a .rules file")
    c.add_argument("--json", action="store_true", help="print diagnostics as JSON")
    c.add_argument("--werror", action="store_true", help="treat warnings as errors")

    k = sub.add_parser("compile", help="print the generated Python engine for a spec",
                       description="Compile SPEC into the Python source of its engine. The output is "
                                   "plain, readable Python: the same code `play` and OpenSpiel run.")
    k.add_argument("spec", metavar="SPEC")
    k.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")

    y = sub.add_parser("play", help="play random (or replayed) games and report them",
                       description="Play games with uniformly random moves. One game prints a log of "
                                   "every chance outcome and move, then the final scores; several games "
                                   "(--games G) print a summary: games per second, mean length, score "
                                   "distribution and win rate per seat.",
                       epilog="Example: rulebook play spec/examples/tictactoe.rules --seed 7\n"
                              "         rulebook play SPEC --players 3 --games 500 --option NAME=VALUE",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    y.add_argument("spec", metavar="SPEC")
    y.add_argument("--players", type=int, metavar="N", help="number of players (default: the spec's minimum)")
    y.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0); same seed, same game")
    y.add_argument("--games", type=int, default=1, metavar="G", help="number of games (default 1)")
    y.add_argument("--option", action="append", metavar="NAME=VALUE", help="set a spec option (repeatable)")
    y.add_argument("--replay", metavar="TRACE.json", help="replay a saved game (its history) instead of random play")
    y.add_argument("--max-moves", type=int, default=100_000, metavar="M",
                   help="stop a game that has not ended after M decisions (default 100000)")
    y.add_argument("--json", action="store_true", help="print the result as JSON")
    y.add_argument("--no-progress", action="store_true", help="no progress bar")

    v = sub.add_parser("verify", help="prove a spec's invariants and built-in properties, or show a game that breaks them",
                       description="For every player count (or --players), check each `invariant` of each SPEC and "
                                   "the built-in properties termination, no_deadlock and well_formed. Random play "
                                   "searches for games that break a property (status `violated`, with the game); Z3 "
                                   "proves the rest by induction for every reachable state (status `proved`, with "
                                   "the method: inductive, k-inductive, bounded-complete to N steps), or by "
                                   "checking every game to its end when games are short (bounded model checking); "
                                   "what none settles is `unknown`, with the reason. Final-score "
                                   "bounds are proved and compared with the best games seen.\n\n"
                                   "A spec may say what it expects (`expect NAME STATUS when COND \"why\"`); "
                                   "the default expectation is `proved`.",
                       epilog="Exit codes: 0 every result is as the spec expects; 1 some result contradicts it "
                              "(a new violation, an expected violation that no longer happens, a proof where "
                              "the spec expects a violation), or a spec error; 2 bad command line; 3 internal "
                              "error; 4 nothing contradicts the spec, but some properties it expects proved "
                              "came out unknown (not proved).\n\n"
                              "Example: rulebook verify spec/examples/tictactoe.rules\n"
                              "         rulebook verify SPEC --players 3 --option NAME=VALUE --property NAME --json",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    v.add_argument("specs", nargs="+", metavar="SPEC")
    v.add_argument("--option", action="append", metavar="NAME=VALUE", help="set a spec option (repeatable)")
    v.add_argument("--players", metavar="N[,N...]", help="player counts to verify (default: every count the spec allows)")
    v.add_argument("--property", action="append", metavar="NAME", help="check only this property (repeatable)")
    v.add_argument("--timeout", type=float, default=20.0, metavar="S",
                   help="seconds per solver call (default 20); a time-out makes a result unknown, never proved")
    v.add_argument("--budget", type=float, default=240.0, metavar="S",
                   help="seconds for all the proofs of one player count (default 240); what is not settled "
                        "then is unknown")
    v.add_argument("--depth", type=int, default=30, metavar="N",
                   help="bounded model checking unrolls every game to its end when the longest game is at "
                        "most N steps (default 30): what holds on every path is then proved; longer games get "
                        "only the k-1 steps k-induction needs")
    v.add_argument("--k", type=int, default=3, metavar="K",
                   help="the largest k for k-induction (default 3; 1 turns it off)")
    v.add_argument("--games", type=int, default=300, metavar="G",
                   help="random games searched for counterexamples per player count (default 300)")
    v.add_argument("--trace-dir", metavar="DIR", help="also write each counterexample as DIR/<spec>-<property>-<players>p.json "
                   "(replay with `rulebook play SPEC --replay FILE`)")
    v.add_argument("--json", action="store_true", help="print the reports as JSON")
    v.add_argument("--no-progress", action="store_true", help="no progress display")
    v.add_argument("-v", "--verbose", action="store_true", help="print each step (with its time) on its own line to "
                   "standard error, e.g. for CI logs")
    return p


def cmd_check(args, sources: Sources) -> int:
    from .frontend import check_text, read_source
    from .engine.runtime import Engine
    from .engine.examples import run_examples
    results, failed = [], False
    for path in args.specs:
        try:
            text = read_source(path, sources)
        except SpecError as exc:
            diags = exc.diagnostics
        else:
            program, diags = check_text(text, path)
            if program is not None and not has_errors(diags):
                diags = diags + run_examples(Engine(program))
        bad = has_errors(diags) or (args.werror and bool(diags))
        failed |= bad
        results.append({"spec": path, "ok": not bad, "diagnostics": [d.to_json() for d in diags]})
        if not args.json:
            for d in diags:
                print(render(d, sources), file=sys.stderr)
            if not bad:
                n_warn = len(diags)
                print(f"{path}: ok" + (f" ({n_warn} warning{'s' if n_warn != 1 else ''})" if n_warn else ""))
    if args.json:
        print(json.dumps(results, indent=2))
    return EXIT_USER if failed else EXIT_OK


def cmd_compile(args, sources: Sources) -> int:
    from .frontend import load_program
    from .engine.runtime import Engine
    program, _ = load_program(args.spec, sources)
    source = Engine(program).source
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as fh:
                fh.write(source)
        except OSError as exc:
            raise UserError(f"cannot write {args.output}: {exc.strerror or exc}")
    else:
        sys.stdout.write(source)
    return EXIT_OK


def cmd_play(args, sources: Sources) -> int:
    from .frontend import load_program
    from .engine.runtime import Engine, Game
    from .engine import play
    if args.games < 1:
        raise UserError("--games must be at least 1")
    if args.max_moves < 1:
        raise UserError("--max-moves must be at least 1")
    program, _ = load_program(args.spec, sources)
    # random play needs games that end: options with a `finite` value use it unless set
    game = Game(Engine(program), args.players, _option_pairs(args.option), bounded=True)
    if args.replay:
        try:
            with open(args.replay, encoding="utf-8") as fh:
                text = fh.read()
        except OSError as exc:
            raise UserError(f"cannot read {args.replay}: {exc.strerror or exc}")
        try:
            report = play.replay(game, text, args.replay)
        except ValueError as exc:
            raise UserError(str(exc)) from None
        print(json.dumps(report, indent=2) if args.json else play.format_game(report))
        return EXIT_OK
    if args.games == 1:
        report = play.play_one(game, args.seed, args.max_moves, log=True)
        print(json.dumps(report, indent=2) if args.json else play.format_game(report))
        return EXIT_OK
    summary = play.play_many(game, args.games, args.seed, args.max_moves,
                             progress=not args.no_progress and not args.json)
    print(json.dumps(summary, indent=2) if args.json else play.format_summary(summary))
    return EXIT_OK


def _player_counts(text: str | None, program) -> list[int] | None:
    if text is None:
        return None
    try:
        counts = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise UserError(f"--players expects numbers separated by commas, got {text!r}") from None
    for c in counts:
        if not program.min_players <= c <= program.max_players:
            raise UserError(f"{program.spec.path}: {c} players is outside {program.min_players}..{program.max_players}")
    return counts


def cmd_verify(args, sources: Sources) -> int:
    import os
    from .frontend import load_program
    from .verify.report import format_report
    from .verify.run import BUILTINS, Budget, verify
    if args.timeout <= 0 or args.budget <= 0:
        raise UserError("--timeout and --budget must be positive")
    if args.depth < 0 or args.k < 1:
        raise UserError("--depth must be at least 0 and --k at least 1")
    if args.games < 1:
        raise UserError("--games must be at least 1")
    given = _option_pairs(args.option)
    reports = []
    show = not args.no_progress and not args.json and sys.stderr.isatty()
    for path in args.specs:
        program, _ = load_program(path, sources)
        names = {inv.name for inv in program.invariants} | set(BUILTINS)
        only = set(args.property) if args.property else None
        for name in only or ():
            if name not in names:
                raise UserError(f"{path}: no property {name!r} (properties: {', '.join(sorted(names))})")
        unknown_opts = [k for k in given if k not in program.options]
        if unknown_opts:
            raise UserError(f"{path}: no option {unknown_opts[0]!r} (options: {', '.join(program.options) or 'none'})")

        started = time.perf_counter()

        def progress(text, _path=path, _t0=started):
            if args.verbose:
                sys.stderr.write(f"[{time.perf_counter() - _t0:7.1f}s] {os.path.basename(_path)}: {text}\n")
            elif show:
                sys.stderr.write(f"\r\x1b[K{os.path.basename(_path)}: {text}")
                sys.stderr.flush()
        budget = Budget(games=args.games, timeout=args.timeout, proof=args.budget, depth=args.depth, k=args.k)
        report = verify(program, given, _player_counts(args.players, program), budget, progress, only)
        if show:
            sys.stderr.write("\r\x1b[K")
        reports.append(report)
        if args.trace_dir:
            _write_traces(args.trace_dir, report)
        if not args.json:
            print(format_report(report))
            print()
    if args.json:
        out = [r.as_json() for r in reports]
        print(json.dumps(out[0] if len(out) == 1 else out, indent=2))
    outcomes = {r.outcome for r in reports}
    if "differs" in outcomes:
        return EXIT_USER
    return EXIT_UNPROVED if "inconclusive" in outcomes else EXIT_OK


def _write_traces(directory: str, report) -> None:
    import os
    try:
        os.makedirs(directory, exist_ok=True)
        stem = os.path.splitext(os.path.basename(report.spec))[0]
        for r in report.results:
            if r.trace is not None:
                with open(os.path.join(directory, f"{stem}-{r.name}-{r.players}p.json"), "w", encoding="utf-8") as fh:
                    json.dump(r.trace, fh, indent=1)
    except OSError as exc:
        raise UserError(f"cannot write traces to {directory}: {exc.strerror or exc}") from None


COMMANDS = {"check": cmd_check, "compile": cmd_compile, "play": cmd_play, "verify": cmd_verify}


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    sources = Sources()
    try:
        return COMMANDS[args.command](args, sources)
    except SpecError as exc:
        for d in exc.diagnostics:
            print(render(d, sources), file=sys.stderr)
        return EXIT_USER
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USER
    except RuleError as exc:
        print(f"error: the rules broke while playing: {exc}", file=sys.stderr)
        return EXIT_USER
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:  # a bug in rulebook: say so plainly
        if args.debug:
            traceback.print_exc()
        print(f"internal error: {type(exc).__name__}: {exc} (run with --debug for details; please report)",
              file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
