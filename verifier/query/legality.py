"""Is this move legal here, and if not, which rule forbids it? (`rulebook query --move/--legal`)

The engine already evaluates each `require` of a move on its own: `_why_m<k>` returns every
requirement a move breaks, with its label, text and cited rule IDs — the same function that
decides legality, so an explanation can never disagree with play. This module adds where each
requirement is written (the IR's spans), the nearest legal moves of the same kind, and for a
legal move what it does: the state's changes, the rules cited on the way, what the rules say.

A report (`check_move`): `legal`, `player`, `move`, `reason` (`legal`, `illegal`,
`not_your_turn`, `not_now`, `no_such_move`, `game_over`, `no_decision`), `failed`
(`label`, `text`, `rules`, `at`), `effects` (`what`, `before`, `after`; sets also `added`,
`removed`), `rules`, `said`, `next`, `nearest`.
"""
from __future__ import annotations

import difflib

from ..engine.lib import RuleError, show_player
from ..engine.runtime import CHANCE, GameState
from ..frontend.typecheck import walk
from .moves import ILLEGAL, LEGAL, OTHER_DECISION, OTHER_PLAYER, Candidate, Finder, decode, move_of, movers
from .position import Position, to_move
from .probe import Probe, describe_change, state_changes

NEAREST = 5


def _where(span) -> str:
    return f"{span.path}:{span.line}:{span.col}" if span.line else span.path


def requirement(program, k: int, label: str, text: str, cites) -> dict:
    """A broken requirement of move `k` as the report shows it, located in the spec."""
    move = program.moves[k].move
    at = _where(move.span)
    for req in move.requires:
        if req.label == label:
            at = _where(req.span)
            break
    else:
        for p in move.params:
            if label in (f"from_{p.name}", f"player_{p.name}"):
                at = _where(p.span)
    # a requirement that cites no rule of its own is ruled by its move's rules
    rules = [str(c) for c in (cites or move.cites)]
    return {"label": label, "text": text, "rules": rules, "at": at}


def broken(state: GameState, c: Candidate) -> list[dict]:
    """Every requirement `c` breaks (empty when it is legal)."""
    program = state.game.engine.program
    try:
        why = state.why_illegal(c.player, c.action)
    except RuleError as exc:
        return [{"label": "rule_error", "text": f"a requirement could not be evaluated: {exc.plain}",
                 "rules": [], "at": exc.where}]
    return [requirement(program, c.move, label, text, cites) for label, text, cites in why]


def decision_where(state: GameState) -> str:
    return state.m.DECISIONS[state.s.pc][4] if not state.is_terminal() else ""


def nearest(state: GameState, c: Candidate | None, text: str) -> list[str]:
    """Legal moves of the same kind, closest in their parameters; else those closest in text."""
    players = [c.player] if c is not None and c.where in (LEGAL, ILLEGAL) else movers(state)
    options = []
    for p in players:
        try:
            options += [(p, a, state.action_to_string(p, a)) for a in state.legal_actions(p)]
        except RuleError:
            pass
    if c is not None and c.where in (LEGAL, ILLEGAL):
        same = [(p, a, t) for p, a, t in options if move_of(state, a) == c.move]
        if same:
            def distance(item):
                values = decode(state.m.MOVES[c.move], item[1])
                return (sum(1 for x, y in zip(values, c.values) if x != y),
                        sum(abs(x - y) for x, y in zip(values, c.values)), item[1])
            return [t for _, _, t in sorted(same, key=distance)[:NEAREST]]
    texts = [t for _, _, t in options]
    close = difflib.get_close_matches(text, texts, n=NEAREST, cutoff=0.0)
    return close


def _cites(node) -> list[str]:
    out = []
    for x in walk(node):
        out += [str(c) for c in getattr(x, "cites", ()) or ()]
    return out


