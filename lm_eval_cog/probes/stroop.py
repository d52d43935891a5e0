"""Text Stroop (Stroop, 1935; MacLeod, 1991): name the ink colour, not the word.

Item: a Stroop *card* of ``colours`` words, each printed in a coloured ink, and a question
about one of them, with the card's colours as options::

    A card shows 4 words, each printed in coloured ink.
    Word 1 reads "GREEN" and is printed in blue ink.
    Word 2 reads "RED" and is printed in yellow ink.
    Word 3 reads "BLUE" and is printed in green ink.
    Word 4 reads "YELLOW" and is printed in red ink.
    What colour is the ink of word 2? Options: green, red, yellow, blue.

Conditions cycle by index; a card is homogeneous, as Stroop's own cards were:

* ``congruent``: every word names its own ink;
* ``incongruent``: every word names another colour of the card: word i names the ink of
  word i + s (cyclically, s counterbalanced); the asked word's colour is the lure;
* ``neutral``: every word names no colour (common nouns of similar length).

Why a card and not one sentence: a text item must name the ink, so a one-word item
names only the ink and the word, and "the colour named last / first / twice" answers it
(the ink is named twice in a congruent item). On a card every colour of the palette is
once an ink and (on colour-word cards) once a word, so each option is named equally
often, and the asked word is each position of the card equally often, so whatever
singles out a colour of the card alone (first or last named, its position, its length)
is the key in 1/``colours`` of the items. Counterbalanced by index within each condition:
the asked word's position (first, middle, last), the key's option position and its rank
among the options in alphabetical order, the lure's option position (offset from the
key), and the phrasing of the card (the ink named before or after the word).

Effects (accuracy versions of the reaction-time effects, MacLeod 1991):
``interference`` = acc(neutral) - acc(incongruent), ``facilitation`` =
acc(congruent) - acc(neutral), ``congruency_effect`` = acc(congruent) -
acc(incongruent), ``word_error_share`` = share of incongruent errors that name the
word (that colour is also the ink of another word of the card, so a misread position
can name it too). A word reader (the ``prepotent`` player) scores 1, 0, 1 and 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.paradigms.base import require_int
from lm_eval_cog.probes.aggregations import difference_side
from lm_eval_cog.probes.core import Probe, cycle, place_options

COLOURS = ("red", "blue", "green", "yellow", "purple", "orange", "brown", "pink")
#: Neutral words: concrete nouns of 3-6 letters that name no colour.
NEUTRAL_WORDS = ("TABLE", "HORSE", "CHAIR", "RIVER", "PLANT", "SHOE", "CLOCK", "BREAD", "STONE", "CUP", "WINDOW", "PENCIL")
CONDITIONS = ("congruent", "incongruent", "neutral")
#: How a card names each word's ink: after the word or before it.
PHRASINGS = ("word_first", "ink_first")


@dataclass(frozen=True)
class StroopParams:
    """Attributes:
    colours: Size of the palette, 2..8 (4): the words of a card and the options of every item.
    """

    colours: int = 4

    def __post_init__(self) -> None:
        require_int("stroop", "colours", self.colours, 2)
        if self.colours > len(COLOURS):
            raise ValueError(f"stroop parameter 'colours' must be in 2..{len(COLOURS)}, got {self.colours}")


def card_inks(rng: np.random.Generator, k: int, asked: int, alphabetical: int) -> list[str]:
    """The inks of a card in order: ``k`` colours at random, the one of alphabetical rank
    ``alphabetical`` at the asked position (so the key's rank among the sorted options is counterbalanced)."""
    palette = [COLOURS[int(c)] for c in rng.permutation(len(COLOURS))[:k]]
    key = sorted(palette)[alphabetical]
    rest = [c for c in palette if c != key]
    return rest[:asked] + [key] + rest[asked:]


def card_words(rng: np.random.Generator, condition: str, inks: list[str], shift: int) -> list[str]:
    """The words printed in ``inks`` on a card of ``condition`` (upper case, as on Stroop's cards):
    on an incongruent card, word i names the ink of word i + ``shift`` (cyclically, 1 <= shift < k)."""
    if condition == "congruent":
        return [ink.upper() for ink in inks]
    if condition == "incongruent":
        return [inks[(i + shift) % len(inks)].upper() for i in range(len(inks))]
    return [NEUTRAL_WORDS[int(k)] for k in rng.choice(len(NEUTRAL_WORDS), len(inks), replace=False)]


def _entry(number: int, word: str, ink: str, phrasing: str) -> str:
    if phrasing == "word_first":
        return f'Word {number} reads "{word}" and is printed in {ink} ink.'
    return f'Word {number} is printed in {ink} ink and reads "{word}".'




class Stroop(Probe):
    name = "stroop"
    ability = "inhibition"
    Params = StroopParams
    conditions = CONDITIONS
    lure_conditions = ("incongruent",)
    effects: ClassVar[dict[str, tuple[str, bool]]] = {
        "interference": ("difference", False),
        "facilitation": ("difference", True),
        "congruency_effect": ("difference", False),
        "word_error_share": ("conditional_mean", False),
    }
    version = 2.0

    def item(self, rng: np.random.Generator, params: StroopParams, index: int) -> dict[str, Any]:
        k = params.colours
        condition = cycle(CONDITIONS, index)
        # Counterbalanced within each condition by the digits of index // 3 (mixed radix).
        j = index // len(CONDITIONS)
        key_at = j % k
        asked = (j // k) % k  # 0-based position of the asked word on the card
        alphabetical = (j + j // k) % k  # the key's rank among the sorted options: a Latin square on the two above
        # One digit sets both the lure's option offset and the incongruent words' shift: each is
        # balanced, and the shift balances which colour a card names first and last.
        lure_offset = shift = 1 + (j // (k * k)) % (k - 1)
        # Crossed with the asked position: every asked position under each phrasing and shift.
        phrasing = PHRASINGS[(key_at + j // (k * k)) % 2]
        inks = card_inks(rng, k, asked, alphabetical)
        words = card_words(rng, condition, inks, shift)
        ink, word = inks[asked], words[asked]
        lure = word.lower() if condition == "incongruent" else None
        choices = place_options(rng, inks, ink, key_at, lure, lure_offset)
        lines = [f"A card shows {k} words, each printed in coloured ink."]
        lines += [_entry(n, w, c, phrasing) for n, (w, c) in enumerate(zip(words, inks), 1)]
        lines.append(f"What colour is the ink of word {asked + 1}? Options: {', '.join(choices)}.")
        return {
            "prompt": "\n".join(lines),
            "choices": choices,
            "gold": choices.index(ink),
            "condition": condition,
            "lure": choices.index(lure) if lure is not None else -1,
            "word": word,
            "ink": ink,
            "position": asked + 1,
            "phrasing": phrasing,
            "card": [[w, c] for w, c in zip(words, inks)],
        }

    def effect_values(self, doc: dict[str, Any], pred: int | None) -> dict[str, Any]:
        correct = float(pred == doc["gold"])
        cond = doc["condition"]
        return {
            "interference": (difference_side(cond, "neutral", "incongruent"), correct),
            "facilitation": (difference_side(cond, "congruent", "neutral"), correct),
            "congruency_effect": (difference_side(cond, "congruent", "incongruent"), correct),
            "word_error_share": (cond == "incongruent" and not correct, float(pred == doc["lure"])),
        }


PROBE = Stroop()
