"""Standing rules of the code base, enforced: z3 in one module, verifier/ game-agnostic."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GAME_WORDS = re.compile(r"ramen|wasabi|sh[oō]yu|ch[aā]sh[uū]|naruto|grunchie|recipe|\bbowls?\b|sushi|goofspiel|"
                        r"tic.?tac", re.I)


def python_files():
    return sorted((ROOT / "verifier").rglob("*.py"))


def test_at_most_one_module_imports_z3():
    importers = [p for p in python_files()
                 if re.search(r"^\s*(import z3|from z3[ .])", p.read_text(), re.M)]
    assert len(importers) <= 1, importers


def test_verifier_knows_no_game():
    offenders = []
    for p in python_files() + [ROOT / "grammar" / "rules.lark"]:
        for n, line in enumerate(p.read_text().splitlines(), 1):
            # a path to a bundled spec in help text is an example, not game logic
            if GAME_WORDS.search(re.sub(r"spec/\S+", "", line)):
                offenders.append(f"{p.relative_to(ROOT)}:{n}: {line.strip()}")
    assert offenders == []
