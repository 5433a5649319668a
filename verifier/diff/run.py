"""`diff`: what an edit of a spec changed, in three layers (structure, behaviour, verification).

- **Structure** (`structural.py`): items added, removed, changed, renamed, reordered.
- **Behaviour**: when the two specs' behavioural cores are equal (modulo renames and order) and
  the options agree, the engines play identically: `no behavioural difference (proved)`.
  Otherwise lockstep games (`behaviour.py`) look for a witness; each witness found is shortened
  (`behaviour.shorten`, a tenth of the budget) and replayed through fresh engines of both specs
  — its steps by action id and by their text, as `rulebook query --history` reads them — and
  the difference must show again.
- **Verification**: `verify` on both specs with a small budget per player count, and the
  properties whose status differs, through verify's cache (`verify/cache.py`: a side whose
  slice is unchanged since an earlier run costs nothing; the report says how many results were
  reused); when behaviour is proved the same, the statuses cannot differ and nothing is run.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..commands.common import UserError
from ..diagnostics import Sources
from ..engine.lib import RuleError
from ..engine.runtime import Engine, Game
from . import behaviour as B
from . import structural as S
from .equivalence import Proof, prove_same

PROOF_SHARE = 0.25  # of --budget, for Z3's proof that the two specs are one game
SHORTEN_SHARE = 0.1  # of --budget, for shortening the witnesses found (at least SHORTEN_MIN seconds)
SHORTEN_MIN = 2.0


@dataclass
class Settings:
    players: list | None = None
    old_options: dict = field(default_factory=dict)
    new_options: dict = field(default_factory=dict)
    games: int = 300
    depth: int = 1000
    seconds: float = 60.0
    seed: int = 0
    check: int = 16
    witnesses: int = 3
    verify_budget: float = 10.0  # seconds per spec and player count; 0: no verification layer


@dataclass
class Diff:
    old: str
    new: str
    players: list
    old_options: dict
    new_options: dict
    structure: S.Structure
    verdict: str = ""  # same (proved), differs, none_found
    sentence: str = ""
    method: str = ""
    search: B.Search | None = None
    verification: dict = field(default_factory=dict)
    games: tuple = ()  # (old Game, new Game) of the first player count, for replay files
    proof: Proof | None = None  # Z3's one-step product query, when it was asked

    @property
    def differs(self) -> bool:
        return self.verdict == "differs"

    def as_json(self) -> dict:
        st = self.structure
        out = {"kind": "diff", "old": self.old, "new": self.new, "players": self.players,
               "old_options": self.old_options, "new_options": self.new_options,
               "structural": {"identical": st.identical, "renames": {v: k for k, v in st.renames.items()},
                              "reordered": st.reordered, "changes": [c.as_json() for c in st.changes]},
               "behaviour": {"verdict": self.verdict, "sentence": self.sentence, "method": self.method}}
        if self.proof is not None:
            p = self.proof
            out["behaviour"]["proof"] = {"verdict": p.verdict, "reason": p.reason, "queries": p.queries,
                                         "seconds": round(p.seconds, 3)}
        if self.search is not None:
            s = self.search
            out["behaviour"].update({"games": s.games, "depth": s.deepest, "seconds": round(s.seconds, 3),
                                     "witnesses": [w.as_json(*self.games) for w in s.witnesses]})
        out["verification"] = self.verification
        return out


def load(path: str, sources: Sources):
    from ..frontend import load_program
    program, _ = load_program(path, sources)
    return program


def check_settings(old, new, settings: Settings) -> list:
    """The player counts to compare; bad options or counts name the spec (exit 1)."""
    for program, opts in ((old, settings.old_options), (new, settings.new_options)):
        unknown = [k for k in opts if k not in program.options]
        if unknown:
            raise UserError(f"{program.spec.path}: no option {unknown[0]!r} "
                            f"(options: {', '.join(program.options) or 'none'})")
    lo, hi = max(old.min_players, new.min_players), min(old.max_players, new.max_players)
    if lo > hi:
        raise UserError(f"no player count is allowed by both specs ({old.spec.path}: {old.min_players}.."
                        f"{old.max_players}, {new.spec.path}: {new.min_players}..{new.max_players})")
    counts = settings.players or list(range(lo, hi + 1))
    for c in counts:
        if not lo <= c <= hi:
            raise UserError(f"{c} players: both specs allow {lo}..{hi}")
    return counts


def diff_programs(old, new, settings: Settings, texts: dict, progress=None) -> Diff:
    counts = check_settings(old, new, settings)
    structure = S.compare(old.spec, new.spec, texts)
    old_engine, new_engine = Engine(old), Engine(new)
    old_games = {n: Game(old_engine, n, settings.old_options, bounded=True) for n in counts}
    new_games = {n: Game(new_engine, n, settings.new_options, bounded=True) for n in counts}
    first = counts[0]
    d = Diff(old.spec.path, new.spec.path, counts, old_games[first].option_strings(),
             new_games[first].option_strings(), structure, games=(old_games[first], new_games[first]))
    same_options = all(old_games[n].option_strings() == _option_names(new_games[n], structure.renames)
                       for n in counts)
    if structure.same_behaviour and same_options:
        d.verdict, d.method = "same", "structural"
        d.sentence = ("no behavioural difference (proved): the two specs are the same game once wording, "
                      "citations, comments, order" + (", names" if structure.renames else "") + " and what play "
                      "never reads are set aside")
        d.verification = {"skipped": "the behaviour is the same, so no status can differ"}
        return d
    # the one-step product query: every move's legality and effect, and every end, equal in every
    # state (a proof beyond the text: an equivalent rewrite of a requirement), with a share of the time
    if progress:
        progress("asking Z3 whether every move reads the same in every state")
    t0 = time.monotonic()
    proof = prove_same(old, new, counts, [old_games[n].option_values for n in counts],
                       [new_games[n].option_values for n in counts], timeout=5.0,
                       deadline=time.perf_counter() + PROOF_SHARE * settings.seconds) if same_options else None
    proof_seconds = time.monotonic() - t0
    d.proof = proof
    if proof is not None and proof.verdict == "same":
        d.verdict, d.method = "same", "z3"
        d.sentence = ("no behavioural difference (proved by Z3): in every state every move is legal under both "
                      "specs or under neither, leads to the same state and checks the same, and every end scores "
                      f"the same ({proof.reason}, {proof.seconds:.1f} s)")
        d.verification = {"skipped": "the behaviour is the same, so no status can differ"}
        return d
    if progress:
        progress("playing both specs in lockstep")
    ctx = B.Context(old.spec, new.spec, structure, B.touched_moves(structure, old.spec, new.spec), settings.check)
    # with a changed requirement to aim at, random play gets half the time and the directed phase the rest
    seconds = max(1.0, settings.seconds - proof_seconds)
    play_seconds = seconds / 2 if B.guard_targets(structure) else seconds
    d.search = B.search(old_games[first], new_games[first], ctx, settings.games, settings.depth, play_seconds,
                        settings.seed, counts, old_games, new_games, settings.witnesses)
    if not d.search.witnesses:
        left = seconds - d.search.seconds
        if left < 10:  # the directed phase gets at least a share of its own (not more than the budget)
            left = max(min(10.0, settings.seconds), settings.seconds / 3)
        t0 = time.monotonic()
        B.directed(old_games, new_games, ctx, old, counts, left, settings.seed, settings.depth, d.search)
        d.search.seconds += time.monotonic() - t0
    if d.search.witnesses and progress:
        progress("shortening the witnesses")
    deadline = time.monotonic() + max(SHORTEN_MIN, SHORTEN_SHARE * settings.seconds)
    for i, w in enumerate(d.search.witnesses):
        share = (deadline - time.monotonic()) / (len(d.search.witnesses) - i)  # what one left unused, the next gets
        short = B.shorten(w, old_games[w.players], new_games[w.players], ctx, share)
        if short is not w and confirm(short, old_games[w.players], new_games[w.players], ctx):
            short.replayed = True
            d.search.witnesses[i] = short
        else:  # not shorter, or (never seen) a shorter one that does not replay: the witness as found
            w.replayed = confirm(w, old_games[w.players], new_games[w.players], ctx)
    d.method = "play"
    if d.search.witnesses:
        d.verdict = "differs"
        d.sentence = f"{len(d.search.witnesses)} behavioural difference{'s' if len(d.search.witnesses) > 1 else ''} " \
                     f"found in {d.search.games} game{'s' if d.search.games != 1 else ''}"
    else:
        d.verdict = "none_found"
        d.sentence = f"none found in {d.search.games} games / depth {d.search.deepest}" + \
            (" (the time budget ran out)" if d.search.stopped else "") + \
            ": not a proof"
    if settings.verify_budget > 0:
        if progress:
            progress("verifying both specs")
        d.verification = verification(old, new, counts, settings)
    else:
        d.verification = {"skipped": "--verify-budget 0"}
    return d


def _option_names(game: Game, renames: dict) -> dict:
    return {renames.get(k, k): v for k, v in game.option_strings().items()}


def confirm(w: B.Witness, old: Game, new: Game, ctx: B.Context) -> bool:
    """Replay the witness's steps (by action id, then by their text) through both engines and see
    the difference again."""
    from ..query.position import PositionError, from_history
    try:
        pair = B.Lockstep(old, new, ctx.structure.renames, ctx)
        for state, steps in ((pair.old, w.old_steps), (pair.new, w.new_steps)):
            for step in steps:
                state.apply_actions(step) if isinstance(step, list) else state.apply_action(step)
        if w.move_old is not None:
            again = pair.apply(w.move_old, w.move_new, check_after=True)
        else:
            again = pair.compare_here()
        if again is None or again.kind != w.kind:
            return False
        for game, texts in ((old, w.old_texts), (new, w.new_texts)):
            if not texts:  # the start itself: seen again above, through fresh engines
                continue
            pos = from_history(game.engine, "; ".join(texts), w.players, game.option_strings())
            if pos.state.history != (w.old_steps if game is old else w.new_steps):
                return False
        return True
    except (ValueError, RuleError, PositionError, B._BothBroke):
        return False


def verification(old, new, counts: list, settings: Settings) -> dict:
    """Each property's status under both specs (verify with a small budget per player count)."""
    from ..verify.run import Budget, verify
    t0 = time.perf_counter()
    b = settings.verify_budget
    budget = Budget(games=100, timeout=min(5.0, b), proof=b, falsify=b / 3)
    from ..verify.cache import Cache
    statuses, reused = [], 0
    cache = Cache()  # the old spec's results are usually there from an earlier run
    for program, opts in ((old, settings.old_options), (new, settings.new_options)):
        report = verify(program, opts, counts, budget, jobs=1, cache=cache)
        statuses.append({(r.name, r.players): r.status for r in report.results})
        reused += sum(1 for r in report.results if r.reused)
    rows = []
    for key in sorted(set(statuses[0]) | set(statuses[1]), key=lambda k: (k[1], k[0])):
        a, b_ = statuses[0].get(key, "absent"), statuses[1].get(key, "absent")
        rows.append({"property": key[0], "players": key[1], "old": a, "new": b_, "changed": a != b_})
    return {"budget": b, "seconds": round(time.perf_counter() - t0, 3),
            "note": f"verified with a small budget per player count ({reused} results reused from verify's cache, "
                    "where a spec's slice was unchanged), so an `unknown` may only mean that the budget ran out",
            "reused": reused,
            "properties": rows, "changed": [r for r in rows if r["changed"]]}
