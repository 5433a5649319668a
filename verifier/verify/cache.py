"""Results of `rulebook verify` kept on disk, keyed by what they depend on.

A player count's results depend on the *slice* of the spec that the properties read: the
flow, the state (vars), the game's header, every invariant (each proof assumes the others),
and, transitively, every declaration these name — constants, catalogues, enums, records,
definitions, options. Not in it: the scoring (`outcome`) and what only it names (a scoring
definition), the examples, the expectations (reapplied to the cached statuses every run), the
rules' texts, the displays, comments and layout (the slice is the canonical printed IR). The
score bounds also depend on the scoring: their key is the slice plus the scoring's closure.

An entry is used only when both keys match (the score bounds need the proofs of the run
that found them), so a change of scoring reruns the player count; a change of only what is
outside both slices — an example, a rule's text, an expectation, a display, an unused
definition — reuses it. The key also holds the player count, the option values, the settings
that change what a run can find (--budget, --timeout, --games, --search, --depth, --k), the
property selection, and the versions of rulebook and Z3.

Dependencies are found by name: a declaration depends on every declaration whose name (or
enum member, or catalogue) appears among its identifiers. That over-approximates (a local
named like a constant pulls the constant in), which costs a cache miss, never a wrong hit.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import asdict
from pathlib import Path

from ..ir import nodes as N
from ..ir.printer import Printer

__all__ = ["Cache", "slice_keys", "DEFAULT_DIR"]

DEFAULT_DIR = ".rulebook-cache"  # under the current directory, or $RULEBOOK_CACHE
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_FORMAT = 1  # bump when an entry's shape changes
_PROVIDERS = (N.VarDecl, N.ConstDecl, N.DefDecl, N.EnumDecl, N.RecordDecl, N.CatalogueDecl, N.OptionDecl, N.GridDecl,
              N.TypeDecl)  # the declarations whose names expressions read


def _text(decl) -> str:
    out = Printer().dispatch(decl)
    return out if isinstance(out, str) else "\n".join(out)


def _defined(decl) -> set[str]:
    """The names a declaration makes available to others."""
    names = set()
    if not isinstance(decl, _PROVIDERS):
        return names  # an expectation, example or invariant is named, but nothing reads it
    name = getattr(decl, "name", None)
    if isinstance(name, str):
        names.add(name)
    if isinstance(decl, N.EnumDecl):
        for item in decl.items:
            names.add(item if isinstance(item, str) else getattr(item, "name", str(item)))
    return names


def _closure(roots: list, decls: list) -> list:
    """`roots` and every declaration they name, transitively, in source order."""
    texts = {id(d): _text(d) for d in decls}
    providers: dict[str, list] = {}
    for d in decls:
        for name in _defined(d):
            providers.setdefault(name, []).append(d)
    keep = {id(d) for d in roots}
    todo = list(roots)
    while todo:
        d = todo.pop()
        for word in set(_WORD.findall(texts[id(d)])):
            for p in providers.get(word, ()):
                if id(p) not in keep:
                    keep.add(id(p))
                    todo.append(p)
    return [d for d in decls if id(d) in keep]


def slice_keys(spec: N.Spec) -> tuple[str, str]:
    """(the hash of the properties' slice, the hash of that slice and the scoring's)."""
    decls = list(spec.decls)
    # the utility declaration is checked where the flow ends (well_formed): a root like the flow
    roots = [d for d in decls if isinstance(d, (N.GameDecl, N.PlayersDecl, N.FlowDecl, N.VarDecl, N.InvariantDecl,
                                                N.UtilityDecl))]
    props = _closure(roots, decls)
    scored = _closure(roots + [d for d in decls if isinstance(d, N.OutcomeDecl)], decls)

    def digest(ds):
        h = hashlib.sha256()
        for d in ds:
            h.update(_text(d).encode("utf-8") + b"\0")
        return h.hexdigest()

    return digest(props), digest(scored)


def _versions() -> str:
    """rulebook's and Z3's versions, and the hash of verifier's own source: a result found by
    other code is not reused (an editable install keeps its version number while it changes)."""
    from importlib.metadata import PackageNotFoundError, version
    from ..smt.encode import z3
    try:
        mine = version("rulebook")
    except PackageNotFoundError:
        mine = "?"
    h = hashlib.sha256()
    for path in sorted(Path(__file__).resolve().parent.parent.rglob("*.py")):
        h.update(path.read_bytes())
    return f"{mine} z3 {z3.get_version_string()} source {h.hexdigest()[:16]}"


class Cache:
    """One directory of JSON entries; `get` and `put` per (spec slice, player count, settings)."""

    def __init__(self, directory: str | None = None):
        self.dir = Path(directory or os.environ.get("RULEBOOK_CACHE") or DEFAULT_DIR)

    def key(self, spec: N.Spec, n: int, options: dict, settings: dict, only) -> tuple[str, str]:
        props, scored = slice_keys(spec)
        common = json.dumps({"format": _FORMAT, "versions": _versions(), "players": n,
                             "options": {k: str(v) for k, v in sorted(options.items())},
                             "settings": settings, "only": sorted(only) if only else None}, sort_keys=True)
        return (hashlib.sha256((common + props).encode()).hexdigest(),
                hashlib.sha256((common + scored).encode()).hexdigest())

    def get(self, keys: tuple[str, str]):
        """(results as dicts, score bounds, lengths), or None."""
        path = self.dir / f"{keys[0][:2]}" / f"{keys[0]}.json"
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(entry, dict) or entry.get("scored") != keys[1] or entry.get("format") != _FORMAT:
            return None
        results = entry.get("results") or []
        # proofs and violations are facts of the slice; an `unknown` may only mean that the budget
        # ran out on a busy machine: such a count is verified again, not answered from the cache
        if any(isinstance(r, dict) and r.get("status") == "unknown" for r in results):
            return None
        return results, entry.get("bounds"), entry.get("lengths")

    def put(self, keys: tuple[str, str], results: list, bounds: list, lengths: dict) -> None:
        """Store a player count's results (a write that fails is skipped: the cache is an aid)."""
        path = self.dir / f"{keys[0][:2]}" / f"{keys[0]}.json"
        entry = {"format": _FORMAT, "scored": keys[1], "results": [asdict(r) for r in results],
                 "bounds": bounds, "lengths": lengths}
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(entry), encoding="utf-8")
            tmp.replace(path)
        except (OSError, TypeError, ValueError):
            pass
