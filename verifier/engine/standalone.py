"""What `rulebook compile` writes: the engine module, standalone and laid out for reading.

The code `Engine` loads calls its helpers as `L.name`, from `verifier/engine/lib.py`. The
compiled file instead carries a copy of the helpers it calls (and of those they call),
defined inside one function whose names become `L`: the file runs on Python's standard
library alone, and no helper's name can meet a generated one. Everything else is the
generated code as `Engine` runs it, with two changes a user can ask for:

- `--option NAME=VALUE` values become the module's defaults (`OPTIONS`);
- `--players N` narrows the module to N players (`MIN_PLAYERS`, `MAX_PLAYERS`).

Lines longer than `WIDTH` are wrapped inside their brackets (generated expressions unroll
loops and run to thousands of characters); the wrapped module has the same syntax tree.
"""
from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

from . import lib

WIDTH = 99
LIB_IMPORT = "from verifier.engine import lib as L"
_USED = re.compile(r"\bL\.([A-Za-z_]\w*)")


def standalone(source: str, options: dict | None = None, players: int | None = None) -> str:
    """The generated `source` with its helpers copied in, the given settings and wrapped lines."""
    if source.count(LIB_IMPORT + "\n") != 1:
        raise ValueError("generated code without its one import of the helpers")
    source = source.replace(LIB_IMPORT + "\n", helpers_source(sorted(set(_USED.findall(source)))) + "\n")
    if options:
        source = _replace_line(source, "OPTIONS = ", "OPTIONS = " + repr(dict(options)))
    if players is not None:
        source = _replace_line(source, "MIN_PLAYERS, MAX_PLAYERS = ",
                               f"MIN_PLAYERS, MAX_PLAYERS = {players}, {players}")
    return wrap(source)


def _replace_line(source: str, prefix: str, line: str) -> str:
    lines = source.split("\n")
    at = [i for i, text in enumerate(lines) if text.startswith(prefix)]
    if len(at) != 1:
        raise ValueError(f"generated code without exactly one line {prefix!r}")
    lines[at[0]] = line
    return "\n".join(lines)


# ------------------------------------------------------------------ helpers

def _lib_definitions() -> tuple[str, dict[str, ast.stmt], list[ast.stmt]]:
    text = Path(lib.__file__).read_text(encoding="utf-8")
    tree = ast.parse(text)
    defs, imports = {}, []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            defs[node.name] = node
        elif isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) for t in node.targets):
            for target in node.targets:
                defs[target.id] = node
        elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
            imports.append(node)
    return text, defs, imports


