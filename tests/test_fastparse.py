"""The hand-written parser (verifier/frontend/fastparse.py) against lark + lower.py, the reference.

Where the fast parser accepts a text, lark must accept it too and both must give equal IR
with equal spans (the carets of every later diagnostic); where it gives up (`Fallback`),
lark decides. Checked on every bundled and golden spec, on grammar-generated texts, and
on the corners of lark's contextual lexer (keywords glued to names, keywords read as
names where no keyword fits).
"""
from __future__ import annotations

import glob
from pathlib import Path

import pytest
from hypothesis import given

from verifier.frontend import parse_spec
from verifier.frontend.fastparse import Fallback, parse_fast
from verifier.frontend.lower import lower_tree
from verifier.frontend.parse import parse_text

from test_printer_fuzz import CONTEXT, EXPRS, FUZZ, SPECS

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted(glob.glob(str(ROOT / "spec" / "**" / "*.rules"), recursive=True)) + \
    sorted(glob.glob(str(ROOT / "tests" / "golden" / "bad" / "*.rules")))


def spans(node) -> list:
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        out.append((type(n).__name__, n.span))
        out.extend(("cite", c, c.span) for c in getattr(n, "cites", ()) or ())
        stack.extend(n.children())
    return out


def by_lark(text: str, path: str = "t.rules"):
    tree, diags = parse_text(text, path)
    if tree is None:
        return None, diags
    spec, more = lower_tree(tree, path)
    return spec, diags + more


def agrees(text: str, path: str = "t.rules") -> bool:
    """True if the fast parser accepted the text (and then agrees with lark); False if it gave up."""
    try:
        fast = parse_fast(text, path)
    except (Fallback, RecursionError):
        return False
    slow, diags = by_lark(text, path)
    assert slow is not None and not diags, f"the fast parser accepts what lark rejects:\n{text}\n{diags}"
    assert fast == slow, f"the IR differs:\n{text}"
    assert spans(fast) == spans(slow), f"the spans differ:\n{text}"
    return True


@pytest.mark.parametrize("path", FILES, ids=[Path(p).name for p in FILES])
def test_every_spec_file_parses_the_same(path):
    text = Path(path).read_text(encoding="utf-8")
    accepted = agrees(text, path)
    slow, diags = by_lark(text, path)
    assert accepted == (slow is not None and not diags), "the fast parser gave up on a correct spec"


@pytest.mark.parametrize("text", [
    'gamex "G"',  # lark reads `game` + `x` where no name may stand
    'game g "G" playersx 2',
    'game g "G" players2',
    'game g "G" const A: bool = a orx',  # `or` + `x`: no name may follow an expression there
    'game g "G" const A: bool = truex',
    'game g "G" const A: bool = nota',
    'game g "G" const A: 0..9 = -not',  # after `-`, `not` is a name
    'game g "G" const A: bool = not if',
    'game g "G" const A: bool = a and if',
    'game g "G" const A: 0..9 = f(true = 1)',
    'game g "G" const A: 0..9 = f(x = 1, y == 2)',
    'game g "G" const A: 0..9 = x.if',
    'game g "G" flow { true = 1 in = 2 }',
    'game g "G" flow { x = a orx = 1 }',
    'game g "G" flow { x = a\n not = 1 }',
    'game g "G" var end: bool flow { end = true }',
    'game g "G" def count(): 0..3 = 1 const A: 0..3 = count()',
    'game g "G" const A: 0..9 = sum # c\n(x in S: x)',
    'game g "G" const A: 0..9 = maximum(1)',
    'game g "G" var x: setof T',
    'game g "G" var x: 0..max',
    'game g "G" expect when when x "s"',
    'game g "G" utility when when x',
    'game g "G" utility constant_sum -2 when a != b and not c @A-1 utility zero_sum when when utility x',
    'game g "G" const A: 0..9 = (1 + 2) * (3)',
    'game g "G" const A: bool = a < b < c',
    'game g "G" const S: text = "{if p then \\"a\\" else \\"b\\"} and {x}"',
    'game g "G" const S: text = "{"',
    'game g "G" const S: text = "a\\tb"',
    'game g "G" enum E { a "A" aka "B", b, } record R { f: 0..3, } shown "{f}"',
    'game g "G" rules end "E" { @A-1 "x" @B-2-C "{y}" } rules turn "T" {}',
    'game g "G" rulesx end "E" {}',
    'game g "G" rules finish "E" {}',
    'game g "G" display { cards "C" per p for x in S: x value "V": a board "G": b row "R": c }',
    'game g "G" display { cards "C": a cards = 1 }',
    'game g "G" display { grid "C": a }',
    'game g "G" display { value "V": a\n not in b }',
    'game g "G" flow { cards = 1 value = 2 board = 3 }',
])
def test_contextual_corners(text):
    agrees(text)


@FUZZ
@given(SPECS)
def test_fuzz_whole_specs_parse_the_same(text):
    agrees(text)


@FUZZ
@given(EXPRS)
def test_fuzz_expressions_parse_the_same(expr_text):
    agrees(CONTEXT.replace("size(hand)", f"size(hand) + ({expr_text})"))


def test_parse_spec_takes_the_fast_path_and_falls_back():
    good = Path(FILES[0]).read_text(encoding="utf-8")
    spec, diags = parse_spec(good, "g.rules")
    assert spec is not None and diags == []
    spec, diags = parse_spec('game g "G\n', "bad.rules")  # lark words the error
    assert spec is None and diags[0].message == "unterminated string"
