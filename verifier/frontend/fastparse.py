"""A hand-written parser for correct specs: text -> the IR that lark + `lower.py` give, faster.

`grammar/rules.lark` stays the language's definition and lark its reference parser: at
the first thing this parser does not expect — any syntax error, a keyword glued to a
name, a string that needs a diagnostic — it raises `Fallback` and the caller parses the
text with lark, whose messages the users see. On the text it accepts, it builds the same
IR with the same spans (tests/test_fastparse.py compares the two on every bundled spec
and on grammar-generated texts), without lark's per-rule cost: an LALR parser reduces
ten rules to reach a name inside an expression, builds a tree node for each and
propagates positions through all of them; lowering then walks that tree again. On large
specs this parser is several times faster, and it needs no grammar compiled at start-up.

How it mirrors lark:

- keywords are contextual, as lark's contextual lexer makes them: a word is a keyword
  where the grammar expects that keyword, else a name where a name may stand;
- spans are lark's `propagate_positions`: a node spans the tokens of its rule, from the
  first to the last, while a parenthesised expression keeps the span of what is inside
  the parentheses (its parent's span includes them);
- the chains `a or b or c` give every Binary the span of the whole chain, as lower.py does;
- string interpolations `{expr}` are parsed like lark's `parse_expression`: positions in the
  text with `\\"` already replaced by `"`, then shifted to the string's place.
"""
from __future__ import annotations

import re

from ..diagnostics import Span
from ..ir import nodes as N


class Fallback(Exception):
    """This parser gives up; lark decides (and words the error, if there is one)."""


# ------------------------------------------------------------------ tokens

NAME, INT, STRING, CITE, OP, EOF = "NAME", "INT", "STRING", "CITE", "OP", "EOF"

_TOKEN = re.compile(r"""
    (?P<skip>[ \t\f\r\n]+|\#[^\n]*)
  | (?P<STRING>"(?:[^"\\\n]|\\["\\n{}])*")
  | (?P<CITE>@[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+)
  | (?P<NAME>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<INT>[0-9]+)
  | (?P<OP>==|!=|<=|>=|\+=|-=|\.\.|//|[<>=+\-*/%()\[\]{},:.])
""", re.VERBOSE)

AGGREGATES = frozenset({"sum", "count", "all", "any", "min", "max", "argmin", "argmax", "collect", "table"})
_AGGREGATE_PAREN = re.compile(r"(?:\s|#[^\n]*)*\(")  # lark's AGGREGATE lookahead
STATEMENT_WORDS = frozenset({"let", "if", "for", "while", "chance", "choose", "simultaneous", "end", "say", "add",
                             "remove", "append"})
TYPE_WORDS = frozenset({"bool", "Player", "text", "array", "set", "seq"})


def tokenize(text: str, line: int = 1, col_shift: int = 0) -> list[tuple]:
    """(kind, text, line, col, end_col, offset) per token, then EOF; columns are 1-based, end
    exclusive; `col_shift` moves the columns of line 1 (an interpolation inside a string)."""
    out = []
    pos, length = 0, len(text)
    line_start = 0
    first_line = line
    match = _TOKEN.match
    while pos < length:
        m = match(text, pos)
        if m is None:
            raise Fallback(f"unexpected character at offset {pos}")
        kind = m.lastgroup
        end = m.end()
        if kind == "skip":
            newlines = text.count("\n", pos, end)
            if newlines:
                line += newlines
                line_start = text.rindex("\n", pos, end) + 1
            pos = end
            continue
        col = pos - line_start + 1 + (col_shift if line == first_line else 0)
        out.append((kind, m.group(), line, col, col + (end - pos), pos))
        pos = end
    col = pos - line_start + 1 + (col_shift if line == first_line else 0)
    out.append((EOF, "", line, col, col, pos))
    return out


# ------------------------------------------------------------------ the parser

