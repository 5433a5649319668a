"""`rulebook verify`: every property of each spec, proved, violated (with a game) or unknown.

Progress is for whoever watches: on a terminal a live line on standard error; off a
terminal (a log file, CI) a line per finished property, on standard output in text mode
(where the report goes) and on standard error under --json (standard output holds the
JSON alone). Counterexamples print condensed — the moves and the state where the
property fails, then the failing clause — and in full with --full.
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from ..diagnostics import Sources, SpecError
from .common import EXIT_OK, EXIT_UNPROVED, EXIT_USER, Output, UserError


class Progress:
    """The progress callback `verify` calls with each step's text; `finished(result)` hears of
    each property as it is settled."""

    def __init__(self, args, path: str, as_json: bool):
        self.name = os.path.basename(path)
        self.verbose = args.verbose
        self.started = time.perf_counter()
        quiet = args.no_progress
        self.live = not quiet and not args.verbose and not as_json and sys.stderr.isatty()
        if as_json:
            self.lines = None if quiet or sys.stderr.isatty() else sys.stderr
        else:
            self.lines = None if quiet or sys.stdout.isatty() else sys.stdout
        if self.verbose and self.lines is None:
            self.lines = sys.stderr  # a log of every step has the results in it too

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def __call__(self, text: str) -> None:
        if self.verbose:
            sys.stderr.write(f"[{self.elapsed():7.1f}s] {self.name}: {text}\n")
        elif self.live:
            sys.stderr.write(f"\r\x1b[K{self.name}: {text}")
            sys.stderr.flush()

    def finished(self, result) -> None:
        from ..verify.report import finished_line
        if self.lines is None:
            return
        if self.live:
            sys.stderr.write("\r\x1b[K")
        self.lines.write(finished_line(result, self.name, self.elapsed()) + "\n")
        self.lines.flush()

    def close(self) -> None:
        if self.live:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def check_names(program, path: str, only: set | None, given: dict, players: list[int] | None) -> None:
    """Properties, options and player counts the spec has; otherwise exit 1 naming the spec."""
    from ..verify.run import BUILTINS
    names = {inv.name for inv in program.invariants} | set(BUILTINS)
    for name in sorted(only or ()):
        if name not in names:
            raise UserError(f"{path}: no property {name!r} (properties: {', '.join(sorted(names))})")
    unknown = [k for k in given if k not in program.options]
    if unknown:
        raise UserError(f"{path}: no option {unknown[0]!r} (options: {', '.join(program.options) or 'none'})")
    for c in players or ():
        if not program.min_players <= c <= program.max_players:
            raise UserError(f"{path}: {c} players is outside {program.min_players}..{program.max_players}")


def counterexample_renderer(program, full: bool):
    """Result -> its game as text, replayed on a fresh engine ("" if it cannot be replayed)."""
    from ..engine.lib import RuleError
    from ..engine.replayfile import read_replay
    from ..engine.runtime import Engine
    from ..verify import counterexample
    engine = []

    def render(result) -> str:
        try:
            if not engine:
                engine.append(Engine(program))
            replayed = counterexample.replay(engine[0], read_replay(json.dumps(result.trace)))
            return counterexample.render(replayed, full=full)
        except (ValueError, RuleError):  # the verifier's own rendering stands in
            return ""
    return render


def write_traces(directory: str, report) -> None:
    try:
        os.makedirs(directory, exist_ok=True)
        stem = os.path.splitext(os.path.basename(report.spec))[0]
        for r in report.results:
            if r.trace is not None:
                with open(os.path.join(directory, f"{stem}-{r.name}-{r.players}p.json"), "w", encoding="utf-8") as fh:
                    json.dump(r.trace, fh, indent=1)
    except OSError as exc:
        raise UserError(f"cannot write traces to {directory}: {exc.strerror or exc}") from None


def stamp(report: dict, text: str) -> dict:
    """The report, with when the run finished and the hash of the spec text it verified: the
    documentation site says when results were found and marks them stale when the spec changed."""
    import hashlib
    from datetime import datetime, timezone
    return {**report, "spec_sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
            "finished": datetime.now(timezone.utc).isoformat(timespec="seconds")}


def save_reports(path: str, reports: list) -> None:
    """`--save-json FILE`: the reports as `--json` prints them (e.g. for `rulebook docs`)."""
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps({"reports": reports}, indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror or exc}") from None


def run(args, sources: Sources, out: Output) -> int:
    from ..frontend import load_program
    from ..verify.report import format_report
    from ..verify.cache import Cache
    from ..verify.run import Budget, verify
    from ..verify.side_by_side import SpecRun, verify_side_by_side
    given = dict(args.option)
    only = set(args.property) if args.property else None
    outcomes = set()
    saved: list[dict] = []
    budget = Budget(games=args.games, timeout=args.timeout, proof=args.budget, depth=args.depth, k=args.k,
                    falsify=args.search, spacer=not args.no_spacer)
    jobs = args.jobs or os.cpu_count() or 1
    programs, failed = [], None
    for path in args.specs:  # the specs before one that cannot be read are verified (and kept)
        try:
            program, _ = load_program(path, sources)
            check_names(program, path, only, given, args.players)
        except (SpecError, UserError) as exc:  # raised below, once the specs before it are done
            failed = exc
            break
        programs.append(program)
    progresses = [Progress(args, path, out.as_json) for path in args.specs[:len(programs)]]
    if len(programs) > 1 and jobs > 1:
        # the specs' player counts side by side, each report whole and in order
        reports = verify_side_by_side([SpecRun(program, given, args.players, budget, progress, only,
                                               None if args.no_cache else Cache())
                                       for program, progress in zip(programs, progresses)], jobs)
    else:
        reports = (verify(program, given, args.players, budget, progress, only, jobs=jobs,
                          cache=None if args.no_cache else Cache(), isolated=True)
                   for program, progress in zip(programs, progresses))
    for path, program, progress in zip(args.specs, programs, progresses):  # (the specs read)
        try:
            report = next(reports)
        finally:
            progress.close()
        stamped = stamp(report.as_json(), sources.texts.get(path, ""))
        out.add(stamped)
        saved.append(stamped)
        if args.save_json:  # after each spec: an interrupted run keeps what it finished
            save_reports(args.save_json, saved)
        outcomes.add(report.outcome)
        if args.trace_dir:
            write_traces(args.trace_dir, report)
        if not out.as_json:
            print(format_report(report, counterexample=counterexample_renderer(program, args.full)))
            print()
            sys.stdout.flush()
    if failed is not None:
        raise failed
    if "differs" in outcomes:
        return EXIT_USER
    return EXIT_UNPROVED if "inconclusive" in outcomes else EXIT_OK
