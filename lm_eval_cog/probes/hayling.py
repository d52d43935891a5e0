"""Hayling sentence completion (Burgess & Shallice, 1996): complete, then anti-complete.

Item: a high-cloze sentence whose last word is a blank, and three single-word options:
the *prepotent* ending ("He mailed the letter without a ___." -> stamp), a
*related* word connected to the sentence that is still no sensible ending (postman),
and an *unrelated* word drawn from domains the sentence does not touch (turnip).
Conditions cycle by index:

* ``initiation`` (Hayling part A): "Complete the sentence with the word that fits
  best" -> the prepotent ending; no lure;
* ``suppression`` (Hayling part B): "Complete the sentence with a word that does NOT
  fit ... unconnected to it in every way" -> the unrelated word; the prepotent ending
  is the lure, the related word a connected (category-B) error.

Effects: ``suppression_cost`` = acc(initiation) - acc(suppression) (positive: the
sentence's own ending is hard to hold back); ``prepotent_error_share`` = share of
suppression errors that choose the prepotent ending (the Hayling B category-A error;
an invalid reply counts as an error that names nothing). Someone who always completes
the sentence (the ``prepotent`` player) scores 1 and 1; chance is 1/3 (1/2 without
the related foil). The frames are our own (``_hayling_bank``), modelled on the
Hayling items and cloze norms, not the published test's sentences.

Counterbalanced by index within each condition, so that no property of the options alone
tells the key: the key's rank among the options by length (shortest, middle, longest), in
alphabetical order and by typicality (summed edit similarity to the other options: the
prepotent and the related word are often spelled alike, "teeth" / "toothpaste"), each
rank with no option tied with the key: the frame and the unrelated word are drawn among
those that give the ranks the index asks for; then the key's option position and the
position of the other instruction's answer (offset from the key). The rarest
combination of ranks has 32 (frame, word) pairs, so a task holds up to about 1,700
distinct items.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.probes._hayling_bank import FRAMES, UNRELATED, Frame
from lm_eval_cog.probes.aggregations import SIDE_A, SIDE_B
from lm_eval_cog.probes.core import Probe, cycle, edit_similarity, place_options

CONDITIONS = ("initiation", "suppression")
INSTRUCTIONS = {
    "initiation": "Complete the sentence with the word that fits best.",
    "suppression": (
        "Complete the sentence with a word that does NOT fit: the word must make no sense in the "
        "sentence and be unconnected to it in every way."
    ),
}


@dataclass(frozen=True)
class HaylingParams:
    """Attributes:
    related_foil: Offer the related word as a third option (True); False leaves the
        prepotent and the unrelated word alone (chance 1/2).
    """

    related_foil: bool = True

    def __post_init__(self) -> None:
        # A ValueError like every other parameter's (1 and "yes" are not switches).
        if type(self.related_foil) is not bool:
            raise ValueError(f"hayling parameter 'related_foil' must be a bool, got {self.related_foil!r}")


def unrelated_words(frame: Frame) -> list[str]:
    """The words that may answer Hayling B for ``frame``: every domain it does not avoid."""
    return [word for domain, words in UNRELATED.items() if domain not in frame.avoid for word in words]


def _rank(word: str, others: tuple[str, ...], key: Any) -> int | None:
    """``word``'s 0-based rank among ``others`` and itself by ``key``; None on a tie."""
    value = key(word)
    if any(key(o) == value for o in others):
        return None
    return sum(key(o) < value for o in others)


@cache


def option_ranks(options: tuple[str, ...]) -> dict[str, tuple[int | None, int | None, int | None]]:
    """Each option's rank among ``options`` by length, in alphabetical order and by typicality
    (summed edit similarity to the other options; None with two options, where each is as alike
    to the other). None also marks a tie."""
    similarity = {(a, b): edit_similarity(a, b) for a in options for b in options if a < b} if len(options) > 2 else {}
    typicality = {o: sum(v for pair, v in similarity.items() if o in pair) for o in options}
    out = {}
    for option in options:
        others = tuple(o for o in options if o != option)
        typical = _rank(option, others, typicality.__getitem__) if similarity else None
        out[option] = (_rank(option, others, len), _rank(option, others, str), typical)
    return out


