"""A spec cannot smuggle Python into its generated engine.

Spec strings (titles, `say` texts, move texts, enum displays, requirement
messages, sentences, reasons, `shown` templates) and identifiers are loaded
with quotes, backslashes, newlines, braces, triple quotes and calls such as
`__import__('os').system('touch PWNED')`.  Each spec must either be rejected
with diagnostics (exit 1, no traceback) or compile to an engine that

- creates no marker file when checked (examples run), compiled and played;
- has no call to `__import__`, `exec`, `eval`, `system`, `open`, ... (by `ast`);
- holds the payload only inside Python string literals (by `tokenize`);
- shows a display string verbatim where the game displays it.
"""
from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

from verifier.cli import main
from verifier.ir.printer import escape

MARKER = "PWNED"
DANGEROUS_CALLS = {"__import__", "exec", "eval", "compile", "open", "system", "popen", "getattr", "setattr",
                   "delattr", "globals", "locals", "vars", "breakpoint", "input", "execfile", "spawn", "run",
                   "call", "check_output", "Popen", "remove", "unlink", "rmtree"}
DANGEROUS_ATTRS = {"__class__", "__subclasses__", "__globals__", "__builtins__", "__import__", "__code__",
                   "__bases__", "__mro__", "__getattribute__", "__reduce__"}

PAYLOADS = {
    "quote_call": "\"); __import__('os').system('touch PWNED') #",
    "single_quote_call": "'); __import__('os').system('touch PWNED') #",
    "triple_double": '"""; __import__(\'os\').system(\'touch PWNED\'); """',
    "triple_single": "'''; __import__('os').system('touch PWNED'); '''",
    "backslashes": "\\'); __import__('os').system('touch PWNED') # \\",
    "newline": "x\n__import__('os').system('touch PWNED')\n#",
    "braces": "{__import__('os').system('touch PWNED')} {0} {{}}",
    "fstring": "f'{__import__(\"os\").system(\"touch PWNED\")}'",
}

BASE = """game g "G"
players 2

var turn: Player = 0

flow {
  choose turn {
    move pass() "pass"
  }
  end
}

outcome {
  score p: 0
}
"""

# Where a spec string can go: (base text to replace, replacement with {P} for the escaped payload,
# whether `play --seed 1` output shows the payload verbatim).
POSITIONS = {
    "title": ('game g "G"', 'game g "{P}"', True),
    "say": ("  end\n", '  say "{P}"\n  end\n', True),
    "say_interpolated": ("  end\n", '  say "{P}{turn}{P}"\n  end\n', True),
    "move_text": ('move pass() "pass"', 'move pass() "{P}"', True),
    "enum_display": ("var turn: Player = 0\n",
                     'var turn: Player = 0\nenum Mark { a "{P}" aka "{P}", b }\nvar m: Mark = a\n'
                     'invariant shows "m is a mark": m == a or m == b\n', False),
    "enum_display_said": ("  end\n", '  say "{m}"\n  end\n', True),
    "require_message": ('move pass() "pass"', 'move pass() "pass"\n      require ok "{P}": true', False),
    "invariant_sentence": ("outcome {", 'invariant inv "{P}": true\n\noutcome {', False),
    "example_sentence": ("outcome {", 'example ex "{P}" {\n  expect true\n}\n\noutcome {', False),
    "option_reason": ("var turn: Player = 0\n", 'option fast: bool = true because "{P}"\n'
                                                 'var turn: Player = 0\nvar slow: bool = fast\n', False),
    "shown_template": ("var turn: Player = 0\n",
                       'record Card { v: 1..3 } shown "{P}"\ncatalogue Deck of Card = [Card(v = 1)]\n'
                       'var turn: Player = 0\n', False),
}


def _spec_for(position: str, payload: str) -> str:
    old, new, _ = POSITIONS[position]
    text = BASE
    if position == "enum_display_said":
        text = text.replace("var turn: Player = 0\n", 'var turn: Player = 0\nenum Mark { a "{P}", b }\n'
                                                       'var m: Mark = a\n')
    assert old in text
    return text.replace(old, new, 1).replace("{P}", escape(payload))


