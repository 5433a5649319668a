"""`rulebook check`: parse and type-check each spec, compile it, run its examples, set up a game.

Diagnostics are capped per kind (a kind: severity and code), so a spec with 80,000
copies of one mistake prints the first few and a count of the rest, not 80,000 lines.
"""
from __future__ import annotations

import sys
from collections import Counter
from dataclasses import replace

from ..diagnostics import Diagnostic, Severity, Sources, SpecError, error, has_errors, render
from ..frontend.check_docs import STRICT_CODES
from .common import EXIT_OK, EXIT_USER, Output

DEFAULT_PER_KIND = 20


def cap(diags: list[Diagnostic], per_kind: int) -> tuple[list[Diagnostic], Counter]:
    """The first `per_kind` diagnostics of each kind, in order, and how many of each were left out
    (`per_kind` 0: no cap)."""
    if per_kind <= 0:
        return diags, Counter()
    seen: Counter = Counter()
    shown, omitted = [], Counter()
    for d in diags:
        kind = (d.severity.value, d.code)
        seen[kind] += 1
        if seen[kind] <= per_kind:
            shown.append(d)
        else:
            omitted[kind] += 1
    return shown, omitted


def omitted_lines(path: str, omitted: Counter) -> list[str]:
    return [f"{path}: ... and {n} more {severity}{'s' if n != 1 else ''} of this kind"
            + (f" ({code})" if code else "") for (severity, code), n in omitted.items()]


def settings_diagnostics(engine, path: str, players: list[int] | None, options: dict) -> list[Diagnostic]:
    """Set up a game for each player count (the spec's minimum by default) with `options`:
    a count or option the spec does not allow, or a set-up that breaks, is an error."""
    from ..engine.examples import span_of
    from ..engine.lib import RuleError
    from ..engine.runtime import Game
    out = []
    for n in players or [engine.program.min_players]:
        try:
            Game(engine, n, options).new_initial_state()
        except SpecError as exc:
            return out + [d for d in exc.diagnostics if d not in out]
        except RuleError as exc:
            out.append(error(span_of(exc.where, path), f"with {n} players the set-up breaks before the first "
                             f"decision: {exc.plain}", code="setup"))
    return out


def check_one(path: str, sources: Sources, players, options: dict) -> list[Diagnostic]:
    from ..engine.examples import run_examples
    from ..engine.runtime import Engine, parse_option_values
    from ..frontend import check_text, read_source
    try:
        text = read_source(path, sources)
    except SpecError as exc:
        return exc.diagnostics
    program, diags = check_text(text, path)
    if program is None or has_errors(diags):
        return diags
    try:
        engine = Engine(program)
        settings = settings_diagnostics(engine, path, players, options)
        if settings:
            return diags + settings
        return diags + run_examples(engine, parse_option_values(engine, options))
    except SpecError as exc:
        return diags + exc.diagnostics


def run(args, sources: Sources, out: Output) -> int:
    options = dict(args.option)
    failed = False
    for path in args.specs:
        diags = check_one(path, sources, args.players, options)
        if getattr(args, "strict", False):
            diags = [replace(d, severity=Severity.ERROR) if d.code in STRICT_CODES else d for d in diags]
        bad = has_errors(diags) or (args.werror and bool(diags))
        failed |= bad
        shown, omitted = cap(diags, args.max_per_kind)
        out.add({"spec": path, "ok": not bad, "diagnostics": [d.to_json() for d in shown],
                 "omitted": [{"severity": s, "code": c, "count": n} for (s, c), n in omitted.items()]})
        if out.as_json:
            continue
        for d in shown:
            print(render(d, sources), file=sys.stderr)
        for line in omitted_lines(path, omitted):
            print(line, file=sys.stderr)
        if not bad:
            n_warn = len(diags)
            print(f"{path}: ok" + (f" ({n_warn} warning{'s' if n_warn != 1 else ''})" if n_warn else ""))
    return EXIT_USER if failed else EXIT_OK
