"""Z3 terms as a plain Python table, for the analyses that walk terms many times.

The abstract interpreter (`engines/intervals.py`) and the slicing of queries walk the
transition relation's terms over and over; z3py's objects cost microseconds per node visit.
`Dag` reads each node once through the C API and keeps, per node id:

- `op`: one of the names in `OPS` (an operator the analyses know), `"num"` (an integer
  numeral, its value in `value`), `"leaf"` (an uninterpreted constant: a state leaf, a move
  parameter, a chance outcome) or `"?"` (anything else: an analysis must treat it as unknown);
- `args`: the argument ids;
- `is_bool`: whether the node is a formula.

Node ids are Z3's own (hash-consed: the same term, the same id); the table keeps the terms it
read alive so that no id is reused while it exists.
"""
from __future__ import annotations

from .encode import CTX, z3
from .encode import _app_arg, _app_decl, _ast_id, _ast_kind, _decl_kind, _num_args, _quantifier_body

__all__ = ["Dag", "OPS", "abstract_apart", "applications", "free_constants", "named_constants"]

_CTX = CTX.ref()
OPS = {
    z3.Z3_OP_ITE: "ite", z3.Z3_OP_AND: "and", z3.Z3_OP_OR: "or", z3.Z3_OP_NOT: "not", z3.Z3_OP_EQ: "eq",
    z3.Z3_OP_LE: "le", z3.Z3_OP_LT: "lt", z3.Z3_OP_GE: "ge", z3.Z3_OP_GT: "gt", z3.Z3_OP_ADD: "add",
    z3.Z3_OP_SUB: "sub", z3.Z3_OP_MUL: "mul", z3.Z3_OP_UMINUS: "neg", z3.Z3_OP_IDIV: "idiv",
    z3.Z3_OP_MOD: "mod", z3.Z3_OP_TRUE: "true", z3.Z3_OP_FALSE: "false", z3.Z3_OP_IMPLIES: "implies",
    z3.Z3_OP_DISTINCT: "distinct", z3.Z3_OP_XOR: "xor", z3.Z3_OP_ANUM: "num",
    z3.Z3_OP_UNINTERPRETED: "leaf",
}
_BOOL_SORT, _INT_SORT, _REAL_SORT = z3.Z3_BOOL_SORT, z3.Z3_INT_SORT, z3.Z3_REAL_SORT
_APP, _QUANTIFIER, _UNINTERPRETED = z3.Z3_APP_AST, z3.Z3_QUANTIFIER_AST, z3.Z3_OP_UNINTERPRETED


def _sort(a) -> int:
    return z3.Z3_get_sort_kind(_CTX, z3.Z3_get_sort(_CTX, a))
_to_expr = z3.z3._to_expr_ref  # a raw AST back to a z3py term


def applications(terms: list):
    """Each application node (not a numeral, quantifier or bound variable) of some terms once,
    as (raw AST, its id, its raw arguments): a DAG walk through the C API (z3py's `children()`
    builds a Python object per argument, which made such a walk a minute of a verification run
    on the biggest spec)."""
    get_id, kind_of, app = z3.Z3_get_ast_id, z3.Z3_get_ast_kind, z3.Z3_APP_AST
    seen = set()
    stack = [t.as_ast() for t in terms if z3.is_expr(t)]
    while stack:
        a = stack.pop()
        i = get_id(_CTX, a)
        if i in seen:
            continue
        seen.add(i)
        if kind_of(_CTX, a) != app:
            continue
        args = [z3.Z3_get_app_arg(_CTX, a, k) for k in range(z3.Z3_get_app_num_args(_CTX, a))]
        yield a, i, args
        stack.extend(args)


def named_constants(terms: list, prefixes: tuple) -> list:
    """The uninterpreted constants of some terms whose names start with one of `prefixes`, each
    once, in the order a depth-first, left-to-right walk of the terms (in their order) meets them
    first: through the C API (`canonical_parts` of the induction walked each loop step's query
    so through z3py, 94 ms a query and 23 s of a seed game's claims)."""
    get_id, kind_of, num_args, arg = _ast_id, _ast_kind, _num_args, _app_arg
    app_decl, decl_kind, decl_name = _app_decl, _decl_kind, z3.Z3_get_decl_name
    seen: set = set()
    out: list = []
    stack = [t.as_ast() for t in reversed(terms)]
    while stack:
        a = stack.pop()
        i = get_id(_CTX, a)
        if i in seen:
            continue
        seen.add(i)
        kind = kind_of(_CTX, a)
        if kind == _QUANTIFIER:
            stack.append(_quantifier_body(_CTX, a))
            continue
        if kind != _APP:
            continue
        n = num_args(_CTX, a)
        if n == 0:
            decl = app_decl(_CTX, a)
            if decl_kind(_CTX, decl) == _UNINTERPRETED and \
                    z3.Z3_get_symbol_string(_CTX, decl_name(_CTX, decl)).startswith(prefixes):
                out.append(_to_expr(a, CTX))
            continue
        stack.extend(arg(_CTX, a, k) for k in range(n - 1, -1, -1))
    return out


