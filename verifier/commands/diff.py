"""`rulebook diff OLD NEW`: what an edit changed, and `rulebook mutate SPEC`: how well a spec guards
its rules. Thin layers over `verifier.diff`. Exit codes: diff 0 (no behavioural difference
found), 5 (differences shown); mutate 0; both 1 or 2 for bad input, as elsewhere."""
from __future__ import annotations

import argparse
import sys

from ..diagnostics import Sources
from .common import (EXIT_OK, Output, UsageError, non_negative_seconds, option_pair, player_counts,
                     positive_seconds, whole_number)

EXIT_DIFFERS = 5

DIFF_EPILOG = """\
Exit codes: 0 no behavioural difference found (proved, or none found in the games played);
5 behavioural differences shown (each with a witness); 1 a problem in a spec or a value a spec
does not allow (an unknown option, a player count outside both specs' range); 2 a bad command
line; 3 internal error.

Examples:
  rulebook diff spec/ramen.rules spec/ramen.rules                 # the same game: proved, exit 0
  rulebook diff OLD.rules NEW.rules --players 2 --json
  rulebook diff SPEC SPEC --old-option NAME=A --new-option NAME=B  # two readings of one option
  rulebook query NEW.rules --players 2 --history "..." --move "..." # ask about a witness"""

MUTATE_EPILOG = """\
A mutant is killed when one of the spec's examples fails on it or verify finds a property
violated that the original keeps; one proved to play exactly as the original (the diff's
structural proof) is equivalent and not counted; any other is a survivor, shown with its source
diff, the witness of a behavioural difference (or none found) and what would catch it.
Kill rate = killed / (mutants - equivalent).

Exit codes: 0 the report was made (whatever the kill rate); 1 a problem in the spec; 2 a bad
command line; 3 internal error.

Examples:
  rulebook mutate spec/examples/tictactoe.rules --max-mutants 20
  rulebook mutate SPEC --jobs 2 --json > mutants.json"""


def add_parsers(sub, formatter) -> None:
    d = sub.add_parser("diff", help="what an edit of a spec changed: structure, behaviour (with witnesses), "
                                    "verification",
                       description="Compare OLD and NEW, two versions of a spec, in three layers. Structure: "
                                   "rules added, removed or changed by rule ID; declarations, moves, "
                                   "requirements, options, invariants and expectations by name, each with a "
                                   "small source diff; renamed definitions and reordered declarations are "
                                   "recognised as such. Behaviour: when the specs are the same game once wording, "
                                   "comments, order and names are set aside, `no behavioural difference "
                                   "(proved)`; otherwise both engines play in lockstep, driven towards the moves "
                                   "the edit touched, and every position where they disagree (a move legal under "
                                   "one only, the same move leading to different states, a different end or "
                                   "score) is a witness: the steps to it, valid under both specs, the move, "
                                   "what each spec says and the requirements responsible; when none is found, "
                                   "`none found in N games / depth D`, never `proved`. Verification: the "
                                   "properties whose `verify` status differs (a small budget per spec, through "
                                   "verify's cache).",
                       epilog=DIFF_EPILOG, formatter_class=formatter)
    d.add_argument("old", metavar="OLD", help="the spec before the edit")
    d.add_argument("new", metavar="NEW", help="the spec after the edit")
    d.add_argument("--players", type=player_counts, metavar="N[,N...]",
                   help="player counts to compare (default: every count both specs allow)")
    d.add_argument("--option", action="append", type=option_pair, default=[], metavar="NAME=VALUE",
                   help="set an option on both sides (repeatable)")
    d.add_argument("--old-option", action="append", type=option_pair, default=[], metavar="NAME=VALUE",
                   help="set an option of OLD only (repeatable): compare two readings of one spec")
    d.add_argument("--new-option", action="append", type=option_pair, default=[], metavar="NAME=VALUE",
                   help="set an option of NEW only (repeatable)")
    d.add_argument("--games", type=whole_number(1), default=300, metavar="G",
                   help="lockstep games at most (default 300)")
    d.add_argument("--depth", type=whole_number(1), default=1000, metavar="D",
                   help="steps of one game at most (default 1000)")
    d.add_argument("--budget", type=positive_seconds, default=60.0, metavar="S",
                   help="seconds of lockstep play at most (default 60)")
    d.add_argument("--witnesses", type=whole_number(1), default=3, metavar="K",
                   help="stop after K witnesses of different kinds (default 3)")
    d.add_argument("--verify-budget", type=non_negative_seconds, default=10.0, metavar="S",
                   help="seconds of verify per spec and player count for the verification layer "
                        "(default 10; 0: skip it)")
    d.add_argument("--seed", type=int, default=0, metavar="S", help="random seed of the games (default 0)")
    d.add_argument("--json", action="store_true", help="print the diff as JSON")

    m = sub.add_parser("mutate", help="how well a spec guards its rules: mutants, kill rate, survivors",
                       description="Generate mutants of SPEC's rules from its IR — a requirement dropped or "
                                   "negated, a number or a comparison moved by one (`<` and `<=`, `and` and "
                                   "`or` swapped), a statement dropped, a range widened, two catalogue entries "
                                   "swapped — and for each, run the spec's examples, verify its properties with "
                                   "a small budget, and diff it against the original. Report the kill rate and "
                                   "each surviving mutant as a source diff, with what would catch it.",
                       epilog=MUTATE_EPILOG, formatter_class=formatter)
    m.add_argument("spec", metavar="SPEC")
    m.add_argument("--players", type=whole_number(1), metavar="N",
                   help="the player count mutants are verified and played with (default: the spec's minimum)")
    m.add_argument("--option", action="append", type=option_pair, default=[], metavar="NAME=VALUE",
                   help="set a spec option (repeatable)")
    m.add_argument("--jobs", type=whole_number(1), default=None, metavar="J",
                   help="mutants run side by side in J worker processes (default: the number of cores)")
    m.add_argument("--ray", metavar="ADDRESS", default=None,
                   help="run the mutants as Ray tasks on the cluster at ADDRESS (`local` starts one here)")
    m.add_argument("--max-mutants", type=whole_number(1), default=120, metavar="M",
                   help="at most M mutants, spread over the kinds of mutation (default 120)")
    m.add_argument("--budget", type=positive_seconds, default=10.0, metavar="S",
                   help="seconds of verify per mutant (default 10)")
    m.add_argument("--diff-budget", type=positive_seconds, default=5.0, metavar="S",
                   help="seconds of the diff that looks for a surviving mutant's witness (default 5); it "
                        "explains a survivor and never decides a kill")
    m.add_argument("--games", type=whole_number(1), default=60, metavar="G",
                   help="lockstep games of the diff per surviving mutant (default 60)")
    m.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0)")
    m.add_argument("--json", action="store_true", help="print the report as JSON")


