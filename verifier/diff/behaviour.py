"""The behavioural layer of `rulebook diff`: positions reachable under both specs where they disagree.

The two compiled engines are played in lockstep: one game, the same steps on both sides. A step
is matched by what it means, not by its action id (which an edit may shift): a move by its name
(read through the renames the structural layer found) and its parameter values, a chance outcome
by its text. At every position of the game the two sides are compared:

- who acts (a player, chance, everyone in secret, nobody: the game ended);
- the legal moves of whoever acts, and the outcomes of a chance draw;
- for the legal moves (those of moves the edit touched first, at most `check` of them), the
  state after the move under each spec: every variable both declare, and who acts next;
- at the end, the scores and the winners.

The first disagreement of a game is a *witness*: the steps that led to it (valid under both specs,
since they were played under both), the move, and what each spec says, with the requirements or
declarations responsible. Games are driven down the paths the edit touches: where a move the
edit changed (or one that reads a changed definition) is legal under both, it is played more
often than the others. Nothing here proves an absence: `none found in N games / depth D`.
"""
from __future__ import annotations

import random
import time
from operator import attrgetter
from dataclasses import dataclass, field

from ..engine.lib import RuleError, show_player
from ..engine.runtime import CHANCE, SIMULTANEOUS, Game, GameState
from ..ir.types import ArrayT, IntT, SetT
from ..query.moves import decode, move_of
from ..query.position import step_text
from ..query.probe import Probe, index_value
from . import structural as S

AFTER_FIRST = 30  # games played after the first witness, looking for witnesses of other kinds
TOUCHED_BIAS = 0.7  # chance that a touched move legal under both is played when one exists
REPLACE_TRIES = 20  # shortening: replacements per step of the history, in a row without a gain, before it stops


@dataclass
class Witness:
    kind: str  # node, chance, legality, successor, end, rule_error
    players: int
    summary: str  # one sentence
    old_says: str
    new_says: str
    move: str = ""  # the move (or outcome) in question, as the old spec prints it
    old_steps: list = field(default_factory=list)  # action ids, replayable under OLD
    new_steps: list = field(default_factory=list)
    old_texts: list = field(default_factory=list)  # the steps as each spec prints them
    new_texts: list = field(default_factory=list)
    responsible: list = field(default_factory=list)  # {"side", "what", "at", "rules"}
    replayed: bool = False  # the history was replayed through both engines and the difference seen again
    move_name: str = ""  # the move's name in the old spec ("" for a chance outcome or none)
    move_old: object = None  # the move's action id(s) under each spec (successor and rule_error witnesses)
    move_new: object = None
    found_steps: int | None = None  # the history's length as the search found it, before `shorten`

    @property
    def key(self) -> tuple:
        return (self.kind, self.move_name)

    def as_json(self, old_game: Game, new_game: Game) -> dict:
        def replay(game, steps):
            return {"game": game.module.GAME_NAME, "players": self.players, "options": game.option_strings(),
                    "history": steps}
        return {"kind": self.kind, "players": self.players, "summary": self.summary, "move": self.move,
                "old": self.old_says, "new": self.new_says, "history": "; ".join(self.old_texts),
                "new_history": "; ".join(self.new_texts), "steps": len(self.old_steps),
                "found_steps": len(self.old_steps) if self.found_steps is None else self.found_steps,
                "old_replay": replay(old_game, self.old_steps), "new_replay": replay(new_game, self.new_steps),
                "responsible": self.responsible, "replayed": self.replayed}


@dataclass
class Search:
    games: int = 0
    deepest: int = 0
    seconds: float = 0.0
    witnesses: list = field(default_factory=list)
    stopped: str = ""  # why the search ended early ("budget")


