"""`rulebook docs`: an mkdocs-material project generated from specs.

Layout of the project written to DIR (`-o`, default build/docs):

    DIR/mkdocs.yml                 the site's configuration (plain mkdocs-material: Zensical reads it)
    DIR/docs/index.md              the games, and the manual pages when --manual is given
    DIR/docs/<game>/index.md       overview: players, components, catalogues, the position after setup
    DIR/docs/<game>/rules.md       the rules, section by section: ID, text, the clauses that cite it
    DIR/docs/<game>/readings.md    the options (readings) and the verification status under each
    DIR/docs/<game>/guarantees.md  invariants and built-in properties, score bounds, the longest game
    DIR/docs/<game>/examples.md    the worked examples: the position, its picture, the checked result
    DIR/docs/<game>/game.md        an example game: the log and pictures along the way
    DIR/docs/<game>/source.md      the spec, highlighted, with line anchors
    DIR/docs/<game>/img/*.svg      pictures drawn from the spec's `display` items

Links go both ways: a rule lists its clauses (each linking to its lines in source.md, an
invariant also to its guarantee); a guarantee and an option link to the rules they cite;
source.md ends with the citations line by line. Verification results come from the JSON of
`rulebook verify ... --json` (see `verify_results`); a result whose spec text changed since
is marked stale.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from datetime import datetime, timezone

from ..commands.common import UserError

DEFAULT_VERIFY_JSON = os.path.join("build", "verify.json")


def md_escape(text: str) -> str:
    """Text for a markdown table cell or paragraph: no HTML, no table breaks."""
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")
            .replace("\n", " ").replace("*", "\\*").replace("_", "\\_").replace("`", "\\`"))


def rule_link(rule_id: str, page: str = "rules.md") -> str:
    return f"[@{rule_id}]({page}#{rule_id})"


def json_reports(path: str):
    """The `reports` of a command's `--json` output file (None if it has none); unreadable or
    not JSON: a UserError naming the file."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise UserError(f"{path} is not JSON: {exc}") from None
    return data.get("reports") if isinstance(data, dict) else None


def spec_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# ------------------------------------------------------------------ verify results

def verify_results(path: str | None) -> tuple[dict, dict]:
    """Reports by spec path, and what the file says of itself ({} when there is no file).

    `path` None: build/verify.json if it exists. A named file that cannot be read, or that is
    not `verify --json` output, is the user's error (exit 1)."""
    if path is None:
        if not os.path.exists(DEFAULT_VERIFY_JSON):
            return {}, {}
        path = DEFAULT_VERIFY_JSON
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror or exc}") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise UserError(f"{path} is not JSON: {exc}") from None
    reports = data.get("reports") if isinstance(data, dict) else None
    if not isinstance(reports, list) or not all(isinstance(r, dict) and "results" in r and "spec" in r
                                                for r in reports):
        raise UserError(f"{path} is not the output of `rulebook verify --json` (no reports with results)")
    by_spec: dict[str, list] = {}
    for r in reports:
        by_spec.setdefault(os.path.realpath(str(r["spec"])), []).append(r)
    mtime = os.path.getmtime(path)
    return by_spec, {"path": path, "mtime": mtime, "error": data.get("error")}


def reports_for(results: dict, path: str) -> list:
    """The reports of the spec at `path`: the same file (paths are resolved from the current
    directory), else the one spec of the same file name (a run made from elsewhere)."""
    found = results.get(os.path.realpath(path))
    if found is not None:
        return found
    same_name = [k for k in results if os.path.basename(k) == os.path.basename(path)]
    return results[same_name[0]] if len(same_name) == 1 else []


def staleness(report: dict, text: str, spec_path: str, meta: dict) -> str | None:
    """Why a report may not describe the spec as it is now (None: it does)."""
    recorded = report.get("spec_sha256")
    if recorded is not None:
        return None if recorded == spec_digest(text) else "the spec has changed since this run (its hash differs)"
    try:
        if os.path.getmtime(spec_path) > meta["mtime"]:
            return "the spec file is newer than the results (this run recorded no hash of the spec)"
    except OSError:
        pass
    return None


