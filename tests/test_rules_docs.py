"""Rules declared in the spec, `rulebook coverage`, `rulebook docs` (without a browser), the
display items, the SVG pictures and the Pygments lexer. The browser checks of the built site
are in test_site_browser.py."""
from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from verifier.cli import main
from verifier.diagnostics import has_errors
from verifier.frontend import check_text

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "verify_small.json"
SEEDS = sorted(glob.glob(str(ROOT / "spec" / "*.rules")))
ALL = SEEDS + sorted(glob.glob(str(ROOT / "spec" / "examples" / "*.rules")))

BASE = '''game g "G"
players 2
var v: 0..3 = 0 @G-T1
flow { v = 1 @G-T2 }
outcome { score p: v }
'''
RULES = '''rules setup "Setup" { @G-T1 "v starts at 0" }
rules turn "Turn" { @G-T2 "the turn sets v to 1" }
'''


def codes(text: str):
    program, diags = check_text(text, "g.rules")
    return program, [(d.severity.value, d.code, d.message) for d in diags], diags


def test_every_cited_rule_must_be_declared_with_a_did_you_mean():
    program, got, diags = codes(BASE + 'rules setup "Setup" { @G-T1 "x" @G-T3 "y" }\n')
    assert program is None
    assert ("error", "unknown-rule", "no rule declares @G-T2") in got
    d = next(d for d in diags if d.code == "unknown-rule")
    assert (d.span.line, d.span.col) == (4, 14) and "did you mean '@G-T3'?" in d.notes


def test_a_spec_without_rules_that_cites_is_told_to_declare_them():
    program, got, diags = codes(BASE)
    assert program is None and [c for _, c, _ in got].count("unknown-rule") == 2
    assert any("declares no rules" in n for n in diags[0].notes)


def test_uncited_rules_warn_and_strict_makes_them_errors(tmp_path, capsys):
    program, got, _ = codes(BASE + RULES + 'rules end "End" { @G-E1 "nobody cites this" }\n')
    assert program is not None and ("warning", "uncited-rule", "rule @G-E1 is declared but no clause cites it") in got
    spec = tmp_path / "g.rules"
    spec.write_text(BASE + RULES + 'rules end "End" { @G-E1 "nobody cites this" }\n', encoding="utf-8")
    assert main(["check", str(spec)]) == 0
    assert main(["check", "--strict", str(spec)]) == 1
    assert "error: rule @G-E1 is declared but no clause cites it" in capsys.readouterr().err


def test_duplicate_ids_and_sections_out_of_order():
    program, got, _ = codes(BASE + 'rules turn "Turn" { @G-T2 "a" @G-T1 "b" }\nrules setup "S" { @G-T1 "c" }\n')
    assert program is None
    assert ("error", "duplicate", "rule @G-T1 is already declared") in got
    assert any(c == "section-order" for _, c, _ in got)


def test_the_seed_specs_declare_every_rule_they_cite_and_cite_every_rule_they_declare():
    assert main(["check", "--strict", *SEEDS]) == 0


@pytest.mark.parametrize("item, message", [
    ('grids "B": v', "unknown display kind 'grids'"),
    ('board "B": v', "a 'board' draws an array over a grid type"),
    ('row "R": v', "a 'row' draws an array"),
    ('value "V" for x in 1..3: x', "a 'value' shows one value"),
    ('cards "C" per p: w[p]', "unknown name 'w'"),
])
def test_display_items_are_checked(item, message):
    program, got, _ = codes(BASE + RULES + "display { " + item + " }\n")
    assert program is None and any(message in m for _, _, m in got), got


def test_display_items_bind_the_player_and_the_item():
    program, got, _ = codes(BASE + RULES + 'display { row "R" per p for x in 1..3: x + p value "V": v }\n')
    assert program is not None and not [g for g in got if g[0] == "error"], got
    assert [d.kind for d in program.displays] == ["row", "value"]


def run_cli(*args) -> tuple[int, dict]:
    proc = subprocess.run([sys.executable, "-m", "verifier.cli", *args], cwd=ROOT, capture_output=True, text=True)
    return proc.returncode, json.loads(proc.stdout) if "--json" in args else proc


def test_coverage_lists_the_clauses_of_every_rule():
    code, out = run_cli("coverage", str(ROOT / "spec" / "ramen_ink.rules"), "--json")
    assert code == 0
    report = out["reports"][0]
    assert report["declared"] == report["cited"] == len(report["rules"]) and report["uncited"] == []
    d4 = next(r for r in report["rules"] if r["id"] == "I-D4")
    assert d4["section"] == "Drawing" and "6 fields" in d4["text"]
    kinds = {(c["kind"], c["name"]) for c in d4["cited_by"]}
    assert ("invariant", "bowl_capacity") in kinds and ("def", "fits") in kinds
    assert all(set(c) == {"kind", "name", "context", "where", "line", "end_line"} for c in d4["cited_by"])


def test_coverage_of_a_spec_with_an_undeclared_rule_is_a_spec_error(tmp_path):
    spec = tmp_path / "g.rules"
    spec.write_text(BASE, encoding="utf-8")
    code, out = run_cli("coverage", str(spec), "--json")
    assert code == 1 and out["error"]["kind"] == "spec" and out["reports"] == []
    assert out["error"]["diagnostics"][0]["code"] == "unknown-rule"


