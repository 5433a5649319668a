"""`rulebook info`: what a spec offers, without provoking errors to find out.

Its player counts, options (type, values, default, the `finite` value, the reason),
invariants and the built-in properties `verify` checks, what the spec expects of
them, its moves with their requirements, its worked examples, and every rule ID it
cites with the places that cite it. Read from the checked program alone: nothing is
compiled or played.
"""
from __future__ import annotations

from ..diagnostics import Sources
from ..ir import nodes as N
from ..ir.printer import Printer, print_expr
from ..ir.types import BoolT, EnumT, int_bounds
from .common import EXIT_OK, Output

# `verify`'s built-in properties, as its report words them (verify/run.py: BUILTINS)
BUILTIN_SENTENCES = {
    "termination": "every game ends",
    "no_deadlock": "whoever must move has a legal move",
    "well_formed": "every effect keeps every value inside its declared type",
}


def _where(node) -> str:
    return str(node.span)


def _text(value) -> str:
    if isinstance(value, N.StrLit):
        return Printer().string(value)[1:-1]
    return getattr(value, "value", value) if not isinstance(value, str) else value


def option_info(program, decl: N.OptionDecl) -> dict:
    t = program.option_types[decl.name]
    if isinstance(t, BoolT):
        kind, values = "bool", ["false", "true"]
    elif isinstance(t, EnumT):
        kind, values = "enum", list(t.items)
    else:
        lo, hi = int_bounds(t, program.max_players)
        kind, values = "range", {"min": lo, "max": hi}
    out = {"name": decl.name, "type": Printer().type(decl.type), "kind": kind, "values": values,
           "default": print_expr(decl.default), "finite": print_expr(decl.finite) if decl.finite else None,
           "reason": decl.reason, "cites": list(decl.cites), "where": _where(decl)}
    if isinstance(t, EnumT):
        out["value_texts"] = dict(zip(t.items, t.displays))
    return out


def move_info(program, info) -> dict:
    mv: N.Move = info.move
    decision = program.decisions[info.decision].node
    printer = Printer()
    return {"name": mv.name,
            "decision": "simultaneous" if isinstance(decision, N.Simultaneous) else "choose",
            "params": [printer.dispatch(p) for p in mv.params],
            "text": printer.string(mv.text)[1:-1] if mv.text is not None else None,
            "requires": [{"label": r.label, "message": r.message, "cites": list(r.cites), "where": _where(r)}
                         for r in mv.requires],
            "cites": list(mv.cites), "where": _where(mv)}


def rule_ids(spec: N.Spec) -> list[dict]:
    """Every rule ID the spec cites, sorted, with the places that cite it."""
    places: dict[str, list[str]] = {}
    stack = [spec]
    while stack:  # iterative: a spec's nesting is the user's, not ours to recurse over
        node = stack.pop()
        for cite in getattr(node, "cites", ()) or ():
            places.setdefault(cite, []).append(_where(node))
        stack.extend(node.children())
    return [{"id": rid, "cited_at": sorted(set(at), key=_position)} for rid, at in sorted(places.items())]


def _position(where: str):
    parts = where.rsplit(":", 2)
    return (int(parts[1]), int(parts[2])) if len(parts) == 3 and parts[1].isdigit() else (0, 0)


def spec_info(program) -> dict:
    spec = program.spec
    return {
        "spec": spec.path,
        "game": program.name,
        "title": program.title,
        "players": {"min": program.min_players, "max": program.max_players},
        "options": [option_info(program, d) for d in program.options.values()],
        "invariants": [{"name": i.name, "sentence": i.sentence, "cites": list(i.cites), "where": _where(i),
                        "at": [str(x) for x in i.at]}
                       for i in program.invariants],
        "properties": [{"name": n, "sentence": s} for n, s in BUILTIN_SENTENCES.items()],
        "expectations": [{"property": e.name, "status": e.status,
                          "when": print_expr(e.when) if e.when is not None else None,
                          "why": _text(e.text), "cites": list(e.cites), "where": _where(e)}
                         for e in program.expects],
        "moves": [move_info(program, m) for m in program.moves],
        "examples": [{"name": x.name, "sentence": x.sentence, "where": _where(x)} for x in program.examples],
        "rules": rule_ids(spec),
    }


def format_info(d: dict) -> str:
    pl = d["players"]
    count = str(pl["min"]) if pl["min"] == pl["max"] else f"{pl['min']}..{pl['max']}"
    lines = [f"{d['title']} ({d['game']}) — {d['spec']}", f"players: {count}", ""]
    lines.append(f"options ({len(d['options'])}):" if d["options"] else "options: none")
    for o in d["options"]:
        values = " | ".join(o["values"]) if isinstance(o["values"], list) else \
            f"{o['values']['min']}..{o['values']['max']}"
        finite = f", finite {o['finite']}" if o["finite"] else ""
        lines.append(f"  {o['name']} = {o['default']}   ({values}{finite})")
        lines.append(f"      {o['reason']}" + (f"  @{' @'.join(o['cites'])}" if o["cites"] else ""))
    lines.append("")
    lines.append("properties `rulebook verify` checks:")
    for i in d["invariants"]:
        at = f", at {', '.join(i['at'])}" if i.get("at") else ""
        lines.append(f"  {i['name']}: {i['sentence']}  (invariant{at}, {i['where']})")
    for p in d["properties"]:
        lines.append(f"  {p['name']}: {p['sentence']}  (built in)")
    if d["expectations"]:
        lines.append("expected (otherwise: proved):")
        for e in d["expectations"]:
            when = f" when {e['when']}" if e["when"] else ""
            lines.append(f"  {e['property']} {e['status']}{when}: {e['why']}")
    lines.append("")
    lines.append(f"moves ({len(d['moves'])}):")
    for m in d["moves"]:
        requires = ", ".join(r["label"] for r in m["requires"])
        lines.append(f"  {m['name']}({', '.join(m['params'])})  [{m['decision']}]"
                     + (f"  requires {requires}" if requires else ""))
    if d["examples"]:
        lines.append("")
        lines.append(f"examples ({len(d['examples'])}): " + ", ".join(x["name"] for x in d["examples"]))
    lines.append("")
    lines.append(f"rule IDs cited ({len(d['rules'])}): " + (" ".join(r["id"] for r in d["rules"]) or "none"))
    return "\n".join(lines)


def run(args, sources: Sources, out: Output) -> int:
    from ..frontend import load_program
    for i, path in enumerate(args.specs):
        program, _ = load_program(path, sources)
        info = spec_info(program)
        out.add(info)
        if not out.as_json:
            print(("\n" if i else "") + format_info(info))
    return EXIT_OK
