"""Scripted LNT players (ceiling and heuristic rows, test oracles).

Agents see only what a model sees plus ``info`` (``stimulus``, ``announced_task``,
``last_outcome``, ``last_answer``); never the hidden task. They reply with the bare
answer word, which every strategy's parser accepts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from lm_eval_cog.paradigms.base import AgentFactory, Outcome
from lm_eval_cog.paradigms.lnt.env import TASKS, correct_answer, other_task


class _TaskAgent:
    """Answers every sequence right under the task it believes in force."""

    def __init__(self, params: Any, rng: np.random.Generator) -> None:
        self.params = params
        self.rng = rng
        self.task: str = TASKS[int(rng.integers(len(TASKS)))]

    def _reply(self, info: Mapping[str, Any]) -> str:
        if info.get("announced_task"):
            self.task = str(info["announced_task"])
        return correct_answer(self.task, str(info["stimulus"]))


class OptimalAgent(_TaskAgent):
    """Ideal observer that is not told the criterion (Kennedy & Nowak's "participant that is
    able to switch tasks successfully"; like the WCST ``optimal`` agent).

    Its answers are always right under its belief, so an "Incorrect!" means the other task
    is in force (on trial 1: the first guess was wrong; later: an unannounced switch), and
    with two tasks one error is enough to know which. No player that cannot anticipate a
    switch does better; see ``scoring.reactive_correct`` for its exact score.
    """

    def act(self, message: str, info: Mapping[str, Any]) -> str:
        if info.get("last_outcome") == Outcome.ERROR.value:
            self.task = other_task(self.task)
        return self._reply(info)


class AnticipatoryAgent(_TaskAgent):
    """Knows the whole protocol, the criterion included: counts its run of correct answers and
    switches task itself after the ``criterion``-th, as the test does. Only its first guess can
    be wrong, so it sets the absolute ceiling (``scoring.max_categories``); it measures
    counting, not flexibility, and is not the reference for the 6/7 bound.
    """

    def __init__(self, params: Any, rng: np.random.Generator) -> None:
        super().__init__(params, rng)
        self._streak = 0

    def act(self, message: str, info: Mapping[str, Any]) -> str:
        outcome = info.get("last_outcome")
        if outcome == Outcome.ERROR.value:
            self.task, self._streak = other_task(self.task), 0
        elif outcome == Outcome.CORRECT.value:
            self._streak += 1
            if self._streak == self.params.criterion:
                self._streak = 0
                if self.params.fixed_task is None:  # the protocol says whether the task switches
                    self.task = other_task(self.task)
        return self._reply(info)


class PerseverativeAgent(_TaskAgent):
    """Finds the first task that is rewarded and keeps performing it forever.

    Before the first "Correct!" it moves to the other task after each error. After the
    switch every answer is an error in the old task's words (perseverative), so on the
    switching test it scores exactly ``criterion / trials`` (6/25).
    """

    def __init__(self, params: Any, rng: np.random.Generator) -> None:
        super().__init__(params, rng)
        self._locked = False

    def act(self, message: str, info: Mapping[str, Any]) -> str:
        outcome = info.get("last_outcome")
        if not self._locked:
            if outcome == Outcome.CORRECT.value:
                self._locked = True
            elif outcome == Outcome.ERROR.value:
                self.task = other_task(self.task)
        return self._reply(info)


AGENTS: Mapping[str, AgentFactory] = {
    "optimal": OptimalAgent,
    "anticipatory": AnticipatoryAgent,
    "perseverative": PerseverativeAgent,
}
