"""Every bundled game passes OpenSpiel's own random simulation test, with serialisation."""
from __future__ import annotations

import pyspiel
import pytest

from verifier.openspiel import load

CASES = (
    [("spec/ramen_ink.rules", p, {}) for p in (2, 3, 4, 5)]
    + [("spec/ramen.rules", p, {}) for p in (2, 3, 4, 5)]
    + [("spec/ramen.rules", p, {"narutos": "true"}) for p in (2, 3, 4, 5)]
    + [("spec/ramen.rules", 2, {"grunchie_offer": "literal"})]
    + [("spec/wasabi.rules", p, {}) for p in (2, 3, 4)]
)


@pytest.mark.parametrize("spec, players, options", CASES,
                         ids=[f"{s.split('/')[-1][:-6]}-{p}p-{'-'.join(f'{k}={v}' for k, v in o.items()) or 'default'}"
                              for s, p, o in CASES])
def test_random_sim_test_with_serialisation(spec, players, options):
    game = load(spec, players=players, **options)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_finite_option_values_bound_games_only_when_asked():
    # Wasabi! may go on forever by its rules: its turn_limit option is 0 (none) by default and
    # declares `finite 120`, which play and OpenSpiel use unless the user sets it.
    from verifier.engine.runtime import Game
    from helpers import engine_for
    engine = engine_for("spec/wasabi.rules")
    assert Game(engine, 2).option_values["turn_limit"] == 0
    assert Game(engine, 2, bounded=True).option_values["turn_limit"] == 120
    assert Game(engine, 2, {"turn_limit": "30"}, bounded=True).option_values["turn_limit"] == 30
