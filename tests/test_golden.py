"""Golden diagnostics: every `tests/golden/bad/NAME.rules` is checked with `rulebook check`
and its standard error compared with `NAME.expect`.

An .expect file's first line is the command and its exit code,

    # command: rulebook check tests/golden/bad/NAME.rules (exit 1)

and the rest is the exact expected standard error.  Paths are relative to the
repository root, where the test runs the command.  `UPDATE_GOLDEN=1 pytest
tests/test_golden.py` rewrites the .expect files from the current output
(read the diff before committing it: a golden file is a claim that the
diagnostic is right).
"""
from __future__ import annotations

import difflib
import os
import re
from pathlib import Path

import pytest

from verifier.cli import main

ROOT = Path(__file__).resolve().parents[1]
BAD = ROOT / "tests" / "golden" / "bad"
CASES = sorted(BAD.glob("*.rules"))
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
HEADER = re.compile(r"# command: rulebook (?P<args>.+?) \(exit (?P<code>\d+)\)$")

# Known front-end bugs that make a golden case's output wrong; the case is
# kept (it documents the bug) and marked xfail(strict=True) until fixed.
KNOWN_BUGS: dict[str, str] = {}


def _relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _params():
    for path in CASES:
        marks = [pytest.mark.xfail(strict=True, reason=KNOWN_BUGS[path.stem])] if path.stem in KNOWN_BUGS else []
        yield pytest.param(path, id=path.stem, marks=marks)


def test_there_are_enough_golden_cases():
    assert len(CASES) >= 24
    missing = [p.name for p in CASES if not p.with_suffix(".expect").exists() and not UPDATE]
    assert missing == [], f"no .expect for {missing}; run with UPDATE_GOLDEN=1 and read the result"


@pytest.mark.parametrize("path", _params())
def test_golden(path: Path, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    expect_path = path.with_suffix(".expect")
    rel = _relative(path)
    if UPDATE and path.stem in KNOWN_BUGS:
        pytest.skip("its .expect holds the right output, which the buggy code does not give yet")
    if UPDATE or not expect_path.exists():
        code, out, err = _run(["check", rel], capsys)
        expect_path.write_text(f"# command: rulebook check {rel} (exit {code})\n{err}", encoding="utf-8")
        if not UPDATE:
            pytest.fail(f"wrote a new {expect_path.name}: read it, then run again")
        return
    header, _, expected = expect_path.read_text(encoding="utf-8").partition("\n")
    m = HEADER.match(header)
    assert m, f"{expect_path.name}: first line must be '# command: rulebook check {rel} (exit N)'"
    argv = m["args"].split()
    assert argv[-1] == rel, f"{expect_path.name} runs {argv[-1]}, not {rel}"
    code, out, err = _run(argv, capsys)
    if err != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), err.splitlines(True),
                                            f"{expect_path.name} (expected)", "stderr (actual)"))
        pytest.fail(f"stderr of `rulebook {' '.join(argv)}` differs from {_relative(expect_path)}:\n{diff}\n"
                    f"(UPDATE_GOLDEN=1 rewrites the file: only if the new output is right)", pytrace=False)
    assert code == int(m["code"]), f"exit code {code}, expected {m['code']}\nstderr:\n{err}"
    assert "Traceback" not in err and "internal error" not in err
    if code == 0:
        assert out == f"{rel}: ok" + _warnings_suffix(err) + "\n"
    else:
        assert out == ""


def _warnings_suffix(err: str) -> str:
    n = len(re.findall(r"^\S+:\d+:\d+: warning: ", err, re.M))
    return f" ({n} warning{'s' if n != 1 else ''})" if n else ""


def test_all_golden_cases_in_one_run(capsys, monkeypatch):
    """Several specs in one `check` run: each is reported, the exit code is the worst."""
    monkeypatch.chdir(ROOT)
    rels = [_relative(p) for p in CASES if p.stem in ("unused_var_warning", "type_mismatch", "missing_flow")]
    code, out, err = _run(["check", *rels], capsys)
    assert code == 1
    assert "unused_var_warning.rules: ok (1 warning)" in out
    for rel in rels:
        assert rel + ":" in err
