"""Calendar scheduling (the calendar task of NATURAL PLAN, Zheng et al., 2024): find the earliest common slot.

Item: k people (2-4) with busy intervals in a 9:00-17:00 work day on a 30-minute
grid, a meeting of 30 or 60 minutes and, in every other item of a condition, a
preference ("Bob would rather not meet before 11:00", at or before the key's start);
the key is the earliest start at which everyone is free for the whole meeting and the
preference holds, written ``HH:MM-HH:MM``. A preference always binds (without it some
earlier slot would do).

Choices: four slots of the day. Their start times are drawn first, uniformly among
starts at least the meeting's length plus half an hour apart (so each time is the key
1/4 of the times it is offered: no time of day, and no text, is a cue);
the key is the r-th earliest of them, r cycled 0..3 within each condition (so "the
earliest option", "the middle one" are right 1/4 of the time), and its position among
the choices cycles too. The schedule is then built around them: every start before
the key is blocked (someone's busy time, or the preference), the key is free. The
foils: the **lure**, a near miss that breaks exactly one constraint (one person's busy
time, or the preference): an earlier option where the key is not the earliest (the
answer of a planner who drops one constraint, the typical NATURAL PLAN error), a later
one where it is; a later slot that is free for all (right but not earliest) where
any option follows the key; the rest are free or not as the schedule makes them.
No option is a busy interval that the prompt names, and someone's busy time ends where
each option starts (as it always ends where the key starts, the slot before the earliest
free start being busy), so a start time the prompt names is no cue. The gen form reads a time range
strictly (``9:00`` or ``09:00``; ``-``, en dash or ``to``); a well-formed range that is
no choice is wrong (-1), anything else invalid.

Conditions ``k2``, ``k3``, ``k4``: the number of participants (cycled by index); the
preference alternates within each condition (``preference`` field).
Effects (a cost is positive when the harder items are failed more):
``participant_cost`` = acc(k2) - acc(k4); ``constraint_cost`` = acc(no preference) -
acc(preference); ``near_miss_share`` = share of errors that pick the lure. The
near-miss (``prepotent``) player scores 0 with ``near_miss_share`` 1.
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
# A time range as answers write it (after normalize_answer: case-folded, single blanks):
# "9:00-9:30", "from 9:00 to 9:30", "between 9:00 and 9:30", "9:00 – 9:30", "1:00-1:30 pm".
_RANGE = re.compile(
    r"^(?P<lead>from |between )?(\d{1,2}):(\d{2}) ?(am|pm|a\.m\.?|p\.m\.?)? ?"
    r"(?P<sep>-|\u2013|\u2014|\u2212|to|until|till|and) ?(\d{1,2}):(\d{2}) ?(am|pm|a\.m\.?|p\.m\.?)?$"
)


@dataclass(frozen=True)
class CalendarParams:
    """Attributes:
    max_busy: Most busy intervals a person draws at random, 1..6 (3); each draws
        1..max_busy, and the building of the item around its options (see
        :func:`draw_schedule`) may lengthen them or add a few half-hours.
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


#: Options per item: the key and three foils.
N_OPTIONS = 4
#: Schedules drawn before an item gives up (one fits in a few draws).
MAX_SCHEDULES = 500


