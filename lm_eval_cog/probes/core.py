"""Helpers the static probes share to build their items: condition cycles, option placement,
spelling similarity, means of what was measured.

The probes' base class, the answer rule and the registry are in
:mod:`lm_eval_cog.paradigms.probe_base`, imported here so that a probe finds all it builds on
in one place.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence

import numpy as np
from rapidfuzz.distance import Levenshtein

from lm_eval_cog.paradigms.probe_base import (
    CALIBRATION,
    HEURISTIC,
    MAX_DRAWS,
    NO_ANSWER,
    POLICIES,
    REGISTRY,
    Probe,
    get_probe,
    normalize_answer,
)

__all__ = [
    # the base, the answer rule and the registry (lm_eval_cog.paradigms.probe_base)
    "CALIBRATION",
    "HEURISTIC",
    "MAX_DRAWS",
    "NO_ANSWER",
    "POLICIES",
    "REGISTRY",
    "Probe",
    "get_probe",
    "normalize_answer",
    # the item helpers of this module
    "cycle",
    "edit_similarity",
    "nan_if_empty",
    "place_options",
]


def cycle(options: Sequence[str], index: int) -> str:
    """The condition of item ``index`` when conditions alternate in a fixed cycle."""
    return options[index % len(options)]


def key_place(question: str, k: int) -> int:
    """The key's place among ``k`` options, drawn per item from a hash of its ``question``: it takes no
    draw of the item's generator (the rest of the item is what it would be with any other place), and
    it is tied to nothing cycled by the item index. A place cycled with the key's other slots (its rank
    in text order, its typicality, the kind of its foils) could be read off them, since the options
    show those: issue 28 found it in the towers, rule execution, span and Wason."""
    return zlib.crc32(question.encode()) % k


def conflict_condition(index: int, k: int) -> tuple[str, int]:
    """The condition of item ``index`` of a conflict probe (Stroop, flanker) whose items offer ``k``
    responses, and its rank within that condition: blocks of 2k items, one congruent, 2k - 2
    incongruent, one neutral, so the items a reader (who never resolves the conflict) gets right are
    1/k of the task and reading scores chance on the headline."""
    block, slot = divmod(index, 2 * k)
    if slot == 0:
        return "congruent", block
    if slot == 2 * k - 1:
        return "neutral", block
    return "incongruent", block * (2 * k - 2) + slot - 1


def place_options(rng: np.random.Generator, options: Sequence[str], key: str, key_at: int, lure: str | None,
                  lure_offset: int) -> list[str]:
    """``options`` in an item's order: the key at ``key_at``, the lure (None: none) ``lure_offset``
    places after it (cyclically), the other options at random in the slots left."""
    k = len(options)
    slots: list[str | None] = [None] * k
    slots[key_at] = key
    if lure is not None:
        slots[(key_at + lure_offset) % k] = lure
    rest = [c for c in options if c not in (key, lure)]
    rest = [rest[int(i)] for i in rng.permutation(len(rest))]
    return [c if c is not None else rest.pop() for c in slots]


def edit_similarity(a: str, b: str) -> float:
    """1 - Levenshtein distance / the longer length (characters): how alike two spellings are."""
    return Levenshtein.normalized_similarity(a, b)


def nan_if_empty(values: Sequence[float]) -> float:
    """Mean of ``values``; NaN when nothing was measured."""
    return float(np.mean(values)) if len(values) else math.nan
