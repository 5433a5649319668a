"""A front end that grows with its input, not faster (issue 17, item 9), checked by counting work,
never by timing it (benchmarks/frontend_size.py prints the seconds).

Each fix has a regression test: the call graph's cycles are found once (a chain of definitions
is not searched from every link), "did you mean" is computed for a bounded number of unknown
names, the cycle collector is off while the front end builds, a correct spec never reaches
lark, long flat expressions are accepted, a limit that stays has a location, an invalid escape
is called one, and `check` caps what it prints per kind of diagnostic.
"""
from __future__ import annotations

import difflib
import gc
import importlib

import pytest

from verifier.cli import main
from verifier.diagnostics import has_errors
from verifier.frontend import check_text
from verifier.frontend.typecheck import SUGGESTIONS
from helpers import engine_from_text
from verifier.engine.runtime import Game

# the modules (the package's names `typecheck` and `parse_text` are functions)
typecheck_module = importlib.import_module("verifier.frontend.typecheck")
parse_module = importlib.import_module("verifier.frontend.parse")

HEAD = 'game big "Big"\nplayers 2\nvar turn: Player = 0\nvar t: 0..9 = 0\n'
TAIL = 'flow { choose turn { move go() "go" { t = 1 } } }\noutcome { score p: SCORE }\n'


def spec(body: str, score: str = "0") -> str:
    return HEAD + body + TAIL.replace("SCORE", score)


def chain_of_defs(n: int) -> str:
    return spec("def d0(): 0..9 = t\n" + "".join(f"def d{i}(): 0..9 = d{i - 1}()\n" for i in range(1, n))
                + f'invariant last "the last one": d{n - 1}() <= 9\n')


def visits_while_checking(text: str, monkeypatch) -> int:
    """IR nodes the type checker's recursion check walks."""
    count = [0]
    real = typecheck_module.walk

    def counting(node):
        for x in real(node):
            count[0] += 1
            yield x
    monkeypatch.setattr(typecheck_module, "walk", counting)
    program, diags = check_text(text, "big.rules")
    assert program is not None, [d.message for d in diags]
    return count[0]


def test_a_chain_of_definitions_is_walked_a_bounded_number_of_times(monkeypatch):
    small = visits_while_checking(chain_of_defs(500), monkeypatch)
    large = visits_while_checking(chain_of_defs(1000), monkeypatch)
    assert large < 2.2 * small  # twice the definitions, twice the work (a search per link: four times)


def test_recursion_is_still_found_through_a_long_cycle():
    text = spec("".join(f"def d{i}(): 0..9 = d{(i + 1) % 300}()\n" for i in range(300)))
    program, diags = check_text(text, "big.rules")
    messages = [d.message for d in diags if d.code == "recursion"]
    assert len(messages) == 300 and "'d0' calls itself through 'd1' -> 'd2'" in messages[0]


def test_did_you_mean_is_searched_for_a_bounded_number_of_unknown_names(monkeypatch):
    calls = [0]
    real = difflib.get_close_matches

    def counting(*args, **kw):
        calls[0] += 1
        return real(*args, **kw)
    monkeypatch.setattr(difflib, "get_close_matches", counting)
    text = spec("".join(f"const c{i}: 0..9 = 1\nvar v{i}: 0..9 = cx{i}\n" for i in range(500)))
    program, diags = check_text(text, "big.rules")
    unknown = [d for d in diags if d.code == "unknown-name"]
    assert len(unknown) == 500 and calls[0] == SUGGESTIONS
    assert unknown[0].notes[0].startswith("did you mean 'c")
    assert unknown[-1].notes == ("check the spelling, or declare it",)


def test_the_front_end_runs_without_the_cycle_collector(monkeypatch):
    seen = []
    real = typecheck_module.typecheck

    def spy(spec_ir):
        seen.append(gc.isenabled())
        return real(spec_ir)
    monkeypatch.setattr("verifier.frontend.typecheck", spy)
    was = gc.isenabled()
    check_text(spec(""), "big.rules")
    assert seen == [False] and gc.isenabled() == was


def test_a_correct_spec_never_reaches_lark(monkeypatch):
    def refuse(*args, **kw):
        raise AssertionError("lark parsed a correct spec")
    monkeypatch.setattr(parse_module, "parse_text", refuse)
    monkeypatch.setattr("verifier.frontend.parse_text", refuse)
    program, diags = check_text(chain_of_defs(20), "big.rules")
    assert program is not None and diags == []


def test_a_flat_sum_of_400_terms_is_accepted_and_runs():
    total = "+".join(["1"] * 400)
    engine = engine_from_text(spec("", total))
    state = Game(engine, 2).new_initial_state()
    state.apply_action(0)
    assert state.is_terminal() and state.scores() == [400, 400]


@pytest.mark.parametrize("conjunction", [" and ", " or "])
def test_long_flat_conditions_are_accepted(conjunction):
    cond = conjunction.join(["t <= 9"] * 400)
    engine_from_text(spec(f'invariant many "a long condition": {cond}\n'))


def test_a_limit_that_stays_says_where(capsys, tmp_path):
    path = tmp_path / "huge.rules"
    path.write_text(spec("", "+".join(["1"] * 30_000)), encoding="utf-8")
    capsys.readouterr()
    assert main(["check", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"{path}:6:1: error: the spec nests expressions too deeply to process" in err  # the outcome


def test_an_invalid_escape_is_called_one(capsys, tmp_path):
    path = tmp_path / "escape.rules"
    path.write_text('game g "G\\tH"\nplayers 2\n', encoding="utf-8")
    capsys.readouterr()
    assert main(["check", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:1:10: error: invalid escape '\\t' in a string") and "unterminated" not in err


def test_check_prints_a_few_errors_of_a_kind_and_counts_the_rest(capsys, tmp_path):
    path = tmp_path / "errors.rules"
    path.write_text(spec("".join(f"var v{i}: 0..9 = true\n" for i in range(50))), encoding="utf-8")
    capsys.readouterr()
    assert main(["check", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.count(": error: ") == 20  # 50 of one kind: the first 20, then a count
    assert f"{path}: ... and 30 more errors of this kind" in err
    assert "more errors of this kind" in err
    assert len(err.splitlines()) < 200


def test_generated_sizes_check_cleanly():
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import frontend_size
    for variant, errors in (("ok", False), ("warnings", False), ("errors", True)):
        program, diags = check_text(frontend_size.generate(50, variant), "gen.rules")
        assert has_errors(diags) == errors, (variant, [d.message for d in diags][:3])
