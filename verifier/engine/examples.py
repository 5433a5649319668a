"""Runs a spec's `example` blocks on its compiled engine; failures become diagnostics."""
from __future__ import annotations

from ..diagnostics import Diagnostic, Span, error
from .runtime import Engine


def _span(where: str, path: str) -> Span:
    try:
        file, line, col = where.rsplit(":", 2)
        return Span(file, int(line), int(col), int(line), int(col) + 1)
    except ValueError:
        return Span.unknown(path)


def run_examples(engine: Engine) -> list[Diagnostic]:
    """Each example starts from a fresh, not yet set-up state with its player count."""
    m = engine.module
    path = engine.program.spec.path
    diags = []
    for name, sentence, players, fn, where in m.EXAMPLES:
        s = m.new_state(players, m.OPTIONS)
        try:
            failed = fn(s)
        except Exception as exc:  # an example that crashes (a RuleError or worse) is a failed example
            diags.append(error(_span(where, path), f"example {name!r} could not run: {exc}", sentence,
                               code="example"))
            continue
        for at in failed:
            diags.append(error(_span(at, path), f"example {name!r}: this expectation does not hold", sentence,
                               code="example"))
    return diags