def effects(position: Position, c: Candidate, probe: Probe | None = None) -> dict:
    """What a legal move does: the state's changes up to the next decision, what the rules say on
    the way, the rule IDs the move, its requirements and its effects cite, and who acts next."""
    state = position.state
    probe = probe or Probe(position.engine)
    after = state.clone()
    after.s.logging, after.s.log = True, []
    before = state.m.clone(state.s)
    try:
        if state.is_simultaneous_node():
            joint = [state.legal_actions(p)[0] for p in range(state.num_players())]
            joint[c.player] = c.action
            after.apply_actions(joint)
        else:
            after.apply_action(c.action)
    except RuleError as exc:
        return {"effects": [], "rules": [], "said": [], "next": "", "error": str(exc)}
    move = position.program.moves[c.move].move
    rules = []
    for r in [str(x) for x in move.cites] + _cites(move.body) + [str(x) for req in move.requires for x in req.cites]:
        if r not in rules:
            rules.append(r)
    said = [e if isinstance(e, str) else e[1] for e in after.s.log if isinstance(e, str)]
    return {"effects": state_changes(probe, before, after.s), "rules": rules, "said": said,
            "next": to_move(after)}


def check_move(position: Position, text: str, player: int | None = None, probe: Probe | None = None) -> dict:
    """Is the move written `text` legal for the player to act (or `player`) here?"""
    state = position.state
    report = {"kind": "move", "position": position.describe(), "move": text, "legal": False, "player": None,
              "reason": "", "failed": [], "effects": [], "rules": [], "said": [], "next": "", "nearest": []}
    if position.example is not None:
        report.update(reason="no_decision", failed=[_plain("no_decision", f"example {position.example} sets a "
                                                           "state outside play: nobody is to move there")])
        return report
    if state.is_terminal():
        report.update(reason="game_over", failed=[_plain("game_over", "the game is over")])
        return report
    if state.current_player() == CHANCE:
        d = state.m.DECISIONS[state.s.pc]
        report.update(reason="not_now", failed=[_plain("chance", f"chance acts here (it draws {d[3].var}), no "
                                                       "player", d[4])])
        return report
    found = Finder(state, position.program).find(text, player)
    if not found:
        mover = player if player is not None else movers(state)[0]
        report.update(player=show_player(mover), reason="no_such_move",
                      failed=[_plain("no_such_move", f"no move is written {text!r} at this point of the game (write "
                                                           "a move as `--legal` lists it, or NAME(values))")],
                      nearest=nearest(state, None, text))
        return report
    c = _pick(found)
    report.update(player=show_player(c.player), move=c.text)
    if c.where == OTHER_PLAYER:
        report.update(reason="not_your_turn", nearest=nearest(state, None, text),
                      failed=[_plain("not_your_turn", f"it is {to_move(state)}'s turn, not {show_player(c.player)}'s",
                                     decision_where(state))])
        return report
    if c.where == OTHER_DECISION:
        info = position.program.moves[c.move]
        at = _where(info.move.span)
        report.update(reason="not_now", nearest=nearest(state, None, text),
                      failed=[_plain("not_now", f"{info.move.name!r} is a move of the decision at "
                                     f"{state.m.DECISIONS[info.decision][4]}; the game is now at the decision at "
                                     f"{decision_where(state)} ({to_move(state)} to act)", at)])
        return report
    failed = broken(state, c)
    if failed:
        report.update(reason="illegal", failed=failed, nearest=nearest(state, c, text))
        return report
    report.update(legal=True, reason="legal", **effects(position, c, probe))
    return report


def _pick(found: list[Candidate]) -> Candidate:
    """Of several actions with the same text, the legal one, else the first."""
    for c in found:
        if c.where == LEGAL:
            return c
    return found[0]


def _plain(label: str, text: str, at: str = "") -> dict:
    return {"label": label, "text": text, "rules": [], "at": at}


def explain_candidates(state: GameState, player: int, text: str, found: list[Candidate]) -> str:
    """Why a step of a history is not legal, in one sentence (for PositionError)."""
    if not found:
        legal = [state.action_to_string(player, a) for a in state.legal_actions(player)]
        close = difflib.get_close_matches(text, legal, n=3, cutoff=0.0)
        return (f"no move of {show_player(player)} here is written {text!r}"
                + (f"; legal moves include: {', '.join(close)}" if close else "; there is no legal move"))
    c = found[0]
    if c.where == ILLEGAL:
        reasons = "; ".join(f"{f['label']} ({f['text']}) at {f['at']}" for f in broken(state, c))
        return f"{c.text!r} is not legal for {show_player(player)}: {reasons}"
    if c.where == OTHER_PLAYER:
        return f"{c.text!r} is {show_player(c.player)}'s move, but {show_player(player)} acts here"
    return f"{c.text!r} is not a move of this point of the game ({to_move(state)} to act at {decision_where(state)})"


# ------------------------------------------------------------------ every legal move

