"""Scripted Reference Game players (one instance plays both roles; it reads ``info["role"]``).

There is no ``slow_winner``: the game is one expression and one answer, so no player can win later.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from lm_eval_cog.paradigms.base import AgentFactory

ANSWER_WORDS = ("first", "second", "third")


def describe_cells(cells: Sequence[Sequence[int]]) -> str:
    """An expression naming exactly the filled cells (1-based), so it fits one grid only."""
    listed = ", ".join(f"(row {r + 1}, column {c + 1})" for r, c in cells)
    return f"the grid whose filled cells are exactly {listed}"


class OptimalAgent:
    """Giver: lists the target's filled cells. Follower: names the target's position. Wins: 100."""

    def __init__(self, params: Any, rng: np.random.Generator) -> None:
        self.rng = rng

    def act(self, message: str, info: Mapping[str, Any]) -> str:
        if info["role"] == "giver":
            return f"Expression: {describe_cells(info['target_cells'])}"
        return f"Answer: {ANSWER_WORDS[self._position(info)]}"

    def _position(self, info: Mapping[str, Any]) -> int:
        return int(info["target_position"])


class RandomAgent(OptimalAgent):
    """The optimal giver; the follower names one of the three positions uniformly: 100 or 0
    (mean 100/3)."""

    def _position(self, info: Mapping[str, Any]) -> int:
        return int(self.rng.integers(len(ANSWER_WORDS)))


class FirstAlwaysAgent(OptimalAgent):
    """The optimal giver; the follower always answers "first" (a position bias, the heuristic): it
    wins exactly when the target is shown first, one episode in three of a task (100/3 on each
    block of three consecutive episodes of one category)."""

    def _position(self, info: Mapping[str, Any]) -> int:
        return 0


class RuleBreakerAgent:
    """Replies without the ``Expression:`` tag: the game aborts at the giver."""

    def __init__(self, params: Any, rng: np.random.Generator) -> None:
        pass

    def act(self, message: str, info: Mapping[str, Any]) -> str:
        return "The target is the grid with the most filled cells."


AGENTS: Mapping[str, AgentFactory] = {"optimal": OptimalAgent, "random": RandomAgent, "rule_breaker": RuleBreakerAgent,
                                      "first_always": FirstAlwaysAgent}  # fmt: skip
