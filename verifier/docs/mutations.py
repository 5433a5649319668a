"""A game's *Mutations* page on the site, from the JSON of `rulebook mutate` runs.

`rulebook docs --mutations FILE` (repeatable) reads `mutate --json` output; each report goes to
its game's page: the kill rate, the mutants by kind of mutation, the survivors (each with the
rules its mutated clause cites, its source diff, the game where it plays differently and what
would catch it) and what killed the others. A report of a spec that changed since is marked stale.
"""
from __future__ import annotations

from ..commands.common import UserError
from .site import json_reports, md_escape, rule_link, spec_digest


def read_mutations(paths: list[str]) -> dict[str, list]:
    """Game name -> its mutate reports, in the order given."""
    by_game: dict[str, list] = {}
    for path in paths:
        reports = json_reports(path)
        if not isinstance(reports, list) or not reports or not all(
                isinstance(r, dict) and r.get("kind") == "mutate" and isinstance(r.get("game"), str)
                for r in reports):
            raise UserError(f"{path} is not the output of `rulebook mutate --json`"
                            + (" (or it was written before mutate recorded the game's name: run it again)"
                               if isinstance(reports, list) and reports and all(
                                   isinstance(r, dict) and r.get("kind") == "mutate" for r in reports) else ""))
        for r in reports:
            by_game.setdefault(r["game"], []).append(r)
    return by_game


def _rules(ids, known: set) -> str:
    # a rule the spec no longer declares (a stale report) has no anchor to link to
    return ", ".join(rule_link(x, "rules.md") if x in known else f"@{md_escape(x)}" for x in ids)


def _code(text: str) -> str:
    """`text` as an inline code span (markdown escapes do not apply inside one)."""
    fence = "``" if "`" in text else "`"
    return f"{fence} {text} {fence}" if fence == "``" else f"`{text}`"


def _place(at: str, stale: bool) -> str:
    """`path:line:col` as a link to the line on the spec's source page (as text when the spec changed)."""
    parts = at.rsplit(":", 2)
    if stale or len(parts) != 3 or not parts[1].isdigit():
        return _code(at)
    return f"[line {parts[1]}](source.md#__codelineno-0-{parts[1]})"


def _pct(x) -> str:
    return "—" if x is None else f"{100 * x:.0f}%"


def _report(r: dict, text: str, known: set) -> list[str]:
    opts = ", ".join(f"`{k}={v}`" for k, v in (r.get("options") or {}).items()) or "none"
    out = [f"## {r['players']} players — {r['run']} of {r['generated']} mutants", ""]
    stale = bool(r.get("spec_sha256")) and r["spec_sha256"] != spec_digest(text)
    if stale:
        out += ["!!! warning \"Stale results\"",
                "    The spec has changed since this run (its hash differs): re-run `rulebook mutate`.", ""]
    out += [f"**Kill rate {_pct(r['kill_rate'])}**: {r['killed']} killed, {r['survived']} survived "
            f"({r['equivalent']} equivalent and {r['invalid']} that do not type-check are not counted"
            + (f"; {r['error']} error{'s' if r['error'] != 1 else ''}, listed below" if r.get("error") else "") + "). "
            f"Options: {opts}; verify {r['verify_budget']:g} s per mutant; {r['seconds']:.0f} s in all.", ""]
    if r.get("original_violates"):
        out += ["The spec itself violates " + ", ".join(f"`{md_escape(x)}`" for x in r["original_violates"])
                + ": a mutant that violates only these is not counted as killed.", ""]
    out += ["| mutation | run | killed | survived | equivalent |", "|---|---|---|---|---|"]
    for op, row in sorted(r["by_operator"].items()):
        out.append(f"| {md_escape(op)} | {row['run']} | {row['killed']} | {row['survived']} | {row['equivalent']} |")
    out.append("")
    survivors = r.get("survivors", [])
    out += [f"### Survivors ({len(survivors)})", ""]
    if not survivors:
        out += ["Every mutant that changes how the game plays was caught.", ""]
    for s in survivors:
        cites = f" — {_rules(s['rules'], known)}" if s.get("rules") else ""
        out += [f"#### Mutant {s['id']}: {md_escape(s['description'])}", "",
                f"At {_place(s['at'], stale)}{cites}.", ""]
        if s.get("diff"):
            body = "\n".join(s["diff"].splitlines()[2:])  # the two header lines say only original/mutant
            out += ["```diff", body, "```", ""]
        w = s.get("witness")
        if w:
            out += [f"Plays differently: {md_escape(w['summary'])}, after "
                    + (_code(w["history"]) if w["history"] else "the start of the game") + ".", ""]
        else:
            out += [md_escape(s.get("by", "")), ""]
        out += [f"Would be caught by: {md_escape(s['catch'])}.", ""]
    errors = [x for x in r.get("results", []) if x["status"] == "error"]
    if errors:  # a tool failed on these: its bug, shown (not counted either way)
        out += [f"### Errors ({len(errors)})", "", "| mutant | mutation | at | error |", "|---|---|---|---|"]
        for e in errors:
            out.append(f"| {e['id']} | {md_escape(e['description'])} | {_place(e['at'], stale)} | {md_escape(e['by'])} |")
        out.append("")
    killed = [x for x in r.get("results", []) if x["status"] == "killed"]
    if killed:
        out += [f"### Killed ({len(killed)})", "", "| mutant | mutation | rules | killed by |", "|---|---|---|---|"]
        for k in killed:
            out.append(f"| {k['id']} | {md_escape(k['description'])} | {_rules(k.get('rules', []), known)} | "
                       f"{md_escape(k['by'])} |")
        out.append("")
    return out


def mutations_page(title: str, reports: list, text: str, known_rules: set) -> str:
    out = [f"# {md_escape(title)}: mutations", "",
           "Measured by `rulebook mutate`: small edits of the spec (a requirement dropped, a comparison "
           "moved by one, a statement dropped, ...), each *killed* when one of the spec's examples fails "
           "on it or `verify` finds a property violated that the spec itself keeps. A mutant that "
           "survives plays differently (the game shown) and nothing in the spec notices: a place where "
           "an example or an invariant is missing. Kill rate = killed / (killed + survived).", ""]
    for r in reports:
        out += _report(r, text, known_rules)
    return "\n".join(out) + "\n"
