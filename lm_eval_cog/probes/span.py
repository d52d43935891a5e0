"""Digit / letter span in one prompt (Miller, 1956; WAIS digit span): repeat a list forward, backward or sorted.

Wechsler's digit span forward and backward, and the sorting demand of digit sequencing
and letter-number sequencing (WAIS-IV, Wechsler, 2008).

Item: ``Here is a list of 5 digits: 3, 8, 1, 5, 2`` then the task of the condition, and
the form of the answer. Conditions cycle by index, and the length cycles from ``min_length``
to ``max_length`` underneath, so every (condition, length) pair has the same number of
items (~14 each by default; sorted lists are clamped to their own range, below):

* ``forward``: repeat the list as presented (the symbols separated by spaces);
* ``backward``: repeat it from the last symbol to the first;
* ``sorted`` (version 3.1): put it in ascending (digits) or alphabetical (letters) order and
  give the one symbol then at a stated place k, written as a word ("Which digit is then in
  the third position?"), the re-ordering demand of letter-number sequencing (Gold et al.,
  1997) asked as an order statistic: the k-th smallest symbol of the held list. k is an
  inner place (3 .. length - 2) and a sorted list holds 5 .. (number of symbols - 2)
  symbols: the cycled length clamped to that range (5-8 for digits, so lengths 3-5 give 5
  and 8-9 give 8 by default).

A list never repeats a symbol. The list is shown with commas, the answers written with spaces.

Gen form: an open answer, read as a sequence of symbols separated by spaces and/or
commas, or written contiguously ("3 8 1", "3, 8, 1", "381"); a well-formed sequence
that is no choice is wrong (-1), anything else (words, hedges, two sequences) is
invalid. A sorted item asks one symbol: a single symbol that is no option is wrong (-1),
more than one symbol is invalid.

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
the key's mirror image (~20%): ruling it out gains ~0.03. Sorted (version 3.1; on version 3.0 the
options were three orders of the list and the key the only ascending one, so "pick the ascending
option" answered every sorted item without reading the list): the three options are symbols of
the list, and the item is built around them (:func:`_sorted_options`): k drawn among the inner
places, the option symbols drawn among those that can be the smallest, middle or largest of the
three at that k, the key the one of value rank cycled by index (so neither k nor the options'
values tell it: "pick the option whose rank among the options matches k / length" is at chance;
with k free to be 1 or the length, the k-th smallest would be the smallest or largest option, and
that rule scored 0.82), the list filled around the key, and the options' order of mention in
the list a random permutation. In 20% of the sorted items (:data:`COPY_SHARE`) one foil is the
**copy**: the symbol at place k of the list as shown, the order error of reporting in presented
order; ruling it out (always offered, it would give 1/2) gains ~0.03. The key's position is drawn
per item (version 3.2; it cycled by index with the length and the option set's kind until then);
the shortcut audit takes each condition as its own cell.
Chance: 1/3. The **order foil** (``lure``) is the list as presented (backward where offered), or
the copy symbol (sorted, where offered); forward has none.
Declared heuristics (:attr:`Span.heuristics`): ``repetition`` (backward) and ``copy_position``
(sorted), at or below chance.

Effects: ``span_forward`` / ``span_backward`` / ``span_sorted`` = the span score of the
condition: the longest length L such that at least 2/3 of the items of every length
from the shortest up to L are correct (the 2-of-3 rule with a discontinue criterion,
as in the WAIS); the shortest length minus 1 when the shortest fails; higher is
better. ``backward_cost`` = acc(forward) - acc(backward) and ``sorted_cost`` =
acc(forward) - acc(sorted): positive when re-ordering costs (lower is better).
``order_error_share`` = share of backward/sorted errors that repeat the list as
presented (sorted: answer the symbol at place k of the list as shown), over the items that offer
it. The ``prepotent`` player (gives the order foil where it is offered, else the key) scores
forward 1, backward ~0.8 and sorted ~0.8 (the copy is offered in ~20% of the backward and ~20% of
the sorted items): backward_cost ~0.2, sorted_cost ~0.2, order errors 1.
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
from lm_eval_cog.probes.core import Probe, cycle, key_place, normalize_answer
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
#: Share of the sorted items that offer the copy (the symbol at the asked place of the list as shown):
#: ruling it out (a reading of the list, not a sort) then gains a fifth of (1/2 - 1/3), ~0.03, as the
#: copy in the backward condition.
COPY_SHARE = 0.2
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


def sorted_length(length: int, symbols: str) -> int:
    """The length of a sorted item's list: the cycled length kept within 5 .. (number of symbols - 2)
    (:func:`_sorted_options` needs two list symbols on each side of the asked place, and two symbols
    of the alphabet left out of the list: see there)."""
    return min(max(length, 5), len(SYMBOLS[symbols]) - 2)


def _sorted_options(rng: np.random.Generator, alphabet: str, length: int, rank: int) -> tuple[list[str], int, str, list[str]]:
    """(list as shown, k, key, foils) of a sorted item, built around its options so that nothing the
    options and the question show (k, the length, the option symbols, their value ranks and their order
    of mention in the list) tells the key without sorting the list:

    1. k, the asked place of the ascending order, is drawn from the inner places 3 .. length - 2, so that
       the key (the k-th smallest) can be the smallest, the middle or the largest option at every k;
    2. three option symbols are drawn among those that can take any of the three roles at that k
       (alphabet indices k - 1 .. len(alphabet) - 1 - (length - k)), and the key is the one of value rank
       ``rank`` among them (cycled by the caller): the key's value rank and symbol are independent of k;
    3. the list is the options plus fillers, k - 1 - rank of them below the key and the rest above;
    4. places: the copy foil (offered in :data:`COPY_SHARE` of the items: the order error, Thomas, Milner
       & Haberlandt 2003) is put at place k of the list as shown; the key and the third option at random
       places on either side, so that the options' order of mention is a random permutation, independent
       of their roles (the copy first, middle or last of the three at random); the key is never at place k.
    """
    k = int(rng.integers(3, length - 1))
    low, high = k - 1, len(alphabet) - 1 - (length - k)
    triple = sorted(int(j) for j in rng.choice(np.arange(low, high + 1), N_OPTIONS, replace=False))
    key = triple[rank]
    others = [j for j in triple if j != key]
    others = [others[int(j)] for j in rng.permutation(2)]
    below = [j for j in range(key) if j not in triple]
    above = [j for j in range(key + 1, len(alphabet)) if j not in triple]
    n_below = k - 1 - rank
    fillers = [below[int(j)] for j in rng.choice(len(below), n_below, replace=False)]
    fillers += [above[int(j)] for j in rng.choice(len(above), length - N_OPTIONS - n_below, replace=False)]
    shown: list[int | None] = [None] * length
    before, after = list(range(k - 1)), list(range(k, length))
    with_copy = bool(rng.random() < COPY_SHARE)
    if with_copy:
        shown[k - 1] = others[0]
        # The copy's order of mention among the three (first, middle, last) at random: the key and the third
        # option both after place k, one on each side, or both before it.
        mention = int(rng.integers(N_OPTIONS))
        sides = [after, after] if mention == 0 else [before, before] if mention == 2 else [before, after]
        sides = [sides[int(j)] for j in rng.permutation(2)]
        for symbol, side in zip((key, others[1]), sides):
            spot = side.pop(int(rng.integers(len(side))))
            shown[spot] = symbol
        rest = [j for j in range(length) if shown[j] is None]
        placed = [fillers[int(j)] for j in rng.permutation(len(fillers))]
    else:
        # No option at place k (a filler holds it): the copy is no option.
        rest = [j for j in range(length) if j != k - 1]
        rest = [rest[int(j)] for j in rng.permutation(len(rest))]
        filler_at_k = fillers.pop(int(rng.integers(len(fillers))))
        shown[k - 1] = filler_at_k
        for symbol in (key, *others):
            shown[rest.pop()] = symbol
        placed = [fillers[int(j)] for j in rng.permutation(len(fillers))]
    for spot, symbol in zip((j for j in range(length) if shown[j] is None), placed):
        shown[spot] = symbol
    return [alphabet[j] for j in shown], k, alphabet[key], [alphabet[j] for j in others]


#: Ordinal words: the place asked in a sorted item is written as a word, so that no digit of the stem
#: can be read as an option.
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
            "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth",
            "eighteenth", "nineteenth", "twentieth")
_PLACE = re.compile(r"in the (\w+) position\?")


def copy_position_scores(stem: str, options: Sequence[str]) -> list[float] | None:
    """The order error of a sorted item (Thomas, Milner & Haberlandt 2003: the list reported in presented
    order): the symbol at the asked place k of the list *as shown* instead of the sorted list; None
    where the stem asks no place or that symbol is no option."""
    found, place = _LIST.search(stem), _PLACE.search(stem)
    if found is None or place is None or place.group(1) not in ORDINALS:
        return None
    shown = [part.strip() for part in found.group(1).split(",")]
    k = ORDINALS.index(place.group(1))
    if k >= len(shown):
        return None
    scores = [float(o.strip() == shown[k]) for o in options]
    return scores if any(scores) else None


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
    version = 3.2
    heuristics = (
        Heuristic("repetition", "Thomas, Milner & Haberlandt 2003 (the list repeated in presented order)",
                  repetition_scores, ("backward",)),
        Heuristic("copy_position", "Thomas, Milner & Haberlandt 2003 (the asked place read off the list as presented)",
                  copy_position_scores, ("sorted",)),
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
        place = 0  # the asked place k of a sorted item (1-based); 0 in the other conditions
        if condition == "sorted":
            # The key's value rank among the three options cycles within the condition (crossed with its
            # position in the options: 9 items per cycle).
            rank = (index // (len(CONDITIONS) * N_OPTIONS)) % N_OPTIONS
            length = sorted_length(length, params.symbols)
            shown, place, key_symbol, foil_symbols = _sorted_options(rng, SYMBOLS[params.symbols], length, rank)
            key, foils = [key_symbol], [[f] for f in (foil_symbols[int(k)] for k in rng.permutation(2))]
        else:
            # The set first, the key one of its orders at random, the list derived from the key: the
            # set's make-up is the same whichever order is the key.
            symbols = [SYMBOLS[params.symbols][int(k)] for k in rng.choice(len(SYMBOLS[params.symbols]), length, replace=False)]
            kind, role = set_design(index)
            options = option_set(rng, symbols, kind)
            key = options.pop(int(rng.integers(N_OPTIONS)) if role is None else role)
            foils = [options[int(k)] for k in rng.permutation(len(options))]
            shown = key if condition == "forward" else key[::-1]
        kind = "digits" if params.symbols == "digits" else "letters"
        prompt = self._prompt(condition, shown, kind, place)
        # Cycled by index with the length, the set's kind and the key's order in it (version 3.1),
        # it could be read off those (a surface detector trained on four seeds read 0.42 on forward
        # items, chance 1/3).
        position = key_place(prompt, N_OPTIONS)
        choices = [_fmt(o) for o in foils[:position] + [key] + foils[position:]]
        copy = shown[place - 1] if condition == "sorted" else _fmt(shown)
        return {
            "prompt": prompt,
            "choices": choices,
            "gold": position,
            "condition": condition,
            "lure": choices.index(copy) if condition != "forward" and copy in choices else -1,
            "length": int(length),
            "place": int(place),
            "shown": _fmt(shown),
            "symbols": params.symbols,
        }

    def identity(self, doc: Mapping[str, Any]) -> Any:
        """The prompt: no two items of a task ask the same list in the same condition."""
        return doc["prompt"]

    @staticmethod
    def _prompt(condition: str, shown: list[str], kind: str, place: int = 0) -> str:
        one = kind[:-1]
        if condition == "sorted":
            order = "ascending order, from the smallest to the largest" if kind == "digits" else "alphabetical order"
            return (
                f"Here is a list of {len(shown)} {kind}: {', '.join(shown)}\n"
                f"Put the {kind} in {order}. Which {one} is then in the {ORDINALS[place - 1]} position? "
                f"Write only the {one}."
            )
        task = {
            "forward": f"Repeat the {kind} in the same order.",
            "backward": f"Repeat the {kind} in reverse order, from the last {one} to the first.",
        }[condition]
        return (
            f"Here is a list of {len(shown)} {kind}: {', '.join(shown)}\n"
            f"{task} Write only the {kind}, separated by spaces."
        )

    def read(self, doc: dict[str, Any], answer: str) -> int | None:
        """A sequence of the probe's symbols (blanks, one comma or one dash between them,
        or nothing: "7 4 6", "7, 4, 6", "7-4-6", "746"): the choice it equals, -1 if none;
        anything else is invalid (None). A sorted item asks one symbol: a longer sequence is invalid."""
        text = normalize_answer(answer).upper()
        alphabet = SYMBOLS[doc["symbols"]]
        if not text or any(not part for part in _SEPARATORS.split(text)):
            return None
        symbols = _SEPARATORS.sub("", text)
        if any(c not in alphabet for c in symbols) or (doc.get("condition") == "sorted" and len(symbols) != 1):
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
