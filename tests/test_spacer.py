"""The Spacer engine (`verifier/smt/engines/spacer.py`): IC3/PDR on a claim's cone.

Each behaviour is shown on a small inline spec with a planted fault: a true claim that is not
inductive alone is proved (Spacer finds the strengthening); the same claim made false is never
proved; an answer that fails the independent check is not a proof; and a run-time check that
needs a fact about a loop's counter (a pool drawn from once per round) is proved, so that
`well_formed` holds.
"""
from __future__ import annotations

import z3

from verifier.frontend import check_text
from verifier.smt.encode import Encoder
from verifier.smt.engines.induction import Claim, Induction, instances_of
from verifier.smt.engines.intervals import analyse
from verifier.smt.engines.spacer import Spacer
from verifier.smt.prove import Prover
from verifier.smt.system import System
from verifier.verify.invariants import strengthen_checks

# `twin` never leaves `count`'s side, but nothing bounds `count` except the loop: "twin <= 6"
# alone is not inductive (from twin = 6, count = 2 a move gives 7); with "twin == count" it is
TWINS = '''
game twins "Twins"
players 1
var count: 0..20 = 0
var twin: 0..20 = 0
flow {
  while count < 6 decreases 6 - count {
    choose 0 {
      move step() "steps" { count += 1  twin += 1 }
      move wait() "waits" { }
    }
  }
}
outcome { score p: twin }
invariant bounded "twin stays at most 6": twin <= 6
'''


def setting(text: str, intervals: bool = False):
    program, diags = check_text(text, "spacer.rules")
    assert program is not None, [d.message for d in diags]
    prover = Prover(program, 1, {}, 10)
    system = System(prover.rel)
    facts = analyse(system, None) if intervals else None
    return program, prover, system, facts


def claim(program, prover, name: str) -> Claim:
    inv = next(i for i in program.invariants if i.name == name)
    return Claim(name, inv, instances_of(Encoder(program, prover.n, {}, prover.rel.state).invariant(inv)))


def test_spacer_proves_what_one_step_induction_cannot():
    program, prover, system, facts = setting(TWINS)
    c = claim(program, prover, "bounded")
    assert not Induction(system, facts, timeout=10).run([c])["bounded"].proved  # not inductive alone
    spacer = Spacer(system, facts, timeout=30)
    out = spacer.run([c])["bounded"]
    assert out.proved, out
    # its invariant is a lemma over the state: with it, one-step induction proves the claim too
    assert spacer.lemmas and Induction(system, facts, timeout=10).run([c], spacer.lemmas)["bounded"].proved


def test_spacer_never_proves_a_false_claim():
    program, prover, system, facts = setting(TWINS.replace("twin <= 6", "twin <= 5"))
    out = Spacer(system, facts, timeout=30).run([claim(program, prover, "bounded")])["bounded"]
    assert not out.proved and out.kind == "sat"


def test_an_answer_that_fails_the_independent_check_is_not_a_proof(monkeypatch):
    program, prover, system, facts = setting(TWINS)
    # planted: Spacer's answer read back as "true everywhere" (not inductive, not implying the claim)
    monkeypatch.setattr(Spacer, "_answer", staticmethod(
        lambda fp, preds, terms: {d: z3.BoolVal(True, ctx=terms[0].ctx) for d in preds}))
    out = Spacer(system, facts, timeout=30).run([claim(program, prover, "bounded")])["bounded"]
    assert not out.proved and "independent check" in out.detail


# a pool of 5 tokens, one drawn per round for 4 rounds: "the pool has a token to draw" holds
# because the pool loses exactly one per round, a fact about the set's size and the counter
POOL = '''
game pool "Pool"
players 1
enum Token { a, b, c, d, e }
var pool: set of Token = collect(t in Token)
var kept: set of Token = {}
flow {
  for r in 1..4 {
    chance t from pool
    remove t from pool
    add t to kept
    choose 0 {
      move keep() "keeps {t}" { }
    }
  }
}
outcome { score p: size(kept) }
'''