class Lockstep:
    """One game played under both specs at once."""

    def __init__(self, old: Game, new: Game, renames: dict, context: "Context"):
        self.games = (old, new)
        self.start = [None, None]  # the rule error a side's flow raises before its first decision
        states = []
        for i, g in enumerate((old, new)):
            try:
                states.append(g.new_initial_state())
            except RuleError as exc:
                states.append(None)
                self.start[i] = str(exc)
        self.old, self.new = states
        self.renames = renames
        self.ctx = context

    # ---------------------------------------------------------------- reading a side
    def key(self, state: GameState, action: int, side: str) -> tuple:
        cache = self.ctx.keys[side]  # an action id always means the same move: decoded once
        got = cache.get(action)
        if got is None:
            k = move_of(state, action)
            name = state.m.MOVES[k][0]
            if side == "new":
                name = self.renames.get(name, name)
            got = cache[action] = (name, decode(state.m.MOVES[k], action))
        return got

    def legal(self, state: GameState, player: int, side: str) -> dict:
        return {self.key(state, a, side): a for a in state.legal_actions(player)}

    @staticmethod
    def who(state: GameState):
        if state.is_terminal():
            return "end"
        return state.current_player()

    @staticmethod
    def outcomes(state: GameState) -> dict:
        return {state.action_to_string(CHANCE, a): a for a, _ in state.chance_outcomes()}

    # ---------------------------------------------------------------- one game
    def play(self, rng: random.Random, depth: int) -> Witness | None:
        for _ in range(depth):
            w = self.compare_here()
            if w is not None or self.old.is_terminal():
                return w
            who = self.who(self.old)
            if who == CHANCE:
                oo, no = self.outcomes(self.old), self.outcomes(self.new)
                text = rng.choice(sorted(oo))
                w = self.apply(oo[text], no[text])
            elif who == SIMULTANEOUS:
                joint_o, joint_n = [], []
                for p in range(self.old.num_players()):
                    lo, ln = self.legal(self.old, p, "old"), self.legal(self.new, p, "new")
                    k = rng.choice(sorted(lo))
                    joint_o.append(lo[k])
                    joint_n.append(ln[k])
                w = self.apply(joint_o, joint_n, check_after=True)
            else:
                lo, ln = self.legal(self.old, who, "old"), self.legal(self.new, who, "new")
                w = self.lookahead(lo, ln, rng)
                if w is None:
                    k = self.pick(lo, rng)
                    w = self.apply(lo[k], ln[k])
            if w is not None:
                return w
        return None

    def pick(self, legal: dict, rng: random.Random) -> tuple:
        keys = sorted(legal)
        hot = [k for k in keys if k[0] in self.ctx.touched_moves]
        if hot and rng.random() < TOUCHED_BIAS:
            return rng.choice(hot)
        return rng.choice(keys)

    def lookahead(self, lo: dict, ln: dict, rng: random.Random) -> Witness | None:
        """Each checked legal move, applied under both specs: the same state after it?"""
        keys = sorted(lo)
        hot = [k for k in keys if k[0] in self.ctx.touched_moves]
        cold = [k for k in keys if k[0] not in self.ctx.touched_moves]
        rng.shuffle(cold)
        if len(hot) > self.ctx.check:
            hot = rng.sample(hot, self.ctx.check)
        # every touched move, and a few others (an edit the structure misses: the flow's own code)
        for k in hot + cold[:self.ctx.cold if self.ctx.touched_moves else self.ctx.check]:
            trial = Lockstep.__new__(Lockstep)
            trial.__dict__.update(self.__dict__)
            trial.old, trial.new = self.old.clone(), self.new.clone()
            try:
                w = trial.apply(lo[k], ln[k], check_after=True)
            except _BothBroke:
                continue
            if w is not None:
                return w
        return None

    def apply(self, a_old, a_new, check_after: bool = False) -> Witness | None:
        before = (list(self.old.history), list(self.new.history))
        self._last = (a_old, a_new)
        who = self.who(self.old)
        self._last_name = ("chance" if who == CHANCE else "simultaneous" if isinstance(a_old, list)
                           else self.key(self.old, a_old, "old")[0])
        errors = []
        for state, a in ((self.old, a_old), (self.new, a_new)):
            try:
                if isinstance(a, list):
                    state.apply_actions(a)
                else:
                    state.apply_action(a)
                errors.append(None)
            except RuleError as exc:
                errors.append(str(exc))
        if errors[0] and errors[1]:
            raise _BothBroke()
        if errors[0] or errors[1]:
            return self.witness("rule_error", f"the rules break under {'OLD' if errors[0] else 'NEW'} only",
                                f"the rules break: {errors[0]}" if errors[0] else "plays on",
                                f"the rules break: {errors[1]}" if errors[1] else "plays on", MOVE_TEXT, before)
        if check_after:
            differ = self.ctx.state_diff(self.old, self.new, self.renames)
            if differ:
                entries = self.ctx.show_differences(self.games, differ)
                shown = "; ".join(f"{what}: {a}" for what, a, _ in entries[:4])
                shown_new = "; ".join(f"{what}: {b}" for what, _, b in entries[:4])
                names = ", ".join(v for v, _, _ in differ[:4])
                return self.witness("successor", f"the same move leads to different states ({names})",
                                    shown, shown_new, MOVE_TEXT, before, variables=[v for v, _, _ in differ])
        return None

    def compare_here(self) -> Witness | None:
        if self.start[0] or self.start[1]:
            if self.start[0] and self.start[1]:
                raise _BothBroke()
            side = "OLD" if self.start[0] else "NEW"
            said = [f"the rules break: {e}" if e else "the game starts" for e in self.start]
            return Witness("rule_error", self.games[0].num_players, f"the start breaks a rule under {side} only",
                           said[0], said[1])
        o, n = self.old, self.new
        wo, wn = self.who(o), self.who(n)
        if wo != wn:
            def said(w):
                return {"end": "the game is over", CHANCE: "chance acts", SIMULTANEOUS: "every player chooses in secret"}.get(
                    w, f"{show_player(w)} is to move" if isinstance(w, int) else str(w))
            return self.witness("node", "the specs disagree on who acts here", said(wo), said(wn))
        if wo == "end":
            ends = []
            for side in (o, n):  # the end's results may break a rule (a declared utility, a partial score)
                try:
                    ends.append((side.scores(), side.winners(), side.returns(), None))
                except RuleError as exc:
                    ends.append((None, None, None, str(exc)))
            if ends[0][3] or ends[1][3]:
                if ends[0][3] and ends[1][3]:
                    return None  # both break: the same end
                return self.witness("rule_error", f"the end breaks a rule under {'OLD' if ends[0][3] else 'NEW'} only",
                                    f"the rules break: {ends[0][3]}" if ends[0][3] else "the game ends",
                                    f"the rules break: {ends[1][3]}" if ends[1][3] else "the game ends")
            (so, wo_, ro, _), (sn, wn_, rn, _) = ends
            if so != sn or wo_ != wn_ or ro != rn:
                def said(scores, winners, returns):
                    return (f"scores {scores}, winner{'s' if len(winners) != 1 else ''} "
                            + ", ".join(show_player(p) for p in winners) + f", returns {returns}")
                return self.witness("end", "the game ends with different scores, winners or returns",
                                    said(so, wo_, ro), said(sn, wn_, rn))
            return None
        if wo == CHANCE:
            oo, on = set(self.outcomes(o)), set(self.outcomes(n))
            if oo != on:
                only_o, only_n = sorted(oo - on), sorted(on - oo)
                return self.witness("chance", "the chance draw has different outcomes",
                                    f"can also draw {', '.join(only_o[:6])}" if only_o else "the same and no more",
                                    f"can also draw {', '.join(only_n[:6])}" if only_n else "the same and no more")
            return None
        players = range(o.num_players()) if wo == SIMULTANEOUS else [wo]
        for p in players:
            lo, ln = self.legal(o, p, "old"), self.legal(n, p, "new")
            if lo.keys() != ln.keys():
                return self.legality_witness(p, lo, ln)
        return None

    def legality_witness(self, p: int, lo: dict, ln: dict) -> Witness:
        only_old = sorted(set(lo) - set(ln))
        only_new = sorted(set(ln) - set(lo))
        if only_new:  # prefer a move the edit allows: its text exists on the side that forbids it
            k, legal_side = only_new[0], "new"
        else:
            k, legal_side = only_old[0], "old"
        legal_state, other = (self.new, self.old) if legal_side == "new" else (self.old, self.new)
        action = (ln if legal_side == "new" else lo)[k]
        text = legal_state.action_to_string(p, action)
        other_action = self.ctx.action_for(other, k, "old" if legal_side == "new" else "new", self.renames)
        why = []
        if other_action is not None:
            why = other.why_illegal(p, other_action)
        forbid = "; ".join(f"{label} ({msg})" + (" @" + " @".join(c) if c else "") for label, msg, c in why) \
            if why else "no such move here"
        says_legal, says_illegal = "legal", f"illegal: {forbid}"
        old_says, new_says = (says_illegal, says_legal) if legal_side == "new" else (says_legal, says_illegal)
        w = self.witness("legality", f"{show_player(p)}: {text} is legal under {legal_side.upper()} only",
                         old_says, new_says, f"{show_player(p)}: {text}")
        w.move_name = k[0]
        forbidding_side = "old" if legal_side == "new" else "new"
        for label, msg, cites in why:
            w.responsible.append(self.ctx.requirement(forbidding_side, k[0], label, cites))
        return w

    def witness(self, kind, summary, old_says, new_says, move="", before=None, variables=()) -> Witness:
        ho, hn = before if before is not None else (list(self.old.history), list(self.new.history))
        # the steps' texts are written once, for the witness (by replay): not at every step of every game
        (old_texts, move_text), (new_texts, _) = (step_texts(game, steps, self._last[i] if before is not None else None)
                                                  for i, (game, steps) in enumerate(zip(self.games, (ho, hn))))
        if move is MOVE_TEXT:
            move = move_text
        w = Witness(kind, self.old.num_players(), summary, old_says, new_says, move, ho, hn, old_texts, new_texts)
        # the history is the position before the move; the move is `w.move`
        if before is not None:
            w.move_old, w.move_new = self._last
            w.move_name = self._last_name
        w.responsible += self.ctx.changed_items(variables)
        return w


