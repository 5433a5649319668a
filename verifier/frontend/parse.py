"""Text -> lark parse tree, with syntax errors turned into diagnostics.

Owns the one lark parser (LALR, contextual lexer, positions propagated) and
the translation of lark's token names into the language's own words, so a
user reads "expected a name or '('" rather than "Expected one of: NAME, LPAR".
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import lark
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from ..diagnostics import Diagnostic, Span, error

GRAMMAR_PATH = Path(__file__).resolve().parents[2] / "grammar" / "rules.lark"

# Names of the language's token categories, as a user would say them.
_CATEGORY_WORDS = {
    "NAME": "a name",
    "INT": "a whole number",
    "STRING": 'a "string"',
    "CITE": "a rule citation like @R-B1",
    
    
    
    
    
    
    "AGGREGATE": "an aggregate (sum, count, all, any, min, max, argmin, argmax, collect, table)",
    "$END": "the end of the file",
}


@lru_cache(maxsize=None)
def parser() -> lark.Lark:
    return lark.Lark(
        GRAMMAR_PATH.read_text(encoding="utf-8"),
        parser="lalr",
        lexer="contextual",
        propagate_positions=True,
        maybe_placeholders=True,
        start=["start", "expr"],
    )


def _describe_terminal(name: str) -> str:
    if name in _CATEGORY_WORDS:
        return _CATEGORY_WORDS[name]
    try:
        pattern = parser().get_terminal(name).pattern
    except KeyError:
        return name.lower()
    if isinstance(pattern, lark.lexer.PatternStr):
        return f"'{pattern.value}'"
    return name.lower()


def describe_expected(names) -> str:
    words = sorted({_describe_terminal(n) for n in names}, key=lambda w: (w[0] != "'", w))
    if not words:
        return "something else"
    if len(words) > 8:
        words = words[:8] + ["..."]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _token_text(tok: lark.Token) -> str:
    if tok.type == "$END":
        return "end of file"
    return f"'{tok.value}'"


def _span_at(path: str, line: int, col: int, width: int = 1) -> Span:
    return Span(path, line, col, line, col + max(width, 1))


def syntax_diagnostic(exc: UnexpectedInput, path: str, text: str) -> Diagnostic:
    """Turn a lark exception into a diagnostic phrased in the language's words."""
    if isinstance(exc, UnexpectedCharacters):
        ch = text[exc.pos_in_stream] if exc.pos_in_stream < len(text) else ""
        span = _span_at(path, exc.line, exc.column)
        if ch == '"':
            bad = _invalid_escape(text, exc.pos_in_stream)
            if bad is not None:  # the string does end, but an escape in it is not one of ours
                line, col = exc.line, exc.column + (bad - exc.pos_in_stream)
                return error(_span_at(path, line, col, 2), f"invalid escape '{text[bad:bad + 2]}' in a string",
                             "inside a string write \\\" \\\\ \\n \\{ or \\}", code="syntax")
            return error(span, "unterminated string", "strings end on the same line with '\"'; "
                         "inside a string write \\\" \\\\ \\n \\{ or \\}", code="syntax")
        if ch == "=" and text[exc.pos_in_stream:exc.pos_in_stream + 2] == "==":
            return error(span, "unexpected '=='", "'==' compares values; '=' assigns", code="syntax")
        allowed = describe_expected(exc.allowed or ())
        return error(span, f"unexpected character {ch!r}", f"expected {allowed}", code="syntax")
    if isinstance(exc, UnexpectedToken):
        tok = exc.token
        if tok.type == "$END":
            lines = text.splitlines() or [""]
            span = _span_at(path, len(lines), len(lines[-1]) + 1)
        else:
            span = Span(path, tok.line, tok.column, tok.end_line or tok.line,
                        tok.end_column or tok.column + len(tok.value))
        expected = describe_expected(exc.accepts or exc.expected)
        notes = []
        if tok.value == "=" and any(_describe_terminal(n) == "'=='" for n in (exc.accepts or exc.expected)):
            notes.append("to compare two values write '=='")
        word = tok.value if tok.value in _DECLARATION_WORDS else _word_before(text, tok)
        if word in _DECLARATION_WORDS:
            notes.append(f"'{word}' starts a top-level declaration: is a '}}' missing above it?")
        if tok.type == "NAME" and tok.value in _KEYWORD_HINTS:
            notes.append(_KEYWORD_HINTS[tok.value])
        return error(span, f"unexpected {_token_text(tok)}: expected {expected}", *notes, code="syntax")
    if isinstance(exc, UnexpectedEOF):
        lines = text.splitlines() or [""]
        return error(_span_at(path, len(lines), len(lines[-1]) + 1),
                     f"unexpected end of file: expected {describe_expected(exc.expected)}", code="syntax")
    return error(Span.unknown(path), f"syntax error: {exc}", code="syntax")


