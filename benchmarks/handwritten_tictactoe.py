"""A minimal hand-written Python tic-tac-toe: the speed generated engines aim for.

The reference point of the issue's target ("a minimal hand-written Python
tic-tac-toe reaches about the same speed as the C++ game behind its
bindings"). Same moves, same ids (cells 0..8), same ending as OpenSpiel's.
"""
from __future__ import annotations

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


class State:
    __slots__ = ("board", "player", "over")

    def __init__(self):
        self.board = [0] * 9
        self.player = 0
        self.over = False

    def is_terminal(self) -> bool:
        return self.over

    def legal_actions(self) -> list[int]:
        board = self.board
        return [i for i in range(9) if board[i] == 0]

    def apply_action(self, action: int) -> None:
        board, mark = self.board, self.player + 1
        board[action] = mark
        for a, b, c in LINES:
            if board[a] == mark and board[b] == mark and board[c] == mark:
                self.over = True
                return
        if 0 not in board:
            self.over = True
            return
        self.player = 1 - self.player
