"""The type checker's rules for what a spec says about itself rather than about play: its
rulebook (`rules` sections and the `@ID` citations that point into them) and its pictures
(`display` items).

A mixin of `TypeChecker` (it uses `err`, `warn`, `suggest`, `declare`, `infer`, `scopes`).

- Every cited ID must be declared by a rule (error `unknown-rule`, with a did-you-mean);
  a declared rule that nothing cites is a warning (`uncited-rule`), an error under
  `rulebook check --strict`; an ID declared twice is an error (`duplicate`).
- Sections come in the rulebook's order, `SECTION_KINDS` (warning `section-order`, an error
  under `--strict`): the documentation site lists them in the order written.
- A display item's expression has the shape its kind draws (a board needs a grid type, cards need
  a collection); `per p` binds `p` to a player, `for x in S` binds `x` to each item of `S`.
"""
from __future__ import annotations

from ..ir import nodes as N
from ..ir.types import ArrayT, BoolT, GridT, PlayerT, element_type

#: the codes `rulebook check --strict` turns from warnings into errors
STRICT_CODES = ("uncited-rule", "section-order")


def cited_ids(spec: N.Spec):
    """(Cite, node) for every citation in the spec, in no particular order."""
    stack = [spec]
    while stack:  # iterative: a spec's nesting is the user's
        node = stack.pop()
        for cite in getattr(node, "cites", ()) or ():
            yield cite, node
        stack.extend(node.children())


class DocsChecks:
    def check_rules(self) -> dict:
        """Declared rules by ID; diagnostics for duplicates, order, unknown and uncited IDs."""
        declared: dict[str, N.RuleDecl] = {}
        previous = None
        for section in self.spec.of_kind(N.RulesDecl):
            if previous is not None and \
                    N.SECTION_KINDS.index(section.kind) < N.SECTION_KINDS.index(previous.kind):
                self.warn(section.span, f"a '{section.kind}' section after a '{previous.kind}' section",
                          "sections follow the rulebook's order: " + ", ".join(N.SECTION_KINDS),
                          f"the '{previous.kind}' section is at {previous.span}", code="section-order")
            previous = section
            for rule in section.rules:
                if rule.id in declared:
                    self.err(rule.span, f"rule @{rule.id} is already declared",
                             f"first declared at {declared[rule.id].span}", code="duplicate")
                else:
                    declared[rule.id] = rule
        cited: set[str] = set()
        unknown = []
        for cite, node in cited_ids(self.spec):
            cited.add(str(cite))
            if cite not in declared:
                unknown.append((getattr(cite, "span", None) or node.span, cite))
        for span, cite in sorted(unknown, key=lambda x: (x[0].line, x[0].col)):
            if span.line == 0:  # a citation built without a place (IR made by hand)
                span = self.spec.span
            hint = self.suggest("@" + cite, ["@" + k for k in declared]) if declared else \
                "the spec declares no rules: add a `rules` section"
            self.err(span, f"no rule declares @{cite}", hint,
                     'declare it in a `rules` section: @ID "what the rule says"', code="unknown-rule")
        for rid, rule in declared.items():
            if rid not in cited:
                self.warn(rule.span, f"rule @{rid} is declared but no clause cites it",
                          "cite it where the spec implements it, e.g. `require ... @" + rid + "`",
                          code="uncited-rule")
        return declared

    def check_display(self) -> list:
        """The display items, checked; only one `display` declaration is allowed."""
        displays = self.spec.of_kind(N.DisplayDecl)
        for extra in displays[1:]:
            self.err(extra.span, "only one 'display' declaration is allowed", f"the first is at {displays[0].span}",
                     code="duplicate")
        items = list(displays[0].items) if displays else []
        for item in items:
            self.check_display_item(item)
        return items

    def check_display_item(self, item: N.DisplayItem) -> None:
        if item.kind not in N.DISPLAY_KINDS:
            close = self.suggest(item.kind, N.DISPLAY_KINDS)
            self.err(item.span, f"unknown display kind {item.kind!r}: expected one of {', '.join(N.DISPLAY_KINDS)}",
                     *([close] if close.startswith("did you") else []), code="display")
        self.scopes.append({})
        try:
            if item.player is not None:
                self.declare(self.symbol("param", item.player, PlayerT(), item), item.span)
            elem = None
            if item.source is not None:
                if item.kind == "value":
                    self.err(item.span, "a 'value' shows one value: it takes no 'for'", code="display")
                src = self.infer(item.source)
                elem = element_type(src) if src is not None else None
                if src is not None and elem is None:
                    self.err(item.source.span, f"expected a collection to go through, got {src}", code="display")
                self.declare(self.symbol("local", item.var, elem or BoolT(), item), item.span)
            t = self.infer(item.expr)
        finally:
            self.scopes.pop()
        if item.kind == "board":
            grid = elem if item.source is not None else (t.index if isinstance(t, ArrayT) else None)
            if item.source is not None and elem is not None and not isinstance(elem, GridT):
                self.err(item.source.span, f"a 'board' goes through the cells of a grid type, not {elem}",
                         code="display")
            elif item.source is None and t is not None and not isinstance(grid, GridT):
                self.err(item.expr.span, f"a 'board' draws an array over a grid type, not {t}",
                         "or write `board \"Title\" for c in GRID: label`", code="display")
        elif item.kind in ("row", "cards") and item.source is None and t is not None:
            if (not isinstance(t, ArrayT)) if item.kind == "row" else element_type(t) is None:
                what = "an array" if item.kind == "row" else "a set, a sequence or an array"
                self.err(item.expr.span, f"a '{item.kind}' draws {what}, not {t}",
                         f"or write `{item.kind} \"Title\" for x in S: label`", code="display")
