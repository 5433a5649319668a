"""An expression of the rules language, given on the command line, read in a spec's scope.

`--can "EXPR"` asks whether a state satisfying EXPR can be reached. EXPR is parsed by the
grammar's own parser (start symbol `expr`), lowered to IR like any spec expression, and
type-checked as the condition of an invariant appended to the spec, so it may use exactly
what an invariant may: the spec's variables, constants, options, definitions, `players` and
`num_players` (not the flow's local variables, which only the flow sees). The invariant
appended is `not (EXPR)`: a state that satisfies EXPR breaks it, so every tool that looks
for a broken invariant (the directed search, the prover) answers the question unchanged.

Errors are diagnostics whose path is the flag (`--can`), with a caret under the expression.
"""
from __future__ import annotations

from dataclasses import dataclass

from lark.exceptions import UnexpectedInput

from ..diagnostics import Sources, Span, SpecError, error, has_errors
from ..frontend.lower import Lowerer
from ..frontend.parse import parser, syntax_diagnostic
from ..frontend.typecheck import Program, typecheck
from ..ir import nodes as N

QUERY_NAME = "can_reach"  # the appended invariant's name (a number is added if the spec uses it)


@dataclass
class Query:
    """The spec with `not (EXPR)` appended as the invariant `name`; `expr` is EXPR's IR."""

    program: Program
    name: str
    expr: object
    text: str


def parse_expr(text: str, origin: str = "--can") -> N.Node:
    """EXPR's IR, spans in `origin` (line 1); a syntax error raises SpecError."""
    if "\n" in text.strip():
        text = " ".join(text.split("\n"))
    try:
        tree = parser().parse(text, start="expr")
    except UnexpectedInput as exc:
        raise SpecError([syntax_diagnostic(exc, origin, text)]) from None
    lowerer = Lowerer(origin)
    expr = lowerer.lower(tree)
    if has_errors(lowerer.diagnostics):
        raise SpecError(lowerer.diagnostics)
    return expr


def query_program(program: Program, text: str, origin: str = "--can", sources: Sources | None = None) -> Query:
    """Type-check EXPR as a condition over `program`'s state; raise SpecError (located in `origin`)."""
    if sources is not None:
        sources.add(origin, text)
    if not text.strip():
        raise SpecError([error(Span(origin, 1, 1, 1, 2), "an empty expression",
                               "write a condition over the state, e.g. \"score(0) >= 10\"", code="syntax")])
    expr = parse_expr(text, origin)
    taken = {d.name for d in program.spec.decls if hasattr(d, "name")}
    name, k = QUERY_NAME, 1
    while name in taken:
        k += 1
        name = f"{QUERY_NAME}{k}"
    span = Span(origin, 1, 1, 1, len(text) + 1)
    inv = N.InvariantDecl(name, f"never: {text}", N.Unary("not", expr, span=span), span=span)
    spec = N.Spec(program.spec.path, program.spec.decls + (inv,), span=program.spec.span)
    checked, diags = typecheck(spec)
    mine = [d for d in diags if d.span.path == origin]
    if has_errors(mine) or checked is None:
        errors = [d for d in mine if d.severity.value == "error"] or [d for d in diags if d.severity.value == "error"]
        raise SpecError([_reworded(d) for d in errors])
    return Query(checked, name, expr, text)


def _reworded(d):
    """The appended `not` is ours: a non-condition is reported as the user wrote it."""
    if d.message.startswith("'not' needs a condition, got "):
        got = d.message[len("'not' needs a condition, got "):]
        return error(d.span, f"a condition is true or false, not {got}",
                     "compare it: e.g. \"size(deck) == 0\"", code=d.code)
    return d


__all__ = ["Query", "parse_expr", "query_program", "QUERY_NAME"]
