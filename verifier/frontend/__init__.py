"""Front end: spec text -> checked Program (parse, lower, type-check)."""
from __future__ import annotations

import sys
from pathlib import Path

from ..diagnostics import Diagnostic, Sources, SpecError, error, has_errors, Span
from ..ir.nodes import Spec
from .lower import lower_tree
from .parse import parse_text
from .typecheck import Program, typecheck


# Expressions nest as deeply as the text does; the passes over them recurse.
# Python 3.11 runs Python-to-Python calls without using the C stack, so a
# higher limit is safe; past it the user gets a diagnostic, not a crash.
sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))


def too_deep(path: str) -> Diagnostic:
    return error(Span.unknown(path), "the spec nests expressions too deeply to process",
                 "split a very long or deeply nested expression with definitions (def)", code="too-deep")


def parse_spec(text: str, path: str) -> tuple[Spec | None, list[Diagnostic]]:
    try:
        tree, diags = parse_text(text, path)
        if tree is None:
            return None, diags
        spec, more = lower_tree(tree, path)
    except RecursionError:
        return None, [too_deep(path)]
    return spec, diags + more


def check_text(text: str, path: str) -> tuple[Program | None, list[Diagnostic]]:
    spec, diags = parse_spec(text, path)
    if spec is None or has_errors(diags):
        return None, diags
    try:
        program, more = typecheck(spec)
    except RecursionError:
        return None, diags + [too_deep(path)]
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
