"""Counting Stroop (Bush et al., 1998): count the words of a list, not what they say.

Item: a card of ``lists`` word lists, each one word repeated 1..``counts`` times, and a
question about one list; the options are the counts as digits (the key-press answers
of Bush et al.)::

    Word lists:
    List A: "three three"
    List B: "one one one one"
    List C: "two"
    List D: "four four four"
    List E: "one one one one"
    List F: "three three"
    How many words are in list B? Options: 2, 4, 1, 3.

Conditions; a card is homogeneous (Bush et al. ran blocks of one kind):

* ``congruent``: every list's word is the number word of its count ("two two");
* ``incongruent``: every list's word names another count of the options ("three three"
  -> 2), one word per count: a random derangement of 1..``counts`` maps each length to the
  word its lists repeat; the asked list's word number is the lure;
* ``neutral``: every list's word names no number (animal names of 3-5 letters, like the
  number words, a different animal per list; Bush et al. used one semantic category for
  their neutral words).

Why the card is built so (version 3; issue 28): on version 2 a bag-of-words classifier of the
prompt, trained on one seed, found the congruent key at 0.40-0.45 (chance 0.25) on another: the
key's number word was always on a congruent card and the other counts' words only by chance,
and the card's total length grew with the key's count. Now every card shows every count
1..``counts`` at least once (``lists`` >= ``counts``; the other lists' lengths drawn at random),
the key's count is counterbalanced and drawn independently of the card's lengths, and the asked
list is one list of that length: so which words a card shows, how often, and how long it is
say nothing about the key; only the asked list's length does.

The headline does not reward word reading: per block of 3 x ``counts`` items, 2 are congruent,
2 (``counts`` - 1) incongruent and ``counts`` neutral (interleaved), so a reader of the asked word
(the declared heuristic ``word_reading``: right on congruent cards, wrong on incongruent ones, a
guess on neutral ones) scores exactly chance, 1/``counts``; the conditions and effects report
the interference beside it. The shortcut audit pools congruent and incongruent cards into one
cell (``audit_cells``: ``number_words``), where word reading scores 1/``counts`` too. Counterbalanced by the item's rank within its condition: the key's
count (so its rank among the sorted options), its option position, the lure's option position
(offset from the key) and the asked list's place on the card. No digit appears in the stem, so
nothing there names an option.

Effects, as in the text Stroop (accuracy versions of the reaction-time effects;
MacLeod, 1991): ``interference`` = acc(neutral) - acc(incongruent), ``facilitation``
= acc(congruent) - acc(neutral), ``congruency_effect`` = acc(congruent) -
acc(incongruent), ``word_error_share`` = share of incongruent errors (invalid
replies included) that name the word's number. Positive interference means reading
the words beat counting them. A word reader (the ``prepotent`` player) scores 1, 0, 1
and 1; chance accuracy is 1/``counts``.

Reading (gen form): the count as a digit or a number word ("2", "two", "**Two.**",
"2 words"); a well-formed count outside the options ("5", "zero") is wrong (-1);
anything else (hedges, two numbers, a sentence) is invalid.

References: Bush, Whalen, Rosen, Jenike, McInerney & Rauch (1998), The counting
Stroop; Stroop (1935); MacLeod (1991).
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.answers import parse_int
from lm_eval_cog.paradigms.base import require_int
from lm_eval_cog.paradigms.probe_base import Heuristic
from lm_eval_cog.probes.aggregations import difference_side
from lm_eval_cog.probes.core import Probe, place_options

NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
#: Neutral words: animal names of 3-5 letters (the number words one..nine have 3-5).
NEUTRAL_WORDS = ("dog", "cat", "cow", "bird", "fish", "goat", "frog", "mouse", "horse", "sheep", "duck", "bear")
CONDITIONS = ("congruent", "incongruent", "neutral")
MAX_LISTS = 10
#: A list and the question, as the prompt writes them (what word reading reads).
_LIST = re.compile(r'^List ([A-Z]): "([a-z ]+)"$', re.MULTILINE)
_ASKED = re.compile(r"How many words are in list ([A-Z])\?")


@dataclass(frozen=True)
class CountingStroopParams:
    """Attributes:
    counts: The largest count, 2..9 (4, as Bush et al.): lists have 1..counts words
        and the options are the digits 1..counts.
    lists: Lists on a card, counts..10 (6): every count is on every card, so a card has at
        least ``counts`` lists.
    """

    counts: int = 4
    lists: int = 6

    def __post_init__(self) -> None:
        require_int("counting_stroop", "counts", self.counts, 2)
        if self.counts > len(NUMBER_WORDS) - 1:
            raise ValueError(f"counting_stroop parameter 'counts' must be in 2..9, got {self.counts}")
        require_int("counting_stroop", "lists", self.lists, 2)
        if not self.counts <= self.lists <= MAX_LISTS:
            raise ValueError(
                f"counting_stroop parameter 'lists' must be in counts..{MAX_LISTS} ({self.counts}..{MAX_LISTS}: "
                f"every count is on every card), got {self.lists}"
            )


def parse_count(answer: str) -> int | None:
    """The number an answer states (digits or a number word, optionally then "word(s)"),
    None if it states none (:func:`lm_eval_cog.answers.parse_int`: bounded digits)."""
    return parse_int(answer, units=("word", "words"))


@lru_cache(maxsize=None)
def condition_block(counts: int) -> tuple[str, ...]:
    """The conditions of a block of 3 x ``counts`` items: 2 congruent, 2 (counts - 1) incongruent,
    ``counts`` neutral, each condition's items spread evenly over the block (so ``--limit`` keeps
    the mix). Word reading then scores (2 + counts x 1/counts) / (3 counts) = 1/counts: chance."""
    sizes = {"congruent": 2, "incongruent": 2 * (counts - 1), "neutral": counts}
    slots = sorted(((i + 0.5) / n, CONDITIONS.index(c), c) for c, n in sizes.items() for i in range(n))
    return tuple(c for _, _, c in slots)


def condition_rank(counts: int, index: int) -> tuple[str, int]:
    """Item ``index``'s condition and its rank among the items of that condition."""
    block = condition_block(counts)
    at = index % len(block)
    condition = block[at]
    per_block = block.count(condition)
    return condition, (index // len(block)) * per_block + block[:at].count(condition)


def derangement(rng: np.random.Generator, n: int) -> list[int]:
    """A uniform random permutation of 0..n-1 with no fixed point (rejection: P(accept) ~ 1/e)."""
    while True:
        perm = [int(i) for i in rng.permutation(n)]
        if all(p != i for i, p in enumerate(perm)):
            return perm


def card_lengths(rng: np.random.Generator, counts: int, lists: int, count: int, asked: int) -> list[int]:
    """The lists' lengths: every count 1..counts once, the other lists' lengths at random, drawn
    without regard to the key; then one list of length ``count`` at ``asked``, the rest shuffled."""
    lengths = list(range(1, counts + 1)) + [int(x) for x in rng.integers(1, counts + 1, lists - counts)]
    lengths.remove(count)
    rest = [lengths[int(i)] for i in rng.permutation(len(lengths))]
    return rest[:asked] + [count] + rest[asked:]


def option_order(rng: np.random.Generator, counts: int, key: int, key_at: int, lure: int, lure_offset: int) -> list[str]:
    """The digits 1..counts: the key at ``key_at``, the lure (0: none) ``lure_offset`` places
    after it (cyclically), the other counts at random in the slots left."""
    digits = [str(c) for c in range(1, counts + 1)]
    return place_options(rng, digits, str(key), key_at, str(lure) if lure else None, lure_offset)


def word_reading_scores(stem: str, options: Sequence[str]) -> list[float] | None:
    """Word reading (Stroop 1935; Bush et al. 1998): answer the number the asked list's word names,
    not how many words it has; None where the word names no number (a neutral card)."""
    asked = _ASKED.search(stem)
    lists = dict(_LIST.findall(stem))
    if asked is None or asked.group(1) not in lists:
        return None
    word = lists[asked.group(1)].split(" ")[0]
    if word not in NUMBER_WORDS:
        return None
    return [float(o == str(NUMBER_WORDS.index(word))) for o in options]


class CountingStroop(Probe):
    name = "counting_stroop"
    ability = "inhibition"
    Params = CountingStroopParams
    conditions = CONDITIONS
    lure_conditions = ("incongruent",)
    effects: ClassVar[Mapping[str, tuple[str, bool]]] = {
        "interference": ("difference", False),
        "facilitation": ("difference", True),
        "congruency_effect": ("difference", False),
        "word_error_share": ("conditional_mean", False),
    }
    #: Word reading is right on every congruent card and wrong on every incongruent one by design (the
    #: Stroop manipulation): the audit pools the two, where it scores 1/counts (2 congruent items per
    #: 2 (counts - 1) incongruent ones); tests/test_probe_counting_stroop.py audits each condition too.
    audit_cells: ClassVar[Mapping[str, str]] = {"congruent": "number_words", "incongruent": "number_words"}
    version = 3.0
    heuristics = (
        Heuristic("word_reading", "Stroop 1935; Bush et al. 1998 (the counting Stroop: the word's number, not the count)",
                  word_reading_scores),
    )

    def item(self, rng: np.random.Generator, params: CountingStroopParams, index: int) -> dict[str, Any]:
        c, m = params.counts, params.lists
        condition, j = condition_rank(c, index)
        # Counterbalanced within each condition by the digits of its rank j (mixed radix).
        count = 1 + j % c
        key_at = (j // c) % c
        asked = (j + j // c) % m
        lure_offset = 1 + (j // (c * c)) % (c - 1)
        lengths = card_lengths(rng, c, m, count, asked)
        if condition == "neutral":
            words = [NEUTRAL_WORDS[int(k)] for k in rng.choice(len(NEUTRAL_WORDS), m, replace=False)]
        elif condition == "congruent":
            words = [NUMBER_WORDS[n] for n in lengths]
        else:  # one word per length, never its own number
            sigma = derangement(rng, c)
            words = [NUMBER_WORDS[1 + sigma[n - 1]] for n in lengths]
        named = NUMBER_WORDS.index(words[asked]) if condition != "neutral" else 0  # 0: names no number
        lure = named if condition == "incongruent" else 0
        choices = option_order(rng, c, count, key_at, lure, lure_offset)
        labels = string.ascii_uppercase[:m]
        lines = ["Word lists:"]
        lines += [f'List {label}: "{" ".join([w] * n)}"' for label, w, n in zip(labels, words, lengths)]
        lines.append(f"How many words are in list {labels[asked]}? Options: {', '.join(choices)}.")
        return {
            "prompt": "\n".join(lines),
            "choices": choices,
            "gold": choices.index(str(count)),
            "condition": condition,
            "lure": choices.index(str(lure)) if lure else -1,
            "word": words[asked],
            "count": count,
            "word_number": named,
            "list": labels[asked],
        }

    def read(self, doc: Mapping[str, Any], answer: str) -> int | None:
        number = parse_count(answer)
        if number is None:
            return None
        return doc["choices"].index(str(number)) if str(number) in doc["choices"] else -1

    def effect_values(self, doc: Mapping[str, Any], pred: int | None) -> dict[str, Any]:
        correct = float(pred == doc["gold"])
        cond = doc["condition"]
        return {
            "interference": (difference_side(cond, "neutral", "incongruent"), correct),
            "facilitation": (difference_side(cond, "congruent", "neutral"), correct),
            "congruency_effect": (difference_side(cond, "congruent", "incongruent"), correct),
            "word_error_share": (cond == "incongruent" and not correct, float(pred == doc["lure"])),
        }


PROBE = CountingStroop()
