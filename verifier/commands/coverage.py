"""`rulebook coverage`: per declared rule, the clauses of the spec that cite it.

A spec whose citations or rules do not check is a spec error (exit 1), as for `info`;
a rule that nothing cites is listed, not an error (`check --strict` makes it one).
"""
from __future__ import annotations

from ..diagnostics import Sources
from .common import EXIT_OK, Output


def run(args, sources: Sources, out: Output) -> int:
    from ..docs.coverage import coverage, format_coverage
    from ..frontend import load_program
    for i, path in enumerate(args.specs):
        program, _ = load_program(path, sources)
        report = coverage(program)
        out.add(report)
        if not out.as_json:
            print(("\n" if i else "") + format_coverage(report))
    return EXIT_OK