def design(index: int) -> tuple[int, bool, int, int]:
    """(participants, preference, key rank, key position) of item ``index``, by construction.

    Within each participant condition (``j`` = its own item count) the preference alternates,
    the key's rank among the options in time order (0 = earliest) cycles every 2 items, and its
    position among the choices cycles every item, shifted by one every 8: every (preference, rank,
    position) cell is filled once in 32 items, so no rank or position is the key's more often.
    """
    k = int(cycle(CONDITIONS, index)[1:])
    j = index // len(CONDITIONS)
    return k, bool(j % 2), (j // 2) % N_OPTIONS, (j + j // 8) % N_OPTIONS


@dataclass
class Schedule:
    """A drawn item: who is busy when, the meeting, the preference and the option slots."""

    names: list[str]
    busy: list[set[int]]
    length: int
    pref: int  # grid slot before which the preference forbids a start; 0 without one
    who: int  # the person with the preference
    key: int
    lure: int
    foils: list[int]  # the other two foils


class Calendar(Probe):
    name = "calendar"
    ability = "planning"
    version = 2.0
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
        k, preference, rank, position = design(index)
        for _ in range(MAX_SCHEDULES):
            drawn = draw_schedule(rng, params, k, preference, rank)
            if drawn is not None:
                break
        else:  # pragma: no cover - a schedule fits within a few draws
            raise AssertionError(f"calendar item {index}: no schedule in {MAX_SCHEDULES} draws")
        foils = [drawn.lure, *drawn.foils]
        foils = [foils[int(j)] for j in rng.permutation(len(foils))]
        slots = foils[:position] + [drawn.key] + foils[position:]
        broken = violations(drawn.lure, drawn.length, drawn.busy, drawn.pref)[0]
        return {
            "prompt": _prompt(drawn),
            "choices": [slot_text(s, drawn.length) for s in slots],
            "gold": position,
            "condition": condition,
            "lure": slots.index(drawn.lure),
            "participants": k,
            "duration": drawn.length * SLOT,
            "preference": preference,
            "lure_kind": "preference" if broken == "preference" else "busy",
            "key_rank": rank,
        }

    def read(self, doc: dict[str, Any], answer: str) -> int | None:
        """The slot a time range names ("9:00-9:30", "from 9:00 to 9:30", ...: :func:`_parse_range`),
        -1 for a range that is no choice."""
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


def _prompt(s: Schedule) -> str:
    lines = []
    for name, b in zip(s.names, s.busy):
        spans = [f"{clock(DAY_START + a * SLOT)}-{clock(DAY_START + e * SLOT)}" for a, e in intervals(b)]
        lines.append(f"{name} is busy {', '.join(spans[:-1]) + ' and ' + spans[-1] if len(spans) > 1 else spans[0]}.")
    if s.pref:
        lines.append(f"{s.names[s.who]} would rather not meet before {clock(DAY_START + s.pref * SLOT)}.")
    return (
        f"Schedule a {s.length * SLOT}-minute meeting for {', '.join(s.names[:-1])} and {s.names[-1]} "
        "today between 9:00 and 17:00.\n" + "\n".join(lines) + "\n"
        "Find the earliest time at which everyone is free for the whole meeting"
        + (" and the preference is respected" if s.pref else "")
        + ". Give the meeting as a time range HH:MM-HH:MM (24-hour clock)."
    )


def draw_schedule(
    rng: np.random.Generator, params: CalendarParams, k: int, preference: bool, rank: int
) -> Schedule | None:
    """Four option slots drawn uniformly, the key the ``rank``-th earliest, and a schedule built
    around them (random busy times, then repaired so that the options play their roles);
    None when the repairs fail (the caller draws again)."""
    names = [NAMES[int(j)] for j in rng.permutation(len(NAMES))[:k]]
    length = int(rng.integers(1, 3))
    slots = _option_slots(rng, length, preference)
    key = slots[rank]
    earlier, later = slots[:rank], slots[rank + 1 :]
    busy = [_random_busy(rng, params) for _ in range(k)]
    free_later = later[int(rng.integers(len(later)))] if later else None
    pref, who = 0, int(rng.integers(k))
    if rank:
        lure = earlier[int(rng.integers(len(earlier)))]
    else:
        rest = [s for s in later if s != free_later]
        lure = rest[int(rng.integers(len(rest)))]
    # Spans that nobody may be busy in: the key, a later foil free for all, and where the preference
    # binds (a start before it free of busy times: the lure when it falls there).
    free = [key] + ([free_later] if free_later is not None else [])
    if preference:
        pref = int(rng.integers(1, key + 1))  # key >= pref: the key respects it
        binding = lure if lure < pref else _binding_start(rng, pref, length, slots, key)
        if binding is None:
            return None
        free.append(binding)
    keep = {t for f in free for t in range(f, f + length)}
    for b in busy:
        b -= keep
    if not _one_violation(rng, busy, lure, length, pref, keep):
        return None
    guard = keep | set(range(lure, lure + length))  # the lure's one violation is settled: nobody else there
    _block_before(rng, busy, key, length, pref, guard)
    _end_busy_at(rng, busy, [s for s in slots if s != key], guard)
    _unname(busy, slots, length, guard)
    _fill_idle(rng, busy, slots, guard)
    schedule = Schedule(names, busy, length, pref, who, key, lure, [s for s in slots if s not in (key, lure)])
    return schedule if _valid(schedule, rank, free_later) else None


def _option_slots(rng: np.random.Generator, length: int, preference: bool) -> list[int]:
    """Four option starts, sorted, drawn uniformly among those at least ``length`` + 1 slots
    apart: a busy time can end where any option starts (an option starting where another free
    option's span ends could not have one). A binding preference needs a free start before the
    key, so preference items offer no 9:00 start at all (rather than never as the key, which
    would make 9:00 a foil's time)."""
    first = 1 if preference else 0
    while True:
        slots = sorted(first + int(s) for s in rng.choice(SLOTS - length + 1 - first, N_OPTIONS, replace=False))
        if min(b - a for a, b in zip(slots, slots[1:])) > length:
            return slots


def _binding_start(rng: np.random.Generator, pref: int, length: int, slots: list[int], key: int) -> int | None:
    """A start before the preference's time to leave free of busy times (so that the preference
    binds) whose span ends where no foil starts (nor the key, unless the preference names the key's
    start); None if there is none."""
    fits = [
        b for b in range(pref)
        if not any(b < o <= b + length for o in slots if o != key or pref != key)
    ]
    return fits[int(rng.integers(len(fits)))] if fits else None


def _random_busy(rng: np.random.Generator, params: CalendarParams) -> set[int]:
    slots: set[int] = set()
    for _ in range(int(rng.integers(1, params.max_busy + 1))):
        start, size = int(rng.integers(SLOTS)), int(rng.integers(1, 5))
        slots |= set(range(start, min(start + size, SLOTS)))
    return slots


def _one_violation(
    rng: np.random.Generator, busy: list[set[int]], lure: int, length: int, pref: int, keep: set[int]
) -> bool:
    """Make the lure break exactly one constraint: the preference (then nobody is busy), or one
    person's busy time (the others are cleared there); False when it cannot."""
    span = set(range(lure, lure + length))
    if lure < pref:
        for b in busy:
            b -= span
        return True
    hit = [p for p, b in enumerate(busy) if b & span]
    if not hit:  # nobody busy there: make one person busy in a part of it no other slot needs free
        room = sorted(span - keep)
        if not room:
            return False
        hit = [int(rng.integers(len(busy)))]
        busy[hit[0]].add(room[int(rng.integers(len(room)))])
    for p in hit[1:]:
        busy[p] -= span
    return True


def _block_before(
    rng: np.random.Generator, busy: list[set[int]], key: int, length: int, pref: int, keep: set[int]
) -> None:
    """Every start before the key gets a violation: a random person is made busy for one slot
    of its span that no option needs free (the lure's span is settled, the key's stays free)."""
    for start in range(pref, key):
        if violations(start, length, busy, pref):
            continue
        room = sorted(set(range(start, min(start + length, key))) - keep)
        # Prefer extending someone's busy interval to adding a new one: busy times stay few.
        touching = [(p, x) for p, b in enumerate(busy) for x in room if {x - 1, x + 1} & b]
        pool = touching or [(p, x) for p in range(len(busy)) for x in room]
        if pool:
            p, x = pool[int(rng.integers(len(pool)))]
            busy[p].add(x)


def _end_busy_at(rng: np.random.Generator, busy: list[set[int]], foils: list[int], guard: set[int]) -> None:
    """Let a busy interval end where each foil starts, as one always ends where the key starts
    (the slot before the earliest free start is busy): a start time the prompt names is no cue."""
    for foil in foils:
        if foil == 0 or foil - 1 in guard or any(foil - 1 in b and foil not in b for b in busy):
            continue
        people = [p for p, b in enumerate(busy) if foil not in b]
        if people:
            busy[people[int(rng.integers(len(people)))]].add(foil - 1)


def _unname(busy: list[set[int]], slots: list[int], length: int, guard: set[int]) -> None:
    """A busy interval that is exactly an option's span (the prompt would name the option) is
    lengthened by one slot past its end (or before its start)."""
    for b in busy:
        for start, end in intervals(b):
            if start in slots and end - start == length:
                for extra in (end, start - 1):
                    if 0 <= extra < SLOTS and extra not in guard:
                        b.add(extra)
                        break


def _fill_idle(rng: np.random.Generator, busy: list[set[int]], slots: list[int], guard: set[int]) -> None:
    """Someone the repairs left with no busy time gets one half-hour, away from every span that must
    stay free and from every option's start (a one-slot interval there could name a 30-minute option)."""
    room = [t for t in range(SLOTS) if t not in guard and t not in slots]
    for b in busy:
        if not b and room:
            b.add(room[int(rng.integers(len(room)))])


def _valid(s: Schedule, rank: int, free_later: int | None) -> bool:
    """The item is what it claims: the key the earliest feasible start, the lure one violation
    away, a later option free, a binding preference, everybody busy at some time, no option named
    in the prompt, and every option starting where a busy time ends (or at 9:00, or at the
    preference's time)."""
    feasible = [t for t in range(SLOTS - s.length + 1) if not violations(t, s.length, s.busy, s.pref)]
    if not feasible or feasible[0] != s.key or len(violations(s.lure, s.length, s.busy, s.pref)) != 1:
        return False
    if free_later is not None and violations(free_later, s.length, s.busy, s.pref):
        return False
    if not all(s.busy):
        return False
    if s.pref and not any(not violations(t, s.length, s.busy, 0) for t in range(s.key)):
        return False
    runs = [run for b in s.busy for run in intervals(b)]
    options = [s.key, s.lure, *s.foils]
    if any((a, e) == (o, o + s.length) for a, e in runs for o in options):
        return False
    # Every option starts at a time the prompt names as a boundary, as the key always does.
    named = {e for _, e in runs} | {0, s.pref}
    return len(options) == N_OPTIONS and all(o in named for o in options)


def _parse_range(text: str) -> tuple[int, int] | None:
    """(start, end) in minutes of a range "H:MM-H:MM" (also "from .. to ..", "between .. and
    ..", en/em dashes, "until", am/pm); None if the text is no such range."""
    match = _RANGE.match(normalize_answer(text))
    if not match or (match["sep"] == "and") != (match["lead"] == "between "):
        return None
    _, h1, m1, s1, _, h2, m2, s2 = match.groups()
    end = _clock(int(h2), int(m2), s2)
    start = _clock(int(h1), int(m1), s1)
    if s1 is None and s2 is not None and start is not None and end is not None:
        later = _clock(int(h1), int(m1), s2)  # "1:00-1:30 pm": the suffix is both ends', unless
        start = later if later is not None and later < end else start  # "11:30-12:30 pm"
    if start is None or end is None:
        return None
    return start, end


def _clock(hour: int, minute: int, suffix: str | None) -> int | None:
    """Minutes after midnight of a 24-hour time, or of a 12-hour one with am/pm."""
    if minute > 59 or hour > 23:
        return None
    if suffix is None:
        return hour * 60 + minute
    if not 1 <= hour <= 12:
        return None
    return (hour % 12 + (12 if suffix.startswith("p") else 0)) * 60 + minute


PROBE = Calendar()
