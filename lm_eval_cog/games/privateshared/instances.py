"""Drawing a Private/Shared instance from the episode's generator (and nothing else).

An instance fixes the slot values, the order in which the questioner requests the slots, the
wording of each request, and the wording of each probe in each probing round (clembench's
instance generator draws the same four things).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from lm_eval_cog.games.privateshared.experiments import NUMBERS, POOL, Experiment

#: Letter-number values are 4-digit numbers: distinct numbers of equal length never contain each other.
NUMBER_LOW, NUMBER_HIGH = 1000, 9999


@dataclass(frozen=True)
class Instance:
    """One episode's private information and scripts.

    Attributes:
        experiment: The experiment's display name.
        slots: Slot name -> value, in the experiment's fixed (probing) slot order.
        request_order: The slots in the order the questioner asks for them.
        requests: Slot name -> the questioner's request text.
        probes: For each probing round 0..n: slot name -> the probe question text.
    """

    experiment: str
    slots: dict[str, str]
    request_order: tuple[str, ...]
    requests: dict[str, str]
    probes: tuple[dict[str, str], ...]


def draw_values(rng: np.random.Generator, experiment: Experiment) -> list[str]:
    """One value per slot, in the experiment's slot order."""
    n = len(experiment.slots)
    if experiment.draw == POOL:
        return [experiment.pool[int(i)] for i in rng.choice(len(experiment.pool), size=n, replace=False)]
    if experiment.draw == NUMBERS:
        span = NUMBER_HIGH - NUMBER_LOW + 1
        return [str(NUMBER_LOW + int(i)) for i in rng.choice(span, size=n, replace=False)]
    return [slot.values[int(rng.integers(len(slot.values)))] for slot in experiment.slots]


def draw_instance(rng: np.random.Generator, experiment: Experiment) -> Instance:
    """An instance of ``experiment``: values, a random request order, request and probe wordings."""
    names = [slot.name for slot in experiment.slots]
    values = draw_values(rng, experiment)
    order = tuple(names[int(i)] for i in rng.permutation(len(names)))
    requests = {s.name: s.requests[int(rng.integers(len(s.requests)))] for s in experiment.slots}
    probes = tuple(
        {s.name: s.probes[int(rng.integers(len(s.probes)))] for s in experiment.slots}
        for _ in range(len(names) + 1)
    )
    return Instance(experiment.name, dict(zip(names, values)), order, requests, probes)


def nested_values(values: Iterable[str]) -> list[tuple[str, str]]:
    """Pairs (a, b) of two entries of ``values`` where ``a`` occurs in ``b`` ignoring case,
    repeated values included (must be none: an answer giving ``b`` would also give ``a``)."""
    items = list(values)
    return [(a, b) for i, a in enumerate(items) for j, b in enumerate(items) if i != j and a.lower() in b.lower()]


def paper_instance(experiment: Mapping[str, Any], row: Mapping[str, Any]) -> Instance:
    """An instance of the paper's (``lm_eval_cog.games.paper``, game ``privateshared``): its values
    (in the paper's slot order, the probing order), request order, and the wordings its indices
    pick from the experiment's request and probe texts."""
    texts, questions = experiment["requests"], experiment["probing_questions"]
    requests = {slot: texts[slot][int(i)] for slot, i in row["requests"].items()}
    probes = tuple({slot: questions[slot][int(i)] for slot, i in rnd.items()} for rnd in row["probes"])
    return Instance(experiment["name"], dict(row["slots"]), tuple(row["request_order"]), requests, probes)
