"""Trail-making analogue (Reitan, 1958; TMT A vs B): continue a counting sequence.

Item: ``Sequence: 113 K 114 L 115 M 116 ?`` -- "Which element comes next?" with four options.
The instructions (the same in both parts) say that a sequence counts one step at a
time, up or down, through numbers only, through letters only, or alternating between
a number and a letter with each series counting on its own, which makes the key
unique. Conditions (in blocks of four by index: one part-A item, then three part-B items;
:func:`condition_of`):

* ``part_a``: one series (TMT part A): ``514 515 516 517 518 ?`` or, on every other part-A
  item, letters ``F G H I ?``, so that the answer is a number in half of the items
  and a letter in the other half in both parts;
* ``part_b``: number and letter series alternating, starting with a number (TMT part
  B; the two series start independently, e.g. ``213 K 214 L``, so that neither can be
  read off the other as in 1-A 2-B); ends on a number or on a letter, in turn.

Every other pair of items counts down (``141 W 140 V 139 ?``): counting up, the key is
the higher of the two options of its kind, counting down the lower. Numbers have three
digits (100..999) and option letters run D..Z, so options of one kind have one length
and the instructions' examples (1 2 3, A B C) name none of them. (Version 3.1: version
3.0's two-digit numbers left so few series that two seeds shared 4 of 300 items up to
option order; now under 1 in 300.)

Options: two of each kind, none of them shown in the sequence: the key and the *reversal*
element (its series one step before its first shown element: counting on the wrong way);
the *single-series continuation* (part B: the next element of the series the shown
sequence ended on, ignoring the alternation, e.g. "E" after ``... 114 D``; the lure) and
the reversal element of that series. Part A has no second series: its other-kind pair
comes in the same way from a series of that kind, as long, that is not shown. Each pair
is thus the two ends of its series' range extended by one, and the range is drawn
whatever the direction (version 3; issue 28): version 2's foil was the element two steps
on, and as a long letter series fits in D..Z only near its end, the place of a letter
pair in the alphabet told the direction (in 74% of part-A letter items), hence which of
the two was the key: a classifier of surface features scored 0.32 vs 0.25 on part A.
Numbers sort before letters, so the key's value rank among the four options is uniform
over the items; its position cycles by index (chance 1/4).

Effects (Reitan, 1958; Sanchez-Cubillo et al., 2009, the B - A difference as the
switching measure):

* ``switching_cost`` = acc(part_a) - acc(part_b) (> 0: alternating costs);
* ``lure_share`` = share of part-B errors that continue the single series (1/3 for
  random errors).

A player that continues the single series (the ``prepotent`` player) scores
switching_cost 1 and lure_share 1. Continuing the series the sequence ended on is the task
in part A and the lure in part B, so with the parts half and half that player scored 0.50
on the headline against a chance of 0.25 (version 2); with part A a quarter of the items
(version 3; issue 28) it scores exactly chance, and ``acc_part_a``, ``acc_part_b`` and the
switching cost report each part beside it. Declared heuristic (:attr:`TrailMaking.heuristics`):
``single_series`` (part B: in part A it is the task).
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.answers import MAX_DIGITS
from lm_eval_cog.paradigms.base import require_int
from lm_eval_cog.probes.aggregations import SIDE_A, SIDE_B
from lm_eval_cog.paradigms.probe_base import Heuristic
from lm_eval_cog.probes.core import Probe, cycle, normalize_answer

CONDITIONS = ("part_a", "part_b")
KINDS = ("number", "letter")
LETTERS = string.ascii_uppercase
#: Longest sequence shown.
MAX_LENGTH = 16
#: Values of numbers (all three-digit: options of one kind have one length).
NUMBERS = (100, 999)
#: Values of option letters: D..Z, never A, B, C, which the instructions name (series may show them).
OPTION_LETTERS = (4, 26)
#: A sequence counts up or down (in turn by index): the key is the lower of its kind's two
#: options when counting up and the higher when counting down.
STEPS = (1, -1)
#: Options per item (two numbers, two letters).
OPTIONS = 4
_ELEMENT = re.compile(r"\d+|[a-z]")


@dataclass(frozen=True)
class TrailMakingParams:
    """Attributes:
    min_length: Fewest elements shown, >= 4 (6): part B shows each series twice at least.
    max_length: Most elements shown, min_length+1..16 (12); the length is uniform in
        between (in part B, among the lengths that end on the other kind than the key's).
    """

    min_length: int = 6
    max_length: int = 12

    def __post_init__(self) -> None:
        require_int("trail_making", "min_length", self.min_length, 4)
        require_int("trail_making", "max_length", self.max_length, 4)
        # Both parities are needed: part B ends on a number or on a letter in turn.
        if not self.min_length < self.max_length <= MAX_LENGTH:
            raise ValueError(
                f"trail_making parameter 'max_length' must be in min_length+1..{MAX_LENGTH} "
                f"({self.min_length + 1}..{MAX_LENGTH}), got {self.max_length}"
            )


def element(kind: str, value: int) -> str:
    """The text of the ``value``-th element (1-based) of a series: "17" or "G"."""
    return str(value) if kind == "number" else LETTERS[value - 1]


def draw_series(rng: np.random.Generator, kind: str, count: int, step: int) -> list[int]:
    """``count`` values of a series of ``kind`` counting by ``step``, in shown order: its range is
    uniform over the ranges whose two neighbours (the options) are option values, drawn before and
    apart from the direction (so where the options lie tells nothing of it)."""
    low, high = NUMBERS if kind == "number" else OPTION_LETTERS
    first = int(rng.integers(low + 1, high - count + 1))  # first - 1 >= low, first + count <= high
    values = [first + t for t in range(count)]
    return values if step == 1 else values[::-1]


def pair(kind: str, values: list[int], step: int) -> tuple[str, str]:
    """(the series' next element, the element before its first): two options of one kind; a reader
    who counts the wrong way from the start gives the second."""
    return element(kind, values[-1] + step), element(kind, values[0] - step)


def condition_of(index: int) -> tuple[str, int]:
    """The part of item ``index`` and its rank within that part: blocks of four, one part-A item then
    three part-B items (so the prepotent single-series continuation is the key in a quarter of them)."""
    block, slot = divmod(index, 4)
    return ("part_a", block) if slot == 0 else ("part_b", 3 * block + slot - 1)


_SEQUENCE = re.compile(r"Sequence: ([^\n?]*)\?")


def single_series_scores(stem: str, options: list[str] | tuple[str, ...]) -> list[float] | None:
    """Perseveration on one series (Reitan 1958; Kortte, Horner & Windham 2002): the next element of
    the series the sequence ended on, ignoring the alternation."""
    shown = _SEQUENCE.search(stem)
    tokens = shown.group(1).split() if shown else []
    same = [t for t in tokens if t.isdigit() == tokens[-1].isdigit()] if tokens else []
    if len(same) < 2:
        return None
    value = (lambda t: int(t)) if same[-1].isdigit() else (lambda t: LETTERS.index(t) + 1)
    step = value(same[-1]) - value(same[-2])
    nxt = value(same[-1]) + step
    text = str(nxt) if same[-1].isdigit() else (LETTERS[nxt - 1] if 1 <= nxt <= len(LETTERS) else "")
    scores = [float(o == text) for o in options]
    return scores if any(scores) else None


class TrailMaking(Probe):
    name = "trail_making"
    ability = "flexibility"
    Params = TrailMakingParams
    conditions = CONDITIONS
    version = 3.1
    heuristics = (
        Heuristic("single_series", "Reitan 1958; Kortte, Horner & Windham 2002 (perseveration on one series)",
                  single_series_scores, ("part_b",)),
    )
    lure_conditions = ("part_b",)
    effects: ClassVar[dict[str, tuple[str, bool]]] = {
        "switching_cost": ("difference", False),
        "lure_share": ("conditional_mean", False),
    }

    def identity(self, doc: dict[str, Any]) -> Any:
        """The question without its options: a seed never asks for the same sequence's next element
        twice, even with other options (part A's short series repeated a few times in 300 items)."""
        return doc["prompt"].split(" Options: ", 1)[0]

    def item(self, rng: np.random.Generator, params: TrailMakingParams, index: int) -> dict[str, Any]:
        condition, j = condition_of(index)
        # Crossed by j within each part: the key's kind, whether the key is the lower or the higher
        # of its kind (with the kind: its value rank), then its position among the options.
        answer_kind = cycle(KINDS, j)
        step = cycle(STEPS, j // 2)
        position = (j // 4) % OPTIONS
        other_kind = KINDS[1 - KINDS.index(answer_kind)]
        lengths = range(params.min_length, params.max_length + 1)
        if condition == "part_b":
            # Alternation starts with a number, so the answer is a number after an even length.
            lengths = [n for n in lengths if (n % 2 == 0) == (answer_kind == "number")]
        length = int(lengths[int(rng.integers(len(lengths)))])
        if condition == "part_a":
            series = {answer_kind: draw_series(rng, answer_kind, length, step)}
            shown = [element(answer_kind, v) for v in series[answer_kind]]
            # The other kind's options come from a series that is not shown, as long as the one shown.
            series[other_kind] = draw_series(rng, other_kind, length, step)
        else:
            series = {kind: draw_series(rng, kind, (length + (kind == "number")) // 2, step) for kind in KINDS}
            shown = [element(KINDS[t % 2], series[KINDS[t % 2]][t // 2]) for t in range(length)]
        key, key_foil = pair(answer_kind, series[answer_kind], step)
        single, other_foil = pair(other_kind, series[other_kind], step)
        foils = [key_foil, single, other_foil]
        foils = [foils[int(k)] for k in rng.permutation(len(foils))]
        choices = foils[:position] + [key] + foils[position:]
        prompt = (
            "Each sequence counts one step at a time, up or down: through numbers only (1 2 3 ... or "
            "3 2 1 ...), through letters only (A B C ... or C B A ...), or alternating between a number and a "
            "letter, the numbers and the letters each counting on their own in the same direction "
            "(1 A 2 B ... or 3 C 2 B ...).\n"
            f"Sequence: {' '.join(shown)} ?\n"
            f"Which element comes next? Options: {', '.join(choices)}."
        )
        return {
            "prompt": prompt,
            "choices": choices,
            "gold": position,
            "condition": condition,
            "lure": choices.index(single) if condition == "part_b" else -1,
            "answer_kind": answer_kind,
            "step": step,
            "sequence": " ".join(shown),
            "length": length,
        }

    def read(self, doc: dict[str, Any], answer: str) -> int | None:
        """One element: a choice (any case, decorated) or -1 for another single number or
        letter (a wrong element); anything else (two elements, prose) is invalid."""
        text = normalize_answer(answer)
        for k, choice in enumerate(doc["choices"]):
            if normalize_answer(choice) == text:
                return k
        # A number of more than a few digits is no element (never a 5000-digit wrong answer).
        return -1 if _ELEMENT.fullmatch(text) and len(text) <= MAX_DIGITS else None

    def effect_values(self, doc: dict[str, Any], pred: int | None) -> dict[str, Any]:
        correct = float(pred == doc["gold"])
        part_b = doc["condition"] == "part_b"
        return {
            "switching_cost": (SIDE_B if part_b else SIDE_A, correct),
            "lure_share": (part_b and not correct, float(part_b and pred == doc["lure"])),
        }


PROBE = TrailMaking()
