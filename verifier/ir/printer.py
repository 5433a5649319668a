"""IR -> spec text: the inverse of the front end's parse + lower.

`print_spec(spec)` writes a spec that parses back to equal declarations
(`parse_spec(print_spec(spec)).decls == spec.decls`; spans do not take part in
equality).  Every node kind has a `print_<ClassName>` method; a node without
one raises NotImplementedError rather than being skipped.  Expressions get
the fewest parentheses the grammar's precedence allows:

    if-then-else < or < and < not < comparisons, in, not in, .. < + - < * / // % < unary - < postfix
"""
from __future__ import annotations

from . import nodes as N

INDENT = "  "

# Binding strength of each expression level (higher binds tighter).
P_IF, P_OR, P_AND, P_NOT, P_CMP, P_SUM, P_PROD, P_UNARY, P_POSTFIX, P_ATOM = range(10)

_CMP_OPS = {"==", "!=", "<", "<=", ">", ">=", "in", "notin"}
_SUM_OPS = {"+", "-"}
_PROD_OPS = {"*", "/", "//", "%"}
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "{": "\\{", "}": "\\}"}


def escape(text: str) -> str:
    r"""Escape text for the inside of a "..." literal: \" \\ \n \{ \}."""
    return "".join(_ESCAPES.get(ch, ch) for ch in text)


def quote(text: str) -> str:
    return '"' + escape(text) + '"'