MOVE_TEXT = object()  # a witness's move: the text of the step last applied (written with the others)


def step_texts(game: Game, steps: list, then=None) -> tuple[list, str]:
    """`steps` as the spec prints them (replayed from the start), and the text of the step `then` after them."""
    state = game.new_initial_state()
    out = []
    for step in steps:
        out.append(step_text(state, step))
        state.apply_actions(step) if isinstance(step, list) else state.apply_action(step)
    return out, (step_text(state, then) if then is not None else "")


class _BothBroke(Exception):
    """Both specs broke at the same step: not a difference, the game ends here."""


@dataclass
class Context:
    """What the lockstep games need from the structural layer."""

    old_spec: object
    new_spec: object
    structure: S.Structure
    touched_moves: set
    check: int = 16  # legal moves whose successors are compared at a position when the edit touches no move
    cold: int = 2  # moves the edit did not touch whose successors are compared at a position
    keys: dict = field(default_factory=lambda: {"old": {}, "new": {}})  # action id -> (move, values)
    shared: dict = field(default_factory=dict)  # (old state class, new state class) -> the variables compared
    probes: dict = field(default_factory=dict)  # engine id -> Probe: values shown as the spec shows them

    def show_differences(self, games: tuple, differ: list) -> list:
        """(what, old text, new text) for each differing variable of `state_diff`, each side's value
        shown by its own engine as `play` shows it (a set as its members, an enum by its display
        name); an array by the entries that differ (`v[P2]`), when both sides index it alike."""
        probes = []
        for g in games:
            probe = self.probes.get(id(g.engine))
            if probe is None:
                probe = self.probes[id(g.engine)] = Probe(g.engine)
            probes.append(probe)
        back = {v: k for k, v in self.structure.renames.items()}
        out = []

        def walk(what, to, tn, a, b):
            if a == b:
                return
            if (isinstance(to, ArrayT) and isinstance(tn, ArrayT) and to.index == tn.index
                    and isinstance(a, list) and isinstance(b, list) and len(a) == len(b)):
                for i, (x, y) in enumerate(zip(a, b)):
                    walk(f"{what}[{probes[0].show(to.index, index_value(to.index, i))}]", to.elem, tn.elem, x, y)
                return
            a_text, b_text = probes[0].show(to, a), probes[1].show(tn, b)
            if isinstance(to, SetT) and to == tn and isinstance(a, int) and isinstance(b, int):
                # a long set is hard to compare by eye: say which members one side has alone
                lo = to.elem.lo if isinstance(to.elem, IntT) else 0
                def alone(x, y):
                    return ", ".join(probes[0].show(to.elem, lo + i) for i in range(x.bit_length())
                                     if (x >> i) & 1 and not (y >> i) & 1)
                a_text += f" (only here: {alone(a, b)})" if a & ~b else ""
                b_text += f" (only here: {alone(b, a)})" if b & ~a else ""
            out.append((what, a_text, b_text))

        for name, a, b in differ:
            to = games[0].engine.program.var_types[name]
            tn = games[1].engine.program.var_types[back.get(name, name)]
            try:
                walk(name, to, tn, a, b)
            except (IndexError, KeyError, TypeError, ValueError):  # a value its type cannot show: the raw value
                out.append((name, repr(a), repr(b)))
        return out

    def state_diff(self, old: GameState, new: GameState, renames: dict) -> list:
        """(variable, old value, new value) for each variable both specs declare that differs."""
        pairs = self.shared.get((type(old.s), type(new.s)))
        if pairs is None:
            back = {v: k for k, v in renames.items()}
            names = [(a, "V_" + back.get(a[2:], a[2:])) for a in old.s.__slots__ if a.startswith("V_")]
            names = [(a, b) for a, b in names if b in new.s.__slots__]
            pairs = self.shared[(type(old.s), type(new.s))] = (
                names, attrgetter(*(a for a, _ in names)) if names else (lambda s: ()),
                attrgetter(*(b for _, b in names)) if names else (lambda s: ()))
        names, get_old, get_new = pairs
        if get_old(old.s) == get_new(new.s):  # the common case, at every step: one tuple comparison
            return []
        out = []
        for attr, other in names:
            a, b = getattr(old.s, attr), getattr(new.s, other)
            if a != b:
                out.append((attr[2:], a, b))
        return out

    @staticmethod
    def action_for(state: GameState, key: tuple, side: str, renames: dict):
        """The action id of the move `key` (old names) on `side`'s engine, if it has that move."""
        back = {v: k for k, v in renames.items()} if side == "new" else {}
        name = back.get(key[0], key[0])
        for entry in state.m.MOVES:
            if entry[0] != name or len(entry[2]) != len(key[1]):
                continue
            offset, sizes, los = entry[1], entry[2], entry[3]
            action, ok = 0, True
            for v, n, lo in zip(key[1], sizes, los):
                if not lo <= v < lo + n:
                    ok = False
                action = action * n + (v - lo)
            if ok:
                return offset + action
        return None

    def requirement(self, side: str, move: str, label: str, cites) -> dict:
        spec = self.old_spec if side == "old" else self.new_spec
        name = move if side == "old" else {v: k for k, v in self.structure.renames.items()}.get(move, move)
        for m in S.moves_of(spec):
            if m.name == name:
                for r in m.requires:
                    if r.label == label:
                        return {"side": side, "what": f"require {label} \"{r.message}\"", "at": str(r.span),
                                "rules": list(r.cites or m.cites)}
        return {"side": side, "what": f"require {label}", "at": "", "rules": list(cites)}

    def changed_items(self, variables=()) -> list:
        """The behavioural declarations the edit changed, with their places and rule IDs."""
        out = []
        for c in self.structure.changes:
            if c.what in ("reordered",) or c.kind in ("rule", "invariant", "example", "expect", "display"):
                continue
            sides = [(side, item) for side, item in (("old", c.old), ("new", c.new)) if item is not None]
            rules = []
            for _, item in sides:
                rules += [r for r in getattr(item.node, "cites", ()) or () if r not in rules]
            out.append({"side": "+".join(side for side, _ in sides),
                        "what": f"{c.what} {c.kind} {c.name}" + (f" ({c.detail})" if c.detail else ""),
                        "at": ", ".join(str(item.node.span) for _, item in sides), "rules": rules})
        return out[:4]


