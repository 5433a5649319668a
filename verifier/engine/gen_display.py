"""A spec's `display` items as Python: what to draw of a state, loaded next to an engine.

Each item becomes `_disp<i>(s, v_<p>)`, compiled by the engine's own code generator (so a
label reads the state exactly as the engine does) and returning plain data that
`verifier/docs/svg.py` draws:

| kind    | returns |
|---------|---------|
| `board` | `(rows, cols, [label of each cell, row by row])` |
| `row`   | `[(caption, label), ...]`: an array's index and value, or each `x` and its label |
| `cards` | `[face, ...]`: the items of a collection, or each `x`'s face |
| `value` | `label` |

Labels are the engine's display texts (enum display names, `shown` templates, numbers).
Like the slacks (`gen_slack.py`), the source is loaded by `load_displays`; the engine
itself never carries it.
"""
from __future__ import annotations

import re

from ..frontend.typecheck import Program
from ..ir.types import ArrayT, GridT, element_type
from ..ir.types import SetT
from .codegen import CodeGen, _lo, table_code


class DisplayGen(CodeGen):
    def item_code(self, item) -> list[str]:
        scope = {item.player} if item.player else set()
        self.locals_stack.append(scope)
        try:
            if item.source is not None:
                self.locals_stack.append({item.var})
                label = self.show(self.T(item.expr), self.expr(item.expr))
                self.locals_stack.pop()
                src_t = self.T(item.source)
                caption = self.show(element_type(src_t), f"v_{item.var}")
                loop = f"for v_{item.var} in {self.iter_code(item.source)}"
                if item.kind == "board":
                    grid = element_type(src_t)
                    return [f"return ({grid.rows}, {grid.cols}, [{label} {loop}])"]
                if item.kind == "row":
                    return [f"return [({caption}, {label}) {loop}]"]
                return [f"return [{label} {loop}]"]
            t = self.T(item.expr)
            code = self.expr(item.expr)
            if item.kind == "value":
                return [f"return {self.show(t, code)}"]
            elem = element_type(t)
            items = f"[{self.show(elem, 'x')} for x in {self.iter_value(t, 'value')}]"
            if item.kind == "board" and isinstance(t, ArrayT) and isinstance(t.index, GridT):
                return [f"value = {code}", f"return ({t.index.rows}, {t.index.cols}, {items})"]
            if item.kind == "row" and isinstance(t, ArrayT):
                index = self.domain_values(t.index)
                return [f"value = {code}",
                        f"return [({self.show(t.index, 'i')}, {self.show(elem, 'x')}) "
                        f"for i, x in zip({index}, value)]"]
            return [f"value = {code}", f"return {items}"]
        finally:
            self.locals_stack.pop()

    def iter_value(self, t, name: str) -> str:
        if isinstance(t, SetT):
            return f"L.bits({name}, {_lo(t.elem)})"
        return name

    def display_source(self) -> str:
        lines = []
        entries = []
        with self.reading():
            for i, item in enumerate(self.p.displays):
                param = f"v_{item.player}" if item.player else "_p"
                lines += ["", "", f"def _disp{i}(s, {param}):",
                          "    s.memo = {}  # memoised definitions: valid for this evaluation only"]
                lines += ["    " + line for line in self.item_code(item)]
                entries.append(f"({item.kind!r}, {item.title!r}, {item.player is not None}, _disp{i}, "
                               f"{self.where(item)})")
        lines += ["", "DISPLAYS = (" + "".join(f"\n    {e}," for e in entries) + "\n)"]
        return "\n".join(lines) + "\n"


def display_source(program: Program) -> str:
    return DisplayGen(program).display_source()


def load_displays(program: Program, module) -> tuple:
    """`(kind, title, per_player, fn(state, player), where)` per display item, run against the
    loaded engine `module`."""
    source = display_source(program)
    namespace = dict(module.__dict__)  # the engine's definitions, constants and tables
    for name in set(re.findall(r"\b(?:DOM|BITS)_m?\d+_\d+", source)) - set(namespace):
        exec(table_code(name), namespace)  # a lookup table the engine itself never needed
    exec(compile(source, f"<display {program.name}>", "exec"), namespace)  # our own code, as the engine's
    return namespace["DISPLAYS"]


def draw_data(displays: tuple, state) -> list[dict]:
    """What each item shows in a state (engine state `s`, n players): a list of
    `{kind, title, player, data}` or `{..., error}` when the state cannot show it."""
    out = []
    for kind, title, per_player, fn, where in displays:
        for p in (range(state.n) if per_player else [None]):
            entry = {"kind": kind, "title": title, "player": p, "where": where}
            try:
                entry["data"] = fn(state, p)
            except Exception as exc:  # a picture of a state the rules do not cover: said, not fatal
                entry["error"] = str(exc) or type(exc).__name__
            out.append(entry)
    return out
