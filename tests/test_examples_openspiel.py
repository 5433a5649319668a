"""The OpenSpiel ports in spec/examples/, each played in lockstep with `pyspiel.load_game`.

For every case, random games run on the compiled spec and on OpenSpiel's own implementation at
once; at every step both must agree on the node kind (a player, chance, simultaneous, terminal),
the legal action ids (per player at a simultaneous node), the chance outcomes with their
probabilities, and at the end on the returns.  The actions played are drawn from the agreed
lists, so a difference is reported at the first step it shows.

Every case also has a planted mutation, a one-line edit of the spec's text, that the lockstep
must catch, and passes OpenSpiel's `random_sim_test` through `verifier.openspiel.load`.

`HYPOTHESIS_PROFILE=thorough` (as `make test-thorough` sets it) plays 1,000 games per case.
"""
from __future__ import annotations

import os
import random
from dataclasses import dataclass, field
from pathlib import Path

import pyspiel
import pytest

from helpers import EXAMPLES, engine_from_text
from verifier.engine.lib import RuleError
from verifier.engine.runtime import Game
from verifier.openspiel import load

THOROUGH = os.environ.get("HYPOTHESIS_PROFILE") == "thorough"
GAMES = 60           # random games per case in the normal run (fewer for slow cases: `share`)
THOROUGH_GAMES = 1000  # ... and per case under HYPOTHESIS_PROFILE=thorough
MUTANT_GAMES = 300   # the most games a planted mutation may take to show


@dataclass(frozen=True)
class Case:
    spec: str                  # file name in spec/examples/
    openspiel: str             # pyspiel game name
    params: dict = field(default_factory=dict)   # pyspiel parameters
    options: dict = field(default_factory=dict)  # the spec's options (the same settings)
    players: int = 2
    mutation: tuple[str, str] | None = None      # (text in the spec, its replacement)
    share: float = 1.0         # the share of GAMES this case plays in the normal run

    @property
    def games(self) -> int:
        return THOROUGH_GAMES if THOROUGH else max(1, int(GAMES * self.share))

    @property
    def id(self) -> str:
        opts = "-".join(f"{k}={v}" for k, v in self.options.items())
        return f"{self.spec}-{self.players}p" + (f"-{opts}" if opts else "")


def goofspiel(players: int, returns_type: str, points_order: str = "random", num_cards: int = 5,
              mutation=None) -> Case:
    return Case("goofspiel", "goofspiel",
                {"players": players, "num_cards": num_cards, "points_order": points_order,
                 "returns_type": returns_type},
                {"num_cards": num_cards, "points_order": points_order, "returns_type": returns_type},
                players, mutation)


