"""`encode.with_values`: a choice's value substituted into a query's formulas all at once.

The formulas are substituted as the arguments of one conjunction and split again (one
traversal for the subterms they share). Each must come back as that formula substituted on its
own, in its place: a conjunction among them is not flattened into the others, a formula given
twice is there twice, and one the value makes trivially true is not dropped.
"""
from __future__ import annotations

from verifier.smt.encode import CTX, num, with_values, z3


def test_each_formula_comes_back_substituted_in_its_place():
    a, b, d = z3.Bools("a b d", ctx=CTX)
    c, x = z3.Int("c", ctx=CTX), z3.Int("x", ctx=CTX)
    shared = z3.If(c == 2, x + 1, x - 1)
    formulas = [z3.And(a, b), d, z3.And(a, z3.And(b, d)), c == 3, shared <= 4, shared <= 4,
                z3.Or(a, shared >= c), z3.BoolVal(True, CTX)]
    out = with_values(formulas, [(c, num(3))])
    assert len(out) == len(formulas) + 1
    for got, f in zip(out, formulas):
        assert got.eq(z3.substitute(f, (c, num(3))))
    assert out[-1].eq(c == 3)  # the equation that fixes the value comes last
    # one formula (no conjunction built) and none
    assert [str(t) for t in with_values([c <= 1], [(c, num(0))])] == ["0 <= 1", "c == 0"]
    assert [str(t) for t in with_values([], [(c, num(0))])] == ["c == 0"]


def test_a_query_substituted_so_has_the_answer_of_its_formulas_substituted_one_by_one():
    c, x, y = z3.Ints("c x y", ctx=CTX)
    formulas = [x == z3.If(c == 1, y + 2, y), y >= 0, x <= 1]
    for value, expected in ((0, z3.sat), (1, z3.unsat)):
        sol = z3.Solver(ctx=CTX)
        sol.add(*with_values(formulas, [(c, num(value))]))
        assert sol.check() == expected