def touched_moves(structure: S.Structure, old_spec, new_spec) -> set:
    """Moves the edit changed, and moves whose requirements or effects read a changed name, directly
    or through definitions and constants."""
    touched = structure.touched()
    out = set()
    for spec, side in ((old_spec, "old"), (new_spec, "new")):
        bodies = {d.name: d for d in spec.decls if isinstance(d, (S.N.DefDecl, S.N.ConstDecl))}
        for m in S.moves_of(spec):
            name = m.name if side == "old" else structure.renames.get(m.name, m.name)
            seen, stack = set(), list(S.references(m))
            while stack:
                x = stack.pop()
                if x in seen:
                    continue
                seen.add(x)
                if x in bodies:
                    stack.extend(S.references(bodies[x]))
            if m.name in touched or name in touched or seen & touched:
                out.add(name)
    return out


def search(old: Game, new: Game, ctx: Context, games: int, depth: int, seconds: float, seed: int = 0,
           counts: list | None = None, old_games: dict | None = None, new_games: dict | None = None,
           max_witnesses: int = 3) -> Search:
    """Lockstep games until `max_witnesses` witnesses of different kinds, `games` games or
    `seconds`; games cycle through the player counts (`old_games`/`new_games`: count -> Game)."""
    out = Search()
    t0 = time.monotonic()
    rng = random.Random(seed)
    old_games = old_games or {old.num_players: old}
    new_games = new_games or {new.num_players: new}
    counts = counts or sorted(old_games)
    seen = set()
    last = games
    for g in range(games):
        if g >= last:  # after the first witness, a few more games look for other kinds
            break
        if time.monotonic() - t0 > seconds:
            out.stopped = "budget"
            break
        n = counts[g % len(counts)]
        pair = Lockstep(old_games[n], new_games[n], ctx.structure.renames, ctx)
        try:
            w = pair.play(random.Random(rng.getrandbits(32)), depth)
        except _BothBroke:
            w = None
        out.games += 1
        out.deepest = max(out.deepest, len(pair.old.history))
        if w is None:
            continue
        if w.key in seen:  # the shorter of two witnesses of one kind
            i = next(i for i, x in enumerate(out.witnesses) if x.key == w.key)
            if len(w.old_steps) < len(out.witnesses[i].old_steps):
                out.witnesses[i] = w
            continue
        if not seen:
            last = min(games, g + 1 + AFTER_FIRST)
        seen.add(w.key)
        out.witnesses.append(w)
        if len(out.witnesses) >= max_witnesses:
            break
    out.seconds = time.monotonic() - t0
    return out