CASES = [
    goofspiel(2, "win_loss", mutation=("if size(leaders()) == 1 {", "if size(leaders()) >= 1 {")),
    goofspiel(2, "point_difference", mutation=("won[p] - total_won() / num_players", "won[p] - total_won() // num_players")),
    goofspiel(3, "point_difference", "descending", mutation=("def total_won(): 0..91 = sum(q in players: won[q])",
                                                             "def total_won(): 0..91 = sum(q in players: bid[q])")),
    goofspiel(2, "total_points", "descending", mutation=("prize = num_cards + 1 - round",
                                                         "prize = num_cards - round")),
    goofspiel(2, "win_loss", "ascending", num_cards=4, mutation=("prize = round\n", "prize = 1\n")),
    goofspiel(2, "win_loss", num_cards=13, mutation=("if round < num_cards {", "if round <= num_cards {")),
    goofspiel(3, "win_loss", mutation=("then 1 / size(winners)", "then 1")),
    goofspiel(4, "win_loss", "ascending", mutation=("else -1 / (num_players - size(winners))", "else -1 / num_players")),
    goofspiel(4, "point_difference", mutation=("then won[p] - total_won() / num_players", "then won[p] - total_won() / 4 + 1")),
    goofspiel(3, "total_points", mutation=("if returns_type == total_points then won[p]", "if returns_type == total_points then won[p] + 1")),
    goofspiel(4, "total_points", "descending",
              mutation=("let winner = argmax(p in players: bid[p])", "let winner = argmin(p in players: bid[p])")),
    Case("nim", "nim", mutation=("n <= piles[i]", "n < piles[i] or n == 1")),
    Case("nim", "nim", {"is_misere": False}, {"is_misere": "false"},
         mutation=("    last_mover = turn\n", "    last_mover = next_player(turn)\n")),
    Case("breakthrough", "breakthrough", {"rows": 6, "columns": 8}, {"rows": 6},
         mutation=("then d % 3 != 1 and board", "then board")),
    Case("breakthrough", "breakthrough", {"rows": 8, "columns": 8}, {"rows": 8}, share=1 / 3,
         mutation=("def home_rows(): 1..2 = if rows > 5 then 2 else 1", "def home_rows(): 1..2 = 1")),
    Case("breakthrough", "breakthrough", {"rows": 4, "columns": 8}, {"rows": 4},
         mutation=("def goal_row(p: Player): 0..7 = if p == 0 then rows - 1 else 0",
                   "def goal_row(p: Player): 0..7 = if p == 0 then rows - 1 else 1")),
    Case("dots_and_boxes", "dots_and_boxes", mutation=("def bottom(b: Box): Line = b + num_cols",
                                                       "def bottom(b: Box): Line = b + 1")),
    Case("dots_and_boxes", "dots_and_boxes", {"num_rows": 3, "num_cols": 4, "utility_margin": True},
         {"num_rows": 3, "num_cols": 4, "utility_margin": "true"},
         mutation=("    if size(completed) == 0 {", "    if size(completed) <= 1 {")),
    Case("hex", "hex", {"board_size": 5}, {"board_size": 5},
         mutation=("const DC: seq of -1..1 max 6 = [0, 1, -1, 1, -1, 0]", "const DC: seq of -1..1 max 6 = [0, -1, -1, 1, 1, 0]")),
    Case("hex", "hex", {"board_size": 11}, {}, share=1 / 6,
         mutation=("if m == x then any(j in group: r(j) == 0)", "if m == o then any(j in group: r(j) == 0)")),
    Case("clobber", "clobber", mutation=("const DC: seq of -1..1 max 4 = [0, 1, 0, -1]",
                                         "const DC: seq of -1..1 max 4 = [0, -1, 0, 1]")),
    Case("clobber", "clobber", {"rows": 4, "columns": 5}, {"rows": 4, "columns": 5},
         mutation=("        board[i] = empty\n", "")),
    Case("catch", "catch", players=1, mutation=("paddle = columns // 2", "paddle = columns // 2 + 1")),
    Case("catch", "catch", {"rows": 5, "columns": 3}, {"rows": 5, "columns": 3}, players=1,
         mutation=("least(greatest(paddle + m - 1, 0), columns - 1)", "least(greatest(paddle + m - 1, 0), columns)")),
    Case("mancala", "mancala", mutation=("board[at] == 1 and own_pit(turn, at)", "board[at] == 1")),
    Case("first_sealed_auction", "first_sealed_auction", mutation=("b < value[seat]", "b <= value[seat]")),
    Case("first_sealed_auction", "first_sealed_auction", {"players": 3, "max_value": 4}, {"max_value": 4}, players=3,
         mutation=("def highest(): Money = max(p in players: bids[p])", "def highest(): Money = min(p in players: bids[p])")),
    Case("tiny_hanabi", "tiny_hanabi", mutation=("  0, 0, 10, 4, 8, 4, 0, 0, 10,", "  0, 0, 10, 4, 8, 4, 0, 0, 0,")),
    Case("leduc_poker", "leduc_poker", mutation=("then 3 + rank(private[p]) else", "then rank(private[p]) else")),
    Case("blackjack", "blackjack", players=1, mutation=("while best(dealer) <= 16", "while best(dealer) <= 15")),
    Case("oware", "oware", mutation=("all(k in House where k > h and k <= upper(h): seeds[k] == 0) and\n",
                                     "all(k in House where k > h and k <= upper(h): seeds[k] >= 0) and\n")),
    Case("oware", "oware", {"num_houses_per_player": 3, "num_seeds_per_house": 2},
         {"num_houses_per_player": 3, "num_seeds_per_house": 2},
         mutation=("    if snapshot() in seen or not can_move(turn) {", "    if not can_move(turn) {")),
    Case("battleship", "battleship", share=1 / 3,
         mutation=("(if d == 0 then at % 10 + LENGTHS[placed // 2] <= 10", "(if d == 0 then at % 10 + LENGTHS[placed // 2] <= 11")),
    Case("battleship", "battleship", {"num_shots": 40, "allow_repeated_shots": False},
         {"num_shots": 40, "allow_repeated_shots": "false"}, share=1 / 3,
         mutation=("def sunk(p: Player, k: Ship): bool = all(c in Idx where ship_at[p][c] == k: c in shots[next_player(p)])",
                   "def sunk(p: Player, k: Ship): bool = any(c in Idx where ship_at[p][c] == k: c in shots[next_player(p)])")),
    Case("checkers", "checkers", share=1 / 2,
         mutation=("if jump and not crowned and any(", "if jump and any(")),
    Case("tiny_bridge_2p", "tiny_bridge_2p",
         mutation=("else if suit(bottom(seat, a, b)) == suit(led) then {bottom(seat, a, b)} else {top(seat, a, b)}",
                   "else if suit(bottom(seat, a, b)) == suit(led) then {bottom(seat, a, b)} else hand_of(seat, a, b)")),
]


