"""Grammar fuzzing of the front end and the IR printer.

Texts come from the language's own grammar (`hypothesis.extra.lark`), with
explicit strategies that keep tokens short, valid and separated by spaces
(from_lark only inserts %ignore'd whitespace a quarter of the time, and
`game x` must not become `gamex`).  Properties:

- `check_text` never raises: every text gives diagnostics or a program;
- a text that parses without errors prints back to equal declarations;
- a text that type-checks prints to a text that type-checks too;
- every example spec round-trips through the printer.

FUZZ_EXAMPLES=N sets the number of examples per property (default 200).
"""
from __future__ import annotations

import glob
import os
from pathlib import Path

import lark
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis.extra.lark import LarkStrategy
from lark.grammar import Terminal

from verifier.diagnostics import has_errors
from verifier.frontend import check_text, parse_spec
from verifier.frontend.parse import GRAMMAR_PATH
from verifier.frontend.typecheck import typecheck
from verifier.ir import nodes as N
from verifier.ir.printer import Printer, escape, print_expr, print_spec

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted(glob.glob(str(ROOT / "spec" / "**" / "*.rules"), recursive=True))
TICTACTOE = (ROOT / "spec" / "examples" / "tictactoe.rules").read_text(encoding="utf-8")

FUZZ = settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", 200)), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                       HealthCheck.data_too_large, HealthCheck.large_base_example])

GRAMMAR = lark.Lark(GRAMMAR_PATH.read_text(encoding="utf-8"), parser="lalr", lexer="contextual",
                    start=["start", "expr"])

# Names a spec might mean something by (those of tictactoe, builtins, types),
# a few that the checker must refuse (reserved, underscored, keywords), and
# short random ones.
_NAMES = ["p", "c", "x", "o", "l", "n", "i", "board", "turn", "empty", "Cell", "Mark", "LINES", "mark_of",
          "has_line", "full", "next_player", "row", "col", "size", "abs", "first", "least", "union", "num_players",
          "players", "winners", "score", "T", "Item", "hand", "deck", "R", "termination", "proved", "violated"]
_ODD_NAMES = ["s", "self", "_x", "__class__", "__import__", "true", "if", "move", "L", "exec", "eval", "Player"]
NAME = st.one_of(st.sampled_from(_NAMES), st.sampled_from(_NAMES), st.sampled_from(_ODD_NAMES),
                 st.from_regex(r"[a-z][a-z0-9_]{0,4}", fullmatch=True))
INT = st.one_of(st.integers(0, 9), st.integers(0, 70), st.just(10 ** 12)).map(str)
_STRINGS = ['""', '"hi"', '"a \\"quoted\\" word"', '"back\\\\slash"', '"two\\nlines"', '"\\{braces\\}"',
            '"{p}"', '"P{p + 1} wins"', '"{row(c)},{col(c)}"', '"{"', '"{)}"', '"{x}{y}"', '"{ {1} }"',
            '"{board[c]}!"', '"{if p == 0 then 1 else 2}"', '"{if p == 0 then \\" a\\\\\\" else \\"\\"}"',
            '"{\\"\\{x\\n\\"}"', '"{\\"x}"']
STRING = st.one_of(st.sampled_from(_STRINGS),
                   st.lists(st.sampled_from(["a", "z", " ", "{", "}", "x", '\\"', "\\\\", "\\n", "\\{", "\\}"]),
                            max_size=6).map(lambda parts: '"' + "".join(parts) + '"'))
SPACE = st.sampled_from([" ", " ", "\n", "  "])


def _spaced(strategy):
    return st.tuples(strategy, SPACE).map("".join)


def _explicit(start: str) -> dict:
    terminals, _, _ = GRAMMAR.grammar.compile([start], ())
    names = {t.name for t in terminals}
    out = {}
    for t in terminals:
        if t.pattern.type == "str":
            out[t.name] = _spaced(st.just(t.pattern.value))
    out.update(
        NAME=_spaced(NAME),
        INT=_spaced(INT),
        STRING=_spaced(STRING),
        CITE=_spaced(st.sampled_from(["@R-B1", "@R-X2-3", "@A-1"])),
        AGGREGATE=_spaced(st.sampled_from(["sum", "count", "all", "any", "min", "max", "argmin", "argmax",
                                           "collect"])),
        WS=SPACE,
        COMMENT=st.just("# note {\n"),
    )
    return {k: v for k, v in out.items() if k in names}


