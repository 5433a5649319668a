"""The structural layer of `rulebook diff`: what an edit changed in a spec's text, item by item.

Items are the spec's declarations keyed by kind and name (`def fits`, `const LIMIT`, `flow`),
its rules by ID, its moves by name and each move's requirements by label. Two items are the
same when their IR is equal (spans, hence layout and comments, never count), after the names an
edit *renamed* are mapped back: a removed and an added declaration of one kind whose IR is equal
once the new name is read as the old one are a rename, not a removal plus an addition. A
different order of the same declarations is a reorder, reported as such and never as a change.

`behaviour_core` is the part of a spec the engine's behaviour depends on (legal moves, successor
states, scores): the spec without its rule texts, citations, `say` statements, move texts,
requirement labels, invariants, examples, expectations and display items, and without the
definitions nothing behavioural reads. Two specs with equal cores (modulo renames and order)
play identically: that is the proof behind `no behavioural difference (proved)` for edits of
comments, layout, order, names and wording.
"""
from __future__ import annotations

import dataclasses
import difflib
from dataclasses import dataclass, field

from ..ir import nodes as N

# declaration kinds keyed by name; the others are singletons of their kind
KINDS = {N.GameDecl: "game", N.PlayersDecl: "players", N.OptionDecl: "option", N.EnumDecl: "enum",
         N.RecordDecl: "record", N.TypeDecl: "type", N.GridDecl: "grid", N.ConstDecl: "const",
         N.CatalogueDecl: "catalogue", N.VarDecl: "var", N.DefDecl: "def", N.FlowDecl: "flow",
         N.OutcomeDecl: "outcome", N.InvariantDecl: "invariant", N.ExampleDecl: "example",
         N.ExpectDecl: "expect", N.DisplayDecl: "display", N.RulesDecl: "rules", N.UtilityDecl: "utility"}
SINGLETONS = {"game", "players", "flow", "outcome", "display", "utility"}
# what does not change how a game plays (see the module's doc)
NOT_BEHAVIOUR = {N.RulesDecl, N.DisplayDecl, N.ExampleDecl, N.InvariantDecl, N.ExpectDecl}
# fields blanked in the behavioural core: wording, not behaviour
WORDING = {"cites": (), "reason": "", "label": "", "message": "", "text": None, "title": "",
           "display": None, "aka": None, "shown": None, "assumption": None, "sentence": ""}
# the fields that hold a reference to a declaration's name (renames rewrite these)
NAME_FIELDS = ("name", "func", "record")
NOT_REFERENCES = (N.FieldAccess, N.FieldDecl, N.KeywordArg, N.EnumItem, N.Param, N.MoveParam)


# ------------------------------------------------------------------ generic IR rewriting

def _rebuild(node, fn):
    """`node` with `fn` applied to every child node (bottom-up); `fn(node)` may return None to
    drop a statement from its block."""
    changes = {}
    for f in dataclasses.fields(node):
        if f.name == "span":
            continue
        value = getattr(node, f.name)
        new = _map_value(value, fn)
        if new is not value:
            changes[f.name] = new
    out = dataclasses.replace(node, **changes) if changes else node
    return fn(out)


def _map_value(value, fn):
    if isinstance(value, N.Node):
        return _rebuild(value, fn)
    if isinstance(value, tuple) and not isinstance(value, str):
        items = [_map_value(v, fn) for v in value]
        kept = tuple(v for v in items if v is not None)
        if len(kept) == len(value) and all(a is b for a, b in zip(kept, value)):
            return value
        return kept
    return value


def rename(node, mapping: dict):
    """`node` with every reference to a name in `mapping` (and a declaration's own name)
    replaced by its image."""
    if not mapping:
        return node

    def fn(n):
        if isinstance(n, NOT_REFERENCES):
            return n
        changes = {f: mapping[getattr(n, f)] for f in NAME_FIELDS
                   if isinstance(getattr(n, f, None), str) and getattr(n, f) in mapping}
        if isinstance(n, N.RangeTypeRef):
            changes.update({f: mapping[getattr(n, f)] for f in ("lo", "hi")
                            if isinstance(getattr(n, f), str) and getattr(n, f) in mapping})
        return dataclasses.replace(n, **changes) if changes else n
    return _rebuild(node, fn)


def _strip_wording(node):
    def fn(n):
        if isinstance(n, N.Say):
            return None
        changes = {f: v for f, v in WORDING.items() if hasattr(n, f) and getattr(n, f) != v
                   and not (f == "text" and isinstance(n, (N.ExpectDecl, N.RuleDecl)))}
        if isinstance(n, N.Block) and n.stmts != tuple(s for s in n.stmts if s is not None):
            changes["stmts"] = tuple(s for s in n.stmts if s is not None)
        return dataclasses.replace(n, **changes) if changes else n
    return _rebuild(node, fn)


