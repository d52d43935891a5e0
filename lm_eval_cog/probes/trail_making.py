"""Trail-making analogue (Reitan, 1958; TMT A vs B): continue a counting sequence.

Item: ``Sequence: 3 K 4 L 5 M 6 ?`` -- "Which element comes next?" with four options.
The instructions (the same in both parts) say that a sequence counts up one step at
a time through numbers only, through letters only, or alternating between a number
and a letter with each series counting up on its own, which makes the key unique.
Conditions (cycle by index):

* ``part_a``: one series (TMT part A): ``4 5 6 7 8 ?`` or, on every other part-A
  item, letters ``D E F G ?``, so that the answer is a number in half of the items
  and a letter in the other half in both parts;
* ``part_b``: number and letter series alternating, starting with a number (TMT part
  B; the two series start independently, e.g. ``3 K 4 L``, so that neither can be
  read off the other as in 1-A 2-B); ends on a number or on a letter, in turn.

Options: the key, the *single-series continuation* (part B: the next element of the
series the shown sequence ended on, ignoring the alternation, e.g. "E" after
``... 4 D``; part A: the same-position element of the other kind, "7" for a
sequence whose key is "G"), a skipped element (the key's series two steps on) and
the last element of the key's series repeated. The lure is the single-series
continuation in part B (chance 1/4).

Effects (Reitan, 1958; Sanchez-Cubillo et al., 2009, the B - A difference as the
switching measure):

* ``switching_cost`` = acc(part_a) - acc(part_b) (> 0: alternating costs);
* ``lure_share`` = share of part-B errors that continue the single series (1/3 for
  random errors).

A player that continues the single series (the ``prepotent`` player) scores
switching_cost 1 and lure_share 1.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.paradigms.base import require_int
from lm_eval_cog.probes.aggregations import SIDE_A, SIDE_B
from lm_eval_cog.probes.core import Probe, cycle, normalize_answer

CONDITIONS = ("part_a", "part_b")
LETTERS = string.ascii_uppercase
#: Longest sequence shown; starts are drawn so that no series runs past 26 (Z).
MAX_LENGTH = 16
#: Largest start of a number or letter series (1..9, A..I): counting stays well inside the alphabet.
MAX_START = 9
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
    """The text of the ``value``-th element (1-based) of a series: "7" or "G"."""
    return str(value) if kind == "number" else LETTERS[value - 1]


class TrailMaking(Probe):
    name = "trail_making"
    ability = "flexibility"
    Params = TrailMakingParams
    conditions = CONDITIONS
    lure_conditions = ("part_b",)
    effects: ClassVar[dict[str, tuple[str, bool]]] = {
        "switching_cost": ("difference", False),
        "lure_share": ("conditional_mean", False),
    }

    def item(self, rng: np.random.Generator, params: TrailMakingParams, index: int) -> dict[str, Any]:
        condition = cycle(CONDITIONS, index)
        # The kind of the answer alternates every two items: balanced within each part.
        answer_kind = cycle(("number", "letter"), index // len(CONDITIONS))
        other_kind = "letter" if answer_kind == "number" else "number"
        lengths = range(params.min_length, params.max_length + 1)
        if condition == "part_b":
            # Alternation starts with a number, so the answer is a number after an even length.
            lengths = [n for n in lengths if (n % 2 == 0) == (answer_kind == "number")]
        length = int(lengths[int(rng.integers(len(lengths)))])
        starts = {"number": int(rng.integers(1, MAX_START + 1)), "letter": int(rng.integers(1, MAX_START + 1))}
        if condition == "part_a":
            shown = [element(answer_kind, starts[answer_kind] + t) for t in range(length)]
            last = starts[answer_kind] + length - 1  # the last value of the key's series
            single = element(other_kind, last + 1)  # the same position in the other kind
        else:
            shown = [
                element("number" if t % 2 == 0 else "letter", starts["number" if t % 2 == 0 else "letter"] + t // 2)
                for t in range(length)
            ]
            last = starts[answer_kind] + length // 2 - 1
            single = element(other_kind, starts[other_kind] + (length - 1) // 2 + 1)
        key = element(answer_kind, last + 1)
        options = [key, single, element(answer_kind, last + 2), element(answer_kind, last)]
        choices = [options[int(i)] for i in rng.permutation(len(options))]
        prompt = (
            "Each sequence counts up one step at a time: through numbers only (1 2 3 ...), through letters "
            "only (A B C ...), or alternating between a number and a letter, the numbers and the letters each "
            "counting up on their own (1 A 2 B ...).\n"
            f"Sequence: {' '.join(shown)} ?\n"
            f"Which element comes next? Options: {', '.join(choices)}."
        )
        return {
            "prompt": prompt,
            "choices": choices,
            "gold": choices.index(key),
            "condition": condition,
            "lure": choices.index(single) if condition == "part_b" else -1,
            "answer_kind": answer_kind,
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
        return -1 if _ELEMENT.fullmatch(text) else None

    def effect_values(self, doc: dict[str, Any], pred: int | None) -> dict[str, Any]:
        correct = float(pred == doc["gold"])
        part_b = doc["condition"] == "part_b"
        return {
            "switching_cost": (SIDE_B if part_b else SIDE_A, correct),
            "lure_share": (part_b and not correct, float(part_b and pred == doc["lure"])),
        }


PROBE = TrailMaking()
