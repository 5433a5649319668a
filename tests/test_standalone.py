"""`rulebook compile` writes a module that runs on Python's standard library alone, in lines a
reader can follow (issue 17, item 10).

The compiled file is run in a bare interpreter (`python -I -S`: no site-packages, no user
paths, no PYTHONPATH) by a driver that plays whole games through the module's own tables,
as the runtime does; the result must match the engine `play` runs.
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import SPEC_PATHS, engine_for
from verifier.cli import main
from verifier.engine.runtime import Game
from verifier.engine.standalone import LIB_IMPORT, WIDTH, standalone, wrap

# Plays random games through a compiled module's tables: segments, decisions, moves.
DRIVER = r'''
import importlib.util, json, random, sys
spec = importlib.util.spec_from_file_location("engine", sys.argv[1])
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
assert "verifier" not in sys.modules and "lark" not in sys.modules
players = int(sys.argv[2])


def advance(s, seg):
    while seg >= 0:
        seg = m.SEGMENTS[seg](s)


out = []
for seed in range(int(sys.argv[3])):
    rng = random.Random(seed)
    s = m.new_state(players, dict(m.OPTIONS, **m.OPTION_FINITE))
    advance(s, 0)
    history = []
    while s.pc >= 0 and len(history) < 3000:
        s.memo = {}  # memoised definitions hold for one question (engine/runtime.py does the same)
        d = m.DECISIONS[s.pc]
        if d[0] == "chance":
            values = d[2](s)
            v = values[rng.randrange(len(values))]
            d[3](s, v)
            history.append(v - d[3].lo)
            advance(s, d[1])
        elif d[0] == "choose":
            legal = d[2](s, s.cur)
            a = legal[rng.randrange(len(legal))]
            s.memo = {}
            d[5](s, s.cur, a)  # one generated call runs the move and the flow to the next decision
            history.append(a)
        else:
            raise SystemExit("this driver plays specs without simultaneous decisions")
    out.append({"history": history, "ended": s.pc < 0})
print(json.dumps(out))
'''


def compiled(tmp_path: Path, spec: Path, *flags: str) -> Path:
    target = tmp_path / f"{spec.stem}_engine.py"
    assert main(["compile", str(spec), "-o", str(target), *flags]) == 0
    return target


def run_bare(module: Path, players: int, games: int) -> list:
    import json
    result = subprocess.run([sys.executable, "-I", "-S", "-c", DRIVER, str(module), str(players), str(games)],
                            capture_output=True, text=True, timeout=300, env={}, cwd=module.parent)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize("name,players", [("tictactoe", 2), ("ramen_ink", 3), ("wasabi", 2)])
def test_the_compiled_module_plays_in_a_bare_interpreter(name, players, tmp_path):
    games = run_bare(compiled(tmp_path, SPEC_PATHS[name]), players, 5)
    engine = Game(engine_for(SPEC_PATHS[name]), players, bounded=True)
    for game in games:  # the same moves replay on the engine `play` runs, to the same end
        state = engine.new_initial_state()
        for step in game["history"]:
            state.apply_action(step)
        assert state.is_terminal() == game["ended"]
    assert any(g["ended"] for g in games)


def test_no_import_but_the_standard_library(tmp_path):
    source = compiled(tmp_path, SPEC_PATHS["ramen"]).read_text(encoding="utf-8")
    assert LIB_IMPORT not in source
    imports = {ast.unparse(n) for n in ast.walk(ast.parse(source)) if isinstance(n, (ast.Import, ast.ImportFrom))}
    assert imports <= {"import types", "from functools import lru_cache"}


@pytest.mark.parametrize("name", sorted(SPEC_PATHS))
def test_lines_are_wrapped_and_the_code_is_unchanged(name):
    source = engine_for(SPEC_PATHS[name]).source
    out = standalone(source)
    body = out[out.index("\nL = _helpers()\n") + len("\nL = _helpers()\n"):]
    original = source[source.index(LIB_IMPORT) + len(LIB_IMPORT):]
    assert ast.dump(ast.parse(body)) == ast.dump(ast.parse(original))  # layout only
    for line in out.splitlines():
        if len(line) > WIDTH:  # only a string literal too long to break keeps a line long
            assert any(len(t.string) > WIDTH // 2 for t in _tokens(line.strip())), line


def _tokens(code: str):
    import io
    import tokenize
    found = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(code + "\n").readline):
            if token.type == tokenize.STRING:
                found.append(token)
    except tokenize.TokenError:  # a continuation line opens or closes brackets of other lines: its strings so far count
        pass
    return found


def test_wrapping_breaks_inside_brackets_only():
    line = "    x = f(" + ", ".join(f"argument_{i}" for i in range(30)) + ")"
    lines = wrap(line).split("\n")
    assert len(lines) > 1 and all(len(text) <= WIDTH for text in lines)
    assert ast.dump(ast.parse("\n".join(lines).strip())) == ast.dump(ast.parse(line.strip()))
    assert wrap("x = 'a' * 300") == "x = 'a' * 300"  # nothing to break: left alone
