"""Text Stroop (Stroop, 1935; MacLeod, 1991): name the ink colour, not the word.

Item: a Stroop *card* of ``colours`` words, each printed in a coloured ink, and a question
about one of them, with the card's colours as options::

    A card shows 4 words, each printed in coloured ink.
    Word 1 reads "GREEN" and is printed in blue ink.
    Word 2 reads "RED" and is printed in yellow ink.
    Word 3 reads "BLUE" and is printed in green ink.
    Word 4 reads "YELLOW" and is printed in red ink.
    What colour is the ink of word 2? Options: green, red, yellow, blue.

Conditions, a card is homogeneous, as Stroop's own cards were:

* ``congruent``: every word names its own ink;
* ``incongruent``: every word names another colour of the card: word i names the ink of
  word i + s (cyclically, s drawn per item); the asked word's colour is the lure;
* ``neutral``: every word names no colour (common nouns of similar length).

Why a card and not one sentence: a text item must name the ink, so a one-word item
names only the ink and the word, and "the colour named last / first / twice" answers it
(the ink is named twice in a congruent item). On a card every colour of the palette is
once an ink and (on colour-word cards) once a word, so each option is named equally
often, and the asked word is each position of the card equally often, so whatever
singles out a colour of the card alone (first or last named, its position, its length)
is the key in 1/``colours`` of the items. Counterbalanced by index within each condition:
the asked word's position (first, middle, last), the key's option position and the
phrasing of the card (the ink named before or after the word), as independent digits;
drawn per item: the palette and its order on the card (so the key's alphabetical rank
among the options), the shift s and the lure's option position. (Version 2 tied the key's
alphabetical rank to its option position and the asked word by a Latin square, and the
lure's offset to the shift: a classifier of option position, value rank and mention order
learned the square across seeds, 0.51 vs 0.25 on congruent cards; issue 28.)

The headline (version 3; issue 28): the prepotent response, reading (the word where it is
a colour, else the one colour the asked entry names), is right on every congruent and
neutral item and wrong on every incongruent one, so with conditions in thirds a reader
scored 2/3 (0.83 with the word and ink of an incongruent entry tied) and the headline
mostly rewarded reading. Now conditions cycle by index in blocks of 2 x ``colours``
items: one congruent, then 2 x ``colours`` - 2 incongruent, then one neutral
(:func:`~lm_eval_cog.probes.core.conflict_condition`), so the
items that need no inhibition are 1/``colours`` of the
task and a reader's expected accuracy (the ``prepotent`` player's) is exactly chance;
``acc_<condition>`` and the effects report each condition beside it. The shortcut audit
pools congruent and incongruent cards into one cell (``audit_cells``: ``colour_words``),
where word reading is right in 1/(2 x ``colours`` - 1) of the items, as a congruent card
keys the word by design. Declared heuristic (:attr:`Stroop.heuristics`): ``word_reading``.

Effects (accuracy versions of the reaction-time effects, MacLeod 1991):
``interference`` = acc(neutral) - acc(incongruent), ``facilitation`` =
acc(congruent) - acc(neutral), ``congruency_effect`` = acc(congruent) -
acc(incongruent), ``word_error_share`` = share of incongruent errors that name the
word (that colour is also the ink of another word of the card, so a misread position
can name it too). A word reader (the ``prepotent`` player) scores 1, 0, 1 and 1, and chance
(1/``colours``) on the headline.
"""

from __future__ import annotations

import re

from dataclasses import dataclass
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.paradigms.base import require_int
from lm_eval_cog.paradigms.probe_base import Heuristic
from lm_eval_cog.probes.aggregations import difference_side
from lm_eval_cog.probes.core import Probe, conflict_condition, place_options

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


def card_inks(rng: np.random.Generator, k: int) -> list[str]:
    """The inks of a card in order: ``k`` colours of the palette, drawn and ordered at random (so the
    key's alphabetical rank among the options is uniform, tied to nothing else)."""
    return [COLOURS[int(c)] for c in rng.permutation(len(COLOURS))[:k]]



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


_ASKED = re.compile(r"ink of word (\d+)\?")


def word_reading_scores(stem: str, options: Sequence[str]) -> list[float] | None:
    """Word reading (Stroop 1935; MacLeod 1991): the option the asked word reads, not its ink; ``None``
    where the word names no option (a neutral word: reading gives no colour)."""
    asked = _ASKED.search(stem)
    entry = asked and re.search(rf'^Word {asked.group(1)} [^\n]*?reads "([^"\n]*)"', stem, re.MULTILINE)
    if not entry:
        return None
    word = entry.group(1).casefold()
    scores = [float(o.casefold() == word) for o in options]
    return scores if any(scores) else None


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
    version = 3.0
    # Congruent cards key the word by design: audited with the incongruent ones (see the docstring).
    audit_cells: ClassVar[Mapping[str, str]] = {"congruent": "colour_words", "incongruent": "colour_words"}
    heuristics = (
        Heuristic("word_reading", "Stroop 1935; MacLeod 1991 (the word is read, not its ink named)",
                  word_reading_scores),
    )

    def item(self, rng: np.random.Generator, params: StroopParams, index: int) -> dict[str, Any]:
        k = params.colours
        condition, j = conflict_condition(index, k)
        # Counterbalanced within each condition by independent digits of j (mixed radix).
        key_at = j % k
        asked = (j // k) % k  # 0-based position of the asked word on the card
        phrasing = PHRASINGS[(j // (k * k)) % 2]
        inks = card_inks(rng, k)
        # The shift and the lure's offset drawn apart: tied, the lure's option position told the shift.
        shift = 1 + int(rng.integers(k - 1))
        lure_offset = 1 + int(rng.integers(k - 1))
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
