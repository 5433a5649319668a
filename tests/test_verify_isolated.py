"""`verify(..., isolated=True)`: a spec verified in a forked child process (what `rulebook
verify` does for each spec it is given), so that the memory its proofs take does not reach the
specs verified after it in the same command; its progress, result and errors come back whole."""
from __future__ import annotations

import os

import pytest

from verifier.smt.encode import z3
from verifier.verify import run as verify_run
from verifier.verify.run import Budget, verify

from test_verify import COUNTING, program_of


def program():
    return program_of(COUNTING)  # two invariants over a counter, proved in a second


BUDGET = Budget(games=20, timeout=10, falsify=0)


def z3_memory() -> int:
    return z3.Z3_get_estimated_alloc_size()


def test_an_isolated_verification_runs_in_another_process_and_gives_the_same_results(monkeypatch, tmp_path):
    pids = tmp_path / "pids"
    plain = verify_run.verify_players

    def noting(*args, **kwargs):
        with pids.open("a") as f:
            f.write(f"{os.getpid()}\n")
        return plain(*args, **kwargs)
    monkeypatch.setattr(verify_run, "verify_players", noting)
    said = []
    before = z3_memory()
    isolated = verify(program(), {}, budget=BUDGET, progress=said.append, isolated=True)
    after = z3_memory()
    assert os.getpid() not in {int(x) for x in pids.read_text().split()}
    # the solver's memory it took went with its process (a growth here would be a leak)
    assert after - before < 50_000
    assert "2 players: building the transition system" in said, said  # the child's progress, relayed
    here = verify(program(), {}, budget=BUDGET)
    assert [(r.name, r.status) for r in isolated.results] == [(r.name, r.status) for r in here.results]
    assert ("per_move", "proved") in [(r.name, r.status) for r in isolated.results]


def test_an_error_in_the_child_is_raised_in_the_caller(monkeypatch):
    def broken(*args, **kwargs):
        raise ValueError("planted: the verification failed")
    monkeypatch.setattr(verify_run, "verify_players", broken)
    with pytest.raises(ValueError, match="planted: the verification failed"):
        verify(program(), {}, budget=BUDGET, isolated=True)


def test_a_child_that_dies_is_an_error_not_a_hang(monkeypatch):
    def dies(*args, **kwargs):
        os._exit(3)
    monkeypatch.setattr(verify_run, "verify_players", dies)
    with pytest.raises(RuntimeError, match="ended with code 3 and no result"):
        verify(program(), {}, budget=BUDGET, isolated=True)
