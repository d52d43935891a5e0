"""Digit / letter span in one prompt (Miller, 1956; WAIS digit span): repeat a list forward, backward or sorted.

Wechsler's digit span forward and backward, and the sorting demand of digit sequencing
and letter-number sequencing (WAIS-IV, Wechsler, 2008).

Item: ``Here is a list of 5 digits: 3 8 1 5 2`` then the task of the condition, and
the form of the answer (the symbols separated by spaces). Conditions cycle by index,
and the length cycles from ``min_length`` to ``max_length`` underneath, so every
(condition, length) pair has the same number of items (~14 each by default):

* ``forward``: repeat the list as presented;
* ``backward``: repeat it from the last symbol to the first;
* ``sorted``: repeat it in ascending (digits) or alphabetical (letters) order, the
  re-ordering demand of letter-number sequencing (Gold et al., 1997).

A list never repeats a symbol, and is never presented already sorted.

Gen form: an open answer, read as a sequence of symbols separated by spaces and/or
commas, or written contiguously ("3 8 1", "3, 8, 1", "381"); a well-formed sequence
that is no choice is wrong (-1), anything else (words, hedges, two sequences) is
invalid. MC form: five sequences scored by log-likelihood: the key; the **order foil**
(the list as presented for backward/sorted: the prepotent repetition, and the lure;
the reversed list for forward, not a lure); a transposition of two adjacent symbols
of the key; a substitution of one symbol by one absent from the list; an omission of
one symbol. Chance: 1/5.

Effects: ``span_forward`` / ``span_backward`` / ``span_sorted`` = the span score of the
condition: the longest length L such that at least 2/3 of the items of every length
from the shortest up to L are correct (the 2-of-3 rule with a discontinue criterion,
as in the WAIS); the shortest length minus 1 when the shortest fails; higher is
better. ``backward_cost`` = acc(forward) - acc(backward) and ``sorted_cost`` =
acc(forward) - acc(sorted): positive when re-ordering costs (lower is better).
``order_error_share`` = share of backward/sorted errors that repeat the list as
presented. The ``prepotent`` player (always repeats as presented) scores forward 1,
backward and sorted 0: costs 1, spans max_length / min_length - 1, order errors 1.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.paradigms.base import require_int, unknown_name_message
from lm_eval_cog.probes.aggregations import difference_side
from lm_eval_cog.probes.core import Probe, cycle, normalize_answer

#: Symbol sets: digits, and consonants (no vowels: lists cannot be read as words).
SYMBOLS = {"digits": "0123456789", "letters": "BCDFGHJKLMNPQRSTVWXZ"}
CONDITIONS = ("forward", "backward", "sorted")
#: The majority of a length's items that must be right for the span to reach it (2 of 3).
SPAN_CRITERION = (2, 3)
_SEPARATORS = re.compile(r"\s*,\s*|\s+")  # one comma, or blanks


@dataclass(frozen=True)
class SpanParams:
    """Attributes:
    symbols: ``digits`` or ``letters`` (consonants).
    min_length: Shortest list, >= 3 (3): with 2 symbols the one adjacent transposition
        of the key is the order foil.
    max_length: Longest list (9), at most the number of symbols minus 1 (a free symbol
        for the substitution foil): 9 for digits, 19 for letters.
    """

    symbols: str = "digits"
    min_length: int = 3
    max_length: int = 9

    def __post_init__(self) -> None:
        if self.symbols not in SYMBOLS:
            raise ValueError(unknown_name_message("span parameter 'symbols' value", self.symbols, SYMBOLS))
        require_int("span", "min_length", self.min_length, 3)
        require_int("span", "max_length", self.max_length, 3)
        if self.min_length > self.max_length:
            raise ValueError(
                f"span parameter 'min_length' must be <= max_length ({self.max_length}), got {self.min_length}"
            )
        most = len(SYMBOLS[self.symbols]) - 1
        if self.max_length > most:
            raise ValueError(
                f"span parameter 'max_length' must be <= {most} for {self.symbols} (symbols do not repeat and "
                f"one must stay free for the substitution foil), got {self.max_length}"
            )


def span_score(items: Sequence[tuple[bool, int, float]]) -> float:
    """Span of the included items ``(included, length, correct)``: the longest length L
    such that every length from the shortest present up to L has >= 2/3 of its items
    correct; the shortest length - 1 if it fails; NaN without items.

    E.g. lengths 3: 3/3, 4: 2/3, 5: 1/3, 6: 3/3 -> 4 (5 fails, so 6 does not count).
    """
    by_length: dict[int, list[float]] = {}
    for included, length, correct in items:
        if included:
            by_length.setdefault(int(length), []).append(float(correct))
    if not by_length:
        return math.nan
    need, out_of = SPAN_CRITERION
    lengths = sorted(by_length)
    span = lengths[0] - 1
    for length in lengths:
        scores = by_length[length]
        if sum(scores) * out_of < need * len(scores):
            break
        span = length
    return float(span)


def _fmt(seq: Sequence[str]) -> str:
    return " ".join(seq)


class Span(Probe):
    name = "span"
    ability = "working_memory"
    Params = SpanParams
    conditions = CONDITIONS
    lure_conditions = ("backward", "sorted")
    effects: ClassVar[Mapping[str, tuple[str, bool]]] = {
        **{f"span_{c}": ("lm_eval_cog.probes.span.span_score", True) for c in CONDITIONS},
        "backward_cost": ("difference", False),
        "sorted_cost": ("difference", False),
        "order_error_share": ("conditional_mean", False),
    }

    def item(self, rng: np.random.Generator, params: SpanParams, index: int) -> dict[str, Any]:
        condition = cycle(CONDITIONS, index)
        lengths = range(params.min_length, params.max_length + 1)
        length = lengths[(index // len(CONDITIONS)) % len(lengths)]
        alphabet = SYMBOLS[params.symbols]
        while True:  # never present a sorted list: sorted would equal forward
            shown = [alphabet[int(k)] for k in rng.choice(len(alphabet), length, replace=False)]
            if shown != sorted(shown):
                break
        key = {"forward": shown, "backward": shown[::-1], "sorted": sorted(shown)}[condition]
        order_foil = shown[::-1] if condition == "forward" else shown
        sequences = [key, order_foil, *self._foils(rng, key, order_foil, alphabet, shown)]
        order = [int(k) for k in rng.permutation(len(sequences))]
        choices = [_fmt(sequences[k]) for k in order]
        kind = "digits" if params.symbols == "digits" else "letters"
        return {
            "prompt": self._prompt(condition, shown, kind),
            "choices": choices,
            "gold": order.index(0),
            "condition": condition,
            "lure": order.index(1) if condition != "forward" else -1,
            "length": int(length),
            "shown": _fmt(shown),
            "symbols": params.symbols,
        }

    @staticmethod
    def _foils(
        rng: np.random.Generator, key: list[str], order_foil: list[str], alphabet: str, shown: list[str]
    ) -> list[list[str]]:
        """Transposition of two adjacent symbols (not the order foil), substitution, omission."""
        swaps = []
        for j in range(len(key) - 1):
            swapped = [*key[:j], key[j + 1], key[j], *key[j + 2:]]
            if swapped != order_foil:
                swaps.append(swapped)
        transposition = swaps[int(rng.integers(len(swaps)))]
        free = [c for c in alphabet if c not in shown]
        at = int(rng.integers(len(key)))
        substitution = [*key[:at], free[int(rng.integers(len(free)))], *key[at + 1:]]
        cut = int(rng.integers(len(key)))
        omission = key[:cut] + key[cut + 1:]
        return [transposition, substitution, omission]

    @staticmethod
    def _prompt(condition: str, shown: list[str], kind: str) -> str:
        one = kind[:-1]
        task = {
            "forward": f"Repeat the {kind} in the same order.",
            "backward": f"Repeat the {kind} in reverse order, from the last {one} to the first.",
            "sorted": (
                "Repeat the digits in ascending order, from the smallest to the largest."
                if kind == "digits"
                else "Repeat the letters in alphabetical order."
            ),
        }[condition]
        return (
            f"Here is a list of {len(shown)} {kind}: {_fmt(shown)}\n"
            f"{task} Write only the {kind}, separated by spaces."
        )

    def read(self, doc: dict[str, Any], answer: str) -> int | None:
        """A sequence of the probe's symbols (spaces/commas between them, or none): the
        choice it equals, -1 if none; anything else is invalid (None)."""
        text = normalize_answer(answer).upper()
        alphabet = SYMBOLS[doc["symbols"]]
        if not text or any(not part for part in _SEPARATORS.split(text)):
            return None
        symbols = _SEPARATORS.sub("", text)
        if any(c not in alphabet for c in symbols):
            return None
        for k, choice in enumerate(doc["choices"]):
            if choice.replace(" ", "") == symbols:
                return k
        return -1

    def effect_values(self, doc: dict[str, Any], pred: int | None) -> dict[str, Any]:
        correct = float(pred == doc["gold"])
        cond = doc["condition"]


        return {
            **{f"span_{c}": (cond == c, doc["length"], correct) for c in CONDITIONS},
            "backward_cost": (difference_side(cond, "forward", "backward"), correct),
            "sorted_cost": (difference_side(cond, "forward", "sorted"), correct),
            "order_error_share": (cond != "forward" and not correct, float(pred is not None and pred == doc["lure"])),
        }


PROBE = Span()
