"""Expressions of a spec compiled to Python functions that read an engine's state.

Queries need to evaluate pieces of a spec that the engine never evaluates on their own:
one term of a score, the value of a definition inside it, a state variable shown as the
spec shows it. `Probe` compiles them with the engine's own code generator (so they read
the state exactly as the engine does) and loads them next to the engine module, as
`engine/gen_slack.py` does for slacks; the engine itself never carries them.
"""
from __future__ import annotations

import re

from ..engine.codegen import CodeGen, table_code
from ..engine.runtime import Engine
from ..ir.types import ArrayT, IntT, SetT, Type

_TABLES = re.compile(r"\b(?:DOM|BITS)_m?\d+_\d+")


class Probe:
    """Compiles IR expressions of `engine.program` into `f(s, *values)` functions."""

    def __init__(self, engine: Engine):
        self.engine = engine
        self.gen = CodeGen(engine.program)
        self.namespace = dict(engine.module.__dict__)  # the engine's definitions, constants and tables
        self.functions: dict = {}
        self.showers: dict = {}

    def _load(self, source: str, name: str):
        for table in set(_TABLES.findall(source)) - set(self.namespace):
            exec(table_code(table), self.namespace)  # a lookup table the engine itself never needed
        exec(compile(source, f"<query {self.engine.program.name}>", "exec"), self.namespace)  # our own code
        return self.namespace[name]

    def function(self, expr, params: tuple = ()):
        """`f(s, *values)`: the value of `expr` with `params` (spec names) bound to `values`."""
        key = (id(expr), tuple(params))
        fn = self.functions.get(key)
        if fn is None:
            with self.gen.reading():
                self.gen.locals_stack.append(set(params))
                try:
                    code = self.gen.expr(expr)
                finally:
                    self.gen.locals_stack.pop()
            name = f"_probe{len(self.functions)}"
            args = "".join(f", v_{p}" for p in params)
            source = f"def {name}(s{args}):\n    s.memo = {{}}\n    return {code}\n"
            fn = self.functions[key] = self._load(source, name)
        return fn

    def shower(self, t: Type):
        """`show(value)`: a value of type `t` as the engine's logs show it."""
        key = repr(t)
        fn = self.showers.get(key)
        if fn is None:
            name = f"_show{len(self.showers)}"
            with self.gen.reading():
                code = self.gen.show(t, "v")
            fn = self.showers[key] = self._load(f"def {name}(v):\n    return {code}\n", name)
        return fn

    def show(self, t: Type, value) -> str:
        return self.shower(t)(value)


def index_value(t: Type, i: int) -> int:
    """The domain value at position `i` of an array indexed by `t` (ranges start at their low end)."""
    return i + t.lo if isinstance(t, IntT) else i


def changes(probe: Probe, name: str, t: Type, before, after, out: list) -> None:
    """The differences between two values of `t`, entry by entry, appended to `out` as
    `{"what", "before", "after"}` (sets as members added and removed)."""
    if before == after:
        return
    if isinstance(t, ArrayT) and isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        for i, (b, a) in enumerate(zip(before, after)):
            if b != a:
                index = probe.show(t.index, index_value(t.index, i))
                changes(probe, f"{name}[{index}]", t.elem, b, a, out)
        return
    entry = {"what": name, "before": probe.show(t, before), "after": probe.show(t, after)}
    if isinstance(t, SetT):
        lo = t.elem.lo if isinstance(t.elem, IntT) else 0
        added = [probe.show(t.elem, lo + i) for i in range(max(before, after).bit_length()) if (after >> i) & 1
                 and not (before >> i) & 1]
        removed = [probe.show(t.elem, lo + i) for i in range(max(before, after).bit_length()) if (before >> i) & 1
                   and not (after >> i) & 1]
        entry["added"], entry["removed"] = added, removed
    out.append(entry)


def state_changes(probe: Probe, before, after) -> list[dict]:
    """Every declared variable that differs between two raw engine states."""
    out: list[dict] = []
    program = probe.engine.program
    for name, t in program.var_types.items():
        changes(probe, name, t, getattr(before, f"V_{name}"), getattr(after, f"V_{name}"), out)
    return out


def describe_change(c: dict) -> str:
    if "added" in c and (c["added"] or c["removed"]):
        parts = ([f"+ {', '.join(c['added'])}"] if c["added"] else []) + \
                ([f"- {', '.join(c['removed'])}"] if c["removed"] else [])
        return f"{c['what']}: {'; '.join(parts)}"
    return f"{c['what']}: {c['before']} -> {c['after']}"


__all__ = ["Probe", "state_changes", "describe_change", "index_value"]
