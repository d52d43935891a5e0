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

Counterbalanced by construction within each condition (:func:`design`): the key card
takes the four places in turn, the rule in force the three dimensions and, after a
change, the previous rule's card the three other places and the previous rule the two
other dimensions; the next card is then drawn among those the two rules send there. So
no card number, no dimension ("always match the colour") and no fixed offset from the
lure predicts the key. Sorts are listed as "Sort t: ..." (not "t. ..."), so that no
line of the history reads as a numbered option.

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

from lm_eval_cog.answers import parse_int
from lm_eval_cog.paradigms.base import require_int
from lm_eval_cog.paradigms.wcst.cards import COLOURS, DIMENSIONS, NUMBERS, SHAPES, is_unambiguous
from lm_eval_cog.paradigms.wcst.env import card_text
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
_MAX_TRIES = 1_000
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


def _sorts(
    rng: np.random.Generator, condition: str, params: WcstInferenceParams, rule: str, previous: str
) -> list[tuple[str, str]]:
    """The history as (dimension sorted by, feedback), ending under ``rule`` (before the switch:
    the only rule; after it: the new rule, ``previous`` the old one)."""
    if condition == "before_switch":
        old, third = rule, ""
    else:
        old, third = previous, next(d for d in DIMENSIONS if d not in (rule, previous))
    # Exploration: the player tries dimensions in a random order until one is correct.
    order = [DIMENSIONS[int(i)] for i in rng.permutation(3)]
    sorts = [(d, WRONG) for d in order[: order.index(old)]]
    sorts += [(old, CORRECT)] * int(rng.integers(params.min_run, params.max_run + 1))
    if condition == "before_switch":
        return sorts
    sorts.append((old, WRONG))  # the unannounced change
    if condition == "just_switched":
        return sorts + [(third, WRONG)]
    if rng.integers(2):
        sorts.append((third, WRONG))
    return sorts + [(rule, CORRECT)] * int(rng.integers(1, 4))


def design(condition: str, index: int) -> tuple[str, str, int, int]:
    """(rule in force, previous rule or "none", key card index, lure card index or -1) of item
    ``index``, counterbalanced by construction within its condition (item j = index // 3 of
    it): the key card cycles over the four places, the rule over the three dimensions and,
    after a change, the previous rule's card over the three other places and the previous
    rule over the two other dimensions. So neither a card number nor a dimension predicts
    the key, nor the key the lure. Each place holds for two items in a row, so that the
    items of even and of odd index have the same key distribution (a place changing with
    every item would tie the key to the index's parity: the audit's cross-fitted majority
    strategy reads it)."""
    j = index // len(CONDITIONS)
    place = (j // 2) % 4
    rule = DIMENSIONS[(j // 8) % len(DIMENSIONS)]
    if condition not in AFTER:
        return rule, "none", place, -1
    lure = (place + 1 + (j // 24) % 3) % 4
    previous = [d for d in DIMENSIONS if d != rule][(j // 72) % 2]
    return rule, previous, place, lure


class WcstInference(Probe):
    name = "wcst_inference"
    ability = "flexibility"
    Params = WcstInferenceParams
    conditions = CONDITIONS
    lure_conditions = AFTER
    version = 2.0
    effects: ClassVar[dict[str, tuple[str, bool]]] = {
        "perseverative_choice_rate": ("conditional_mean", False),
        "shift_cost": ("difference", False),
    }

    def item(self, rng: np.random.Generator, params: WcstInferenceParams, index: int) -> dict[str, Any]:
        condition = cycle(CONDITIONS, index)
        keys = _key_cards(rng)
        rule, previous, gold, lure = design(condition, index)
        sorts = _sorts(rng, condition, params, rule, previous)
        # One pass through the 24 unambiguous cards: no card is shown twice. The history is drawn
        # first, then the next card among the cards left that the rule sends to the key card and
        # the previous rule to the lure card: drawing the next card first would leave the key
        # card's class one card short in the history, so the key card would be named less often.
        deck = [
            {"shape": s, "colour": c, "number": n}
            for s in SHAPES for c in COLOURS for n in NUMBERS
            if is_unambiguous({"shape": s, "colour": c, "number": n}, keys)
        ]
        for _ in range(_MAX_TRIES):
            order = [int(k) for k in rng.permutation(len(deck))]
            history, left = order[: len(sorts)], order[len(sorts) :]
            fits = [
                k for k in left
                if deck[k][rule] == keys[gold][rule] and (lure == -1 or deck[k][previous] == keys[lure][previous])
            ]
            if fits:
                break
        else:  # pragma: no cover - two cards fit: a history of at most 17 of the 24 cards misses one in most draws
            raise RuntimeError("wcst_inference: no next card left for the key and lure cards")
        cards = [deck[k] for k in history] + [deck[fits[int(rng.integers(len(fits)))]]]

        def key_by(card: dict[str, Any], dim: str) -> int:
            return next(k for k, key in enumerate(keys) if key[dim] == card[dim])

        lines = [
            "Card sorting. There are four key cards:",
            *(f"Card {k + 1}: {card_text(key)}" for k, key in enumerate(keys)),
            INSTRUCTIONS,
            "Sorts so far:",
            *(
                f"Sort {t + 1}: {card_text(card)} -> Card {key_by(card, dim) + 1}: {feedback}"
                for t, (card, (dim, feedback)) in enumerate(zip(cards, sorts))
            ),
            f"Next card: {card_text(cards[-1])}.",
            "Which key card does the next card go to? Answer with its number: 1, 2, 3 or 4.",
        ]
        target = cards[-1]
        assert key_by(target, rule) == gold and (lure == -1 or key_by(target, previous) == lure)
        return {
            "prompt": "\n".join(lines),
            "choices": list(CHOICES),
            "gold": gold,
            "condition": condition,
            "lure": lure,
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
            number = _WORDS.index(n) + 1 if n in _WORDS else parse_int(n)  # bounded: never a 5000-digit int
            if number is None:
                return None
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
