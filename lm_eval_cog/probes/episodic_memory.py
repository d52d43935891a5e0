"""Episodic memory (Tulving, 1972; CogProbe's "Episodic Memory", Cui et al.): what, when, where, who.

CogProbe defines the operation as "recalling context-specific past experiences or
events, including associated temporal and spatial information"; its items are
synthetic event lists "name – event (date @ place)". Here the list is generated, so
every key is exact: 8-20 events (``min_events`` .. ``max_events``), each a line
``Ada – bought a kite (3 March @ the harbour)``. Half as many people as events, each
with 1-3 events; actions, dates and places are unique within a list (so an event is
named by its action, or by its person and date); lines are in no particular order
(the prompt says so) and dates fall in one unnamed common year.

Conditions (question types, cycled by index):

* ``what``: "What did Ada do on 3 March?" -> the action;
* ``when``: "On what date did Ada buy a kite?" -> the date;
* ``where``: "Where did Ada buy a kite?" -> the place;
* ``who``: "Who bought a kite?" -> the person;
* ``order_congruent`` / ``order_incongruent``: "Which happened first: "Ada bought a
  kite" or "Ben painted a fence"?" (two options) where the earlier event is listed
  first / listed second.

Options of what / when / where (four): the key; the **lure**, the same attribute of
the asked person's *other* event (a binding / source-confusion error: the right
person, the wrong episode; Johnson, Hashtroudi & Lindsay, 1993); the attribute of the
*adjacent* line (the nearest line of another person: a contiguity error, Howard &
Kahana, 2002); one more event's attribute (another person's). ``who``: the key, the
lure (the person of the nearest line with another person) and two other people of
the list, all four with as many lines in the record (how often a name occurs is no
cue). ``order_incongruent``: the lure is the event listed first (list position read as
time). Every option comes from the list, so nothing but the binding of the asked event
separates the key from the rest; and the events are chosen so that the key's rank among
the options in the record's line order (for ``who``, the order of the people's last
lines) cycles over the four ranks within each condition: "the first / last option the
record names" is right 1/4 of the time. The key's position among the choices cycles
too (in the order questions, the earlier event is named first and second equally often).
Chance: 1/4, 1/2 for order (mean 1/3).

Gen answers are open but parsed strictly: an action / place / name of the banks, or a
date ("3 March", "March 3rd", "on 3 March"), that is none of the options is wrong
(-1); anything else (a sentence, a hedge, "31 February") is invalid.

Effects (lower is better for all three):

* ``binding_error_share``: share of errors on what / when / where / who that name
  the lure (random errors: 1/3);
* ``adjacent_error_share``: share of errors on what / when / where that name the
  adjacent line's attribute (random errors: 1/3);
* ``order_congruence_effect`` = acc(order_congruent) - acc(order_incongruent):
  positive when the list position, not the date, decides "which happened first".

The ``prepotent`` player answers every lure: accuracy 0 on the four attribute
questions and on ``order_incongruent``, 1 on ``order_congruent``;
binding_error_share 1, adjacent_error_share 0, order_congruence_effect 1.
All lines stay visible in one prompt: the probe measures binding and search in
context (the "episodic" buffer of a transformer), not retention over a delay.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.paradigms.base import require_int
from lm_eval_cog.probes._episodic_memory_banks import (
    ACTIONS,
    MONTH_DAYS,
    MONTHS,
    NAMES,
    PLACES,
)
from lm_eval_cog.probes.aggregations import difference_side
from lm_eval_cog.probes.core import Probe, cycle, normalize_answer

ATTRIBUTE_QUESTIONS = ("what", "when", "where")
CONDITIONS = (*ATTRIBUTE_QUESTIONS, "who", "order_congruent", "order_incongruent")
LURE_CONDITIONS = (*ATTRIBUTE_QUESTIONS, "who", "order_incongruent")
MAX_EVENTS = 20
MIN_EVENTS = 8  # half as many people: >= 4, so that "who" has four different names
MAX_PER_PERSON = 3
DASH = "\u2013"

_PAST = {normalize_answer(past) for past, _ in ACTIONS}
_NAMES = {normalize_answer(n) for n in NAMES}
_MONTH = {m.casefold(): k for k, m in enumerate(MONTHS)} | {m[:3].casefold(): k for k, m in enumerate(MONTHS)}
_ORDINAL = r"(\d{1,2})(?:st|nd|rd|th)?"
_DAY_MONTH = re.compile(rf"(?:on )?{_ORDINAL} (?:of )?([a-z]+)")
_MONTH_DAY = re.compile(rf"(?:on )?([a-z]+) {_ORDINAL}")
_PLACE_PREFIX = re.compile(r"^(?:at |in |on )?(?:the )?")


@dataclass(frozen=True)
class EpisodicMemoryParams:
    """Attributes:
    min_events: Fewest events in a list, 8..20 (8).
    max_events: Most events in a list, min_events..20 (20).
    """

    min_events: int = MIN_EVENTS
    max_events: int = MAX_EVENTS

    def __post_init__(self) -> None:
        for name in ("min_events", "max_events"):
            value = require_int("episodic_memory", name, getattr(self, name), 1)
            if not MIN_EVENTS <= value <= MAX_EVENTS:
                raise ValueError(
                    f"episodic_memory parameter {name!r} must be in {MIN_EVENTS}..{MAX_EVENTS} (four people at "
                    f"least, two events each on average), got {value}"
                )
        if self.max_events < self.min_events:
            raise ValueError(
                f"episodic_memory parameter 'max_events' must be >= min_events ({self.min_events}), got {self.max_events}"
            )


def date_text(day_of_year: int) -> str:
    """"3 March" for day 61 (0-based) of a common year."""
    month = 0
    while day_of_year >= MONTH_DAYS[month]:
        day_of_year -= MONTH_DAYS[month]
        month += 1
    return f"{day_of_year + 1} {MONTHS[month]}"


def parse_date(text: str) -> tuple[int, int] | None:
    """(month index, day) of "3 March", "March 3rd", "on 3 Mar", ...; None if not a date."""
    text = normalize_answer(text)
    for pattern, day_first in ((_DAY_MONTH, True), (_MONTH_DAY, False)):
        match = pattern.fullmatch(text)
        if match:
            day_s, month_s = match.groups() if day_first else match.groups()[::-1]
            month, day = _MONTH.get(month_s), int(day_s)
            if month is not None and 1 <= day <= MONTH_DAYS[month]:
                return month, day
    return None


def _place_key(text: str) -> str:
    return _PLACE_PREFIX.sub("", normalize_answer(text), count=1)


_PLACES = {_place_key(p) for p in PLACES}


def _assign_people(rng: np.random.Generator, n_events: int, n_people: int) -> list[int]:
    """Person of each event: everybody once, the rest at random up to MAX_PER_PERSON each."""
    owners = list(range(n_people))
    counts = [1] * n_people
    for _ in range(n_events - n_people):
        open_ = [p for p in range(n_people) if counts[p] < MAX_PER_PERSON]
        person = open_[int(rng.integers(len(open_)))]
        counts[person] += 1
        owners.append(person)
    return [owners[int(k)] for k in rng.permutation(n_events)]  # the list order


def _nearest_other(rows: list[int], people: list[int], at: int) -> int:
    """The row nearest to ``at`` (the previous one first at a tie) whose person differs."""
    for distance in range(1, len(rows)):
        for row in (at - distance, at + distance):
            if 0 <= row < len(rows) and people[row] != people[at]:
                return row
    raise AssertionError("a list always holds four people")


#: Options of the what / when / where / who questions: the key and three foils.
N_OPTIONS = 4
#: Records drawn before an item gives up.
MAX_LISTS = 500


def design(index: int) -> tuple[int, int]:
    """(key rank, key position) of item ``index``, by construction.

    Within each condition (``j`` = the item's count in it) the key's rank among the options in the
    record's line order (0 = the option whose line comes first; for ``who``, the order of the
    people's last lines) cycles every item, so that "the r-th option the record names" is right 1/4
    of the time; the key's position among the choices cycles every item, shifted by one every 4
    (every (rank, position) pair once in 16 items).
    """
    j = index // len(CONDITIONS)
    return j % N_OPTIONS, (j + j // N_OPTIONS) % N_OPTIONS


def _rank(rows: list[int], of: int) -> int:
    """The rank of ``rows[of]`` among ``rows`` in ascending order."""
    return sorted(rows).index(rows[of])


def _pick_rows(rng: np.random.Generator, people: list[int], rank: int) -> tuple[int, int, int, int] | None:
    """(asked, lure, adjacent, third) rows of a what / when / where question whose asked line is the
    ``rank``-th of the four in the record (each attribute is named once, on its line); None if none."""
    n = len(people)
    fits = []
    for asked in range(n):
        adjacent = _nearest_other(list(range(n)), people, asked)
        for lure in range(n):
            if lure == asked or people[lure] != people[asked]:
                continue
            for third in range(n):
                rows = [asked, lure, adjacent, third]
                if people[third] != people[asked] and third != adjacent and _rank(rows, 0) == rank:
                    fits.append((asked, lure, adjacent, third))
    return fits[int(rng.integers(len(fits)))] if fits else None


def _pick_who(rng: np.random.Generator, people: list[int], rank: int) -> tuple[int, int, list[int]] | None:
    """(asked row, lure row, rows of two other people) of a who question: the four people have as
    many lines each (how often a name occurs is no cue), and the asked person's last line is the
    ``rank``-th of the four people's last lines (their first lines then fall in any order); None if
    none."""
    n = len(people)
    lines = {p: [r for r in range(n) if people[r] == p] for p in set(people)}
    fits = []
    for asked in range(n):
        lure = _nearest_other(list(range(n)), people, asked)
        size = len(lines[people[asked]])
        if len(lines[people[lure]]) != size:
            continue
        rest = [p for p in lines if p not in (people[asked], people[lure]) and len(lines[p]) == size]
        for a in range(len(rest)):
            for b in range(a + 1, len(rest)):
                four = [people[asked], people[lure], rest[a], rest[b]]
                if _rank([lines[p][-1] for p in four], 0) == rank:
                    fits.append((asked, lure, [lines[rest[a]][0], lines[rest[b]][0]]))
    if not fits:
        return None
    asked, lure, others = fits[int(rng.integers(len(fits)))]
    return asked, lure, [others[int(k)] for k in rng.permutation(2)]


class EpisodicMemory(Probe):
    name = "episodic_memory"
    ability = "working_memory"
    version = 2.0
    Params = EpisodicMemoryParams
    conditions = CONDITIONS
    lure_conditions = LURE_CONDITIONS
    effects: ClassVar[Mapping[str, tuple[str, bool]]] = {
        "binding_error_share": ("conditional_mean", False),
        "adjacent_error_share": ("conditional_mean", False),
        "order_congruence_effect": ("difference", False),
    }

    def item(self, rng: np.random.Generator, params: EpisodicMemoryParams, index: int) -> dict[str, Any]:
        condition = cycle(CONDITIONS, index)
        for _ in range(MAX_LISTS):
            n = int(rng.integers(params.min_events, params.max_events + 1))
            names = [NAMES[int(k)] for k in rng.choice(len(NAMES), n // 2, replace=False)]
            people = _assign_people(rng, n, len(names))
            persons = [names[p] for p in people]
            acts = [ACTIONS[int(k)] for k in rng.choice(len(ACTIONS), n, replace=False)]
            days = [int(d) for d in rng.choice(sum(MONTH_DAYS), n, replace=False)]
            places = [PLACES[int(k)] for k in rng.choice(len(PLACES), n, replace=False)]
            record = {"persons": persons, "actions": [a[0] for a in acts], "dates": [date_text(d) for d in days],
                      "places": places}
            if condition.startswith("order"):
                body = self._order_question(rng, condition, index, persons, acts, days)
            else:
                body = self._attribute_question(rng, condition, index, people, record, acts)
            if body is not None:
                break
        else:  # pragma: no cover - a record fits within a few draws
            raise AssertionError(f"episodic_memory item {index}: no record fits the design")
        lines = [f"{persons[r]} {DASH} {acts[r][0]} ({date_text(days[r])} @ {places[r]})" for r in range(n)]
        intro = (
            f"Below is a record of events, one per line, in the form \"name {DASH} what they did (date @ place)\". "
            "The lines are in no particular order; all dates are in the same year.\n\n"
        )
        prompt = intro + "\n".join(lines) + "\n\n" + body.pop("question")
        return {"prompt": prompt, **body, "condition": condition, "n_events": n, **record}

    def _attribute_question(
        self, rng: np.random.Generator, condition: str, index: int, people: list[int], record: dict[str, list[str]],
        acts: list[tuple[str, str]],
    ) -> dict[str, Any] | None:
        """The question and options, the key at the rank the design asks among the options' lines
        (see :func:`design`); None when this record has no such choice of events."""
        rank, position = design(index)
        n = len(people)
        persons = record["persons"]
        if condition == "who":
            picked = _pick_who(rng, people, rank)
            if picked is None:
                return None
            asked, lure_row, others = picked
            options = [persons[asked], persons[lure_row], *(persons[r] for r in others)]
            adjacent = -1
            question = f"Who {acts[asked][0]}? Answer with the name only."
        else:
            picked = _pick_rows(rng, people, rank)
            if picked is None:
                return None
            asked, lure_row, adjacent_row, third = picked
            field = {"what": "actions", "when": "dates", "where": "places"}[condition]
            options = [record[field][r] for r in (asked, lure_row, adjacent_row, third)]
            adjacent = 2
            name, date, base = persons[asked], record["dates"][asked], acts[asked][1]
            question = {
                "what": f"What did {name} do on {date}? Answer with the action exactly as it is written in the record.",
                "when": f"On what date did {name} {base}? Answer with the day and the month, as in the record.",
                "where": f"Where did {name} {base}? Answer with the place exactly as it is written in the record.",
            }[condition]
        foils = [1 + int(k) for k in rng.permutation(len(options) - 1)]
        order = foils[:position] + [0] + foils[position:]
        return {
            "question": question,
            "choices": [options[k] for k in order],
            "gold": position,
            "lure": order.index(1),
            "adjacent": order.index(adjacent) if adjacent != -1 else -1,
            "asked": asked,
        }

    def _order_question(
        self, rng: np.random.Generator, condition: str, index: int, persons: list[str], acts: list[tuple[str, str]],
        days: list[int],
    ) -> dict[str, Any]:
        want_congruent = condition == "order_congruent"
        while True:  # half of the pairs qualify: two draws on average
            first_listed, second_listed = sorted(int(k) for k in rng.choice(len(days), 2, replace=False))
            if (days[first_listed] < days[second_listed]) == want_congruent:
                break
        earlier = first_listed if want_congruent else second_listed
        later = second_listed if want_congruent else first_listed
        gold = (index // len(CONDITIONS)) % 2  # the earlier event is named first and second equally often
        rows = [later, earlier] if gold else [earlier, later]
        choices = [f"{persons[r]} {acts[r][0]}" for r in rows]
        question = (
            f"Which happened first: \"{choices[0]}\" or \"{choices[1]}\"? "
            "Answer with that event exactly as it is written in the question."
        )
        return {
            "question": question,
            "choices": choices,
            "gold": gold,
            "lure": -1 if want_congruent else 1 - gold,
            "adjacent": -1,
            "asked": earlier,
        }

    # -- answers ----------------------------------------------------------------------
    def read(self, doc: Mapping[str, Any], answer: str) -> int | None:
        """The option an open answer names; -1 for a well-formed answer of the right kind
        that is no option; None otherwise (see the module docstring)."""
        kind = doc["condition"]
        wanted = normalize_answer(answer)
        if kind == "when":
            date = parse_date(answer)
            if date is None:
                return None
            return next((k for k, c in enumerate(doc["choices"]) if parse_date(c) == date), -1)
        if kind == "where":
            wanted = _place_key(answer)
            keys = [_place_key(c) for c in doc["choices"]]
            return keys.index(wanted) if wanted in keys else (-1 if wanted in _PLACES else None)
        keys = [normalize_answer(c) for c in doc["choices"]]
        if wanted in keys:
            return keys.index(wanted)
        if kind == "what":
            return -1 if wanted in _PAST else None
        if kind == "who":
            return -1 if wanted in _NAMES else None
        return self._read_event(doc, wanted)

    def _read_event(self, doc: Mapping[str, Any], wanted: str) -> int | None:
        """Order answers: an option, or its action alone; another event of the record is -1."""
        actions = [normalize_answer(c).split(" ", 1)[1] for c in doc["choices"]]
        if wanted in actions:
            return actions.index(wanted)
        events = {normalize_answer(f"{p} {a}") for p, a in zip(doc["persons"], doc["actions"])}
        return -1 if wanted in events or wanted in _PAST else None

    def effect_values(self, doc: Mapping[str, Any], pred: int | None) -> dict[str, Any]:
        cond = doc["condition"]
        error = pred != doc["gold"]
        attribute = cond in ATTRIBUTE_QUESTIONS
        side = difference_side(cond, "order_congruent", "order_incongruent")
        return {
            "binding_error_share": (error and (attribute or cond == "who"), float(pred is not None and pred == doc["lure"])),
            "adjacent_error_share": (error and attribute, float(pred is not None and pred == doc["adjacent"])),
            "order_congruence_effect": (side, float(not error)),
        }


PROBE = EpisodicMemory()
