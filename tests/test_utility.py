"""The `utility` declaration: the engine checks every finished game's returns against it."""
from __future__ import annotations

import pytest

from helpers import engine_from_text
from verifier.engine.lib import RuleError
from verifier.engine.runtime import Game

SPEC = '''game g "G"
players 2..3
UTILITY
var turn: Player = 0
var picked: 0..2 = 0
flow {
  choose turn {
    move pick(k: 0..2) "pick {k}" { picked = k }
  }
}
outcome {
  score p: 0
  returns p: if p == 0 then picked else 1
}
'''


def finish(utility: str, k: int, players: int = 2):
    state = Game(engine_from_text(SPEC.replace("UTILITY", utility), "u.rules"), players).new_initial_state()
    state.apply_action(k)
    return state


@pytest.mark.parametrize("utility, k, players", [
    ("utility general_sum", 2, 2), ("utility identical", 1, 3), ("utility constant_sum 3", 2, 2),
    ("utility constant_sum 2", 0, 3), ("", 0, 2),
])
def test_returns_that_satisfy_the_declaration_pass(utility, k, players):
    assert finish(utility, k, players).is_terminal()


@pytest.mark.parametrize("utility, k, message", [
    ("utility identical", 2, r"u\.rules:3:1: the game is declared identical, so its returns must be equal; they are 2, 1"),
    ("utility constant_sum 3", 1, r"declared constant_sum, so its returns must add up to 3; they are 1, 1 \(sum 2\)"),
    ("utility zero_sum", 0, r"declared zero_sum, so its returns must add up to 0; they are 0, 1 \(sum 1\)"),
])
def test_a_violation_is_a_rule_error_at_the_declaration(utility, k, message):
    with pytest.raises(RuleError, match=message):
        finish(utility, k)


def test_engines_export_the_declaration():
    engine = engine_from_text(SPEC.replace("UTILITY", "utility constant_sum -2"), "u.rules")
    assert engine.module.UTILITY == ("constant_sum", -2)
    assert engine_from_text(SPEC.replace("UTILITY", ""), "u.rules").module.UTILITY == ("general_sum", None)


@pytest.mark.parametrize("utility, k, holds", [
    ("utility zero_sum", 2, False), ("utility constant_sum 3", 2, True), ("utility constant_sum 3", 1, False),
    ("utility identical", 1, True), ("utility identical", 0, False),
])
def test_z3_states_the_declaration_where_the_flow_ends(utility, k, holds):
    # the well_formed obligation the proofs see is the engine's check (planted: a sum that is off)
    from verifier.smt.encode import StateVars, is_true, is_false, z3
    from verifier.smt.transition import successor
    program = engine_from_text(SPEC.replace("UTILITY", utility), "u.rules").program
    state = StateVars(program, 2, {}, 0)
    step = successor(program, 2, {}, state, 0, 0, {"k": z3.IntVal(k)}, player=z3.IntVal(0))
    found = [o for o in step.checks if "utility" in o.sentence]
    assert len(found) == 1 and found[0].sentence == f"the returns satisfy `{utility}`"
    cond = z3.simplify(found[0].cond)
    assert is_true(cond) if holds else is_false(cond)


# ---------------------------------------------------------------- `utility ... when COND`
# A game whose returns add up to 0 without the bonus and to 1 with it: a declaration of zero_sum
# is broken only where the bonus is on, so which declaration applies decides where the engine,
# Z3 and OpenSpiel see a violation.

BONUS = '''game g "G"
players 2
option bonus: bool = false because "a planted option: the first player's return gets 1 more"
UTILITY
var turn: Player = 0
var picked: 0..2 = 0
flow {
  choose turn {
    move pick(k: 0..2) "pick {k}" { picked = k }
  }
}
outcome {
  score p: 0
  returns p: if p == 0 then picked + (if bonus then 1 else 0) else -picked
}
'''
# the declarations -> for bonus = false and bonus = true: does the engine raise a rule error?
APPLIES = [
    ("utility zero_sum when not bonus", {False: False, True: False}),  # no declaration applies with the bonus
    ("utility zero_sum when bonus", {False: False, True: True}),
    ("utility constant_sum 1 when bonus\nutility zero_sum", {False: False, True: False}),  # the first that holds
    ("utility zero_sum when bonus or num_players == 2", {False: False, True: True}),
    ("utility general_sum when not bonus\nutility zero_sum", {False: False, True: True}),
]
# those where a choice that ignored `when` (the first declaration, always) would differ: the
# planted-bug tests below show the tests of these cannot pass vacuously
PLANTED = [APPLIES[0], APPLIES[2], APPLIES[4]]


def bonus_engine(utility: str):
    return engine_from_text(BONUS.replace("UTILITY", utility), "b.rules")


def rule_errors(engine) -> dict:
    """bonus -> whether a finished game (the first player picks 1) breaks a rule."""
    out = {}
    for bonus in (False, True):
        state = Game(engine, 2, {"bonus": bonus}).new_initial_state()
        try:
            state.apply_action(1)
            out[bonus] = False
        except RuleError:
            out[bonus] = True
    return out