def free_constants(terms: list) -> list:
    """The uninterpreted constants of some terms, each once."""
    return [_to_expr(a, CTX) for a, _, args in applications(terms)
            if not args and z3.Z3_get_decl_kind(_CTX, z3.Z3_get_app_decl(_CTX, a)) == z3.Z3_OP_UNINTERPRETED]


class Dag:
    """Nodes of every term added so far (`add`), by Z3 id."""

    def __init__(self):
        self.op: dict[int, str] = {}
        self.args: dict[int, tuple] = {}
        self.value: dict[int, int] = {}
        self.is_bool: dict[int, bool] = {}
        self.term: dict[int, object] = {}  # leaves only: id -> z3 term (to build formulas back)
        self._alive: list = []
        self._support: dict[int, int] = {}
        self._bits: dict[int, int] = {}
        self._leaf_of_bit: list[int] = []
        self.free: dict[int, object] = {}  # node id -> the constant `abstract_apart` puts for it
        # node id -> its raw AST, for each operand of an `==` with a numeral (alive with its root):
        # the terms `comparisons` finds are given back as z3 terms (`term_of`)
        self._compared: dict[int, object] = {}
        # a fresh constant's id -> the term it stands for in a query (`stand_in`), and their bits
        self.stands_for: dict[int, object] = {}
        self.stand_in_bits = 0

    def add(self, term) -> int:
        """Read `term` (a z3 expression) and everything below it; return its id."""
        self._alive.append(term)
        root = term.as_ast()
        stack = [root]
        get_id, kind_of = z3.Z3_get_ast_id, z3.Z3_get_ast_kind
        while stack:
            a = stack.pop()
            i = get_id(_CTX, a)
            if i in self.op:
                continue
            if kind_of(_CTX, a) != z3.Z3_APP_AST:
                if kind_of(_CTX, a) == z3.Z3_NUMERAL_AST and _sort(a) == _INT_SORT:
                    self.op[i], self.args[i] = "num", ()
                    self.value[i] = int(z3.Z3_get_numeral_string(_CTX, a))
                    self.is_bool[i] = False
                else:
                    self.op[i], self.args[i], self.is_bool[i] = "?", (), False
                continue
            decl = z3.Z3_get_app_decl(_CTX, a)
            op = OPS.get(z3.Z3_get_decl_kind(_CTX, decl), "?")
            n = z3.Z3_get_app_num_args(_CTX, a)
            children = [z3.Z3_get_app_arg(_CTX, a, k) for k in range(n)]
            sort = _sort(a)
            # an exact fraction (a Real term) is unknown to the analyses, which reason on integers;
            # its arguments stay, so a slice still sees the leaves it reads
            self.op[i] = op if sort != _REAL_SORT else "?"
            self.args[i] = tuple(get_id(_CTX, c) for c in children)
            self.is_bool[i] = sort == _BOOL_SORT
            if op == "leaf":
                self.term[i] = _to_expr(a, CTX)
            elif op == "eq" and n == 2:
                x, y = children
                if kind_of(_CTX, y) == z3.Z3_NUMERAL_AST:
                    x, y = y, x
                if kind_of(_CTX, x) == z3.Z3_NUMERAL_AST:
                    self._compared[get_id(_CTX, y)] = y
            stack.extend(children)
        return get_id(_CTX, root)

    def stand_in(self, constant, term) -> None:
        """Record that the fresh `constant` stands for `term` in the queries it is put in (a
        subterm left free, a loop's value read as fresh): two queries that read the same terms
        through different constants are then known for the same query
        (`symmetry.SeatRotations`)."""
        i = self.add(constant)
        self.stands_for[i] = term
        self._alive.append(term)
        self.stand_in_bits |= self.support(i)

    def comparisons(self, roots: list[int]) -> dict[int, set[int]]:
        """Each node below `roots` (ids, added) that an `==` compares with an integer numeral ->
        the values it is compared with. A walk of the table: the same walk through the C API
        (`applications`) took 4 s over a seed game's 37 moves, once per claim's first pass."""
        op, args, value = self.op, self.args, self.value
        out: dict[int, set[int]] = {}
        seen: set[int] = set()
        stack = list(roots)
        while stack:
            i = stack.pop()
            if i in seen:
                continue
            seen.add(i)
            below = args[i]
            if not below:
                continue
            if op[i] == "eq" and len(below) == 2:
                x, y = below
                if op[y] == "num":
                    x, y = y, x
                if op[x] == "num" and op[y] != "num":
                    out.setdefault(y, set()).add(value[x])
            stack.extend(below)
        return out

    def term_of(self, i: int):
        """The z3 term of node i: a leaf, or a node `comparisons` names."""
        return self.term[i] if i in self.term else _to_expr(self._compared[i], CTX)

    def support(self, i: int) -> int:
        """The leaves (uninterpreted constants) node i reads, as a bit set over `leaf_bit`,
        memoised per node (a DAG walk: children before parents, shared nodes once)."""
        memo = self._support
        if i in memo:
            return memo[i]
        stack = [(i, False)]
        while stack:
            x, expanded = stack.pop()
            if x in memo:
                continue
            if expanded:
                if self.op[x] == "leaf":
                    memo[x] = 1 << self.leaf_bit(x)
                else:
                    bits = 0
                    for c in self.args[x]:
                        bits |= memo[c]
                    memo[x] = bits
                continue
            stack.append((x, True))
            stack.extend((c, False) for c in self.args[x] if c not in memo)
        return memo[i]

    def leaf_bit(self, leaf: int) -> int:
        """A small number per leaf, the leaf's bit in `support` sets."""
        bit = self._bits.get(leaf)
        if bit is None:
            bit = self._bits[leaf] = len(self._bits)
            self._leaf_of_bit.append(leaf)
        return bit

    def leaves_of(self, bits: int) -> list[int]:
        """The leaf ids of a `support` bit set."""
        # one pass over the binary digits: shifting a bit set of thousands of bits one bit at a
        # time is quadratic
        digits = bin(bits)[:1:-1]
        of_bit = self._leaf_of_bit
        out, k = [], digits.find("1")
        while k >= 0:
            out.append(of_bit[k])
            k = digits.find("1", k + 1)
        return out


