"""Hand-written oracles of games, written from their rulebooks, for lockstep tests."""
