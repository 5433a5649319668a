"""`rulebook diff` and `rulebook mutate` (issue 14), each test with its expected verdict.

The planted edits are text edits of the bundled specs, written to a temporary directory: Ramen
Ink's bin holds 9, Ramen's shōyu limit dropped, Wasabi!'s hand limit 2 -> 3, and Ramen's
`grunchie_offer` read literally against rejoin. A witness must replay under both specs.
"""
from __future__ import annotations

import json

import pytest

from helpers import ROOT
from verifier.cli import main
from verifier.engine.runtime import Engine
from verifier.frontend import load_program
from verifier.query import check_move, from_history

TTT = ROOT / "spec/examples/tictactoe.rules"


def run_json(capsys, *argv) -> tuple[int, dict]:
    code = main([*argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def edited(tmp_path, spec: str, old: str, new: str, count: int = 1):
    text = (ROOT / spec).read_text(encoding="utf-8")
    assert text.count(old) == count, f"the edit no longer applies to {spec}"
    out = tmp_path / ("edited-" + spec.rsplit("/", 1)[-1])
    out.write_text(text.replace(old, new), encoding="utf-8")
    return str(out)


def replays(spec_path: str, witness: dict, options: dict | None = None):
    """The witness's history, replayed through the spec's engine from its text; the position."""
    engine = Engine(load_program(spec_path)[0])
    return from_history(engine, witness["history"], witness["players"], options or {})


def assert_legal_only_under_new(old_path, new_path, w, old_options=None, new_options=None):
    assert w["kind"] == "legality" and "legal under NEW only" in w["summary"]
    move = w["move"].split(": ", 1)[1]
    assert check_move(replays(old_path, w, old_options), move)["legal"] is False
    assert check_move(replays(new_path, w, new_options), move)["legal"] is True


# ------------------------------------------------------------------ no difference, proved

def test_a_spec_against_itself_is_proved_the_same(capsys):
    code, out = run_json(capsys, "diff", "spec/ramen.rules", "spec/ramen.rules")
    assert code == 0
    rep = out["reports"][0]
    assert rep["structural"]["identical"] and rep["behaviour"]["verdict"] == "same"
    assert "no behavioural difference (proved)" in rep["behaviour"]["sentence"]


def test_comments_layout_order_and_a_rename_are_proved_the_same(tmp_path, capsys):
    text = TTT.read_text(encoding="utf-8")
    text = text.replace("full()", "board_is_full()").replace("def mark_of", "# a comment\n\n\ndef   mark_of")
    a, b = text.index("def line_of"), text.index("def has_line")
    c = text.index("def board_is_full")
    text = text[:a] + text[b:c] + text[a:b] + text[c:]
    new = tmp_path / "renamed.rules"
    new.write_text(text, encoding="utf-8")
    code, out = run_json(capsys, "diff", str(TTT), str(new))
    rep = out["reports"][0]
    assert code == 0 and rep["behaviour"]["verdict"] == "same"
    assert rep["structural"]["renames"] == {"full": "board_is_full"}
    assert rep["structural"]["reordered"]
    assert {c["change"] for c in rep["structural"]["changes"]} == {"renamed", "reordered"}


def test_an_equivalent_rewrite_of_a_requirement_is_proved_the_same_by_z3(tmp_path, capsys):
    new = edited(tmp_path, "spec/examples/tictactoe.rules", ": board[c] == empty", ": not (board[c] != empty)")
    code, out = run_json(capsys, "diff", str(TTT), new)
    rep = out["reports"][0]
    assert code == 0 and rep["behaviour"]["verdict"] == "same" and rep["behaviour"]["method"] == "z3"
    assert rep["behaviour"]["proof"]["verdict"] == "same" and "proved by Z3" in rep["behaviour"]["sentence"]
    assert not rep["structural"]["identical"]  # the text changed: the structural proof could not say it


def test_z3_does_not_prove_a_real_change_the_same(tmp_path, capsys):
    # planted: the requirement lets a move onto x's own marks; and, apart, only the score changed
    new = edited(tmp_path, "spec/examples/tictactoe.rules", ": board[c] == empty", ": board[c] != x")
    code, out = run_json(capsys, "diff", str(TTT), new, "--verify-budget", "0")
    rep = out["reports"][0]
    assert code == 5 and rep["behaviour"]["proof"]["verdict"] == "differs"
    assert "legality of 'place" in rep["behaviour"]["proof"]["reason"]
    scored = edited(tmp_path, "spec/examples/tictactoe.rules", "score p: if has_line(p) then 1", "score p: if has_line(p) then 2")
    from verifier.diff.equivalence import prove_same
    old_program, new_program = load_program(str(TTT))[0], load_program(scored)[0]
    proof = prove_same(old_program, new_program, [2], [{}], [{}])
    assert proof.verdict == "differs" and "scores" in proof.reason


def test_z3_does_not_judge_weighted_chance(tmp_path):
    # planted: piglet's odds changed (the weights are not in the transition relation): no proof
    from verifier.diff.equivalence import prove_same
    new = edited(tmp_path, "spec/examples/pig.rules", "else 1 - 1 / diceoutcomes", "else 1 - 2 / diceoutcomes")
    old_program, new_program = load_program(str(ROOT / "spec/examples/pig.rules"))[0], load_program(new)[0]
    proof = prove_same(old_program, new_program, [2], [{}], [{}])
    assert proof.verdict == "skipped" and "weighted" in proof.reason


def test_a_rule_text_edit_is_structural_only(tmp_path, capsys):
    new = edited(tmp_path, "spec/ramen_ink.rules", '@I-D6 "', '@I-D6 "Reworded: ')
    code, out = run_json(capsys, "diff", "spec/ramen_ink.rules", new)
    rep = out["reports"][0]
    assert code == 0 and rep["behaviour"]["verdict"] == "same"
    assert [(c["change"], c["kind"], c["name"]) for c in rep["structural"]["changes"]] == [("changed", "rule", "I-D6")]


# ------------------------------------------------------------------ planted edits: witnesses

def test_ramen_ink_bin_limit_9(tmp_path, capsys):
    new = edited(tmp_path, "spec/ramen_ink.rules", "const BIN_SIZE: 8..8 = 8", "const BIN_SIZE: 9..9 = 9")
    code, out = run_json(capsys, "diff", "spec/ramen_ink.rules", new, "--players", "2", "--verify-budget", "0")
    assert code == 5
    rep = out["reports"][0]
    assert [(c["change"], c["kind"], c["name"]) for c in rep["structural"]["changes"]] == [("changed", "const",
                                                                                            "BIN_SIZE")]
    w = rep["behaviour"]["witnesses"][0]
    assert w["replayed"]  # the witness as shortened: replayed, and the difference seen again
    assert w["steps"] <= w["found_steps"]
    assert_legal_only_under_new("spec/ramen_ink.rules", new, w)
    assert any(r["rules"] and "I-D6" in r["rules"] for r in w["responsible"])


def test_ramen_shoyu_limit_dropped(tmp_path, capsys):
    new = edited(tmp_path, "spec/ramen.rules", '@R-B2: shoyu_fits(p, b)', '@R-B2: b < started[p]')
    code, out = run_json(capsys, "diff", "spec/ramen.rules", new, "--players", "2", "--verify-budget", "0")
    assert code == 5
    w = out["reports"][0]["behaviour"]["witnesses"][0]
    assert w["replayed"]
    assert_legal_only_under_new("spec/ramen.rules", new, w)


@pytest.mark.slow  # the directed search for two cards in hand is random play: slower on a loaded machine
def test_wasabi_hand_limit_3(tmp_path, capsys):
    new = edited(tmp_path, "spec/wasabi.rules", "card_count(current) < 2", "card_count(current) < 3", count=2)
    code, out = run_json(capsys, "diff", "spec/wasabi.rules", new, "--players", "2", "--games", "60",
                         "--budget", "80", "--verify-budget", "0")
    assert code == 5
    w = out["reports"][0]["behaviour"]["witnesses"][0]
    assert w["replayed"]
    limit = {"turn_limit": "120"}  # diff plays with the options' finite values (games must end)
    assert_legal_only_under_new("spec/wasabi.rules", new, w, limit, limit)


def test_a_changed_requirement_is_aimed_at_where_its_move_is_offered(tmp_path):
    """The directed target joins the changed guard with the `while` around the move (a state with two
    cards in hand is common; one where a reward is also being taken is what shows the difference)."""
    from verifier.diff import behaviour as B, structural as S
    new = edited(tmp_path, "spec/wasabi.rules", "card_count(current) < 2", "card_count(current) < 3", count=2)
    old_program, new_program = load_program("spec/wasabi.rules")[0], load_program(new)[0]
    structure = S.compare(old_program.spec, new_program.spec, {})
    bare = "not ((card_count(current) < 2) == (card_count(current) < 3))"
    assert B.guard_targets(structure) == [bare]
    assert B.guard_targets(structure, old_program.spec) == [bare + " and (rewards > 0)", bare]


BRANCHES = """
game branches "Branches"
players 2
var a: 0..5 = 0
var b: 0..5 = 0
flow {
  while a < 5 {
    for p in players {
      if a == 0 {
        choose p { move first() "first" { a += 1 } }
      } elif p == 0 and b < 3 {
        choose p { move second() "second" { b += 1 } }
      } else {
        choose p { move third() "third" { a += 1 } }
      }
    }
  }
}
outcome { score p: a }
"""


def test_enclosing_conditions_negate_earlier_branches_and_skip_flow_locals():
    from verifier.diff.behaviour import enclosing_conditions
    from verifier.frontend import check_text
    from verifier.ir.printer import print_expr
    program, _ = check_text(BRANCHES, "branches.rules")
    said = {m: [print_expr(e) for e in enclosing_conditions(program.spec, m)] for m in ("first", "second", "third")}
    assert said["first"] == ["a < 5", "a == 0"]
    assert said["second"] == ["a < 5", "not a == 0"]  # `p == 0 and b < 3` reads the for variable
    assert said["third"] == ["a < 5", "not a == 0"]
    assert enclosing_conditions(program.spec, "no_such_move") == []


COUNTER = """
game counter "Counter"
players 2
enum Colour { red "Red", blue "Blue" }
var a: 0..9 = 0
var painted: array[Player] of set of Colour = {}
flow {
  while a < 9 {
    for p in players {
      choose p {
        move one() "one" require room "a stays within 9": a <= 8 { a += 1 }
        move two() "two" require room "a stays within 9": a <= 7 { a += 2 }
        move wait() "wait" { a += 0 }
        move paint(c: Colour) "paint {c}" { add c to painted[p] }
        move finish() "finish" require ready "a has reached 3": a >= 3 { a = 9 }
      }
    }
  }
}
outcome { score p: a }
"""


def counter_pair(new_text: str):
    from verifier.diff import behaviour as B, structural as S
    from verifier.engine.runtime import Game
    from verifier.frontend import check_text
    old, _ = check_text(COUNTER, "old.rules")
    new, _ = check_text(new_text, "new.rules")
    structure = S.compare(old.spec, new.spec, {})
    ctx = B.Context(old.spec, new.spec, structure, B.touched_moves(structure, old.spec, new.spec))
    return Game(Engine(old), 2, {}), Game(Engine(new), 2, {}), ctx


def test_a_witness_is_shortened_to_the_fewest_steps():
    """`finish` needs a >= 3 under OLD, a >= 4 under NEW: the difference shows once a is 3. A padded
    history (waits, single steps) is cut to two steps: dropping the waits leaves one, one, one, and
    only replacing a step (two for one) gets below that. One step cannot show it: a shortener that
    kept a candidate without the difference would go below two."""
    from verifier.diff import behaviour as B
    from verifier.diff.run import confirm
    old, new, ctx = counter_pair(COUNTER.replace("a >= 3", "a >= 4"))
    wait, one = 2, 0
    names = [old.new_initial_state().action_to_string(0, a) for a in (wait, one)]
    assert names == ["wait", "one"]
    pair = B.Lockstep(old, new, ctx.structure.renames, ctx)
    found = B.follow(pair, [wait, one, wait, wait, one, wait, one, wait, wait])
    assert found.kind == "legality" and len(found.old_steps) == 7  # the difference shows after the third one
    short = B.shorten(found, old, new, ctx, seconds=30)
    assert len(short.old_steps) == 2 and short.found_steps == 7 and short.key == found.key
    assert sorted(t.split(": ")[1] for t in short.old_texts) == ["one", "two"]
    assert "finish is legal under OLD only" in short.summary
    assert confirm(short, old, new, ctx)  # replays through fresh engines, by id and by text
    assert B.shorten(found, old, new, ctx, seconds=0) is found  # no time: the witness as found


def test_a_successor_difference_is_shown_as_the_spec_shows_values():
    """A set shows its members by their display names, an array the entries that differ; not the
    engine's bitmasks and lists."""
    from verifier.diff import behaviour as B
    old, new, ctx = counter_pair(COUNTER.replace("add c to painted[p]", "add red to painted[p]"))
    pair = B.Lockstep(old, new, ctx.structure.renames, ctx)
    paint_blue = next(a for a in old.new_initial_state().legal_actions(0)
                      if old.new_initial_state().action_to_string(0, a) == "paint Blue")
    w = B.replay(pair, [], B.Witness("successor", 2, "", "", "", move_old=paint_blue, move_new=paint_blue))
    assert w.kind == "successor" and w.move == "P1: paint Blue"
    assert w.old_says == "painted[P1]: {Blue} (only here: Blue)"
    assert w.new_says == "painted[P1]: {Red} (only here: Red)"


def test_grunchie_offer_readings(capsys):
    code, out = run_json(capsys, "diff", "spec/ramen.rules", "spec/ramen.rules", "--players", "2",
                         "--old-option", "grunchie_offer=literal", "--verify-budget", "0")
    assert code == 5
    rep = out["reports"][0]
    assert rep["structural"]["identical"]
    assert rep["old_options"]["grunchie_offer"] == "literal" and rep["new_options"]["grunchie_offer"] == "rejoin"
    w = rep["behaviour"]["witnesses"][0]
    assert w["replayed"]
    old = replays("spec/ramen.rules", w, {"grunchie_offer": "literal"})
    new = replays("spec/ramen.rules", w, {"grunchie_offer": "rejoin"})
    assert old.state.history == new.state.history  # one history, valid under both readings


def test_text_output_and_verification_layer(tmp_path, capsys):
    new = edited(tmp_path, "spec/examples/tictactoe.rules", "board[c] == empty\n", "board[c] == empty or c == 4\n")
    code = main(["diff", str(TTT), new, "--verify-budget", "5"])
    text = capsys.readouterr().out
    assert code == 5
    for part in ("Structure", "requirement empty_cell changed", "Behaviour", "is legal under NEW only",
                 "replay (confirmed", "rulebook query", "Verification", "reused from verify's cache"):
        assert part in text


# ------------------------------------------------------------------ bad input

def test_bad_input(tmp_path, capsys):
    code, out = run_json(capsys, "diff", str(TTT), str(TTT), "--option", "nope=1")
    assert code == 1 and out["error"]["kind"] == "input" and "nope" in out["error"]["message"]
    code, out = run_json(capsys, "diff", str(TTT), str(tmp_path / "missing.rules"))
    assert code == 1 and out["error"]["kind"] == "spec"
    bad = tmp_path / "bad.rules"
    bad.write_text("game x \"X\"\nplayers 2\nvar v: 0..3 = \n", encoding="utf-8")
    code, out = run_json(capsys, "diff", str(TTT), str(bad))
    assert code == 1 and out["error"]["diagnostics"][0]["line"] >= 3
    code, out = run_json(capsys, "diff", str(TTT))
    assert code == 2 and out["error"]["kind"] == "usage"
    code, out = run_json(capsys, "diff", str(TTT), str(TTT), "--players", "3")
    assert code == 1 and "3 players" in out["error"]["message"]


def test_help_documents_exit_codes(capsys):
    assert main(["diff", "--help"]) == 0
    text = capsys.readouterr().out
    assert "Exit codes: 0" in text and "5 behavioural differences" in text


# ------------------------------------------------------------------ mutate

def test_mutants_cover_the_operators():
    from verifier.diff.mutants import generate
    program, _ = load_program(str(ROOT / "spec/ramen_ink.rules"))
    ops = {m.operator for m in generate(program.spec)}
    assert {"drop_require", "negate_require", "comparison", "logic", "number", "drop_statement", "widen_range",
            "swap_entries"} <= ops


def test_mutate_tictactoe_json(capsys):
    code, out = run_json(capsys, "mutate", str(TTT), "--max-mutants", "10", "--jobs", "2", "--budget", "3",
                         "--diff-budget", "2", "--games", "20")
    assert code == 0
    rep = out["reports"][0]
    assert rep["verify_budget"] == 3 and rep["diff_budget"] == 2
    assert all(r["seconds"] >= 0 for r in rep["results"])
    assert rep["run"] == 10 and 0 <= rep["kill_rate"] <= 1
    assert rep["killed"] + rep["survived"] + rep["equivalent"] + rep["invalid"] + rep["error"] == 10
    assert rep["error"] == 0
    assert rep["killed"] >= 1  # dropping the one requirement makes well_formed fail
    for s in rep["survivors"]:
        assert s["diff"].startswith("--- original") and s["catch"]


def test_mutate_bad_budgets(capsys):
    for flag in ("--budget", "--diff-budget"):
        code, out = run_json(capsys, "mutate", str(TTT), flag, "0")
        assert code == 2 and out["error"]["kind"] == "usage" and flag in out["error"]["message"]


@pytest.mark.slow
def test_mutate_on_ray(capsys):
    pytest.importorskip("ray")
    code, out = run_json(capsys, "mutate", str(TTT), "--max-mutants", "4", "--ray", "local", "--budget", "3",
                         "--games", "10")
    assert code == 0 and out["reports"][0]["run"] == 4 and out["reports"][0]["error"] == 0


def test_docs_site_gets_a_mutations_page(tmp_path, capsys):
    import os
    import subprocess
    import sys
    code, out = run_json(capsys, "mutate", "spec/examples/nim.rules", "--max-mutants", "8", "--budget", "2",
                         "--games", "10", "--jobs", "1")
    assert code == 0
    rep = out["reports"][0]
    assert rep["game"] == "nim" and rep["survivors"]  # the page below is checked against them
    mut = tmp_path / "mutate.json"
    mut.write_text(json.dumps(out), encoding="utf-8")
    site = tmp_path / "site"
    assert main(["docs", "spec/examples/nim.rules", "spec/examples/tictactoe.rules", "-o", str(site),
                 "--mutations", str(mut)]) == 0
    page = (site / "docs" / "nim" / "mutations.md").read_text(encoding="utf-8")
    assert f"**Kill rate {100 * rep['kill_rate']:.0f}%**: {rep['killed']} killed, {rep['survived']} survived" in page
    for s in rep["survivors"]:
        assert f"#### Mutant {s['id']}: " in page
        for rule in s["rules"]:
            assert f"[@{rule}](rules.md#{rule})" in page  # linked to the rule on the game's rules page
        line = s["at"].rsplit(":", 2)[1]
        assert f"[line {line}](source.md#__codelineno-0-{line})" in page
    assert "Stale results" not in page
    assert "nim/mutations.md" in (site / "mkdocs.yml").read_text(encoding="utf-8")
    assert not (site / "docs" / "tictactoe" / "mutations.md").exists()
    built = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-f",
                            str(site / "mkdocs.yml"), "-d", str(tmp_path / "built")], capture_output=True,
                           text=True, env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))
    assert built.returncode == 0, built.stderr
    html = (tmp_path / "built" / "nim" / "mutations.html").read_text(encoding="utf-8")
    for s in rep["survivors"]:  # the links resolve: the anchors exist on the pages they point to
        line = s["at"].rsplit(":", 2)[1]
        assert f'id="__codelineno-0-{line}"' in (tmp_path / "built" / "nim" / "source.html").read_text(encoding="utf-8")
        for rule in s["rules"]:
            assert f'id="{rule}"' in (tmp_path / "built" / "nim" / "rules.html").read_text(encoding="utf-8")
    assert "Kill rate" in html
    capsys.readouterr()
    # the spec changed since the run: said, and no links to lines that may have moved; a mutant a
    # tool failed on is listed with its error
    out["reports"][0]["spec_sha256"] = "0" * 64
    out["reports"][0]["results"].append({**rep["results"][0], "id": 999, "status": "error",
                                         "by": "the process died of signal 11 (SIGSEGV) without answering"})
    mut.write_text(json.dumps(out), encoding="utf-8")
    assert main(["docs", "spec/examples/nim.rules", "-o", str(tmp_path / "site2"), "--mutations", str(mut)]) == 0
    page = (tmp_path / "site2" / "docs" / "nim" / "mutations.md").read_text(encoding="utf-8")
    assert "Stale results" in page and "source.md#" not in page
    assert "### Errors (1)" in page and "| 999 |" in page and "signal 11 (SIGSEGV)" in page
    capsys.readouterr()
    # not mutate's output; a report of a game no spec given declares
    bad = tmp_path / "bad.json"
    bad.write_text('{"reports": [{"kind": "simulation"}]}', encoding="utf-8")
    assert main(["docs", "spec/examples/nim.rules", "-o", str(tmp_path / "site3"), "--mutations", str(bad)]) == 1
    assert "not the output of `rulebook mutate --json`" in capsys.readouterr().err
    assert main(["docs", "spec/examples/tictactoe.rules", "-o", str(tmp_path / "site4"), "--mutations", str(mut)]) == 1
    assert "the game 'nim', which none of the specs given declares" in capsys.readouterr().err