def _names_in(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def helpers_source(used: list[str]) -> str:
    """A function `_helpers()` defining the helpers `used` and what they need; `L = _helpers()`."""
    text, defs, imports = _lib_definitions()
    unknown = [name for name in used if name not in defs]
    if unknown:
        raise ValueError(f"generated code calls helpers lib.py does not define: {unknown}")
    wanted, todo = set(), list(used)
    while todo:  # the helpers the used ones call, and so on
        name = todo.pop()
        if name in wanted:
            continue
        wanted.add(name)
        todo.extend(n for n in _names_in(defs[name]) if n in defs and n not in wanted)
    lines = text.split("\n")
    needed_names = set().union(*(_names_in(defs[n]) for n in wanted)) if wanted else set()
    out = ["def _helpers():",
           '    """The helpers of rulebook\'s verifier/engine/lib.py that this engine calls, copied here so',
           '    that it runs on the standard library alone."""',
           "    import types"]
    for node in imports:
        names = [a.name for a in node.names if (a.asname or a.name) in needed_names]
        if names:
            out.append(f"    from {node.module} import {', '.join(names)}")
    done = set()
    for node in sorted({id(defs[n]): defs[n] for n in wanted}.values(), key=lambda n: n.lineno):
        if id(node) in done:
            continue
        done.add(id(node))
        start = min([d.lineno for d in getattr(node, "decorator_list", [])] + [node.lineno])
        out.append("")
        out.extend(("    " + line).rstrip() for line in lines[start - 1:node.end_lineno])
    out.append("")
    out.append(f"    return types.SimpleNamespace({', '.join(f'{n}={n}' for n in sorted(wanted))})")
    out.append("")
    out.append("")
    out.append("L = _helpers()")
    return "\n".join(out)


# ------------------------------------------------------------------ wrapping

_GOOD_AFTER = {","}
_GOOD_BEFORE = {"and", "or", "if", "else", "for"}
_OPEN, _CLOSE = "([{", ")]}"


def wrap(source: str, width: int = WIDTH) -> str:
    """Every line longer than `width` broken inside its brackets, where that can be done."""
    out = []
    for line in source.split("\n"):
        out.extend(wrap_line(line, width) if len(line) > width else [line])
    return "\n".join(out)


def _atoms(code: str) -> list[tuple[str, int, bool]] | None:
    """(text, bracket depth after it, whitespace before it) per token; an f-string is one atom.
    None if `code` is not a whole logical line."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    atoms, depth, prev_end, fstring = [], 0, 0, 0
    for tok in tokens:
        if tok.type in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER, tokenize.INDENT, tokenize.DEDENT):
            continue
        if tok.start[0] != 1 or tok.end[0] != 1:
            return None
        text = code[tok.start[1]:tok.end[1]]
        space = tok.start[1] > prev_end
        prev_end = tok.end[1]
        name = tokenize.tok_name[tok.type]
        if fstring:  # Python 3.12 splits f-strings into tokens: keep them whole
            atoms[-1] = (atoms[-1][0] + (" " if space else "") + text, depth, atoms[-1][2])
            fstring += name == "FSTRING_START"
            fstring -= name == "FSTRING_END"
            continue
        if name == "FSTRING_START":
            fstring = 1
        elif tok.type == tokenize.OP and text in _OPEN:
            depth += 1
        elif tok.type == tokenize.OP and text in _CLOSE:
            depth -= 1
        atoms.append((text, depth, space))
    return atoms


def wrap_line(line: str, width: int) -> list[str]:
    """One physical line as several; continuation lines are indented by their bracket depth."""
    stripped = line.lstrip(" ")
    indent = line[:len(line) - len(stripped)]
    if stripped.startswith("#"):
        return _wrap_comment(indent, stripped, width)
    atoms = _atoms(stripped)
    if not atoms:
        return [line]
    n = len(atoms)
    can, good, depth = [False] * n, [False] * n, [0] * n  # may a line start at atom i, and is it a good place
    for i in range(1, n):
        depth[i] = atoms[i - 1][1]
        if depth[i] > 0 and atoms[i][0] not in _CLOSE and not _glued(atoms[i - 1][0], atoms[i][0]):
            can[i] = True
            good[i] = atoms[i - 1][0] in _GOOD_AFTER or atoms[i][0] in _GOOD_BEFORE

    def render(prefix: str, a: int, b: int) -> str:
        return prefix + "".join((" " if atoms[k][2] and k > a else "") + atoms[k][0] for k in range(a, b))

    lines, start, prefix = [], 0, indent
    while True:
        length, i, last_can, last_good = len(prefix), start, None, None
        while i < n:
            add = len(atoms[i][0]) + (1 if atoms[i][2] and i > start else 0)
            if length + add > width and i > start:
                break
            length += add
            i += 1
            if i < n and can[i]:
                last_can = (i, length)
                if good[i]:
                    last_good = (i, length)
        if i >= n:
            lines.append(render(prefix, start, n))
            return lines
        # a good break, unless it leaves the line less than half full; else any break
        room = width - len(prefix)
        cut = last_good if last_good and last_good[1] - len(prefix) >= room // 2 else (last_can or last_good)
        if cut is None:  # nothing fits: the line runs on to its first break
            j = i
            while j < n and not can[j]:
                j += 1
            if j >= n:
                lines.append(render(prefix, start, n))
                return lines
            cut = (j, 0)
        lines.append(render(prefix, start, cut[0]))
        start = cut[0]
        prefix = indent + " " * (4 * (1 + min(depth[start], 4)))


def _glued(before: str, text: str) -> bool:
    """Places a line break would make hard to read: a call's or index's bracket, an attribute,
    right after a unary operator."""
    if text in ("(", "[") and (before[-1:].isalnum() or before[-1:] in "_)]'\""):
        return True  # a call or an index: `f(`, `x[`, `f(a)(`
    return text in (".", ":", ",") or before in (".", "-", "not")


def _wrap_comment(indent: str, text: str, width: int) -> list[str]:
    lines, current = [], indent + "#"
    for word in text[1:].split():
        if len(current) + 1 + len(word) > width and current != indent + "#":
            lines.append(current)
            current = indent + "#"
        current += " " + word
    lines.append(current)
    return lines
