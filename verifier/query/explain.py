"""Scores term by term, and why each winner wins (`rulebook explain`).

The `score` clause of the outcome is an expression; its terms are the top-level operands of
its `+` and `-` chain. A score written as one call of a definition (`score p: final_score(p)`)
is unfolded into the definition's body, with the parameters bound to the arguments' values,
until a chain of terms appears (at most `UNFOLD` calls deep). Each term is reported with its
value, the definitions it calls and their values, and the rule IDs cited by the clause and by
those definitions. Values are computed by the engine's own code generator (`probe.py`), so an
explanation adds up to the engine's score exactly (a test checks it on random states).

The winners follow the engine's ranking: players who meet a `wins` clause win outright;
otherwise the highest score, ties broken by each `tiebreak` in turn (higher or lower wins).
"""
from __future__ import annotations

from ..engine.lib import show_player
from ..ir import nodes as N
from ..ir.printer import print_expr
from .position import Position
from .probe import Probe

UNFOLD = 4


def _where(span) -> str:
    return f"{span.path}:{span.line}:{span.col}" if span.line else span.path


def _chain(e, sign: int = 1) -> list[tuple[int, object]]:
    """The operands of a top-level `+`/`-` chain, each with its sign."""
    if isinstance(e, N.Binary) and e.op in ("+", "-"):
        return _chain(e.left, sign) + _chain(e.right, sign if e.op == "+" else -sign)
    return [(sign, e)]


class Explainer:
    def __init__(self, position: Position, probe: Probe | None = None, source: str | None = None):
        self.position = position
        self.program = position.program
        self.probe = probe or Probe(position.engine)
        self.source = source

    def text(self, e) -> str:
        """An expression as written in the spec (its source text), or as the printer writes it."""
        s = e.span
        if self.source and s.line and s.line == s.end_line:
            lines = self.source.splitlines()
            if s.line <= len(lines):
                return lines[s.line - 1][s.col - 1:s.end_col - 1]
        return print_expr(e)

    def value(self, e, params: tuple, values: tuple):
        return self.probe.function(e, params)(self.position.state.s, *values)

    def def_cites(self, e) -> list[str]:
        out = []
        for node in _walk_calls(e, self.program):
            for c in self.program.defs[node.func].cites:
                if str(c) not in out:
                    out.append(str(c))
        return out

    def terms(self, player: int) -> tuple[list[dict], list[str]]:
        """(the terms of `player`'s score, the definitions unfolded on the way)."""
        clause = self.program.outcome.score
        e, params, values = clause.expr, (clause.var,), (player,)
        unfolded = []
        for _ in range(UNFOLD):
            if not (isinstance(e, N.Call) and e.func in self.program.defs and len(_chain(e)) == 1):
                break
            d = self.program.defs[e.func]
            args = tuple(self.value(a, params, values) for a in e.args)
            unfolded.append(f"{self.text(e)} = {self.text(d.body) if len(self.text(d.body)) < 200 else '...'}")
            e, params, values = d.body, tuple(p.name for p in d.params), args
        out = []
        for sign, term in _chain(e):
            v = self.value(term, params, values)
            parts = []
            for call in _direct_calls(term, self.program):
                parts.append({"name": self.text(call), "value": _plain(self.value(call, params, values))})
            out.append({"term": self.text(term), "sign": "+" if sign > 0 else "-", "value": _plain(v),
                        "contributes": _plain(sign * v) if isinstance(v, int) else None,
                        "rules": self.def_cites(term), "at": _where(term.span), "parts": parts})
        return out, unfolded

    def explain(self) -> dict:
        state = self.position.state
        o = self.program.outcome
        n = state.num_players()
        scores = [self.position.engine.module._score(_fresh(state.s), p) for p in range(n)]
        players = []
        for p in range(n):
            terms, unfolded = self.terms(p)
            total = sum(t["contributes"] for t in terms if isinstance(t["contributes"], int))
            players.append({"player": show_player(p), "score": scores[p], "terms": terms, "unfolded": unfolded,
                            "adds_up": total == scores[p]})
        report = {"kind": "explain", "position": self.position.describe(), "over": state.is_terminal(),
                  "score_rules": [str(c) for c in o.score.cites], "score_at": _where(o.score.span),
                  "players": players}
        report.update(self.winners(scores))
        if self.position.failed_expectations:
            report["failed_expectations"] = self.position.failed_expectations
        return report

    def winners(self, scores: list[int]) -> dict:
        o = self.program.outcome
        state = self.position.state
        n = len(scores)
        m = self.position.engine.module
        winners = [p for p in range(n) if (m._winners(_fresh(state.s)) >> p) & 1]
        why = []
        if o.wins is not None:
            outright = [p for p in range(n) if self.value(o.wins.cond, (o.wins.var,), (p,))]
            if outright:
                why.append(f"{_names(outright)} {'wins' if len(outright) == 1 else 'win'} outright: "
                           f"{self.text(o.wins.cond)} [{', '.join(map(str, o.wins.cites))}] ({_where(o.wins.span)})")
                return {"winners": [show_player(p) for p in winners], "why": why, "tiebreaks": []}
            why.append(f"nobody meets the outright win ({self.text(o.wins.cond)}): the scores decide")
        best = max(scores)
        alive = [p for p in range(n) if scores[p] == best]
        others = sorted((p for p in range(n) if p not in alive), key=lambda p: -scores[p])
        runner = f" (next: {show_player(others[0])} with {scores[others[0]]})" if others else ""
        if len(alive) == 1:
            why.append(f"{show_player(alive[0])} has the highest score, {best}{runner}")
        else:
            why.append(f"{_names(alive)} tie for the highest score, {best}{runner}")
        tiebreaks = []
        for i, tb in enumerate(o.tiebreaks, start=1):
            values = {p: self.value(tb.expr, (tb.var,), (p,)) for p in range(n)}
            tiebreaks.append({"tiebreak": self.text(tb.expr), "direction": tb.direction,
                              "values": {show_player(p): _plain(v) for p, v in values.items()},
                              "rules": [str(c) for c in tb.cites], "at": _where(tb.span)})
            if len(alive) == 1:
                continue
            pick = max if tb.direction == "higher" else min
            target = pick(values[p] for p in alive)
            kept = [p for p in alive if values[p] == target]
            shown = ", ".join(f"{show_player(p)} {values[p]}" for p in alive)
            cites = f" [{', '.join(map(str, tb.cites))}]" if tb.cites else ""
            why.append(f"tiebreak {i}, {self.text(tb.expr)} ({tb.direction} wins){cites}: {shown}: "
                       + (f"{show_player(kept[0])} wins" if len(kept) == 1 else f"{_names(kept)} still tie"))
            alive = kept
        if len(alive) > 1:
            why.append(f"{_names(alive)} share the win" if len(alive) < n else "every player ties: a draw")
        return {"winners": [show_player(p) for p in winners], "why": why, "tiebreaks": tiebreaks}


