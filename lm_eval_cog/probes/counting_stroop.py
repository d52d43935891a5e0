"""Counting Stroop (Bush et al., 1998): count the words of a list, not what they say.

Item: ``How many words are in this list: "three three"? Options: 4, 2, 1, 3.``: a
list of one word repeated 1..``counts`` times; the options are the counts as digits
(the key-press answers of Bush et al.), in random order. Conditions cycle by index:

* ``congruent``: the word is the number word of the count ("two two");
* ``incongruent``: the word names another count of the options ("three three" -> 2),
  which is the lure;
* ``neutral``: the word names no number (an animal name of 3-5 letters, like the
  number words; Bush et al. used one semantic category for their neutral words).

Effects, as in the text Stroop (accuracy versions of the reaction-time effects;
MacLeod, 1991): ``interference`` = acc(neutral) - acc(incongruent), ``facilitation``
= acc(congruent) - acc(neutral), ``congruency_effect`` = acc(congruent) -
acc(incongruent), ``word_error_share`` = share of incongruent errors (invalid
replies included) that name the word's number. Positive interference means reading
the words beat counting them. A word reader (the ``prepotent`` player) scores 1, 0, 1
and 1; chance accuracy is 1/``counts``.

Reading (gen form): the count as a digit or a number word ("2", "two", "**Two.**",
"2 words"); a well-formed count outside the options ("5", "zero") is wrong (-1);
anything else (hedges, two numbers, a sentence) is invalid.

References: Bush, Whalen, Rosen, Jenike, McInerney & Rauch (1998), The counting
Stroop; Stroop (1935); MacLeod (1991).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.paradigms.base import require_int
from lm_eval_cog.probes.aggregations import difference_side
from lm_eval_cog.probes.core import Probe, cycle, normalize_answer

NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
#: Neutral words: animal names of 3-5 letters (the number words one..nine have 3-5).
NEUTRAL_WORDS = ("dog", "cat", "cow", "bird", "fish", "goat", "frog", "mouse", "horse", "sheep", "duck", "bear")
CONDITIONS = ("congruent", "incongruent", "neutral")
#: A count read from an answer: digits or a number word, optionally followed by "word(s)".
_COUNT = re.compile(r"^(\d+|[a-z]+)(?: words?)?$")


@dataclass(frozen=True)
class CountingStroopParams:
    """Attributes:
    counts: The largest count, 2..9 (4, as Bush et al.): lists have 1..counts words
        and the options are the digits 1..counts.
    """

    counts: int = 4

    def __post_init__(self) -> None:
        require_int("counting_stroop", "counts", self.counts, 2)
        if self.counts > len(NUMBER_WORDS) - 1:
            raise ValueError(f"counting_stroop parameter 'counts' must be in 2..9, got {self.counts}")


def parse_count(answer: str) -> int | None:
    """The number an answer states (digits or a number word), None if it states none."""
    match = _COUNT.match(normalize_answer(answer))
    if match is None:
        return None
    token = match.group(1)
    if token.isdigit():
        return int(token)
    return NUMBER_WORDS.index(token) if token in NUMBER_WORDS else None


class CountingStroop(Probe):
    name = "counting_stroop"
    ability = "inhibition"
    Params = CountingStroopParams
    conditions = CONDITIONS
    lure_conditions = ("incongruent",)
    effects: ClassVar[Mapping[str, tuple[str, bool]]] = {
        "interference": ("difference", False),
        "facilitation": ("difference", True),
        "congruency_effect": ("difference", False),
        "word_error_share": ("conditional_mean", False),
    }

    def item(self, rng: np.random.Generator, params: CountingStroopParams, index: int) -> dict[str, Any]:
        condition = cycle(CONDITIONS, index)
        count = int(rng.integers(1, params.counts + 1))
        named = 0  # the count the word names; 0 for a neutral word
        if condition == "congruent":
            named = count
        elif condition == "incongruent":
            others = [k for k in range(1, params.counts + 1) if k != count]
            named = others[int(rng.integers(len(others)))]
        word = NUMBER_WORDS[named] if named else NEUTRAL_WORDS[int(rng.integers(len(NEUTRAL_WORDS)))]
        choices = [str(int(k) + 1) for k in rng.permutation(params.counts)]
        listed = " ".join([word] * count)
        prompt = f'How many words are in this list: "{listed}"? Options: {", ".join(choices)}.'
        return {
            "prompt": prompt,
            "choices": choices,
            "gold": choices.index(str(count)),
            "condition": condition,
            "lure": choices.index(str(named)) if condition == "incongruent" else -1,
            "word": word,
            "count": count,
            "word_number": named,
        }

    def read(self, doc: Mapping[str, Any], answer: str) -> int | None:
        number = parse_count(answer)
        if number is None:
            return None
        return doc["choices"].index(str(number)) if str(number) in doc["choices"] else -1

    def effect_values(self, doc: Mapping[str, Any], pred: int | None) -> dict[str, Any]:
        correct = float(pred == doc["gold"])
        cond = doc["condition"]


        return {
            "interference": (difference_side(cond, "neutral", "incongruent"), correct),
            "facilitation": (difference_side(cond, "congruent", "neutral"), correct),
            "congruency_effect": (difference_side(cond, "congruent", "incongruent"), correct),
            "word_error_share": (cond == "incongruent" and not correct, float(pred == doc["lure"])),
        }


PROBE = CountingStroop()