# ---------------------------------------------------------------- lockstep

_ENGINES: dict[str, object] = {}


def engine_of(text: str, name: str):
    if text not in _ENGINES:
        _ENGINES[text] = engine_from_text(text, str(EXAMPLES / f"{name}.rules"))
    return _ENGINES[text]


def spec_text(case: Case) -> str:
    return (EXAMPLES / f"{case.spec}.rules").read_text()


def _node(state) -> str:
    if state.is_terminal():
        return "terminal"
    if state.is_chance_node():
        return "chance"
    if state.is_simultaneous_node():
        return "simultaneous"
    return f"player {state.current_player()}"


def first_difference(text: str, case: Case, games: int, seed: int = 0) -> str | None:
    """Play `games` random games on the spec (its text) and on pyspiel; the first difference
    (a rule error in the spec's engine is one)."""
    try:
        return _first_difference(text, case, games, seed)
    except RuleError as exc:
        return f"the spec's engine stopped with a rule error: {exc}"


def _first_difference(text: str, case: Case, games: int, seed: int) -> str | None:
    ours = Game(engine_of(text, case.spec), case.players, {k: str(v) for k, v in case.options.items()},
                bounded=True)
    theirs = pyspiel.load_game(case.openspiel, case.params)
    rng = random.Random(seed)
    for g in range(games):
        a, b = ours.new_initial_state(), theirs.new_initial_state()
        history: list = []
        while True:
            where = f"game {g}, after {history}"
            na, nb = _node(a), _node(b)
            if na != nb:
                return f"{where}: spec at {na}, OpenSpiel at {nb}"
            if na == "terminal":
                ra, rb = list(a.returns()), list(b.returns())
                if any(abs(x - y) > 1e-9 for x, y in zip(ra, rb)):
                    return f"{where}: returns {ra} vs OpenSpiel {rb}"
                break
            if na == "chance":
                ca = sorted(a.chance_outcomes())
                cb = sorted(b.chance_outcomes())
                if [x for x, _ in ca] != [x for x, _ in cb] or any(abs(p - q) > 1e-9 for (_, p), (_, q) in zip(ca, cb)):
                    return f"{where}: chance outcomes {ca} vs OpenSpiel {cb}"
                action = ca[rng.randrange(len(ca))][0]
            elif na == "simultaneous":
                joint = []
                for p in range(case.players):
                    la, lb = sorted(a.legal_actions(p)), sorted(b.legal_actions(p))
                    if la != lb:
                        return f"{where}: P{p}'s legal actions {la} vs OpenSpiel {lb}"
                    joint.append(la[rng.randrange(len(la))])
                a.apply_actions(joint)
                b.apply_actions(joint)
                history.append(joint)
                continue
            else:
                la, lb = sorted(a.legal_actions()), sorted(b.legal_actions())
                if la != lb:
                    return f"{where}: legal actions {la} vs OpenSpiel {lb}"
                action = la[rng.randrange(len(la))]
            a.apply_action(action)
            b.apply_action(action)
            history.append(action)
    return None


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_lockstep_with_openspiel(case):
    assert first_difference(spec_text(case), case, case.games) is None