def references(node) -> set:
    """The names `node` refers to (and declares)."""
    out = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if not isinstance(n, NOT_REFERENCES):
            for f in NAME_FIELDS:
                v = getattr(n, f, None)
                if isinstance(v, str):
                    out.add(v)
            if isinstance(n, N.RangeTypeRef):
                out.update(v for v in (n.lo, n.hi) if isinstance(v, str))
        stack.extend(n.children())
    return out


# ------------------------------------------------------------------ items

@dataclass
class Item:
    kind: str  # a value of KINDS, "rule", "move" or "require"
    name: str
    node: object
    order: int = 0
    owner: str = ""  # the move of a requirement, the section of a rule

    @property
    def key(self) -> tuple:
        return (self.kind, self.name)


def decl_items(spec: N.Spec) -> dict:
    out, seen = {}, {}
    for i, d in enumerate(spec.decls):
        kind = KINDS[type(d)]
        if kind == "rules":
            continue
        name = kind if kind in SINGLETONS else d.name
        if kind in ("expect", "utility"):  # several may name one property; a spec may hold several utilities
            seen[name] = seen.get(name, 0) + 1
            name = f"{name}#{seen[name]}" if seen[name] > 1 else name
        out[(kind, name)] = Item(kind, name, d, i)
    return out


def rule_items(spec: N.Spec) -> dict:
    out = {}
    for section in spec.of_kind(N.RulesDecl):
        for r in section.rules:
            out[("rule", r.id)] = Item("rule", r.id, r, len(out), section.kind)
    return out


def moves_of(node) -> list:
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        if isinstance(n, N.Move):
            out.append(n)
        stack.extend(reversed(list(n.children())))
    return out


def move_items(spec: N.Spec) -> dict:
    out = {}
    for d in spec.of_kind(N.FlowDecl):
        for i, m in enumerate(moves_of(d)):
            out[("move", m.name)] = Item("move", m.name, m, i)
    return out


def flow_without_moves(flow: N.FlowDecl):
    """The flow with each move cut to its name: the flow's own statements."""
    def fn(n):
        if isinstance(n, N.Move):
            return N.Move(n.name, (), None, (), (), N.Block(()))
        return n
    return _rebuild(flow, fn)


# ------------------------------------------------------------------ renames

def find_renames(old: dict, new: dict, kinds=None) -> dict:
    """new name -> old name for items removed and added under one kind whose nodes are equal once
    the new names are read as the old ones; found to a fixpoint, so a rename whose body uses
    another rename is found too."""
    mapping: dict = {}
    removed = [k for k in old if k not in new]
    added = [k for k in new if k not in old]
    progress = True
    while progress:
        progress = False
        for nk in list(added):
            for ok in list(removed):
                if ok[0] != nk[0] or (kinds and ok[0] not in kinds) or ok[0] in SINGLETONS:
                    continue
                trial = {**mapping, nk[1]: ok[1]}
                if rename(new[nk].node, trial) == old[ok].node:
                    mapping[nk[1]] = ok[1]
                    added.remove(nk)
                    removed.remove(ok)
                    progress = True
                    break
    return mapping


# ------------------------------------------------------------------ the comparison

@dataclass
class Change:
    what: str  # added, removed, changed, renamed, reordered
    kind: str
    name: str
    old: object = None  # Item
    new: object = None
    new_name: str = ""
    detail: str = ""  # a sentence (e.g. the requirements of a move that changed)
    diff: str = ""  # the source diff

    def as_json(self) -> dict:
        out = {"change": self.what, "kind": self.kind, "name": self.name}
        if self.new_name:
            out["new_name"] = self.new_name
        for side, item in (("old_at", self.old), ("new_at", self.new)):
            if item is not None and getattr(item.node, "span", None) is not None and item.node.span.line:
                out[side] = str(item.node.span)
        if self.detail:
            out["detail"] = self.detail
        if self.diff:
            out["diff"] = self.diff
        return out


@dataclass
class Structure:
    changes: list = field(default_factory=list)
    renames: dict = field(default_factory=dict)  # new name -> old name
    reordered: bool = False
    same_behaviour: bool = False  # the behavioural cores are equal: a proof of no difference

    @property
    def identical(self) -> bool:
        return not self.changes

    def touched(self) -> set:
        """Names of moves, definitions, constants and variables an edit added, removed or changed."""
        return {c.name for c in self.changes if c.what != "reordered"} | set(self.renames)


def source_of(item, texts: dict) -> list[str]:
    span = getattr(item.node, "span", None)
    text = texts.get(span.path) if span is not None else None
    if text is None or not span.line:
        from ..ir.printer import Printer
        out = Printer().dispatch(item.node) if not isinstance(item.node, N.Move) else item.name
        return [out] if isinstance(out, str) else list(out)
    lines = text.splitlines()
    return lines[span.line - 1:span.end_line]


def source_diff(old, new, texts: dict, context: int = 1) -> str:
    a = source_of(old, texts) if old is not None else []
    b = source_of(new, texts) if new is not None else []
    la = f"{old.node.span.path}:{old.node.span.line}" if old is not None else "/dev/null"
    lb = f"{new.node.span.path}:{new.node.span.line}" if new is not None else "/dev/null"
    return "\n".join(difflib.unified_diff(a, b, la, lb, n=context, lineterm=""))


