"""Front end: spec text -> checked Program (parse, lower, type-check)."""
from __future__ import annotations

import contextlib
import gc
import sys
from pathlib import Path

import lark

from ..diagnostics import Diagnostic, Sources, SpecError, error, has_errors, Span
from ..ir.nodes import Spec
from .fastparse import Fallback, parse_fast
from .lower import lower_tree
from .parse import parse_text
from .typecheck import Program, typecheck


# Expressions nest as deeply as the text does; the passes over them recurse.
# Python 3.11 runs Python-to-Python calls without using the C stack, so a
# higher limit is safe; past it the user gets a diagnostic, not a crash.
sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))


def too_deep(path: str, top=None) -> Diagnostic:
    """The error for nesting past a limit; `top` (the spec, or its parse tree) locates the
    declaration that nests deepest."""
    span, depth = deepest_declaration(top, path) if top is not None else (Span.unknown(path), 0)
    return error(span, "the spec nests expressions too deeply to process"
                 + (f" (this declaration nests {depth} levels deep)" if depth else ""),
                 "split a very long or deeply nested expression with definitions (def)", code="too-deep")


def deepest_declaration(top, path: str) -> tuple[Span, int]:
    """The span of the top-level declaration (IR or parse tree) whose nesting is deepest, and its
    depth; iterative, since it runs exactly where recursion gave up."""
    def children(node):
        if isinstance(node, lark.Tree):
            return [c for c in node.children if isinstance(c, lark.Tree)]
        return list(node.children())

    def span_of(node) -> Span:
        if isinstance(node, lark.Tree):
            m = node.meta
            return Span.unknown(path) if m.empty else Span(path, m.line, m.column, m.end_line, m.end_column)
        return node.span

    best, best_depth = Span.unknown(path), 0
    for decl in children(top):
        stack, deepest = [(decl, 1)], 0
        while stack:
            node, depth = stack.pop()
            deepest = max(deepest, depth)
            stack.extend((c, depth + 1) for c in children(node))
        if deepest > best_depth:
            best, best_depth = span_of(decl), deepest
    return best, best_depth


def parse_spec(text: str, path: str) -> tuple[Spec | None, list[Diagnostic]]:
    """The spec's IR and diagnostics: the hand-written parser for correct text (fast), lark —
    the grammar's own parser, and the words of every syntax error — for the rest."""
    try:
        return parse_fast(text, path), []
    except (Fallback, RecursionError):
        pass
    tree = None
    try:
        tree, diags = parse_text(text, path)
        if tree is None:
            return None, diags
        spec, more = lower_tree(tree, path)
    except RecursionError:
        return None, [too_deep(path, tree)]
    return spec, diags + more


@contextlib.contextmanager
def without_gc():
    """Python's cycle collector off while a large structure is built, back on after.

    The parse tree, the IR and the type tables are built from millions of small objects that
    form no cycles (reference counting frees them); each full collection walks every one of
    them, so with the collector on, a 1.5 MB spec spent half its front-end time in it, and
    more the larger it got.
    """
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def check_text(text: str, path: str) -> tuple[Program | None, list[Diagnostic]]:
    with without_gc():
        return _check_text(text, path)


def _check_text(text: str, path: str) -> tuple[Program | None, list[Diagnostic]]:
    spec, diags = parse_spec(text, path)
    if spec is None or has_errors(diags):
        return None, diags
    try:
        program, more = typecheck(spec)
    except RecursionError:
        return None, diags + [too_deep(path, spec)]
    return program, diags + more


def read_source(path: str, sources: Sources) -> str:
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise SpecError([error(Span.unknown(path), f"cannot read {path}: {exc.strerror or exc}", code="io")])
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SpecError([error(Span.unknown(path), f"{path} is not UTF-8 text (byte {exc.start})", code="io")])
    sources.add(path, text)
    return text


def load_program(path: str, sources: Sources | None = None) -> tuple[Program, list[Diagnostic]]:
    """Read and check a spec; raise SpecError with every diagnostic if it has errors."""
    sources = sources if sources is not None else Sources()
    text = read_source(path, sources)
    program, diags = check_text(text, path)
    if program is None or has_errors(diags):
        raise SpecError(diags)
    return program, diags
