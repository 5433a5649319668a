"""What a rule edit changed (`rulebook diff`) and how well a spec guards its rules (`rulebook mutate`).

Modules: `structural` (items by kind and name, rules by ID, renames, reorders, the behavioural
core), `behaviour` (lockstep play of two engines, witnesses), `run` (the three layers of a
diff), `report` (the text), `mutants` (mutants generated from the IR), `mutate` (running them).
"""
from .run import Diff, Settings, diff_programs

__all__ = ["Diff", "Settings", "diff_programs"]
