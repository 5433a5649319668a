"""`smt/dag.py`: the term table and the walks for free and named constants read terms as z3py would."""
from __future__ import annotations

import z3

from verifier.smt.dag import Dag, free_constants, named_constants
from verifier.smt.encode import CTX


def _z3py_free_constants(term) -> set:
    """The reference: z3py's own objects, one node at a time."""
    seen, out, stack = set(), set(), [term]
    while stack:
        e = stack.pop()
        if e.get_id() in seen:
            continue
        seen.add(e.get_id())
        if z3.is_const(e) and e.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            out.add(e.get_id())
        elif z3.is_app(e):
            stack.extend(e.children())
    return out


def test_free_constants_are_the_uninterpreted_constants_once_each():
    x, y = z3.Ints("x y", ctx=CTX)
    b = z3.Bool("b", ctx=CTX)
    f = z3.Function("f", z3.IntSort(CTX), z3.IntSort(CTX))
    bound = z3.Int("bound", ctx=CTX)
    shared = x + y
    # shared subterms, an uninterpreted function (not a constant; its argument is), a quantifier
    # (what it binds is not free; the walk does not enter it, as z3py's `is_app` does not), numerals
    term = z3.And(shared > 3, z3.If(b, shared, f(y)) == 7, z3.ForAll([bound], bound + x >= bound))
    found = free_constants([term, x * 2])
    assert sorted(str(c) for c in found) == ["b", "x", "y"]
    assert {c.get_id() for c in found} == _z3py_free_constants(term)
    assert len(found) == len({c.get_id() for c in found})


def test_the_table_reads_leaves_numbers_and_operators():
    x, y = z3.Ints("x y", ctx=CTX)
    dag = Dag()
    i = dag.add(z3.If(x < 3, x + 2, y))
    assert dag.op[i] == "ite"
    cond, yes, no = dag.args[i]
    assert dag.op[cond] == "lt" and dag.op[yes] == "add" and dag.op[no] == "leaf"
    assert sorted(str(dag.term[leaf]) for leaf in dag.leaves_of(dag.support(i))) == ["x", "y"]
    assert [dag.value[a] for a in dag.args[yes] if dag.op[a] == "num"] == [2]


def test_comparisons_name_what_an_equality_compares_with_numerals_and_give_its_term_back():
    x, y = z3.Ints("x y", ctx=CTX)
    b = z3.Bool("b", ctx=CTX)
    picked = z3.If(b, x, y)  # not a leaf: its term comes back from the table all the same
    dag = Dag()
    root = dag.add(z3.And(picked == 3, 5 == picked, x == y, z3.Or(y == 1, y + 1 == 2), x == z3.IntVal(4, CTX) + 0))
    found = dag.comparisons([root])
    by_text = {str(dag.term_of(i)): values for i, values in found.items()}
    # `x == y` compares no numeral; `x == 4 + 0` is no numeral either (a sum)
    assert by_text == {"If(b, x, y)": {3, 5}, "y": {1}, "y + 1": {2}}
    assert dag.term_of(next(i for i in found if str(dag.term_of(i)) == "If(b, x, y)")).eq(picked)
    # only below the roots asked about
    other = dag.add(x == 9)
    assert dag.comparisons([other]) == {dag.add(x): {9}}


def test_named_constants_come_in_the_order_a_walk_meets_them_first():
    s1, s2, s3 = z3.FreshInt("step", CTX), z3.FreshInt("step", CTX), z3.FreshInt("step", CTX)
    f1 = z3.FreshBool("free", CTX)
    x = z3.Int("x", ctx=CTX)
    bound = z3.Int("bound", ctx=CTX)
    shared = s2 + x  # met first inside the first term, then again: listed once
    terms = [z3.And(shared > 1, z3.If(f1, s1, shared) == 3), s1 + s2 >= 0,
             z3.ForAll([bound], bound + s1 >= s3)]  # (a quantifier's body is walked too)
    found = named_constants(terms, ("step!", "free!"))
    # depth first, left to right, as the z3py walk `canonical_parts` made before (the reference
    # walk is kept in `benchmarks/canonical_walk.py`)
    assert [c.get_id() for c in found] == [s2.get_id(), f1.get_id(), s1.get_id(), s3.get_id()]
    assert named_constants(terms, ("free!",))[0].eq(f1) and len(named_constants(terms, ("free!",))) == 1
    assert named_constants([x + 1], ("step!",)) == []
