"""The `rulebook` command: its parser, and turning every outcome into an exit code.

Each subcommand lives in `verifier/commands/<name>.py`; `commands/common.py` holds the
exit codes and the one JSON shape. Exit codes: 0 success; 1 a problem in your spec or
files, or a value the spec does not allow (for `verify`: a result that contradicts what
the spec expects); 2 a bad command line; 3 an internal error of rulebook (a bug: please
report); 4 (`verify` only) nothing contradicts the spec but some expected proofs were not
found; 130 interrupted. No Python traceback reaches a user unless --debug is given.
"""
from __future__ import annotations

import argparse
import os
import sys
import traceback

from .commands import (check, compile as compile_cmd, coverage, diff as diff_cmd, docs, info, play,
                       query as query_cmd, verify)
from .commands import simulate as simulate_cmd
from .commands.common import (EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, EXIT_USER,
                              CommandLineParser, Output, UsageError, UserError, add_settings, error_object,
                              non_negative_seconds, positive_seconds, whole_number)
from .diagnostics import Sources, SpecError, render
from .engine.lib import RuleError

# re-exported: older code and tests import them from here
__all__ = ["main", "build_parser", "exit_code_for", "UserError", "UsageError", "EXIT_OK", "EXIT_USER",
           "EXIT_USAGE", "EXIT_INTERNAL"]

COMMANDS = {"check": check.run, "compile": compile_cmd.run, "info": info.run, "play": play.run,
            "verify": verify.run, "coverage": coverage.run, "docs": docs.run}
COMMANDS.update({"query": query_cmd.run, "explain": query_cmd.run_explain, "simulate": simulate_cmd.run})
COMMANDS.update({"diff": diff_cmd.run, "mutate": diff_cmd.run_mutate})


