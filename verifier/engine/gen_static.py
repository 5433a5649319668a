"""Compile-time knowledge for code generation: constant values and unrolling.

Aggregates over small collections known when the spec is compiled (a
constant, a domain, a literal range or list) are unrolled into straight-line
Python — `all(l in LINES: ...)` becomes `(... and ...)` with each item
substituted — because a Python generator costs far more per item than an
inline comparison. Nothing here changes meaning: an unrolled aggregate
evaluates the same terms in the same order, and `and`/`or` short-circuit as
`all`/`any` do.
"""
from __future__ import annotations

from ..frontend.typecheck import walk
from ..ir import nodes as N
from ..ir.types import BoolT, IntT, PlayerT, SeqT, SetT

UNROLL_MAX_ITEMS = 16      # one aggregate
UNROLL_MAX_PRODUCT = 64    # nested aggregates together


def free_names(e) -> set:
    """The names an expression reads (its own bound variables included: a superset)."""
    return {n.name for n in walk(e) if isinstance(n, N.Name)}


class CodeItem:
    """An item of a list literal whose value is only known at run time: its code."""

    def __init__(self, code: str):
        self.code = code


class StaticGen:
    """Mixin of CodeGen: expects `expr`, `T`, `p`, `is_python_local`."""

    def init_static(self, const_values: dict) -> None:
        self.const_values = const_values
        self.const_env: list[dict] = []
        self.unroll_product = 1

    def bound_constant(self, name: str):
        """(True, value) if `name` is bound to a compile-time value by an unrolled aggregate."""
        for env in reversed(self.const_env):
            if name in env:
                value = env[name]
                return (False, None) if isinstance(value, CodeItem) else (True, value)
        return False, None

    def bound_code(self, name: str) -> str | None:
        """The code an unrolled aggregate binds `name` to (an item of a list literal)."""
        for env in reversed(self.const_env):
            if name in env:
                value = env[name]
                return value.code if isinstance(value, CodeItem) else None
        return None

    def static_value(self, e):
        """The value of an integer/list expression if known at compile time."""
        if isinstance(e, N.IntLit):
            return e.value
        if isinstance(e, N.Name):
            found, value = self.bound_constant(e.name)
            if found:
                return value
            if self.is_python_local(e.name):
                return None
            sym = self.p.symbols.get(e.name)
            if sym is not None and sym.kind == "const" and e.name in self.const_values:
                return self.const_values[e.name]
            if sym is not None and sym.kind == "enum_item":
                return sym.type.items.index(e.name)
        if isinstance(e, N.SeqLit):
            items = [self.static_value(i) for i in e.items]
            return None if any(i is None for i in items) else items
        return None

    def static_items(self, e):
        """The items of a collection expression, if known at compile time."""
        t = self.p.types.get(id(e))
        if isinstance(e, N.RangeExpr):
            lo, hi = self.static_value(e.lo), self.static_value(e.hi)
            return list(range(lo, hi + 1)) if isinstance(lo, int) and isinstance(hi, int) else None
        if isinstance(e, N.Name) and isinstance(t, SeqT) and e.name in self.p.type_names \
                and not self.is_python_local(e.name) and not self.bound_constant(e.name)[0] \
                and e.name not in self.flow_var_names:
            elem = t.elem  # a type's name: all its values
            if isinstance(elem, (PlayerT, BoolT)):
                return None
            lo = getattr(elem, "lo", 0) or 0
            return list(range(lo, lo + elem.size(self.p.max_players)))
        if isinstance(e, N.SeqLit) and self.static_value(e) is None:
            return [CodeItem(f"({self.expr(item)})") for item in e.items]  # known length, items computed
        value = self.static_value(e)
        if isinstance(value, list):
            return value
        if isinstance(value, int) and isinstance(t, SetT):
            lo = getattr(t.elem, "lo", 0) or 0
            return [i + lo for i in range(value.bit_length()) if (value >> i) & 1]
        return None

    def unrolled_aggregate(self, e) -> str | None:
        """Straight-line code for an aggregate over static items, or None."""
        if e.kind not in ("all", "any", "sum", "count", "min", "max", "collect"):
            return None
        if e.kind in ("min", "max") and e.where is not None:
            return None
        items = self.static_items(e.source)
        if items is None or not items or len(items) > UNROLL_MAX_ITEMS \
                or self.unroll_product * len(items) > UNROLL_MAX_PRODUCT:
            return None
        if e.kind in ("all", "any") and e.where is None and e.body is not None:
            hoisted = self.hoisted_aggregate(e, items)
            if hoisted is not None:
                return hoisted
        self.unroll_product *= len(items)
        parts = []
        try:
            for value in items:
                self.const_env.append({e.var: value})
                try:
                    cond = self.expr(e.where) if e.where is not None else None
                    body = self.expr(e.body) if e.body is not None else self.expr(N.Name(e.var))
                    if e.kind == "collect" and e.body is not None:  # a set holds only its domain's values
                        body = self.within(e.body, body, self.T(e).elem)
                finally:
                    self.const_env.pop()
                parts.append((cond, body))
        finally:
            self.unroll_product //= len(items)
        k = e.kind
        if k == "all":
            return "(" + " and ".join(f"((not {c}) or {b})" if c else b for c, b in parts) + ")"
        if k == "any":
            return "(" + " or ".join(f"({c} and {b})" if c else b for c, b in parts) + ")"
        if k == "sum":
            return "(" + " + ".join(f"({b} if {c} else 0)" if c else b for c, b in parts) + ")"
        if k == "count":
            if all(c is None for c, _ in parts):
                return repr(len(parts))
            return "(" + " + ".join(f"(1 if {c} else 0)" if c else "1" for c, _ in parts) + ")"
        if k == "collect":
            lo = getattr(self.T(e).elem, "lo", 0) or 0
            bit = "(1 << (({}) - {}))".format
            return "(" + " | ".join(f"({bit(b, lo)} if {c} else 0)" if c else bit(b, lo)
                                    for c, b in parts) + ")"
        bodies = [b for _, b in parts]
        return bodies[0] if len(bodies) == 1 else f"{k}({', '.join(bodies)})"

    def hoisted_aggregate(self, e, items: list) -> str | None:
        """`all`/`any` over static items whose body starts with conjuncts that do not read
        the aggregate's variable: `any(d in Dir: own(c) and free(c, d))` becomes
        `own(c) and (free(c, 0) or free(c, 1) ...)`.  Exactly the same result and errors:
        the items are not empty, and each item's body would evaluate that prefix first."""
        self.unroll_product *= len(items)
        per_item = []
        try:
            for value in items:
                self.const_env.append({e.var: value})
                try:
                    per_item.append(self.conjuncts(e.body, {e.var: {e.var}}, 0))
                finally:
                    self.const_env.pop()
        finally:
            self.unroll_product //= len(items)
        first = per_item[0]
        k = 0
        while k < len(first) and not first[k][1] and all(len(p) > k and p[k][0] == first[k][0] for p in per_item):
            k += 1
        if k == 0:
            return None
        rests = ["(" + " and ".join(code for code, _ in p[k:]) + ")" for p in per_item if len(p) > k]
        prefix = " and ".join(code for code, _ in first[:k])
        if e.kind == "any" and len(rests) < len(per_item):  # an item is the prefix alone: any = prefix
            return f"({prefix})"
        if not rests:
            return f"({prefix})"
        joined = (" or " if e.kind == "any" else " and ").join(rests)
        return f"({prefix} and ({joined}))"

    def splits_def(self, d) -> bool:
        """May `conjuncts` put a definition's body in place of its call?  (The rule-usage
        engine says no for a definition it records: the call is where it records it.)"""
        return True

    def conjuncts(self, e, deps_of: dict, depth: int) -> list[tuple[str, set]]:
        """(code, deps) for each conjunct of `e`, in order; `deps_of` maps a name to the
        names (move parameters, an aggregate's variable) its value depends on.  The body of a
        definition `e` calls is split too when it is an `and` chain without bound variables
        and every argument fits its parameter (the call would check none)."""
        if isinstance(e, N.Binary) and e.op == "and":
            return self.conjuncts(e.left, deps_of, depth) + self.conjuncts(e.right, deps_of, depth)
        d = self.p.defs.get(e.func) if isinstance(e, N.Call) else None
        sym = self.p.symbols.get(e.func) if d is not None else None
        if d is not None and sym.kind == "def" and depth < 3 and self.splits_def(d) and isinstance(d.body, N.Binary) \
                and d.body.op == "and" and not any(isinstance(n, N.Aggregate) for n in walk(d.body)):
            codes, arg_deps = [], {}
            for a, q in zip(e.args, d.params):
                code = self.expr(a)
                if self.within(a, code, self.p.def_param_types.get(id(q), IntT(0, 0))) != code:
                    break  # the call checks this argument's range: keep the call
                codes.append(code)
                arg_deps[q.name] = set().union(*(deps_of.get(n, set()) for n in free_names(a)))
            else:
                saved = self.locals_stack, self.const_env
                self.locals_stack = [set()]
                self.const_env = [{q.name: int(c) if c.lstrip("-").isdigit() else CodeItem(f"({c})")
                                   for q, c in zip(d.params, codes)}]
                try:
                    return self.conjuncts(d.body, arg_deps, depth + 1)
                finally:
                    self.locals_stack, self.const_env = saved
        return [(self.expr(e), set().union(*(deps_of.get(n, set()) for n in free_names(e))))]
