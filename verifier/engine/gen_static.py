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

from ..ir import nodes as N
from ..ir.types import BoolT, PlayerT, SeqT, SetT

UNROLL_MAX_ITEMS = 16      # one aggregate
UNROLL_MAX_PRODUCT = 64    # nested aggregates together


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
