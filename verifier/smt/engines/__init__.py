"""Proof engines over one transition system (`verifier/smt/system.py`), side by side behind one
small interface (`base.ClaimEngine`): each takes the system, the claims and a deadline, and answers
per claim `proved` (with what it rests on), `violated` (with a path) or `unknown` (with why).
`ranking` answers a different question with the same parts: whether some count of the state
decreases on every step, so that every game ends (termination where loops have no measure)."""