def ignoring_when(engine):
    """A planted bug: the engine's choice of declaration ignores `when` (the first one applies)."""
    first = engine.program.utilities[0]
    engine.module._utility_of = lambda s: (first.kind, first.total, f"{first.span.path}:{first.span.line}:1")
    return engine


@pytest.mark.parametrize("utility, errors", APPLIES)
def test_the_engine_checks_the_declaration_the_options_choose(utility, errors):
    assert rule_errors(bonus_engine(utility)) == errors


@pytest.mark.parametrize("utility, errors", PLANTED)
def test_an_engine_that_ignored_when_would_fail_those_tests(utility, errors):
    assert rule_errors(ignoring_when(bonus_engine(utility))) != errors


def test_the_engine_exports_the_declaration_for_the_options():
    m = bonus_engine("utility constant_sum 1 when bonus\nutility zero_sum").module
    assert m.UTILITY is None  # it depends on the options
    assert (m.utility(2, {"bonus": True}), m.utility(2, {"bonus": False})) == (("constant_sum", 1), ("zero_sum", None))
    assert bonus_engine("utility zero_sum when bonus").module.utility(2, {"bonus": False}) == ("general_sum", None)
    # without `when`, the constant of before, and no choice at the end of the game
    m = bonus_engine("utility zero_sum").module
    assert m.UTILITY == ("zero_sum", None) and m.utility(2, {"bonus": True}) == ("zero_sum", None)
    assert not hasattr(m, "_utility_of")


def test_the_violation_is_reported_at_the_declaration_that_applies():
    engine = bonus_engine("utility zero_sum when not bonus\nutility constant_sum 2 when bonus")
    with pytest.raises(RuleError, match=r"b\.rules:5:1: the game is declared constant_sum, so its returns must add "
                                         r"up to 2; they are 2, -1 \(sum 1\)"):
        Game(engine, 2, {"bonus": True}).new_initial_state().apply_action(1)


def well_formed_by_z3(utility: str) -> dict:
    """bonus -> the status of well_formed from the solver alone (no play: `games` 0)."""
    from verifier.verify.run import Budget, verify
    program = bonus_engine(utility).program
    budget = Budget(games=0, timeout=10, falsify=0)
    out = {}
    for bonus in (False, True):
        found = {r.name: r for r in verify(program, {"bonus": str(bonus).lower()}, budget=budget).results}
        out[bonus] = found["well_formed"].status
        assert out[bonus] != "violated" or "the game is declared" in found["well_formed"].reason
    return out


def as_statuses(errors: dict) -> dict:
    return {bonus: "violated" if broken else "proved" for bonus, broken in errors.items()}


@pytest.mark.parametrize("utility, errors", PLANTED)
def test_z3_checks_the_declaration_the_options_choose(utility, errors):
    assert well_formed_by_z3(utility) == as_statuses(errors)


@pytest.mark.parametrize("utility, errors", PLANTED)
def test_z3_that_ignored_when_would_fail_that_test(utility, errors, monkeypatch):
    import verifier.smt.transition as transition
    monkeypatch.setattr(transition, "applicable_utility", lambda program, n, options: program.utilities[0])
    assert well_formed_by_z3(utility) != as_statuses(errors)


def test_openspiel_game_type_follows_the_options(tmp_path):
    import pyspiel
    from verifier.openspiel import load
    path = tmp_path / "bonus.rules"
    path.write_text(BONUS.replace("UTILITY", "utility constant_sum 1 when bonus\nutility identical when false"))
    U = pyspiel.GameType.Utility
    without, with_bonus = load(path, 2, bonus="false"), load(path, 2, bonus="true")
    assert (with_bonus.get_type().utility, with_bonus.utility_sum()) == (U.CONSTANT_SUM, 1.0)
    assert (without.get_type().utility, without.utility_sum()) == (U.GENERAL_SUM, None)
    pyspiel.random_sim_test(with_bonus, num_sims=3, serialize=False, verbose=False)  # OpenSpiel checks the sum


def test_declarations_with_conditions_print_back_and_diff_one_by_one():
    from verifier.diff.structural import decl_items
    from verifier.frontend import parse_spec
    from verifier.ir import nodes as N
    from verifier.ir.printer import print_spec
    text = BONUS.replace("UTILITY", "utility constant_sum -1 when bonus and num_players == 2 @G-1\nutility zero_sum")
    spec = parse_spec(text, "b.rules")[0]
    printed = print_spec(spec)
    assert "utility constant_sum -1 when bonus and num_players == 2 @G-1\nutility zero_sum\n" in printed
    assert parse_spec(printed, "b.rules")[0].decls == spec.decls
    items = decl_items(spec)
    assert [items[k].node.kind for k in items if k[0] == "utility"] == ["constant_sum", "zero_sum"]
    assert all(isinstance(items[k].node, N.UtilityDecl) for k in items if k[0] == "utility")