class Parser:
    def __init__(self, text: str, path: str, line: int = 1, col_shift: int = 0):
        self.text = text
        self.path = path
        self.toks = tokenize(text, line, col_shift)
        self.i = 0

    # -------------------------------------------------------------- token helpers
    def peek(self, k: int = 0) -> tuple:
        if k:  # the token list ends with EOF, which is never consumed: only a lookahead can pass it
            return self.toks[min(self.i + k, len(self.toks) - 1)]
        return self.toks[self.i]

    def next(self) -> tuple:
        tok = self.toks[self.i]
        if tok[0] == EOF:
            raise Fallback("unexpected end of file")
        self.i += 1
        return tok

    def is_op(self, text: str) -> bool:
        tok = self.toks[self.i]
        return tok[0] == OP and tok[1] == text

    def is_word(self, word: str) -> bool:
        tok = self.toks[self.i]
        return tok[0] == NAME and tok[1] == word

    def op(self, text: str) -> tuple:
        tok = self.toks[self.i]
        if tok[0] != OP or tok[1] != text:
            raise Fallback(f"expected {text!r}")
        self.i += 1
        return tok

    def keyword(self, word: str) -> tuple:
        tok = self.toks[self.i]
        if tok[0] != NAME or tok[1] != word:
            raise Fallback(f"expected {word!r}")
        self.i += 1
        return tok

    def name(self) -> str:
        """Any word, where the grammar expects a name and no keyword."""
        tok = self.toks[self.i]
        if tok[0] != NAME:
            raise Fallback("expected a name")
        self.i += 1
        return tok[1]

    def integer(self) -> int:
        tok = self.toks[self.i]
        if tok[0] != INT:
            raise Fallback("expected a whole number")
        self.i += 1
        return int(tok[1])

    def string_token(self) -> tuple:
        tok = self.toks[self.i]
        if tok[0] != STRING:
            raise Fallback("expected a string")
        self.i += 1
        return tok

    def span_from(self, start: tuple) -> Span:
        """From the first token of a rule to the last one consumed."""
        last = self.toks[self.i - 1]
        return Span(self.path, start[2], start[3], last[2], last[4])

    def token_span(self, tok: tuple) -> Span:
        return Span(self.path, tok[2], tok[3], tok[2], tok[4])

    def cites(self) -> tuple:
        out = []
        while self.toks[self.i][0] == CITE:
            tok = self.toks[self.i]
            out.append(N.Cite(tok[1][1:], self.token_span(tok)))
            self.i += 1
        return tuple(out)

    # -------------------------------------------------------------- strings (lower.py's rules)
    @staticmethod
    def unescape(raw: str) -> str:
        if "\\" not in raw:
            return raw
        out, i = [], 0
        while i < len(raw):
            ch = raw[i]
            if ch == "\\" and i + 1 < len(raw):
                nxt = raw[i + 1]
                out.append("\n" if nxt == "n" else nxt)
                i += 2
            else:
                out.append(ch)
                i += 1
        return "".join(out)

    def plain_string(self, tok: tuple) -> str:
        return self.unescape(tok[1][1:-1])

    def string_lit(self, tok: tuple) -> N.StrLit:
        raw = tok[1][1:-1]
        span = self.token_span(tok)
        if "{" not in raw:
            return N.StrLit((self.unescape(raw),) if raw else (), span=span)
        parts: list = []
        text: list[str] = []
        i = 0
        while i < len(raw):
            ch = raw[i]
            if ch == "\\" and i + 1 < len(raw):
                nxt = raw[i + 1]
                text.append("\n" if nxt == "n" else nxt)
                i += 2
            elif ch == "{":
                close = raw.find("}", i)
                if close < 0:
                    raise Fallback("unclosed '{' in a string")  # lower.py words it
                col = tok[3] + 1 + i + 1
                if text:
                    parts.append("".join(text))
                    text = []
                inner = raw[i + 1:close].replace('\\"', '"')
                sub = Parser(inner, self.path, tok[2], col - 1)
                parts.append(sub.whole_expression())
                i = close + 1
            else:
                text.append(ch)
                i += 1
        if text:
            parts.append("".join(text))
        return N.StrLit(tuple(parts), span=span)

    def whole_expression(self):
        expr = self.expr()
        if self.toks[self.i][0] != EOF:
            raise Fallback("more after an interpolated expression")
        return expr

    # -------------------------------------------------------------- declarations
    def spec(self) -> N.Spec:
        decls = []
        while self.toks[self.i][0] != EOF:
            tok = self.toks[self.i]
            method = getattr(self, "decl_" + tok[1], None) if tok[0] == NAME else None
            if method is None:
                raise Fallback("expected a declaration")
            decls.append(method())
        return N.Spec(self.path, tuple(decls), span=Span(self.path, 1, 1, 1, 1))

    def decl_game(self):
        start = self.keyword("game")
        name = self.name()
        title = self.plain_string(self.string_token())
        cites = self.cites()
        return N.GameDecl(name, title, cites, span=self.span_from(start))

    def decl_players(self):
        start = self.keyword("players")
        lo = self.integer()
        hi = lo
        if self.is_op(".."):
            self.i += 1
            hi = self.integer()
        cites = self.cites()
        return N.PlayersDecl(lo, hi, cites, span=self.span_from(start))

    def decl_utility(self):
        start = self.keyword("utility")
        kind = self.name()
        total = None
        if self.is_op("-") or self.peek()[0] == INT:
            negative = self.is_op("-")
            if negative:
                self.i += 1
            total = -self.integer() if negative else self.integer()
        when = None
        if self.is_word("when"):
            self.i += 1
            when = self.expr()
        cites = self.cites()
        return N.UtilityDecl(kind, total, when, cites, span=self.span_from(start))

    def decl_option(self):
        start = self.keyword("option")
        name = self.name()
        self.op(":")
        ty = self.type()
        self.op("=")
        default = self.expr()
        finite = None
        if self.is_word("finite"):
            self.i += 1
            finite = self.expr()
        self.keyword("because")
        reason = self.plain_string(self.string_token())
        cites = self.cites()
        return N.OptionDecl(name, ty, default, reason, cites, finite, span=self.span_from(start))

    def decl_enum(self):
        start = self.keyword("enum")
        name = self.name()
        self.op("{")
        items = [self.enum_item()]
        while self.is_op(","):
            self.i += 1
            if self.is_op("}"):
                break
            items.append(self.enum_item())
        self.op("}")
        cites = self.cites()
        return N.EnumDecl(name, tuple(items), cites, span=self.span_from(start))

    def enum_item(self):
        start = self.peek()
        name = self.name()
        display = aka = None
        if self.peek()[0] == STRING:
            display = self.plain_string(self.next())
        if self.is_word("aka"):
            self.i += 1
            aka = self.plain_string(self.string_token())
        return N.EnumItem(name, display, aka, span=self.span_from(start))

    def decl_record(self):
        start = self.keyword("record")
        name = self.name()
        self.op("{")
        fields = [self.field()]
        while self.is_op(","):
            self.i += 1
            if self.is_op("}"):
                break
            fields.append(self.field())
        self.op("}")
        shown = None
        if self.is_word("shown"):
            self.i += 1
            shown = self.plain_string(self.string_token())
        cites = self.cites()
        return N.RecordDecl(name, tuple(fields), shown, cites, span=self.span_from(start))

    def field(self):
        start = self.peek()
        name = self.name()
        self.op(":")
        ty = self.type()
        return N.FieldDecl(name, ty, span=self.span_from(start))

    def decl_type(self):
        start = self.keyword("type")
        name = self.name()
        self.op("=")
        ty = self.type()
        cites = self.cites()
        return N.TypeDecl(name, ty, cites, span=self.span_from(start))

    def decl_grid(self):
        start = self.keyword("grid")
        name = self.name()
        self.keyword("rows")
        rows = self.integer()
        self.keyword("cols")
        cols = self.integer()
        cites = self.cites()
        return N.GridDecl(name, rows, cols, cites, span=self.span_from(start))

    def decl_const(self):
        start = self.keyword("const")
        name = self.name()
        self.op(":")
        ty = self.type()
        self.op("=")
        value = self.expr()
        cites = self.cites()
        return N.ConstDecl(name, ty, value, cites, span=self.span_from(start))

    def decl_catalogue(self):
        start = self.keyword("catalogue")
        name = self.name()
        self.keyword("of")
        record = self.name()
        assumption = None
        if self.is_word("replaceable"):
            self.i += 1
            self.keyword("because")
            assumption = self.plain_string(self.string_token())
        self.op("=")
        self.op("[")
        items = [self.expr()]
        while self.is_op(","):
            self.i += 1
            if self.is_op("]"):
                break
            items.append(self.expr())
        self.op("]")
        cites = self.cites()
        return N.CatalogueDecl(name, record, assumption, tuple(items), cites, span=self.span_from(start))

    def decl_var(self):
        start = self.keyword("var")
        name = self.name()
        self.op(":")
        ty = self.type()
        init = None
        if self.is_op("="):
            self.i += 1
            init = self.expr()
        visibility = "public"
        tok = self.peek()
        if tok[0] == NAME and tok[1] in ("public", "private", "hidden"):
            self.i += 1
            visibility = tok[1]
        cites = self.cites()
        return N.VarDecl(name, ty, init, visibility, cites, span=self.span_from(start))

    def decl_def(self):
        start = self.keyword("def")
        name = self.name()
        self.op("(")
        params = []
        if not self.is_op(")"):
            params.append(self.param())
            while self.is_op(","):
                self.i += 1
                params.append(self.param())
        self.op(")")
        self.op(":")
        result = self.type()
        self.op("=")
        body = self.expr()
        cites = self.cites()
        return N.DefDecl(name, tuple(params), result, body, cites, span=self.span_from(start))

    def param(self):
        start = self.peek()
        name = self.name()
        self.op(":")
        ty = self.type()
        return N.Param(name, ty, span=self.span_from(start))

    def decl_flow(self):
        start = self.keyword("flow")
        body = self.block()
        return N.FlowDecl(body, span=self.span_from(start))

    def decl_outcome(self):
        start = self.keyword("outcome")
        self.op("{")
        score = self.clause_start("score", ":")
        score = N.ScoreClause(score[1], self.expr(), self.cites(), span=self.span_from(score[0]))
        ties = []
        while self.is_word("tiebreak"):
            first, var = self.clause_start("tiebreak", ":")
            expr = self.expr()
            tok = self.peek()
            if tok[0] != NAME or tok[1] not in ("higher", "lower"):
                raise Fallback("expected higher or lower")
            self.i += 1
            ties.append(N.TiebreakClause(var, expr, tok[1], self.cites(), span=self.span_from(first)))
        wins = None
        if self.is_word("wins"):
            first, var = self.clause_start("wins", "if")
            wins = N.WinsClause(var, self.expr(), self.cites(), span=self.span_from(first))
        returns = None
        if self.is_word("returns"):
            first, var = self.clause_start("returns", ":")
            returns = N.ReturnsClause(var, self.expr(), span=self.span_from(first))
        self.op("}")
        return N.OutcomeDecl(score, tuple(ties), returns, wins, span=self.span_from(start))

    def clause_start(self, word: str, after: str) -> tuple:
        first = self.keyword(word)
        var = self.name()
        self.keyword(after) if after.isalpha() else self.op(after)
        return first, var

    def decl_invariant(self):
        start = self.keyword("invariant")
        name = self.name()
        sentence = self.plain_string(self.string_token())
        at = self.at_points()
        cites = self.cites()
        if not at and cites:  # the points may stand before or after the citations
            at = self.at_points()
        self.op(":")
        cond = self.expr()
        return N.InvariantDecl(name, sentence, cond, cites, span=self.span_from(start), at=tuple(at))

    def at_points(self) -> list:
        """`at NAME, NAME...` of an invariant, if it is there."""
        at = []
        if self.is_word("at"):
            self.next()
            while True:
                tok = self.toks[self.i]
                at.append(N.PointName(self.name(), self.token_span(tok)))
                if not self.is_op(","):
                    break
                self.next()
        return at

    def decl_example(self):
        start = self.keyword("example")
        name = self.name()
        sentence = self.plain_string(self.string_token())
        cites = self.cites()
        self.op("{")
        items = []
        while not self.is_op("}"):
            first = self.peek()
            if self.is_word("given"):
                self.i += 1
                target = self.lvalue()
                self.op("=")
                items.append(N.ExampleGiven(target, self.expr(), span=self.span_from(first)))
            elif self.is_word("expect"):
                self.i += 1
                items.append(N.ExampleExpect(self.expr(), span=self.span_from(first)))
            else:
                raise Fallback("expected given, expect or '}'")
        self.op("}")
        return N.ExampleDecl(name, sentence, cites, tuple(items), span=self.span_from(start))

    def decl_expect(self):
        start = self.keyword("expect")
        name = self.name()
        status = self.name()
        when = None
        if self.is_word("when"):
            self.i += 1
            when = self.expr()
        text = self.plain_string(self.string_token())
        cites = self.cites()
        return N.ExpectDecl(name, status, when, text, cites, span=self.span_from(start))

    def decl_rules(self):
        start = self.keyword("rules")
        kind = self.one_of(N.SECTION_KINDS)
        title = self.plain_string(self.string_token())
        self.op("{")
        rules = []
        while self.peek()[0] == CITE:
            first = self.next()
            text = self.plain_string(self.string_token())
            rules.append(N.RuleDecl(first[1][1:], text, span=self.span_from(first)))
        self.op("}")
        return N.RulesDecl(kind, title, tuple(rules), span=self.span_from(start))

    def decl_display(self):
        start = self.keyword("display")
        self.op("{")
        items = []
        while not self.is_op("}"):
            first = self.peek()
            kind = self.one_of(N.DISPLAY_KINDS)  # any other word: lark decides (it may be a keyword)
            title = self.plain_string(self.string_token())
            player = None
            if self.is_word("per"):
                self.i += 1
                player = self.name()
            var = source = None
            if self.is_word("for"):
                self.i += 1
                var = self.name()
                self.keyword("in")
                source = self.expr()
            self.op(":")
            items.append(N.DisplayItem(kind, title, player, var, source, self.expr(), span=self.span_from(first)))
        self.i += 1
        return N.DisplayDecl(tuple(items), span=self.span_from(start))

    def one_of(self, words) -> str:
        """One of a fixed set of keywords (a section kind, a display kind)."""
        tok = self.peek()
        if tok[0] != NAME or tok[1] not in words:
            raise Fallback(f"expected one of {words}")
        self.i += 1
        return tok[1]

    # -------------------------------------------------------------- types
    def type(self):
        tok = self.peek()
        if tok[0] == NAME and tok[1] in TYPE_WORDS:
            self.i += 1
            word = tok[1]
            if word == "bool":
                return N.BoolTypeRef(span=self.span_from(tok))
            if word == "Player":
                return N.PlayerTypeRef(span=self.span_from(tok))
            if word == "text":
                return N.TextTypeRef(span=self.span_from(tok))
            if word == "array":
                self.op("[")
                index = self.type()
                self.op("]")
                self.keyword("of")
                return N.ArrayTypeRef(index, self.type(), span=self.span_from(tok))
            self.keyword("of")
            elem = self.type()
            if word == "set":
                return N.SetTypeRef(elem, span=self.span_from(tok))
            self.keyword("max")
            return N.SeqTypeRef(elem, self.integer(), span=self.span_from(tok))
        if tok[0] == NAME and tok[1] == "rational":  # a keyword where a type is expected (lark's lexer)
            self.i += 1
            lo = self.range_bound()
            self.op("..")
            hi = self.range_bound()
            return N.RationalTypeRef(lo, hi, span=self.span_from(tok))
        if tok[0] == NAME and not (self.peek(1)[0] == OP and self.peek(1)[1] == ".."):
            self.i += 1
            return N.NamedTypeRef(tok[1], span=self.span_from(tok))
        lo = self.range_bound()
        self.op("..")
        hi = self.range_bound()
        return N.RangeTypeRef(lo, hi, span=self.span_from(tok))

    def range_bound(self):
        tok = self.peek()
        if tok[0] == INT:
            self.i += 1
            return int(tok[1])
        if tok[0] == OP and tok[1] == "-":
            self.i += 1
            return -self.integer()
        name = self.name()
        if self.is_op("+") or self.is_op("-"):  # `name + 5`
            sign = 1 if self.next()[1] == "+" else -1
            return (name, sign * self.integer())
        return name

    # -------------------------------------------------------------- statements
    def block(self) -> N.Block:
        start = self.op("{")
        stmts = []
        while not self.is_op("}"):
            stmts.append(self.statement())
        self.i += 1
        return N.Block(tuple(stmts), span=self.span_from(start))

    def statement(self):
        tok = self.peek()
        if tok[0] != NAME:
            raise Fallback("expected a statement")
        if tok[1] in STATEMENT_WORDS:
            return getattr(self, "stmt_" + tok[1])()
        target = self.lvalue()
        op = self.peek()
        if op[0] != OP or op[1] not in ("=", "+=", "-="):
            raise Fallback("expected '=', '+=' or '-='")
        self.i += 1
        value = self.expr()
        cites = self.cites()
        return N.Assign(target, op[1], value, cites, span=self.span_from(tok))

    def lvalue(self):
        start = self.peek()
        target = N.Name(self.name(), span=self.token_span(start))
        while self.is_op("["):
            self.i += 1
            index = self.expr()
            self.op("]")
            target = N.Index(target, index, span=self.span_from(start))
        return target

    def stmt_let(self):
        start = self.next()
        name = self.name()
        declared = None
        if self.is_op(":"):
            self.i += 1
            declared = self.type()
        self.op("=")
        value = self.expr()
        return N.Let(name, value, self.cites(), span=self.span_from(start), type=declared)

    def stmt_if(self):
        start = self.next()
        branches = [(self.expr(), self.block())]
        orelse = None
        while self.is_word("elif"):
            self.i += 1
            branches.append((self.expr(), self.block()))
        if self.is_word("else"):
            self.i += 1
            orelse = self.block()
        return N.If(tuple(branches), orelse, span=self.span_from(start))

    def stmt_for(self):
        start = self.next()
        var = self.name()
        self.keyword("in")
        iterable = self.expr()
        cites = self.cites()
        body = self.block()
        return N.For(var, iterable, body, cites, span=self.span_from(start))

    def stmt_while(self):
        start = self.next()
        cond = self.expr()
        measure = None
        if self.is_word("decreases"):
            self.i += 1
            measure = self.expr()
        cites = self.cites()
        body = self.block()
        return N.While(cond, body, cites, measure, span=self.span_from(start))

    def stmt_chance(self):
        start = self.next()
        var = self.name()
        self.keyword("from")
        source = self.expr()
        weight = None
        if self.is_word("weighted"):
            self.i += 1
            weight = self.expr()
        return N.Chance(var, source, self.cites(), span=self.span_from(start), weight=weight)

    def stmt_choose(self):
        start = self.next()
        player = self.expr()
        cites = self.cites()
        moves = self.moves()
        return N.Choose(player, moves, cites, span=self.span_from(start))

    def stmt_simultaneous(self):
        start = self.next()
        var = self.name()
        cites = self.cites()
        moves = self.moves()
        return N.Simultaneous(var, moves, cites, span=self.span_from(start))

    def stmt_end(self):
        start = self.next()
        return N.End(self.cites(), span=self.span_from(start))

    def stmt_say(self):
        start = self.next()
        text = self.string_lit(self.string_token())
        return N.Say(text, self.cites(), span=self.span_from(start))

    def _edit(self, op: str, joiner: str):
        start = self.next()
        item = self.expr()
        self.keyword(joiner)
        target = self.lvalue()
        return N.CollectionEdit(op, item, target, self.cites(), span=self.span_from(start))

    def stmt_add(self):
        return self._edit("add", "to")

    def stmt_remove(self):
        return self._edit("remove", "from")

    def stmt_append(self):
        return self._edit("append", "to")

    def moves(self) -> tuple:
        self.op("{")
        moves = [self.move()]
        while self.is_word("move"):
            moves.append(self.move())
        self.op("}")
        return tuple(moves)

    def move(self):
        start = self.keyword("move")
        name = self.name()
        self.op("(")
        params = []
        if not self.is_op(")"):
            params.append(self.move_param())
            while self.is_op(","):
                self.i += 1
                params.append(self.move_param())
        self.op(")")
        text = self.string_lit(self.next()) if self.peek()[0] == STRING else None
        cites = self.cites()
        requires = []
        while self.is_word("require"):
            requires.append(self.require())
        body = self.block() if self.is_op("{") else None
        span = self.span_from(start)
        return N.Move(name, tuple(params), text, cites, tuple(requires),
                      body if body is not None else N.Block((), span=span), span=span)

    def move_param(self):
        start = self.peek()
        name = self.name()
        if self.is_op(":"):
            self.i += 1
            return N.MoveParam(name, self.type(), None, span=self.span_from(start))
        self.keyword("in")
        return N.MoveParam(name, None, self.expr(), span=self.span_from(start))

    def require(self):
        start = self.keyword("require")
        label = self.name()
        message = self.plain_string(self.next()) if self.peek()[0] == STRING else ""
        cites = self.cites()
        self.op(":")
        return N.Require(label, message, cites, self.expr(), span=self.span_from(start))

    # -------------------------------------------------------------- expressions
    # Levels, loosest first: if-then-else; or; and; not; comparison (one, not chained); + -;
    # * // %; unary -; postfix [i] .f; atoms. `if` is a keyword only where a whole expression
    # may start and `not` only where a `not` may: elsewhere lark's lexer reads them as names.
    def expr(self):
        if self.is_word("if"):
            start = self.next()
            cond = self.expr()
            self.keyword("then")
            then = self.expr()
            self.keyword("else")
            orelse = self.expr()
            return N.IfExpr(cond, then, orelse, span=self.span_from(start))
        return self.chain("or", self.and_expr)

    def and_expr(self):
        return self.chain("and", self.not_expr)

    def chain(self, word: str, operand):
        start = self.peek()
        items = [operand()]
        while self.is_word(word):
            self.i += 1
            items.append(operand())
        if len(items) == 1:
            return items[0]
        span = self.span_from(start)  # every link spans the whole chain (lower.py: _chain)
        result = items[0]
        for item in items[1:]:
            result = N.Binary(word, result, item, span=span)
        return result

    def not_expr(self):
        if self.is_word("not"):
            start = self.next()
            inner = self.not_expr()
            return N.Unary("not", inner, span=self.span_from(start))
        return self.compare()

    def compare(self):
        start = self.peek()
        left = self.sum_expr()
        tok = self.peek()
        if tok[0] == OP and tok[1] in ("==", "!=", "<=", ">=", "<", ">"):
            self.i += 1
            right = self.sum_expr()
            return N.Binary(tok[1], left, right, span=self.span_from(start))
        if tok[0] == OP and tok[1] == "..":
            self.i += 1
            right = self.sum_expr()
            return N.RangeExpr(left, right, span=self.span_from(start))
        if tok[0] == NAME and tok[1] == "in":
            self.i += 1
            right = self.sum_expr()
            return N.Binary("in", left, right, span=self.span_from(start))
        if tok[0] == NAME and tok[1] == "not":
            self.i += 1
            self.keyword("in")
            right = self.sum_expr()
            return N.Binary("notin", left, right, span=self.span_from(start))
        return left

    def sum_expr(self):
        start = self.peek()
        left = self.product()
        while True:
            tok = self.toks[self.i]
            if tok[0] != OP or tok[1] not in ("+", "-"):
                return left
            self.i += 1
            left = N.Binary(tok[1], left, self.product(), span=self.span_from(start))

    def product(self):
        start = self.peek()
        left = self.unary()
        while True:
            tok = self.toks[self.i]
            if tok[0] != OP or tok[1] not in ("*", "/", "//", "%"):
                return left
            self.i += 1
            left = N.Binary(tok[1], left, self.unary(), span=self.span_from(start))

    def unary(self):
        if self.is_op("-"):
            start = self.next()
            inner = self.unary()
            return N.Unary("-", inner, span=self.span_from(start))
        return self.postfix()

    def postfix(self):
        start = self.peek()
        node = self.atom()
        while True:
            tok = self.toks[self.i]
            if tok[0] != OP:
                return node
            if tok[1] == "[":
                self.i += 1
                index = self.expr()
                self.op("]")
                node = N.Index(node, index, span=self.span_from(start))
            elif tok[1] == ".":
                self.i += 1
                node = N.FieldAccess(node, self.name(), span=self.span_from(start))
            else:
                return node

    def atom(self):
        tok = self.next()
        kind, text = tok[0], tok[1]
        if kind == INT:
            return N.IntLit(int(text), span=self.token_span(tok))
        if kind == STRING:
            return self.string_lit(tok)
        if kind == NAME:
            if text == "true" or text == "false":
                return N.BoolLit(text == "true", span=self.token_span(tok))
            if text in AGGREGATES and _AGGREGATE_PAREN.match(self.text, tok[5] + len(text)):
                return self.aggregate(tok)
            if self.is_op("("):
                return self.call(tok)
            return N.Name(text, span=self.token_span(tok))
        if kind == OP:
            if text == "(":
                inner = self.expr()
                self.op(")")
                return inner  # keeps its own span; the parent's includes the parentheses
            if text in ("[", "{"):
                close = "]" if text == "[" else "}"
                items = []
                if not self.is_op(close):
                    items.append(self.expr())
                    while self.is_op(","):
                        self.i += 1
                        items.append(self.expr())
                self.op(close)
                node = N.SeqLit if text == "[" else N.SetLit
                return node(tuple(items), span=self.span_from(tok))
        raise Fallback("expected an expression")

    def call(self, first: tuple):
        self.op("(")
        args = []
        if not self.is_op(")"):
            args.append(self.argument())
            while self.is_op(","):
                self.i += 1
                args.append(self.argument())
        self.op(")")
        return N.Call(first[1], tuple(args), span=self.span_from(first))

    def argument(self):
        tok, after = self.peek(), self.peek(1)
        # `NAME = expr`, unless the word is a keyword where an argument starts (`true = 1` is an error)
        if tok[0] == NAME and after[0] == OP and after[1] == "=" and tok[1] not in ("if", "not", "true", "false"):
            self.i += 2
            return N.KeywordArg(tok[1], self.expr(), span=self.span_from(tok))
        return self.expr()

    def aggregate(self, first: tuple):
        self.op("(")
        var = self.name()
        self.keyword("in")
        source = self.expr()
        where = body = None
        if self.is_word("where"):
            self.i += 1
            where = self.expr()
        if self.is_op(":"):
            self.i += 1
            body = self.expr()
        self.op(")")
        return N.Aggregate(first[1], var, source, where, body, span=self.span_from(first))


def parse_fast(text: str, path: str) -> N.Spec:
    """The spec's IR, or Fallback."""
    return Parser(text, path).spec()
