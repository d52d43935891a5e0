"""Calendar scheduling (the calendar task of NATURAL PLAN, Zheng et al., 2024): find the earliest common slot.

Item: k people (2-4) with busy intervals in a 9:00-17:00 work day on a 30-minute
grid, a meeting of 30 or 60 minutes and, in every other block of items, a
preference ("Bob would rather not meet before 11:00"); the key is the earliest
start at which everyone is free for the whole meeting and the preference holds,
written ``HH:MM-HH:MM``. Items are drawn so that the preference binds (without it
the earliest slot would be earlier), a later feasible slot exists, and some
earlier slot misses by exactly one constraint.

Choices: the key; the lure, the earliest slot that violates exactly one constraint
(one person's busy time, or the preference): the answer of a planner who drops one
constraint, the typical NATURAL PLAN error; a later feasible slot (right but not
earliest); an infeasible slot. The gen form reads a time range strictly (``9:00`` or
``09:00``; ``-``, en dash or ``to``); a well-formed range that is no choice is wrong
(-1), anything else invalid.

Conditions ``k2``, ``k3``, ``k4``: the number of participants (cycled by index); the
preference alternates in blocks of three items (``preference`` field).
Effects (a cost is positive when the harder items are failed more):
``participant_cost`` = acc(k2) - acc(k4); ``constraint_cost`` = acc(no preference) -
acc(preference); ``near_miss_share`` = share of errors that pick the lure. The
one-constraint-dropping (``prepotent``) player scores 0 with ``near_miss_share`` 1.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.paradigms.base import require_int
from lm_eval_cog.probes.aggregations import SIDE_A, SIDE_B, difference_side
from lm_eval_cog.probes.core import Probe, cycle, normalize_answer

CONDITIONS = ("k2", "k3", "k4")
NAMES = ("Alice", "Bob", "Carol", "David", "Emma", "Frank", "Grace", "Henry", "Irene", "James")
DAY_START, SLOT = 9 * 60, 30  # minutes after midnight; the grid
SLOTS = 16  # 9:00-17:00
#: Earliest-start preferences: 10:00 .. 13:00.
PREFERENCE_SLOTS = range(2, 9)
_RANGE = re.compile(r"^(\d{1,2}):(\d{2})\s*(?:-|\u2013|to)\s*(\d{1,2}):(\d{2})$")


@dataclass(frozen=True)
class CalendarParams:
    """Attributes:
    max_busy: Most busy intervals a person has, 1..6 (3); each draws 1..max_busy.
    """

    max_busy: int = 3

    def __post_init__(self) -> None:
        require_int("calendar", "max_busy", self.max_busy, 1)
        if self.max_busy > 6:
            raise ValueError(f"calendar parameter 'max_busy' must be in 1..6, got {self.max_busy}")


def clock(minutes: int) -> str:
    return f"{minutes // 60}:{minutes % 60:02d}"


def slot_text(start: int, length: int) -> str:
    """The time range of a meeting starting at grid slot ``start``, ``length`` slots long."""
    return f"{clock(DAY_START + start * SLOT)}-{clock(DAY_START + (start + length) * SLOT)}"


def intervals(busy: set[int]) -> list[tuple[int, int]]:
    """Busy slots merged into maximal [start, end) runs."""
    runs: list[tuple[int, int]] = []
    for s in sorted(busy):
        if runs and runs[-1][1] == s:
            runs[-1] = (runs[-1][0], s + 1)
        else:
            runs.append((s, s + 1))
    return runs


def violations(start: int, length: int, busy: list[set[int]], pref: int) -> list[str]:
    """The constraints a meeting at ``start`` breaks: person names (by index) and "preference"."""
    span = set(range(start, start + length))
    broken = [str(k) for k, b in enumerate(busy) if span & b]
    return broken + (["preference"] if start < pref else [])


class Calendar(Probe):
    name = "calendar"
    ability = "planning"
    Params = CalendarParams
    conditions = CONDITIONS
    lure_conditions = CONDITIONS
    effects: ClassVar[dict[str, tuple[str, bool]]] = {
        "participant_cost": ("difference", False),
        "constraint_cost": ("difference", False),
        "near_miss_share": ("conditional_mean", False),
    }

    def item(self, rng: np.random.Generator, params: CalendarParams, index: int) -> dict[str, Any]:
        condition = cycle(CONDITIONS, index)
        k = int(condition[1:])
        preference = bool((index // len(CONDITIONS)) % 2)
        while True:
            drawn = self._draw(rng, params, k, preference)
            if drawn is not None:
                break
        names, busy, length, pref, who, slots = drawn
        key, lure, later, infeasible = slots
        texts = [slot_text(s, length) for s in (key, lure, later, infeasible)]
        order = [int(j) for j in rng.permutation(4)]
        choices = [texts[j] for j in order]
        broken = violations(lure, length, busy, pref)[0]
        lines = []
        for name, b in zip(names, busy):
            spans = [f"{clock(DAY_START + s * SLOT)}-{clock(DAY_START + e * SLOT)}" for s, e in intervals(b)]
            lines.append(f"{name} is busy {', '.join(spans[:-1]) + ' and ' + spans[-1] if len(spans) > 1 else spans[0]}.")
        if preference:
            lines.append(f"{names[who]} would rather not meet before {clock(DAY_START + pref * SLOT)}.")
        prompt = (
            f"Schedule a {length * SLOT}-minute meeting for {', '.join(names[:-1])} and {names[-1]} "
            "today between 9:00 and 17:00.\n" + "\n".join(lines) + "\n"
            "Find the earliest time at which everyone is free for the whole meeting"
            + (" and the preference is respected" if preference else "")
            + ". Give the meeting as a time range HH:MM-HH:MM (24-hour clock)."
        )
        return {
            "prompt": prompt,
            "choices": choices,
            "gold": order.index(0),
            "condition": condition,
            "lure": order.index(1),
            "participants": k,
            "duration": length * SLOT,
            "preference": preference,
            "lure_kind": "preference" if broken == "preference" else "busy",
        }

    def _draw(self, rng: np.random.Generator, params: CalendarParams, k: int, preference: bool) -> tuple | None:
        names = [NAMES[int(j)] for j in rng.permutation(len(NAMES))[:k]]
        length = int(rng.integers(1, 3))
        busy = []
        for _ in range(k):
            slots: set[int] = set()
            for _ in range(int(rng.integers(1, params.max_busy + 1))):
                start, size = int(rng.integers(SLOTS)), int(rng.integers(1, 5))
                slots |= set(range(start, min(start + size, SLOTS)))
            busy.append(slots)
        who = int(rng.integers(k))
        pref = int(rng.choice(list(PREFERENCE_SLOTS))) if preference else 0
        starts = range(SLOTS - length + 1)
        feasible = [s for s in starts if not violations(s, length, busy, pref)]
        near = [s for s in starts if len(violations(s, length, busy, pref)) == 1]
        if not feasible or len(feasible) < 2:
            return None
        key = feasible[0]
        if preference and not [s for s in starts if s < key and not violations(s, length, busy, 0)]:
            return None  # the preference must bind
        near = [s for s in near if s < key]
        infeasible = [s for s in starts if violations(s, length, busy, pref) and (not near or s != near[0])]
        if not near or not infeasible:
            return None
        later = feasible[1:]
        slots = (key, near[0], later[int(rng.integers(len(later)))], infeasible[int(rng.integers(len(infeasible)))])
        return names, busy, length, pref, who, slots

    def read(self, doc: dict[str, Any], answer: str) -> int | None:
        """The slot a time range names (strict form), -1 for a range that is no choice."""
        wanted = _parse_range(answer)
        if wanted is None:
            return None
        for k, choice in enumerate(doc["choices"]):
            if _parse_range(choice) == wanted:
                return k
        return -1

    def effect_values(self, doc: dict[str, Any], pred: int | None) -> dict[str, Any]:
        correct = float(pred == doc["gold"])
        cond = doc["condition"]
        k_side = difference_side(cond, CONDITIONS[0], CONDITIONS[-1])
        return {
            "participant_cost": (k_side, correct),
            "constraint_cost": (SIDE_B if doc["preference"] else SIDE_A, correct),
            "near_miss_share": (not correct, float(pred == doc["lure"])),
        }


def _parse_range(text: str) -> tuple[int, int] | None:
    match = _RANGE.match(normalize_answer(text))
    if not match:
        return None
    h1, m1, h2, m2 = (int(g) for g in match.groups())
    if h1 > 23 or h2 > 23 or m1 > 59 or m2 > 59:
        return None
    return h1 * 60 + m1, h2 * 60 + m2


PROBE = Calendar()
