"""Diagnostics as data: source spans, messages with notes, and their rendering.

Every error a user can cause is a `Diagnostic`; it is collected, never raised
as a bare Python exception, and rendered as `path:line:col: error: message`
followed by the source line and a caret under the offending text.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


@dataclass(frozen=True)
class Span:
    """A region of a source file; 1-based line and column, end exclusive."""

    path: str
    line: int
    col: int
    end_line: int
    end_col: int

    def __str__(self) -> str:
        return self.path if self.line == 0 else f"{self.path}:{self.line}:{self.col}"

    @staticmethod
    def unknown(path: str = "<input>") -> "Span":
        """The whole file, not a place in it (line 0): rendered without line, column or caret."""
        return Span(path, 0, 0, 0, 0)


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


@dataclass(frozen=True)
class Diagnostic:
    severity: Severity
    span: Span
    message: str
    notes: tuple[str, ...] = ()
    code: str = ""  # a stable identifier, e.g. "unknown-name", used by tests

    def to_json(self) -> dict:
        return {
            "severity": self.severity.value,
            "path": self.span.path,
            "line": self.span.line,
            "col": self.span.col,
            "end_line": self.span.end_line,
            "end_col": self.span.end_col,
            "message": self.message,
            "notes": list(self.notes),
            "code": self.code,
        }


def error(span: Span, message: str, *notes: str, code: str = "") -> Diagnostic:
    return Diagnostic(Severity.ERROR, span, message, tuple(notes), code)


def warning(span: Span, message: str, *notes: str, code: str = "") -> Diagnostic:
    return Diagnostic(Severity.WARNING, span, message, tuple(notes), code)


class SpecError(Exception):
    """Raised to stop a pipeline stage that has collected fatal diagnostics."""

    def __init__(self, diagnostics: list[Diagnostic]):
        super().__init__("\n".join(d.message for d in diagnostics))
        self.diagnostics = diagnostics


@dataclass
class Sources:
    """Keeps the text of every file read, so diagnostics can show source lines."""

    texts: dict[str, str] = field(default_factory=dict)

    def add(self, path: str, text: str) -> None:
        self.texts[path] = text

    def line(self, path: str, line: int) -> str | None:
        text = self.texts.get(path)
        if text is None:
            return None
        lines = text.splitlines()
        return lines[line - 1] if 0 < line <= len(lines) else None


def render(diag: Diagnostic, sources: Sources | None = None) -> str:
    """`path:line:col: severity: message`, the source line, a caret, the notes."""
    s = diag.span
    out = [f"{s}: {diag.severity.value}: {diag.message}"]
    src = sources.line(s.path, s.line) if sources and s.line > 0 else None
    if src is not None:
        src = src.replace("\t", " ")
        width = (s.end_col - s.col) if s.end_line == s.line and s.end_col > s.col else 1
        width = max(1, min(width, len(src) - s.col + 1))
        out.append(f"    {src}")
        out.append("    " + " " * (s.col - 1) + "^" + "~" * (width - 1))
    for note in diag.notes:
        out.append(f"    note: {note}")
    return "\n".join(out)


def has_errors(diags: list[Diagnostic]) -> bool:
    return any(d.severity is Severity.ERROR for d in diags)
