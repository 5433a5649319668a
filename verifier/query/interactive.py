"""A person plays against bots at the terminal (`rulebook play SPEC --interactive`).

At each of the person's decisions the legal moves are numbered; they answer with a number or
a move's text. Other commands at the prompt:

- `why TEXT`: is the move written TEXT legal here, and if not, which rule forbids it (the
  legality query, `legality.check_move`);
- `legal`: every legal move, and for each kind of move that has none, the rule that rules it out;
- `score`: the scores as they stand, term by term (`explain`);
- `state`: what the person may see (their observation); `history`: the steps so far, as a
  `--history` for `rulebook query`; `help`; `quit` (or the end of the input).

Chance is drawn at random; the other seats are bots: `random` (uniform legal moves) or `mcts`
(OpenSpiel's Monte Carlo tree search with random rollouts; it searches the true state, hidden
information included, and needs a game with sequential turns). Input and output are plain
streams, so a test drives a whole game through standard input.
"""
from __future__ import annotations

import random
from typing import TextIO

from ..engine.lib import RuleError, show_player
from ..engine.runtime import CHANCE, SIMULTANEOUS, Game
from .explain import explain, format_explain
from .legality import check_move, format_check, format_legal, legal_moves
from .moves import Finder
from .position import Position, step_text

BOTS = ("random", "mcts")
HELP = ("Type a move's number or its text. Also: why TEXT (is that move legal here? which rule forbids it?), "
        "legal, score, state, history, help, quit.")


class Session:
    def __init__(self, game: Game, seat: int, bot: str, seed: int, out: TextIO, inp: TextIO,
                 simulations: int = 200):
        self.game = game
        self.seat = seat
        self.out, self.inp = out, inp
        self.rng = random.Random(seed)
        self.steps: list[str] = []
        self.ps = None  # the pyspiel state when an OpenSpiel bot plays
        self.bot = bot
        if bot == "mcts":
            self.ps, self.mcts = _mcts(game, seed, simulations)
            self.gs = self.ps.runtime_state
            self.game = self.gs.game  # the adapter compiles its own engine of the same spec
        else:
            self.gs = game.new_initial_state()

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def position(self) -> Position:
        return Position(self.game, self.gs, f"this game after {len(self.steps)} steps", list(self.steps))

    # ------------------------------------------------------------ steps
    def apply(self, step) -> None:
        self.steps.append(step_text(self.gs, step))
        if self.ps is not None:
            self.ps.apply_actions(step) if isinstance(step, list) else self.ps.apply_action(step)
        elif isinstance(step, list):
            self.gs.apply_actions(step)
        else:
            self.gs.apply_action(step)

    def bot_action(self, player: int) -> int:
        legal = self.gs.legal_actions(player)
        if not legal:
            raise RuleError(f"{show_player(player)} has no legal move", self.gs.m.DECISIONS[self.gs.s.pc][4])
        if self.ps is not None and self.gs.current_player() == player:
            return self.mcts.step(self.ps)
        return legal[self.rng.randrange(len(legal))]

    # ------------------------------------------------------------ the person's turn
    def ask(self) -> int | None:
        """The person's choice of action, or None when they quit (or the input ends)."""
        gs = self.gs
        legal = gs.legal_actions(self.seat)
        if not legal:
            raise RuleError(f"{show_player(self.seat)} has no legal move", gs.m.DECISIONS[gs.s.pc][4])
        texts = [gs.action_to_string(self.seat, a) for a in legal]
        self.say("")
        self.say(gs.observation_string(self.seat))
        self.say(f"{show_player(self.seat)}, your move:")
        for i, t in enumerate(texts, start=1):
            self.say(f"  {i:>3}. {t}")
        while True:
            self.out.write("> ")
            self.out.flush()
            line = self.inp.readline()
            if not line:
                self.say("")
                return None
            line = line.strip()
            if not line:
                continue
            word, _, rest = line.partition(" ")
            word = word.lower()
            if word in ("quit", "exit", "q"):
                return None
            if word == "help":
                self.say(HELP)
            elif word == "why":
                if not rest.strip():
                    self.say("why TEXT: write the move, e.g. why " + texts[0])
                else:
                    self.say(format_check(check_move(self.position(), rest.strip(), self.seat)))
            elif word == "legal":
                self.say(format_legal(legal_moves(self.position())))
            elif word == "score":
                self.say(format_explain(explain(self.position())))
            elif word == "state":
                self.say(gs.observation_string(self.seat))
            elif word == "history":
                self.say("; ".join(self.steps) if self.steps else "(no steps yet)")
            elif line.isdigit():
                k = int(line)
                if 1 <= k <= len(legal):
                    return legal[k - 1]
                self.say(f"choose a number from 1 to {len(legal)}")
            else:
                found = [c for c in Finder(gs, self.game.engine.program).find(line, self.seat) if c.where == "legal"]
                if found:
                    return found[0].action
                self.say(format_check(check_move(self.position(), line, self.seat)))
                self.say("(type a number, or help)")

    # ------------------------------------------------------------ the game
    def run(self) -> int:
        """Play to the end; 0 when the game ended, 1 when the person quit."""
        gs = self.gs
        self.say(f"{gs.m.GAME_TITLE}: you are {show_player(self.seat)}; the other seats are {self.bot} bots. "
                 "Type help for the commands.")
        while not gs.is_terminal():
            who = gs.current_player()
            if who == CHANCE:
                step = gs.sample_chance(self.rng)
                self.say(f"chance: {step_text(gs, step)}")
                self.apply(step)
            elif who == SIMULTANEOUS:
                mine = self.ask()
                if mine is None:
                    return self.quit()
                joint = [mine if p == self.seat else self.bot_action(p) for p in range(gs.num_players())]
                self.say(f"reveal: {step_text(gs, joint)}")
                self.apply(joint)
            elif who == self.seat:
                action = self.ask()
                if action is None:
                    return self.quit()
                self.say(f"you: {gs.action_to_string(who, action)}")
                self.apply(action)
            else:
                action = self.bot_action(who)
                self.say(f"{step_text(gs, action)}")
                self.apply(action)
        self.say("")
        self.say("the game is over")
        self.say(format_explain(explain(self.position())))
        return 0

    def quit(self) -> int:
        self.say("you left the game; to look at this position again: rulebook query SPEC --history \""
                 + "; ".join(self.steps) + "\" --legal")
        return 1


def _mcts(game: Game, seed: int, simulations: int):
    """A pyspiel state for `game` and OpenSpiel's MCTS bot on it."""
    import numpy as np
    from open_spiel.python.algorithms import mcts

    from ..commands.common import UserError
    from .. import openspiel
    m = game.module
    if any(d[0] == "simultaneous" for d in m.DECISIONS):
        raise UserError(f"{m.GAME_TITLE} has simultaneous decisions; OpenSpiel's MCTS needs sequential turns: "
                        "use --bot random")
    options = game.option_strings()
    psgame = openspiel.load(game.engine.program.spec.path, game.num_players, **options)
    rng = np.random.RandomState(seed)
    bot = mcts.MCTSBot(psgame, 2.0, simulations, mcts.RandomRolloutEvaluator(1, rng), random_state=rng,
                       solve=False)
    return psgame.new_initial_state(), bot


__all__ = ["Session", "BOTS"]
