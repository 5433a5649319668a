"""What every command shares: exit codes, the errors a user can cause, the one JSON shape,
and the argument types of the command line.

Exit codes (README.md, docs/commands.md):

- 0: success (`verify`: every result as the spec expects);
- 1: a problem in your spec or files, or a value the spec does not allow (an unknown option
  or property, a player count outside the spec's range, a bad replay file); rules that broke
  while playing; `verify`: a result contradicts the spec;
- 2: a bad command line, whatever the spec: an unknown command or flag, a value of the wrong
  form or outside the flag's own range, flags that exclude each other;
- 3: an internal error of rulebook (a bug: please report; `--debug` shows the traceback);
- 4: `verify` only: nothing contradicts the spec, but some proofs it expects were not found;
- 130: interrupted (Ctrl-C).

With `--json`, every command prints exactly one JSON object on standard output, whatever
happens: `{"reports": [...]}` — one report per spec (per game for `play`), the same shape
for one spec as for several — plus `"error": {...}` when the command stopped on an error
(`exit_code`, `kind`, `message`, and `diagnostics` for errors in a spec).
"""
from __future__ import annotations

import argparse
import json
import sys

EXIT_OK, EXIT_USER, EXIT_USAGE, EXIT_INTERNAL, EXIT_UNPROVED, EXIT_INTERRUPTED = 0, 1, 2, 3, 4, 130


class UserError(Exception):
    """A problem the user can fix in their files or values; printed as `error: message`, exit 1."""


class UsageError(Exception):
    """A malformed command line (exit 2); printed after the command's usage line."""

    def __init__(self, message: str, usage: str = "", prog: str = "rulebook"):
        super().__init__(message)
        self.usage = usage
        self.prog = prog


class CommandLineParser(argparse.ArgumentParser):
    """argparse, except that a bad command line raises UsageError instead of exiting, so that
    `main` can answer it like every other error (and in JSON under --json)."""

    def error(self, message: str):
        raise UsageError(message, self.format_usage(), self.prog)


# ------------------------------------------------------------------ argument types

def whole_number(least: int):
    """An argparse type: a whole number, at least `least`."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"must be at least {least}, got {value}")
        return value
    parse.__name__ = "whole number"
    return parse


def positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text!r}")
    return value


def non_negative_seconds(text: str) -> float:
    """Seconds, 0 included (0: the step is skipped)."""
    if text.strip() in ("0", "0.0"):
        return 0.0
    return positive_seconds(text)


def player_counts(text: str) -> list[int]:
    """`2` or `2,3,4`: the player counts to use."""
    try:
        counts = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected numbers separated by commas, got {text!r}") from None
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError(f"expected player counts of at least 1, got {text!r}")
    return counts


def option_pair(text: str) -> tuple[str, str]:
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"expects NAME=VALUE, got {text!r}")
    name, value = text.split("=", 1)
    if not name.strip():
        raise argparse.ArgumentTypeError(f"expects NAME=VALUE, got {text!r}")
    return name.strip(), value.strip()


def add_settings(parser: argparse.ArgumentParser, players_help: str, many_players: bool = False) -> None:
    """--option and --players, the same for every command that builds a game."""
    parser.add_argument("--option", action="append", type=option_pair, default=[], metavar="NAME=VALUE",
                        help="set a spec option (repeatable); `rulebook info SPEC` lists them")
    parser.add_argument("--players", type=player_counts if many_players else whole_number(1),
                        metavar="N[,N...]" if many_players else "N", help=players_help)


# ------------------------------------------------------------------ the JSON contract

class Output:
    """A command's reports. Under --json they are printed once, at the end, as the one object;
    in text mode the commands print as they go and this only keeps count."""

    def __init__(self, as_json: bool):
        self.as_json = as_json
        self.reports: list = []

    def add(self, report: dict) -> None:
        self.reports.append(report)

    def finish(self, error: dict | None = None) -> None:
        if not self.as_json:
            return
        out: dict = {"reports": self.reports}
        if error is not None:
            out["error"] = error
        try:
            sys.stdout.write(json.dumps(out, indent=2) + "\n")
            sys.stdout.flush()
        except BrokenPipeError:
            pass


def error_object(exit_code: int, kind: str, message: str, diagnostics: list | None = None) -> dict:
    """`kind`: usage, spec, input, rules, internal or interrupted."""
    out = {"exit_code": exit_code, "kind": kind, "message": message}
    if diagnostics is not None:
        out["diagnostics"] = diagnostics
    return out
