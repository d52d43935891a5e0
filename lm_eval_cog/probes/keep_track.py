"""Keep-track (Yntema, 1963; Miyake et al., 2000): the last word of one category in a mixed word list.

A list interleaves words from several categories; the question asks for the most
recent word of one of them, so the memory of each category must be updated.

Item: the categories in play are named, then a list of ``list_length`` (15, as
Miyake et al.'s lists) words drawn from them, then ``What was the last fruit in the
list?``. The load condition is the number of categories interleaved in the list,
cycled by index: ``load2`` .. ``load5`` (of the bank's six). Words are split as evenly
as the length allows (load 2: 8 + 7; load 5: 3 each), so every category has at least
two words, and the asked category never holds the list's final word (at least one
word of another category follows its last one). Lists hold each word once.

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

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.paradigms.base import require_int
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
#: Lists drawn before an item gives up (about one in two fits).
MAX_LISTS = 200


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
) -> tuple[list[int], list[int], list[str], int, list[str]] | None:
    """(categories, word labels, words, asked category, options with the key first) of a list whose
    key has ``later`` options after it; None when this list has no such category."""
    cats = [int(k) for k in rng.choice(len(CATEGORIES), load, replace=False)]
    extra = {int(k) for k in rng.choice(load, params.list_length % load, replace=False)}
    labels = [c for j, c in enumerate(cats) for _ in range(params.list_length // load + (j in extra))]
    labels = [labels[int(k)] for k in rng.permutation(len(labels))]
    pools = {c: [CATEGORIES[c][2][int(k)] for k in rng.permutation(BANK_SIZE)] for c in cats}
    words = [pools[c].pop() for c in labels]
    last = {c: max(i for i, d in enumerate(labels) if d == c) for c in cats}
    # The asked category: another word follows its last one (never the list's final word), enough
    # words follow it for the later options and precede it for the earlier ones.
    fits = [c for c in cats if len(labels) - 1 - last[c] >= max(later, 1) and last[c] >= N_OPTIONS - 1 - later]
    if not fits:
        return None
    asked = fits[int(rng.integers(len(fits)))]
    key = last[asked]
    after = [words[i] for i in range(key + 1, len(words))]  # other kinds only: the key is its kind's last
    mine = [words[i] for i in range(key) if labels[i] == asked][::-1]  # overwritten words, latest first
    theirs = [words[i] for i in range(key) if labels[i] != asked]
    n_before = N_OPTIONS - 1 - later
    # Before the key: the overwritten words of the asked kind, the latest (the update lure) first;
    # words of other kinds only where the asked kind has too few.
    before = mine[:n_before]
    if len(before) < n_before:
        before += [theirs[int(k)] for k in rng.choice(len(theirs), n_before - len(before), replace=False)]
    late = [after[int(k)] for k in rng.choice(len(after), later, replace=False)]
    return cats, labels, words, asked, [words[key], *before, *late]


class KeepTrack(Probe):
    name = "keep_track"
    ability = "working_memory"
    version = 2.0
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
        for _ in range(MAX_LISTS):
            drawn = _draw(rng, params, load, later)
            if drawn is not None:
                break
        else:  # pragma: no cover - a list fits within a few draws
            raise AssertionError(f"keep_track item {index}: no list fits {later} options after the key")
        cats, labels, words, asked, options = drawn
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
