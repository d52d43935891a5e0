"""Static WCST inference (Grant & Berg, 1948): infer the sorting rule from feedback.

The interactive WCST (``lm_eval_cog.paradigms.wcst``) in one prompt. Four key cards
(Hao et al.'s design: card k shows k symbols, the four cards have four different
colours and shapes; which colour and shape goes with which count is drawn per item),
then a history of earlier sorts of another player, each with its feedback
("correct"/"wrong"), then a new card: "Which key card does the next card go to?";
the answer is a card number 1-4 (chance 1/4). Every card shown is unambiguous
(Kennedy & Nowak, 2024; Hao et al.): the key card it matches by colour, by shape and
by number are three different cards, the fourth matches nothing; so every sort in
the history reveals the one dimension it followed, and the three rules point the
new card to three different key cards.

The history is what a good player produces: it tries dimensions until one is
"correct", keeps it for a run of correct sorts, and after an unannounced rule change
(the first "wrong" on the kept dimension) tries the other dimensions. Conditions
(cycle by index):

* ``before_switch``: no rule change in the history; the rule is the one kept;
* ``after_switch``: the change happened and a "correct" since then reveals the new rule
  (one or two "wrong" sorts after the change, then 1-3 "correct" ones);
* ``just_switched``: the change happened and no "correct" came since: the first
  "wrong" rules out the old dimension, a second "wrong" rules out a second one, so
  only elimination gives the new rule.

In every item exactly one rule is consistent with all the feedback since the last
change (with the fewest changes that explain the whole history): the key is unique.
The lure (after a change) is the key card of the previous rule.

Effects (Grant & Berg, 1948; Heaton et al., 1993, perseverative responses):

* ``perseverative_choice_rate`` = share of after-change items (``after_switch``,
  ``just_switched``) answered with the previous rule's card (0 ideal; 1/4 random);
* ``shift_cost`` = acc(before_switch) - acc(after-change items) (> 0: shifting costs).

A perseverating player (the ``prepotent`` one: it keeps the previous rule) scores 1
on both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.paradigms.base import require_int
from lm_eval_cog.paradigms.wcst.env import (
    COLOURS,
    DIMENSIONS,
    NUMBERS,
    SHAPES,
    card_text,
    is_unambiguous,
)
from lm_eval_cog.probes.aggregations import NEITHER, SIDE_A, SIDE_B
from lm_eval_cog.probes.core import Probe, cycle, normalize_answer

CONDITIONS = ("before_switch", "after_switch", "just_switched")
AFTER = ("after_switch", "just_switched")
CORRECT, WRONG = "correct", "wrong"
CHOICES = ["1", "2", "3", "4"]
#: Most correct sorts in a run: the history stays within one pass of the 24 unambiguous cards.
MAX_RUN = 10
INSTRUCTIONS = (
    "Each new card goes to one key card by a rule: the same colour, the same shape, or the same "
    "number of symbols. The rule is only ever one of these three, never a combination. The rule is "
    'not told: after each sort the feedback says "correct" or "wrong". The rule can change without warning.'
)
_WORDS = ("one", "two", "three", "four")
_CARD_NUMBER = re.compile(r"(?:key )?(?:card )?(?:no\. ?|number |# ?)?(?P<n>\d+|one|two|three|four)")


@dataclass(frozen=True)
class WcstInferenceParams:
    """Attributes:
    min_run: Fewest consecutive correct sorts under the first rule, >= 1 (2).
    max_run: Most of them, min_run..10 (5); the run length is uniform in between.
    """

    min_run: int = 2
    max_run: int = 5

    def __post_init__(self) -> None:
        require_int("wcst_inference", "min_run", self.min_run, 1)
        require_int("wcst_inference", "max_run", self.max_run, 1)
        if not self.min_run <= self.max_run <= MAX_RUN:
            raise ValueError(
                f"wcst_inference parameter 'max_run' must be in min_run..{MAX_RUN} "
                f"({self.min_run}..{MAX_RUN}), got {self.max_run}"
            )


def _key_cards(rng: np.random.Generator) -> list[dict[str, Any]]:
    """Card k has k symbols; colours and shapes are dealt to the counts at random."""
    colours = [COLOURS[int(i)] for i in rng.permutation(4)]
    shapes = [SHAPES[int(i)] for i in rng.permutation(4)]
    return [{"shape": s, "colour": c, "number": n} for s, c, n in zip(shapes, colours, NUMBERS)]


def _sorts(rng: np.random.Generator, condition: str, params: WcstInferenceParams) -> tuple[list[tuple[str, str]], str, str]:
    """The history as (dimension sorted by, feedback), the rule in force, the previous rule."""
    rules = [DIMENSIONS[int(i)] for i in rng.permutation(3)]
    old, new, third = rules
    # Exploration: the player tries dimensions in a random order until one is correct.
    order = [DIMENSIONS[int(i)] for i in rng.permutation(3)]
    sorts = [(d, WRONG) for d in order[: order.index(old)]]
    sorts += [(old, CORRECT)] * int(rng.integers(params.min_run, params.max_run + 1))
    if condition == "before_switch":
        return sorts, old, "none"
    sorts.append((old, WRONG))  # the unannounced change
    if condition == "just_switched":
        return sorts + [(third, WRONG)], new, old
    if rng.integers(2):
        sorts.append((third, WRONG))
    return sorts + [(new, CORRECT)] * int(rng.integers(1, 4)), new, old


class WcstInference(Probe):
    name = "wcst_inference"
    ability = "flexibility"
    Params = WcstInferenceParams
    conditions = CONDITIONS
    lure_conditions = AFTER
    effects: ClassVar[dict[str, tuple[str, bool]]] = {
        "perseverative_choice_rate": ("conditional_mean", False),
        "shift_cost": ("difference", False),
    }

    def item(self, rng: np.random.Generator, params: WcstInferenceParams, index: int) -> dict[str, Any]:
        condition = cycle(CONDITIONS, index)
        keys = _key_cards(rng)
        sorts, rule, previous = _sorts(rng, condition, params)
        # One pass through the 24 unambiguous cards: no card is shown twice.
        deck = [
            {"shape": s, "colour": c, "number": n}
            for s in SHAPES for c in COLOURS for n in NUMBERS
            if is_unambiguous({"shape": s, "colour": c, "number": n}, keys)
        ]
        cards = [deck[int(i)] for i in rng.permutation(len(deck))[: len(sorts) + 1]]

        def key_by(card: dict[str, Any], dim: str) -> int:
            return next(k for k, key in enumerate(keys) if key[dim] == card[dim])

        lines = [
            "Card sorting. There are four key cards:",
            *(f"Card {k + 1}: {card_text(key)}" for k, key in enumerate(keys)),
            INSTRUCTIONS,
            "Sorts so far:",
            *(
                f"{t + 1}. {card_text(card)} -> Card {key_by(card, dim) + 1}: {feedback}"
                for t, (card, (dim, feedback)) in enumerate(zip(cards, sorts))
            ),
            f"Next card: {card_text(cards[-1])}.",
            "Which key card does the next card go to? Answer with its number: 1, 2, 3 or 4.",
        ]
        target = cards[-1]
        return {
            "prompt": "\n".join(lines),
            "choices": list(CHOICES),
            "gold": key_by(target, rule),
            "condition": condition,
            "lure": key_by(target, previous) if condition in AFTER else -1,
            "rule": rule,
            "previous_rule": previous,
            "card": card_text(target),
            "key_cards": [card_text(key) for key in keys],
            "sorts": len(sorts),
        }

    def read(self, doc: dict[str, Any], answer: str) -> int | None:
        """A card by number ("2", "Card 2", "card two", "#2") or by the exact text of one
        key card ("two green stars"); a card number outside 1-4 is wrong (-1); anything
        else (two cards, prose, a hedge) is invalid."""
        text = normalize_answer(answer)
        match = _CARD_NUMBER.fullmatch(text)
        if match:
            n = match["n"]
            number = _WORDS.index(n) + 1 if n in _WORDS else int(n)
            return number - 1 if 1 <= number <= len(doc["choices"]) else -1
        descriptions = [normalize_answer(key) for key in doc["key_cards"]]
        return descriptions.index(text) if text in descriptions else None

    def effect_values(self, doc: dict[str, Any], pred: int | None) -> dict[str, Any]:
        correct = float(pred == doc["gold"])
        after = doc["condition"] in AFTER
        return {
            "perseverative_choice_rate": (after, float(after and pred == doc["lure"])),
            "shift_cost": (SIDE_A if doc["condition"] == "before_switch" else SIDE_B if after else NEITHER, correct),
        }


PROBE = WcstInference()