# ------------------------------------------------------------------ directed: towards a changed guard

def guard_targets(structure: S.Structure, spec=None) -> list[str]:
    """State conditions (the old spec's language) under which a changed requirement reads differently:
    `not ((OLD) == (NEW))` for a requirement changed in place, `not (OLD)` for one dropped, `not (NEW)`
    for one added — each only when it reads no move parameter (then it is a condition on the state).

    With the old `spec`, each target comes first with the conditions of the `while` and `if` blocks
    around the move (those that read no flow local) joined to it: the difference shows only where
    the move is offered, and a state satisfying the bare condition is often not such a place (a
    hand already full, but no card to take this turn). The bare target follows, for when the
    surrounding conditions do not hold at the move (a loop's body that changes them first)."""
    from ..ir.printer import print_expr
    out = []
    for c in structure.changes:
        if c.kind != "move" or c.what != "changed":
            continue
        o, n = c.old.node, S.rename(c.new.node, structure.renames)
        params = {p.name for p in o.params} | {p.name for p in n.params}
        ro = {r.label: r.cond for r in o.requires}
        rn = {r.label: r.cond for r in n.requires}
        around = [f"({text})" for text in (print_expr(e) for e in enclosing_conditions(spec, o.name))
                  if text != "true"] if spec is not None else []
        for label in sorted(set(ro) | set(rn)):
            a, b = ro.get(label), rn.get(label)
            if a == b or any(x is not None and S.references(x) & params for x in (a, b)):
                continue
            if a is not None and b is not None:
                target = f"not (({print_expr(a)}) == ({print_expr(b)}))"
            else:
                target = f"not ({print_expr(a if a is not None else b)})"
            for t in ([" and ".join([target] + around)] if around else []) + [target]:
                if t not in out:
                    out.append(t)
    return out