def when_run(report: dict, meta: dict) -> str:
    if report.get("finished"):
        return str(report["finished"])
    stamp = datetime.fromtimestamp(meta["mtime"], timezone.utc).isoformat(timespec="seconds")
    return f"{stamp} (the time {meta['path']} was written)"


# ------------------------------------------------------------------ the project

class Site:
    def __init__(self, root: str):
        self.root = root
        self.docs = os.path.join(root, "docs")
        self.nav: list = []
        self.pages = 0
        self.images = 0

    MARKER = ".generated-by-rulebook"

    def prepare(self) -> None:
        """An empty DIR/docs, replacing only what an earlier run wrote (never a hand-written docs/)."""
        if os.path.isdir(self.docs) and os.listdir(self.docs) and \
                not os.path.exists(os.path.join(self.docs, self.MARKER)):
            raise UserError(f"{self.docs} exists and was not written by `rulebook docs`: choose another -o DIR "
                            "(its docs/ folder is replaced on every run)")
        try:
            if os.path.isdir(self.docs):
                shutil.rmtree(self.docs)
            os.makedirs(self.docs, exist_ok=True)
            with open(os.path.join(self.docs, self.MARKER), "w", encoding="utf-8") as fh:
                fh.write("rulebook docs replaces this folder on every run\n")
        except OSError as exc:
            raise UserError(f"cannot write to {self.root}: {exc.strerror or exc}") from None

    def write(self, rel: str, text: str) -> None:
        path = os.path.join(self.docs, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        if rel.endswith(".md"):
            self.pages += 1
        elif rel.endswith(".svg"):
            self.images += 1

    def config(self, manual_nav: list) -> str:
        """mkdocs.yml: mkdocs-material with its built-in search; only settings Zensical reads."""
        def nav_lines(items, depth=1):
            out = []
            for title, target in items:
                pad = "  " * depth
                if isinstance(target, list):
                    out.append(f"{pad}- {json.dumps(title)}:")
                    out += nav_lines(target, depth + 1)
                else:
                    out.append(f"{pad}- {json.dumps(title)}: {target}")
            return out
        nav = [("Home", "index.md")] + [(t, items) for t, items in self.nav]
        if manual_nav:
            nav.append(("Manual", manual_nav))
        return "\n".join([
            "# Generated by `rulebook docs`; rebuild it rather than edit it.",
            "site_name: Rulebooks",
            "docs_dir: docs",
            "use_directory_urls: false",
            "theme:",
            "  name: material",
            "  font: false  # the system's fonts: the site works offline and loads nothing from elsewhere",
            "  features:",
            "    - navigation.sections",
            "    - search.highlight",
            "plugins:",
            "  - search:",
            "      separator: '[\\s\\-,:!=\\[\\]()\"/]+|(?!\\b)(?=[A-Z][a-z])'",
            "markdown_extensions:",
            "  - tables",
            "  - attr_list",
            "  - toc:",
            "      permalink: true",
            "  - pymdownx.highlight:",
            "      anchor_linenums: true",
            "  - pymdownx.superfences",
            "nav:",
            *nav_lines(nav),
            "",
        ])


def copy_manual(site: Site, manual: str) -> list:
    """The hand-written pages of `manual` (e.g. docs/) under manual/, with their nav entries."""
    nav = []
    try:
        names = sorted(n for n in os.listdir(manual) if n.endswith(".md"))
    except OSError as exc:
        raise UserError(f"cannot read {manual}: {exc.strerror or exc}") from None
    for name in names:
        with open(os.path.join(manual, name), encoding="utf-8") as fh:
            text = fh.read()
        site.write(os.path.join("manual", name), text)
        title = next((line[2:].strip() for line in text.splitlines() if line.startswith("# ")), name[:-3])
        nav.append((title, f"manual/{name}"))
    return nav


def run(args, sources, out) -> int:
    from ..commands.common import EXIT_OK
    from ..frontend import load_program
    from .pages import GamePages
    start = time.perf_counter()
    programs = [load_program(path, sources)[0] for path in args.specs]
    names = [p.name for p in programs]
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise UserError(f"two specs declare the game {dup!r}: each game gets its own section of the site")
    results, meta = verify_results(args.verify_json)
    from .balance import balance_page, read_simulations
    simulations = read_simulations(getattr(args, "simulation", None) or [])
    from .mutations import mutations_page, read_mutations
    mutations = read_mutations(getattr(args, "mutations", None) or [])
    unknown = sorted(set(mutations) - set(names))
    if unknown:  # a report with nowhere to go: a wrong file or a spec left out, not to be dropped silently
        raise UserError(f"--mutations: a `rulebook mutate` report of the game {unknown[0]!r}, which none of the "
                        f"specs given declares (games: {', '.join(names)})")
    site = Site(args.output)
    site.prepare()
    games = []
    for program in programs:
        path = program.spec.path
        reports = reports_for(results, path)
        pages = GamePages(program, sources.texts[path], reports, meta, args.seed)
        nav = pages.write(site)
        if program.name in simulations:  # a Balance page from `rulebook simulate --json` output
            site.write(f"{program.name}/balance.md",
                       balance_page(program.title, program.name, simulations[program.name], site))
            nav.append(("Balance", f"{program.name}/balance.md"))
        if program.name in mutations:  # a Mutations page from `rulebook mutate --json` output
            from ..ir import nodes as N
            known = {rule.id for section in program.spec.of_kind(N.RulesDecl) for rule in section.rules}
            site.write(f"{program.name}/mutations.md",
                       mutations_page(program.title, mutations[program.name], sources.texts[path], known))
            nav.append(("Mutations", f"{program.name}/mutations.md"))
        site.nav.append((program.title, nav))
        games.append(pages.summary())
    manual_nav = copy_manual(site, args.manual) if args.manual else []
    site.write("index.md", index_page(games, manual_nav, meta))
    with open(os.path.join(site.root, "mkdocs.yml"), "w", encoding="utf-8") as fh:
        fh.write(site.config(manual_nav))
    seconds = round(time.perf_counter() - start, 2)
    report = {"output": site.root, "config": os.path.join(site.root, "mkdocs.yml"), "games": games,
              "pages": site.pages, "images": site.images, "verify_json": meta.get("path"), "seconds": seconds}
    out.add(report)
    if not out.as_json:
        print(f"wrote {site.pages} pages and {site.images} pictures for {len(games)} games to {site.root} "
              f"in {seconds} s" + (f" (verify results: {meta['path']})" if meta else " (no verify results)"))
        print(f"build it: mkdocs build --strict -f {report['config']}   (or: zensical build -f {report['config']})")
    return EXIT_OK


def index_page(games: list, manual_nav: list, meta: dict) -> str:
    lines = ["# Rulebooks", "",
             "Each game's rules, written as a formal spec and published from it: the rules rule by rule "
             "with the clauses that implement them, the readings where the rulebook is unclear, what is "
             "proved about the game, worked examples and pictures of positions.", "",
             "| game | players | rules | properties |", "|---|---|---|---|"]
    for g in games:
        lines.append(f"| [{md_escape(g['title'])}]({g['name']}/index.md) | {g['players']} | "
                     f"[{g['rules']} rules]({g['name']}/rules.md) | "
                     f"[{g['properties']} properties]({g['name']}/guarantees.md) |")
    if not meta:
        lines += ["", "No verification results were given: the guarantees pages list the properties "
                  "without their status (`rulebook verify SPEC... --json > build/verify.json`, then "
                  "`make docs`)."]
    if manual_nav:
        lines += ["", "## The manual", ""] + [f"- [{md_escape(t)}]({target})" for t, target in manual_nav]
    return "\n".join(lines) + "\n"