class Printer:
    """Dispatches on node class name (`print_<ClassName>`).

    Expressions return (text, precedence); statements take an indentation
    depth and return a line or a list of lines; declarations return a line or
    a list of lines.
    """

    # ------------------------------------------------------------------ helpers
    def dispatch(self, node, *args):
        method = getattr(self, "print_" + type(node).__name__, None)
        if method is None:
            raise NotImplementedError(f"printer has no rule for {type(node).__name__}")
        return method(node, *args)

    @staticmethod
    def cites(cites) -> str:
        return "".join(" @" + c for c in cites)

    @staticmethod
    def nat(n) -> str:
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise ValueError(f"expected a whole number >= 0, got {n!r}")
        return str(n)

    # ------------------------------------------------------------------ spec
    def print_Spec(self, spec: N.Spec) -> str:
        lines: list[str] = []
        previous = None  # (kind, was multi-line) of the previous declaration
        for decl in spec.decls:
            out = self.dispatch(decl)
            decl_lines = [out] if isinstance(out, str) else list(out)
            multi = len(decl_lines) > 1
            if previous is not None and (multi or previous[1] or previous[0] is not type(decl)):
                lines.append("")
            lines += decl_lines
            previous = (type(decl), multi)
        return "\n".join(lines) + "\n"

    # ------------------------------------------------------------------ declarations
    def print_GameDecl(self, d: N.GameDecl) -> str:
        return f"game {d.name} {quote(d.title)}{self.cites(d.cites)}"

    def print_PlayersDecl(self, d: N.PlayersDecl) -> str:
        count = self.nat(d.lo) if d.lo == d.hi else f"{self.nat(d.lo)}..{self.nat(d.hi)}"
        return f"players {count}{self.cites(d.cites)}"

    def print_UtilityDecl(self, d: N.UtilityDecl) -> str:
        total = "" if d.total is None else f" {d.total}"
        when = f" when {self.expr(d.when)}" if d.when is not None else ""
        return f"utility {d.kind}{total}{when}{self.cites(d.cites)}"

    def print_OptionDecl(self, d: N.OptionDecl) -> str:
        finite = f" finite {self.expr(d.finite)}" if d.finite is not None else ""
        return (f"option {d.name}: {self.type(d.type)} = {self.expr(d.default)}{finite} "
                f"because {quote(d.reason)}{self.cites(d.cites)}")

    def print_EnumItem(self, item: N.EnumItem) -> str:
        out = item.name
        if item.display is not None:
            out += " " + quote(item.display)
        if item.aka is not None:
            out += " aka " + quote(item.aka)
        return out

    def print_EnumDecl(self, d: N.EnumDecl) -> str:
        if not d.items:
            raise ValueError(f"enum {d.name} has no items; the language cannot write an empty enum")
        items = ", ".join(self.dispatch(i) for i in d.items)
        return f"enum {d.name} {{ {items} }}{self.cites(d.cites)}"

    def print_FieldDecl(self, f: N.FieldDecl) -> str:
        return f"{f.name}: {self.type(f.type)}"

    def print_RecordDecl(self, d: N.RecordDecl) -> str:
        if not d.fields:
            raise ValueError(f"record {d.name} has no fields; the language cannot write an empty record")
        fields = ", ".join(self.dispatch(f) for f in d.fields)
        shown = f" shown {quote(d.shown)}" if d.shown is not None else ""
        return f"record {d.name} {{ {fields} }}{shown}{self.cites(d.cites)}"

    def print_TypeDecl(self, d: N.TypeDecl) -> str:
        return f"type {d.name} = {self.type(d.type)}{self.cites(d.cites)}"

    def print_GridDecl(self, d: N.GridDecl) -> str:
        return f"grid {d.name} rows {self.nat(d.rows)} cols {self.nat(d.cols)}{self.cites(d.cites)}"

    def print_ConstDecl(self, d: N.ConstDecl) -> str:
        return f"const {d.name}: {self.type(d.type)} = {self.expr(d.value)}{self.cites(d.cites)}"

    def print_CatalogueDecl(self, d: N.CatalogueDecl) -> list[str]:
        if not d.items:
            raise ValueError(f"catalogue {d.name} has no items; the language cannot write an empty catalogue")
        head = f"catalogue {d.name} of {d.record}"
        if d.assumption is not None:
            head += f" replaceable because {quote(d.assumption)}"
        return ([head + " = ["] + [INDENT + self.expr(item) + "," for item in d.items]
                + ["]" + self.cites(d.cites)])

    def print_VarDecl(self, d: N.VarDecl) -> str:
        out = f"var {d.name}: {self.type(d.type)}"
        if d.init is not None:
            out += " = " + self.expr(d.init)
        if d.visibility not in ("public", "private", "hidden"):
            raise ValueError(f"unknown visibility {d.visibility!r}")
        if d.visibility != "public":  # public is the default
            out += " " + d.visibility
        return out + self.cites(d.cites)

    def print_Param(self, p: N.Param) -> str:
        return f"{p.name}: {self.type(p.type)}"

    def print_DefDecl(self, d: N.DefDecl) -> str:
        params = ", ".join(self.dispatch(p) for p in d.params)
        return f"def {d.name}({params}): {self.type(d.result)} = {self.expr(d.body)}{self.cites(d.cites)}"

    def print_FlowDecl(self, d: N.FlowDecl) -> list[str]:
        return self.block("flow", d.body, 0)

    def print_ScoreClause(self, c: N.ScoreClause) -> str:
        return f"score {c.var}: {self.expr(c.expr)}{self.cites(c.cites)}"

    def print_TiebreakClause(self, c: N.TiebreakClause) -> str:
        if c.direction not in ("higher", "lower"):
            raise ValueError(f"unknown tiebreak direction {c.direction!r}")
        return f"tiebreak {c.var}: {self.expr(c.expr)} {c.direction}{self.cites(c.cites)}"

    def print_WinsClause(self, c: N.WinsClause) -> str:
        return f"wins {c.var} if {self.expr(c.cond)}{self.cites(c.cites)}"

    def print_ReturnsClause(self, c: N.ReturnsClause) -> str:
        return f"returns {c.var}: {self.expr(c.expr)}"

    def print_OutcomeDecl(self, d: N.OutcomeDecl) -> list[str]:
        clauses = [d.score, *d.tiebreaks] + [c for c in (d.wins, d.returns) if c is not None]
        return ["outcome {"] + [INDENT + self.dispatch(c) for c in clauses] + ["}"]

    def print_InvariantDecl(self, d: N.InvariantDecl) -> str:
        at = f" at {', '.join(d.at)}" if d.at else ""
        return f"invariant {d.name} {quote(d.sentence)}{at}{self.cites(d.cites)}: {self.expr(d.cond)}"

    def print_ExpectDecl(self, d: N.ExpectDecl) -> str:
        when = f" when {self.expr(d.when)}" if d.when is not None else ""
        return f"expect {d.name} {d.status}{when} {quote(d.text)}{self.cites(d.cites)}"

    def print_ExampleGiven(self, item: N.ExampleGiven) -> str:
        return f"given {self.lvalue(item.target)} = {self.expr(item.value)}"

    def print_ExampleExpect(self, item: N.ExampleExpect) -> str:
        return f"expect {self.expr(item.cond)}"

    def print_ExampleDecl(self, d: N.ExampleDecl) -> list[str]:
        head = f"example {d.name} {quote(d.sentence)}{self.cites(d.cites)} {{"
        if not d.items:
            return [head + "}"]
        return [head] + [INDENT + self.dispatch(i) for i in d.items] + ["}"]

    def print_RuleDecl(self, r: N.RuleDecl) -> str:
        return f"@{r.id} {quote(r.text)}"

    def print_RulesDecl(self, d: N.RulesDecl) -> list[str]:
        head = f"rules {d.kind} {quote(d.title)} {{"
        if not d.rules:
            return [head + "}"]
        return [head] + [INDENT + self.dispatch(r) for r in d.rules] + ["}"]

    def print_DisplayItem(self, item: N.DisplayItem) -> str:
        per = f" per {item.player}" if item.player is not None else ""
        if (item.var is None) != (item.source is None):
            raise ValueError("a display item's `for` needs both its variable and its collection")
        over = f" for {item.var} in {self.expr(item.source)}" if item.var is not None else ""
        return f"{item.kind} {quote(item.title)}{per}{over}: {self.expr(item.expr)}"

    def print_DisplayDecl(self, d: N.DisplayDecl) -> list[str]:
        if not d.items:
            return ["display {}"]
        return ["display {"] + [INDENT + self.dispatch(i) for i in d.items] + ["}"]

    # ------------------------------------------------------------------ types
    def type(self, t) -> str:
        return self.dispatch(t)

    def print_NamedTypeRef(self, t: N.NamedTypeRef) -> str:
        return t.name

    def print_BoolTypeRef(self, t: N.BoolTypeRef) -> str:
        return "bool"

    def print_PlayerTypeRef(self, t: N.PlayerTypeRef) -> str:
        return "Player"

    def print_TextTypeRef(self, t: N.TextTypeRef) -> str:
        return "text"

    @staticmethod
    def bound(b) -> str:
        if isinstance(b, int) and not isinstance(b, bool):
            return str(b) if b >= 0 else f"-{-b}"
        if isinstance(b, str):
            return b
        if isinstance(b, tuple) and len(b) == 2 and isinstance(b[0], str) and isinstance(b[1], int):
            return f"{b[0]} + {b[1]}" if b[1] >= 0 else f"{b[0]} - {-b[1]}"
        raise ValueError(f"bad range bound {b!r}")

    def print_RangeTypeRef(self, t: N.RangeTypeRef) -> str:
        return f"{self.bound(t.lo)}..{self.bound(t.hi)}"

    def print_RationalTypeRef(self, t: N.RationalTypeRef) -> str:
        return f"rational {self.bound(t.lo)}..{self.bound(t.hi)}"

    def print_ArrayTypeRef(self, t: N.ArrayTypeRef) -> str:
        return f"array[{self.type(t.index)}] of {self.type(t.elem)}"

    def print_SetTypeRef(self, t: N.SetTypeRef) -> str:
        return f"set of {self.type(t.elem)}"

    def print_SeqTypeRef(self, t: N.SeqTypeRef) -> str:
        return f"seq of {self.type(t.elem)} max {self.nat(t.capacity)}"

    # ------------------------------------------------------------------ statements
    def block(self, head: str, body: N.Block, depth: int) -> list[str]:
        """`head {`, the statements one level deeper, `}` — all at indentation `depth`."""
        if not isinstance(body, N.Block):
            raise NotImplementedError(f"printer expected a Block, got {type(body).__name__}")
        pad = INDENT * depth
        opener = f"{pad}{head} {{" if head else f"{pad}{{"
        if not body.stmts:
            return [opener + "}"]
        lines = [opener]
        for st in body.stmts:
            lines += self.stmt(st, depth + 1)
        lines.append(pad + "}")
        return lines

    def stmt(self, st, depth: int) -> list[str]:
        out = self.dispatch(st, depth)
        return [INDENT * depth + out] if isinstance(out, str) else out

    def print_Block(self, b: N.Block, depth: int = 0) -> list[str]:
        return self.block("", b, depth)

    def print_Assign(self, st: N.Assign, depth: int) -> str:
        if st.op not in ("=", "+=", "-="):
            raise ValueError(f"unknown assignment operator {st.op!r}")
        return f"{self.lvalue(st.target)} {st.op} {self.expr(st.value)}{self.cites(st.cites)}"

    def print_Let(self, st: N.Let, depth: int) -> str:
        declared = f": {self.type(st.type)}" if st.type is not None else ""
        return f"let {st.name}{declared} = {self.expr(st.value)}{self.cites(st.cites)}"

    def print_If(self, st: N.If, depth: int) -> list[str]:
        if not st.branches:
            raise ValueError("an if statement needs at least one branch")
        lines: list[str] = []
        for i, (cond, body) in enumerate(st.branches):
            part = self.block(("if " if i == 0 else "elif ") + self.expr(cond), body, depth)
            if lines:  # `} elif ... {` continues the previous branch's closing line
                part[0] = lines.pop() + " " + part[0].lstrip()
            lines += part
        if st.orelse is not None:
            part = self.block("else", st.orelse, depth)
            part[0] = lines.pop() + " " + part[0].lstrip()
            lines += part
        return lines

    def print_For(self, st: N.For, depth: int) -> list[str]:
        return self.block(f"for {st.var} in {self.expr(st.source)}{self.cites(st.cites)}", st.body, depth)

    def print_While(self, st: N.While, depth: int) -> list[str]:
        measure = f" decreases {self.expr(st.decreases)}" if st.decreases is not None else ""
        return self.block(f"while {self.expr(st.cond)}{measure}{self.cites(st.cites)}", st.body, depth)

    def print_Chance(self, st: N.Chance, depth: int) -> str:
        weight = f" weighted {self.expr(st.weight)}" if st.weight is not None else ""
        return f"chance {st.var} from {self.expr(st.source)}{weight}{self.cites(st.cites)}"

    def moves(self, head: str, moves, depth: int) -> list[str]:
        if not moves:
            raise ValueError(f"'{head}' needs at least one move")
        pad = INDENT * depth
        lines = [f"{pad}{head} {{"]
        for mv in moves:
            lines += self.dispatch(mv, depth + 1)
        lines.append(pad + "}")
        return lines

    def print_Choose(self, st: N.Choose, depth: int) -> list[str]:
        return self.moves(f"choose {self.expr(st.player)}{self.cites(st.cites)}", st.moves, depth)

    def print_Simultaneous(self, st: N.Simultaneous, depth: int) -> list[str]:
        return self.moves(f"simultaneous {st.var}{self.cites(st.cites)}", st.moves, depth)

    def print_MoveParam(self, p: N.MoveParam) -> str:
        if (p.type is None) == (p.source is None):
            raise ValueError(f"move parameter {p.name} needs exactly one of a type or a source")
        if p.type is not None:
            return f"{p.name}: {self.type(p.type)}"
        return f"{p.name} in {self.expr(p.source)}"

    def print_Require(self, r: N.Require, depth: int) -> str:
        msg = f" {quote(r.message)}" if r.message else ""  # no message and "" lower alike
        return f"{INDENT * depth}require {r.label}{msg}{self.cites(r.cites)}: {self.expr(r.cond)}"

    def print_Move(self, mv: N.Move, depth: int) -> list[str]:
        pad = INDENT * depth
        params = ", ".join(self.dispatch(p) for p in mv.params)
        head = f"{pad}move {mv.name}({params})"
        if mv.text is not None:
            head += " " + self.string(mv.text)
        head += self.cites(mv.cites)
        lines = [head] + [self.dispatch(r, depth + 1) for r in mv.requires]
        body = self.block("", mv.body, depth)  # an absent body lowers to an empty Block
        if mv.requires:
            return lines + body
        lines[-1] += " " + body[0].lstrip()
        return lines + body[1:]

    def print_End(self, st: N.End, depth: int) -> str:
        return "end" + self.cites(st.cites)

    def print_Say(self, st: N.Say, depth: int) -> str:
        return "say " + self.string(st.text) + self.cites(st.cites)

    def print_CollectionEdit(self, st: N.CollectionEdit, depth: int) -> str:
        word = {"add": "to", "append": "to", "remove": "from"}.get(st.op)
        if word is None:
            raise ValueError(f"unknown collection edit {st.op!r}")
        return f"{st.op} {self.expr(st.item)} {word} {self.lvalue(st.target)}{self.cites(st.cites)}"

    def lvalue(self, target) -> str:
        if isinstance(target, N.Name):
            return target.name
        if isinstance(target, N.Index):
            return f"{self.lvalue(target.base)}[{self.expr(target.index)}]"
        raise ValueError(f"only a name or an indexed name can be assigned, not {type(target).__name__}")

    # ------------------------------------------------------------------ expressions
    def expr(self, e, min_prec: int = P_IF) -> str:
        """`e` as text, in parentheses if it binds looser than `min_prec` allows."""
        text, prec = self.dispatch(e)
        return f"({text})" if prec < min_prec else text

    def print_IntLit(self, e: N.IntLit):
        if isinstance(e.value, bool) or not isinstance(e.value, int):
            raise ValueError(f"IntLit holds {e.value!r}, not an int")
        if e.value < 0:
            raise ValueError("a negative literal is Unary('-', IntLit(n)) in the IR, not IntLit(-n)")
        return str(e.value), P_ATOM

    def print_BoolLit(self, e: N.BoolLit):
        return ("true" if e.value else "false"), P_ATOM

    def string(self, e: N.StrLit) -> str:
        if not isinstance(e, N.StrLit):
            raise NotImplementedError(f"printer expected a StrLit, got {type(e).__name__}")
        out = ['"']
        for part in e.parts:
            out.append(escape(part) if isinstance(part, str) else "{" + self.interpolation(part) + "}")
        out.append('"')
        return "".join(out)

    def interpolation(self, e) -> str:
        """An expression inside a string's `{...}`: it ends at the first `}`, and its
        strings' quotes are written `\\"` (the front end turns `\\"` back into `"`)."""
        inner = self.expr(e)
        bad = "}" in inner or "\n" in inner or any(
            isinstance(n, N.StrLit) and any(not isinstance(p, str) or '"' in p for p in n.parts)
            for n in _walk(e))
        if bad:
            raise ValueError(f"cannot write {inner!r} inside a string's {{...}}")
        return inner.replace('"', '\\"')

    def print_StrLit(self, e: N.StrLit):
        return self.string(e), P_ATOM

    def print_Name(self, e: N.Name):
        return e.name, P_ATOM

    def print_Index(self, e: N.Index):
        return f"{self.expr(e.base, P_POSTFIX)}[{self.expr(e.index)}]", P_POSTFIX

    def print_FieldAccess(self, e: N.FieldAccess):
        return f"{self.expr(e.base, P_POSTFIX)}.{e.name}", P_POSTFIX

    def print_KeywordArg(self, e: N.KeywordArg):
        return f"{e.name} = {self.expr(e.value)}", P_IF

    def print_Call(self, e: N.Call):
        args = ", ".join(self.expr(a) for a in e.args)
        if e.func in N.AGGREGATES:
            # `sum(` lexes as the aggregate keyword (AGGREGATE looks ahead for `\s*(`); the parser
            # made this a call because a comment stood between the name and `(`, so write one there
            return f"{e.func} #\n({args})", P_ATOM
        return f"{e.func}({args})", P_ATOM

    def print_Unary(self, e: N.Unary):
        if e.op not in ("not", "-"):
            raise ValueError(f"unknown unary operator {e.op!r}")
        count, operand = 0, e  # `- - - x` and `not not x` are printed without recursion
        while isinstance(operand, N.Unary) and operand.op == e.op:
            count, operand = count + 1, operand.operand
        if e.op == "not":
            return "not " * count + self.expr(operand, P_NOT), P_NOT
        inner = self.expr(operand, P_UNARY)
        return " ".join(["-"] * count) + (" " if inner.startswith("-") else "") + inner, P_UNARY

    @staticmethod
    def binary_levels(op: str) -> tuple[int, int, int]:
        """(precedence, minimum for the left operand, minimum for the right operand)."""
        if op == "or":  # chains are left-nested: a or b or c == (a or b) or c
            return P_OR, P_OR, P_AND
        if op == "and":
            return P_AND, P_AND, P_NOT
        if op in _CMP_OPS:  # not associative: both sides are sums
            return P_CMP, P_SUM, P_SUM
        if op in _SUM_OPS:
            return P_SUM, P_SUM, P_PROD
        if op in _PROD_OPS:
            return P_PROD, P_PROD, P_UNARY
        raise ValueError(f"unknown binary operator {op!r}")

    def print_Binary(self, e: N.Binary):
        prec, left_min, _ = self.binary_levels(e.op)
        # walk the left spine of a chain (a + b - c + ...) without recursion: long sums stay printable
        spine, node = [], e
        while isinstance(node, N.Binary) and prec != P_CMP and self.binary_levels(node.op)[0] == prec:
            spine.append(node)
            node = node.left
        if not spine:  # a comparison: one level
            spine, node = [e], e.left
        out = [self.expr(node, left_min)]
        for b in reversed(spine):
            word = "not in" if b.op == "notin" else b.op
            out.append(f" {word} {self.expr(b.right, self.binary_levels(b.op)[2])}")
        return "".join(out), prec

    def print_RangeExpr(self, e: N.RangeExpr):  # a comparison-level operator: `a..b`, not associative
        return f"{self.expr(e.lo, P_SUM)}..{self.expr(e.hi, P_SUM)}", P_CMP

    def print_IfExpr(self, e: N.IfExpr):
        out, node = [], e  # `if a then b else if c then d else e`, without recursion on the else chain
        while isinstance(node, N.IfExpr):
            out.append(f"if {self.expr(node.cond)} then {self.expr(node.then)} else ")
            node = node.orelse
        return "".join(out) + self.expr(node), P_IF

    def print_Aggregate(self, e: N.Aggregate):
        out = f"{e.kind}({e.var} in {self.expr(e.source)}"
        if e.where is not None:
            out += f" where {self.expr(e.where)}"
        if e.body is not None:
            out += f": {self.expr(e.body)}"
        return out + ")", P_ATOM

    def print_SeqLit(self, e: N.SeqLit):
        return "[" + ", ".join(self.expr(i) for i in e.items) + "]", P_ATOM

    def print_SetLit(self, e: N.SetLit):
        return "{" + ", ".join(self.expr(i) for i in e.items) + "}", P_ATOM


def _walk(node):
    yield node
    for child in node.children():
        yield from _walk(child)


def print_spec(spec: N.Spec) -> str:
    """The text of `spec`; it parses back to equal declarations."""
    return Printer().print_Spec(spec)


def print_expr(e) -> str:
    """The text of one expression, with the fewest parentheses needed."""
    return Printer().expr(e)