def _code_outside_strings(source: str) -> str:
    """The generated source with every string literal and comment removed."""
    kept = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type in (tokenize.STRING, tokenize.COMMENT):
            kept.append(" ")
        elif tok.type in (getattr(tokenize, "FSTRING_START", -1), getattr(tokenize, "FSTRING_MIDDLE", -1),
                          getattr(tokenize, "FSTRING_END", -1)):
            kept.append(" ")
        else:
            kept.append(tok.string)
    return " ".join(kept)


# what `rulebook compile` imports: the standard-library modules of the helpers it copies in
HELPER_IMPORTS = {"import types", "from functools import lru_cache"}


def assert_source_is_clean(source: str) -> None:
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
            assert name not in DANGEROUS_CALLS, f"generated code calls {name}: {ast.unparse(node)}"
        elif isinstance(node, ast.Attribute):
            assert node.attr not in DANGEROUS_ATTRS, f"generated code reaches {ast.unparse(node)}"
        elif isinstance(node, (ast.Import, ast.ImportFrom)):  # only the helpers' own (engine/standalone.py)
            assert ast.unparse(node) in HELPER_IMPORTS, ast.unparse(node)
    code = _code_outside_strings(source)
    assert MARKER not in code and "__import__" not in code and "system" not in code


def _run(argv, capsys) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert "internal error" not in err, err
    return code, out, err


def check_spec_is_safe(text: str, tmp_path: Path, monkeypatch, capsys, name: str = "spec.rules"):
    """Check, compile and play `text`; return (compiled?, play stdout). Asserts no marker file appears."""
    monkeypatch.chdir(tmp_path)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    try:
        code, out, err = _run(["check", name], capsys)
        if code != 0:  # rejected: with diagnostics, and nothing else runs
            assert code == 1 and re.search(r":\d+:\d+: error: ", err), err
            for argv in (["compile", name], ["play", name]):
                assert _run(argv, capsys)[0] == 1
            return False, err
        code, out, err = _run(["compile", name, "-o", "engine.py"], capsys)
        assert code == 0, err
        source = (tmp_path / "engine.py").read_text(encoding="utf-8")
        compile(source, "engine.py", "exec")
        assert_source_is_clean(source)
        code, out, err = _run(["play", name, "--seed", "1"], capsys)
        assert code == 0, err
        code2, _, err2 = _run(["play", name, "--games", "3", "--json"], capsys)
        assert code2 == 0, err2
        return True, out
    finally:
        assert not (tmp_path / MARKER).exists(), "the spec ran code of its own"
        assert not Path(MARKER).exists()


def test_the_base_spec_is_clean(tmp_path, monkeypatch, capsys):
    compiled, out = check_spec_is_safe(BASE, tmp_path, monkeypatch, capsys)
    assert compiled and "P1: pass" in out


# Regression guard (found by this file, fixed in codegen.py): the title went into the module
# docstring as '"""Engine for ' + repr(title) + '."""', and a title holding '\"\"\"' ended the
# docstring, so `rulebook check` ran the rest of the title as Python.

def _params():
    for position in POSITIONS:
        for pname, payload in PAYLOADS.items():
            yield pytest.param(position, payload, id=f"{position}-{pname}")


@pytest.mark.parametrize("position,payload", _params())
def test_display_strings_cannot_inject_code(position, payload, tmp_path, monkeypatch, capsys):
    text = _spec_for(position, payload)
    compiled, out = check_spec_is_safe(text, tmp_path, monkeypatch, capsys)
    assert compiled, f"a display string was refused:\n{out}"
    if POSITIONS[position][2]:
        for line in payload.splitlines():  # `say` text is printed line by line
            assert line in out, f"{line!r} not shown verbatim in:\n{out}"


