"""Front end: spec text -> checked Program (parse, lower, type-check)."""
from __future__ import annotations

from pathlib import Path

from ..diagnostics import Diagnostic, Sources, SpecError, error, has_errors, Span
from ..ir.nodes import Spec
from .lower import lower_tree
from .parse import parse_text
from .typecheck import Program, typecheck


def parse_spec(text: str, path: str) -> tuple[Spec | None, list[Diagnostic]]:
    tree, diags = parse_text(text, path)
    if tree is None:
        return None, diags
    spec, more = lower_tree(tree, path)
    return spec, diags + more


def check_text(text: str, path: str) -> tuple[Program | None, list[Diagnostic]]:
    spec, diags = parse_spec(text, path)
    if spec is None or has_errors(diags):
        return None, diags
    program, more = typecheck(spec)
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