VALID_ESCAPES = '"\\n{}'


def _invalid_escape(text: str, start: int) -> int | None:
    """The offset of the first invalid escape in the string opening at `start`, if the string is
    closed on its line; None if it runs to the end of the line (then it is unterminated)."""
    i, bad = start + 1, None
    while i < len(text) and text[i] != "\n":
        ch = text[i]
        if ch == '"':
            return bad
        if ch == "\\":
            if i + 1 < len(text) and text[i + 1] not in VALID_ESCAPES and bad is None:
                bad = i
            i += 2
            continue
        i += 1
    return None


def _word_before(text: str, tok: lark.Token) -> str:
    """The only word before the token on its line (a declaration keyword lexed as a name)."""
    lines = text.splitlines()
    if not tok.line or tok.line > len(lines):
        return ""
    before = lines[tok.line - 1][:max(0, (tok.column or 1) - 1)].strip()
    return before if before.isidentifier() else ""


_DECLARATION_WORDS = {"game", "players", "option", "enum", "record", "type", "grid", "const", "catalogue",
                      "var", "def", "flow", "outcome", "invariant", "example", "expect", "rules", "display"}

_KEYWORD_HINTS = {
    "var": "'var' declares state at the top level, not inside a block; use 'let' for a local value",
    "def": "'def' is a top-level declaration",
    "elif": "inside an expression write 'if A then B else if C then D else E'",
}


def parse_text(text: str, path: str) -> tuple[lark.Tree | None, list[Diagnostic]]:
    try:
        return parser().parse(text, start="start"), []
    except UnexpectedInput as exc:
        return None, [syntax_diagnostic(exc, path, text)]


def parse_expression(text: str, path: str, line: int, col: int) -> tuple[lark.Tree | None, list[Diagnostic]]:
    """Parse an interpolated `{expr}` found inside a string that starts at line:col."""
    try:
        tree = parser().parse(text, start="expr")
    except UnexpectedInput as exc:
        d = syntax_diagnostic(exc, path, text)
        span = Span(path, line, col + d.span.col - 1, line, col + d.span.end_col - 1)
        return None, [Diagnostic(d.severity, span, "in a string's {…}: " + d.message, d.notes, d.code)]
    _shift_positions(tree, line - 1, col - 1)
    return tree, []


def _shift_positions(tree: lark.Tree, dline: int, dcol: int) -> None:
    """Interpolations are parsed on their own; move their positions to the file's."""
    for sub in tree.iter_subtrees():
        meta = sub.meta
        if not meta.empty:
            if meta.line == 1:
                meta.column += dcol
            if meta.end_line == 1:
                meta.end_column += dcol
            meta.line += dline
            meta.end_line += dline
        for i, child in enumerate(sub.children):
            if isinstance(child, lark.Token) and child.line is not None:
                new = child.update(child.type, child.value)
                new.line = child.line + dline
                new.end_line = (child.end_line or child.line) + dline
                new.column = child.column + (dcol if child.line == 1 else 0)
                new.end_column = (child.end_column or child.column) + (dcol if (child.end_line or 1) == 1 else 0)
                sub.children[i] = new