def test_mutate_stops_verify_at_a_violation_the_original_does_not_have():
    """A kill needs one new violation, never a proof: `enough` ends verify's budget there (the proofs
    are not tried), and a violation the original has too does not end it."""
    from verifier.frontend import check_text
    from verifier.verify.run import Budget, verify
    text = COUNTER.replace("outcome {", 'invariant bounded "a stays in range": a <= 9\n'
                                        'invariant small "a stays small": a < 2\noutcome {')
    program, diags = check_text(text, "counter.rules")
    assert program is not None, diags
    budget = Budget(games=50, timeout=5, proof=30, falsify=5)

    def statuses(enough):
        return {r.name: r.status for r in verify(program, {}, [2], budget, enough=enough).results}

    full = statuses(None)
    assert full["small"] == "violated" and full["bounded"] == "proved"
    stopped = statuses(lambda found: bool(found - set()))
    assert stopped["small"] == "violated" and stopped["bounded"] == "unknown"  # no proof tried after the kill
    known = statuses(lambda found: bool(found - {"small"}))  # the original violates `small` too: go on
    assert known["small"] == "violated" and known["bounded"] == "proved"


def test_a_mutant_whose_process_dies_is_an_error_not_a_hang():
    """Each mutant runs in a child of its own: a crash of native code (planted: the child sends
    itself SIGSEGV, as libz3 did), an exception or a hang is that task's error; the others answer,
    in order."""
    import os
    import signal
    import time as clock
    from verifier.diff.mutate import forked

    def crash():
        os.kill(os.getpid(), signal.SIGSEGV)

    def hang():
        clock.sleep(60)

    def fail():
        raise ValueError("planted")

    tasks = [lambda: 1, crash, lambda: {"two": 2}, hang, fail, lambda: 3]
    seen = []
    got = forked(tasks, 2, seconds=3, done=seen.append)
    assert got[0] == ("ok", 1) and got[2] == ("ok", {"two": 2}) and got[5] == ("ok", 3)
    assert got[1][0] == "error" and "signal 11 (SIGSEGV)" in got[1][1]
    assert got[3] == ("error", "took longer than 3 s: stopped")
    assert got[4] == ("error", "ValueError: planted")
    assert seen == [1, 2, 3, 4, 5, 6]
