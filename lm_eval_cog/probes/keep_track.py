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
category's last word); the **lure**, its previous word, the answer of a memory
that failed to update (Yntema's updating failure); and the two most recent words of
other categories (recency / category-confusion errors; the first is the list's final
word). Chance: 1/4. A gen answer that is another word of the bank is wrong (-1); a
non-word, phrase or hedge is invalid.

Effects: ``load_cost`` = acc(load2) - acc(load5) (positive when more categories hurt;
lower is better); ``update_error_share`` = share of errors that name the asked
category's previous word (lower is better). The ``prepotent`` player, a memory that
never applies the last update, scores 0 at every load: load_cost 0, update_error_share
1; it separates updating failures from load effects, which no scripted player shows.
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


class KeepTrack(Probe):
    name = "keep_track"
    ability = "working_memory"
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
        cats = [int(k) for k in rng.choice(len(CATEGORIES), load, replace=False)]
        extra = {int(k) for k in rng.choice(load, params.list_length % load, replace=False)}
        labels = [c for j, c in enumerate(cats) for _ in range(params.list_length // load + (j in extra))]
        labels = [labels[int(k)] for k in rng.permutation(len(labels))]
        pools = {c: [CATEGORIES[c][2][int(k)] for k in rng.permutation(BANK_SIZE)] for c in cats}
        words = [pools[c].pop() for c in labels]
        others = [c for c in cats if c != labels[-1]]
        asked = others[int(rng.integers(len(others)))]
        asked_words = [w for w, c in zip(words, labels) if c == asked]
        recent_others = [w for w, c in zip(words[::-1], labels[::-1]) if c != asked][:2]
        options = [asked_words[-1], asked_words[-2], *recent_others]
        order = [int(k) for k in rng.permutation(len(options))]
        choices = [options[k] for k in order]
        kinds = ", ".join(CATEGORIES[c][1] for c in cats)
        singular = CATEGORIES[asked][1]
        prompt = (
            f"Read the list of words below. Each word is one of these kinds: {kinds}. "
            "Keep track of the most recent word of each kind.\n"
            f"Words: {', '.join(words)}\n"
            f"What was the last {singular} in the list? Answer with that word only."
        )
        return {
            "prompt": prompt,
            "choices": choices,
            "gold": order.index(0),
            "condition": condition,
            "lure": order.index(1),
            "load": load,
            "words": words,
            "categories": [CATEGORIES[c][0] for c in labels],
            "asked": CATEGORIES[asked][0],
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
            "update_error_share": (not correct, float(pred is not None and pred == doc["lure"])),
        }


PROBE = KeepTrack()
