"""Build engines from spec files or texts, for tests."""
from __future__ import annotations

from pathlib import Path

from verifier.diagnostics import has_errors
from verifier.engine.runtime import Engine, Game
from verifier.frontend import check_text, load_program

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "spec" / "examples"
SPEC_PATHS = {  # every bundled spec, by short name
    "tictactoe": EXAMPLES / "tictactoe.rules",
    "goofspiel": EXAMPLES / "goofspiel.rules",
    "pig": EXAMPLES / "pig.rules",
    "ramen": ROOT / "spec" / "ramen.rules",
    "ramen_ink": ROOT / "spec" / "ramen_ink.rules",
    "wasabi": ROOT / "spec" / "wasabi.rules",
}


def engine_for(path: Path | str) -> Engine:
    program, _ = load_program(str(path))
    return Engine(program)


def engine_from_text(text: str, path: str = "test.rules") -> Engine:
    program, diags = check_text(text, path)
    assert program is not None and not has_errors(diags), [d.message for d in diags]
    return Engine(program)


def game(path: Path | str, players: int | None = None, **options) -> Game:
    return Game(engine_for(path), players, options)
