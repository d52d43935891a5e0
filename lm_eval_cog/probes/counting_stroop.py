"""Counting Stroop (Bush et al., 1998): count the words of a list, not what they say.

Item: a card of ``lists`` word lists, each one word repeated 1..``counts`` times, and a
question about one list; the options are the counts as digits (the key-press answers
of Bush et al.)::

    Word lists:
    List A: "three three"
    List B: "one one one one"
    List C: "two"
    List D: "four four four"
    How many words are in list B? Options: 2, 4, 1, 3.

Conditions cycle by index; a card is homogeneous (Bush et al. ran blocks of one kind):

* ``congruent``: every list's word is the number word of its count ("two two");
* ``incongruent``: every list's word names another count of the options ("three three"
  -> 2); the asked list's word number is the lure;
* ``neutral``: every list's word names no number (animal names of 3-5 letters, like the
  number words; Bush et al. used one semantic category for their neutral words).

Why a card: a single list of one repeated word allows only ``counts`` congruent items
(one per count); the card's other lists make each item a new stimulus. Counterbalanced
by index within each condition: the key's count (so its rank among the sorted options),
its option position, the lure's option position (offset from the key) and the asked
list's place on the card. No digit appears in the stem, so nothing there names an option.

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
import string
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.answers import parse_int
from lm_eval_cog.paradigms.base import require_int
from lm_eval_cog.probes.aggregations import difference_side
from lm_eval_cog.probes.core import Probe, cycle, normalize_answer, place_options

NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
#: Neutral words: animal names of 3-5 letters (the number words one..nine have 3-5).
NEUTRAL_WORDS = ("dog", "cat", "cow", "bird", "fish", "goat", "frog", "mouse", "horse", "sheep", "duck", "bear")
CONDITIONS = ("congruent", "incongruent", "neutral")
MAX_LISTS = 6
#: A count read from an answer: digits or a number word, optionally followed by "word(s)".
_COUNT = re.compile(r"^(\d+|[a-z]+)(?: words?)?$")


@dataclass(frozen=True)
class CountingStroopParams:
    """Attributes:
    counts: The largest count, 2..9 (4, as Bush et al.): lists have 1..counts words
        and the options are the digits 1..counts.
    lists: Lists on a card, 2..6 (4).
    """

    counts: int = 4
    lists: int = 4

    def __post_init__(self) -> None:
        require_int("counting_stroop", "counts", self.counts, 2)
        if self.counts > len(NUMBER_WORDS) - 1:
            raise ValueError(f"counting_stroop parameter 'counts' must be in 2..9, got {self.counts}")
        require_int("counting_stroop", "lists", self.lists, 2)
        if self.lists > MAX_LISTS:
            raise ValueError(f"counting_stroop parameter 'lists' must be in 2..{MAX_LISTS}, got {self.lists}")


def parse_count(answer: str) -> int | None:
    """The number an answer states (digits or a number word, optionally then "word(s)"),
    None if it states none (:func:`lm_eval_cog.answers.parse_int`: bounded digits)."""
    return parse_int(answer, units=("word", "words"))


def list_word(rng: np.random.Generator, condition: str, count: int, counts: int) -> str:
    """The word repeated in a list of ``count`` words on a ``condition`` card."""
    if condition == "congruent":
        return NUMBER_WORDS[count]
    others = [k for k in range(1, counts + 1) if k != count]
    return NUMBER_WORDS[others[int(rng.integers(len(others)))]]


def option_order(rng: np.random.Generator, counts: int, key: int, key_at: int, lure: int, lure_offset: int) -> list[str]:
    """The digits 1..counts: the key at ``key_at``, the lure (0: none) ``lure_offset`` places
    after it (cyclically), the other counts at random in the slots left."""
    digits = [str(c) for c in range(1, counts + 1)]
    return place_options(rng, digits, str(key), key_at, str(lure) if lure else None, lure_offset)


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
    version = 2.0

    def item(self, rng: np.random.Generator, params: CountingStroopParams, index: int) -> dict[str, Any]:
        c, m = params.counts, params.lists
        condition = cycle(CONDITIONS, index)
        # Counterbalanced within each condition by the digits of index // 3 (mixed radix).
        j = index // len(CONDITIONS)
        key_at = j % c
        count = 1 + (j // c) % c
        asked = (j + j // c) % m  # a Latin square over (key_at, count) when lists == counts
        lure_offset = 1 + (j // (c * c)) % (c - 1)
        lengths = [int(rng.integers(1, c + 1)) for _ in range(m)]
        lengths[asked] = count
        if condition == "neutral":
            words = [NEUTRAL_WORDS[int(k)] for k in rng.choice(len(NEUTRAL_WORDS), m, replace=False)]
        else:
            words = [list_word(rng, condition, n, c) for n in lengths]
        named = NUMBER_WORDS.index(words[asked]) if condition != "neutral" else 0  # 0: names no number
        lure = named if condition == "incongruent" else 0
        choices = option_order(rng, c, count, key_at, lure, lure_offset)
        labels = string.ascii_uppercase[:m]
        lines = ["Word lists:"]
        lines += [f'List {label}: "{" ".join([w] * n)}"' for label, w, n in zip(labels, words, lengths)]
        lines.append(f"How many words are in list {labels[asked]}? Options: {', '.join(choices)}.")
        return {
            "prompt": "\n".join(lines),
            "choices": choices,
            "gold": choices.index(str(count)),
            "condition": condition,
            "lure": choices.index(str(lure)) if lure else -1,
            "word": words[asked],
            "count": count,
            "word_number": named,
            "list": labels[asked],
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
