"""A Pygments lexer for the rules language (```` ```rules ```` blocks, `*.rules` files).

Registered as the `pygments.lexers` entry point `rules` in pyproject.toml, so the docs
site (through pymdownx.highlight) and any Pygments user highlight specs. It follows
grammar/rules.lark: keywords, rule citations (`@I-D4`), strings with `{expr}`
interpolations, numbers, operators and comments. Keywords are contextual in the grammar
(`players` may be a name); a lexer without a parser colours them as keywords everywhere,
which is what a reader expects of them.
"""
from __future__ import annotations

from pygments.lexer import RegexLexer, bygroups, words
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, String, Text, Whitespace

DECLARATIONS = ("game", "players", "option", "enum", "record", "type", "grid", "const", "catalogue", "var",
                "def", "flow", "outcome", "invariant", "example", "expect", "rules", "display", "utility")
STATEMENTS = ("let", "if", "elif", "else", "for", "while", "decreases", "chance", "weighted", "choose", "simultaneous",
              "move", "require", "end", "say", "add", "remove", "append", "given", "then")
OTHER = ("in", "not", "and", "or", "of", "to", "from", "max", "because", "finite", "aka", "shown",
         "replaceable", "public", "private", "hidden", "score", "tiebreak", "wins", "returns", "higher", "lower",
         "when", "per", "where", "rows", "cols")
TYPES = ("bool", "Player", "text", "array", "set", "seq", "rational")
AGGREGATES = ("sum", "count", "all", "any", "min", "max", "argmin", "argmax", "collect", "table")


class RulesLexer(RegexLexer):
    name = "Rules"
    aliases = ["rules", "rulebook"]
    filenames = ["*.rules"]
    mimetypes = ["text/x-rules"]

    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"#[^\n]*", Comment.Single),
            (r"@[A-Z][A-Z0-9]*(-[A-Z0-9]+)+", Name.Label),
            (r'"', String.Double, "string"),
            (words(("true", "false"), suffix=r"\b"), Keyword.Constant),
            (words(DECLARATIONS, suffix=r"\b"), Keyword.Declaration),
            (words(STATEMENTS + OTHER, suffix=r"\b"), Keyword),
            (words(TYPES, suffix=r"\b"), Keyword.Type),
            (r"(" + "|".join(AGGREGATES) + r")(\s*)(?=\()", bygroups(Name.Builtin, Whitespace)),
            (r"[A-Za-z_][A-Za-z0-9_]*", Name),
            (r"[0-9]+", Number.Integer),
            (r"==|!=|<=|>=|\+=|-=|\.\.|//|[<>=+\-*%]", Operator),
            (r"[()\[\]{},:.]", Punctuation),
            (r".", Text),
        ],
        "string": [
            (r'\\["\\n{}]', String.Escape),
            (r"\{[^}\n]*\}", String.Interpol),
            (r'[^"\\{\n]+', String.Double),
            (r'"', String.Double, "#pop"),
            (r"\n", String.Double, "#pop"),  # an unterminated string ends at the line
            (r".", String.Double),
        ],
    }