def abstract_apart(dag: Dag, term, keep: int):
    """`term` with every largest subterm (a formula or an integer term, not a leaf or a
    numeral) that reads no leaf of the bit set `keep` replaced by a fresh constant of its sort
    (the same subterm, the same constant: Z3's terms are hash-consed); None when there is none.
    Every value `term` takes, the result takes for some values of the constants, so a formula
    valid with the constants free is valid as it was. `term` must have been `add`ed; the node
    must stay alive (it is: `dag` keeps what it read), as its id keys its constant."""
    get_id, kind_of = z3.Z3_get_ast_id, z3.Z3_get_ast_kind
    pairs, seen = [], set()
    root = term.as_ast()
    if not dag.support(get_id(_CTX, root)) & keep:
        return None  # all of it would be free: nothing is left to show
    stack = [root]
    while stack:
        a = stack.pop()
        i = get_id(_CTX, a)
        if i in seen or kind_of(_CTX, a) != z3.Z3_APP_AST:
            continue
        seen.add(i)
        op = dag.op.get(i)
        if op in (None, "leaf", "num", "true", "false"):
            continue
        bits = dag.support(i)
        if bits and not bits & keep and _sort(a) in (_BOOL_SORT, _INT_SORT):
            x = _to_expr(a, CTX)
            free = dag.free.get(i)
            if free is None:
                # the same constant for the same part in every query: a query asked again at
                # another loop position of a move is then the same formula (`Induction._solve`)
                free = dag.free[i] = z3.FreshConst(x.sort(), "free")
                dag.stand_in(free, x)
            pairs.append((x, free))
            continue
        stack.extend(z3.Z3_get_app_arg(_CTX, a, k) for k in range(z3.Z3_get_app_num_args(_CTX, a)))
    if not pairs:
        return None
    return z3.substitute(term, *pairs)
