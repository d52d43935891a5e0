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

A list never repeats a symbol, and is never presented sorted (in either direction).

Gen form: an open answer, read as a sequence of symbols separated by spaces and/or
commas, or written contiguously ("3 8 1", "3, 8, 1", "381"); a well-formed sequence
that is no choice is wrong (-1), anything else (words, hedges, two sequences) is
invalid. MC form: the list in the three orders the conditions ask for -- as presented,
reversed, sorted -- in every condition, so the options never tell the condition: only
the instruction picks the key. The list is never monotone (the three orders differ),
its draw does not depend on the condition, and the key's position cycles by index
within each condition. Each condition fixes which order is the key (``forward``
always the list as presented), so the shortcut audit pools the three conditions
into one cell (``audit_cells``), where every order is the key in a third of the items.
The **order foil** is the list as presented for backward/sorted (the prepotent
repetition, and the lure) and the reversed list for forward (not a lure). Chance: 1/3.
Foils one edit away from the key (a transposition, a substitution, an omission) are
not offered: they would make the key the option most similar to the others.

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
from lm_eval_cog.stderr import bootstrapped

#: Symbol sets: digits, and consonants (no vowels: lists cannot be read as words).
SYMBOLS = {"digits": "0123456789", "letters": "BCDFGHJKLMNPQRSTVWXZ"}
CONDITIONS = ("forward", "backward", "sorted")
#: The options: the list in each order a condition asks for.
ORDERS = ("presented", "reversed", "sorted")
KEY_ORDER = dict(zip(CONDITIONS, ORDERS))
#: The majority of a length's items that must be right for the span to reach it (2 of 3).
SPAN_CRITERION = (2, 3)
_SEPARATORS = re.compile(r"\s*[,\-\u2013\u2014]\s*|\s+")  # one comma or dash, or blanks


@dataclass(frozen=True)
class SpanParams:
    """Attributes:
    symbols: ``digits`` or ``letters`` (consonants).
    min_length: Shortest list, >= 3 (3): 2 symbols are always in order one way or the
        other, so sorting would give the list or its reverse.
    max_length: Longest list (9), at most the number of symbols (symbols do not repeat):
        10 for digits, 20 for letters.
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
        most = len(SYMBOLS[self.symbols])
        if self.max_length > most:
            raise ValueError(
                f"span parameter 'max_length' must be <= {most} for {self.symbols} (symbols do not repeat), "
                f"got {self.max_length}"
            )


@bootstrapped
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
    version = 2.0
    # Each condition fixes the key's order: the audit pools them (each order is the key in a third).
    audit_cells: ClassVar[Mapping[str, str]] = {c: "pooled" for c in CONDITIONS}
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
        # The key's position cycles within each condition (crossed with the length unless the number
        # of lengths is a multiple of 3: both cycles then move together, each still uniform).
        position = (index // len(CONDITIONS)) % len(ORDERS)
        alphabet = SYMBOLS[params.symbols]
        while True:  # never monotone: sorted would equal the list or its reverse
            shown = [alphabet[int(k)] for k in rng.choice(len(alphabet), length, replace=False)]
            if shown not in (sorted(shown), sorted(shown, reverse=True)):
                break
        orders = {"presented": shown, "reversed": shown[::-1], "sorted": sorted(shown)}
        key = KEY_ORDER[condition]
        foils = [order for order in ORDERS if order != key]
        foils = [foils[int(k)] for k in rng.permutation(len(foils))]
        kinds = foils[:position] + [key] + foils[position:]
        order_foil = "reversed" if condition == "forward" else "presented"
        kind = "digits" if params.symbols == "digits" else "letters"
        return {
            "prompt": self._prompt(condition, shown, kind),
            "choices": [_fmt(orders[k]) for k in kinds],
            "gold": position,
            "condition": condition,
            "lure": kinds.index(order_foil) if condition != "forward" else -1,
            "length": int(length),
            "shown": _fmt(shown),
            "symbols": params.symbols,
            "option_orders": kinds,
        }

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
        """A sequence of the probe's symbols (blanks, one comma or one dash between them,
        or nothing: "7 4 6", "7, 4, 6", "7-4-6", "746"): the choice it equals, -1 if none;
        anything else is invalid (None)."""
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