def test_a_run_time_check_is_strengthened_by_spacer(monkeypatch):
    program, prover, system, facts = setting(POOL, intervals=True)
    prover.system, prover.facts = system, facts
    prover.proved = []
    before = prover.obligations()
    assert before.status == "unknown" and prover.failed_checks  # "t has something to draw from"
    # (what Spacer answered, shown if it proves nothing: this has failed in a full `make test`
    # run and passed alone, and the answer tells a crash of its forked child from a time-out)
    spacers: list = []
    init = Spacer.__init__

    def recorded(self, *args, **kwargs):
        init(self, *args, **kwargs)
        spacers.append(self)
    monkeypatch.setattr(Spacer, "__init__", recorded)
    assert strengthen_checks(prover, None), [s.log for s in spacers]
    after = prover.obligations()
    assert after.status == "proved", after.reason
    # planted: a fifth round draws from an empty pool; no strengthening can prove that
    program, prover, system, facts = setting(POOL.replace("1..4", "1..6"), intervals=True)
    prover.system, prover.facts = system, facts
    prover.proved = []
    assert prover.obligations().status == "unknown"
    strengthen_checks(prover, None)
    assert prover.obligations().status == "unknown"


def test_a_crash_in_the_isolated_query_is_an_answer_not_the_end_of_verify():
    # planted: the work segfaults, as Z3's Spacer once did on a small game
    import os
    import signal
    from verifier.smt.engines.spacer import isolated
    assert isolated(lambda: {"answer": "unsat"}, 10) == {"answer": "unsat"}
    got = isolated(lambda: os.kill(os.getpid(), signal.SIGSEGV), 10)
    assert got["answer"] == "crash" and "signal" in got["why"]


def _twins_proof(monkeypatch, samples: bool, spacer: bool = True, text: str = TWINS):
    """`prove_invariants` on TWINS: the sliced induction cannot prove `bounded` (not inductive
    alone), so the older engine is asked, then Spacer; the engines each record that they ran."""
    from verifier.engine.runtime import Engine, Game
    from verifier.verify import invariants
    from verifier.verify.run import _sample
    program, diags = check_text(text, "spacer.rules")
    states = _sample(Game(Engine(program), 1, {}), 20, 0, 200)[0] if samples else []
    prover = Prover(program, 1, {}, 10, samples=states)
    order = []
    spacer_run, older_run = Spacer.run, Prover.invariants
    monkeypatch.setattr(Spacer, "run", lambda self, *a: order.append("spacer") or spacer_run(self, *a))
    monkeypatch.setattr(Prover, "invariants", lambda self, *a, **k: order.append("older") or older_run(self, *a, **k))
    verdicts = invariants.prove_invariants(prover, list(program.invariants), None, spacer=spacer)
    return verdicts["bounded"], order


def test_the_older_engine_is_asked_before_spacer_and_its_frame_facts_settle_it(monkeypatch):
    # with sampled states the older engine guesses "twin == count" and proves the claim: Spacer,
    # asked after it, is not needed (before, Spacer was asked first and spent its share)
    v, order = _twins_proof(monkeypatch, samples=True)
    assert v.status == "proved" and "frame facts" in v.reason, v.reason
    assert order == ["older"]


def test_spacer_proves_what_the_older_engine_left_open(monkeypatch):
    # no samples: no frame fact relates the two counters, the older engine leaves the claim open,
    # and Spacer, asked next, finds the strengthening
    v, order = _twins_proof(monkeypatch, samples=False)
    assert order == ["older", "spacer"]
    assert v.status == "proved" and "strengthening" in v.reason, v.reason
    v, order = _twins_proof(monkeypatch, samples=False, spacer=False)
    assert v.status == "unknown" and order == ["older"]


def _first_pass_gives_up(monkeypatch) -> list:
    """The sliced induction's first query of `bounded` made to give up, as it does on a seed
    game's claims whose queries grow into a move's whole cone; returns the claims each of its
    `_houdini` calls asked, in order."""
    from verifier.smt.engines import induction as I
    calls: list = []
    houdini = I.Induction._houdini

    def gives_up_first(self, claims, lemmas, *a, **k):
        calls.append([c.name for c in claims])
        if calls.count(["bounded"]) == 1 and calls[-1] == ["bounded"]:
            return {"bounded": I.Outcome(False, "time")}, []
        return houdini(self, claims, lemmas, *a, **k)
    monkeypatch.setattr(I.Induction, "_houdini", gives_up_first)
    return calls