def enclosing_conditions(spec, move: str) -> list:
    """The conditions that hold on the way into the flow's move `move`: each enclosing `while`'s
    condition and the `if` branch's (with the earlier branches' negated), leaving out any that read
    a name bound inside the flow (a `for` variable, a `let`, a simultaneous choice)."""
    from ..ir import nodes as N

    def walk(node, conds: list, bound: set):
        if isinstance(node, N.Move):
            return conds if node.name == move else None
        if isinstance(node, N.While):
            return walk(node.body, conds + [node.cond] if not S.references(node.cond) & bound else conds, bound)
        if isinstance(node, N.If):
            earlier = []  # the earlier branches' conditions, negated: they did not hold
            for cond, block in node.branches:
                free = not S.references(cond) & bound
                got = walk(block, conds + earlier + ([cond] if free else []), bound)
                if got is not None:
                    return got
                if free:
                    earlier.append(N.Unary("not", cond))
            return walk(node.orelse, conds + earlier, bound) if node.orelse is not None else None
        if isinstance(node, N.Block):
            inner = set(bound)
            for stmt in node.stmts:
                got = walk(stmt, conds, inner)
                if got is not None:
                    return got
                if isinstance(stmt, N.Let):
                    inner.add(stmt.name)
            return None
        if isinstance(node, N.For):
            return walk(node.body, conds, bound | {node.var})
        if isinstance(node, N.Simultaneous):
            return walk_children(node, conds, bound | {node.var})
        return walk_children(node, conds, bound)

    def walk_children(node, conds, bound):
        for child in node.children():
            got = walk(child, conds, bound)
            if got is not None:
                return got
        return None

    for flow in spec.of_kind(N.FlowDecl):
        got = walk(flow, [], set())
        if got is not None:
            return got
    return []


