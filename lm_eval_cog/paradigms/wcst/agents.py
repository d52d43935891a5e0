"""Scripted WCST players (ceiling and heuristic rows, test oracles).

Agents see only what a model sees plus ``info`` (``card``, ``options``,
``last_outcome``, ``last_choice``); never the hidden rule. They reply with the
bare card number ("1".."4"), which every strategy's parser accepts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from lm_eval_cog.paradigms.base import AgentFactory, Outcome
from lm_eval_cog.paradigms.wcst.cards import DIMENSIONS, matched_dimensions


def _option_for(dimension: str, info: Mapping[str, Any]) -> int | None:
    """Index of the option that matches the current card on ``dimension`` (None if none)."""
    card = info["card"]
    for k, option in enumerate(info["options"]):
        if card[dimension] == option[dimension]:
            return k
    return None


class _DimensionAgent:
    """Shared bookkeeping: remembers the last stimulus to decode which dimension was tested."""

    def __init__(self, params: Any, rng: np.random.Generator) -> None:
        self.params = params
        self.rng = rng
        self._last: tuple[dict[str, Any], list[dict[str, Any]]] | None = None

    def _tested(self, info: Mapping[str, Any]) -> str | None:
        """The single dimension the previous choice tested (None if invalid / matched nothing)."""
        if self._last is None or info.get("last_choice") is None:
            return None
        card, options = self._last
        dims = matched_dimensions(card, options[int(info["last_choice"])])
        return dims[0] if len(dims) == 1 else None

    def _reply(self, dimension: str, info: Mapping[str, Any]) -> str:
        self._last = (dict(info["card"]), [dict(o) for o in info["options"]])
        k = _option_for(dimension, info)
        if k is None:  # not possible with the shipped decks; answer something valid
            k = 0
        return str(k + 1)


class OptimalAgent(_DimensionAgent):
    """Ideal observer that does not know when the rule will switch.

    Keeps the rules consistent with all feedback since the last inferred switch and
    sorts by one of them (chosen at random). Each choice tests exactly one rule
    (unambiguous cards). A "correct" pins the rule; an "incorrect" after the rule was
    pinned means the rule switched, to one of the two others. On wcst64 this gives at
    most 2 errors before the first category and 1 + at most 1 after each switch.
    """

    def __init__(self, params: Any, rng: np.random.Generator) -> None:
        super().__init__(params, rng)
        # An announced rule is known from the start (Kennedy & Nowak's component tasks).
        announced = getattr(params, "announce_rule", False) and params.fixed_rule is not None
        self._hypotheses: list[str] = [params.fixed_rule] if announced else list(DIMENSIONS)

    def act(self, message: str, info: Mapping[str, Any]) -> str:
        tested = self._tested(info)
        outcome = info.get("last_outcome")
        if tested is not None and outcome == Outcome.CORRECT.value:
            self._hypotheses = [tested]
        elif tested is not None and outcome == Outcome.ERROR.value:
            if self._hypotheses == [tested]:
                # The rule that was confirmed just failed: it switched to another one.
                self._hypotheses = [d for d in DIMENSIONS if d != tested]
            else:
                self._hypotheses = [d for d in self._hypotheses if d != tested]
            if not self._hypotheses:  # feedback inconsistent with one hidden switch
                self._hypotheses = [d for d in DIMENSIONS if d != tested]
        choice = self._hypotheses[int(self.rng.integers(len(self._hypotheses)))]
        return self._reply(choice, info)


class PerseverativeAgent(_DimensionAgent):
    """Finds the first rule that is rewarded and keeps sorting by it forever.

    Before the first "correct" it cycles through the dimensions (from a random start),
    moving on after each error.
    """

    def __init__(self, params: Any, rng: np.random.Generator) -> None:
        super().__init__(params, rng)
        self._index = int(rng.integers(len(DIMENSIONS)))
        self._locked: str | None = None

    def act(self, message: str, info: Mapping[str, Any]) -> str:
        tested = self._tested(info)
        outcome = info.get("last_outcome")
        if self._locked is None and tested is not None:
            if outcome == Outcome.CORRECT.value:
                self._locked = tested
            elif outcome == Outcome.ERROR.value:
                self._index = (DIMENSIONS.index(tested) + 1) % len(DIMENSIONS)
        dimension = self._locked or DIMENSIONS[self._index]
        return self._reply(dimension, info)


AGENTS: Mapping[str, AgentFactory] = {"optimal": OptimalAgent, "perseverative": PerseverativeAgent}
