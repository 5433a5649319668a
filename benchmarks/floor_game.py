"""A pyspiel game without rules, written in Python: the floor of any Python game's speed in
pyspiel (`engine_speed.py`'s floor row).

Nine moves, the same legal list at every step, nothing computed.  Its state answers Python's
per-step queries in Python as `verifier.openspiel.RulebookState` does; `apply_action` stays
pyspiel's (it keeps OpenSpiel's history), so each step crosses into C++ and back twice, as
every Python game's does.
"""
from __future__ import annotations

import pyspiel

NAME = "rulebook_bench_floor"
MOVES = 9

_GT = pyspiel.GameType
GAME_TYPE = _GT(short_name=NAME, long_name="benchmark floor (no rules)", dynamics=_GT.Dynamics.SEQUENTIAL,
                chance_mode=_GT.ChanceMode.DETERMINISTIC, information=_GT.Information.PERFECT_INFORMATION,
                utility=_GT.Utility.ZERO_SUM, reward_model=_GT.RewardModel.TERMINAL, max_num_players=2,
                min_num_players=2, provides_information_state_string=False,
                provides_information_state_tensor=False, provides_observation_string=False,
                provides_observation_tensor=False, parameter_specification={})
GAME_INFO = pyspiel.GameInfo(num_distinct_actions=MOVES, max_chance_outcomes=0, num_players=2, min_utility=-1.0,
                             max_utility=1.0, utility_sum=0.0, max_game_length=MOVES)
LEGAL = list(range(MOVES))


class FloorState(pyspiel.State):
    def __init__(self, game):
        super().__init__(game)
        self.moves = 0

    def current_player(self):
        return pyspiel.PlayerId.TERMINAL if self.moves >= MOVES else self.moves & 1

    def is_terminal(self):
        return self.moves >= MOVES

    def is_chance_node(self):
        return False

    def is_simultaneous_node(self):
        return False

    def legal_actions(self, *player):
        return list(LEGAL)

    def _legal_actions(self, player):
        return list(LEGAL)

    def _apply_action(self, action):
        self.moves += 1

    def _action_to_string(self, player, action):
        return str(action)

    def returns(self):
        return [0.0, 0.0]

    def __str__(self):
        return str(self.moves)


class FloorGame(pyspiel.Game):
    def __init__(self, params=None):
        super().__init__(GAME_TYPE, GAME_INFO, params or {})

    def new_initial_state(self):
        return FloorState(self)


def game() -> pyspiel.Game:
    if NAME not in pyspiel.registered_names():
        pyspiel.register_game(GAME_TYPE, FloorGame)
    return pyspiel.load_game(NAME)
