"""`rulebook verify`: properties proved with Z3 and searched for in concrete play."""
