"""Keep-track (Yntema, 1963; Miyake et al., 2000): the last word of one category in a mixed word list.

A list interleaves words from several categories; the question asks for the most
recent word of one of them, so the memory of each category must be updated.

Item: the categories in play are named, then a list of ``list_length`` (15, as
Miyake et al.'s lists) words drawn from them, then ``What was the last fruit in the
list?``. The load condition is the number of categories interleaved in the list,
cycled by index: ``load2`` .. ``load5`` (of the bank's six). Words are split as evenly
as the length allows (load 2: 8 + 7; load 5: 3 each), so every category has at least
two words. Lists hold each word once; no two items of a task show the same list.

Options (MC, by log-likelihood; gen: an open one-word answer): the key (the asked
category's last word) and three other words of the list. How many of them follow the key
in the list cycles 0..3 within each load (``later_options``), so that the key is the most
recent option, the second, third or least recent equally often: "the r-th most recent
(or first) word named" is right 1/4 of the time at every load and cannot confound the
load effect. The options before the key are the asked category's overwritten words,
latest first (the **lure** is its previous word, the answer of a memory that failed to
update: Yntema's updating failure), then words of other kinds where the category has too
few; the options after it are words of other kinds (recency / category-confusion
errors). With three options after the key there is no room for an overwritten word:
those items have no lure (``lure`` -1). The key's position among the choices cycles.
Version 3 (issue 28): the four places of the options in the list are drawn before the key
is chosen among them, and the list is labelled around the key (:func:`_draw`), so where an
option stands (how far from the end; the list's final word, now the key in a quarter of
the items where it is an option) tells nothing of the key; a serial-position classifier
trained on other seeds is at chance. Declared heuristics (:attr:`KeepTrack.heuristics`):
``recency`` and ``primacy``, at chance. Not removable: "an option of the asked kind, without
tracking" scores 1/(4 - later_options) per item (0.52 pooled). Every option after the key is of
another kind by definition (the key is its kind's last word), so the asked kind can fill only
the 3 - later_options places before it; more options of the asked kind would make the key the
most recent option more often, and recency would pay instead (the two cannot both be at chance
with four options named in the list).
Chance: 1/4. A gen answer that is another word of the bank is wrong (-1); a non-word,
phrase or hedge is invalid.

Effects: ``load_cost`` = acc(load2) - acc(load5) (positive when more categories hurt;
lower is better); ``update_error_share`` = share of errors, on items that offer the
lure, that name the asked category's previous word (lower is better). The ``prepotent``
player, a memory that never applies the last update, answers the lure where there is
one (the key elsewhere): accuracy 1/4 at every load, load_cost 0, update_error_share 1;
it separates updating failures from load effects, which no scripted player shows.
In one prompt every word stays visible, so the probe measures in-context search and
recency resolution rather than maintenance (companion of the interactive tasks).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.paradigms.base import require_int
from lm_eval_cog.paradigms.probe_base import Heuristic
from lm_eval_cog.probes._keep_track_words import CATEGORIES
from lm_eval_cog.probes.aggregations import difference_side
from lm_eval_cog.probes.core import Probe, cycle, normalize_answer

CONDITIONS = ("load2", "load3", "load4", "load5")
LOADS = tuple(int(c.removeprefix("load")) for c in CONDITIONS)
BANK_SIZE = min(len(words) for _, _, words in CATEGORIES)
#: Every word of the bank, normalized: a gen answer naming one is well formed.
ALL_WORDS = frozenset(normalize_answer(w) for _, _, words in CATEGORIES for w in words)


@dataclass(frozen=True)
class KeepTrackParams:
    """Attributes:
    list_length: Words per list (15): at least 2 per category at the highest load
        (10), at most the bank's 12 words per category at the lowest (24).
    """

    list_length: int = 15

    def __post_init__(self) -> None:
        require_int("keep_track", "list_length", self.list_length, 1)
        low, high = 2 * max(LOADS), BANK_SIZE * min(LOADS)
        if not low <= self.list_length <= high:
            raise ValueError(
                f"keep_track parameter 'list_length' must be in {low}..{high} (2 words per category at load "
                f"{max(LOADS)}, {BANK_SIZE} at most per category at load {min(LOADS)}), got {self.list_length}"
            )


#: Options per item: the key and three foils.
N_OPTIONS = 4


def design(index: int) -> tuple[int, int]:
    """(options named after the key in the list, key position among the choices) of item ``index``.

    Within each load (``j`` = the item's count in it) the number of options that follow the key
    in the list cycles 0..3, so that the key is the most recent option, the second, third and least
    recent equally often ("the r-th most recent word" is right 1/4 of the time at every load); its
    position among the choices cycles every item, shifted by one every 4 (every pair once in 16).
    """
    j = index // len(CONDITIONS)
    return j % N_OPTIONS, (j + j // N_OPTIONS) % N_OPTIONS


def _draw(
    rng: np.random.Generator, params: KeepTrackParams, load: int, later: int
) -> tuple[list[int], list[int], list[str], int, list[str]]:
    """(categories, word labels, words, asked category, options with the key first) of a list whose
    key has ``later`` options after it.

    The places of the four options in the list are drawn first, as four places at random among those
    from ``quota - 1`` on (``quota``: the asked category's number of words), whatever the key's rank:
    every one of them could then be the key. The key is the one with ``later`` options after it; the
    list is labelled around it: the options before the key are the asked category's overwritten
    words, latest first (other kinds where the category has fewer words), its other words come before
    them, and every word after the key is of another kind. So where an option stands in the list (how
    far from the end, the list's final word or not) tells nothing of the key (issue 28: on version 2
    the key was never the final word, a foil in 287 of 300 items, and a serial-position classifier
    trained on other seeds scored 0.46).
    """
    n = params.list_length
    cats = [int(k) for k in rng.choice(len(CATEGORIES), load, replace=False)]
    extra = {cats[int(k)] for k in rng.choice(load, n % load, replace=False)}
    count = {c: n // load + (c in extra) for c in cats}
    asked = cats[int(rng.integers(load))]
    quota = count[asked]
    places = sorted(int(k) + quota - 1 for k in rng.choice(n - quota + 1, N_OPTIONS, replace=False))
    key_at = places[N_OPTIONS - 1 - later]
    before = places[: N_OPTIONS - 1 - later]
    mine = before[len(before) - min(len(before), quota - 1):]  # the latest options before the key
    first_mine = min(mine + [key_at])
    free = [i for i in range(first_mine) if i not in places]
    fill = [free[int(k)] for k in rng.choice(len(free), quota - 1 - len(mine), replace=False)]
    labels: list[int | None] = [None] * n
    for i in [key_at, *mine, *fill]:
        labels[i] = asked
    others = [c for c in cats if c != asked for _ in range(count[c])]
    others = [others[int(k)] for k in rng.permutation(len(others))]
    rest = iter(others)
    labels = [c if c is not None else next(rest) for c in labels]
    pools = {c: [CATEGORIES[c][2][int(k)] for k in rng.permutation(BANK_SIZE)] for c in cats}
    words = [pools[c].pop() for c in labels]
    options = [words[key_at], *(words[i] for i in reversed(before)), *(words[i] for i in places[N_OPTIONS - later:])]
    return cats, labels, words, asked, options


_WORDS = re.compile(r"^Words: (.+)$", re.MULTILINE)


def _serial_scores(stem: str, options: Sequence[str], sign: int) -> list[float] | None:
    found = _WORDS.search(stem)
    if found is None:
        return None
    words = [normalize_answer(w) for w in found.group(1).split(", ")]
    where = [words.index(normalize_answer(o)) if normalize_answer(o) in words else None for o in options]
    if None in where:
        return None
    return [float(sign * w) for w in where]


def recency_scores(stem: str, options: Sequence[str]) -> list[float] | None:
    """Recency (Murdock 1962; the recency effect of free recall): the option named last in the list."""
    return _serial_scores(stem, options, 1)


def primacy_scores(stem: str, options: Sequence[str]) -> list[float] | None:
    """Primacy (Murdock 1962; the primacy effect of free recall): the option named first in the list."""
    return _serial_scores(stem, options, -1)


class KeepTrack(Probe):
    name = "keep_track"
    ability = "working_memory"
    version = 3.0
    heuristics = (
        Heuristic("recency", "Murdock 1962 (recency: the word named last, whatever its kind)", recency_scores),
        Heuristic("primacy", "Murdock 1962 (primacy: the word named first, whatever its kind)", primacy_scores),
    )
    Params = KeepTrackParams
    conditions = CONDITIONS
    lure_conditions = CONDITIONS
    effects: ClassVar[Mapping[str, tuple[str, bool]]] = {
        "load_cost": ("difference", False),
        "update_error_share": ("conditional_mean", False),
    }

    def item(self, rng: np.random.Generator, params: KeepTrackParams, index: int) -> dict[str, Any]:
        condition = cycle(CONDITIONS, index)
        load = int(condition.removeprefix("load"))
        later, position = design(index)
        cats, labels, words, asked, options = _draw(rng, params, load, later)
        foils = [options[1 + int(k)] for k in rng.permutation(N_OPTIONS - 1)]
        choices = foils[:position] + [options[0]] + foils[position:]
        previous = max(i for i, c in enumerate(labels) if c == asked and words[i] != options[0])
        kinds = ", ".join(CATEGORIES[c][1] for c in cats)
        prompt = (
            f"Read the list of words below. Each word is one of these kinds: {kinds}. "
            "Keep track of the most recent word of each kind.\n"
            f"Words: {', '.join(words)}\n"
            f"What was the last {CATEGORIES[asked][1]} in the list? Answer with that word only."
        )
        return {
            "prompt": prompt,
            "choices": choices,
            "gold": position,
            "condition": condition,
            "lure": choices.index(words[previous]) if words[previous] in choices else -1,
            "load": load,
            "words": words,
            "categories": [CATEGORIES[c][0] for c in labels],
            "asked": CATEGORIES[asked][0],
            "later_options": later,
        }

    def identity(self, doc: Mapping[str, Any]) -> Any:
        """The prompt: no two items of a task show the same list and question."""
        return doc["prompt"]

    def read(self, doc: dict[str, Any], answer: str) -> int | None:
        """One word: the choice it names, -1 for another word of the bank, else invalid."""
        wanted = normalize_answer(answer)
        for k, choice in enumerate(doc["choices"]):
            if normalize_answer(choice) == wanted:
                return k
        return -1 if wanted in ALL_WORDS else None

    def effect_values(self, doc: dict[str, Any], pred: int | None) -> dict[str, Any]:
        correct = float(pred == doc["gold"])
        cond = doc["condition"]
        side = difference_side(cond, CONDITIONS[0], CONDITIONS[-1])
        return {
            "load_cost": (side, correct),
            "update_error_share": (not correct and doc["lure"] != -1, float(pred == doc["lure"])),
        }


PROBE = KeepTrack()
