"""Letter flanker task (Eriksen & Eriksen, 1974): name a row's middle letter, ignore its neighbours.

Item: a card of rows, one per letter of the *response set*, and a question about the
middle letter of one row; the options are the response set::

    Rows of letters:
    Row 1: K K S K K
    Row 2: S S H S S
    Row 3: H H K H H
    What is the middle letter of row 2? Options: K, H, S.

The response set is ``options`` letters drawn per item from consonants (no vowels: "A"
and "I" are words, "O" looks like a zero); each row has ``flankers`` letters on each side
of its target, and the targets of the rows are the response set, each once. A card is
homogeneous:

* ``congruent``: every row's flankers are its target (``H H H H H``);
* ``incongruent``: every row's flankers are another letter of the response set: row r
  is flanked by the target of row r + s (cyclically, s drawn per item), so the asked row's
  flanker is a wrong option, the lure (``S S H S S``);
* ``neutral``: every row's flankers are one letter outside the response set
  (``X X H X X``), the control of Eriksen & Eriksen's "noise" conditions.

Why a card: in a single row the target is the letter that occurs once (incongruent) or
the only letter (congruent), so "the unique letter" and "the letter of the row" answer
without finding the middle. On a card every option is a target once and, on an
incongruent card, a flanker of another row, so each option occurs equally often and the
majority or the unique letter of the card is no answer; the row asked about is cued
explicitly and its place varies (first, middle, last). Counterbalanced by index within
each condition, as independent digits: the key's option position and the asked row; drawn
per item: the letters and their order on the card (so the key's alphabetical rank among
the options), the shift s and the lure's option position. (Version 2 tied the key's
alphabetical rank to its option position and the asked row by a Latin square, and the
lure's offset to the shift: a classifier of option position, value rank and mention order
learned the square across seeds, 0.67 vs 0.33 on congruent cards; issue 28.)

The headline (version 3; issue 28): the prepotent response, reading the asked row (its
flankers where they are an option, else the one option on the row), is right on every
congruent and neutral item and wrong on every incongruent one, so with conditions in
thirds a reader scored 2/3 (0.83 with the two letters of an incongruent row tied) and the
headline mostly rewarded reading. Now conditions cycle by index in blocks of 2 x
``options`` items: one congruent, then 2 x ``options`` - 2 incongruent, then one neutral
(:func:`~lm_eval_cog.probes.core.conflict_condition`), so the
items that need no inhibition are 1/``options`` of the task
and a reader's expected accuracy (the ``prepotent`` player's) is exactly chance;
``acc_<condition>`` and the effects report each condition beside it. The shortcut audit
pools congruent and incongruent cards into one cell (``audit_cells``: ``letter_flankers``),
as a congruent card keys the flankers by design. Declared heuristic
(:attr:`Flanker.heuristics`): ``flanker_reading``.

Effects (accuracy versions of the reaction-time effects; Eriksen & Eriksen 1974,
Eriksen 1995): ``flanker_effect`` = acc(congruent) - acc(incongruent);
``interference`` = acc(neutral) - acc(incongruent) (the cost of a response-incompatible
flanker beyond that of any flanker); ``flanker_error_share`` = share of incongruent
errors that name the flanker (also the middle of another row, so a misread row can name
it too). Positive values mean the flankers captured the answer.
A reader of the asked row (the ``prepotent`` player) scores 1, 1 and 1, and chance
(1/``options``) on the headline.
"""

from __future__ import annotations

import re

from dataclasses import dataclass
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.paradigms.base import require_int
from lm_eval_cog.paradigms.probe_base import Heuristic
from lm_eval_cog.probes.aggregations import difference_side
from lm_eval_cog.probes.core import Probe, conflict_condition, place_options

#: Consonants only: vowels read as words ("A", "I") or digits ("O").
LETTERS = "BCDFGHJKLMNPRSTVXZ"
CONDITIONS = ("congruent", "incongruent", "neutral")
MAX_FLANKERS = 8


@dataclass(frozen=True)
class FlankerParams:
    """Attributes:
    flankers: Flanking letters on each side of a row's target, 1..8 (2: ``S S H S S``).
    options: Size of the response set, 3..6 (3): the options of every item and the rows of a card.
    """

    flankers: int = 2
    options: int = 3

    def __post_init__(self) -> None:
        require_int("flanker", "flankers", self.flankers, 1)
        if self.flankers > MAX_FLANKERS:
            raise ValueError(f"flanker parameter 'flankers' must be in 1..{MAX_FLANKERS}, got {self.flankers}")
        require_int("flanker", "options", self.options, 3)
        if self.options > 6:
            raise ValueError(f"flanker parameter 'options' must be in 3..6, got {self.options}")