def version() -> str:
    try:
        from importlib.metadata import version as installed
        return installed("rulebook")
    except Exception:  # not installed (run from a checkout): say so rather than guess
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    p = CommandLineParser(
        prog="rulebook",
        description="Write a tabletop game's rules as a spec, check them, compile them to an engine, "
                    "play them and prove their invariants.",
        epilog="Start with `rulebook check spec/examples/tictactoe.rules`, then "
               "`rulebook play spec/examples/tictactoe.rules --seed 7`.\n"
               "Exit codes: 0 ok; 1 a problem in your spec or files, or a value the spec does not allow "
               "(verify: a result the spec does not expect); 2 bad command line; 3 internal error; "
               "4 (verify) expected proofs not found.\n"
               "--json: every command prints one JSON object, {\"reports\": [...]}, with \"error\" when it "
               "stopped on one.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"rulebook {version()}")
    p.add_argument("--debug", action="store_true", help="show Python tracebacks for internal errors")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    c = sub.add_parser("check", help="parse and type-check specs, run their examples",
                       description="Parse and type-check each SPEC, reporting every error with "
                                   "file:line:col and a caret, then compile it, set up a game (with --players "
                                   "and --option, the spec's minimum and defaults otherwise) and run the spec's "
                                   "`example` blocks. Exit 1 if any spec has an error.")
    c.add_argument("specs", nargs="+", metavar="SPEC", help="a .rules file")
    add_settings(c, "player counts to set a game up with (default: the spec's minimum)", many_players=True)
    c.add_argument("--json", action="store_true", help="print the diagnostics as JSON")
    c.add_argument("--werror", action="store_true", help="treat warnings as errors")
    c.add_argument("--strict", action="store_true",
                   help="a declared rule that no clause cites, or a rules section out of the rulebook's order, "
                        "is an error (not a warning)")
    c.add_argument("--max-per-kind", type=whole_number(0), default=check.DEFAULT_PER_KIND, metavar="N",
                   help=f"print at most N diagnostics of each kind, then a count of the rest "
                        f"(default {check.DEFAULT_PER_KIND}; 0: all)")

    k = sub.add_parser("compile", help="print the generated Python engine for a spec",
                       description="Compile SPEC into the Python source of its engine: plain, readable Python, "
                                   "the code `play` and OpenSpiel run, with the few helpers it calls copied in, "
                                   "so the file runs on Python's standard library alone. --option values become "
                                   "the module's defaults; --players N makes it an engine for N players.")
    k.add_argument("spec", metavar="SPEC")
    add_settings(k, "compile an engine for exactly N players")
    k.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")

    i = sub.add_parser("info", help="what a spec offers: options, player counts, properties, moves, rule IDs",
                       description="List what each SPEC offers: its player counts, its options (values, "
                                   "default, reason), its invariants and the built-in properties verify checks, "
                                   "what it expects of them, its moves and their requirements, its examples, "
                                   "and the rule IDs it cites.")
    i.add_argument("specs", nargs="+", metavar="SPEC")
    i.add_argument("--json", action="store_true", help="print it as JSON")

    cv = sub.add_parser("coverage", help="per declared rule, the clauses of the spec that cite it",
                        description="List each SPEC's rules, section by section, each with the clauses that cite "
                                    "it (a requirement, a move, an effect, an invariant, an option, a "
                                    "declaration) and their places; rules no clause cites are named. A citation "
                                    "of an undeclared rule is a spec error (exit 1).",
                        epilog="Example: rulebook coverage spec/ramen_ink.rules\n"
                               "         rulebook coverage spec/*.rules --json",
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    cv.add_argument("specs", nargs="+", metavar="SPEC")
    cv.add_argument("--json", action="store_true", help="print the coverage as JSON")

    d = sub.add_parser("docs", help="generate the rules documentation site (mkdocs-material) from specs",
                       description="Write an mkdocs project to DIR (DIR/mkdocs.yml, DIR/docs/): per SPEC an "
                                   "overview with the catalogues, the rules rule by rule with the clauses that "
                                   "cite them, the readings (options), the guarantees read from a `verify --json` "
                                   "run, the worked examples, an example game and pictures of states drawn from "
                                   "the spec's `display` items. Build it with `mkdocs build --strict -f "
                                   "DIR/mkdocs.yml` (or `zensical build -f DIR/mkdocs.yml`); `make docs` does "
                                   "both.",
                       epilog="Example: rulebook docs spec/*.rules -o build/docs --verify-json build/verify.json\n"
                              "The verify results are those of `rulebook verify SPEC... --json > FILE`; a result "
                              "whose spec changed since is marked stale.",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    d.add_argument("specs", nargs="+", metavar="SPEC")
    d.add_argument("-o", "--output", metavar="DIR", default="build/docs",
                   help="where the mkdocs project is written (default build/docs); its docs/ is replaced")
    d.add_argument("--verify-json", metavar="FILE", default=None,
                   help="the output of `rulebook verify ... --json` (default: build/verify.json if it exists)")
    d.add_argument("--simulation", action="append", default=[], metavar="FILE",
                   help="the output of `rulebook simulate ... --json` (repeatable): each game it measured gets a "
                        "Balance page (seat win rates, scores, lengths, rule usage, option effects, its plots)")
    d.add_argument("--mutations", action="append", default=[], metavar="FILE",
                   help="the output of `rulebook mutate ... --json` (repeatable): each game it measured gets a "
                        "Mutations page (kill rate, mutants by kind, survivors with their rules, source diffs "
                        "and the games where they play differently)")
    d.add_argument("--manual", metavar="DIR", default=None,
                   help="also put the hand-written pages of DIR (e.g. docs/) into the site")
    d.add_argument("--seed", type=int, default=1, metavar="S", help="seed of the example game (default 1)")
    d.add_argument("--json", action="store_true", help="print what was written as JSON")

    y = sub.add_parser("play", help="play random (or replayed) games and report them",
                       description="Play games with uniformly random moves. One game prints a log of "
                                   "every chance outcome and move, then the final scores; several games "
                                   "(--games G) print a summary: games per second, mean length, score "
                                   "distribution, wins per seat and the draw rate. --replay replays a saved "
                                   "game (`play --json` output, or a `verify --trace-dir` trace, which ends "
                                   "by showing what fails).",
                       epilog="Example: rulebook play spec/examples/tictactoe.rules --seed 7\n"
                              "         rulebook play SPEC --players 3 --games 500 --option NAME=VALUE",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    y.add_argument("spec", metavar="SPEC")
    add_settings(y, "number of players (default: the spec's minimum)")
    y.add_argument("--seed", type=int, metavar="S", help="random seed (default 0); same seed, same game")
    y.add_argument("--games", type=whole_number(1), metavar="G", help="number of games (default 1)")
    y.add_argument("--replay", metavar="TRACE.json",
                   help="replay a saved game instead of random play (its players, options and moves come "
                        "from the file)")
    y.add_argument("--max-moves", type=whole_number(1), metavar="M",
                   help="stop a game that has not ended after M decisions (default 100000)")
    y.add_argument("--json", action="store_true", help="print the result as JSON")
    y.add_argument("--no-progress", action="store_true", help="no progress bar")
    play.add_interactive_flags(y)

    v = sub.add_parser("verify", help="prove a spec's invariants and built-in properties, or show a game that "
                                      "breaks them",
                       description="For every player count (or --players), check each `invariant` of each SPEC and "
                                   "the built-in properties termination, no_deadlock and well_formed. Random play "
                                   "searches for games that break a property (status `violated`, with the game); Z3 "
                                   "proves the rest by induction for every reachable state (status `proved`, with "
                                   "the method: inductive, k-inductive, bounded-complete to N steps), or by "
                                   "checking every game to its end when games are short (bounded model checking); "
                                   "what none settles is `unknown`, with the reason. Final-score "
                                   "bounds are proved and compared with the best games seen.\n\n"
                                   "A spec may say what it expects (`expect NAME STATUS when COND \"why\"`); "
                                   "the default expectation is `proved`.\n\n"
                                   "Off a terminal, a line per finished property is printed as it comes.",
                       epilog="Exit codes: 0 every result is as the spec expects; 1 some result contradicts it "
                              "(a new violation, an expected violation that no longer happens, a proof where "
                              "the spec expects a violation), or a spec error; 2 bad command line; 3 internal "
                              "error; 4 nothing contradicts the spec, but some properties it expects proved "
                              "came out unknown (not proved).\n\n"
                              "Example: rulebook verify spec/examples/tictactoe.rules\n"
                              "         rulebook verify SPEC --players 3 --option NAME=VALUE --property NAME --json",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    v.add_argument("specs", nargs="+", metavar="SPEC")
    add_settings(v, "player counts to verify (default: every count the spec allows)", many_players=True)
    v.add_argument("--property", action="append", metavar="NAME", help="check only this property (repeatable)")
    v.add_argument("--timeout", type=positive_seconds, default=20.0, metavar="S",
                   help="seconds per solver call (default 20); a time-out makes a result unknown, never proved")
    v.add_argument("--budget", type=positive_seconds, default=240.0, metavar="S",
                   help="seconds for one player count, every search and proof included (default 240); "
                        "what is not settled then is unknown")
    v.add_argument("--depth", type=whole_number(0), default=40, metavar="N",
                   help="bounded model checking unrolls every game to its end when the longest game is at "
                        "most N steps (default 40): what holds on every path is then proved; longer games get "
                        "only the k-1 steps k-induction needs")
    v.add_argument("--k", type=whole_number(1), default=3, metavar="K",
                   help="the largest k for k-induction (default 3; 1 turns it off)")
    v.add_argument("--no-spacer", action="store_true",
                   help="leave Spacer (IC3/PDR on each open invariant's cone) out of the proofs: to see "
                        "what the other engines prove alone, or to give them its share of the budget")
    v.add_argument("--games", type=whole_number(0), default=300, metavar="G",
                   help="random games searched for counterexamples per player count (default 300; 0: none)")
    v.add_argument("--search", type=non_negative_seconds, default=60.0, metavar="S",
                   help="seconds of directed search per player count at most (default 60; 0: none): an "
                        "exhaustive search of the whole game where it is small (a proof by enumeration), "
                        "then beam search and biased policies aimed at each property not yet settled")
    v.add_argument("--jobs", type=whole_number(1), default=None, metavar="J",
                   help="player counts verified side by side, each in a worker process with the whole "
                        "--budget (default: the number of cores); with several SPECs, the counts of all of them "
                        "share the J processes (each report still printed whole, in the specs' order); one spec's "
                        "count verified alone with J >= 2 runs its searches (random play, directed search) in a "
                        "second process, racing its proofs")
    v.add_argument("--no-cache", action="store_true", help="verify every player count again, even those whose "
                   "results are in the cache (.rulebook-cache, or $RULEBOOK_CACHE): a result is reused only when "
                   "the slice of the spec it depends on (the flow, the state, the invariants and what they name), "
                   "the options, the settings and the tool's version are unchanged")
    v.add_argument("--save-json", metavar="FILE", help="also write the reports, as --json prints them, to FILE "
                   "(`make verify` writes build/verify.json, which `rulebook docs` reads)")
    v.add_argument("--trace-dir", metavar="DIR", help="also write each counterexample as "
                   "DIR/<spec>-<property>-<players>p.json (replay with `rulebook play SPEC --replay FILE`)")
    v.add_argument("--full", action="store_true", help="print each counterexample's whole play log (default: "
                   "its moves and the state where the property fails)")
    v.add_argument("--json", action="store_true", help="print the reports as JSON")
    v.add_argument("--no-progress", action="store_true", help="no progress display")
    v.add_argument("-v", "--verbose", action="store_true", help="print each step (with its time) on its own line to "
                   "standard error, e.g. for CI logs")
    query_cmd.add_parsers(sub, argparse.RawDescriptionHelpFormatter)
    diff_cmd.add_parsers(sub, argparse.RawDescriptionHelpFormatter)
    simulate_cmd.add_parser(sub, argparse.RawDescriptionHelpFormatter)
    return p


def exit_code_for(exc: BaseException) -> int:
    """The exit code an exception out of a command stands for."""
    if isinstance(exc, UsageError):
        return EXIT_USAGE
    if isinstance(exc, (SpecError, UserError, RuleError)):
        return EXIT_USER
    if isinstance(exc, KeyboardInterrupt):
        return EXIT_INTERRUPTED
    if isinstance(exc, BrokenPipeError):  # the reader went away (`| head`): not a failure of ours
        return EXIT_OK
    return EXIT_INTERNAL


def _answer(exc: BaseException, sources: Sources, debug: bool) -> dict | None:
    """Say what went wrong on standard error; the JSON error object (None: nothing to report)."""
    code = exit_code_for(exc)
    if isinstance(exc, UsageError):
        sys.stderr.write(exc.usage)
        print(f"{exc.prog}: error: {exc}", file=sys.stderr)
        return error_object(code, "usage", str(exc))
    if isinstance(exc, SpecError):
        for d in exc.diagnostics:
            print(render(d, sources), file=sys.stderr)
        first = exc.diagnostics[0] if exc.diagnostics else None
        message = f"{first.span}: {first.message}" if first is not None else "the spec has errors"
        return error_object(code, "spec", message, [d.to_json() for d in exc.diagnostics])
    if isinstance(exc, UserError):
        print(f"error: {exc}", file=sys.stderr)
        return error_object(code, "input", str(exc))
    if isinstance(exc, RuleError):
        print(f"error: the rules broke while playing: {exc}", file=sys.stderr)
        return error_object(code, "rules", str(exc))
    if isinstance(exc, KeyboardInterrupt):
        print("interrupted", file=sys.stderr)
        return error_object(code, "interrupted", "interrupted")
    if isinstance(exc, BrokenPipeError):
        return None
    if debug:
        traceback.print_exc()
    message = f"{type(exc).__name__}: {exc}"
    print(f"internal error: {message} (run with --debug for details; please report)", file=sys.stderr)
    return error_object(code, "internal", message)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    out = Output("--json" in argv)  # known before parsing, so a bad command line answers in JSON too
    sources = Sources()
    try:
        args = build_parser().parse_args(argv)
    except UsageError as exc:
        out.finish(_answer(exc, sources, "--debug" in argv))
        return EXIT_USAGE
    except SystemExit as exc:  # --help and --version print and stop
        return exc.code if isinstance(exc.code, int) else EXIT_OK
    if args.command is None:
        build_parser().print_help()
        out.finish(error_object(EXIT_USAGE, "usage", "no command given"))
        return EXIT_USAGE
    out.as_json = bool(getattr(args, "json", False))
    try:
        code = COMMANDS[args.command](args, sources, out)
    except BaseException as exc:  # every outcome is an exit code; SystemExit is not raised by commands
        if isinstance(exc, SystemExit):
            raise
        error = _answer(exc, sources, args.debug)
        out.finish(error)
        return exit_code_for(exc)
    out.finish()
    return code


def entry() -> None:
    """The `rulebook` console script: `main`, then an immediate exit. A verify run leaves millions
    of Z3 terms, whose one-by-one release when the interpreter shuts down took seconds (2.3 s
    after a 30 s run of a bundled spec) past the time budget. The streams are flushed and worker pools
    closed by then; a Ray session, which cleans up at exit, takes the ordinary way out."""
    code = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`| head`): nothing more can be written
            pass
    ray = sys.modules.get("ray")
    if ray is not None and getattr(ray, "is_initialized", lambda: False)():
        sys.exit(code)
    os._exit(code)


if __name__ == "__main__":
    sys.exit(main())
