"""Text Stroop (Stroop, 1935; MacLeod, 1991): name the ink colour, not the word.

Item: ``The word "GREEN" is printed in blue ink. What colour is the ink?`` with the
palette's colour names as options. Conditions cycle by index:

* ``congruent``: the word names the ink colour;
* ``incongruent``: the word names another colour of the palette, which is the lure;
* ``neutral``: the word names no colour (a common noun of similar length).

Effects (accuracy versions of the reaction-time effects, MacLeod 1991):
``interference`` = acc(neutral) - acc(incongruent), ``facilitation`` =
acc(congruent) - acc(neutral), ``congruency_effect`` = acc(congruent) -
acc(incongruent), ``word_error_share`` = share of incongruent errors that name the
word. A word reader (the ``prepotent`` player) scores 1, 0, 1 and 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.paradigms.base import require_int
from lm_eval_cog.probes.aggregations import difference_side
from lm_eval_cog.probes.core import Probe, cycle

COLOURS = ("red", "blue", "green", "yellow", "purple", "orange", "brown", "pink")
#: Neutral words: concrete nouns of 3-6 letters that name no colour.
NEUTRAL_WORDS = ("TABLE", "HORSE", "CHAIR", "RIVER", "PLANT", "SHOE", "CLOCK", "BREAD", "STONE", "CUP", "WINDOW", "PENCIL")
CONDITIONS = ("congruent", "incongruent", "neutral")


@dataclass(frozen=True)
class StroopParams:
    """Attributes:
    colours: Size of the palette, 2..8 (4): the options of every item.
    """

    colours: int = 4

    def __post_init__(self) -> None:
        require_int("stroop", "colours", self.colours, 2)
        if self.colours > len(COLOURS):
            raise ValueError(f"stroop parameter 'colours' must be in 2..{len(COLOURS)}, got {self.colours}")


class Stroop(Probe):
    name = "stroop"
    ability = "inhibition"
    Params = StroopParams
    conditions = CONDITIONS
    lure_conditions = ("incongruent",)
    effects: ClassVar[dict[str, tuple[str, bool]]] = {
        "interference": ("difference", False),
        "facilitation": ("difference", True),
        "congruency_effect": ("difference", False),
        "word_error_share": ("conditional_mean", False),
    }

    def item(self, rng: np.random.Generator, params: StroopParams, index: int) -> dict[str, Any]:
        condition = cycle(CONDITIONS, index)
        palette = [COLOURS[int(k)] for k in rng.permutation(len(COLOURS))[: params.colours]]
        ink = palette[0]
        if condition == "congruent":
            word = ink.upper()
        elif condition == "incongruent":
            word = palette[1].upper()
        else:
            word = NEUTRAL_WORDS[int(rng.integers(len(NEUTRAL_WORDS)))]
        choices = [palette[int(k)] for k in rng.permutation(len(palette))]
        prompt = (
            f'The word "{word}" is printed in {ink} ink. What colour is the ink? '
            f"Options: {', '.join(choices)}."
        )
        return {
            "prompt": prompt,
            "choices": choices,
            "gold": choices.index(ink),
            "condition": condition,
            "lure": choices.index(word.lower()) if condition == "incongruent" else -1,
            "word": word,
            "ink": ink,
        }

    def effect_values(self, doc: dict[str, Any], pred: int | None) -> dict[str, Any]:
        correct = float(pred == doc["gold"])
        cond = doc["condition"]


        return {
            "interference": (difference_side(cond, "neutral", "incongruent"), correct),
            "facilitation": (difference_side(cond, "congruent", "neutral"), correct),
            "congruency_effect": (difference_side(cond, "congruent", "incongruent"), correct),
            "word_error_share": (cond == "incongruent" and not correct, float(pred == doc["lure"])),
        }


PROBE = Stroop()
