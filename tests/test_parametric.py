"""A claim over every item of a collection, asked as one formula over a symbolic item
(`verifier/smt/parametric.py`, `Induction._over_an_item`).

Shown on `tests/fixtures/cards_apart.rules`, where players draw cards from a deck into their
hands, play them onto a table and clear it onto a pile: "a card in the deck is nowhere else",
"a card in a hand is nowhere else" and "a card on the table is not on the pile" are proved
with one query per move over a symbolic card, the last two together (each rests on the other);
with the play that forgets to take the card out of the hand (a planted rule edit), neither of
those two is proved, and the instances one by one do not prove them either.
"""
from __future__ import annotations

import itertools
import time
from pathlib import Path

from verifier.frontend import check_text
from verifier.smt.encode import CTX, Encoder, num, z3
from verifier.smt.engines.induction import Claim, Induction, Outcome, instances_of
from verifier.smt.engines.intervals import analyse
from verifier.smt.parametric import named_items, parametric
from verifier.smt.prove import Prover
from verifier.smt.system import System

CARDS = Path(__file__).parent / "fixtures" / "cards_apart.rules"
DEAL = CARDS.read_text(encoding="utf-8")
# the play puts the card on the table and forgets to take it out of the hand
KEPT = DEAL.replace("        hand[turn] -= {c}\n", "")
assert KEPT != DEAL


def compiled(text: str):
    program, diags = check_text(text, str(CARDS))
    assert program is not None, [d.message for d in diags]
    prover = Prover(program, 2, {}, 10)
    system = System(prover.rel)
    return program, prover, system


def claims(program, prover, over_an_item: bool = True) -> list[Claim]:
    out = []
    for inv in program.invariants:
        enc = Encoder(program, prover.n, {}, prover.rel.state)
        par = parametric(Encoder(program, prover.n, {}, prover.rel.state), inv) if over_an_item else None
        out.append(Claim(inv.name, inv, instances_of(enc.invariant(inv)), par))
    return out


def test_the_formula_over_a_symbolic_item_says_what_the_instances_say():
    program, prover, _ = compiled(DEAL)
    for c in claims(program, prover):
        values = [[num(v) for v in dom] for dom in c.param.domains]
        every = z3.And(*[c.param.at(f, items) for f in c.param.formulas for items in itertools.product(*values)])
        solver = z3.Solver(ctx=CTX)
        solver.add(every != z3.And(*c.instances))
        assert solver.check() == z3.unsat, c.name
    # the card is a constant; the hand's owner, over two players, is expanded: one formula each
    hand = next(c for c in claims(program, prover) if c.name == "hand_apart")
    assert [len(d) for d in hand.param.domains] == [45] and len(hand.param.formulas) == 2


def test_the_items_a_move_names_are_found_in_its_terms():
    program, prover, system = compiled(DEAL)
    draw = next(tr for d in system.decisions for tr in system.transitions(d) if tr.label.startswith("draw"))
    written = [j for i, j in zip(system.leaves, draw.post) if i != j]
    compared = system.dag.comparisons(list(draw.pre) + written)
    positions = frozenset(snap[1].get_id() for snap in prover.rel.snaps.values() if isinstance(snap, tuple))
    assert len(named_items(system.dag, compared, tuple(range(45)))) == 2  # and the loop's position (30 of the values)
    named = named_items(system.dag, compared, tuple(range(45)), positions)
    assert len(named) == 1 and str(named[0]).startswith("draw"), named  # the move's parameter c
    # compared with fewer than half the values (the domain widened to 100 values): no item
    assert named_items(system.dag, compared, tuple(range(100)), positions) == []


def test_claims_over_every_card_are_proved_with_one_query_per_move():
    program, prover, system = compiled(DEAL)
    ind = Induction(system, analyse(system, None), timeout=10)
    tries = []
    alone_or_together = ind._over_an_item
    ind._over_an_item = lambda cs, known: tries.append([c.name for c in cs]) or alone_or_together(cs, known)
    out = ind.run(claims(program, prover))
    assert out["deck_apart"].proved and out["hand_apart"].proved and out["table_apart"].proved
    assert ind.param_proved == ["deck_apart", "hand_apart", "table_apart"]
    # each rests on the other: neither alone, both together
    assert tries == [["deck_apart"], ["hand_apart"], ["table_apart"], ["hand_apart", "table_apart"]]
    # the lemmas the proof leaves are the instances, over the state alone
    assert all(not any(str(x).startswith("item") for x in z3.z3util.get_vars(f)) for f in ind.lemmas)


def test_a_card_left_in_the_hand_is_not_proved_either_way():
    program, prover, system = compiled(KEPT)
    for over_an_item in (True, False):
        ind = Induction(system, analyse(system, None), timeout=10)
        out = ind.run(claims(program, prover, over_an_item))
        assert out["deck_apart"].proved
        assert not out["hand_apart"].proved and not out["table_apart"].proved
        assert "hand_apart" not in ind.param_proved and "table_apart" not in ind.param_proved