def test_docs_writes_every_page_and_marks_stale_results(tmp_path):
    spec = ROOT / "spec" / "examples" / "tictactoe.rules"
    data = json.loads(FIXTURE.read_text(encoding="utf-8"))
    text = spec.read_text(encoding="utf-8")
    import hashlib
    fresh, stale = dict(data), json.loads(json.dumps(data))
    fresh["reports"] = [dict(r, spec_sha256=hashlib.sha256(text.encode()).hexdigest(), finished="2026-01-02T03:04:05+00:00")
                        for r in data["reports"]]
    stale["reports"] = [dict(r, spec_sha256="0" * 64) for r in data["reports"]]
    for name, payload, is_stale in (("fresh", fresh, False), ("stale", stale, True)):
        vj = tmp_path / f"{name}.json"
        vj.write_text(json.dumps(payload), encoding="utf-8")
        out = tmp_path / name
        code, report = run_cli("docs", str(spec), "-o", str(out), "--verify-json", str(vj), "--json")
        assert code == 0, report
        pages = {p.name for p in (out / "docs" / "tictactoe").iterdir()}
        assert {"index.md", "rules.md", "readings.md", "guarantees.md", "examples.md", "game.md", "source.md",
                "img"} <= pages
        guarantees = (out / "docs" / "tictactoe" / "guarantees.md").read_text(encoding="utf-8")
        assert ("Stale results" in guarantees) == is_stale
        assert "termination" in guarantees and "❔ unknown" in guarantees  # as the fixture says
        if not is_stale:
            assert "2026-01-02T03:04:05+00:00" in guarantees
        assert (out / "mkdocs.yml").read_text(encoding="utf-8").startswith("# Generated by `rulebook docs`")


def test_docs_without_verify_results_says_so(tmp_path):
    spec = ROOT / "spec" / "examples" / "goofspiel.rules"
    # run where there is no build/verify.json (`make verify` leaves one in the checkout)
    proc = subprocess.run([sys.executable, "-m", "verifier.cli", "docs", str(spec), "-o", str(tmp_path / "out")],
                          cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    page = (tmp_path / "out" / "docs" / "goofspiel" / "guarantees.md").read_text(encoding="utf-8")
    assert "Not verified" in page


@pytest.mark.parametrize("content, message", [
    ("not json", "is not JSON"),
    ('{"reports": [{"spec": "x"}]}', "is not the output of `rulebook verify --json`"),
])
def test_a_bad_verify_json_is_the_users_error(tmp_path, content, message):
    vj = tmp_path / "v.json"
    vj.write_text(content, encoding="utf-8")
    code, out = run_cli("docs", str(ROOT / "spec" / "examples" / "tictactoe.rules"), "-o", str(tmp_path / "o"),
                        "--verify-json", str(vj), "--json")
    assert code == 1 and out["error"]["kind"] == "input" and message in out["error"]["message"]


def test_svg_escapes_what_the_spec_writes():
    from verifier.docs.svg import state_svg
    svg = state_svg([{"kind": "cards", "title": "<b>&", "player": None, "data": ['</svg><script>', 'a"b']},
                     {"kind": "board", "title": "B", "player": 0, "data": (1, 2, ["x", "<"])},
                     {"kind": "value", "title": "V", "player": 1, "error": "no <state>"}], "t<")
    assert "<script>" not in svg and "&lt;/svg&gt;&lt;script&gt;" in svg and "&lt;b&gt;&amp;" in svg
    import xml.dom.minidom
    xml.dom.minidom.parseString(svg)  # well formed


def test_the_lexer_is_registered_and_reads_every_spec_without_errors():
    from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
    from pygments.token import Error, Keyword, Name
    lexer = get_lexer_by_name("rules")
    assert type(get_lexer_for_filename("x.rules")) is type(lexer)
    for path in ALL:
        tokens = list(lexer.get_tokens(Path(path).read_text(encoding="utf-8")))
        assert not [t for t in tokens if t[0] is Error], path
    tokens = list(lexer.get_tokens('invariant cap "s" @I-D4: x <= 6'))
    assert (Keyword.Declaration, "invariant") in tokens and (Name.Label, "@I-D4") in tokens


def test_docs_never_replaces_a_folder_it_did_not_write(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "manual.md").write_text("# hand-written\n", encoding="utf-8")
    code, out = run_cli("docs", str(ROOT / "spec" / "examples" / "tictactoe.rules"), "-o", str(tmp_path), "--json")
    assert code == 1 and "was not written by `rulebook docs`" in out["error"]["message"]
    assert (tmp_path / "docs" / "manual.md").exists()


def test_the_score_table_says_which_bounds_came_from_enumerating_every_end():
    from verifier.docs.pages import GamePages
    pages = object.__new__(GamePages)  # the table reads nothing of the game but the report
    enumerated = {"players": 2, "player": 0, "proved": [0, 24], "witness": [0, 24], "gap": 0, "by": "exhaustive"}
    solved = {"players": 2, "player": 1, "proved": [0, 27], "witness": [0, 24], "gap": 3}
    rows = [line for line in pages.bounds({"score_bounds": [enumerated, solved]}) if line.startswith("| 2 |")]
    assert rows == ["| 2 | 1 | [0, 24] (every end enumerated) | [0, 24] | 0 |", "| 2 | 2 | [0, 27] | [0, 24] | 3 |"]