def test_title_triple_quote_does_not_break_the_docstring_minimal(tmp_path, monkeypatch, capsys):
    """The smallest form of the title bug, without any payload: the engine must still load."""
    text = BASE.replace('game g "G"', 'game g "a\\"\\"\\"b"')
    compiled, out = check_spec_is_safe(text, tmp_path, monkeypatch, capsys)
    assert compiled and 'a"""b' in out


# ---------------------------------------------------------------- identifiers

# Names that generated code or Python gives a meaning to, used as spec identifiers.
PYTHONIC_NAMES = ["L", "exec", "None", "class", "v_x", "State", "range", "import"]

# One spec per identifier role (roles that share a namespace cannot share a spec); `N` is the name.
ROLES = {
    "labels": """game N "G"
players 2
record Card { N: 1..3 }
catalogue Deck of Card = [Card(N = 1), Card(N = 2)]
var turn: Player = 0
flow {
  choose turn {
    move N(c: Deck) "{c}"
      require N "ok": c.N >= 1
  }
  end
}
outcome { score p: 0 }
""",
    "var": """game g "G"
players 2
var N: Player = 0
flow {
  choose N { move pass() "pass {N}" }
  N = next_player(N)
  say "now {N}"
  end
}
outcome { score p: if N == p then 1 else 0 }
""",
    "enum_item": """game g "G"
players 2
enum Kind { N "shown", other }
var turn: Player = 0
var k: Kind = other
flow {
  choose turn { move pick(q: Kind) "pick {q}" { k = q } }
  end
}
outcome { score p: if k == N then 1 else 0 }
""",
    "enum_name": """game g "G"
players 2
enum N { a, b }
var turn: Player = 0
var k: N = a
flow {
  choose turn { move pick(q: N) "pick {q}" { k = q } }
  end
}
outcome { score p: if k == N.b then 1 else 0 }
""",
    "const_and_def": """game g "G"
players 2
const N: 0..3 = 2
def twice(x: 0..3): 0..6 = x * N
var turn: Player = 0
flow {
  choose turn { move pass() "pass {twice(N)}" }
  end
}
outcome { score p: twice(N) }
""",
    "option": """game g "G"
players 2
option N: 1..3 = 2 because "a reason"
var turn: Player = 0
flow {
  for r in 1..N { choose turn { move pass() "pass {r} of {N}" } }
  end
}
outcome { score p: N }
""",
    "def": """game g "G"
players 2
def N(x: Player): Player = next_player(x)
var turn: Player = 0
flow {
  choose turn { move pass() "pass" }
  turn = N(turn)
  end
}
outcome { score p: if N(p) == 0 then 1 else 0 }
""",
    "scoped": """game g "G"
players 2
grid Cell rows 2 cols 2
var turn: Player = 0
var board: array[Cell] of 0..2 = 0
def f(N: Player): Player = next_player(N)
def empties(): 0..4 = count(N in Cell where board[N] == 0)
flow {
  choose turn {
    move put(N: Cell) "put {N}"
      require free "empty": board[N] == 0 and empties() == 4
    { board[N] = 1 + turn }
  }
  end
}
outcome { score N: count(q in Cell where board[q] == 1 + f(f(N))) }
""",
    "flow_locals": """game g "G"
players 2
var turn: Player = 0
var total: 0..20 = 0
flow {
  let N = 2
  for r in 1..N {
    choose turn { move pass() "pass {N}" }
    total += N
  }
  end
}
outcome { score p: total }
""",
    "catalogue_name": """game g "G"
players 2
record Card { v: 1..3 }
catalogue N of Card = [Card(v = 1), Card(v = 3)]
var turn: Player = 0
var got: 0..3 = 0
flow {
  choose turn { move take(c: N) "take {c}" { got = c.v } }
  end
}
outcome { score p: got }
""",
}