class _ShortLark(LarkStrategy):
    """from_lark's strategy, biased to short expansions and light on nesting.

    from_lark picks each rule's alternatives uniformly and opens a
    hypothesis span per rule; for `expr` (ten nested rules per level, and
    `if expr then expr else expr` recursing three times) that exceeds
    hypothesis's nesting limit on most draws, so generation is slow and
    mostly discarded.  Here three quarters of the choices take one of a rule's
    shortest alternatives, a choice is one integer draw, and no span is
    opened per rule (a depth counter bounds recursion instead).
    """

    MAX_RULE_DEPTH = 150

    def __init__(self, *args):
        super().__init__(*args)
        self.alternatives = {name: list(s.elements) for name, s in self.nonterminal_strategies.items()}
        self.n_shortest = {name: sum(1 for x in alts if len(x) == len(alts[0]))
                           for name, alts in self.alternatives.items()}
        self.depth = 0

    def do_draw(self, data):
        self.depth = 0
        return super().do_draw(data)

    def draw_symbol(self, data, symbol, draw_state):
        if isinstance(symbol, Terminal):
            draw_state.append(data.draw(self.terminal_strategies[symbol.name]))
            return
        alts = self.alternatives[symbol.name]
        self.depth += 1
        if self.depth > self.MAX_RULE_DEPTH:
            data.mark_invalid("grammar recursion too deep")
        if len(alts) > 1:
            short = data.draw_boolean(3 / 4)
            expansion = alts[data.draw_integer(0, (self.n_shortest[symbol.name] if short else len(alts)) - 1)]
        else:
            expansion = alts[0]
        for e in expansion:
            self.draw_symbol(data, e, draw_state)
            self.gen_ignore(data, draw_state)
        self.depth -= 1


def grammar_strategy(start: str):
    return _ShortLark(GRAMMAR, start, _explicit(start), st.characters(codec="utf-8"))


SPECS = grammar_strategy("start")
EXPRS = grammar_strategy("expr")


def _round_trip(spec: N.Spec, path: str) -> N.Spec:
    """Print `spec`, parse the text, check the declarations are equal; return the new Spec."""
    printed = print_spec(spec)
    again, diags = parse_spec(printed, path)
    assert again is not None and not has_errors(diags), (
        f"printed text does not parse:\n{printed}\n" + "\n".join(d.message for d in diags))
    assert again.decls == spec.decls, f"round trip changed the declarations:\n{printed}"
    return again


def _check_property(text: str) -> None:
    # check_text(text) is parse_spec + typecheck; done in two steps to reuse the Spec
    spec, diags = parse_spec(text, "fuzz.rules")  # must not raise
    if spec is None or has_errors(diags):
        assert has_errors(diags)
        return
    program, more = typecheck(spec)  # must not raise
    assert program is not None or has_errors(more)
    again = _round_trip(spec, "fuzz.rules")
    if program is not None:
        program2, diags2 = typecheck(again)
        assert program2 is not None, f"printed text no longer type-checks:\n{print_spec(again)}\n" + "\n".join(
            d.message for d in diags2)


def test_check_text_is_parse_then_typecheck():
    """_check_property relies on check_text being exactly parse_spec + typecheck."""
    program, diags = check_text(TICTACTOE, "t.rules")
    spec, _ = parse_spec(TICTACTOE, "t.rules")
    program2, diags2 = typecheck(spec)
    assert program is not None and program2 is not None and diags == diags2
    assert check_text("game g", "t.rules")[0] is None


# ---------------------------------------------------------------- properties


@FUZZ
@given(SPECS)
@example('game g "G" players 2 var v: 0..3 = 0 flow { while v < 3 decreases 3 - v { v += 1 } } '
         'outcome { score p: v } expect termination proved when num_players == 2 "it ends"')
def test_fuzz_whole_specs(text):
    _check_property(text)


# A small spec in which the fuzzed expressions' names mean something.
CONTEXT = """game t "T"
players 2
enum Mark { empty ".", x "x", o "o" }
grid Cell rows 3 cols 3
const LINES: seq of seq of Cell max 3 max 2 = [[0, 1, 2], [0, 4, 8]]
var board: array[Cell] of Mark = empty
var hand: set of Cell = {}
var turn: Player = 0
def mark_of(p: Player): Mark = if p == 0 then x else o
flow { choose turn { move place(c: Cell) "{mark_of(turn)}" { board[c] = mark_of(turn) } } }
outcome { score p: size(hand) }
"""


def _probe_spec(expr_text: str) -> str:
    """The context plus a definition whose body is the fuzzed expression."""
    return CONTEXT + f"def probe(p: Player, c: Cell): bool = {expr_text}\n" \
                     f"invariant probed \"fuzz\": probe(0, 0) or true\n"


def test_probe_context_checks():
    program, diags = check_text(_probe_spec("board[c] == mark_of(p)"), "t.rules")
    assert program is not None, [d.message for d in diags]


