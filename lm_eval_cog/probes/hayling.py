"""Hayling sentence completion (Burgess & Shallice, 1996): complete, then anti-complete.

Item: a high-cloze sentence whose last word is a blank, and three single-word options
(shuffled): the *prepotent* ending ("He mailed the letter without a ___." -> stamp), a
*related* word connected to the sentence that is still no sensible ending (postman),
and an *unrelated* word drawn from domains the sentence does not touch (turnip).
Conditions cycle by index:

* ``initiation`` (Hayling part A): "Complete the sentence with the word that fits
  best" -> the prepotent ending; no lure;
* ``suppression`` (Hayling part B): "Complete the sentence with a word that does NOT
  fit ... unconnected to it in every way" -> the unrelated word; the prepotent ending
  is the lure, the related word a connected (category-B) error.

Effects: ``suppression_cost`` = acc(initiation) - acc(suppression) (positive: the
sentence's own ending is hard to hold back); ``prepotent_error_share`` = share of
suppression errors that choose the prepotent ending (the Hayling B category-A error;
an invalid reply counts as an error that names nothing). Someone who always completes
the sentence (the ``prepotent`` player) scores 1 and 1; chance is 1/3 (1/2 without
the related foil). The frames are our own (``_hayling_bank``), modelled on the
Hayling items and cloze norms, not the published test's sentences.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.probes._hayling_bank import FRAMES, UNRELATED, Frame
from lm_eval_cog.probes.aggregations import SIDE_A, SIDE_B
from lm_eval_cog.probes.core import Probe, cycle

CONDITIONS = ("initiation", "suppression")
INSTRUCTIONS = {
    "initiation": "Complete the sentence with the word that fits best.",
    "suppression": (
        "Complete the sentence with a word that does NOT fit: the word must make no sense in the "
        "sentence and be unconnected to it in every way."
    ),
}


@dataclass(frozen=True)
class HaylingParams:
    """Attributes:
    related_foil: Offer the related word as a third option (True); False leaves the
        prepotent and the unrelated word alone (chance 1/2).
    """

    related_foil: bool = True

    def __post_init__(self) -> None:
        # A ValueError like every other parameter's (1 and "yes" are not switches).
        if type(self.related_foil) is not bool:
            raise ValueError(f"hayling parameter 'related_foil' must be a bool, got {self.related_foil!r}")


def unrelated_words(frame: Frame) -> list[str]:
    """The words that may answer Hayling B for ``frame``: every domain it does not avoid."""
    return [word for domain, words in UNRELATED.items() if domain not in frame.avoid for word in words]


class Hayling(Probe):
    name = "hayling"
    ability = "inhibition"
    Params = HaylingParams
    conditions = CONDITIONS
    lure_conditions = ("suppression",)
    effects: ClassVar[dict[str, tuple[str, bool]]] = {
        "suppression_cost": ("difference", False),
        "prepotent_error_share": ("conditional_mean", False),
    }

    def item(self, rng: np.random.Generator, params: HaylingParams, index: int) -> dict[str, Any]:
        condition = cycle(CONDITIONS, index)
        frame = FRAMES[int(rng.integers(len(FRAMES)))]
        pool = unrelated_words(frame)
        unrelated = pool[int(rng.integers(len(pool)))]
        words = [frame.prepotent, unrelated] + ([frame.related] if params.related_foil else [])
        choices = [words[int(k)] for k in rng.permutation(len(words))]
        prompt = f'{INSTRUCTIONS[condition]}\nSentence: "{frame.text}"\nOptions: {", ".join(choices)}.'
        gold = frame.prepotent if condition == "initiation" else unrelated
        return {
            "prompt": prompt,
            "choices": choices,
            "gold": choices.index(gold),
            "condition": condition,
            "lure": choices.index(frame.prepotent) if condition == "suppression" else -1,
            "frame": frame.text,
            "prepotent": frame.prepotent,
            "related": frame.related if params.related_foil else "",
            "unrelated": unrelated,
        }

    def effect_values(self, doc: dict[str, Any], pred: int | None) -> dict[str, Any]:
        correct = float(pred == doc["gold"])
        side = SIDE_A if doc["condition"] == "initiation" else SIDE_B
        suppression_error = doc["condition"] == "suppression" and not correct
        return {
            "suppression_cost": (side, correct),
            "prepotent_error_share": (suppression_error, float(pred == doc["lure"])),
        }


PROBE = Hayling()
