"""`rulebook compile`: the engine's Python source, standalone (see `engine/standalone.py`)."""
from __future__ import annotations

import sys

from ..diagnostics import Sources
from .common import EXIT_OK, Output, UserError


def run(args, sources: Sources, out: Output) -> int:
    from ..engine.runtime import Engine, Game
    from ..engine.standalone import standalone
    from ..frontend import load_program
    program, _ = load_program(args.spec, sources)
    engine = Engine(program)
    given = dict(args.option)
    game = Game(engine, args.players, given)  # the spec's checks of both: errors name the spec
    options = game.option_values if given else None
    source = standalone(engine.source, options, args.players)
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as fh:
                fh.write(source)
        except OSError as exc:
            raise UserError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    else:
        sys.stdout.write(source)
    return EXIT_OK
