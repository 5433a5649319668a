"""Every command block of README.md and docs/*.md runs, as a user would run it (issue 17, item 1).

Each fenced `sh` block runs in bash, line by line (`set -e`), in a fresh copy of the
repository whose `.venv` is this test's own environment, importing the copy's code
(PYTHONPATH); each `python` block runs with that environment's Python in the same kind of copy. A block passes when every command
exits 0 — `verify`, which exits 4 when a proof is not found within its budget, may
exit 4 too. Two adjustments, both said here:

- `make` targets are the suite itself (`make test`) or take many minutes (`make
  verify`); they are dry-run (`make -n TARGET`), which checks that each target exists
  and expands;
- `rulebook verify` gets a small `--budget` (the documented commands keep their
  defaults; the property found or proved does not depend on the budget here, only
  how long an unsettled proof may try).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
FENCE = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```", re.M | re.S)
VENV = Path(sys.prefix)  # the virtual environment running this test
VERIFY_BUDGET = "15"
COPY_IGNORE = shutil.ignore_patterns(".git", ".venv", "build", "site", "__pycache__", ".hypothesis",
                                     ".pytest_cache", "*.egg-info", "traces")


def blocks() -> list:
    out = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for m in FENCE.finditer(text):
            language, body = m.group(1), m.group(2)
            if language not in ("sh", "python"):
                continue
            line = text.count("\n", 0, m.start()) + 1
            slow = language == "sh" and "rulebook verify" in body
            out.append(pytest.param(language, body, id=f"{doc.name}:{line}",
                                    marks=[pytest.mark.slow] if slow else []))
    return out


def adjusted(command: str) -> str:
    """The command as the test runs it (see the module docstring)."""
    make = re.match(r"\s*make\s+([\w-]+)", command)
    if make:
        return f"make -n {make.group(1)} > /dev/null"
    if "rulebook verify" in command:
        code, sep, comment = command.partition(" #")
        return code.rstrip() + f" --budget {VERIFY_BUDGET}"
    return command


def script(body: str) -> str:
    lines = ["set -e"]
    for command in body.splitlines():
        if not command.strip() or command.lstrip().startswith("#"):
            continue
        run = adjusted(command)
        if "rulebook verify" in command:  # 4: nothing contradicts the spec, a proof not found in time
            lines.append(f"{run} || [ $? -eq 4 ]")
        else:
            lines.append(run)
    return "\n".join(lines) + "\n"


@pytest.fixture()
def checkout(tmp_path) -> Path:
    copy = tmp_path / "repo"
    shutil.copytree(ROOT, copy, ignore=COPY_IGNORE)
    (copy / ".venv").symlink_to(VENV, target_is_directory=True)
    return copy


def test_there_are_blocks_to_run():
    names = [p.id for p in blocks()]
    assert any(n.startswith("README.md") for n in names) and any(n.startswith("commands.md") for n in names)


def test_make_and_verify_lines_are_adjusted_as_documented():
    assert adjusted("make test     # the suite") == "make -n test > /dev/null"
    assert adjusted(".venv/bin/rulebook verify x.rules --players 2  # note").endswith(
        f"--players 2 --budget {VERIFY_BUDGET}")
    assert adjusted(".venv/bin/rulebook play x.rules") == ".venv/bin/rulebook play x.rules"


@pytest.mark.parametrize("language,body", blocks())
def test_documented_commands_run(language, body, checkout):
    env = dict(os.environ, PATH=f"{checkout / '.venv' / 'bin'}:{os.environ.get('PATH', '')}")
    # the copy's code, whatever the environment's install points at (an editable install of
    # another checkout: a git worktree shares its main tree's .venv)
    env["PYTHONPATH"] = str(checkout)
    if language == "sh":
        argv = ["bash", "-c", script(body)]
    else:
        argv = [str(checkout / ".venv" / "bin" / "python"), "-c", body]
    result = subprocess.run(argv, cwd=checkout, env=env, capture_output=True, text=True, timeout=1200)
    assert result.returncode == 0, f"{body}\n--- stdout\n{result.stdout[-3000:]}\n--- stderr\n{result.stderr[-3000:]}"
    assert "Traceback" not in result.stderr
