"""`rulebook simulate`: many games as a measurement — balance, scores, lengths, moves, rule usage.

One report per player count (`kind: "simulation"`), or with `--compare-option NAME` one
comparison per player count (`kind: "comparison"`, the runs under each value side by side).
Ctrl-C stops the run, prints what the finished chunks measured (`interrupted: true`) and
exits 130.
"""
from __future__ import annotations

import os

from ..diagnostics import Sources
from .common import EXIT_OK, Output, UsageError, UserError, add_settings, whole_number

DEFAULT_GAMES, DEFAULT_SEED = 1000, 0

DESCRIPTION = """\
Play many games of SPEC under a policy and measure them:

  - win rate per seat (games won alone) with 95% intervals (Wilson), and a chi-square
    test that all seats win equally often (its p-value);
  - final scores per seat: mean with its 95% interval, spread and quantiles;
  - game length in decisions and in chance draws; how often each kind of move is chosen;
  - rule usage: for every rule ID, in how many games a clause citing it fired (a statement
    ran, a move was played, a requirement ruled a move out, a definition was evaluated, a
    tiebreak decided a tie), measured by an instrumented build of the engine;
  - never-fired clauses: candidates for dead or unreachable rules.

The games are split into seeded chunks of 25: the same --seed gives the same numbers for any
--jobs and with --ray. --compare-option NAME runs the simulation under each value of the
option and lists the differences that are significant (5%, Bonferroni-corrected)."""

EPILOG = """\
Examples:
  rulebook simulate spec/ramen.rules --players 3 --games 2000
  rulebook simulate spec/ramen.rules --players 2,3,4 --json > balance.json
  rulebook simulate spec/ramen_ink.rules --compare-option stylist_counting --plots plots/
  rulebook simulate SPEC --policy greedy --jobs 2
  rulebook simulate SPEC --ray auto          # on a running Ray cluster (`ray start --head`)

Policies: random (uniform legal moves), greedy (one step of lookahead on the spec's score),
mcts (OpenSpiel's MCTS with random rollouts; --simulations per move; needs sequential turns).
Ctrl-C stops early and reports the games finished so far (exit 130).
Exit codes: 0 done; 1 a problem in the spec, an option or a policy, or rules that broke while
playing; 2 bad command line; 130 interrupted."""


def add_parser(sub, formatter) -> None:
    s = sub.add_parser("simulate", help="play many games and measure them: seat balance with confidence "
                                        "intervals, scores, lengths, moves, rule usage, option effects",
                       description=DESCRIPTION, epilog=EPILOG, formatter_class=formatter)
    s.add_argument("spec", metavar="SPEC", help="a .rules file (put --ray after it: --ray takes an optional ADDRESS)")
    add_settings(s, "player counts, one report each (default: the spec's minimum)", many_players=True)
    s.add_argument("--games", type=whole_number(1), default=DEFAULT_GAMES, metavar="G",
                   help=f"games per player count (default {DEFAULT_GAMES})")
    s.add_argument("--policy", choices=("random", "greedy", "mcts"), default="random",
                   help="how every seat chooses its moves (default random)")
    s.add_argument("--simulations", type=whole_number(1), metavar="N",
                   help="with --policy mcts: MCTS simulations per move (default 50)")
    s.add_argument("--seed", type=int, default=DEFAULT_SEED, metavar="S",
                   help=f"random seed (default {DEFAULT_SEED}); the same seed gives the same numbers")
    s.add_argument("--jobs", type=whole_number(1), default=None, metavar="J",
                   help="worker processes (default: the number of cores); the numbers do not depend on it")
    s.add_argument("--ray", nargs="?", const="local", default=None, metavar="ADDRESS",
                   help="run the chunks as Ray tasks: on a local Ray started for this run (no ADDRESS), or "
                        "on a cluster (`auto` for the one `ray start --head` runs here, or ray://HOST:10001); "
                        "needs `pip install 'rulebook[ray]'`")
    s.add_argument("--compare-option", metavar="NAME",
                   help="run under every value of option NAME and report the significant differences")
    s.add_argument("--plots", metavar="DIR", help="write SVG plots to DIR: win rates with error bars, score and "
                                                  "length histograms, and the option comparison")
    s.add_argument("--no-usage", action="store_true",
                   help="skip rule usage: play the plain engine (faster)")
    s.add_argument("--max-moves", type=whole_number(1), metavar="M",
                   help="stop a game that has not ended after M steps (default 100000); it counts as unfinished")
    s.add_argument("--json", action="store_true", help="print the reports as JSON")
    s.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args, sources: Sources, out: Output) -> int:
    from ..simulate import api, plots, report as rep
    from ..simulate.play import DEFAULT_MAX_MOVES, DEFAULT_SIMULATIONS, PolicyError
    if args.simulations is not None and args.policy != "mcts":
        raise UsageError("--simulations goes with --policy mcts", prog="rulebook simulate")
    options = dict(args.option)
    if args.compare_option and args.compare_option in options:
        raise UsageError(f"--compare-option {args.compare_option} runs every value of it: leave out "
                         f"--option {args.compare_option}=...", prog="rulebook simulate")
    kwargs = dict(policy=args.policy, seed=args.seed, jobs=args.jobs or os.cpu_count() or 1, ray=args.ray,
                  usage=not args.no_usage, max_moves=args.max_moves or DEFAULT_MAX_MOVES,
                  simulations=args.simulations or DEFAULT_SIMULATIONS,
                  progress=not args.no_progress and not out.as_json, sources=sources)
    interrupted = False
    try:
        for players in args.players or [None]:
            if args.compare_option:
                result, tallies = api.compare_option(args.spec, args.compare_option, args.games, options,
                                                     with_tallies=True, players=players, **kwargs)
                reports, text = [result], rep.format_comparison(result)
                interrupted = any(r["interrupted"] for r in result["runs"])
                tags = [f"-{args.compare_option}={v}" for v in result["values"]]
                pictures = ([p for r, t, tag in zip(result["runs"], tallies, tags)
                             for p in plots.write_run(r, t, args.plots, tag)]
                            + plots.write_comparison(result, args.plots)) if args.plots else []
            else:
                report, tally = api.simulate(args.spec, args.games, players, options, with_tally=True, **kwargs)
                reports, text, interrupted = [report], rep.format_report(report), report["interrupted"]
                pictures = plots.write_run(report, tally, args.plots) if args.plots else []
            if pictures:
                reports[0]["plots"] = pictures
                text += "\nplots: " + " ".join(pictures)
            for r in reports:
                out.add(r)
            if not out.as_json:
                print(text, flush=True)
                print()
            if interrupted:
                break
    except PolicyError as exc:
        raise UserError(str(exc)) from None
    except ModuleNotFoundError as exc:  # matplotlib or ray missing from this install
        raise UserError(f"{exc.name} is not installed: pip install 'rulebook[ray]' for Ray; matplotlib comes "
                        "with rulebook (pip install -e .)") from None
    except OSError as exc:
        raise UserError(f"cannot write the plots to {args.plots}: {exc.strerror or exc}") from None
    if interrupted:
        raise KeyboardInterrupt  # the partial reports are out; the exit code says it stopped early
    return EXIT_OK


__all__ = ["add_parser", "run"]