def test_where_the_symbolic_item_is_not_settled_the_move_is_asked_item_by_item(monkeypatch):
    # every query over the symbolic card cut short at once: each move's step is then shown by
    # the claim's instances at that move (`_by_instances`), within the same induction
    from verifier.smt.engines import induction
    monkeypatch.setattr(induction, "ITEM_MS", 0)
    program, prover, system = compiled(DEAL)
    ind = Induction(system, analyse(system, None), timeout=10)
    out = ind.run(claims(program, prover))
    assert out["deck_apart"].proved and out["hand_apart"].proved and out["table_apart"].proved
    assert ind.item_fallbacks > 0
    assert "deck_apart" in ind.param_proved


def test_the_instances_asked_for_the_symbolic_item_do_not_prove_a_card_left_in_the_hand(monkeypatch):
    from verifier.smt.engines import induction
    monkeypatch.setattr(induction, "ITEM_MS", 0)
    program, prover, system = compiled(KEPT)
    ind = Induction(system, analyse(system, None), timeout=10)
    out = ind.run(claims(program, prover))
    assert ind.item_fallbacks > 0
    assert not out["hand_apart"].proved and not out["table_apart"].proved
    assert "hand_apart" not in ind.param_proved and "table_apart" not in ind.param_proved


def test_an_abstracted_look_not_settled_for_one_formula_is_not_taken_for_its_siblings_at_that_move():
    # a claim over a symbolic item has a formula per value of its expanded `all`s (`hand_apart`:
    # one per player); where the abstracted look at a move does not settle one of them, the
    # others at that move go straight to their own query — and every claim is still proved
    from verifier.smt.engines import induction
    program, prover, system = compiled(DEAL)
    ind = Induction(system, analyse(system, None), timeout=10)
    at: dict = {}
    looks: list = []  # (move, case, the claim's formulas, settled)
    check_case, ask = ind._check_case, ind._ask

    def checking(d, tr, v, key, f, *rest):
        at["now"] = (id(tr), v, id(ind._params[key]) if key in ind._params else None)
        return check_case(d, tr, v, key, f, *rest)

    def asking(*args, **kw):
        r = ask(*args, **kw)
        if len(args) > 8 and args[8] == induction.ABSTRACT_MS:
            looks.append((at["now"], r[0] == z3.unsat))
        return r
    ind._check_case, ind._ask = checking, asking
    out = ind.run(claims(program, prover))
    assert all(o.proved for o in out.values()), {k: o.kind for k, o in out.items()}
    failed = [where for where, settled in looks if not settled and where[2] is not None]
    assert failed, "the fixture must show a look not settled, for this test to say anything"
    for where in failed:
        after = [k for k, (w, _) in enumerate(looks) if w == where]
        assert len(after) == 1, where  # the first look not settled there is the last one
    assert set(failed) <= ind._abstract_failed


def test_a_claim_over_a_symbolic_item_that_ran_out_of_its_share_in_the_last_rounds_goes_on():
    # the last rounds (`_last`): `deck_apart`'s first try there is cut short at once; it is asked
    # again in the next round (a round that proved nothing else), and proved; the two that rest on
    # each other are still proved together after the rounds
    program, prover, system = compiled(DEAL)
    ind = Induction(system, analyse(system, None), timeout=10)
    cs = claims(program, prover)
    results = {c.name: Outcome(False, "sat") for c in cs}
    tries: list = []
    real = ind._over_an_item

    def deck_cut_short_once(these, known, part):
        tries.append([c.name for c in these])
        if tries.count(["deck_apart"]) == 1 and these[0].name == "deck_apart":
            ind.deadline = time.perf_counter()  # out of its share before its first query
        return real(these, known, part)
    ind._over_an_item = deck_cut_short_once
    proved: dict = {}
    ind._last(cs, [], results, proved, time.perf_counter() + 120)
    assert tries.count(["deck_apart"]) == 2, tries
    assert all(results[c.name].proved for c in cs), {k: v.kind for k, v in results.items()}


def test_a_claim_over_a_symbolic_item_that_keeps_running_out_is_left_out_of_the_last_together_step(monkeypatch):
    # `deck_apart` runs out of every share it gets (each try takes the whole share, as a
    # real one does); it is asked again while more than AGAIN_S is left, and then not asked
    # with the broken claims together (its instances one by one would only be slower)
    from verifier.smt.engines import induction
    monkeypatch.setattr(induction, "AGAIN_S", 0.5)
    program, prover, system = compiled(DEAL)
    ind = Induction(system, analyse(system, None), timeout=10)
    cs = claims(program, prover)
    results = {c.name: Outcome(False, "sat") for c in cs}
    deck_tries = []
    together: list = []
    real, houdini = ind._over_an_item, ind._houdini

    def deck_runs_out(these, known, part):
        if these[0].name == "deck_apart":
            deck_tries.append(1)
            time.sleep(max(0.0, ind.deadline - time.perf_counter()))
            return {}, {"deck_apart": Outcome(False, "time")}
        return real(these, known, part)

    def recorded(these, lemmas, **kw):
        together.append([c.name for c in these])
        return houdini(these, lemmas, **kw)
    ind._over_an_item, ind._houdini = deck_runs_out, recorded
    ind._last(cs, [], results, {}, time.perf_counter() + 3)
    assert len(deck_tries) >= 2
    assert not results["deck_apart"].proved
    assert all("deck_apart" not in names for names in together), together


