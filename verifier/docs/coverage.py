"""Which clauses cite which rule: the links between a spec's rulebook and its formal text.

A *clause* is any node that carries citations (a requirement, a move, an effect, an
invariant, an option, a declaration); it is described by a word for its kind, its name
where it has one, the named declaration or move it sits in, and its place. `rulebook
coverage` prints this per rule; the documentation site links both ways with it.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..ir import nodes as N

# How a clause is named: node class -> (word, attribute holding its name, or None)
CLAUSE_WORDS: dict[type, tuple[str, str | None]] = {
    N.GameDecl: ("game", "name"), N.PlayersDecl: ("players", None), N.OptionDecl: ("option", "name"),
    N.EnumDecl: ("enum", "name"), N.RecordDecl: ("record", "name"), N.TypeDecl: ("type", "name"),
    N.GridDecl: ("grid", "name"), N.ConstDecl: ("const", "name"), N.CatalogueDecl: ("catalogue", "name"),
    N.VarDecl: ("var", "name"), N.DefDecl: ("def", "name"), N.ScoreClause: ("score", None),
    N.TiebreakClause: ("tiebreak", None), N.WinsClause: ("wins", None), N.InvariantDecl: ("invariant", "name"),
    N.ExampleDecl: ("example", "name"), N.ExpectDecl: ("expect", "name"), N.Move: ("move", "name"),
    N.Require: ("require", "label"), N.Choose: ("choose", None), N.Simultaneous: ("simultaneous", None),
    N.Chance: ("chance", "var"), N.Assign: ("assignment", None), N.Let: ("let", "name"), N.For: ("for", "var"),
    N.While: ("while", None), N.End: ("end", None), N.Say: ("say", None), N.CollectionEdit: ("edit", "op"),
    N.UtilityDecl: ("utility", "kind"),
}
# nodes that name the context of the clauses inside them
CONTEXTS = (N.DefDecl, N.Move, N.InvariantDecl, N.ExampleDecl, N.FlowDecl, N.OutcomeDecl)


@dataclass(frozen=True)
class Clause:
    kind: str  # a word: "require", "invariant", "var", ...
    name: str | None  # the clause's own name, where it has one
    context: str | None  # the move, definition, invariant... it sits in ("flow" for the flow's statements)
    node: object  # the IR node
    span: object

    def label(self) -> str:
        own = f"{self.kind} {self.name}" if self.name else self.kind
        return f"{own} (in {self.context})" if self.context and self.context != own else own

    def to_json(self) -> dict:
        s = self.span
        return {"kind": self.kind, "name": self.name, "context": self.context, "where": str(s),
                "line": s.line, "end_line": s.end_line}


def _context_name(node) -> str:
    if isinstance(node, N.FlowDecl):
        return "flow"
    if isinstance(node, N.OutcomeDecl):
        return "outcome"
    word, attr = CLAUSE_WORDS[type(node)]
    return f"{word} {getattr(node, attr)}"


def clauses_by_rule(spec: N.Spec) -> dict[str, list[Clause]]:
    """Rule ID -> the clauses citing it, in source order (declared or not)."""
    found: dict[str, list[Clause]] = {}
    stack: list = [(spec, None)]
    while stack:  # iterative: the nesting is the user's
        node, context = stack.pop()
        if isinstance(node, CONTEXTS):
            context = _context_name(node)
        cites = getattr(node, "cites", ()) or ()
        if cites:
            word, attr = CLAUSE_WORDS.get(type(node), (type(node).__name__.lower(), None))
            clause = Clause(word, getattr(node, attr) if attr else None, context, node, node.span)
            for cite in dict.fromkeys(cites):
                found.setdefault(str(cite), []).append(clause)
        stack.extend((child, context) for child in node.children())
    for clauses in found.values():
        clauses.sort(key=lambda c: (c.span.line, c.span.col))
    return found


def coverage(program) -> dict:
    """The report of `rulebook coverage`: per declared rule (section order), its clauses."""
    spec = program.spec
    by_rule = clauses_by_rule(spec)
    rules = []
    for section in spec.of_kind(N.RulesDecl):
        for rule in section.rules:
            clauses = by_rule.get(rule.id, [])
            rules.append({"id": rule.id, "section": section.title, "kind": section.kind, "text": rule.text,
                          "where": str(rule.span), "cited_by": [c.to_json() for c in clauses]})
    declared = {r["id"] for r in rules}
    return {"spec": spec.path, "game": program.name, "title": program.title, "rules": rules,
            "declared": len(rules), "cited": sum(1 for r in rules if r["cited_by"]),
            "uncited": [r["id"] for r in rules if not r["cited_by"]],
            "undeclared": sorted(k for k in by_rule if k not in declared)}


def format_coverage(report: dict, width: int = 100) -> str:
    lines = [f"{report['title']} ({report['spec']}): {report['declared']} rules, {report['cited']} cited"
             + (f", uncited: {' '.join(report['uncited'])}" if report["uncited"] else "")]
    section = None
    for r in report["rules"]:
        if r["section"] != section:
            section = r["section"]
            lines.append(f"  {section}")
        text = r["text"] if len(r["text"]) <= width - 20 else r["text"][:width - 23] + "..."
        lines.append(f"    @{r['id']}  {text}")
        for c in r["cited_by"]:
            own = f"{c['kind']} {c['name']}" if c["name"] else c["kind"]
            ctx = f" (in {c['context']})" if c["context"] and c["context"] != own else ""
            lines.append(f"        {own}{ctx}  {c['where']}")
        if not r["cited_by"]:
            lines.append("        (no clause cites it)")
    return "\n".join(lines)