def follow(pair: "Lockstep", old_history: list) -> Witness | None:
    """Play the old spec's steps under both specs (each matched by meaning), comparing as it goes."""
    for step in old_history:
        w = pair.compare_here()
        if w is not None or pair.old.is_terminal():
            return w
        who = pair.who(pair.old)
        if who == CHANCE:
            text = pair.old.action_to_string(CHANCE, step)
            w = pair.apply(step, pair.outcomes(pair.new)[text])
        elif isinstance(step, list):
            w = pair.apply(step, [pair.legal(pair.new, p, "new")[pair.key(pair.old, a, "old")]
                                  for p, a in enumerate(step)])
        else:
            w = pair.apply(step, pair.legal(pair.new, who, "new")[pair.key(pair.old, step, "old")], check_after=True)
        if w is not None:
            return w
    return pair.compare_here()


def directed(old_games: dict, new_games: dict, ctx: Context, old_program, counts: list, seconds: float,
             seed: int, depth: int, out: Search) -> None:
    """For each changed guard, reach a state where it reads differently (the query layer's `--can`
    search on the old spec), then play on from there in lockstep."""
    from ..query.expr import query_program
    from ..query.reach import can
    t0 = time.monotonic()
    targets = guard_targets(ctx.structure, ctx.old_spec)
    for target in targets:
        for n in counts:
            left = seconds - (time.monotonic() - t0)
            if left <= 1 or out.witnesses:
                return
            try:
                q = query_program(old_program, target)
                answer = can(q, n, old_games[n].option_strings(), budget=left, seed=seed, prove=False)
            except Exception:  # a condition the query layer cannot read: no direction from it
                continue
            if answer.verdict != "yes" or answer.witness is None:
                continue
            rng = random.Random(seed)
            for _ in range(20):
                pair = Lockstep(old_games[n], new_games[n], ctx.structure.renames, ctx)
                try:
                    w = follow(pair, answer.witness["history"]) or pair.play(rng, depth)
                except (_BothBroke, KeyError):
                    w = None
                out.games += 1
                out.deepest = max(out.deepest, len(pair.old.history))
                if w is not None:
                    out.witnesses.append(w)
                    return


# ------------------------------------------------------------------ shorter witnesses

def replay(pair: Lockstep, steps: list, w: Witness) -> Witness | None:
    """The old spec's `steps` (action ids) played under both specs, each matched by meaning, then
    the witness's own move (for a witness at a position, nothing more): the first difference seen,
    or None. A step that is not legal where it now falls is skipped (a candidate history is the
    steps that fit: dropping one step of a turn drops what no longer follows from it); the
    witness's move itself must fit.

    The positions are compared as the search compares them (who acts, the legal moves, the chance
    outcomes); the states after a step only after the witness's move (and after a secret joint
    move, as play does), so that the witness the search found always replays here."""
    for i, step in enumerate(steps + ([w.move_old] if w.move_old is not None else [])):
        got = pair.compare_here()
        if got is not None or pair.old.is_terminal():
            return got
        last = i == len(steps)  # the witness's move: the states after it are compared
        other = _counterpart(pair, step)
        if other is None:
            if last:
                return None
            continue
        got = pair.apply(step, other, check_after=last or isinstance(step, list))
        if got is not None:
            return got
    return pair.compare_here() if w.move_old is None else None


