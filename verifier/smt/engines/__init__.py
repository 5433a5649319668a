"""Proof engines over one transition system (`verifier/smt/system.py`), side by side behind one
small interface (`base.ClaimEngine`): each takes the system, the claims and a deadline, and answers
per claim `proved` (with what it rests on), `violated` (with a path) or `unknown` (with why)."""
