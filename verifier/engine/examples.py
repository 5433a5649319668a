"""Runs a spec's `example` blocks on its compiled engine; failures become diagnostics."""
from __future__ import annotations

from ..diagnostics import Diagnostic, Span, error
from .runtime import Engine


def span_of(where: str, path: str) -> Span:
    """A generated `file:line:col` location as a Span (the whole file if it is not one)."""
    try:
        file, line, col = where.rsplit(":", 2)
        return Span(file, int(line), int(col), int(line), int(col) + 1)
    except ValueError:
        return Span.unknown(path)


def run_examples(engine: Engine, options: dict | None = None) -> list[Diagnostic]:
    """Each example starts from a fresh, not yet set-up state with its player count and the
    option values `options` (engine values, as `parse_option_values` gives; default: the spec's)."""
    m = engine.module
    path = engine.program.spec.path
    diags = []
    for name, sentence, players, fn, where in m.EXAMPLES:
        s = m.new_state(players, m.OPTIONS if options is None else options)
        try:
            failed = fn(s)
        except Exception as exc:  # an example that crashes (a RuleError or worse) is a failed example
            diags.append(error(span_of(where, path), f"example {name!r} could not run: {exc}", sentence,
                               code="example"))
            continue
        for at in failed:
            diags.append(error(span_of(at, path), f"example {name!r}: this expectation does not hold", sentence,
                               code="example"))
    return diags
