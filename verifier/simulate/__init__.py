"""Simulation as a measuring instrument (`rulebook simulate`): many games under a policy, with
balance statistics, score and length distributions, move frequencies and rule usage.

The API: `simulate(spec_path, games=..., players=..., policy=...)` returns the report that
`rulebook simulate --json` prints; a policy may be a name (`random`, `greedy`, `mcts`) or any
callable `policy(state, player, legal, rng) -> action` (`play.py`).
"""
from __future__ import annotations

from .api import simulate, compare_option

__all__ = ["simulate", "compare_option"]
