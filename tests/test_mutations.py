"""The mutation catalogue (benchmarks/mutations.py): every edit applies and type-checks, every
invariant of the seed specs has an edit that breaks it, and, for a fast subset, the original
spec's invariant holds on seeded random games while the mutant's engine breaks it on one.

The full run (every mutant, `rulebook verify` on each) is `benchmarks/mutations.py`; it takes
far longer than a test may."""
from __future__ import annotations

import functools
import sys

import pytest

from helpers import ROOT
from verifier.frontend import load_program

sys.path.insert(0, str(ROOT / "benchmarks"))
import mutations as mut  # noqa: E402

# mutants whose broken state a few seeded random games reach (see the catalogue's `reach`)
FAST = [
    "ramen/no_kind_check",
    "ramen/shoyu_anywhere",
    "ramen/new_bowl_anywhere",
    "ramen/grunchie_card_leaves",
    "ramen_ink/bin_9",
    "ramen_ink/two_toppings_one_bowl",
    "ramen_ink/window_with_gap",
    "ramen_ink/ring_ignores_served",
    "ramen_ink/deck_39_cards",
    "wasabi/place_on_tile",
    "wasabi/stack_lasts",
    "wasabi/recipe_stays_in_hand",
    "wasabi/three_worth_four",
    "breakthrough/far_row_no_win",
    "mancala/capture_drops_last_bean",
    "blackjack/dealer_card_stays_in_deck",
    "pig/roll_on_past_winscore",
]
GAMES, SEED = 8, 1


def original(m: mut.Mutation):
    """The unmutated spec as a game, with the mutation's player count and options."""
    return _original(m.key)


@functools.lru_cache(maxsize=None)
def _original(key: str):
    m = mut.by_key(key)
    return mut.game_of(m, (ROOT / m.spec).read_text(encoding="utf-8"), str(ROOT / m.spec))


def test_catalogue_applies_and_type_checks():
    assert len(mut.MUTATIONS) >= 30
    assert mut.check_catalogue() == []
    for m in mut.MUTATIONS:
        assert m.old != m.new and m.game in mut.SPECS and m.reach in ("random", "directed")
        assert m.reach == "random" or m.guide, f"{m.key}: a mutant only a directed search reaches needs a guide"


@pytest.mark.parametrize("game", sorted(mut.SPECS))
def test_every_invariant_has_a_mutation(game):
    program, _ = load_program(str(ROOT / mut.SPECS[game]))
    invariants = {i.name for i in program.invariants}
    broken = {m.breaks for m in mut.MUTATIONS if m.game == game}
    assert invariants - broken == set(), "invariants no catalogued rule edit breaks"
    assert broken <= invariants


def test_a_stale_mutation_is_reported(tmp_path):
    m = mut.by_key("ramen_ink/bin_9")
    (tmp_path / "spec").mkdir()
    text = (ROOT / m.spec).read_text(encoding="utf-8")
    (tmp_path / m.spec).write_text(text.replace(m.old, m.old.replace("8..8", "8 .. 8")), encoding="utf-8")
    with pytest.raises(mut.MutationStale):
        mut.mutant_text(m, root=tmp_path)
    (tmp_path / m.spec).write_text(text + "\n# again: " + m.old + "\n", encoding="utf-8")
    with pytest.raises(mut.MutationStale):
        mut.mutant_text(m, root=tmp_path)


@pytest.mark.parametrize("key", FAST)
def test_original_holds_and_mutant_breaks(key):
    m = mut.by_key(key)
    history, _ = mut.random_search(original(m), m.breaks, GAMES, SEED)
    assert history is None, f"the unmutated spec breaks {m.breaks}"
    game = mut.game_of(m, mut.mutant_text(m), f"{m.key}.rules")
    history, _ = mut.random_search(game, m.breaks, GAMES, SEED)
    assert history is not None, f"{GAMES} random games of the mutant never broke {m.breaks}"
    assert mut.replays_to_failure(game, history, m.breaks)
    assert not mut.replays_to_failure(original(m), [], m.breaks)


def test_directed_search_reaches_what_random_games_miss():
    """Three action cards in one hand (a hand limit of 3) takes three recipe rewards without
    playing a card: the random search misses it, the guided one finds it, and the same guided
    play of the unmutated spec never breaks the hand limit."""
    m = mut.by_key("wasabi/hand_of_three")
    assert m.reach == "directed"
    game = mut.game_of(m, mut.mutant_text(m, guide=True), f"{m.key}.rules")
    assert mut.random_search(game, m.breaks, 16, SEED)[0] is None
    found, _ = mut.directed_search(game, m.breaks, 10, SEED)
    assert found is not None and mut.replays_to_failure(game, found, m.breaks)
    unmutated = mut.Mutation(m.game, m.name, m.old, m.old, m.breaks, m.players, m.rule, m.why, m.options, m.guide)
    plain = mut.game_of(m, mut.mutant_text(unmutated, guide=True), "original.rules")
    assert mut.directed_search(plain, m.breaks, 10, SEED)[0] is None


def test_summary_counts_false_proofs_and_catches():
    def run(status, replayable):
        return mut.VerifyRun(status, "search" if status == "violated" else "induction", 1.0, 2.0, replayable).as_json()
    rows = [
        {"mutant": "a/x", "breaks": "p", "players": 2, "verify": run("violated", True), "solver": run("proved", False)},
        {"mutant": "a/y", "breaks": "q", "players": 2, "verify": run("violated", False), "solver": run("unknown", False)},
    ]
    text = mut.summary(rows)
    assert "kill rate (verify): 1/2 = 50%" in text
    assert "without random play (--games 0): 0/2 = 0%" in text and "false proofs: 1" in text
    assert "FALSE PROOF" in mut.line(rows[0]) and "does not replay" in mut.line(rows[1])
