"""The search lane (`verifier/verify/lanes.py`): a player count verified alone with a core to
spare runs its searches in a child process beside its proofs.

Shown: a violation the child's random play or directed search finds is reported as a replayable
game, as when the searches come first; the proofs beside it are reported; a child that fails
leaves the proofs standing and says why; the directed search stops aiming at what is settled
elsewhere, and stops when told to.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from verifier.engine.runtime import Engine, Game, GameState
from verifier.frontend import load_program
from verifier.verify import falsify as F
from verifier.verify import lanes
from verifier.verify.run import Budget, verify

from test_verify import COUNTING, program_of

BROKEN = COUNTING.replace("total <= 2 * moves", "total <= moves + 2")  # 2 + 2 after two moves of 2


class Heard:
    """A progress callback that keeps what it hears."""

    def __init__(self):
        self.texts, self.results = [], []

    def __call__(self, text):
        self.texts.append(text)

    def finished(self, result):
        self.results.append(result)


def _verify(text: str, jobs: int, **budget):
    program = program_of(text)
    heard = Heard()
    report = verify(program, {}, [2], budget=Budget(**{"games": 60, "timeout": 10, "proof": 60, "falsify": 5,
                                                      **budget}), progress=heard, jobs=jobs)
    return {r.name: r for r in report.results}, heard, program


def _replays_to_the_break(program, r) -> None:
    state = GameState.from_json(Engine(program), json.dumps(r.trace))
    assert r.name in [name for name, _, _ in state.check_invariants()]


def test_a_count_alone_races_its_searches_beside_its_proofs(monkeypatch):
    # the game is tiny: the exhaustive search would check all of it and settle everything; cut it
    # short so that the searches go on, beside the proofs
    monkeypatch.setattr(F, "EXHAUSTIVE_STATES", 3)
    res, heard, program = _verify(BROKEN, jobs=2)
    assert any("beside the proofs" in t for t in heard.texts), heard.texts
    assert res["per_move"].status == "violated" and res["per_move"].method == "search"
    _replays_to_the_break(program, res["per_move"])
    assert res["few_moves"].status == "proved", res["few_moves"].reason
    assert sorted(r.name for r in heard.results) == sorted(res)
    # the same statuses with the searches first, in one process
    one, heard_one, _ = _verify(BROKEN, jobs=1)
    assert not any("beside the proofs" in t for t in heard_one.texts)
    assert {k: v.status for k, v in one.items()} == {k: v.status for k, v in res.items()}


def test_the_directed_search_beside_the_proofs_finds_what_random_play_does_not_look_for(monkeypatch):
    monkeypatch.setattr(F, "EXHAUSTIVE_STATES", 3)
    # (bounded model checking would find it too: k 1 and depth 0 leave it to the search)
    res, heard, program = _verify(BROKEN, jobs=2, games=0, k=1, depth=0)
    assert res["per_move"].status == "violated" and res["per_move"].method == "directed"
    _replays_to_the_break(program, res["per_move"])
    assert not any("random games" in t for t in heard.texts)


def test_a_search_lane_that_fails_leaves_the_proofs_and_says_why(monkeypatch):
    monkeypatch.setattr(F, "EXHAUSTIVE_STATES", 3)

    def broken(*args, **kw):
        raise RuntimeError("planted failure of the search")

    monkeypatch.setattr(lanes, "falsify", broken)  # inherited by the forked child
    res, heard, _ = _verify(COUNTING, jobs=2, games=0)
    assert any("stopped: RuntimeError: planted failure of the search" in t for t in heard.texts), heard.texts
    assert res["per_move"].status == "proved" and res["few_moves"].status == "proved"


def test_the_directed_search_drops_what_is_settled_elsewhere_and_stops_when_told():
    program = program_of(BROKEN)
    game = Game(Engine(program), 2, {})
    kw = dict(seconds=30, seed=1, strategies=("beam", "swarm"))
    assert [f.name for f in F.falsify(game, program, ["per_move"], **kw)] == ["per_move"]  # found alone
    asked = []

    def settled_elsewhere(found):
        asked.append(found)
        return {"per_move"}

    assert F.falsify(game, program, ["per_move"], poll=settled_elsewhere, **kw) == [] and asked
    assert F.falsify(game, program, ["per_move"], poll=lambda found: None, **kw) == []  # told to stop at once


def test_the_second_directed_search_runs_in_the_lane_beside_the_checks(monkeypatch):
    from verifier.verify import run as R
    monkeypatch.setattr(F, "EXHAUSTIVE_STATES", 3)
    monkeypatch.setattr(R, "QUICK_SEARCH_SHARE", 0.0)  # the lane's first directed search: no time
    # (random play off, bounded model checking too short: only the second search can find it)
    res, heard, program = _verify(BROKEN, jobs=2, games=0, k=1, depth=0)
    searches = [t for t in heard.texts if "beam and swarm search" in t]
    assert len(searches) == 2 and all("beside the proofs" in t for t in searches), searches
    # (asked once the invariants are settled)
    assert heard.texts.index(searches[1]) > min(i for i, t in enumerate(heard.texts) if "induction over" in t)
    assert res["per_move"].status == "violated" and res["per_move"].method == "directed"
    _replays_to_the_break(program, res["per_move"])
    # as before: in the parent, between the invariants' proofs and the checks'
    monkeypatch.setattr(R, "SECOND_SEARCH_IN_LANE", False)
    res, heard, _ = _verify(BROKEN, jobs=2, games=0, k=1, depth=0)
    searches = [t for t in heard.texts if "beam and swarm search" in t]
    assert len(searches) == 2 and "beside the proofs" not in searches[1], searches
    assert res["per_move"].status == "violated" and res["per_move"].method == "directed"


def test_a_count_that_fails_stops_its_search_lane(monkeypatch):
    """The child waits for the second search's ask until told to stop: a count that raises
    before its last look at the lane still stops it, not at its deadline."""
    from verifier.verify import run as R
    monkeypatch.setattr(F, "EXHAUSTIVE_STATES", 3)
    started = []
    real = lanes.SearchLane.__init__

    def keep(self, *args, **kw):
        real(self, *args, **kw)
        started.append(self)
    monkeypatch.setattr(lanes.SearchLane, "__init__", keep)

    def broken(*args, **kw):
        raise RuntimeError("planted failure of the proofs")
    monkeypatch.setattr(R, "prove_invariants", broken)
    program = program_of(COUNTING)
    with pytest.raises(RuntimeError, match="planted failure"):
        R.verify_players(program, Engine(program), 2, {}, Budget(games=0, timeout=10, proof=600, falsify=5),
                         lanes=2)
    assert len(started) == 1 and not started[0]._proc.is_alive()


def test_what_the_proofs_settle_after_the_search_was_asked_is_told_before_waiting_for_it(monkeypatch):
    """Kuhn poker at 7 players: a counterexample to induction asks the lane's second search for
    `well_formed` and `no_deadlock` early; bounded paths to every game's end then prove both.
    Told so before the parent waits for the search, the child stops aiming at them; before, it
    searched on for its whole share (33 s of the count's 43 s at `--budget 60`)."""
    from verifier.verify import run as R
    program, _ = load_program(str(Path(__file__).parent.parent / "spec" / "examples" / "kuhn_poker.rules"))
    asked, told_at_wait = [], []
    search, wait = lanes.SearchLane.search, lanes.SearchLane.wait

    def recording_search(self, targets, seconds, seed):
        asked.append(set(targets))
        return search(self, targets, seconds, seed)

    def recording_wait(self, timeout):
        told_at_wait.append(set(self._sent))
        return wait(self, timeout)
    monkeypatch.setattr(lanes.SearchLane, "search", recording_search)
    monkeypatch.setattr(lanes.SearchLane, "wait", recording_wait)
    results, _bounds, _lengths = R.verify_players(program, Engine(program), 7, {}, Budget(proof=60), lanes=2)
    statuses = {r.name: r.status for r in results}
    assert asked and told_at_wait, "the search beside the proofs was not asked (the scenario changed)"
    proved = {name for name in asked[0] if statuses.get(name) == "proved"}
    assert proved and proved <= told_at_wait[-1]