def run(args, sources: Sources, out: Output) -> int:
    from ..diff import Settings, diff_programs
    from ..diff.report import format_diff
    from ..diff.run import load
    both = dict(args.option)
    settings = Settings(players=args.players, old_options={**both, **dict(args.old_option)},
                        new_options={**both, **dict(args.new_option)}, games=args.games, depth=args.depth,
                        seconds=args.budget, seed=args.seed, witnesses=args.witnesses,
                        verify_budget=args.verify_budget)
    old = load(args.old, sources)
    new = load(args.new, sources)
    progress = None if out.as_json or not sys.stderr.isatty() else _live
    d = diff_programs(old, new, settings, sources.texts, progress)
    if progress:
        sys.stderr.write("\r\x1b[K")
    out.add(d.as_json())
    if not out.as_json:
        print(format_diff(d))
    return EXIT_DIFFERS if d.differs else EXIT_OK


def _live(text: str) -> None:
    sys.stderr.write(f"\r\x1b[K{text}")
    sys.stderr.flush()


def run_mutate(args, sources: Sources, out: Output) -> int:
    import os
    from ..diff.mutate import Config, format_mutate, mutate
    from ..diff.run import load
    if args.ray is not None and args.jobs is not None:
        raise UsageError("--ray runs the mutants on a cluster: leave out --jobs", prog="rulebook mutate")
    program = load(args.spec, sources)
    config = Config(players=args.players, options=dict(args.option), jobs=args.jobs or os.cpu_count() or 1,
                    ray=args.ray, max_mutants=args.max_mutants, budget=args.budget,
                    diff_budget=args.diff_budget, games=args.games,
                    seed=args.seed)
    progress = None if out.as_json or not sys.stderr.isatty() else _live
    report = mutate(program, sources.texts.get(args.spec, ""), config, progress)
    if progress:
        sys.stderr.write("\r\x1b[K")
    out.add(report)
    if not out.as_json:
        print(format_mutate(report))
    return EXIT_OK


__all__ = ["add_parsers", "run", "run_mutate", "EXIT_DIFFERS", "argparse"]
