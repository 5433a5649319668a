"""The verify cache (`verifier/verify/cache.py`): a result is reused only when the slice of
the spec it depends on, the options, the settings and the tool are unchanged."""
from __future__ import annotations

from verifier.frontend import check_text
from verifier.verify.cache import Cache, slice_keys
from verifier.verify.run import Budget, verify

SPEC = '''
game counting "Counting"
players 2
var turn: Player = 0
var total: 0..30 = 0
var moves: 0..20 = 0
def doubled(x: 0..30): 0..60 = 2 * x
flow {
  for r in 1..5 {
    choose turn {
      move add(k: 1..2) "adds {k}" { total += k  moves += 1 }
    }
    turn = next_player(turn)
  }
}
outcome { score p: doubled(total) }
invariant per_move "each move adds at most 2": total <= 2 * moves
invariant few_moves "at most five moves": moves <= 5
'''


def program(text):
    p, diags = check_text(text, "counting.rules")
    assert p is not None, [d.message for d in diags]
    return p


def run(text, cache, **kw):
    budget = Budget(games=20, timeout=10, proof=20, falsify=0)
    return verify(program(text), {}, budget=budget, cache=cache, **kw)


def test_unchanged_slices_are_reused_and_edits_are_not(tmp_path):
    cache = Cache(str(tmp_path))
    first = run(SPEC, cache)
    assert first.results and not any(r.reused for r in first.results)
    again = run(SPEC, cache)
    assert all(r.reused for r in again.results)
    assert [(r.name, r.status, r.method) for r in again.results] == \
        [(r.name, r.status, r.method) for r in first.results]
    assert again.score_bounds == first.score_bounds
    # outside the slice: a comment and an expectation (reapplied to the cached status)
    edited = SPEC + '# a note\nexpect per_move unknown "planted: an expectation edit"\n'
    reused = run(edited, cache)
    assert all(r.reused for r in reused.results)
    per_move = next(r for r in reused.results if r.name == "per_move")
    assert per_move.expected == "unknown" and not per_move.as_expected
    # a rule edit, and a scoring edit (the score bounds depend on it): run again
    for changed in (SPEC.replace("k: 1..2", "k: 1..3"), SPEC.replace("2 * x", "3 * x")):
        assert not any(r.reused for r in run(changed, cache).results)
    # other settings: no reuse
    assert not any(r.reused for r in run(SPEC, cache, only={"per_move"}).results)


def test_a_count_with_an_unknown_is_verified_again(tmp_path):
    # planted: no time for proofs, so every result that play does not settle is `unknown` — what a
    # busy machine gives; the cache answers only with proofs and violations, so the count runs again
    cache = Cache(str(tmp_path))
    budget = Budget(games=5, timeout=1, proof=0.001, falsify=0)
    first = verify(program(SPEC), {}, budget=budget, cache=cache)
    assert any(r.status == "unknown" for r in first.results)
    assert not any(r.reused for r in verify(program(SPEC), {}, budget=budget, cache=cache).results)


def test_the_slice_leaves_out_scoring_only_definitions():
    props, scored = slice_keys(program(SPEC).spec)
    props2, scored2 = slice_keys(program(SPEC.replace("2 * x", "3 * x")).spec)
    assert props == props2 and scored != scored2
    props3, _ = slice_keys(program(SPEC.replace("total <= 2 * moves", "total <= 3 * moves")).spec)
    assert props3 != props


def test_a_damaged_entry_is_a_miss(tmp_path):
    cache = Cache(str(tmp_path))
    run(SPEC, cache)
    for f in tmp_path.rglob("*.json"):
        f.write_text("{not json")
    assert not any(r.reused for r in run(SPEC, cache).results)
