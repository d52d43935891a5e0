"""Scripted players: a ``wason246`` player for the play, then a reflection policy.

Like the ``wason246`` agents they never see the hidden rule: a reflection policy knows what
its player knows (the hypothesis space H of the preset, the answers seen, the rule it stated,
``info["first_rule"]``). Each reflects with a JSON object of our request's form.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.paradigms.base import AgentFactory
from lm_eval_cog.paradigms.wason246 import hypotheses as hyp
from lm_eval_cog.paradigms.wason246.agents import (
    ConfirmatoryAgent,
    IdealAgent,
    RandomAgent,
    rule_line,
)
from lm_eval_cog.paradigms.wason246.env import YES
from lm_eval_cog.paradigms.wason246.rules import parse_rule
from lm_eval_cog.metacognition import KEEP, NOT_REASONABLE, REASONABLE


class _Reflecting:
    """Plays with ``player`` (a ``wason246`` agent class), then reflects with :meth:`reflect`
    (judgement, confidence, new reply line or None to keep the rule)."""

    player: ClassVar[type] = RandomAgent

    def __init__(self, params: Any, rng: np.random.Generator) -> None:
        self.params = params
        self.rng = rng
        self.inner = self.player(params, rng)
        self.seen: dict[tuple[int, int, int], bool] = {}

    def act(self, message: str, info: Mapping[str, Any]) -> str:
        if not self.seen:
            self.seen[tuple(info["initial"])] = True
        if info.get("last_answer") is not None:
            self.seen[tuple(info["last_triple"])] = info["last_answer"] == YES
        if info.get("phase") != "reflection":
            return self.inner.act(message, info)
        judgement, confidence, new = self.reflect(info["first_rule"])
        return json.dumps(
            {
                "rationality_judgement": judgement,
                "confidence_score": confidence,
                "model_reflection": f"{type(self).__name__} reflecting.",
                "new_response": KEEP if new is None else new,
            }
        )

    def fits_answers(self, rule: str) -> bool:
        """The rule gives every answer seen (the initial triple's "Yes" included)."""
        checked = parse_rule(rule, self.params.query_bound)
        return all(checked.holds(*t) == v for t, v in self.seen.items())

    def consistent(self) -> list[str]:
        """Hypotheses of H that give every answer seen, in H's order."""
        grid = self.params.grid
        return [s for s in self.params.hypotheses if all(hyp.follows(s, t, grid) == v for t, v in self.seen.items())]

    def reflect(self, rule: str) -> tuple[str, int, str | None]:
        raise NotImplementedError


class RandomReflecting(_Reflecting):
    """Chance: ``wason246``'s random querier (a blind guess from the hidden rule's distribution),
    then a coin-flip judgement, a uniform confidence 0-100 and, after "Not reasonable", another
    blind guess. The final rule is a blind guess either way: acc_final's expectation is
    ``wason246.random_chance`` (sum_h P(h)^2; P(inc) under ``wason1960``), as acc_first's."""

    player = RandomAgent

    def reflect(self, rule: str) -> tuple[str, int, str | None]:
        judgement = (REASONABLE, NOT_REASONABLE)[int(self.rng.integers(2))]
        confidence = int(self.rng.integers(101))
        new = rule_line(self.inner._guess()) if judgement == NOT_REASONABLE else None
        return judgement, confidence, new


class OptimalReflecting(_Reflecting):
    """Ceiling: the ideal querier (always right on both presets), "Reasonable" at 100, kept:
    every accuracy, self_check_acc and CQS 1."""

    player = IdealAgent

    def reflect(self, rule: str) -> tuple[str, int, str | None]:
        return REASONABLE, 100, None


class OverconfidentReflecting(_Reflecting):
    """The random querier's blind guess, always "Reasonable" at 100, never revised:
    self_check_acc = cqs_answer = cqs_judgement = acc_first = acc_final."""

    player = RandomAgent

    def reflect(self, rule: str) -> tuple[str, int, str | None]:
        return REASONABLE, 100, None


class SelfCorrectingReflecting(_Reflecting):
    """The random querier's blind guess, then a consistency self-check with what it saw: a rule
    that contradicts an answer is "Not reasonable" at confidence 0 and replaced by a hypothesis
    of H drawn uniformly among those that give every answer (``random_consistent``'s guess);
    otherwise "Reasonable" at 100, kept. Its corrections are real but not perfect (several
    hypotheses may fit the answers)."""

    player = RandomAgent

    def reflect(self, rule: str) -> tuple[str, int, str | None]:
        if self.fits_answers(rule):
            return REASONABLE, 100, None
        options = self.consistent()
        return NOT_REASONABLE, 0, rule_line(options[int(self.rng.integers(len(options)))])


class SecondGuessingReflecting(_Reflecting):
    """The ideal querier's right rule, then "Not reasonable" at 50 and its negation
    (``RULE: not (<rule>)``, wrong on every triple): every right rule damaged (damage_rate = 1,
    delta = -1, cqs_answer = cqs_judgement = 0.75)."""

    player = IdealAgent

    def reflect(self, rule: str) -> tuple[str, int, str | None]:
        return NOT_REASONABLE, 50, f"RULE: not ({rule})"


class ConfirmatoryReflecting(_Reflecting):
    """Wason's subjects: the confirmer's most specific rule after three confirmations, then
    certain of it ("Reasonable" at 100, kept); under ``wason1960`` always wrong and certain."""

    player = ConfirmatoryAgent

    def reflect(self, rule: str) -> tuple[str, int, str | None]:
        return REASONABLE, 100, None


AGENTS: Mapping[str, AgentFactory] = {
    "random": RandomReflecting,
    "optimal": OptimalReflecting,
    "overconfident": OverconfidentReflecting,
    "self_correcting": SelfCorrectingReflecting,
    "second_guessing": SecondGuessingReflecting,
    "confirmatory": ConfirmatoryReflecting,
}