@cache
def _pairs_by_ranks(related_foil: bool) -> dict[tuple[str, int | None, int | None, int | None], list[tuple[Frame, str]]]:
    """(condition, key's length rank, alphabetical rank, typicality rank) -> every (frame, unrelated word)."""
    out: dict[tuple[str, int | None, int | None, int | None], list[tuple[Frame, str]]] = {}
    for frame in FRAMES:
        for word in unrelated_words(frame):
            ranks = option_ranks((frame.prepotent, word) + ((frame.related,) if related_foil else ()))
            for condition, key in (("initiation", frame.prepotent), ("suppression", word)):
                out.setdefault((condition, *ranks[key]), []).append((frame, word))
    return out


@cache
def candidates(related_foil: bool, condition: str, length: int, alphabetical: int,
               typical: int | None) -> tuple[tuple[Frame, tuple[str, ...]], ...]:
    """Every frame with the unrelated words that give the key of ``condition`` these ranks among
    the options (no ties), frames with none left out."""
    fits: dict[Frame, list[str]] = {}
    for frame, word in _pairs_by_ranks(related_foil).get((condition, length, alphabetical, typical), []):
        fits.setdefault(frame, []).append(word)
    return tuple((frame, tuple(words)) for frame, words in fits.items())




class Hayling(Probe):
    name = "hayling"
    ability = "inhibition"
    Params = HaylingParams
    conditions = CONDITIONS
    lure_conditions = ("suppression",)
    effects: ClassVar[dict[str, tuple[str, bool]]] = {
        "suppression_cost": ("difference", False),
        "prepotent_error_share": ("conditional_mean", False),
    }
    version = 2.0

    def item(self, rng: np.random.Generator, params: HaylingParams, index: int) -> dict[str, Any]:
        condition = cycle(CONDITIONS, index)
        k = 3 if params.related_foil else 2
        # Counterbalanced within each condition by the digits of index // 2 (mixed radix).
        j = index // len(CONDITIONS)
        key_at, length = j % k, (j // k) % k
        # Latin squares on (key_at, length): every rank is balanced within k * k items; for k = 3
        # the typicality square is orthogonal to the alphabetical one and shifts by one every 9
        # items, so all 27 (length, alphabetical, typicality) triples come within 27 items.
        # Typicality needs three options.
        alphabetical = (key_at + length) % k
        typical = (key_at + 2 * length + j // (k * k)) % k if k > 2 else None
        other_offset = 1 + (j // (k * k)) % (k - 1)
        pool = candidates(params.related_foil, condition, length, alphabetical, typical)
        frame, fits = pool[int(rng.integers(len(pool)))]
        unrelated = fits[int(rng.integers(len(fits)))]
        words = [frame.prepotent, unrelated] + ([frame.related] if params.related_foil else [])
        gold, other = (frame.prepotent, unrelated) if condition == "initiation" else (unrelated, frame.prepotent)
        choices = place_options(rng, words, gold, key_at, other, other_offset)
        prompt = f'{INSTRUCTIONS[condition]}\nSentence: "{frame.text}"\nOptions: {", ".join(choices)}.'
        return {
            "prompt": prompt,
            "choices": choices,
            "gold": choices.index(gold),
            "condition": condition,
            "lure": choices.index(frame.prepotent) if condition == "suppression" else -1,
            "frame": frame.text,
            "prepotent": frame.prepotent,
            "related": frame.related if params.related_foil else "",
            "unrelated": unrelated,
        }

    def effect_values(self, doc: dict[str, Any], pred: int | None) -> dict[str, Any]:
        correct = float(pred == doc["gold"])
        side = SIDE_A if doc["condition"] == "initiation" else SIDE_B
        suppression_error = doc["condition"] == "suppression" and not correct
        return {
            "suppression_cost": (side, correct),
            "prepotent_error_share": (suppression_error, float(pred == doc["lure"])),
        }


PROBE = Hayling()
