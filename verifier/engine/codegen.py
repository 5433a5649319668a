"""Checked Program -> Python source of an engine module.

The flow is cut into *segments* that end at decision points (a player's
choice, a simultaneous secret choice, a chance draw) — the PlusCal model: one
move runs the code from one decision point to the next.  Every identifier of
the spec reaches the output only behind a fixed prefix (`V_`, `L_`, `D_`, ...)
after the type checker has validated it, and every string or number only
through `repr`, so a spec cannot smuggle code into the module.
"""
from __future__ import annotations

import contextlib
import functools
import re

from . import lib
from .gen_moves import MoveGen, reads_state_only
from .gen_static import CodeItem, StaticGen
from ..frontend.builtins import PY_BUILTINS
from ..frontend.typecheck import Program, walk
from ..ir import nodes as N
from ..ir.types import (ArrayT, BoolT, CatalogueT, EnumT, GridT, IntT, PlayerT, RatT, SeqT, SetT, StrT, Type,
                        int_bounds, is_int_like, is_number, num_bounds)

CMP_OPS = {"==": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
INT_OPS = {"+": "+", "-": "-", "*": "*", "//": "//", "%": "%"}
# operators that chain to the left without parentheses: (a + b) - c is a + b - c
CHAIN_GROUP = {"+": "sum", "-": "sum", "*": "product", "and": "and", "or": "or"}
SET_OPS = {"+": "({0}) | ({1})", "-": "({0}) & ~({1})"}
HALT = -1
INLINE_DEF_NODES = 24   # definitions this small (IR nodes) are inlined at their calls
INLINE_TEST_NODES = 48  # ... and tests (bool results) this small: inlining one skips no range check
INLINE_DEF_DEPTH = 3
INT_CODE = re.compile(r"-?\d+")
LITERAL_TEST = re.compile(r"[\d\s()=!<>-]+")  # numbers compared: foldable at compile time
SIMPLE_CODE = re.compile(r"\(?(v_\w+|s\.[A-Z]_\w+|-?\d+|True|False)\)?")
BITS_TABLE_MAX = 10     # sets over domains this small iterate through a lookup table
INLINE_DEPTH = 4        # jump threading: how many segments deep
INLINE_MAX_LINES = 30   # ... and how large a segment may be to be copied


FRESH_ITERABLE = re.compile(r"DOM_\w+|BITS_\w+\[[^\[\]]*\]|L\.bits\([^()]*(\([^()]*\)[^()]*)*\)|range\(s\.n\)")
MEMO_MIN_CODE = 2000    # straight-line definitions shorter than this (characters) are not memoised
LOOPING_CODE = re.compile(r" for |\bR_\w+\(|\bL\.(bits|min_of|max_of|arg_best|unique|mask_of)\(|\bBITS_")


def worth_memoising(body: str) -> bool:
    """Is a read-only definition's code worth a memo entry?  Yes when it loops (a
    comprehension or generator, a library call that loops, a set's members), calls a
    memoised definition, or is long; a short straight-line expression (a few comparisons,
    an unrolled aggregate over a handful of items) is cheaper to compute again than to look up."""
    return len(body) >= MEMO_MIN_CODE or LOOPING_CODE.search(body) is not None


def _lo(t: Type) -> int:
    return t.lo if isinstance(t, IntT) else 0


class Emitter:
    """Collects indented lines."""

    def __init__(self):
        self.lines: list[str] = []

    def __call__(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)


class Segment:
    def __init__(self, index: int):
        self.index = index
        self.out = Emitter()
        self.closed = False


class CodeGen(StaticGen, MoveGen):
    def __init__(self, program: Program):
        self.p = program
        self.segments: list[Segment] = []
        self.decision_cont: dict[int, int] = {}
        self.locals_stack: list[set] = [set()]
        self.flow_var_names = set(program.flow_locals)
        self.loop_snapshots: list[str] = []
        # the flow's measured loops (pre-order): loop k keeps its previous measure in s.M_k
        self.measure_keys = {id(w): k for k, w in enumerate(program.measures)}
        self.measure_locals = 0  # measured loops in move bodies keep theirs in a Python local
        self.chain_code: dict[int, tuple[str, str]] = {}  # id(Binary) -> (its chain group, its code)
        self.init_static({})
        self.init_static(self.eval_constants())

    def eval_constants(self) -> dict:
        """Run the constant tables once, so later code can unroll over their values."""
        tmp = Emitter()
        self.gen_tables(tmp)
        code = "\n".join(tmp.lines)
        namespace: dict = {"L": lib}
        namespace.update(domain_tables(code))
        exec(compile(code, "<constants>", "exec"), namespace)  # our own generated code
        return {name: namespace["C_" + name] for name in self.p.consts}

    # ----------------------------------------------------------------- names
    def where(self, node) -> str:
        s = node.span
        return repr(f"{s.path}:{s.line}:{s.col}")

    def T(self, e) -> Type:
        return self.p.type_of(e)

    def is_python_local(self, name: str) -> bool:
        return any(name in scope for scope in self.locals_stack)

    def name_ref(self, name: str) -> str:
        if self.is_python_local(name):
            return f"v_{name}"
        if name == "num_players":
            return "s.n"
        if name == "players":
            return "list(range(s.n))"
        sym = self.p.symbols.get(name)
        if name in self.flow_var_names and (sym is None or sym.kind == "local"):
            return f"s.L_{name}"
        if sym is None:
            raise KeyError(f"codegen: unresolved name {name}")
        kind = sym.kind
        if kind == "var":
            return f"s.V_{name}"
        if kind == "option":
            return f"s.O_{name}"
        if kind == "const":
            return f"C_{name}"
        if kind == "enum_item":
            return repr(sym.type.items.index(name))
        raise KeyError(f"codegen: cannot reference {kind} {name}")

    # ----------------------------------------------------------------- iteration
    def iter_code(self, e) -> str:
        """Python iterable over the items of a collection expression."""
        t = self.T(e)
        code = self.expr(e)
        if isinstance(t, SetT):
            size = t.elem.size(self.p.max_players)
            if size <= BITS_TABLE_MAX:  # a precomputed tuple per mask beats a generator
                return f"BITS_{_lo(t.elem)}_{size}".replace("-", "m") + f"[{code}]"
            return f"L.bits({code}, {_lo(t.elem)})"
        return code

    def domain_values(self, t: Type) -> str:
        if isinstance(t, PlayerT):
            return "range(s.n)"
        if isinstance(t, BoolT):
            return "(False, True)"
        return f"DOM_{_lo(t)}_{t.size(self.p.max_players)}".replace("-", "m")


    # ----------------------------------------------------------------- expressions
    def expr(self, e) -> str:
        method = getattr(self, "x_" + type(e).__name__, None)
        if method is None:
            raise NotImplementedError(f"engine has no code for expression {type(e).__name__}")
        return method(e)

    def x_IntLit(self, e):
        return repr(int(e.value))

    def x_BoolLit(self, e):
        return "True" if e.value else "False"

    def x_StrLit(self, e):
        parts = []
        for part in e.parts:
            if isinstance(part, str):
                parts.append(repr(part))
            else:
                parts.append(self.show(self.T(part), self.expr(part)))
        return "(" + " + ".join(parts) + ")" if parts else "''"

    def x_Name(self, e):
        found, value = self.bound_constant(e.name)
        if found:
            return repr(value)
        code = self.bound_code(e.name)
        if code is not None:
            return code
        t = self.p.types.get(id(e))
        if e.name in ("winners",) and not self.is_python_local(e.name):
            return "_winners(s)"
        if e.name in self.p.type_names and not self.is_python_local(e.name) \
                and e.name not in self.flow_var_names:  # a type's name: all its values
            values = self.domain_values(t.elem)
            return values if values.startswith("DOM_") else f"list({values})"
        return self.name_ref(e.name)

    def within(self, e, code: str, domain: Type) -> str:
        """`code` (the value of e), checked against an int-like domain unless its interval
        already fits: a value outside its domain is a rule error, never a wrapped index."""
        t = self.p.types.get(id(e))
        if isinstance(domain, RatT):
            return self.within_fraction(e, t, code, domain)
        if t is None or not is_int_like(t) or not is_int_like(domain):
            return code
        vlo, vhi = int_bounds(t, self.p.max_players)
        if isinstance(domain, PlayerT):
            if isinstance(t, PlayerT) or (vlo >= 0 and vhi < self.p.min_players):
                return code
            return self.range_check(code, "0", "s.n - 1", self.where(e))
        loaded = self.loaded_bounds(domain)
        if loaded is not None:  # the options as loaded bound it: checked every time
            return self.range_check(code, loaded[0], loaded[1], self.where(e))
        dlo, dhi = int_bounds(domain, self.p.max_players)
        if dlo <= vlo and vhi <= dhi:
            return code
        return self.range_check(code, str(dlo), str(dhi), self.where(e))

    @staticmethod
    def range_check(code: str, lo: str, hi: str, where: str) -> str:
        """`code` checked against lo..hi.  A plain name or field is compared in line and
        `L.check_range` is called only to raise: the check runs on every candidate of a legal
        move's enumeration, where a Python call per value costs more than the comparison."""
        call = f"L.check_range({code}, {lo}, {hi}, {where})"
        if SIMPLE_CODE.fullmatch(code):
            return f"({code} if {lo} <= {code} <= {hi} else {call})"
        return call

    @staticmethod
    def loaded_bounds(t: Type) -> tuple[str, str] | None:
        """The bounds of a range bounded by options, as code reading the loaded options."""
        if not isinstance(t, IntT) or t.loaded is None:
            return None
        ends = []
        for static, option in zip((t.lo, t.hi), t.loaded):
            if option is None:
                ends.append(str(static))
            else:
                name, offset = option
                sign = "+" if offset > 0 else "-"
                ends.append(f"s.O_{name}" if offset == 0 else f"(s.O_{name} {sign} {abs(offset)})")
        return ends[0], ends[1]

    def within_fraction(self, e, t: Type | None, code: str, domain: RatT) -> str:
        """A number checked against a fraction type's bounds unless its interval already fits."""
        if t is not None and is_number(t):
            vlo, vhi = num_bounds(t, self.p.max_players)
            if domain.lo <= vlo and vhi <= domain.hi:
                return code
        return f"L.check_range({code}, {fraction_code(domain.lo)}, {fraction_code(domain.hi)}, {self.where(e)})"

    def x_Index(self, e):
        bt = self.T(e.base)
        base, idx = self.expr(e.base), self.expr(e.index)
        if isinstance(bt, ArrayT):
            idx = self.within(e.index, idx, bt.index)
            lo = _lo(bt.index)
            return f"{base}[{idx}]" if lo == 0 else f"{base}[({idx}) - {lo}]"
        items = self.static_value(e.base)
        if isinstance(items, list):
            pos = self.static_value(e.index)
            if isinstance(pos, int) and 0 <= pos < len(items) and isinstance(items[pos], int):
                return repr(items[pos])  # both known: the item itself
            it = self.p.types.get(id(e.index))
            if it is not None and is_int_like(it):
                ilo, ihi = int_bounds(it, self.p.max_players)
                if 0 <= ilo and ihi < len(items):  # the index's type keeps it inside: no check
                    return f"{base}[{idx}]"
        return f"L.at({base}, {idx}, {self.where(e)})"

    def x_FieldAccess(self, e):
        if isinstance(e.base, N.Name) and e.base.name in self.p.enums:
            return repr(self.p.enums[e.base.name].items.index(e.name))
        bt = self.T(e.base)
        assert isinstance(bt, CatalogueT)
        return f"K_{bt.name}__{e.name}[{self.expr(e.base)}]"

    def x_Call(self, e):
        if e.func in self.p.grids:
            g = self.p.grids[e.func]
            r = self.within(e.args[0], self.expr(e.args[0]), IntT(0, g.rows - 1))
            c = self.within(e.args[1], self.expr(e.args[1]), IntT(0, g.cols - 1))
            return f"(({r}) * {g.cols} + ({c}))"
        if e.func == "score":
            score = "_score" if self.read_only else "_score_now"
            return f"{score}(s, {self.expr(e.args[0])})"
        sym = self.p.symbols.get(e.func)
        if sym is not None and sym.kind == "def":
            params = self.p.defs[e.func].params
            arg_codes = [self.within(a, self.expr(a), self.p.def_param_types.get(id(q), IntT(0, 0)))
                         for a, q in zip(e.args, params)]
            inlined = self.inline_def(self.p.defs[e.func], arg_codes)
            if inlined is not None:
                return inlined
            return f"{'R' if self.read_only else 'D'}_{e.func}(s{''.join(', ' + c for c in arg_codes)})"
        args = [self.expr(a) for a in e.args]
        types = [self.T(a) for a in e.args]
        f = e.func
        if f == "size":
            return f"({args[0]}).bit_count()" if isinstance(types[0], SetT) else f"len({args[0]})"
        if f in ("first", "last"):
            return f"L.{f}({args[0]}, {self.where(e)})"
        if f == "position":
            return f"L.position({args[0]}, {args[1]}, {self.where(e)})"
        fields = {}
        if f in ("row", "col", "neighbours", "runs", "diagonal_runs"):
            g = types[0]
            fields = {"rows": g.rows, "cols": g.cols}
        if f in ("ring_next", "ring_prev"):
            t = types[1].elem  # the ring is the open set's domain (see builtins._ring)
            args[0] = self.within(e.args[0], args[0], t)
            fields = {"lo": _lo(t), "size": t.size(self.p.max_players) if not isinstance(t, PlayerT) else "s.n"}
        return PY_BUILTINS[f].format(*args, **fields)

    def inline_def(self, d, arg_codes: list[str]) -> str | None:
        """A small definition's body in place of a call (saves a Python call per use).

        Only when the body is small, and each parameter is used once or its
        argument is a plain name or number (so no work is repeated). The body is
        compiled with the caller's local names hidden: its names mean what they
        mean in the definition.
        """
        limit = INLINE_TEST_NODES if isinstance(self.p.symbols[d.name].type, BoolT) else INLINE_DEF_NODES
        if self.inline_depth >= INLINE_DEF_DEPTH or node_count(d.body) > limit:
            return None
        uses = name_uses(d.body)
        for param, code in zip(d.params, arg_codes):
            if uses.get(param.name, 0) > 1 and not SIMPLE_CODE.fullmatch(code):
                return None
        saved = self.locals_stack, self.const_env
        self.locals_stack = [set()]
        self.const_env = [{q.name: int(code) if INT_CODE.fullmatch(code) else CodeItem(f"({code})")
                           for q, code in zip(d.params, arg_codes)}]
        self.inline_depth += 1
        try:
            body = self.expr(d.body)
            result = self.p.symbols[d.name].type
            # the result is checked as the def's own function does: a value past the declared type
            # is a rule error wherever the definition is evaluated (as the Z3 encoding has it)
            return self.within(d.body, body, result)
        finally:
            self.inline_depth -= 1
            self.locals_stack, self.const_env = saved

    def x_Unary(self, e):
        inner = self.expr(e.operand)
        return f"(not {inner})" if e.op == "not" else f"(-{inner})"

    def x_Binary(self, e):
        op = e.op
        left, right = self.expr(e.left), self.expr(e.right)
        chained = self.chain_code.pop(id(e.left), None)
        if chained is not None and chained[0] == CHAIN_GROUP.get(op) and chained[1] == left:
            # a left operand of the same left-associative chain needs no parentheses: a flat sum of
            # 400 terms is one level deep, not past the 200 parentheses Python's compiler allows
            left = left[1:-1]
        if op in ("and", "or"):
            return self.chained(e, f"({left} {op} {right})")
        if op in ("in", "notin"):
            ct = self.T(e.right)
            if isinstance(ct, SetT):
                lo = _lo(ct.elem)
                if self.within(e.left, left, ct.elem) != left:  # may lie outside the domain: not a member
                    size = ct.elem.size(self.p.max_players)
                    test = f"L.member({right}, ({left}) - {lo}, {size})"
                    return test if op == "in" else f"(not {test})"
                test = f"(({right}) >> (({left}) - {lo}) & 1)" if lo else f"(({right}) >> ({left}) & 1)"
                return f"({test} == 1)" if op == "in" else f"({test} == 0)"
            return f"({left} {'in' if op == 'in' else 'not in'} {right})"
        if op in CMP_OPS:
            return f"({left} {CMP_OPS[op]} {right})"
        lt = self.T(e.left)
        if isinstance(lt, SetT):
            return "(" + SET_OPS[op].format(left, right) + ")"
        if op == "/":  # exact: a Fraction (a divisor of 0 is a rule error with the spec location)
            return f"L.div({left}, {right}, {self.where(e)})"
        if op in ("//", "%"):
            rlo, rhi = int_bounds(self.T(e.right), self.p.max_players)
            if rlo <= 0 <= rhi:  # the divisor may be 0: a rule error with the spec location
                return f"L.{'floordiv' if op == '//' else 'mod'}({left}, {right}, {self.where(e)})"
        return self.chained(e, f"({left} {INT_OPS[op]} {right})")

    def chained(self, e, code: str) -> str:
        """Remember `code` as the parenthesised form of chain `e`, for its parent to flatten."""
        if e.op in CHAIN_GROUP:
            self.chain_code[id(e)] = (CHAIN_GROUP[e.op], code)
        return code

    def x_RangeExpr(self, e):
        lo, hi = e.lo, e.hi
        if isinstance(lo, N.IntLit) and isinstance(hi, N.IntLit):
            return f"DOM_{lo.value}_{max(0, hi.value - lo.value + 1)}".replace("-", "m")
        return f"list(range({self.expr(lo)}, ({self.expr(hi)}) + 1))"

    def x_IfExpr(self, e):
        cond = self.expr(e.cond)
        if LITERAL_TEST.fullmatch(cond):  # e.g. an inlined `if p == 0` with p = 0
            return self.expr(e.then) if eval(cond, {"__builtins__": {}}) else self.expr(e.orelse)
        return f"({self.expr(e.then)} if {cond} else {self.expr(e.orelse)})"

    def x_Aggregate(self, e):
        unrolled = self.unrolled_aggregate(e)
        if unrolled is not None:
            return unrolled
        self.locals_stack.append({e.var})
        src = self.iter_code(e.source)
        cond = f" if {self.expr(e.where)}" if e.where is not None else ""
        body = self.expr(e.body) if e.body is not None else f"v_{e.var}"
        if e.kind == "collect" and e.body is not None:  # a set holds only its domain's values
            body = self.within(e.body, body, self.T(e).elem)
        self.locals_stack.pop()
        gen = f"{body} for v_{e.var} in {src}{cond}"
        k = e.kind
        if k == "sum":
            return f"sum({gen})"
        if k == "count":
            return f"sum(1 for v_{e.var} in {src}{cond})"
        if k in ("all", "any"):
            return f"{k}({gen})"
        if k in ("min", "max"):
            return f"L.{k}_of(({gen}), {self.where(e)})"
        if k in ("argmin", "argmax"):
            return (f"L.arg_best((({body}, v_{e.var}) for v_{e.var} in {src}{cond}), {self.where(e)}, "
                    f"{k == 'argmax'})")
        if k == "collect":
            t = self.T(e)
            return f"L.mask_of(({gen}), {_lo(t.elem)})"
        if k == "table":
            g = self.T(e.source).elem
            return f"L.grid_text([{gen}], {g.cols})"
        raise NotImplementedError(k)

    def x_SeqLit(self, e):
        # An item is typed against the list's element type (which may come from the other
        # branch of an `if`), not always within it: the item is checked, as a set's member is.
        t = self.T(e)
        elem = t.elem if isinstance(t, (SeqT, ArrayT)) else None
        if elem is None:
            return "[" + ", ".join(self.expr(i) for i in e.items) + "]"
        return "[" + ", ".join(self.within(i, self.expr(i), elem) for i in e.items) + "]"

    def x_SetLit(self, e):
        t = self.T(e)
        if not e.items:
            return "0"
        lo = _lo(t.elem)
        return "(" + " | ".join(f"(1 << (({self.within(i, self.expr(i), t.elem)}) - {lo}))"
                                for i in e.items) + ")"

    # ----------------------------------------------------------------- display
    def show(self, t: Type, code: str) -> str:
        if isinstance(t, StrT):
            return code
        if isinstance(t, BoolT):
            return f"L.show_bool({code})"
        if isinstance(t, PlayerT):
            return f"L.show_player({code})"
        if isinstance(t, EnumT):
            return f"E_{t.name}[{code}]"
        if isinstance(t, GridT):
            return f"L.show_cell({code}, {t.cols})"
        if isinstance(t, CatalogueT):
            return f"S_{t.name}[{code}]"
        if isinstance(t, SetT):
            return f"L.show_set({code}, {_lo(t.elem)}, lambda v: {self.show(t.elem, 'v')})"
        if isinstance(t, (SeqT, ArrayT)):
            return f"L.show_seq({code}, lambda v: {self.show(t.elem, 'v')})"
        return f"str({code})"

    # ----------------------------------------------------------------- copies and defaults
    def copy(self, t: Type, code: str) -> str:
        """A fresh copy of a value (collections have value semantics)."""
        if isinstance(t, SeqT) or isinstance(t, ArrayT):
            inner = t.elem
            if isinstance(inner, (SeqT, ArrayT)):
                return f"[{self.copy(inner, 'x')} for x in {code}]"
            return f"list({code})"
        return code

    def needs_copy(self, e) -> bool:
        """Stored collections are copied: they may be shared state, cached or immutable
        (built-ins and domain tables return tuples); only a fresh literal needs no copy."""
        return isinstance(self.T(e), (SeqT, ArrayT)) and not isinstance(e, N.SeqLit)

    def value_code(self, e, target: Type | None = None) -> str:
        code = self.expr(e)
        t = self.T(e)
        if self.needs_copy(e):
            code = self.copy(t, code)
        if target is not None and is_int_like(target) and is_int_like(t):
            tlo, thi = int_bounds(target, self.p.max_players)
            vlo, vhi = int_bounds(t, self.p.max_players)
            if isinstance(target, PlayerT):
                if not isinstance(t, PlayerT):
                    code = f"L.check_range({code}, 0, s.n - 1, {self.where(e)})"
            elif self.loaded_bounds(target) is not None:  # bounded by the options as loaded
                lo, hi = self.loaded_bounds(target)
                code = f"L.check_range({code}, {lo}, {hi}, {self.where(e)})"
            elif vlo < tlo or vhi > thi:
                code = f"L.check_range({code}, {tlo}, {thi}, {self.where(e)})"
        return code

    def init_code(self, t: Type, init, init_type: Type | None) -> str:
        """Initial value for a variable of type t (a scalar fills arrays)."""
        if isinstance(t, ArrayT):
            n = "s.n" if isinstance(t.index, PlayerT) else str(t.index.size(self.p.max_players))
            if init is not None and init_type is not None and self.fits(t, init_type):
                return self.copy(t, self.expr(init))
            return f"[{self.init_code(t.elem, init, init_type)} for _ in range({n})]"
        if init is None:
            return self.default(t)
        code = self.expr(init)
        if self.loaded_bounds(t) is not None:  # the initial value must fit the range as loaded
            code = self.value_code(init, t)
        return self.copy(t, code) if isinstance(t, (SeqT,)) else code

    def fits(self, t: Type, vt: Type) -> bool:
        from ..ir.types import assignable
        return assignable(t, vt)

    def default(self, t: Type) -> str:
        if isinstance(t, BoolT):
            return "False"
        if isinstance(t, IntT):
            loaded = self.loaded_bounds(t)
            return loaded[0] if loaded else repr(t.lo)  # a type's first value, as documented
        if isinstance(t, SeqT):
            return "[]"
        if isinstance(t, ArrayT):
            n = "s.n" if isinstance(t.index, PlayerT) else str(t.index.size(self.p.max_players))
            return f"[{self.default(t.elem)} for _ in range({n})]"
        return "0"

    # ----------------------------------------------------------------- statements (effects)
    def target_code(self, e) -> str:
        if isinstance(e, N.Name):
            return self.name_ref(e.name)
        return self.x_Index(e) if isinstance(self.T(e.base), ArrayT) else \
            f"{self.expr(e.base)}[{self.expr(e.index)}]"

    def stmt(self, st, out: Emitter, ind: int) -> None:
        method = getattr(self, "s_" + type(st).__name__, None)
        if method is None:
            raise NotImplementedError(f"engine has no code for statement {type(st).__name__}")
        method(st, out, ind)

    def block(self, stmts, out: Emitter, ind: int) -> None:
        if not stmts:
            out(ind, "pass")
        for st in stmts:
            self.stmt(st, out, ind)

    def s_Assign(self, st, out, ind):
        tt = self.T(st.target)
        target = self.target_code(st.target)
        if st.op == "=":
            code = self.value_code(st.value, tt)
            if isinstance(st.target, N.Name) and is_int_like(tt) and code != self.value_code(st.value):
                lo, hi = self.loaded_bounds(tt) or int_bounds(tt, self.p.max_players)
                if not isinstance(tt, PlayerT):  # a variable's name says whose range the value left
                    self.checked_store(out, ind, target, self.value_code(st.value), lo, hi,
                                       f"L.check_named(_t, {lo}, {hi}, {st.target.name!r}, "
                                       f"{self.where(st.value)}{self.range_origin(st.target.name)})")
                    return
            out(ind, f"{target} = {code}")
            return
        value = self.expr(st.value)
        if isinstance(tt, SetT):
            out(ind, f"{target} {'|=' if st.op == '+=' else '&= ~'}({value})")
            return
        tlo, thi = self.loaded_bounds(tt) or int_bounds(tt, self.p.max_players)
        sign = "+" if st.op == "+=" else "-"
        if isinstance(st.target, N.Name):  # a variable's name says whose range the result left
            self.checked_store(out, ind, target, f"{target} {sign} ({value})", tlo, thi,
                               f"L.check_named(_t, {tlo}, {thi}, {st.target.name!r}, "
                               f"{self.where(st)}{self.range_origin(st.target.name)})")
            return
        self.checked_store(out, ind, target, f"{target} {sign} ({value})", tlo, thi,
                           f"L.check_range(_t, {tlo}, {thi}, {self.where(st)})")

    @staticmethod
    def checked_store(out: Emitter, ind: int, target: str, value: str, lo, hi, fail: str) -> None:
        """`target = value` after checking value against lo..hi.  The comparison is in line
        and `fail` (an L.check_* call on `_t`) runs only to raise, so the state is unchanged
        when the check fails, as with the call around the value; a counter's `+= 1` then
        costs no Python call."""
        out(ind, f"_t = {value}")
        out(ind, f"if not {lo} <= _t <= {hi}:")
        out(ind + 1, fail)
        out(ind, f"{target} = _t")

    def range_origin(self, name: str) -> str:
        """For a flow variable whose lets declare no type: why its range is what it is."""
        if name not in self.p.flow_locals or self.is_python_local(name):
            return ""
        lets = [n for n in walk(self.p.flow) if isinstance(n, N.Let) and n.name == name]
        if not lets or any(n.type is not None for n in lets):
            return ""
        why = (" (a let without a type ranges over the values bound to it; declare one: "
               f"let {name}: LO..HI = ...)")
        return f", {why!r}"

    def s_Let(self, st, out, ind):
        value = self.value_code(st.value)
        declared = self.p.types.get(id(st)) if st.type is not None else None
        if declared is not None and is_int_like(declared) and value != self.value_code(st.value, declared):
            lo, hi = self.loaded_bounds(declared) or int_bounds(declared, self.p.max_players)  # names the variable
            hi_code = "s.n - 1" if isinstance(declared, PlayerT) else str(hi)
            value = f"L.check_named({value}, {lo}, {hi_code}, {st.name!r}, {self.where(st.value)})"
        if st.name in self.flow_var_names and not self.is_python_local(st.name) and self.in_flow_code:
            out(ind, f"s.L_{st.name} = {value}")
        else:
            self.locals_stack[-1].add(st.name)
            out(ind, f"v_{st.name} = {value}")

    def s_If(self, st, out, ind):
        for i, (cond, body) in enumerate(st.branches):
            out(ind, f"{'if' if i == 0 else 'elif'} {self.expr(cond)}:")
            self.block(body.stmts, out, ind + 1)
        if st.orelse is not None:
            out(ind, "else:")
            self.block(st.orelse.stmts, out, ind + 1)

    def s_For(self, st, out, ind):
        src = self.iter_code(st.source)
        # the loop runs over a snapshot (the body may change the collection); a domain's tuple,
        # a set's members and a range are one already
        if not FRESH_ITERABLE.fullmatch(src):
            src = f"list({src})"
        if self.in_flow_code:
            out(ind, f"for s.L_{st.var} in {src}:")
            self.block(st.body.stmts, out, ind + 1)
        else:
            self.locals_stack.append({st.var})
            out(ind, f"for v_{st.var} in {src}:")
            self.block(st.body.stmts, out, ind + 1)
            self.locals_stack.pop()

    def s_While(self, st, out, ind):
        if st.decreases is None:  # bounded, so that a loop that never ends is a rule error
            out(ind, "for _ in L.FLOW_STEPS:")
            out(ind + 1, f"if not ({self.expr(st.cond)}):")
            out(ind + 2, "break")
            self.block(st.body.stmts, out, ind + 1)
            out(ind, "else:")
            out(ind + 1, f"L.loop_without_end({self.where(st)})")
            return
        if self.in_flow_code:
            prev = f"s.M_{self.measure_keys[id(st)]}"
        else:  # a move's effects run in one call: a local keeps the previous measure
            prev = f"_mp{self.measure_locals}"
            self.measure_locals += 1
        out(ind, f"{prev} = -1")
        out(ind, f"while {self.expr(st.cond)}:")
        self.measure_check(st, prev, out, ind + 1)
        self.block(st.body.stmts, out, ind + 1)
        if self.in_flow_code:
            out(ind, f"{prev} = -1")

    def measure_check(self, st, prev: str, out, ind: int) -> None:
        """At the loop head, the condition being true: the measure is >= 0 and below the
        previous iteration's (-1: none yet); then it becomes the previous one."""
        w = self.where(st.decreases)
        out(ind, f"_m = {self.expr(st.decreases)}")
        out(ind, f"if {prev} != -1 and _m >= {prev}:")
        out(ind + 1, f"raise L.RuleError(\"the loop's measure did not decrease (was %d, now %d)\" % ({prev}, _m), {w})")
        out(ind, "if _m < 0:")
        out(ind + 1, f"raise L.RuleError(\"the loop's measure is negative (%d)\" % _m, {w})")
        out(ind, f"{prev} = _m")

    def s_Say(self, st, out, ind):
        out(ind, "if s.logging:")  # the text is only computed for a logged game
        out(ind + 1, f"_said = {self.expr(st.text)}.rstrip('\\n')")
        out(ind + 1, "if _said: s.log.append(_said)  # an empty text says nothing")

    def s_End(self, st, out, ind):
        if self.checks_utility:
            out(ind, "_check_utility(s)")
        out(ind, "s.pc = -1")
        out(ind, f"return {HALT}")

    def s_CollectionEdit(self, st, out, ind):
        ct = self.T(st.target)
        target = self.target_code(st.target)
        item = self.value_code(st.item)
        w = self.where(st)
        if st.op == "append":
            out(ind, f"L.seq_append({target}, {item}, {ct.cap}, {w})")
        elif st.op == "add":
            out(ind, f"{target} |= 1 << (({self.within(st.item, item, ct.elem)}) - {_lo(ct.elem)})")
        elif isinstance(ct, SetT):
            out(ind, f"{target} = L.set_remove({target}, ({item}) - {_lo(ct.elem)}, {w})")
        else:
            out(ind, f"L.seq_remove({target}, {item}, {w})")

    # ----------------------------------------------------------------- flow segments
    in_flow_code = False
    inline_depth = 0
    read_only = False  # generating code that only reads state: memoised definitions allowed

    @contextlib.contextmanager
    def reading(self):
        saved, self.read_only = self.read_only, True
        try:
            yield
        finally:
            self.read_only = saved

    def new_segment(self) -> Segment:
        seg = Segment(len(self.segments))
        self.segments.append(seg)
        return seg

    def has_decision(self, st) -> bool:
        return any(isinstance(n, (N.Choose, N.Simultaneous, N.Chance)) for n in walk(st))

    def flow_block(self, stmts, seg: Segment, ind: int) -> tuple[Segment, int]:
        for st in stmts:
            if seg.closed:
                seg, ind = self.new_segment(), 1  # unreachable code after 'end'
            if not self.has_decision(st):
                self.stmt(st, seg.out, ind)
                if isinstance(st, N.End) and ind == 1:
                    seg.closed = True
                continue
            seg, ind = self.flow_decision_stmt(st, seg, ind)
        return seg, ind

    def jump(self, seg: Segment, ind: int, target: Segment) -> None:
        seg.out(ind, f"return {target.index}")
        if ind == 1:
            seg.closed = True

    def flow_decision_stmt(self, st, seg: Segment, ind: int) -> tuple[Segment, int]:
        if isinstance(st, (N.Choose, N.Simultaneous, N.Chance)):
            info = self.p.decision_of(st)
            seg.out(ind, f"s.pc = {info.index}")
            if isinstance(st, N.Choose):
                who = self.expr(st.player)
                if not isinstance(self.T(st.player), PlayerT):  # a Player value is in range already
                    who = f"L.check_range({who}, 0, s.n - 1, {self.where(st.player)})"
                seg.out(ind, f"s.cur = {who}")
            elif isinstance(st, N.Simultaneous):
                seg.out(ind, "s.cur = -2")
            else:
                seg.out(ind, "s.cur = -1")
            seg.out(ind, f"return {HALT}")
            if ind == 1:
                seg.closed = True
            cont = self.new_segment()
            self.decision_cont[info.index] = cont.index
            return cont, 1
        after = self.new_segment()
        if isinstance(st, N.If):
            for i, (cond, body) in enumerate(st.branches):
                branch = self.new_segment()
                seg.out(ind, f"{'if' if i == 0 else 'elif'} {self.expr(cond)}:")
                seg.out(ind + 1, f"return {branch.index}")
                end, eind = self.flow_block(body.stmts, branch, 1)
                if not end.closed:
                    self.jump(end, eind, after)
            if st.orelse is not None:
                branch = self.new_segment()
                self.jump(seg, ind, branch)
                end, eind = self.flow_block(st.orelse.stmts, branch, 1)
                if not end.closed:
                    self.jump(end, eind, after)
            else:
                self.jump(seg, ind, after)
            return after, 1
        if isinstance(st, N.While):
            head, body = self.new_segment(), self.new_segment()
            prev = f"s.M_{self.measure_keys[id(st)]}" if st.decreases is not None else None
            if prev:
                seg.out(ind, f"{prev} = -1")
            self.jump(seg, ind, head)
            head.out(1, f"if {self.expr(st.cond)}:")
            if prev:
                self.measure_check(st, prev, head.out, 2)
            head.out(2, f"return {body.index}")
            if prev:
                head.out(1, f"{prev} = -1")
            return self.close_loop(head, body, st.body.stmts, after)
        if isinstance(st, N.For):
            head, body = self.new_segment(), self.new_segment()
            key = f"{st.var}__{len(self.loop_snapshots)}"  # "__" never occurs in a spec name
            self.loop_snapshots.append(key)
            seg.out(ind, f"s.I_{key} = list({self.iter_code(st.source)})")
            seg.out(ind, f"s.J_{key} = 0")
            self.jump(seg, ind, head)
            head.out(1, f"if s.J_{key} < len(s.I_{key}):")
            head.out(2, f"s.L_{st.var} = s.I_{key}[s.J_{key}]")
            head.out(2, f"s.J_{key} += 1")
            head.out(2, f"return {body.index}")
            return self.close_loop(head, body, st.body.stmts, after)
        raise NotImplementedError(f"decision inside {type(st).__name__}")

    def close_loop(self, head: Segment, body: Segment, stmts, after: Segment) -> tuple[Segment, int]:
        """The loop head falls through to `after`; the body runs and jumps back to the head."""
        self.jump(head, 1, after)
        end, eind = self.flow_block(stmts, body, 1)
        if not end.closed:
            self.jump(end, eind, head)
        return after, 1

    # ----------------------------------------------------------------- module
    def generate(self) -> str:
        p = self.p
        out = Emitter()
        out(0, f"# Generated by rulebook from {p.spec.path!r}. Do not edit: regenerate with `rulebook compile`.")
        # the title only ever appears inside repr() on one line: a comment or a literal, never code
        out(0, f"# Engine for {p.title!r}")
        out(0, "from verifier.engine import lib as L")
        out(0, "")
        out(0, f"GAME_NAME = {p.name!r}")
        out(0, f"GAME_TITLE = {p.title!r}")
        out(0, f"MIN_PLAYERS, MAX_PLAYERS = {p.min_players}, {p.max_players}")
        out(0, f"NUM_ACTIONS = {max(p.num_actions, 1)}")
        out(0, f"MAX_CHANCE_OUTCOMES = {p.max_chance_outcomes}")
        out(0, "OPTIONS_END_MARKER")
        self.gen_tables(out)
        self.gen_state_class(out)
        self.gen_defs(out)
        self.gen_flow(out)
        self.gen_decisions(out)
        self.gen_outcome(out)
        self.gen_observation(out)
        self.gen_invariants(out)
        self.gen_examples(out)
        tables = [table_code(name) for name in sorted(domain_tables("\n".join(out.lines)))]
        at = out.lines.index("OPTIONS_END_MARKER")
        out.lines[at:at + 1] = tables
        return "\n".join(out.lines) + "\n"

    def gen_tables(self, out: Emitter) -> None:
        p = self.p
        for name, t in p.enums.items():
            out(0, f"E_{name} = {t.displays!r}")
            out(0, f"N_{name} = {t.items!r}")
        for name, (t, decl) in p.catalogues.items():
            for fname, ftype in t.record.fields:
                values = []
                for item in decl.items:
                    arg = next(a for a in item.args if a.name == fname)
                    values.append(self.expr(arg.value))
                out(0, f"K_{name}__{fname} = ({', '.join(values)}{',' if len(values) == 1 else ''})")
            shown = t.record.shown or (t.record.name + "#{_index}")
            # identical components (two copies of a card) get "#1", "#2": displays stay unique,
            # as action strings must be
            out(0, f"S_{name} = L.numbered_copies(tuple(" + self.shown_code(t, shown) + f" for i in range({t.count})))")
        for name, d in p.consts.items():
            out(0, f"C_{name} = {self.expr(d.value)}")
        out(0, f"OPTIONS = {{{', '.join(f'{n!r}: {self.expr(d.default)}' for n, d in p.options.items())}}}")
        out(0, "OPTION_FINITE = {" + ", ".join(
            f"{n!r}: {self.expr(d.finite)}" for n, d in p.options.items() if d.finite is not None) + "}")
        out(0, "OPTION_KINDS = {" + ", ".join(
            f"{n!r}: {self.option_kind(p.option_types[n])!r}" for n in p.options) + "}")

    def option_kind(self, t: Type):
        if isinstance(t, BoolT):
            return ("bool",)
        if isinstance(t, EnumT):
            return ("enum",) + t.items
        lo, hi = int_bounds(t, self.p.max_players)
        return ("int", lo, hi)

    def shown_code(self, t: CatalogueT, template: str) -> str:
        parts, i = [], 0
        while i < len(template):
            j = template.find("{", i)
            if j < 0:
                parts.append(repr(template[i:]))
                break
            if j > i:
                parts.append(repr(template[i:j]))
            k = template.find("}", j)
            field = template[j + 1:k] if k > j else ""
            ftype = t.record.field(field)
            if field == "_index":
                parts.append("str(i)")
            elif ftype is None:
                parts.append(repr("{" + field + "}"))
            else:
                parts.append(self.show(ftype, f"K_{t.name}__{field}[i]"))
            i = (k + 1) if k > j else len(template)
        return "(" + " + ".join(parts or ["''"]) + ")"

    def state_fields(self) -> list[tuple[str, Type | None]]:
        p = self.p
        fields: list[tuple[str, Type | None]] = []
        fields += [(f"O_{n}", p.option_types[n]) for n in p.options]
        fields += [(f"V_{n}", p.var_types[n]) for n in p.vars]
        fields += [(f"L_{n}", t) for n, t in p.flow_locals.items()]
        return fields

    def gen_state_class(self, out: Emitter) -> None:
        fields = self.state_fields()
        # loop snapshots are known only after the flow is compiled: compile it first
        self.compile_flow()
        extra = [f"I_{k}" for k in self.loop_snapshots] + [f"J_{k}" for k in self.loop_snapshots]
        extra += [f"M_{k}" for k in range(len(self.p.measures))]
        names = ["n", "pc", "cur", "logging", "log", "memo"] + [f for f, _ in fields] + extra
        out(0, "")
        out(0, "")
        out(0, "class State:")
        out(0, f"    __slots__ = {tuple(names)!r}")
        out(0, "")
        out(0, "")
        out(0, "def new_state(n, options):")
        out(1, "s = State()")
        out(1, "s.n = n")
        out(1, "s.pc = -3")
        out(1, "s.cur = -1")
        out(1, "s.logging = False")
        out(1, "s.log = []")
        out(1, "s.memo = {}")
        for name in self.p.options:
            out(1, f"s.O_{name} = options[{name!r}]")
        for name, d in self.p.vars.items():
            t = self.p.var_types[name]
            init_t = self.p.types.get(id(d.init)) if d.init is not None else None
            out(1, f"s.V_{name} = {self.init_code(t, d.init, init_t)}")
        for name, t in self.p.flow_locals.items():
            out(1, f"s.L_{name} = {self.default(t)}")
        for k in self.loop_snapshots:
            out(1, f"s.I_{k} = []")
            out(1, f"s.J_{k} = 0")
        for k in range(len(self.p.measures)):
            out(1, f"s.M_{k} = -1")
        out(1, "return s")
        out(0, "")
        out(0, "")
        out(0, "def clone(s):")
        out(1, "t = State.__new__(State)")
        out(1, "t.n, t.pc, t.cur, t.logging, t.log = s.n, s.pc, s.cur, s.logging, list(s.log)")
        out(1, "t.memo = {}")
        for f, t in fields:
            out(1, f"t.{f} = {self.copy(t, 's.' + f)}")
        for k in self.loop_snapshots:
            out(1, f"t.I_{k} = list(s.I_{k})")
            out(1, f"t.J_{k} = s.J_{k}")
        for k in range(len(self.p.measures)):
            out(1, f"t.M_{k} = s.M_{k}")
        out(1, "return t")
        out(0, "")
        out(0, "")
        out(0, "def fields(s):")
        out(1, '"""Every state variable by its spec name (for summaries and tests)."""')
        items = [f"{f[2:]!r}: s.{f}" for f, _ in fields if f.startswith("V_")]
        out(1, "return {" + ", ".join(items) + "}")

    def gen_defs(self, out: Emitter) -> None:
        """Each definition twice: `D_` for code that changes state, and `R_`, memoised,
        for read-only code (legal moves, scores, observations, invariants).

        Definitions are pure, so within one read-only evaluation a call with the same
        arguments has the same result; the runtime gives each of its calls a fresh
        memo (`s.memo`), and code that changes state never reads it.  A definition whose
        code is short and straight-line is not memoised (`worth_memoising`): the memo's
        key tuple and dictionary look-up cost more than computing it again.
        """
        for k, (name, d) in enumerate(self.p.defs.items()):
            params = "".join(f", v_{q.name}" for q in d.params)
            self.locals_stack.append({q.name for q in d.params})
            out(0, "")
            out(0, "")
            result = self.p.symbols[name].type
            out(0, f"def D_{name}(s{params}):")
            self.def_prologue(d, out)
            out(1, f"return {self.within(d.body, self.expr(d.body), result)}")
            out(0, "")
            out(0, "")
            out(0, f"def R_{name}(s{params}):")
            self.def_prologue(d, out)
            with self.reading():
                body = self.within(d.body, self.expr(d.body), result)
            hashable = all(self.p.symbols_param_type(q).is_domain for q in d.params)
            if hashable and worth_memoising(body):
                key = f"({k}{''.join(f', v_{q.name}' for q in d.params)})" if d.params else str(k)
                out(1, f"r = s.memo.get({key}, L.MISSING)")
                out(1, "if r is L.MISSING:")
                out(2, f"r = s.memo[{key}] = {body}")
                out(1, "return r")
            else:
                out(1, f"return {body}")
            self.locals_stack.pop()

    def def_prologue(self, d, out: Emitter) -> None:
        """Code at the entry of a definition's functions: none (the rule-usage engine,
        `gen_usage.py`, records the call there)."""

    def compile_flow(self) -> None:
        if self.segments:
            return
        start = self.new_segment()
        self.in_flow_code = True
        end, ind = self.flow_block(self.p.flow.body.stmts if self.p.flow else (), start, 1)
        if not end.closed:
            if self.checks_utility:
                end.out(ind, "_check_utility(s)")
            end.out(ind, "s.pc = -1")
            end.out(ind, f"return {HALT}")
            end.closed = ind == 1
        self.in_flow_code = False

    def segment_lines(self, seg: Segment) -> list[str]:
        lines = list(seg.out.lines)
        if not seg.closed:
            if self.checks_utility:
                lines.append("    _check_utility(s)")
            lines += ["    s.pc = -1", f"    return {HALT}"]
        return lines

    def threaded_lines(self, index: int, chain: frozenset, depth: int) -> list[str]:
        """A segment's code with jumps to small segments replaced by their code.

        Saves a Python call per jump on the hot path (typically: effects, then
        a loop head, then the next decision point).  Loops stay jumps: a
        segment is never inlined into itself.
        """
        out = []
        for line in self.segment_lines(self.segments[index]):
            m = re.fullmatch(r"( +)return (\d+)", line)
            if m and depth < INLINE_DEPTH:
                k = int(m.group(2))
                if k not in chain and len(self.segments[k].out.lines) <= INLINE_MAX_LINES:
                    pad = " " * (len(m.group(1)) - 4)
                    out += [pad + x for x in self.threaded_lines(k, chain | {k}, depth + 1)]
                    continue
            out.append(line)
        return out

    def gen_flow(self, out: Emitter) -> None:
        for seg in self.segments:
            out(0, "")
            out(0, "")
            out(0, f"def _g{seg.index}(s):")
            out.lines.extend(self.threaded_lines(seg.index, frozenset({seg.index}), 0))
        out(0, "")
        out(0, f"SEGMENTS = ({', '.join(f'_g{s.index}' for s in self.segments)},)")

    @reads_state_only
    def gen_outcome(self, out: Emitter) -> None:
        o = self.p.outcome
        out(0, "")
        out(0, "")
        out(0, f"def _score(s, v_{o.score.var}):")
        self.locals_stack.append({o.score.var})
        out(1, f"return {self.expr(o.score.expr)}")
        self.locals_stack.pop()
        out(0, "")
        out(0, "")
        out(0, "def _score_now(s, p):")
        out(1, '"""score(p) used while the state changes: a fresh memo for each use."""')
        out(1, "s.memo = {}")
        out(1, "return _score(s, p)")
        out(0, "")
        out(0, "")
        out(0, "def _rank_key(s, p):")
        keys = ["_score(s, p)"]
        for tb in o.tiebreaks:
            self.locals_stack.append({tb.var})
            code = self.expr(tb.expr)
            self.locals_stack.pop()
            keys.append(f"(lambda v_{tb.var}: {'' if tb.direction == 'higher' else '-'}({code}))(p)")
        out(1, f"return ({', '.join(keys)},)")
        out(0, "")
        out(0, "")
        out(0, "def _winners(s):")
        if o.wins is not None:
            self.locals_stack.append({o.wins.var})
            out(1, f"outright = L.mask_of((v_{o.wins.var} for v_{o.wins.var} in range(s.n) "
                   f"if {self.expr(o.wins.cond)}), 0)")
            self.locals_stack.pop()
            out(1, "if outright:")
            out(2, "return outright")
        out(1, "keys = [_rank_key(s, p) for p in range(s.n)]")
        out(1, "best = max(keys)")
        out(1, "return L.mask_of((p for p in range(s.n) if keys[p] == best), 0)")
        out(0, "")
        out(0, "")
        out(0, "def _returns(s):")
        if o.returns is not None:
            self.locals_stack.append({o.returns.var})
            # exact values (ints or Fractions): the runtime gives OpenSpiel floats
            out(1, f"return [{self.expr(o.returns.expr)} for v_{o.returns.var} in range(s.n)]")
            self.locals_stack.pop()
        else:
            out(1, "return [_score(s, p) for p in range(s.n)]")
        out(0, "")
        out(0, f"TIEBREAKS = {tuple((tb.direction) for tb in o.tiebreaks)!r}")
        self.gen_utility(out)

    @property
    def checks_utility(self) -> bool:
        """Some `utility` declaration asks for a check where the flow ends (general_sum asks none)."""
        return any(d.kind != "general_sum" for d in self.p.utilities)

    def gen_utility(self, out: Emitter) -> None:
        """`utility(n, options)`: (kind, total) of the `utility` declaration that applies to a game
        as loaded; `_check_utility(s)`, called where the flow ends, checks the returns against it
        (a violation is a rule error at that declaration: well_formed)."""
        decls = self.p.utilities
        if all(d.when is None for d in decls):
            # the same for every game (at most one declaration, as the type checker sees to): a
            # constant, and a check without a choice, as fast as before `when` existed
            u = decls[0] if decls else None
            out(0, f"UTILITY = {(u.kind, u.total) if u is not None else ('general_sum', None)!r}")
            out(0, "")
            out(0, "")
            out(0, "def utility(n, options):")
            out(1, "return UTILITY")
            if self.checks_utility:
                out(0, "")
                out(0, "")
                out(0, "def _check_utility(s):")
                out(1, "s.memo = {}  # the returns read the finished state afresh")
                out(1, f"L.check_utility({u.kind!r}, {u.total!r}, _returns(s), {self.where(u)})")
            return
        out(0, "UTILITY = None  # it depends on the options: utility(n, options)")
        out(0, "")
        out(0, "")
        out(0, "def _utility_of(s):")
        out(1, '"""The first declaration whose `when` holds (they read options and num_players only)."""')
        out(1, "s.memo = {}")
        for d in decls:
            chosen = f"return ({d.kind!r}, {d.total!r}, {self.where(d)})"
            if d.when is None:
                out(1, chosen)
                break
            out(1, f"if {self.expr(d.when)}:")
            out(2, chosen)
        else:
            out(1, "return ('general_sum', None, None)")
        out(0, "")
        out(0, "")
        out(0, "def utility(n, options):")
        out(1, "return _utility_of(new_state(n, options))[:2]")
        out(0, "")
        out(0, "")
        out(0, "def _check_utility(s):")
        out(1, "kind, total, where = _utility_of(s)")
        out(1, "if kind != 'general_sum':")
        out(2, "s.memo = {}  # the returns read the finished state afresh")
        out(2, "L.check_utility(kind, total, _returns(s), where)")

    @reads_state_only
    def gen_observation(self, out: Emitter) -> None:
        out(0, "")
        out(0, "")
        out(0, "def observe(s, P):")
        out(1, '"""What player P may see: public state, and their own private state."""')
        out(1, "lines = []")
        for name, d in self.p.vars.items():
            t = self.p.var_types[name]
            if d.visibility == "public":
                out(1, f"lines.append({name + ': '!r} + {self.show(t, 's.V_' + name)})")
            elif d.visibility == "private" and isinstance(t, ArrayT):
                out(1, f"if 0 <= P < s.n: lines.append({name + ' (yours): '!r} + "
                       f"{self.show(t.elem, 's.V_' + name + '[P]')})")
        out(1, "return '\\n'.join(lines)")
        out(0, "")
        out(0, "")
        out(0, "def show_state(s):")
        out(1, '"""Everything, for logs and debugging."""')
        out(1, "lines = []")
        for name in self.p.vars:
            t = self.p.var_types[name]
            out(1, f"lines.append({name + ': '!r} + {self.show(t, 's.V_' + name)})")
        out(1, "return '\\n'.join(lines)")

    @reads_state_only
    def gen_invariants(self, out: Emitter) -> None:
        names = []
        for i, inv in enumerate(self.p.invariants):
            out(0, "")
            out(0, "")
            out(0, f"def _inv{i}(s):")
            points = self.p.invariant_points.get(inv.name)
            if points:  # claimed only where the game waits at these decision points
                out(1, f"if s.pc not in {tuple(points)!r}:")
                out(2, "return True")
            out(1, f"return {self.expr(inv.cond)}")
            names.append(f"({inv.name!r}, {inv.sentence!r}, _inv{i}, {self.where(inv)})")
        out(0, "")
        out(0, "INVARIANTS = (" + "".join(f"\n    {n}," for n in names) + "\n)")

    def gen_examples(self, out: Emitter) -> None:
        entries = []
        for i, ex in enumerate(self.p.examples):
            players = self.p.min_players
            for item in ex.items:
                if isinstance(item, N.ExampleGiven) and isinstance(item.target, N.Name) \
                        and item.target.name == "num_players" and isinstance(item.value, N.IntLit):
                    players = item.value.value
            out(0, "")
            out(0, "")
            out(0, f"def _ex{i}(s):")
            out(1, "failed = []")
            for item in ex.items:
                if isinstance(item, N.ExampleGiven):
                    if isinstance(item.target, N.Name) and item.target.name == "num_players":
                        continue
                    tt = self.T(item.target)
                    out(1, f"{self.target_code(item.target)} = {self.value_code(item.value, tt)}")
                else:
                    out(1, f"if not {self.expr(item.cond)}: failed.append({self.where(item)})")
            out(1, "return failed")
            entries.append(f"({ex.name!r}, {ex.sentence!r}, {players}, _ex{i}, {self.where(ex)})")
        out(0, "")
        out(0, "EXAMPLES = (" + "".join(f"\n    {e}," for e in entries) + "\n)")


def fraction_code(q) -> str:
    """A whole number or a Fraction as generated code."""
    if isinstance(q, int) or q.denominator == 1:
        return str(int(q))
    return f"L.frac({q.numerator}, {q.denominator})"


def _table_bounds(name: str) -> tuple[int, int]:
    lo, size = name.split("_", 1)[1].replace("m", "-").split("_")
    return int(lo), int(size)


def table_code(name: str) -> str:
    """Source of a lookup table: `DOM_<lo>_<size>` (a domain's values) or
    `BITS_<lo>_<size>` (for each set bitmask, its values in order)."""
    lo, size = _table_bounds(name)
    if name.startswith("DOM_"):
        return f"{name} = tuple(range({lo}, {lo + size}))"
    return (f"{name} = tuple(tuple(i + {lo} for i in range({size}) if m >> i & 1) "
            f"for m in range({1 << size}))")


def node_count(node) -> int:
    return sum(1 for _ in walk(node))


def name_uses(node, weight: int = 1, uses: dict | None = None) -> dict:
    """How often each name is evaluated; a use inside an aggregate counts as many."""
    uses = {} if uses is None else uses
    if isinstance(node, N.Name):
        uses[node.name] = uses.get(node.name, 0) + weight
    elif isinstance(node, N.Aggregate):
        name_uses(node.source, weight, uses)
        for part in (node.where, node.body):
            if part is not None:
                name_uses(part, weight * 2, uses)
    elif isinstance(node, N.Node):
        for child in node.children():
            name_uses(child, weight, uses)
    return uses


def domain_tables(code: str) -> dict:
    """Every lookup table that code mentions, built (for running code at compile time)."""
    out: dict = {}
    for name in set(re.findall(r"\b(?:DOM|BITS)_m?\d+_\d+", code)):
        exec(table_code(name), {}, out)
    return out


def generate(program: Program) -> str:
    return CodeGen(program).generate()
