"""Letter flanker task (Eriksen & Eriksen, 1974): name the middle letter, ignore its neighbours.

Item: ``What is the middle letter of: S S H S S? Options: K, H, S.`` The options are
the *response set*, ``options`` letters drawn per item from consonants (no vowels: "A"
and "I" are words, "O" looks like a zero); the row has ``flankers`` letters on each
side of the target. Conditions cycle by index:

* ``congruent``: the flankers are the target (``H H H H H``);
* ``incongruent``: the flankers are another letter of the response set, which is the
  lure (``S S H S S``: the majority letter of the row is a wrong option);
* ``neutral``: the flankers are a letter outside the response set (``X X H X X``), the
  control of Eriksen & Eriksen's "noise" conditions.

Effects (accuracy versions of the reaction-time effects; Eriksen & Eriksen 1974,
Eriksen 1995): ``flanker_effect`` = acc(congruent) - acc(incongruent);
``interference`` = acc(neutral) - acc(incongruent) (the cost of a response-incompatible
flanker beyond that of any flanker); ``flanker_error_share`` = share of incongruent
errors that name the flanker. Positive values mean the flankers captured the answer.
A reader of the majority letter (the ``prepotent`` player) scores 1, 1 and 1; chance
is 1/``options``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.paradigms.base import require_int
from lm_eval_cog.probes.aggregations import difference_side
from lm_eval_cog.probes.core import Probe, cycle

#: Consonants only: vowels read as words ("A", "I") or digits ("O").
LETTERS = "BCDFGHJKLMNPRSTVXZ"
CONDITIONS = ("congruent", "incongruent", "neutral")
MAX_FLANKERS = 8


@dataclass(frozen=True)
class FlankerParams:
    """Attributes:
    flankers: Flanking letters on each side of the target, 1..8 (2: ``S S H S S``).
    options: Size of the response set, 3..6 (3): the options of every item.
    """

    flankers: int = 2
    options: int = 3

    def __post_init__(self) -> None:
        require_int("flanker", "flankers", self.flankers, 1)
        if self.flankers > MAX_FLANKERS:
            raise ValueError(f"flanker parameter 'flankers' must be in 1..{MAX_FLANKERS}, got {self.flankers}")
        require_int("flanker", "options", self.options, 3)
        if self.options > 6:
            raise ValueError(f"flanker parameter 'options' must be in 3..6, got {self.options}")


class Flanker(Probe):
    name = "flanker"
    ability = "inhibition"
    Params = FlankerParams
    conditions = CONDITIONS
    lure_conditions = ("incongruent",)
    effects: ClassVar[dict[str, tuple[str, bool]]] = {
        "flanker_effect": ("difference", False),
        "interference": ("difference", False),
        "flanker_error_share": ("conditional_mean", False),
    }

    def item(self, rng: np.random.Generator, params: FlankerParams, index: int) -> dict[str, Any]:
        condition = cycle(CONDITIONS, index)
        # Response set first, then one letter outside it for the neutral flankers.
        drawn = [LETTERS[int(k)] for k in rng.permutation(len(LETTERS))[: params.options + 1]]
        responses, outsider = drawn[:-1], drawn[-1]
        target = responses[0]
        flanker = {"congruent": target, "incongruent": responses[1], "neutral": outsider}[condition]
        row = " ".join([flanker] * params.flankers + [target] + [flanker] * params.flankers)
        choices = [responses[int(k)] for k in rng.permutation(len(responses))]
        prompt = f"What is the middle letter of: {row}? Options: {', '.join(choices)}."
        return {
            "prompt": prompt,
            "choices": choices,
            "gold": choices.index(target),
            "condition": condition,
            "lure": choices.index(flanker) if condition == "incongruent" else -1,
            "target": target,
            "flanker": flanker,
            "row": row,
        }

    def effect_values(self, doc: dict[str, Any], pred: int | None) -> dict[str, Any]:
        correct = float(pred == doc["gold"])
        cond = doc["condition"]


        return {
            "flanker_effect": (difference_side(cond, "congruent", "incongruent"), correct),
            "interference": (difference_side(cond, "neutral", "incongruent"), correct),
            "flanker_error_share": (cond == "incongruent" and not correct, float(pred == doc["lure"])),
        }


PROBE = Flanker()
