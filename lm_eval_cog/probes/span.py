"""Digit / letter span in one prompt (Miller, 1956; WAIS digit span): repeat a list forward, backward or sorted.

Wechsler's digit span forward and backward, and the sorting demand of digit sequencing
and letter-number sequencing (WAIS-IV, Wechsler, 2008).

Item: ``Here is a list of 5 digits: 3, 8, 1, 5, 2`` then the task of the condition, and
the form of the answer (the symbols separated by spaces). Conditions cycle by index,
and the length cycles from ``min_length`` to ``max_length`` underneath, so every
(condition, length) pair has the same number of items (~14 each by default):

* ``forward``: repeat the list as presented;
* ``backward``: repeat it from the last symbol to the first;
* ``sorted``: repeat it in ascending (digits) or alphabetical (letters) order, the
  re-ordering demand of letter-number sequencing (Gold et al., 1997).

A list never repeats a symbol; a sorted-condition list is never monotone (its copy and its
descending order must differ from the key).

The list is shown with commas, the answers written with spaces.

Gen form: an open answer, read as a sequence of symbols separated by spaces and/or
commas, or written contiguously ("3 8 1", "3, 8, 1", "381"); a well-formed sequence
that is no choice is wrong (-1), anything else (words, hedges, two sequences) is
invalid.

MC form (version 3; issue 28: on version 2 the options were always the list as presented,
reversed and sorted, so "rule out the copy and the ascending order" answered every backward
item): three options, all orders of the list's own symbols (no item errors, so the symbols an
option holds never tell the key). Forward and backward: the three options are drawn *first*,
as a set whose make-up does not depend on which of them is the key -- a chain of two adjacent
transpositions, two adjacent transpositions of one order, an order with its mirror image and a
transposition, or the ascending order with its mirror image and a transposition
(:data:`SET_CYCLE`) -- then the key is one of them (in turn in a mirror set, else at random:
:func:`set_design`) and the list is derived from it
(the key itself forward, its reverse backward). So no rule over the option texts alone (which
one is sorted, central, mirrored, ...) finds the key more often than chance, in each condition;
relative to the key the foils are plausible recall errors (a transposition of two neighbours,
the copy, the wrong direction). The copy is a backward foil only in the items whose set holds
the key's mirror image (~20%): ruling it out gains ~0.03. Sorted: the key is the ascending order;
the foils are the list as presented (the prepotent repetition: the lure) and one of the
descending order, the ascending order with two neighbours transposed, the copy with two
neighbours transposed. Among orders of the same symbols exactly one is ascending, so in this
condition the key is always the option that is ascending (value rank 0): an MC item cannot hide
it, since foils that are ascending too must change the symbols, which the stem tells apart
(recognising the ascending arrangement of the list is the sorting criterion; the gen form asks
for it). The key's position cycles by index within each condition; the shortcut audit takes each
condition as its own cell. Chance: 1/3. The **order foil** (``lure``) is the list as presented
(backward where offered; sorted always); forward has none.
Declared heuristics (:attr:`Span.heuristics`): ``repetition``, at or below chance.

Effects: ``span_forward`` / ``span_backward`` / ``span_sorted`` = the span score of the
condition: the longest length L such that at least 2/3 of the items of every length
from the shortest up to L are correct (the 2-of-3 rule with a discontinue criterion,
as in the WAIS); the shortest length minus 1 when the shortest fails; higher is
better. ``backward_cost`` = acc(forward) - acc(backward) and ``sorted_cost`` =
acc(forward) - acc(sorted): positive when re-ordering costs (lower is better).
``order_error_share`` = share of backward/sorted errors that repeat the list as
presented, over the items that offer it. The ``prepotent`` player (repeats as presented where the
copy is offered) scores forward 1, sorted 0 and backward ~0.8 (the copy is offered in ~20% of the
backward items): sorted_cost 1, backward_cost ~0.2, spans max_length / ... / min_length - 1, order
errors 1.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.paradigms.base import require_int, unknown_name_message
from lm_eval_cog.paradigms.probe_base import Heuristic
from lm_eval_cog.probes.aggregations import difference_side
from lm_eval_cog.probes.core import Probe, cycle, normalize_answer
from lm_eval_cog.stderr import bootstrapped

#: Symbol sets: digits, and consonants (no vowels: lists cannot be read as words).
SYMBOLS = {"digits": "0123456789", "letters": "BCDFGHJKLMNPQRSTVWXZ"}
CONDITIONS = ("forward", "backward", "sorted")
#: Options per item: the key and two foils.
N_OPTIONS = 3
#: The kinds of forward/backward option sets (:func:`option_set`), cycled within each condition: 7
#: chains, 7 stars, 4 mirror sets and 2 with the ascending order and its mirror in 20 items, so a
#: mirror pair in 30% of the sets, and the copy a backward foil in 2/3 of those (20% of the items).
SET_CYCLE = ("mirror", "chain", "star", "chain", "star", "sorted_mirror", "chain", "star", "mirror", "chain",
             "star", "chain", "star", "mirror", "chain", "star", "sorted_mirror", "chain", "star", "mirror")
#: Weights of a sorted item's second foil: the descending order, the key with two neighbours
#: transposed (the most similar to the key), the copy with two neighbours transposed (the most
#: similar to the copy): weighed so that the key is the most and the least typical option a third
#: of the time each (measured: 0.32 / 0.34 on 3,000 draws).
SORTED_FOILS = (0.4, 0.45, 0.15)
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


def _swap(seq: Sequence[str], i: int) -> list[str]:
    """``seq`` with its elements ``i`` and ``i + 1`` transposed."""
    out = list(seq)
    out[i], out[i + 1] = out[i + 1], out[i]
    return out


def swap_spots(length: int) -> list[int]:
    """Where two neighbours may be transposed (``i``: elements i and i + 1): inside the list, the two
    ends kept, from 5 symbols on (transpositions concentrate mid-list, as the serial position curve
    has it; and a foil that keeps the key's ends is not ruled out by its first and last symbols)."""
    inner = list(range(1, length - 2))
    return inner if len(inner) >= 2 else list(range(length - 1))


def option_set(rng: np.random.Generator, symbols: Sequence[str], kind: str) -> list[list[str]]:
    """Three distinct orders of ``symbols`` (>= 3), drawn without reference to a key: a base order P
    (random) and, by ``kind``: ``chain`` P, P with neighbours i, i+1 transposed, that order with j, j+1
    transposed (j != i); ``star`` P and two single transpositions of it; ``mirror`` P, its reverse and
    a transposition of one of them; ``sorted_mirror`` the same with P ascending."""
    while True:
        base = sorted(symbols) if kind == "sorted_mirror" else [symbols[int(k)] for k in rng.permutation(len(symbols))]
        spots = swap_spots(len(symbols))
        i, j = (spots[int(k)] for k in rng.choice(len(spots), 2, replace=False))
        if kind == "chain":
            out = [base, _swap(base, i), _swap(_swap(base, i), j)]
        elif kind == "star":
            out = [base, _swap(base, i), _swap(base, j)]
        else:
            mirrored = base[::-1]
            out = [base, mirrored, _swap(base if rng.integers(2) else mirrored, i)]
        if len({tuple(o) for o in out}) == N_OPTIONS:
            return out


def set_design(index: int) -> tuple[str, int | None]:
    """(kind of option set, which of its orders is the key) of a forward/backward item: the kind cycles
    through :data:`SET_CYCLE` within each condition; in a mirror set the key is the base order, its
    mirror image and the transposed order in turn (each a third of the time: the copy is a backward foil
    in two of three); elsewhere (None) the key is drawn at random."""
    j = index // len(CONDITIONS)
    slot = j % len(SET_CYCLE)
    kind = SET_CYCLE[slot]
    if kind in ("chain", "star"):
        return kind, None
    rank = sum(k not in ("chain", "star") for k in SET_CYCLE[:slot])
    return kind, (rank + j // len(SET_CYCLE)) % N_OPTIONS


def _sorted_options(rng: np.random.Generator, symbols: Sequence[str]) -> tuple[list[str], list[str], list[list[str]]]:
    """(list, key, foils) of a sorted item: the key ascending; the foils the list as presented and one
    of the descending order, the key with two neighbours transposed, the copy with two neighbours
    transposed (:data:`SORTED_FOILS`)."""
    key = sorted(symbols)
    while True:
        shown = [symbols[int(k)] for k in rng.permutation(len(symbols))]
        if shown in (key, key[::-1]):
            continue
        spots = swap_spots(len(symbols))
        i = spots[int(rng.integers(len(spots)))]
        other = [key[::-1], _swap(key, i), _swap(shown, i)][int(rng.choice(3, p=SORTED_FOILS))]
        if len({tuple(key), tuple(shown), tuple(other)}) == N_OPTIONS:
            foils = [shown, other]
            return shown, key, [foils[int(k)] for k in rng.permutation(2)]


_LIST = re.compile(r"^Here is a list of \d+ \w+: ([^\n]+)$", re.MULTILINE)


def repetition_scores(stem: str, options: Sequence[str]) -> list[float] | None:
    """Repetition in presented order (Thomas, Milner & Haberlandt 2003: backward recall runs forward
    through the list, so the presented order is the prepotent report): the option that is the list as
    shown; None where no option is."""
    found = _LIST.search(stem)
    if found is None:
        return None
    copy = " ".join(part.strip() for part in found.group(1).split(","))
    scores = [float(" ".join(o.split()) == copy) for o in options]
    return scores if any(scores) else None


class Span(Probe):
    name = "span"
    ability = "working_memory"
    Params = SpanParams
    conditions = CONDITIONS
    lure_conditions = ("backward", "sorted")
    version = 3.0
    heuristics = (
        Heuristic("repetition", "Thomas, Milner & Haberlandt 2003 (the list repeated in presented order)",
                  repetition_scores, ("backward", "sorted")),
    )
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
        position = (index // len(CONDITIONS)) % N_OPTIONS
        symbols = [SYMBOLS[params.symbols][int(k)] for k in rng.choice(len(SYMBOLS[params.symbols]), length, replace=False)]
        if condition == "sorted":
            shown, key, foils = _sorted_options(rng, symbols)
        else:
            # The set first, the key one of its orders at random, the list derived from the key: the
            # set's make-up is the same whichever order is the key.
            kind, role = set_design(index)
            options = option_set(rng, symbols, kind)
            key = options.pop(int(rng.integers(N_OPTIONS)) if role is None else role)
            foils = [options[int(k)] for k in rng.permutation(len(options))]
            shown = key if condition == "forward" else key[::-1]
        choices = [_fmt(o) for o in foils[:position] + [key] + foils[position:]]
        copy = _fmt(shown)
        kind = "digits" if params.symbols == "digits" else "letters"
        return {
            "prompt": self._prompt(condition, shown, kind),
            "choices": choices,
            "gold": position,
            "condition": condition,
            "lure": choices.index(copy) if condition != "forward" and copy in choices else -1,
            "length": int(length),
            "shown": copy,
            "symbols": params.symbols,
        }

    def identity(self, doc: Mapping[str, Any]) -> Any:
        """The prompt: no two items of a task ask the same list in the same condition."""
        return doc["prompt"]

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
            f"Here is a list of {len(shown)} {kind}: {', '.join(shown)}\n"
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
            "order_error_share": (cond != "forward" and not correct and doc["lure"] != -1, float(pred is not None and pred == doc["lure"])),
        }


PROBE = Span()