def compare(old: N.Spec, new: N.Spec, texts: dict) -> Structure:
    out = Structure()
    od, nd = decl_items(old), decl_items(new)
    om, nm = move_items(old), move_items(new)
    mapping = find_renames({**od, **om}, {**nd, **nm})
    out.renames = mapping

    def back(key):  # a new item's key as the old spec names it
        return (key[0], mapping.get(key[1], key[1]))

    for nk, item in nd.items():
        ok = back(nk)
        if ok not in od:
            out.changes.append(Change("added", item.kind, item.name, new=item, diff=source_diff(None, item, texts)))
            continue
        if ok[1] != nk[1]:
            out.changes.append(Change("renamed", item.kind, ok[1], od[ok], item, new_name=nk[1]))
        o, n = od[ok].node, rename(item.node, mapping)
        if item.kind == "flow":  # moves are compared one by one below
            o, n = flow_without_moves(o), flow_without_moves(n)
        if o != n:
            out.changes.append(Change("changed", item.kind, ok[1], od[ok], item,
                                      diff=source_diff(od[ok], item, texts, context=2 if item.kind == "flow" else 1)))
    mapped = {back(k) for k in nd}
    for ok, item in od.items():
        if ok not in mapped:
            out.changes.append(Change("removed", item.kind, item.name, old=item, diff=source_diff(item, None, texts)))
    _compare_moves(out, om, nm, mapping, texts)
    _compare_rules(out, rule_items(old), rule_items(new), texts)
    order_old = [k for k in od if k in mapped]
    order_new = [back(k) for k in nd if back(k) in od]
    if order_old != order_new:
        out.reordered = True
        out.changes.append(Change("reordered", "declarations", "", detail="the same declarations in another order"))
    out.same_behaviour = behaviour_core(old) == rename_core(behaviour_core(new), mapping)
    return out


def _compare_moves(out: Structure, om: dict, nm: dict, mapping: dict, texts: dict) -> None:
    back = {k: ("move", mapping.get(k[1], k[1])) for k in nm}
    for nk, item in nm.items():
        ok = back[nk]
        if ok not in om:
            out.changes.append(Change("added", "move", item.name, new=item, diff=source_diff(None, item, texts)))
            continue
        if ok[1] != nk[1]:
            out.changes.append(Change("renamed", "move", ok[1], om[ok], item, new_name=nk[1]))
        o, n = om[ok].node, rename(item.node, mapping)
        if o == n:
            continue
        ro = {r.label: r for r in o.requires}
        rn = {r.label: r for r in n.requires}
        parts = [f"requirement {label} removed" for label in ro if label not in rn]
        parts += [f"requirement {label} added" for label in rn if label not in ro]
        parts += [f"requirement {label} changed" for label in ro if label in rn and ro[label] != rn[label]]
        if (o.params, o.body) != (n.params, n.body):
            parts.append("its effects or parameters changed")
        if o.text != n.text or o.cites != n.cites:
            parts.append("its text or citations changed")
        out.changes.append(Change("changed", "move", ok[1], om[ok], item, detail="; ".join(parts),
                                  diff=source_diff(om[ok], item, texts)))
    for ok, item in om.items():
        if ok not in set(back.values()):
            out.changes.append(Change("removed", "move", item.name, old=item, diff=source_diff(item, None, texts)))


def _compare_rules(out: Structure, ro: dict, rn: dict, texts: dict) -> None:
    for key, item in rn.items():
        if key not in ro:
            out.changes.append(Change("added", "rule", item.name, new=item, diff=source_diff(None, item, texts)))
        elif ro[key].node != item.node:
            out.changes.append(Change("changed", "rule", item.name, ro[key], item, diff=source_diff(ro[key], item, texts)))
    for key, item in ro.items():
        if key not in rn:
            out.changes.append(Change("removed", "rule", item.name, old=item, diff=source_diff(item, None, texts)))
    if [k for k in ro if k in rn] != [k for k in rn if k in ro]:
        out.changes.append(Change("reordered", "rules", "", detail="the same rules in another order"))


# ------------------------------------------------------------------ the behavioural core

def behaviour_core(spec: N.Spec) -> dict:
    """(kind, name) -> the declaration as far as play depends on it (see the module's doc)."""
    core = {}
    for key, item in decl_items(spec).items():
        if type(item.node) in NOT_BEHAVIOUR:
            continue
        core[key] = _strip_wording(item.node)
    defined = {k[1]: k for k in core if k[0] in ("def", "const")}
    roots = [k for k in core if k[0] not in ("def", "const")]
    seen, stack = set(roots), list(roots)
    while stack:
        for name in references(core[stack.pop()]):
            k = defined.get(name)
            if k is not None and k not in seen:
                seen.add(k)
                stack.append(k)
    return {k: v for k, v in core.items() if k in seen}


def rename_core(core: dict, mapping: dict) -> dict:
    return {(k[0], mapping.get(k[1], k[1])): rename(v, mapping) for k, v in core.items()}