def test_role_templates_compile_with_a_plain_name():
    """Each role's spec is valid with an ordinary name, so a refusal below is about the name."""
    from verifier.frontend import check_text
    for role, template in ROLES.items():
        program, diags = check_text(template.replace("N", "plain"), f"{role}.rules")
        assert program is not None, (role, [d.message for d in diags])


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", PYTHONIC_NAMES)
def test_python_words_as_identifiers(name, role, tmp_path, monkeypatch, capsys):
    """A name Python or generated code gives a meaning to is accepted and harmless in every role."""
    compiled, out = check_spec_is_safe(ROLES[role].replace("N", name), tmp_path, monkeypatch, capsys)
    assert compiled, out


@pytest.mark.parametrize("name", ["__class__", "__import__", "__builtins__", "_x", "_", "a__b", "s", "self"])
def test_reserved_identifiers_are_refused(name, tmp_path, monkeypatch, capsys):
    for template in ("var {n}: bool = true", "def {n}(): bool = true", "enum E {{ {n}, b }}",
                     "const {n}: 0..3 = 1"):
        decl = template.format(n=name)
        text = BASE.replace("var turn: Player = 0\n", f"var turn: Player = 0\n{decl}\n")
        compiled, err = check_spec_is_safe(text, tmp_path, monkeypatch, capsys)
        assert not compiled, f"{decl!r} was accepted"
        assert "reserved" in err or "may not start with '_'" in err, err


@pytest.mark.parametrize("decl", [
    'var a"b: bool = true',
    "var a'b: bool = true",
    "var a\\b: bool = true",
    "var a{b}: bool = true",
    'var x: bool = true"); __import__("os").system("touch PWNED") #',
    "var x: bool = __import__(\"os\").system(\"touch PWNED\") == 0",
    'def x(): bool = exec("import os")',
    "var x: bool = eval",
])
def test_code_in_identifiers_or_expressions_is_refused(decl, tmp_path, monkeypatch, capsys):
    text = BASE.replace("var turn: Player = 0\n", f"var turn: Player = 0\n{decl}\n")
    compiled, err = check_spec_is_safe(text, tmp_path, monkeypatch, capsys)
    assert not compiled


@pytest.mark.parametrize("interp", [
    '{__import__(\\"os\\").system(\\"touch PWNED\\")}',
    "{exec(turn)}",
    "{turn.__class__}",
    "{turn}}{",
])
def test_code_in_interpolations_is_refused(interp, tmp_path, monkeypatch, capsys):
    text = BASE.replace("  end\n", f'  say "{interp}"\n  end\n')
    compiled, err = check_spec_is_safe(text, tmp_path, monkeypatch, capsys)
    assert not compiled


@pytest.mark.parametrize("filename", ["q'uote.rules", 'dq"uote.rules', "back\\slash.rules", "brace{x}.rules",
                                      "nl\nname.rules"])
def test_odd_file_names_are_harmless(filename, tmp_path, monkeypatch, capsys):
    """The spec's path reaches generated code (positions for messages) only as a string."""
    compiled, out = check_spec_is_safe(BASE, tmp_path, monkeypatch, capsys, name=filename)
    assert compiled


# ---------------------------------------------------------------- generated names

# Regression guard (found by this file, fixed in codegen.py): catalogue field tables were
# named K_{catalogue}_{field}, so two catalogues' tables could share one name.

def test_generated_names_do_not_collide(tmp_path, monkeypatch, capsys):
    text = """game g "G"
players 2
record R1 { b_c: 1..3 }
record R2 { c: 1..3 }
catalogue A of R1 = [R1(b_c = 1)]
catalogue A_b of R2 = [R2(c = 3)]
var turn: Player = 0
var got: 0..9 = 0
flow {
  choose turn { move take(x: A, y: A_b) "take" { got = x.b_c * 3 + y.c } }
  end
}
outcome { score p: got }
"""
    monkeypatch.chdir(tmp_path)
    Path("c.rules").write_text(text, encoding="utf-8")
    code, out, err = _run(["play", "c.rules", "--seed", "1"], capsys)
    assert code == 0, err  # with the bug: "the rules broke while playing: ... value 12 is outside 0..9"
    assert "Final scores: P1 6, P2 6" in out
