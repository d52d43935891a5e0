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
of its target, and the targets of the rows are the response set, each once. Conditions
cycle by index; a card is homogeneous:

* ``congruent``: every row's flankers are its target (``H H H H H``);
* ``incongruent``: every row's flankers are another letter of the response set: row r
  is flanked by the target of row r + s (cyclically), so the asked row's flanker is a
  wrong option, the lure (``S S H S S``);
* ``neutral``: every row's flankers are one letter outside the response set
  (``X X H X X``), the control of Eriksen & Eriksen's "noise" conditions.

Why a card: in a single row the target is the letter that occurs once (incongruent) or
the only letter (congruent), so "the unique letter" and "the letter of the row" answer
without finding the middle. On a card every option is a target once and, on an
incongruent card, a flanker of another row, so each option occurs equally often and the
majority or the unique letter of the card is no answer; the row asked about is cued
explicitly and its place varies (first, middle, last). Counterbalanced by index within
each condition: the key's option position, the asked row, the key's rank among the
options in alphabetical order, and the lure's option position (offset from the key) with
the shift s.

Effects (accuracy versions of the reaction-time effects; Eriksen & Eriksen 1974,
Eriksen 1995): ``flanker_effect`` = acc(congruent) - acc(incongruent);
``interference`` = acc(neutral) - acc(incongruent) (the cost of a response-incompatible
flanker beyond that of any flanker); ``flanker_error_share`` = share of incongruent
errors that name the flanker (also the middle of another row, so a misread row can name
it too). Positive values mean the flankers captured the answer.
A reader of the asked row's majority letter (the ``prepotent`` player) scores 1, 1 and
1; chance is 1/``options``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.paradigms.base import require_int
from lm_eval_cog.probes.aggregations import difference_side
from lm_eval_cog.probes.core import Probe, cycle, place_options

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


def card_targets(rng: np.random.Generator, letters: list[str], asked: int, alphabetical: int) -> list[str]:
    """The rows' targets in card order: ``letters`` shuffled, the one of alphabetical rank
    ``alphabetical`` in row ``asked`` (so the key's rank among the sorted options is counterbalanced)."""
    ranked = sorted(letters)
    key = ranked[alphabetical]
    rest = [c for c in letters if c != key]
    rest = [rest[int(i)] for i in rng.permutation(len(rest))]
    return rest[:asked] + [key] + rest[asked:]


def card_flankers(condition: str, targets: list[str], outsider: str, shift: int) -> list[str]:
    """The flanker letter of each row of a ``condition`` card whose targets are ``targets``: on an
    incongruent card, row r is flanked by the target of row r + ``shift`` (cyclically, 1 <= shift < k)."""
    if condition == "congruent":
        return list(targets)
    if condition == "incongruent":
        return [targets[(r + shift) % len(targets)] for r in range(len(targets))]
    return [outsider] * len(targets)




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
    version = 2.0

    def item(self, rng: np.random.Generator, params: FlankerParams, index: int) -> dict[str, Any]:
        k, f = params.options, params.flankers
        condition = cycle(CONDITIONS, index)
        # Counterbalanced within each condition by the digits of index // 3 (mixed radix).
        j = index // len(CONDITIONS)
        key_at = j % k
        asked = (j // k) % k  # 0-based row asked about
        alphabetical = (j + j // k) % k  # the key's rank among the sorted options: a Latin square on the two above
        # One digit sets both the lure's option offset and the incongruent rows' shift: each is
        # balanced, and the shift balances which letter a card names first and last.
        lure_offset = shift = 1 + (j // (k * k)) % (k - 1)
        drawn = [LETTERS[int(i)] for i in rng.permutation(len(LETTERS))[: k + 1]]
        targets, outsider = card_targets(rng, drawn[:-1], asked, alphabetical), drawn[-1]
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