def card_flankers(condition: str, targets: list[str], outsider: str, shift: int) -> list[str]:
    """The flanker letter of each row of a ``condition`` card whose targets are ``targets``: on an
    incongruent card, row r is flanked by the target of row r + ``shift`` (cyclically, 1 <= shift < k)."""
    if condition == "congruent":
        return list(targets)
    if condition == "incongruent":
        return [targets[(r + shift) % len(targets)] for r in range(len(targets))]
    return [outsider] * len(targets)


_ASKED = re.compile(r"middle letter of row (\d+)\?")


def flanker_reading_scores(stem: str, options: Sequence[str]) -> list[float] | None:
    """Reading the flankers (Eriksen & Eriksen 1974): the majority letter of the asked row, not its
    middle; ``None`` where that letter is no option (neutral flankers: reading gives no answer)."""
    asked = _ASKED.search(stem)
    row = asked and re.search(rf"^Row {asked.group(1)}: ([^\n]*)$", stem, re.MULTILINE)
    if not row or not row.group(1).split():
        return None
    majority = Counter(row.group(1).split()).most_common(1)[0][0].casefold()
    scores = [float(o.casefold() == majority) for o in options]
    return scores if any(scores) else None


class Flanker(Probe):
    name = "flanker"
    ability = "inhibition"
    Params = FlankerParams
    conditions = CONDITIONS
    lure_conditions = ("incongruent",)
    effects: ClassVar[dict[str, tuple[str, bool]]] = {
        "flanker_effect": ("difference", False),
        "interference": ("difference", False),
        "flanker_error_share": ("conditional_mean", False),
    }
    version = 3.0
    # Congruent cards key the flankers by design: audited with the incongruent ones (see the docstring).
    audit_cells: ClassVar[Mapping[str, str]] = {"congruent": "letter_flankers", "incongruent": "letter_flankers"}
    heuristics = (
        Heuristic("flanker_reading", "Eriksen & Eriksen 1974 (the flankers, the row's majority, are read)",
                  flanker_reading_scores),
    )

    def item(self, rng: np.random.Generator, params: FlankerParams, index: int) -> dict[str, Any]:
        k, f = params.options, params.flankers
        condition, j = conflict_condition(index, k)
        # Counterbalanced within each condition by independent digits of j (mixed radix).
        key_at = j % k
        asked = (j // k) % k  # 0-based row asked about
        # The letters, their order, the shift and the lure's offset drawn per item, apart: tied (version
        # 2), the lure's option position told the shift and the key's alphabetical rank its position.
        drawn = [LETTERS[int(i)] for i in rng.permutation(len(LETTERS))[: k + 1]]
        targets, outsider = drawn[:-1], drawn[-1]
        shift = 1 + int(rng.integers(k - 1))
        lure_offset = 1 + int(rng.integers(k - 1))
        flankers = card_flankers(condition, targets, outsider, shift)
        rows = [" ".join([side] * f + [middle] + [side] * f) for middle, side in zip(targets, flankers)]
        target, flanker = targets[asked], flankers[asked]
        lure = flanker if condition == "incongruent" else None
        choices = place_options(rng, targets, target, key_at, lure, lure_offset)
        lines = ["Rows of letters:"]
        lines += [f"Row {n}: {row}" for n, row in enumerate(rows, 1)]
        lines.append(f"What is the middle letter of row {asked + 1}? Options: {', '.join(choices)}.")
        return {
            "prompt": "\n".join(lines),
            "choices": choices,
            "gold": choices.index(target),
            "condition": condition,
            "lure": choices.index(lure) if lure is not None else -1,
            "target": target,
            "flanker": flanker,
            "row": rows[asked],
            "row_number": asked + 1,
        }

    def effect_values(self, doc: dict[str, Any], pred: int | None) -> dict[str, Any]:
        correct = float(pred == doc["gold"])
        cond = doc["condition"]
        return {
            "flanker_effect": (difference_side(cond, "congruent", "incongruent"), correct),
            "interference": (difference_side(cond, "neutral", "incongruent"), correct),
            "flanker_error_share": (cond == "incongruent" and not correct, float(pred == doc["lure"])),
        }


PROBE = Flanker()
