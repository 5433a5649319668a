"""Questions about a game, answered with reasons: the Python API behind `rulebook query`,
`rulebook explain` and `rulebook play --interactive` (docs/commands.md, "Questions").

    from verifier.frontend import load_program
    from verifier.engine.runtime import Engine
    from verifier import query

    engine = Engine(load_program("spec/examples/tictactoe.rules")[0])
    pos = query.from_history(engine, "x(0,0)")
    query.check_move(pos, "o(0,0)")["failed"]   # [{"label": "empty_cell", "text": ..., "at": ...}]
    query.legal_moves(pos)                       # every legal move, by kind
    query.explain(pos)                           # scores term by term, and why the winners win
    q = query.query_program(engine.program, "has_line(1) and full()")
    query.can(q, players=2).verdict              # "never" (every reachable state visited)

Modules: `position` (positions from a replay, a history or an example), `moves` (a move from
its text), `legality` (`--move`, `--legal`), `explain`, `expr` (an expression in the spec's
scope), `reach` (`--can`: the one adapter to `verify`'s search and prover), `probe` (spec
expressions compiled against an engine), `interactive` (the table).
"""
from .explain import explain, format_explain
from .expr import Query, query_program
from .legality import check_move, format_check, format_legal, legal_moves
from .position import Position, PositionError, from_example, from_history, from_replay, start
from .reach import Answer, can

__all__ = ["Answer", "Position", "PositionError", "Query", "can", "check_move", "explain", "format_check",
           "format_explain", "format_legal", "from_example", "from_history", "from_replay", "legal_moves",
           "query_program", "start"]
