"""The WCST deck: sorting dimensions, card values, key cards, and how test cards are drawn.

Pure Python + numpy, and the lowest module of the paradigm: the environment (:mod:`.env`)
and the trial images (:mod:`.visual`) both read their cards from here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

#: Sorting dimensions (rule names as written in the log).
COLOUR = "colour"
SHAPE = "shape"
NUMBER = "number"
DIMENSIONS: tuple[str, ...] = (COLOUR, SHAPE, NUMBER)

SHAPES: tuple[str, ...] = ("triangle", "star", "cross", "circle")
COLOURS: tuple[str, ...] = ("red", "green", "yellow", "blue")
NUMBERS: tuple[int, ...] = (1, 2, 3, 4)
_VALUES: Mapping[str, tuple[Any, ...]] = {SHAPE: SHAPES, COLOUR: COLOURS, NUMBER: NUMBERS}

#: A card is a plain dict (JSON-ready): ``{"shape": str, "colour": str, "number": int}``.
Card = dict[str, Any]

#: Hao et al.'s key cards: 1 red triangle, 2 green stars, 3 yellow crosses, 4 blue circles.
KEY_CARDS: tuple[Card, ...] = tuple(
    {SHAPE: s, COLOUR: c, NUMBER: n} for s, c, n in zip(SHAPES, COLOURS, NUMBERS)
)

#: Number of cards a player chooses among on each trial.
N_OPTIONS = 4


def matched_dimensions(card: Mapping[str, Any], option: Mapping[str, Any]) -> list[str]:
    """Dimensions (in :data:`DIMENSIONS` order) on which ``option`` matches ``card``."""
    return [d for d in DIMENSIONS if card[d] == option[d]]


def is_unambiguous(card: Mapping[str, Any], options: Sequence[Mapping[str, Any]]) -> bool:
    """True when the options matching ``card`` by colour, shape and number are three different cards."""
    owners = []
    for d in DIMENSIONS:
        hits = [k for k, o in enumerate(options) if o[d] == card[d]]
        if len(hits) != 1:
            return False
        owners.append(hits[0])
    return len(set(owners)) == len(DIMENSIONS)


#: The 24 test cards that are unambiguous with respect to :data:`KEY_CARDS`.
UNAMBIGUOUS_CARDS: tuple[Card, ...] = tuple(
    {SHAPE: s, COLOUR: c, NUMBER: n}
    for s in SHAPES
    for c in COLOURS
    for n in NUMBERS
    if is_unambiguous({SHAPE: s, COLOUR: c, NUMBER: n}, KEY_CARDS)
)


def draw_fixed_key_cards(rng: np.random.Generator, n: int) -> list[Card]:
    """``n`` test cards: shuffled passes through the 24 unambiguous cards (no repeat within a pass)."""
    cards: list[Card] = []
    while len(cards) < n:
        cards.extend(dict(UNAMBIGUOUS_CARDS[int(i)]) for i in rng.permutation(len(UNAMBIGUOUS_CARDS)))
    return cards[:n]


def draw_per_trial_options(rng: np.random.Generator) -> tuple[Card, list[Card]]:
    """A test card and four options (Kennedy & Nowak).

    Exactly one option matches the test card by shape only, one by colour only,
    one by number only and one by nothing, in random order. Like the key cards,
    the four options use four different shapes, colours and numbers.
    """
    card: Card = {
        SHAPE: SHAPES[int(rng.integers(4))],
        COLOUR: COLOURS[int(rng.integers(4))],
        NUMBER: NUMBERS[int(rng.integers(4))],
    }
    # positions[0] matches by shape, [1] by colour, [2] by number, [3] by nothing.
    positions = [int(p) for p in rng.permutation(N_OPTIONS)]
    options: list[dict[str, Any]] = [{} for _ in range(N_OPTIONS)]
    for dim, pos in zip((SHAPE, COLOUR, NUMBER), positions[:3]):
        others = [v for v in _VALUES[dim] if v != card[dim]]
        others = [others[int(i)] for i in rng.permutation(len(others))]
        rest = [p for p in range(N_OPTIONS) if p != pos]
        options[pos][dim] = card[dim]
        for p, v in zip(rest, others):
            options[p][dim] = v
    return card, [{SHAPE: o[SHAPE], COLOUR: o[COLOUR], NUMBER: o[NUMBER]} for o in options]