def _fresh(s):
    s.memo = {}
    return s


def _plain(v):
    return v if isinstance(v, (int, bool, str)) else str(v)


def _shown(v) -> str:
    return ("true" if v else "false") if isinstance(v, bool) else str(v)


def _names(players: list[int]) -> str:
    names = [show_player(p) for p in players]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _walk_calls(e, program):
    from ..frontend.typecheck import walk
    seen = set()
    stack = [e]
    while stack:
        node = stack.pop()
        for x in walk(node):
            if isinstance(x, N.Call) and x.func in program.defs and x.func not in seen:
                seen.add(x.func)
                yield x
                stack.append(program.defs[x.func].body)


def _direct_calls(e, program) -> list:
    """The calls of definitions in `e` not nested in another such call or in an aggregate's body."""
    out = []

    def visit(node):
        if isinstance(node, N.Call) and node.func in program.defs:
            out.append(node)
            return
        if isinstance(node, N.Aggregate):
            return  # its calls read the aggregate's variable: no single value
        for child in node.children():
            visit(child)

    visit(e)
    return out


def explain(position: Position, probe: Probe | None = None) -> dict:
    """Each player's score term by term, and why the winners win (as if the game ended here)."""
    try:
        with open(position.program.spec.path, encoding="utf-8") as fh:
            source = fh.read()
    except OSError:
        source = None
    return Explainer(position, probe, source).explain()


def format_explain(report: dict) -> str:
    pos = report["position"]
    lines = [f"position: {pos['source']}"]
    if not report["over"] and "example" not in pos:
        lines.append(f"the game is not over ({pos.get('to_move', '')} to move): the scores as they stand")
    rules = f" [{', '.join(report['score_rules'])}]" if report["score_rules"] else ""
    lines.append(f"score ({report['score_at']}){rules}:")
    for p in report["players"]:
        lines.append(f"  {p['player']}: {p['score']}")
        for u in p["unfolded"]:
            lines.append(f"    where {u}")
        for t in p["terms"]:
            parts = ", ".join(f"{x['name']} = {_shown(x['value'])}" for x in t["parts"])
            cites = f" [{', '.join(t['rules'])}]" if t["rules"] else ""
            lines.append(f"    {t['sign']} {t['value']:>4}  {t['term']}" + (f"   ({parts})" if parts else "") + cites)
        if not p["adds_up"]:
            lines.append("    (these terms are not a sum of numbers the tool could add up)")
    lines.append("winners: " + (", ".join(report["winners"]) or "none"))
    lines += [f"  {w}" for w in report["why"]]
    if report.get("failed_expectations"):
        lines.append("note: this example's expectations fail at " + ", ".join(report["failed_expectations"]))
    return "\n".join(lines)


__all__ = ["explain", "format_explain", "Explainer"]
