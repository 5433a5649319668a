"""Lark parse tree -> IR nodes with spans.

One method per grammar rule (`lower_<rule>`); a rule without a method is a
bug in this module and raises at once.  Strings are unescaped here and their
`{expr}` interpolations parsed, so every later stage sees plain IR.
"""
from __future__ import annotations

import lark

from ..diagnostics import Diagnostic, Span, error
from ..ir import nodes as N
from .parse import parse_expression


class Lowerer:
    def __init__(self, path: str):
        self.path = path
        self.diagnostics: list[Diagnostic] = []

    # -------------------------------------------------------------- helpers
    def span(self, item) -> Span:
        if isinstance(item, lark.Token):
            return Span(self.path, item.line or 1, item.column or 1,
                        item.end_line or item.line or 1, item.end_column or (item.column or 1) + len(item))
        meta = item.meta
        if meta.empty:
            return Span.unknown(self.path)
        return Span(self.path, meta.line, meta.column, meta.end_line, meta.end_column)

    def lower(self, tree):
        if isinstance(tree, lark.Token):
            raise TypeError(f"unexpected token {tree.type} where a rule was expected")
        method = getattr(self, "lower_" + tree.data, None)
        if method is None:
            raise NotImplementedError(f"no lowering for grammar rule {tree.data!r}")
        return method(tree)

    def opt(self, tree):
        return None if tree is None else self.lower(tree)

    @staticmethod
    def kids(tree, kind: str):
        return [c for c in tree.children if isinstance(c, lark.Tree) and c.data == kind]

    def cites(self, tree) -> tuple[str, ...]:
        found = self.kids(tree, "cites")
        if not found:
            return ()
        return tuple(N.Cite(str(tok)[1:], self.span(tok)) for tok in found[0].children)

    def unescape(self, tok: lark.Token) -> str:
        raw = str(tok)[1:-1]
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

    def plain_string(self, tok: lark.Token) -> str:
        return self.unescape(tok)

    def string_lit(self, tok: lark.Token) -> N.StrLit:
        """Split a string into text and `{expr}` parts (escaped braces stay text)."""
        raw = str(tok)[1:-1]
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
                col = (tok.column or 1) + 1 + i + 1
                if close < 0:
                    self.diagnostics.append(error(Span(self.path, tok.line, col - 1, tok.line, col),
                                                  "unclosed '{' in string", "write \\{ for a literal brace",
                                                  code="syntax"))
                    text.append(raw[i:])
                    break
                if text:
                    parts.append("".join(text))
                    text = []
                # inside {…} a string is written with escaped quotes: {if x then \"a\" else \"b\"}
                inner = raw[i + 1:close].replace('\\"', '"')
                tree, diags = parse_expression(inner, self.path, tok.line or 1, col)
                self.diagnostics.extend(diags)
                if tree is not None:
                    parts.append(self.lower(tree))
                i = close + 1
            else:
                text.append(ch)
                i += 1
        if text:
            parts.append("".join(text))
        return N.StrLit(tuple(parts), span=self.span(tok))

    # -------------------------------------------------------------- top level
    def lower_start(self, tree) -> N.Spec:
        decls = tuple(self.lower(c) for c in tree.children)
        return N.Spec(self.path, decls, span=Span(self.path, 1, 1, 1, 1))

    def lower_game_decl(self, t):
        name, title = t.children[:2]
        return N.GameDecl(str(name), self.plain_string(title), self.cites(t), span=self.span(t))

    def lower_players_decl(self, t):
        lo, hi = t.children[:2]
        return N.PlayersDecl(int(lo), int(hi if hi is not None else lo), self.cites(t), span=self.span(t))

    def lower_utility_decl(self, t):
        kind, total, when = t.children[:3]
        return N.UtilityDecl(str(kind), None if total is None else self.lower(total), self.opt(when), self.cites(t),
                             span=self.span(t))

    def lower_signed_int(self, t):
        return int("".join(str(tok) for tok in t.children))

    def lower_option_decl(self, t):
        name, ty, default, finite, reason = t.children[:5]
        return N.OptionDecl(str(name), self.lower(ty), self.lower(default), self.plain_string(reason),
                            self.cites(t), self.opt(finite), span=self.span(t))

    def lower_enum_decl(self, t):
        items = tuple(self.lower(c) for c in self.kids(t, "enum_item"))
        return N.EnumDecl(str(t.children[0]), items, self.cites(t), span=self.span(t))

    def lower_enum_item(self, t):
        name, display, aka = t.children
        return N.EnumItem(str(name), self.plain_string(display) if display else None,
                          self.plain_string(aka) if aka else None, span=self.span(t))

    def lower_record_decl(self, t):
        name = str(t.children[0])
        fields = tuple(self.lower(c) for c in self.kids(t, "field"))
        shown = [c for c in t.children[1:] if isinstance(c, lark.Token) and c.type == "STRING"]
        shown_text = self.plain_string(shown[0]) if shown else None
        return N.RecordDecl(name, fields, shown_text, self.cites(t), span=self.span(t))

    def lower_field(self, t):
        return N.FieldDecl(str(t.children[0]), self.lower(t.children[1]), span=self.span(t))

    def lower_type_decl(self, t):
        return N.TypeDecl(str(t.children[0]), self.lower(t.children[1]), self.cites(t), span=self.span(t))

    def lower_grid_decl(self, t):
        name, rows, cols = t.children[:3]
        return N.GridDecl(str(name), int(rows), int(cols), self.cites(t), span=self.span(t))

    def lower_const_decl(self, t):
        name, ty, value = t.children[:3]
        return N.ConstDecl(str(name), self.lower(ty), self.lower(value), self.cites(t), span=self.span(t))

    def lower_catalogue_decl(self, t):
        name, record = t.children[0], t.children[1]
        assumption = None
        items = []
        for c in t.children[2:]:
            if isinstance(c, lark.Tree) and c.data == "assumption":
                assumption = self.plain_string(c.children[0])
            elif isinstance(c, lark.Tree) and c.data != "cites":
                items.append(self.lower(c))
        return N.CatalogueDecl(str(name), str(record), assumption, tuple(items), self.cites(t), span=self.span(t))

    def lower_var_decl(self, t):
        name, ty, init, vis = t.children[:4]
        return N.VarDecl(str(name), self.lower(ty), self.opt(init), self.lower(vis) if vis else "public",
                         self.cites(t), span=self.span(t))

    def lower_def_decl(self, t):
        name = str(t.children[0])
        params = tuple(self.lower(c) for c in self.kids(t, "param"))
        rest = [c for c in t.children[1:] if not (isinstance(c, lark.Tree) and c.data in ("param", "cites"))
                and c is not None]
        result, body = rest[-2], rest[-1]
        return N.DefDecl(name, params, self.lower(result), self.lower(body), self.cites(t), span=self.span(t))

    def lower_param(self, t):
        return N.Param(str(t.children[0]), self.lower(t.children[1]), span=self.span(t))

    def lower_flow_decl(self, t):
        return N.FlowDecl(self.lower(t.children[0]), span=self.span(t))

    def lower_outcome_decl(self, t):
        score = self.lower(self.kids(t, "score_clause")[0])
        ties = tuple(self.lower(c) for c in self.kids(t, "tiebreak_clause"))
        ret = self.kids(t, "returns_clause")
        wins = self.kids(t, "wins_clause")
        return N.OutcomeDecl(score, ties, self.lower(ret[0]) if ret else None,
                             self.lower(wins[0]) if wins else None, span=self.span(t))

    def lower_wins_clause(self, t):
        return N.WinsClause(str(t.children[0]), self.lower(t.children[1]), self.cites(t), span=self.span(t))

    def lower_score_clause(self, t):
        return N.ScoreClause(str(t.children[0]), self.lower(t.children[1]), self.cites(t), span=self.span(t))

    def lower_tiebreak_clause(self, t):
        var, expr, direction = t.children[:3]
        return N.TiebreakClause(str(var), self.lower(expr), self.lower(direction), self.cites(t), span=self.span(t))

    def lower_returns_clause(self, t):
        return N.ReturnsClause(str(t.children[0]), self.lower(t.children[1]), span=self.span(t))

    def lower_invariant_decl(self, t):
        name, sentence = t.children[:2]
        cond = t.children[-1]
        found = self.kids(t, "at_points")
        at = tuple(N.PointName(str(tok), self.span(tok)) for tok in found[0].children) if found else ()
        return N.InvariantDecl(str(name), self.plain_string(sentence), self.lower(cond), self.cites(t),
                               span=self.span(t), at=at)

    def lower_example_decl(self, t):
        name, sentence = t.children[:2]
        items = tuple(self.lower(c) for c in t.children[2:] if isinstance(c, lark.Tree) and c.data != "cites")
        return N.ExampleDecl(str(name), self.plain_string(sentence), self.cites(t), items, span=self.span(t))

    def lower_expect_decl(self, t):
        name, status, when, text = t.children[:4]
        return N.ExpectDecl(str(name), str(status), self.opt(when), self.plain_string(text), self.cites(t),
                            span=self.span(t))

    def lower_rules_decl(self, t):
        kind, title = t.children[:2]
        rules = tuple(self.lower(c) for c in t.children[2:])
        return N.RulesDecl(str(kind.children[0]), self.plain_string(title), rules, span=self.span(t))

    def lower_rule_item(self, t):
        cite, text = t.children
        return N.RuleDecl(str(cite)[1:], self.plain_string(text), span=self.span(t))

    def lower_display_decl(self, t):
        return N.DisplayDecl(tuple(self.lower(c) for c in t.children), span=self.span(t))

    def lower_display_item(self, t):
        kind, title, player, var, source, expr = t.children
        return N.DisplayItem(str(kind), self.plain_string(title),
                             None if player is None else str(player), None if var is None else str(var),
                             self.opt(source), self.lower(expr), span=self.span(t))

    def lower_example_set(self, t):
        return N.ExampleGiven(self.lower(t.children[0]), self.lower(t.children[1]), span=self.span(t))

    def lower_example_expect(self, t):
        return N.ExampleExpect(self.lower(t.children[0]), span=self.span(t))

    # -------------------------------------------------------------- types
    def lower_named_type(self, t):
        return N.NamedTypeRef(str(t.children[0]), span=self.span(t))

    def lower_bool_type(self, t):
        return N.BoolTypeRef(span=self.span(t))

    def lower_text_type(self, t):
        return N.TextTypeRef(span=self.span(t))

    def lower_player_type(self, t):
        return N.PlayerTypeRef(span=self.span(t))

    def lower_range_type(self, t):
        lo, hi = (self.lower(c) for c in t.children)
        return N.RangeTypeRef(lo, hi, span=self.span(t))

    def lower_rational_type(self, t):
        lo, hi = (self.lower(c) for c in t.children)
        return N.RationalTypeRef(lo, hi, span=self.span(t))

    def lower_bound_int(self, t):
        return int(t.children[0])

    def lower_bound_neg(self, t):
        return -int(t.children[0])

    def lower_bound_name(self, t):
        return str(t.children[0])

    def lower_bound_offset(self, t):
        name, op, number = t.children
        return (str(name), int(number) if self.lower(op) == "+" else -int(number))

    def lower_array_type(self, t):
        return N.ArrayTypeRef(self.lower(t.children[0]), self.lower(t.children[1]), span=self.span(t))

    def lower_set_type(self, t):
        return N.SetTypeRef(self.lower(t.children[0]), span=self.span(t))

    def lower_seq_type(self, t):
        return N.SeqTypeRef(self.lower(t.children[0]), int(t.children[1]), span=self.span(t))

    # -------------------------------------------------------------- statements
    def lower_block(self, t):
        return N.Block(tuple(self.lower(c) for c in t.children), span=self.span(t))

    def lower_assign_stmt(self, t):
        target, op, value = t.children[:3]
        return N.Assign(self.lower(target), self.lower(op), self.lower(value), self.cites(t), span=self.span(t))

    def lower_let_stmt(self, t):
        name, declared, value = t.children[:3]
        return N.Let(str(name), self.lower(value), self.cites(t), span=self.span(t), type=self.opt(declared))

    def lower_if_stmt(self, t):
        cond, body = t.children[0], t.children[1]
        branches = [(self.lower(cond), self.lower(body))]
        orelse = None
        for c in t.children[2:]:
            if c is None:
                continue
            if c.data == "elif_clause":
                branches.append((self.lower(c.children[0]), self.lower(c.children[1])))
            else:
                orelse = self.lower(c.children[0])
        return N.If(tuple(branches), orelse, span=self.span(t))

    def lower_for_stmt(self, t):
        return N.For(str(t.children[0]), self.lower(t.children[1]), self.lower(self.kids(t, "block")[0]),
                     self.cites(t), span=self.span(t))

    def lower_while_stmt(self, t):
        cond, measure = t.children[:2]
        return N.While(self.lower(cond), self.lower(self.kids(t, "block")[0]), self.cites(t), self.opt(measure),
                       span=self.span(t))

    def lower_chance_stmt(self, t):
        return N.Chance(str(t.children[0]), self.lower(t.children[1]), self.cites(t), span=self.span(t),
                        weight=self.opt(t.children[2]))

    def lower_choose_stmt(self, t):
        moves = tuple(self.lower(c) for c in self.kids(t, "move"))
        return N.Choose(self.lower(t.children[0]), moves, self.cites(t), span=self.span(t))

    def lower_simul_stmt(self, t):
        moves = tuple(self.lower(c) for c in self.kids(t, "move"))
        return N.Simultaneous(str(t.children[0]), moves, self.cites(t), span=self.span(t))

    def lower_end_stmt(self, t):
        return N.End(self.cites(t), span=self.span(t))

    def lower_say_stmt(self, t):
        return N.Say(self.string_lit(t.children[0]), self.cites(t), span=self.span(t))

    def _edit(self, op, t):
        return N.CollectionEdit(op, self.lower(t.children[0]), self.lower(t.children[1]), self.cites(t),
                                span=self.span(t))

    def lower_add_stmt(self, t):
        return self._edit("add", t)

    def lower_remove_stmt(self, t):
        return self._edit("remove", t)

    def lower_append_stmt(self, t):
        return self._edit("append", t)

    def _op_text(self, t) -> str:
        return str(t.children[0])

    lower_assign_op = lower_compare_op = lower_add_op = lower_mul_op = _op_text
    lower_direction = lower_visibility = _op_text

    def lower_lv_name(self, t):
        return N.Name(str(t.children[0]), span=self.span(t))

    def lower_lv_index(self, t):
        return N.Index(self.lower(t.children[0]), self.lower(t.children[1]), span=self.span(t))

    def lower_move(self, t):
        name = str(t.children[0])
        params = tuple(self.lower(c) for c in t.children[1:]
                       if isinstance(c, lark.Tree) and c.data in ("param_typed", "param_from"))
        text = None
        for c in t.children[1:]:
            if isinstance(c, lark.Token) and c.type == "STRING":
                text = self.string_lit(c)
        requires = tuple(self.lower(c) for c in self.kids(t, "require"))
        blocks = self.kids(t, "block")
        body = self.lower(blocks[0]) if blocks else N.Block((), span=self.span(t))
        return N.Move(name, params, text, self.cites(t), requires, body, span=self.span(t))

    def lower_param_typed(self, t):
        return N.MoveParam(str(t.children[0]), self.lower(t.children[1]), None, span=self.span(t))

    def lower_param_from(self, t):
        return N.MoveParam(str(t.children[0]), None, self.lower(t.children[1]), span=self.span(t))

    def lower_require(self, t):
        label = str(t.children[0])
        message = ""
        for c in t.children[1:]:
            if isinstance(c, lark.Token) and c.type == "STRING":
                message = self.plain_string(c)
        return N.Require(label, message, self.cites(t), self.lower(t.children[-1]), span=self.span(t))

    # -------------------------------------------------------------- expressions
    def lower_if_expr(self, t):
        c, a, b = (self.lower(x) for x in t.children)
        return N.IfExpr(c, a, b, span=self.span(t))

    def _chain(self, op, t):
        items = [self.lower(c) for c in t.children]
        result = items[0]
        for item in items[1:]:
            result = N.Binary(op, result, item, span=self.span(t))
        return result

    def lower_or_chain(self, t):
        return self._chain("or", t)

    def lower_and_chain(self, t):
        return self._chain("and", t)

    def lower_not_op(self, t):
        return N.Unary("not", self.lower(t.children[0]), span=self.span(t))

    def lower_comparison(self, t):
        a, op, b = t.children
        return N.Binary(self.lower(op), self.lower(a), self.lower(b), span=self.span(t))

    def lower_member(self, t):
        return N.Binary("in", self.lower(t.children[0]), self.lower(t.children[1]), span=self.span(t))

    def lower_not_member(self, t):
        return N.Binary("notin", self.lower(t.children[0]), self.lower(t.children[1]), span=self.span(t))

    def lower_range_expr(self, t):
        return N.RangeExpr(self.lower(t.children[0]), self.lower(t.children[1]), span=self.span(t))

    def lower_arith(self, t):
        a, op, b = t.children
        return N.Binary(self.lower(op), self.lower(a), self.lower(b), span=self.span(t))

    def lower_neg(self, t):
        inner = self.lower(t.children[0])
        return N.Unary("-", inner, span=self.span(t))

    def lower_index(self, t):
        return N.Index(self.lower(t.children[0]), self.lower(t.children[1]), span=self.span(t))

    def lower_field_access(self, t):
        return N.FieldAccess(self.lower(t.children[0]), str(t.children[1]), span=self.span(t))

    def lower_int_lit(self, t):
        return N.IntLit(int(t.children[0]), span=self.span(t))

    def lower_true_lit(self, t):
        return N.BoolLit(True, span=self.span(t))

    def lower_false_lit(self, t):
        return N.BoolLit(False, span=self.span(t))

    def lower_str_lit(self, t):
        return self.string_lit(t.children[0])

    def lower_name(self, t):
        return N.Name(str(t.children[0]), span=self.span(t))

    def lower_call(self, t):
        args = tuple(self.lower(c) for c in t.children[1:] if c is not None)
        return N.Call(str(t.children[0]), args, span=self.span(t))

    def lower_keyword_arg(self, t):
        return N.KeywordArg(str(t.children[0]), self.lower(t.children[1]), span=self.span(t))

    def lower_aggregate(self, t):
        kind, var, source, where, body = t.children
        return N.Aggregate(str(kind), str(var), self.lower(source),
                           self.lower(where.children[0]) if where is not None else None,
                           self.opt(body), span=self.span(t))

    def lower_seq_lit(self, t):
        return N.SeqLit(tuple(self.lower(c) for c in t.children if c is not None), span=self.span(t))

    def lower_set_lit(self, t):
        return N.SetLit(tuple(self.lower(c) for c in t.children if c is not None), span=self.span(t))


def lower_tree(tree: lark.Tree, path: str) -> tuple[N.Spec, list[Diagnostic]]:
    lowerer = Lowerer(path)
    spec = lowerer.lower(tree)
    return spec, lowerer.diagnostics
