"""The Z3 back end: encodings of states and expressions (`encode`), one move's
symbolic successor (`transition`), and later bounded model checking and
k-induction built on them.

`encode` is the only module of the project that imports z3; the others get it
(and every term-building helper) from there.
"""
from .encode import (Encoder, NotEncoded, Obligation, SeqVal, SetVal, StateVars, at_step, concrete, literal, scope,
                     to_python)

from .transition import joint_successor, successor

__all__ = ["joint_successor", "successor", "Encoder", "NotEncoded", "Obligation", "SeqVal", "SetVal", "StateVars", "at_step", "concrete", "literal",
           "scope", "to_python"]
