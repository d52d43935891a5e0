"""Scripted reflection players: chance, ceiling and metric-exercising rows.

Each answers the item with an answer line, then reflects with a JSON object. They read the
probe document in ``info["doc"]`` (its key included), as ``cog_baseline`` does on the probes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import numpy as np

from lm_eval_cog.paradigms.base import AgentFactory
from lm_eval_cog.metacognition import KEEP, NOT_REASONABLE, REASONABLE


class _Player:
    """Answers with :meth:`first`, then reflects with :meth:`reflect` (judgement, confidence, new choice)."""

    def __init__(self, params: Any, rng: np.random.Generator) -> None:
        self.params = params
        self.rng = rng

    def act(self, message: str, info: Mapping[str, Any]) -> str:
        doc = info["doc"]
        if info["phase"] == "answer":
            return f"Answer: {doc['choices'][self.first(doc)]}"
        first = info["first_choice"]
        judgement, confidence, new = self.reflect(doc, first)
        return json.dumps(
            {
                "rationality_judgement": judgement,
                "confidence_score": confidence,
                "model_reflection": f"{type(self).__name__} reflecting.",
                "new_response": KEEP if new is None else doc["choices"][new],
            }
        )

    def first(self, doc: Mapping[str, Any]) -> int:
        return int(self.rng.integers(len(doc["choices"])))

    def reflect(self, doc: Mapping[str, Any], first: int) -> tuple[str, int, int | None]:
        raise NotImplementedError


class RandomPlayer(_Player):
    """Chance: a uniform answer, a coin-flip judgement, a uniform confidence 0-100, and after
    "Not reasonable" a uniform new choice (the first one included): the final answer is uniform."""

    def reflect(self, doc: Mapping[str, Any], first: int) -> tuple[str, int, int | None]:
        judgement = (REASONABLE, NOT_REASONABLE)[int(self.rng.integers(2))]
        confidence = int(self.rng.integers(101))
        new = int(self.rng.integers(len(doc["choices"]))) if judgement == NOT_REASONABLE else None
        return judgement, confidence, new


class OptimalPlayer(_Player):
    """Ceiling: the key, "Reasonable", confidence 100, keeps it. Every accuracy and CQS is 1."""

    def first(self, doc: Mapping[str, Any]) -> int:
        return int(doc["gold"])

    def reflect(self, doc: Mapping[str, Any], first: int) -> tuple[str, int, int | None]:
        return REASONABLE, 100, None


class OverconfidentPlayer(_Player):
    """A uniform answer, always "Reasonable" at 100, never revised: self_check_acc = cqs_answer
    = cqs_judgement = acc_first = acc_final (brier_answer = 1 - acc_first)."""

    def reflect(self, doc: Mapping[str, Any], first: int) -> tuple[str, int, int | None]:
        return REASONABLE, 100, None


class SelfCorrectingPlayer(_Player):
    """A uniform answer, then a perfect self-check: "Reasonable" at 100 when right, else "Not
    reasonable" at confidence 0 (that the answer is right) and the key. acc_final = 1,
    correction_rate = 1, cqs_answer = 1, while cqs_judgement = acc_first (its confidence of 0
    in a right judgement scores as a miss there)."""

    def reflect(self, doc: Mapping[str, Any], first: int) -> tuple[str, int, int | None]:
        if first == doc["gold"]:
            return REASONABLE, 100, None
        return NOT_REASONABLE, 0, int(doc["gold"])


class SecondGuessingPlayer(_Player):
    """The key, then "Not reasonable" at 50 and another choice (the lure where there is one):
    every right answer damaged (damage_rate = 1, delta = -1, cqs_answer = cqs_judgement = 0.75)."""

    def first(self, doc: Mapping[str, Any]) -> int:
        return int(doc["gold"])

    def reflect(self, doc: Mapping[str, Any], first: int) -> tuple[str, int, int | None]:
        other = doc["lure"] if doc["lure"] != -1 else (doc["gold"] + 1) % len(doc["choices"])
        return NOT_REASONABLE, 50, int(other)


AGENTS: Mapping[str, AgentFactory] = {
    "random": RandomPlayer,
    "optimal": OptimalPlayer,
    "overconfident": OverconfidentPlayer,
    "self_correcting": SelfCorrectingPlayer,
    "second_guessing": SecondGuessingPlayer,
}