def _counterpart(pair: Lockstep, step):
    """The new spec's step meaning the old spec's `step` here, or None when `step` is not legal here."""
    who = pair.who(pair.old)
    if who == CHANCE:
        if isinstance(step, list) or step not in dict(pair.old.chance_outcomes()):
            return None
        return pair.outcomes(pair.new).get(pair.old.action_to_string(CHANCE, step))
    if who == SIMULTANEOUS:
        if not isinstance(step, list) or len(step) != pair.old.num_players():
            return None
        other = []
        for p, a in enumerate(step):
            if a not in pair.old.legal_actions(p):
                return None
            other.append(pair.legal(pair.new, p, "new").get(pair.key(pair.old, a, "old")))
        return None if None in other else other
    if isinstance(step, list) or step not in pair.old.legal_actions(who):
        return None
    return pair.legal(pair.new, who, "new").get(pair.key(pair.old, step, "old"))


def shorten(w: Witness, old: Game, new: Game, ctx: Context, seconds: float, seed: int = 0) -> Witness:
    """A shorter history showing the same difference (same kind, same move), within `seconds`.

    First delta debugging: drop a chunk of steps and replay the rest under both specs (steps that
    no longer fit are skipped); keep the drop when the difference still shows — perhaps earlier,
    since the replay stops at the first difference. Chunks halve down to single steps. Dropping
    alone cannot make a choice do more (the search's choices moved a count up by one where
    another move would add three), so then, while time remains: one step replaced by another move legal where it
    stands, the rest replayed, kept when the difference shows sooner; after each such gain the
    drops are tried again. The result is a witness of the replay (texts written afresh);
    `found_steps` keeps the length the search found."""
    found = len(w.old_steps)
    deadline = time.monotonic() + seconds
    best = w

    def attempt(candidate: list) -> Witness | None:
        pair = Lockstep(old, new, ctx.structure.renames, ctx)
        try:
            got = replay(pair, candidate, w)
        except (_BothBroke, RuleError, KeyError, ValueError):
            return None
        if got is None or got.key != w.key or len(got.old_steps) >= len(best.old_steps):
            return None
        return got

    def drops() -> None:
        nonlocal best
        chunks = 2
        while best.old_steps and time.monotonic() < deadline:
            steps = best.old_steps
            size = -(-len(steps) // chunks)  # ceil
            for start in reversed(range(0, len(steps), size)):  # the end first: the steps before stay put
                if time.monotonic() >= deadline:
                    return
                got = attempt(steps[:start] + steps[start + size:])
                if got is not None:
                    best = got
                    chunks = max(chunks - 1, 2)
                    break
            else:
                if size <= 1:
                    return  # no single step can go: 1-minimal
                chunks = min(len(steps), chunks * 2)

    drops()
    rng = random.Random(seed)
    positions: list = []  # the old spec's state before each step of `best`, rebuilt when it changes
    for_best = None
    misses = 0  # replacements in a row that gained nothing: stop when each step has had its tries
    while best.old_steps and time.monotonic() < deadline and misses < REPLACE_TRIES * len(best.old_steps):
        if for_best is not best:
            positions, state = [], old.new_initial_state()
            for step in best.old_steps:
                positions.append(state.clone())
                state.apply_actions(step) if isinstance(step, list) else state.apply_action(step)
            for_best = best
        steps = best.old_steps
        i = rng.randrange(len(steps))
        state = positions[i]
        who = Lockstep.who(state)
        if who == CHANCE:
            choices = [a for a, _ in state.chance_outcomes()]
        elif who == SIMULTANEOUS:
            choices = [[rng.choice(state.legal_actions(p)) for p in range(state.num_players())]]
        else:
            choices = state.legal_actions(who)
        alt = rng.choice(choices)
        got = attempt(steps[:i] + [alt] + steps[i + 1:]) if alt != steps[i] else None
        misses = 0 if got is not None else misses + 1
        if got is not None:
            best = got
            drops()
    if best is not w:
        best.found_steps = found
    return best