def legal_moves(position: Position) -> dict:
    """Every legal move, grouped by move kind; for a kind with none, the requirements that rule it out."""
    state = position.state
    program = position.program
    report = {"kind": "legal", "position": position.describe(), "players": []}
    if position.example is not None or state.is_terminal():
        return report
    if state.current_player() == CHANCE:
        d = state.m.DECISIONS[state.s.pc]
        report["chance"] = {"draws": d[3].var, "outcomes": [state.action_to_string(CHANCE, a)
                                                           for a, _ in state.chance_outcomes()], "at": d[4]}
        return report
    for p in movers(state):
        legal = state.legal_actions(p)
        kinds = []
        for k in state.m.DECISIONS[state.s.pc][3]:
            mine = [a for a in legal if move_of(state, a) == k]
            entry = {"move": state.m.MOVES[k][0], "at": _where(program.moves[k].move.span),
                     "legal": [state.action_to_string(p, a) for a in mine]}
            if not mine:
                entry["ruled_out_by"] = ruled_out(state, p, k)
            kinds.append(entry)
        report["players"].append({"player": show_player(p), "moves": kinds})
    return report


def ruled_out(state: GameState, player: int, k: int, limit: int = 5000) -> list[dict]:
    """The requirements that rule out every action of move `k`, with how many actions each rules out."""
    from .moves import all_actions
    counts: dict = {}
    for a in list(all_actions(state, k))[:limit]:
        values = decode(state.m.MOVES[k], a)
        c = Candidate(a, player, k, values, "", ILLEGAL)
        for f in broken(state, c):
            key = f["label"]
            if key not in counts:
                counts[key] = dict(f, actions=0)
            counts[key]["actions"] += 1
    return sorted(counts.values(), key=lambda f: -f["actions"])


# ------------------------------------------------------------------ text

def format_check(report: dict) -> str:
    lines = [f"position: {report['position']['source']}; to move: {report['position'].get('to_move', '-')}"]
    who = f" for {report['player']}" if report["player"] else ""
    if report["legal"]:
        lines.append(f"{report['move']!r} is legal{who}.")
        if report["effects"]:
            lines.append("It changes:")
            lines += [f"  {describe_change(c)}" for c in report["effects"]]
        else:
            lines.append("It changes no declared variable.")
        if report["said"]:
            lines.append("The rules say:")
            lines += [f"  {s}" for s in report["said"] if s]
        if report["rules"]:
            lines.append(f"Rules cited: {', '.join(report['rules'])}")
        if report["next"]:
            lines.append(f"Then: {report['next']} to move.")
        return "\n".join(lines)
    lines.append(f"{report['move']!r} is not legal{who}:")
    for f in report["failed"]:
        rules = f" [{', '.join(f['rules'])}]" if f["rules"] else ""
        at = f"{f['at']}: " if f["at"] else ""
        lines.append(f"  {at}{f['label']}: {f['text']}{rules}")
    if report["nearest"]:
        lines.append("Nearest legal moves: " + "; ".join(report["nearest"]))
    return "\n".join(lines)


def format_legal(report: dict, limit: int = 40) -> str:
    lines = [f"position: {report['position']['source']}; to move: {report['position'].get('to_move', '-')}"]
    if "chance" in report:
        c = report["chance"]
        lines.append(f"chance draws {c['draws']} ({c['at']}): " + ", ".join(c["outcomes"]))
    for entry in report["players"]:
        lines.append(f"{entry['player']}:")
        for kind in entry["moves"]:
            legal = kind["legal"]
            if legal:
                shown = legal if len(legal) <= limit else legal[:limit] + [f"... and {len(legal) - limit} more"]
                lines.append(f"  {kind['move']} ({len(legal)} legal, {kind['at']}):")
                lines += [f"    {t}" for t in shown]
            else:
                lines.append(f"  {kind['move']}: none legal ({kind['at']}); ruled out by:")
                for f in kind.get("ruled_out_by", []):
                    rules = f" [{', '.join(f['rules'])}]" if f["rules"] else ""
                    lines.append(f"    {f['at']}: {f['label']}: {f['text']}{rules} ({f['actions']} choices)")
    if not report["players"] and "chance" not in report:
        lines.append("nobody can move here" + (" (the game is over)" if "over" in
                                               report["position"].get("to_move", "") else ""))
    return "\n".join(lines)


__all__ = ["check_move", "legal_moves", "format_check", "format_legal", "explain_candidates"]