@pytest.mark.parametrize("case", [c for c in CASES if c.mutation], ids=[c.id for c in CASES if c.mutation])
def test_lockstep_catches_a_planted_mutation(case):
    old, new = case.mutation
    text = spec_text(case)
    assert text.count(old) == 1, f"the mutation's text must occur once in {case.spec}.rules"
    assert first_difference(text.replace(old, new), case, MUTANT_GAMES) is not None


# Where the adapter's GameType/GameInfo may differ from OpenSpiel's, and why.  Every other field
# must be equal.  (Issue 15, walls 3 and 4: metadata derived from the game as loaded is work in
# progress; a field listed here that comes out equal is fine.)
WHY_METADATA_DIFFERS = {
    "information": "the adapter calls a game with hidden variables imperfect-information; OpenSpiel "
                   "calls goofspiel with public bids perfect-information",
    "num_distinct_actions": "a move's parameter types are sized for the largest option value (type "
                            "bounds cannot read options); nim: OpenSpiel reserves one id more",
    "max_chance_outcomes": "the chance type is sized for the largest option value",
    "min_utility": "read off the returns expression's inferred range or random play, not the game's",
    "max_utility": "read off the returns expression's inferred range or random play, not the game's",
    "max_game_length": "the adapter's bound comes from the flow's loops (or random play), OpenSpiel's "
                       "from its own formula; both bound every game",
}
METADATA = {
    "dynamics": lambda g: g.get_type().dynamics, "chance_mode": lambda g: g.get_type().chance_mode,
    "information": lambda g: g.get_type().information, "utility": lambda g: g.get_type().utility,
    "utility_sum": lambda g: g.utility_sum(),  # None unless zero- or constant-sum
    "reward_model": lambda g: g.get_type().reward_model, "num_players": lambda g: g.num_players(),
    "num_distinct_actions": lambda g: g.num_distinct_actions(),
    "max_chance_outcomes": lambda g: g.max_chance_outcomes(),
    "min_utility": lambda g: g.min_utility(), "max_utility": lambda g: g.max_utility(),
    "max_game_length": lambda g: g.max_game_length(),
}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_random_sim_test_through_the_adapter(case):
    game = load(EXAMPLES / f"{case.spec}.rules", case.players, **{k: str(v) for k, v in case.options.items()})
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)
    theirs = pyspiel.load_game(case.openspiel, case.params)
    undocumented = {name: (read(game), read(theirs)) for name, read in METADATA.items()
                    if read(game) != read(theirs) and name not in WHY_METADATA_DIFFERS}
    assert not undocumented, f"GameType/GameInfo differs from OpenSpiel's, with no reason given: {undocumented}"


def test_every_port_has_a_case():
    ported = {c.spec for c in CASES}
    assert ported <= {p.stem for p in Path(EXAMPLES).glob("*.rules")}
