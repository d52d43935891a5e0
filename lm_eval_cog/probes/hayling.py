"""Hayling sentence completion (Burgess & Shallice, 1996): complete, then anti-complete.

Item: a high-cloze sentence whose last word is a blank, and three single-word options:
the *prepotent* ending ("He mailed the letter without a ___." -> stamp), a
*related* word connected to the sentence that is still no sensible ending (postman),
and an *unrelated* word lent by another frame that shares no domain with this one
(``_hayling_bank.unconnected``: the letter frame may be offered "beetle", never a word
of a writing, money or people frame). Conditions cycle by index:

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

Why the unrelated word is borrowed. From a bank of its own, the unrelated word was the
suppression key and nothing else, so picking the option most often the key in other items
(the audit's ``majority_text``) found it 71% of the time (chance 1/3). Now every option is
some frame's word, lent so that each is a key equally often in the items of other
sentences (items of the same sentence share its ending: knowing that is knowing the
sentence, not a prior on answer texts): a frame lends other frames either of its words as
a suppression key, each equally often, and its related word as an initiation foil. With
every frame the sentence of ``a`` items per condition, each word is a lent key in ``a/2``
items, and an ending also the key of its own ``a`` initiation items. So an initiation
item's key, related word and foil are each a key in ``a/2`` items of other sentences; a
suppression item offers the lure (a key in ``3a/2``), the related word (``a/2``) and a key
that is, half the time each, an ending (``3a/2``) or a related word (``a/2``). The draws
are weighted (raked: :func:`draw_weights`) so that within each condition every frame is
the sentence, and every word is lent, equally often. (Without the related foil the
suppression key is half the time the less frequent key of the two options: the lure is
its own frame's initiation key, so two options cannot be balanced both ways.)

Counterbalanced by index within each condition, so that no property of the options alone
tells the key: the key's rank among the options by length (shortest, middle, longest), in
alphabetical order and by typicality (summed edit similarity to the other options), each
rank with no option tied with the key: the (frame, lent word) pair is drawn among those
that give the ranks the index asks for, with the weights above; then the key's option
position and the position of the other instruction's answer (offset from the key). The
rarest combination of ranks has 83 (frame, word) pairs, so a task holds some 4,000
distinct items.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.probes._hayling_bank import BLANK, FRAMES, Frame, unconnected
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
#: Resolution of the draw weights (integers, so that a draw is the same on every machine).
_WEIGHT_UNITS = 1 << 24


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


def lent_words(lender: Frame, condition: str) -> tuple[str, ...]:
    """The words ``lender`` may lend another frame as its unrelated option: either of its two in
    suppression (there the key), its related word in initiation (see the module docstring)."""
    return (lender.prepotent, lender.related) if condition == "suppression" else (lender.related,)


@cache
def lenders(frame: Frame) -> tuple[Frame, ...]:
    """The frames whose words may stand as ``frame``'s unrelated word: those that share no domain
    with it (:func:`~lm_eval_cog.probes._hayling_bank.unconnected`)."""
    return tuple(other for other in FRAMES if unconnected(frame, other))


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


def _after_a(frame: Frame) -> bool:
    """Whether the blank follows "a": then every option starts with a consonant."""
    return frame.text.endswith(f" a {BLANK}.")


#: A rank cell: the key's (length, alphabetical, typicality) ranks; typicality None with two options.
Cell = tuple[int, int, int | None]


@cache
def _pairs(related_foil: bool, condition: str) -> tuple[tuple[Frame, str, Cell], ...]:
    """Every (frame, lent word) of ``condition`` with the key's rank cell among the options: its
    (length, alphabetical, typicality) ranks; pairs where another option ties with the key are
    left out."""
    out = []
    for frame in FRAMES:
        for lender in lenders(frame):
            for word in lent_words(lender, condition):
                if _after_a(frame) and word[0] in "aeiou":
                    continue
                options = (frame.prepotent, word) + ((frame.related,) if related_foil else ())
                ranks = option_ranks(options)[frame.prepotent if condition == "initiation" else word]
                if None not in ranks[: len(options)]:
                    out.append((frame, word, ranks))
    return tuple(out)


@cache
def draw_weights(related_foil: bool, condition: str) -> dict[Cell, tuple[tuple[Frame, str, float], ...]]:
    """Rank cell -> its (frame, lent word, probability within the cell) triples.

    Raked (iterative proportional fitting) so that, with every cell drawn equally often as the
    index asks, every frame is the sentence equally often and every lendable word is lent
    equally often. The bank must allow it (the tests check that it does): a ValueError names
    the condition where it does not.
    """
    pairs = _pairs(related_foil, condition)
    k = 3 if related_foil else 2
    cells = [(length, alpha, typical) for length in range(k) for alpha in range(k)
             for typical in (range(k) if k == 3 else (None,))]
    words = sorted({w for lender in FRAMES for w in lent_words(lender, condition)})
    groups = []  # per margin: each pair's member index, and the number of members
    for members, of_pair in ((cells, lambda p: p[2]), (FRAMES, lambda p: p[0]), (words, lambda p: p[1])):
        position = {m: i for i, m in enumerate(members)}
        groups.append((np.array([position[of_pair(p)] for p in pairs]), len(members)))
    weights = np.ones(len(pairs))
    for _ in range(5_000):
        for member, n in groups:
            totals = np.bincount(member, weights, minlength=n)
            if not totals.all():
                raise ValueError(f"hayling: a frame, word or rank cell of {condition} has no item at all")
            weights *= (1.0 / n) / totals[member]
        if all(np.abs(np.bincount(m, weights, minlength=n) * n - 1).max() < 1e-9 for m, n in groups):
            break
    else:
        raise ValueError(f"hayling: no draw weights balance the frames, words and rank cells of {condition}")
    out: dict[Cell, list[tuple[Frame, str, float]]] = {c: [] for c in cells}
    for (frame, word, cell), weight in zip(pairs, weights):
        out[cell].append((frame, word, float(weight * len(cells))))
    return {cell: tuple(members) for cell, members in out.items()}


@cache
def _draw_table(related_foil: bool, condition: str) -> dict[Cell, tuple[tuple[tuple[Frame, str], ...], np.ndarray]]:
    """Cell -> ((frame, word) pairs, cumulative integer weights): :func:`draw_weights` in units of
    2**-24, so that a draw is integer arithmetic, the same on every machine."""
    table = {}
    for cell, members in draw_weights(related_foil, condition).items():
        units = np.rint(np.array([p for *_, p in members]) * _WEIGHT_UNITS).astype(np.int64)
        kept = units > 0
        table[cell] = (tuple((f, w) for (f, w, _), k in zip(members, kept) if k), np.cumsum(units[kept]))
    return table


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
        pairs, cumulative = _draw_table(params.related_foil, condition)[(length, alphabetical, typical)]
        frame, unrelated = pairs[int(np.searchsorted(cumulative, rng.integers(cumulative[-1]), side="right"))]
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
