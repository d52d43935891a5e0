"""Scripted Image Game players (one instance plays both roles; it reads ``info["role"]``).

The scripted givers describe cells in words ("put L in row 2, columns 1, 3, 5"); the scripted
drawers apply those words (they never read the target), so a perfect score means the commands
really described the drawing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from lm_eval_cog.games.grids import EMPTY, SIZE, render
from lm_eval_cog.paradigms.base import AgentFactory

DONE = "Command: DONE"
#: The scripted givers' instruction, as the scripted drawers read it.
_PUT = re.compile(r"put (?P<letter>[A-Z]) in row (?P<row>[1-5]), columns? (?P<cols>[1-5](?:, [1-5])*)")


def row_commands(target: Sequence[Sequence[str]]) -> list[str]:
    """One instruction per (row, letter) with filled cells, top to bottom (1-based numbers)."""
    out = []
    for r, row in enumerate(target):
        for letter in sorted({cell for cell in row if cell != EMPTY}):
            cols = ", ".join(str(c + 1) for c, cell in enumerate(row) if cell == letter)
            out.append(f"put {letter} in row {r + 1}, column{'s' if ',' in cols else ''} {cols}")
    return out


def cell_commands(target: Sequence[Sequence[str]]) -> list[str]:
    """One instruction per filled cell, row by row."""
    return [f"put {cell} in row {r + 1}, column {c + 1}"
            for r, row in enumerate(target) for c, cell in enumerate(row) if cell != EMPTY]  # fmt: skip


def _read(instruction: str) -> re.Match[str]:
    found = _PUT.fullmatch(instruction)
    if found is None:
        raise ValueError(f"not a scripted giver's instruction: {instruction!r}")
    return found


def apply_command(grid: list[list[str]], instruction: str) -> None:
    """Fill the cells a scripted giver's instruction names."""
    found = _read(instruction)
    for col in found["cols"].split(", "):
        grid[int(found["row"]) - 1][int(col) - 1] = found["letter"]


class OptimalAgent:
    """Giver: one command per filled row, then DONE. Drawer: applies each command. F1 100 after
    as many drawer turns as the target has filled rows."""

    def __init__(self, params: Any, rng: np.random.Generator) -> None:
        self.rng = rng
        self.queue: list[str] | None = None
        self.grid = [[EMPTY] * SIZE for _ in range(SIZE)]

    def act(self, message: str, info: Mapping[str, Any]) -> str:
        if info["role"] == "giver":
            if self.queue is None:
                self.queue = self.commands(info["target"])
            return f"Command: {self.queue.pop(0)}" if self.queue else DONE
        self.draw(info["command"])
        return render(tuple(tuple(row) for row in self.grid))

    def commands(self, target: Sequence[Sequence[str]]) -> list[str]:
        return row_commands(target)

    def draw(self, instruction: str) -> None:
        apply_command(self.grid, instruction)


class SlowWinnerAgent(OptimalAgent):
    """One command per filled cell: F1 100 after as many drawer turns as filled cells."""

    def commands(self, target: Sequence[Sequence[str]]) -> list[str]:
        return cell_commands(target)


class RandomAgent(OptimalAgent):
    """The optimal giver; the drawer takes the command's letter but ignores where it goes: each
    turn it writes that letter into one uniform cell (the drawing accumulates)."""

    def draw(self, instruction: str) -> None:
        r, c = divmod(int(self.rng.integers(SIZE * SIZE)), SIZE)
        self.grid[r][c] = _read(instruction)["letter"]


class RuleBreakerAgent:
    """Replies without the ``Command:`` tag: the game aborts at the giver's first reply."""

    def __init__(self, params: Any, rng: np.random.Generator) -> None:
        pass

    def act(self, message: str, info: Mapping[str, Any]) -> str:
        return "Put the letters where the target grid has them."


AGENTS: Mapping[str, AgentFactory] = {
    "optimal": OptimalAgent, "slow_winner": SlowWinnerAgent, "random": RandomAgent, "rule_breaker": RuleBreakerAgent,
}  # fmt: skip
