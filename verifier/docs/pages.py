"""The pages of one game's section of the rules site (see site.py for the layout)."""
from __future__ import annotations

import random

from ..engine import play
from ..engine.gen_display import draw_data, load_displays
from ..engine.runtime import Engine, Game
from ..ir import nodes as N
from ..ir.printer import print_expr
from ..ir.types import BoolT, EnumT, IntT
from .coverage import clauses_by_rule
from .site import md_escape, rule_link, staleness, when_run
from .svg import state_svg

SNIPPET_LINES = 12  # a clause longer than this is shown cut, with a link to the whole

BUILTIN_SENTENCES = {
    "termination": "every game ends",
    "no_deadlock": "whoever must move has a legal move",
    "well_formed": "every effect keeps every value inside its declared type",
}
STATUS_MARK = {"proved": "✅ proved", "violated": "❌ violated", "unknown": "❔ unknown"}


class GamePages:
    def __init__(self, program, text: str, reports: list, meta: dict, seed: int):
        self.p = program
        self.text = text
        self.lines = text.splitlines()
        self.reports = reports
        self.meta = meta
        self.seed = seed
        self.name = program.name
        self.by_rule = clauses_by_rule(program.spec)
        self.engine = Engine(program)
        self.displays = load_displays(program, self.engine.module)
        self.sections = program.spec.of_kind(N.RulesDecl)

    # -------------------------------------------------------------- helpers
    def players(self) -> str:
        lo, hi = self.p.min_players, self.p.max_players
        return str(lo) if lo == hi else f"{lo}–{hi}"

    def source_link(self, span, text: str | None = None) -> str:
        label = text or f"line {span.line}"
        return f"[{label}](source.md#__codelineno-0-{span.line})"

    def snippet(self, span) -> list[str]:
        first, last = span.line, min(span.end_line, span.line + SNIPPET_LINES - 1)
        body = self.lines[first - 1:last]
        if span.end_line > last:
            body.append("  # ...")
        return [f'```rules linenums="{first}"', *body, "```"]

    def picture(self, site, name: str, state, title: str) -> str:
        svg = state_svg(draw_data(self.displays, state), title)
        site.write(f"{self.name}/img/{name}.svg", svg)
        return f"![{md_escape(title)}](img/{name}.svg)"

    def cites_text(self, cites) -> str:
        return " ".join(rule_link(str(c)) for c in dict.fromkeys(cites))

    def summary(self) -> dict:
        return {"name": self.name, "title": self.p.title, "spec": self.p.spec.path, "players": self.players(),
                "rules": sum(len(s.rules) for s in self.sections),
                "properties": len(self.p.invariants) + len(BUILTIN_SENTENCES)}

    # -------------------------------------------------------------- all pages
    def write(self, site) -> list:
        game_pictures = self.example_game(site)
        site.write(f"{self.name}/index.md", self.overview(site, game_pictures))
        site.write(f"{self.name}/rules.md", self.rules_page())
        site.write(f"{self.name}/readings.md", self.readings_page())
        site.write(f"{self.name}/guarantees.md", self.guarantees_page())
        site.write(f"{self.name}/examples.md", self.examples_page(site))
        site.write(f"{self.name}/source.md", self.source_page())
        return [("Overview", f"{self.name}/index.md"), ("Rules", f"{self.name}/rules.md"),
                ("Readings", f"{self.name}/readings.md"), ("Guarantees", f"{self.name}/guarantees.md"),
                ("Worked examples", f"{self.name}/examples.md"), ("Example game", f"{self.name}/game.md"),
                ("Spec source", f"{self.name}/source.md")]

    # -------------------------------------------------------------- overview
    def overview(self, site, pictures: dict) -> str:
        p = self.p
        out = [f"# {md_escape(p.title)}", "",
               f"Players: **{self.players()}** · spec: `{p.spec.path}` · "
               f"{self.summary()['rules']} rules · {len(p.options)} options · {len(p.invariants)} invariants", "",
               "- [The rules, rule by rule](rules.md)", "- [Readings: where the rulebook is unclear](readings.md)",
               "- [Guarantees: what is proved](guarantees.md)", "- [Worked examples](examples.md)",
               "- [An example game](game.md)", "- [The spec](source.md)", ""]
        if "start" in pictures:
            out += ["## The position after setup", "", pictures["start"], ""]
        out += self.components()
        return "\n".join(out) + "\n"

    def components(self) -> list[str]:
        out = ["## Components", ""]
        for d in self.p.spec.decls:
            if isinstance(d, N.EnumDecl):
                out += [f"### {d.name}", "", self.cited_line(d), "| value | shown as | original name |",
                        "|---|---|---|"]
                out += [f"| `{i.name}` | {md_escape(i.display or i.name)} | {md_escape(i.aka or '')} |"
                        for i in d.items]
                out.append("")
            elif isinstance(d, N.GridDecl):
                out += [f"### {d.name}", "", f"A grid of {d.rows} rows and {d.cols} columns. "
                        + self.cited_line(d), ""]
            elif isinstance(d, N.CatalogueDecl):
                out += self.catalogue(d)
        return out

    def cited_line(self, d) -> str:
        cites = getattr(d, "cites", ())
        return (f"Rules: {self.cites_text(cites)} · " if cites else "") + self.source_link(d.span, "in the spec") \
            + "\n"

    def catalogue(self, d: N.CatalogueDecl) -> list[str]:
        record = self.p.records.get(d.record)
        fields = [f for f, _ in record.fields] if record is not None else []
        out = [f"### {d.name} ({len(d.items)} {d.record})", ""]
        if d.assumption:
            out += [f"!!! note \"Replaceable data\"", f"    {md_escape(d.assumption)}", ""]
        out += [self.cited_line(d), "| # | " + " | ".join(fields) + " |", "|---|" + "---|" * len(fields)]
        for i, item in enumerate(d.items, 1):
            values = {a.name: print_expr(a.value) for a in getattr(item, "args", ()) if isinstance(a, N.KeywordArg)}
            out.append(f"| {i} | " + " | ".join(md_escape(values.get(f, "")) for f in fields) + " |")
        return out + [""]

    # -------------------------------------------------------------- rules
    def rules_page(self) -> str:
        out = [f"# {md_escape(self.p.title)}: the rules", "",
               "Each rule in the project's words, then the clauses of the spec that implement it "
               "(with their lines in [the spec](source.md)). Invariants link to their "
               "[guarantees](guarantees.md).", ""]
        if not self.sections:
            out += ["The spec declares no rules (`rules` sections)."]
        for section in self.sections:
            out += [f"## {md_escape(section.title)}", "", f"*{section.kind}*", ""]
            for rule in section.rules:
                out += [f"### {rule.id} {{ #{rule.id} }}", "", md_escape(rule.text), ""]
                out += self.clauses_of(rule.id)
        return "\n".join(out) + "\n"

    def clauses_of(self, rule_id: str) -> list[str]:
        clauses = self.by_rule.get(rule_id, [])
        if not clauses:
            return ["*No clause cites this rule.*", ""]
        out = [f"Cited by {len(clauses)} clause{'s' if len(clauses) != 1 else ''}:", ""]
        for c in clauses:
            link = self.source_link(c.span, f"line {c.span.line}")
            extra = ""
            if isinstance(c.node, N.InvariantDecl):
                extra = f" · [guarantee](guarantees.md#inv-{c.node.name})"
            elif isinstance(c.node, N.OptionDecl):
                extra = f" · [reading](readings.md#opt-{c.node.name})"
            out += [f"**{md_escape(c.label())}** ({link}){extra}", ""] + self.snippet(c.span) + [""]
        return out

    # -------------------------------------------------------------- readings
    def readings_page(self) -> str:
        out = [f"# {md_escape(self.p.title)}: readings", "",
               "Where the rulebook is silent or unclear, the spec names the choice as an option with a default "
               "and a reason. `rulebook play SPEC --option NAME=VALUE` and `rulebook verify SPEC --option "
               "NAME=VALUE` use another reading.", ""]
        if not self.p.options:
            out += ["This spec has no options."]
        for name, d in self.p.options.items():
            out += [f"## {name} {{ #opt-{name} }}", "", md_escape(d.reason), "",
                    f"- values: {self.option_values(name)}", f"- default: `{print_expr(d.default)}`"]
            if d.finite is not None:
                out.append(f"- for random play: `{print_expr(d.finite)}` (keeps every game finite)")
            if d.cites:
                out.append(f"- rules: {self.cites_text(d.cites)}")
            out += [f"- {self.source_link(d.span, 'in the spec')}", ""]
        out += ["## Verification under each reading", ""]
        if not self.reports:
            out += ["No verification results for this spec (see [guarantees](guarantees.md))."]
        for r in self.reports:
            opts = r.get("options") or {}
            reading = ", ".join(f"`{k}={v}`" for k, v in sorted(opts.items())) or "the defaults"
            out += [f"### Under {reading}", ""] + self.results_table(r, brief=True) + [""]
        if self.reports and all(not r.get("options") for r in self.reports) and self.p.options:
            out += ["Only the defaults were verified in this run; `rulebook verify SPEC --option NAME=VALUE "
                    "--json` adds a reading."]
        return "\n".join(out) + "\n"

    def option_values(self, name: str) -> str:
        t = self.p.option_types.get(name)
        if isinstance(t, BoolT):
            return "`true`, `false`"
        if isinstance(t, EnumT):
            enum = next(d for d in self.p.spec.of_kind(N.EnumDecl) if d.name == t.name)
            return ", ".join(f"`{i.name}` ({md_escape(i.display or i.name)})" for i in enum.items)
        if isinstance(t, IntT):
            return f"`{t.lo}..{t.hi}`"
        return md_escape(str(t))

    # -------------------------------------------------------------- guarantees
    def guarantees_page(self) -> str:
        out = [f"# {md_escape(self.p.title)}: guarantees", ""]
        default = next((r for r in self.reports if not r.get("options")), self.reports[0] if self.reports else None)
        if default is None:
            out += ["!!! warning \"Not verified\"",
                    "    No `rulebook verify --json` results were given for this spec. Run "
                    f"`rulebook verify {self.p.spec.path} --json > build/verify.json` and rebuild.", ""]
        else:
            out += self.run_header(default)
            out += ["## Results", ""] + self.results_table(default) + [""]
        out += ["## The properties", ""]
        for inv in self.p.invariants:
            out += [f"### {inv.name} {{ #inv-{inv.name} }}", "", md_escape(inv.sentence), "",
                    f"Status: {self.status_of(default, inv.name)} · "
                    + (f"rules: {self.cites_text(inv.cites)} · " if inv.cites else "")
                    + self.source_link(inv.span, "in the spec"), ""] + self.snippet(inv.span) + [""]
        for name, sentence in BUILTIN_SENTENCES.items():
            out += [f"### {name} {{ #inv-{name} }}", "", f"Built in: {sentence}.", "",
                    f"Status: {self.status_of(default, name)}", ""]
        if default is not None:
            out += self.bounds(default)
        return "\n".join(out) + "\n"

    def run_header(self, r: dict) -> list[str]:
        out = [f"Results of `rulebook verify` finished {md_escape(when_run(r, self.meta))}, from "
               f"`{self.meta['path']}`; {r.get('seconds', '?')} s; outcome **{r.get('outcome', '?')}**.", ""]
        stale = staleness(r, self.text, self.p.spec.path, self.meta)
        if stale:
            out += ["!!! warning \"Stale results\"", f"    {md_escape(stale)}: re-run `rulebook verify` to "
                    "refresh them. They are shown as they were.", ""]
        return out

    def status_of(self, report, name: str) -> str:
        if report is None:
            return "not verified"
        rows = [x for x in report.get("results", []) if x.get("name") == name]
        if not rows:
            return "not checked in this run"
        parts = []
        for x in rows:
            parts.append(f"{STATUS_MARK.get(x.get('status'), x.get('status'))} ({x.get('method') or '—'}, "
                         f"{x.get('players')} players)")
        return "; ".join(parts)

    def results_table(self, r: dict, brief: bool = False) -> list[str]:
        out = ["| property | players | status | method | seconds | expected |", "|---|---|---|---|---|---|"]
        for x in r.get("results", []):
            name = x.get("name", "?")
            link = f"[{name}](guarantees.md#inv-{name})" if not brief else name
            expected = x.get("expected") or "proved"
            mark = "" if expected == x.get("status") else " ⚠"
            out.append(f"| {link} | {x.get('players')} | {STATUS_MARK.get(x.get('status'), x.get('status'))} | "
                       f"{md_escape(str(x.get('method') or '—'))} | {x.get('seconds', '')} | {expected}{mark} |")
            if x.get("reason") and not brief:
                out.append(f"| | | | {md_escape(str(x['reason']))[:300]} | | |")
        return out

    def bounds(self, r: dict) -> list[str]:
        out = ["## Score bounds", "", "Proved bounds of each seat's final score (the best and worst "
               "scores seen in play beside them):", "",
               "| players | seat | proved | seen in play | gap |", "|---|---|---|---|---|"]
        for b in r.get("score_bounds") or []:
            how = " (every end enumerated)" if b.get("by") == "exhaustive" else ""
            out.append(f"| {b.get('players')} | {b.get('player', 0) + 1} | {b.get('proved')}{how} | "
                       f"{b.get('witness')} | {b.get('gap')} |")
        out += ["", "## The longest game", "", "| players | decisions | chance draws |", "|---|---|---|"]
        for n, m in sorted((r.get("max_length") or {}).items()):
            out.append(f"| {n} | {m.get('decisions')} | {m.get('chance')} |")
        return out + [""]

    # -------------------------------------------------------------- worked examples
    def examples_page(self, site) -> str:
        m = self.engine.module
        out = [f"# {md_escape(self.p.title)}: worked examples", "",
               "Each example sets up a position and states what must hold there; `rulebook check` runs "
               "them all. Shown: the example as written, its result, and the position.", ""]
        if not m.EXAMPLES:
            out += ["This spec has no worked examples."]
        for (name, sentence, players, fn, where), decl in zip(m.EXAMPLES, self.p.examples):
            s = m.new_state(players, m.OPTIONS)
            try:
                failed = fn(s)
                result = "✅ every expectation holds" if not failed else \
                    "❌ these expectations fail: " + ", ".join(failed)
            except Exception as exc:  # reported, as `check` does
                result, failed = f"❌ the example could not run: {md_escape(str(exc))}", None
            out += [f"## {name}", "", md_escape(sentence), ""]
            if decl.cites:
                out += [f"Rules: {self.cites_text(decl.cites)}", ""]
            out += self.snippet(decl.span) + ["", f"**Result:** {result} · {self.source_link(decl.span, 'in the spec')}",
                                              ""]
            if self.displays and failed is not None:
                out += [self.picture(site, f"example-{name}", s, f"{self.p.title}: {name}"), ""]
        return "\n".join(out) + "\n"

    # -------------------------------------------------------------- the example game
    def example_game(self, site) -> dict:
        game = Game(self.engine, None, {}, bounded=True)
        rng = random.Random(self.seed)
        state = game.new_initial_state(logging=True)
        pictures, decisions = {}, 0
        while not state.is_terminal() and len(state.history) < 100_000:
            if not state.is_chance_node() and "start" not in pictures and self.displays:
                pictures["start"] = self.picture(site, "start", state.s, f"{self.p.title}: after setup")
            play.random_step(state, rng)
            decisions += 1
        if self.displays:
            pictures["end"] = self.picture(site, "end", state.s, f"{self.p.title}: the end of the game")
        report = play._finish(game, state, self.seed, True, state.is_terminal())
        out = [f"# {md_escape(self.p.title)}: an example game", "",
               f"A random game with {game.num_players} players (seed {self.seed}, default options), as "
               f"`rulebook play {self.p.spec.path} --seed {self.seed}` prints it.", ""]
        if "start" in pictures:
            out += ["## After setup", "", pictures["start"], ""]
        out += ["## The game", "", "```text", play.format_game(report).replace("```", "'''"), "```", ""]
        if "end" in pictures:
            out += ["## The final position", "", pictures["end"], ""]
        site.write(f"{self.name}/game.md", "\n".join(out) + "\n")
        return pictures

    # -------------------------------------------------------------- the source
    def source_page(self) -> str:
        out = [f"# {md_escape(self.p.title)}: the spec", "", f"`{self.p.spec.path}`, as verified and compiled.",
               "", '```rules linenums="1"', *self.lines, "```", "", "## Citations, line by line", "",
               "| line | clause | rules |", "|---|---|---|"]
        rows = {}
        for rid, clauses in self.by_rule.items():
            for c in clauses:
                rows.setdefault((c.span.line, c.label()), []).append(rid)
        for (line, label), rids in sorted(rows.items()):
            out.append(f"| [{line}](#__codelineno-0-{line}) | {md_escape(label)} | "
                       + " ".join(rule_link(r) for r in rids) + " |")
        return "\n".join(out) + "\n"