@FUZZ
@given(EXPRS)
@example("-3 * -(1 + 2) - - 4 // 2 % 3")
@example("not not (p in {0} or c not in {1, 2}) and (if true then 1 else 2) == -1")
@example("(if p == 0 then board else board)[c] == empty")
@example('size(collect(q in Cell where board[q] == x: q)) < count(q in Cell where q != c)')
@example("p ( sum # note {\n( p in 1000000000000 ) ) ")  # a call named `sum`: see test_comment_before_paren
def test_fuzz_expressions_in_context(expr_text):
    _check_property(_probe_spec(expr_text))


@pytest.mark.parametrize("path", EXAMPLES, ids=[Path(p).name for p in EXAMPLES])
def test_examples_round_trip(path):
    text = Path(path).read_text(encoding="utf-8")
    spec, diags = parse_spec(text, path)
    if spec is None or has_errors(diags):
        pytest.skip(f"{Path(path).name} does not parse yet: {diags[0].span}: {diags[0].message}")
    again = _round_trip(spec, path)
    printed = print_spec(again)
    assert print_spec(_round_trip(again, path)) == printed, "printing is not idempotent"
    program, diags = typecheck(spec)
    if program is not None:
        program2, diags2 = check_text(printed, path)
        assert program2 is not None, [d.message for d in diags2]
        assert [d.message for d in diags2] == [d.message for d in diags]


# ---------------------------------------------------------------- printer unit tests


def _e(text: str):
    spec, diags = parse_spec(f"const k: bool = {text}\n", "t.rules")
    assert spec is not None and not has_errors(diags), diags
    return spec.decls[0].value


_SAME = ["a or b and c", "(a or b) and c", "a or (b or c)", "not a == b", "(not a) == b", "a - (b - c)",
         "a - b - c", "a * (b + c)", "-a[0]", "(-a)[0]", "(if a then b else c) + 1",
         "if a then b else if c then d else e", "(a == b) == c", "a not in b", "(a + b).f",
         "f(x = 1, if a then b else c)", "sum(i in s where i > 0: i * 2)", "[]", "{}", "{1, -2}",
         '"a{x + 1}\\{b\\}\\n\\"q\\\\"', "a // b % c * d", "a * (b // c)", "- -a", "1..n + 1", "(1..2)..3",
         "x in (0..-1)", "(a..b)[0]", "not a..b", "-(a + b) * c", "a or not b", "not (a or b)"]
_SIMPLER = {"-(-3)": "- -3", "not (a in b)": "not a in b", "((a))": "a", "(a or b) or c": "a or b or c",
            "a + (b * c)": "a + b * c", "(-3)": "-3", "([1])[0]": "[1][0]", "(a.b).c": "a.b.c", "(a and b) or c": "a and b or c"}


@pytest.mark.parametrize("text,expected", [(t, t) for t in _SAME] + list(_SIMPLER.items()))
def test_minimal_parentheses(text, expected):
    e = _e(text)
    printed = print_expr(e)
    assert _e(printed) == e
    assert printed == expected


def test_negative_literal_keeps_unary_shape():
    e = _e("-3")
    assert e == N.Unary("-", N.IntLit(3))
    assert print_expr(e) == "-3"
    with pytest.raises(ValueError):
        print_expr(N.IntLit(-3))


def test_escape_and_plain_strings_round_trip():
    title = 'say "hi" \\ {x}\nnext'
    spec = N.Spec("t.rules", (N.GameDecl("g", title),))
    printed = print_spec(spec)
    assert printed == f'game g "{escape(title)}"\n'
    assert parse_spec(printed, "t.rules")[0].decls == spec.decls


def test_unknown_node_raises():
    class Mystery(N.Node):
        pass

    with pytest.raises(NotImplementedError):
        print_spec(N.Spec("t.rules", (Mystery(),)))
    with pytest.raises(NotImplementedError):
        Printer().expr(Mystery())


def test_citations_and_layout():
    text = ('game g "G"\nplayers 2..4\nvar v: array[Player] of 0..3 = 0 private @R-A1 @R-B2\n'
            'flow {\n  if v[0] == 1 { end @R-E1 } elif v[0] == 2 { v[0] += 1 } else { say "x" }\n}\n')
    spec = parse_spec(text, "t.rules")[0]
    printed = print_spec(_round_trip(spec, "t.rules"))
    assert "@R-A1 @R-B2" in printed
    assert "players 2..4" in printed
    assert "  if v[0] == 1 {\n    end @R-E1\n  } elif v[0] == 2 {\n    v[0] += 1\n  } else {\n" in printed


# ---------------------------------------------------------------- long and deep expressions

@pytest.mark.parametrize("body", [
    " + ".join(["1"] * 300) + " == 300",                      # a long left-nested chain
    " or ".join(["turn == 0"] * 150),
    "- " * 300 + "1 == 1",
    "not " * 300 + "true",
    "(" + "if turn == 0 then 1 else " * 60 + "0) == 1",
], ids=["sum", "or", "neg", "not", "if"])
def test_long_chains_print_without_recursion(body):
    """The front end takes these; the printer must too (it walks chains without recursion)."""
    text = CONTEXT + f"def long(): bool = {body}\n"
    spec, diags = parse_spec(text, "long.rules")
    assert spec is not None and not has_errors(diags), [d.message for d in diags]
    _round_trip(spec, "long.rules")


