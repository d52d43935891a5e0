"""Hayling sentence completion (Burgess & Shallice, 1996): complete, then anti-complete.

Item: a high-cloze sentence whose last word is a blank, and three single-word options, every
one of them the ending of some sentence of the bank (:mod:`~lm_eval_cog.probes._hayling_bank`):
the sentence's own *prepotent* ending ("He mailed the letter without a ___." -> stamp), a
*related* word, the ending of another sentence that shares a topic domain with this one (pen:
writing), and an *unrelated* word, the ending of a sentence that shares none (lava). Both
wrong words are vetted at sentence level (``scripts/hayling_vet_keys.py``: the completed
sentence, embedded with the local sentence-embedding model, must be far from the sensible one;
the generator reads the vetted pairs of :mod:`~lm_eval_cog.probes._hayling_vetted`). Conditions
cycle by index:

* ``initiation`` (Hayling part A): "Complete the sentence with the word that fits best" -> the
  prepotent ending; no lure;
* ``suppression`` (Hayling part B): "Complete the sentence with a word that does NOT fit ...
  unconnected to it in every way" -> the unrelated word; the prepotent ending is the lure, the
  related word a connected (category-B) error.

Effects: ``suppression_cost`` = acc(initiation) - acc(suppression) (positive: the sentence's own
ending is hard to hold back); ``prepotent_error_share`` = share of suppression errors that choose
the prepotent ending (the Hayling B category-A error; an invalid reply counts as an error that
names nothing). Someone who always completes the sentence (the ``prepotent`` player) scores 1
and 1; chance is 1/3 (1/2 without the related foil). The frames are our own, modelled on the
Hayling items and cloze norms, not the published test's sentences.

Why every option is an ending (version 3.0). In version 2 the initiation foils were always
"related"-type words and never endings, so a classifier that saw only the option texts, trained on
other seeds, found the initiation key 80-85% of the time (chance 1/3). Now each word plays three
parts equally often in each condition: its own sentence's ending, another sentence's related word,
another sentence's unrelated word. Every frame is the sentence of one item per instruction before
any repeats (a fresh order per seed), and the related and unrelated words are drawn with weights
(raked: :func:`draw_weights`) that lend every ending equally often in each part. So within each
condition every word is the key in a third of the items that offer it: the option texts alone,
their lengths or spellings, carry no information about the key. The key's option position is
counterbalanced by index, and so is the position of the other instruction's answer (offset from
the key).

Declared heuristics (:attr:`Hayling.heuristics`), each from the prompt text alone: ``common_word``
(initiation: the shortest option, the most frequent word by Zipf's law of abbreviation; cloze
endings are frequent words), ``associated`` (initiation: the option most alike in spelling to the
sentence's words), ``least_associated`` (suppression: the option least alike to them, the naive
way to find an "unconnected" word) and ``rare_word`` (suppression: the longest option).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.paradigms.probe_base import MAX_DRAWS, Heuristic, episode_seed, require_int
from lm_eval_cog.probes._hayling_bank import FRAMES, Frame
from lm_eval_cog.probes._hayling_vetted import VETTED
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
KINDS = ("related", "unrelated")
#: Resolution of the draw weights (integers, so that a draw is the same on every machine).
_WEIGHT_UNITS = 1 << 24
_BY_TEXT = {f.text: f for f in FRAMES}


@dataclass(frozen=True)
class HaylingParams:
    """Attributes:
    related_foil: Offer a related word as a third option (True); False leaves the
        prepotent and the unrelated word alone (chance 1/2).
    """

    related_foil: bool = True

    def __post_init__(self) -> None:
        # A ValueError like every other parameter's (1 and "yes" are not switches).
        if type(self.related_foil) is not bool:
            raise ValueError(f"hayling parameter 'related_foil' must be a bool, got {self.related_foil!r}")


def candidates(frame: Frame, kind: str) -> tuple[str, ...]:
    """The endings of other frames that may stand in ``frame`` as its ``kind`` word (vetted)."""
    return VETTED[frame.text][kind]


#: Raking rounds at most, and the largest relative error left in a frame's or a word's share.
_RAKING_ROUNDS = 3_000
RAKING_TOLERANCE = 1e-3
#: Draws by the raked weights before an item that repeats an earlier one is drawn uniformly (the
#: weights put nearly all of a frame's share on one word where that word may stand nowhere else).
_BALANCED_DRAWS = 20


def _deviation(margins: list[tuple[np.ndarray, int]], weights: np.ndarray) -> float:
    return max(float(np.abs(np.bincount(m, weights, minlength=n) * n - 1).max()) for m, n in margins)


@cache
def draw_weights(kind: str) -> dict[str, tuple[tuple[str, ...], tuple[float, ...]]]:
    """Frame text -> (its ``kind`` candidates, the probability of each).

    Raked (iterative proportional fitting) so that, with every frame the sentence equally often,
    every ending is lent as a ``kind`` word equally often. The vetted pairs must allow it (the
    tests check that they do): a ValueError names the kind where they do not.
    """
    pairs = [(f.text, w) for f in FRAMES for w in candidates(f, kind)]
    words = sorted({w for _, w in pairs})
    margins = []
    for members, at in ((FRAMES, 0), (words, 1)):
        position = {(m.text if isinstance(m, Frame) else m): i for i, m in enumerate(members)}
        margins.append((np.array([position[p[at]] for p in pairs]), len(members)))
    weights = np.ones(len(pairs))
    for _ in range(_RAKING_ROUNDS):
        for member, n in margins:
            totals = np.bincount(member, weights, minlength=n)
            if not totals.all():
                raise ValueError(f"hayling: a frame or word has no {kind} pair at all")
            weights *= (1.0 / n) / totals[member]
        if _deviation(margins, weights) < 1e-9:
            break
    # Where a word may stand in a single frame, the exact balance is a limit the raking approaches
    # slowly; a share off by under 0.1% of itself tells a learner nothing.
    if _deviation(margins, weights) >= RAKING_TOLERANCE:
        raise ValueError(f"hayling: no draw weights lend every ending equally often as a {kind} word")
    out: dict[str, tuple[list[str], list[float]]] = {f.text: ([], []) for f in FRAMES}
    for (text, word), weight in zip(pairs, weights):
        out[text][0].append(word)
        out[text][1].append(float(weight * len(FRAMES)))
    return {text: (tuple(ws), tuple(ps)) for text, (ws, ps) in out.items()}


@cache
def _draw_table(kind: str) -> dict[str, tuple[tuple[str, ...], np.ndarray]]:
    """Frame text -> (candidates, cumulative integer weights): :func:`draw_weights` in units of
    2**-24, so that a draw is integer arithmetic, the same on every machine."""
    table = {}
    for text, (words, probs) in draw_weights(kind).items():
        units = np.rint(np.array(probs) * _WEIGHT_UNITS).astype(np.int64)
        kept = units > 0
        table[text] = (tuple(w for w, k in zip(words, kept) if k), np.cumsum(units[kept]))
    return table


def _draw(rng: np.random.Generator, frame: Frame, kind: str, balanced: bool = True) -> str:
    """A ``kind`` word for ``frame``: by the raked weights, or (``balanced`` False: a redraw after
    repeated items) uniformly among its candidates."""
    if not balanced:
        words = candidates(frame, kind)
        return words[int(rng.integers(len(words)))]
    words, cumulative = _draw_table(kind)[frame.text]
    return words[int(np.searchsorted(cumulative, rng.integers(cumulative[-1]), side="right"))]


def frame_order(seed: int, condition: str, round_: int) -> tuple[Frame, ...]:
    """The order in which the frames are the sentence of ``condition``'s items, round ``round_``
    (each round every frame once): a permutation drawn from the seed alone."""
    rng = np.random.default_rng((seed, CONDITIONS.index(condition), round_, 0x4861))
    return tuple(FRAMES[int(i)] for i in rng.permutation(len(FRAMES)))


# -- declared heuristics ---------------------------------------------------------------------------
_SENTENCE = re.compile(r'Sentence: "([^"\n]*)"')


def _association(stem: str, options: Sequence[str]) -> list[float] | None:
    """Each option's spelling likeness to the sentence's words: its best edit similarity to one."""
    found = _SENTENCE.search(stem)
    words = [w for w in re.findall(r"[a-z]+", found.group(1).lower()) if len(w) > 2] if found else []
    if not words:
        return None
    return [max(edit_similarity(o.lower(), w) for w in words) for o in options]


def common_word_scores(stem: str, options: Sequence[str]) -> list[float]:
    """The most frequent word: the shortest option (Zipf's law of abbreviation)."""
    return [-float(len(o)) for o in options]


def rare_word_scores(stem: str, options: Sequence[str]) -> list[float]:
    """The rarest word: the longest option."""
    return [float(len(o)) for o in options]


def associated_scores(stem: str, options: Sequence[str]) -> list[float] | None:
    """The option most alike in spelling to a word of the sentence (surface association)."""
    return _association(stem, options)


def least_associated_scores(stem: str, options: Sequence[str]) -> list[float] | None:
    """The option least alike in spelling to every word of the sentence (surface non-association)."""
    scores = _association(stem, options)
    return None if scores is None else [-s for s in scores]


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
    heuristics = (
        Heuristic("common_word", "Zipf 1935 (law of abbreviation: frequent words are short); high-cloze "
                  "endings are frequent words (Bloom & Fischler 1980)", common_word_scores, ("initiation",)),
        Heuristic("associated", "Burgess & Shallice 1996 (Hayling A is answered by association with the "
                  "sentence); here association by spelling", associated_scores, ("initiation",)),
        Heuristic("least_associated", "Burgess & Shallice 1996 (Hayling B: a word unconnected to the sentence); "
                  "here unconnected by spelling", least_associated_scores, ("suppression",)),
        Heuristic("rare_word", "Burgess & Shallice 1996 (Hayling B answers avoid the common, prepotent word); "
                  "rare by Zipf 1935: the longest", rare_word_scores, ("suppression",)),
    )
    version = 3.0

    def generate(self, seed: int, n: int, params: Any = None) -> list[dict[str, Any]]:
        """As :meth:`Probe.generate`, except that the sentence of each item comes from a per-seed
        order of the frames (:func:`frame_order`): within a condition every frame is the sentence
        once before any is again, so 2 x len(FRAMES) items have distinct question stems. Document
        i still depends only on (``seed``, i), ``params`` and the documents before it."""
        seed = require_int("metadata", "seed", seed, 0)
        n = require_int("metadata", "items", n, 1)
        params = self.make_params() if params is None else params
        docs, seen = [], set()
        for index in range(n):
            j = index // len(CONDITIONS)
            frame = frame_order(seed, cycle(CONDITIONS, index), j // len(FRAMES))[j % len(FRAMES)]
            doc_seed = episode_seed(seed, index)
            rng = np.random.default_rng(doc_seed)
            for attempt in range(MAX_DRAWS):
                body = self._item(rng, params, index, frame, balanced=attempt < _BALANCED_DRAWS)
                key = self.identity(body)
                if key not in seen:
                    break
            else:
                raise ValueError(f"{self.name}: item {index} repeats an earlier item in {MAX_DRAWS} draws; "
                                 f"ask for fewer items (metadata 'items')")
            seen.add(key)
            doc = {"probe": self.name, "index": index, "seed": doc_seed, **body}
            self.check_doc(doc)
            docs.append(doc)
        return docs

    def item(self, rng: np.random.Generator, params: HaylingParams, index: int) -> dict[str, Any]:
        # Alone (not through generate), the sentence is drawn at random.
        return self._item(rng, params, index, FRAMES[int(rng.integers(len(FRAMES)))])

    def _item(self, rng: np.random.Generator, params: HaylingParams, index: int, frame: Frame,
              balanced: bool = True) -> dict[str, Any]:
        condition = cycle(CONDITIONS, index)
        k = 3 if params.related_foil else 2
        j = index // len(CONDITIONS)
        key_at, other_offset = j % k, 1 + (j // k) % (k - 1)  # counterbalanced within each condition
        unrelated = _draw(rng, frame, "unrelated", balanced)
        related = _draw(rng, frame, "related", balanced) if params.related_foil else ""
        words = [frame.prepotent, unrelated] + ([related] if params.related_foil else [])
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
            "related": related,
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
