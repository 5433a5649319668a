"""The one small interface of the claim engines (`induction.Induction`, `spacer.Spacer`): built on
a transition system, its interval facts (or None), a per-query time-out and a deadline; `run`
answers per claim with an `Outcome`, and leaves in `lemmas` the formulas it proved on the way
(facts of every reachable state, for the engines and checks after it). A new engine is one new
module with this shape; `verify/invariants.py` decides the order and the shares of time.

The interval analysis (`intervals.analyse`) is not a claim engine: it computes facts, once.
"""
from __future__ import annotations

from typing import Callable, Protocol

from ..system import System
from .induction import Claim, Outcome
from .intervals import Intervals

__all__ = ["ClaimEngine", "Claim", "Outcome"]


class ClaimEngine(Protocol):
    lemmas: list

    def __init__(self, system: System, facts: Intervals | None, timeout: float = 20.0,
                 deadline: float | None = None, progress: Callable[[str], None] | None = None) -> None: ...

    def run(self, claims: list[Claim], lemmas: list | None = None) -> dict[str, Outcome]: ...