# Regression guard (found by this file): a long sum or deeply nested brackets once raised
# RecursionError out of parse_spec/check_text instead of giving a diagnostic.
@pytest.mark.parametrize("expr", ["1" + " + 1" * 700, "[" * 90 + "]" * 90 + " == []"], ids=["sum700", "nest90"])
def test_deep_expressions_give_diagnostics_not_exceptions(expr):
    text = CONTEXT + f"const DEEP: bool = {expr}\n"
    program, diags = check_text(text, "deep.rules")  # must not raise
    assert program is not None or has_errors(diags)


# Regression guard (found by this file): the AGGREGATE lookahead once skipped spaces but not
# comments, so `sum # note` + newline + `(q in Cell)` parsed as a call of an unknown function.
def test_comment_before_paren_round_trips():
    """Whatever the front end makes of it, the printer reproduces it."""
    text = CONTEXT + "def probe(): 0..9 = sum # note\n(q in Cell)\n"
    spec, diags = parse_spec(text, "c.rules")
    assert spec is not None and not has_errors(diags)
    _round_trip(spec, "c.rules")


def test_comment_before_paren_keeps_the_aggregate():
    plain = parse_spec(CONTEXT + "def probe(): 0..9 = sum(q in Cell)\n", "c.rules")[0]
    commented = parse_spec(CONTEXT + "def probe(): 0..9 = sum # note\n(q in Cell)\n", "c.rules")[0]
    assert commented.decls == plain.decls


# ---------------------------------------------------------------- expectations and loop measures

MEASURED = CONTEXT[:CONTEXT.index("flow {")] + """option limit: 0..5 = 0 because "0 = no limit"
invariant one_turn "one player's turn": turn < 2
expect termination violated when limit == 0 "without a limit the game goes on" @R-E1
expect termination proved "otherwise it ends"
expect one_turn proved when num_players == 2 and not (limit > 3) "two players take turns"
expect no_deadlock unknown "cannot be decided yet"
example examples_keep_their_expect "an example's expect still works" { expect turn == 0 }
flow {
  while turn == 0 decreases size(hand) @R-W1 {
    while turn == 1 decreases 2 - turn { turn = 0 }
    choose turn { move play(c: Cell) { add c to hand } }
  }
}
outcome { score p: size(hand) }
rules turn "Turns" { @R-W1 "turns go on while the first player moves" }
rules end "The end" { @R-E1 "without a limit the game may not end" }
display {
  board "Board": board
  cards "Hand" per p: hand
  row "Marks" for c in Cell: mark_of(turn)
  value "Turn": turn
}
"""


def test_expectations_are_collected_with_their_conditions():
    program, diags = check_text(MEASURED, "m.rules")
    assert program is not None, [d.message for d in diags]
    got = [(d.name, d.status, print_expr(d.when) if d.when is not None else None, d.text, d.cites)
           for d in program.expects]
    assert got == [
        ("termination", "violated", "limit == 0", "without a limit the game goes on", ("R-E1",)),
        ("termination", "proved", None, "otherwise it ends", ()),
        ("one_turn", "proved", "num_players == 2 and not limit > 3", "two players take turns", ()),
        ("no_deadlock", "unknown", None, "cannot be decided yet", ()),
    ]
    assert all(isinstance(d, N.ExpectDecl) for d in program.expects)
    assert [type(i).__name__ for i in program.examples[0].items] == ["ExampleExpect"]
    outer = program.flow.body.stmts[0]
    assert [id(w) for w in program.measures] == [id(outer), id(outer.body.stmts[0])]  # pre-order: M_0, M_1


def test_expectations_and_measures_round_trip():
    spec, diags = parse_spec(MEASURED, "m.rules")
    assert spec is not None and not has_errors(diags), [d.message for d in diags]
    printed = print_spec(_round_trip(spec, "m.rules"))
    assert 'expect termination violated when limit == 0 "without a limit the game goes on" @R-E1' in printed
    assert "while turn == 0 decreases size(hand) @R-W1 {" in printed
    assert 'rules end "The end" {\n  @R-E1 "without a limit the game may not end"\n}' in printed
    assert '  row "Marks" for c in Cell: mark_of(turn)\n' in printed and '  cards "Hand" per p: hand\n' in printed
    outer = spec.of_kind(N.FlowDecl)[0].body.stmts[0]
    assert print_expr(outer.decreases) == "size(hand)" and outer.cites == ("R-W1",)
    assert outer != N.While(outer.cond, outer.body, outer.cites)  # the measure takes part in equality