# a second claim, which the sliced induction proves in its first pass (the intervals do not: they
# do not relate the two counters): the claim given up on then has a second look to come
TWINS_AND_COUNT = TWINS + 'invariant close "twin never runs 14 ahead of count": twin <= count + 14\n'


def test_a_claim_the_induction_gave_up_on_goes_to_the_older_engine_before_its_second_look(monkeypatch):
    calls = _first_pass_gives_up(monkeypatch)
    v, order = _twins_proof(monkeypatch, samples=True, text=TWINS_AND_COUNT)
    assert v.status == "proved" and "frame facts" in v.reason, v.reason
    # proved between the passes: no second look, and the older engine not asked again after
    assert calls.count(["bounded"]) == 1 and order == ["older"], (calls, order)
    # without the older engine between the passes: the second look (given up on again at once:
    # no longer than the first), and the older engine after the induction proves it
    from verifier.smt.engines import induction as I
    monkeypatch.setattr(I, "ELSEWHERE_FIRST", False)
    calls.clear()
    v, order = _twins_proof(monkeypatch, samples=True, text=TWINS_AND_COUNT)
    assert v.status == "proved" and calls.count(["bounded"]) == 2 and order == ["older"], (calls, order)


def test_what_the_older_engine_could_not_prove_between_the_passes_it_is_not_asked_again(monkeypatch):
    # no samples: the older engine cannot prove `bounded` between the passes; nothing new is proved
    # after it, so it is not asked the same again; the second look is, and Spacer proves it
    calls = _first_pass_gives_up(monkeypatch)
    v, order = _twins_proof(monkeypatch, samples=False, text=TWINS_AND_COUNT)
    assert calls.count(["bounded"]) == 2 and order == ["older", "spacer"], (calls, order)
    assert v.status == "proved" and "strengthening" in v.reason, v.reason
    # planted: a claim that does not hold is proved by none of them
    calls = _first_pass_gives_up(monkeypatch)
    v, order = _twins_proof(monkeypatch, samples=True, text=TWINS_AND_COUNT.replace("twin <= 6", "twin <= 5"))
    assert v.status != "proved" and order[0] == "older", (v, order)


def test_the_older_engines_frame_facts_are_proved_once_a_prover():
    from verifier.engine.runtime import Engine, Game
    from verifier.verify.run import _sample
    program, diags = check_text(TWINS, "spacer.rules")
    states = _sample(Game(Engine(program), 1, {}), 20, 0, 200)[0]
    prover = Prover(program, 1, {}, 10, samples=states)
    asked = []
    fixpoint = prover._fixpoint
    prover._fixpoint = lambda cands, *a, **k: asked.append([c.name for c in cands]) or fixpoint(cands, *a, **k)
    assert prover.invariants()["bounded"].status == "proved"
    frame = [names for names in asked if names and "bounded" not in names]
    assert len(frame) == 1, asked  # the frame facts' fixpoint, then the claim's
    asked.clear()
    assert prover.invariants()["bounded"].status == "proved"
    assert not any(names and "bounded" not in names for names in asked), asked  # the first call's frame facts


def test_spacer_stuck_on_a_lemma_is_asked_again_with_another_seed(monkeypatch):
    """Spacer's own failure ("Stuck on a lemma", once after 0.57 s on a seed game's query that it
    proved when asked again) is planted on the first query: the query is asked again and the
    claim proved; without the retry the answer is Spacer's error, not a proof."""
    from verifier.smt.engines import spacer as S
    real = z3.Fixedpoint.query
    calls = []

    def stuck_once(self, *query):
        calls.append(1)
        if len(calls) == 1:
            raise z3.Z3Exception(b"Stuck on a lemma")
        return real(self, *query)

    monkeypatch.setattr(z3.Fixedpoint, "query", stuck_once)
    program, prover, system, facts = setting(TWINS)
    out = Spacer(system, facts, timeout=30).run([claim(program, prover, "bounded")])["bounded"]
    assert out.proved, out
    monkeypatch.setattr(S, "STUCK_RETRIES", 0)
    out = Spacer(system, facts, timeout=30).run([claim(program, prover, "bounded")])["bounded"]
    assert not out.proved and "Stuck on a lemma" in out.detail, out