def test_claims_over_a_symbolic_item_that_each_ran_out_of_time_alone_are_not_asked_together_next():
    # each claim's first try over the symbolic card runs out of its time (planted) and nothing is
    # proved in between: the try of them together that follows in the first pass is skipped (at
    # every move it is each one's work and more); with counterexamples instead, it is taken
    program, prover, system = compiled(DEAL)
    for kind, together_expected in (("time", False), ("sat", True)):
        ind = Induction(system, analyse(system, None), timeout=10)
        calls: list = []
        real = ind._over_an_item

        def planted(these, known, *part, real=real, calls=calls, kind=kind):
            calls.append([c.name for c in these])
            if len(these) == 1 and len(calls) <= 3:  # the three first tries, one claim each
                return {}, {these[0].name: Outcome(False, kind)}
            return real(these, known, *part)
        ind._over_an_item = planted
        ind.run(claims(program, prover))
        assert calls[:3] == [["deck_apart"], ["hand_apart"], ["table_apart"]], calls
        assert (calls[3:4] == [["deck_apart", "hand_apart", "table_apart"]]) == together_expected, (kind, calls)


def test_the_broken_claims_together_get_a_share_of_the_time_not_all_of_it():
    # first pass (planted): one claim broken, one given up on; asked together, the broken one must
    # leave time for the one given up on, which is asked after it (a slow claim broken together
    # with another once spent the 42 s the claims after it needed)
    program, prover, system = compiled(DEAL)
    final = time.perf_counter() + 60
    ind = Induction(system, analyse(system, None), timeout=10, deadline=final)
    cs = claims(program, prover, over_an_item=False)
    broken, given_up = cs[0].name, cs[1].name
    deadlines: dict = {}
    real = ind._houdini

    def planted(these, lemmas, **kw):
        names = [c.name for c in these]
        if kw.get("give_up_at_sat") and names in ([broken], [given_up]):  # their first pass
            return {names[0]: Outcome(False, "sat" if names == [broken] else "unknown")}, []
        if broken in names and len(names) > 1 and not kw:  # the broken claims together
            deadlines["together"] = (ind.deadline, len(names))
        return real(these, lemmas, **kw)
    ind._houdini = planted
    # no claim proved alone again: the broken ones go on together (reserve 1), nothing else after
    ind._again = lambda these, lemmas, results, proved, assumed, final, reserve, *limits: \
        list(these) if reserve == 1 else []
    ind.run(cs)
    assert "together" in deadlines
    # (the third claim, broken in its first pass without the second, is asked with the first)
    deadline, together = deadlines["together"]
    # a share of what was left (the claims together, and the one given up on after them), not
    # the whole of it
    assert deadline < final - 60 / (together + 1) / 2, deadline - final


def test_a_claim_that_ran_out_of_time_gets_no_longer_a_second_look_than_its_first():
    # `hand_apart`'s first pass runs out of its time (planted, after 0.3 s); `deck_apart`, proved
    # after it, reads what it reads, so it gets a second look: at most what the first took, not
    # the fair share of the minute left (on a seed game, 30 s then 59 s at the same move, for
    # nothing, before the engine that proved it)
    program, prover, system = compiled(DEAL)
    final = time.perf_counter() + 60
    ind = Induction(system, analyse(system, None), timeout=10, deadline=final)
    by_name = {c.name: c for c in claims(program, prover, over_an_item=False)}
    cs = [by_name["hand_apart"], by_name["deck_apart"]]
    second: list = []
    real = ind._houdini

    def planted(these, lemmas, **kw):
        names = [c.name for c in these]
        if names == ["hand_apart"] and kw.get("give_up_at_sat") and not kw.get("give_up_at_unknown"):
            if not second:  # its first pass
                second.append(None)
                time.sleep(0.3)
                return {"hand_apart": Outcome(False, "time")}, []
        if names == ["hand_apart"] and kw.get("give_up_at_unknown"):  # the second look
            second.append(ind.deadline - time.perf_counter())
        return real(these, lemmas, **kw)
    ind._houdini = planted
    ind.run(cs)
    looks = [s for s in second if s is not None]
    assert len(looks) == 1, second
    assert looks[0] < 2.0, looks  # ~0.3 s; the fair share would be ~60 s
