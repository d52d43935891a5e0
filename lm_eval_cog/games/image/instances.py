"""Image Game target grids: a pattern in one capital letter (``compact_grids``) or one letter
in 5-10 random cells (``random_grids``), drawn with the episode's generator.

The patterns are ours (:data:`lm_eval_cog.games.grids.LETTER_GRIDS` and ``SHAPE_GRIDS``):
clembench's 20 hand-made grids are not available here.
"""

from __future__ import annotations

import string
from dataclasses import dataclass

import numpy as np

from lm_eval_cog.games.grids import EMPTY, LETTER_GRIDS, SHAPE_GRIDS, SIZE, Grid, from_cells, parse_grid, with_mark

EXPERIMENTS: tuple[str, ...] = ("compact_grids", "random_grids")
PATTERNS: tuple[Grid, ...] = LETTER_GRIDS + SHAPE_GRIDS
LETTERS = string.ascii_uppercase
#: Bounds (inclusive) on the filled cells of a random grid, as clembench's randint(5, 10).
RANDOM_MIN_CELLS, RANDOM_MAX_CELLS = 5, 10


@dataclass(frozen=True)
class Instance:
    experiment: str
    target: Grid
    letter: str


def draw_instance(rng: np.random.Generator, experiment: str) -> Instance:
    """A uniform capital letter, then a uniform pattern (compact) or k = 5..10 distinct uniform
    cells (random)."""
    letter = LETTERS[int(rng.integers(len(LETTERS)))]
    if experiment == "compact_grids":
        target = with_mark(PATTERNS[int(rng.integers(len(PATTERNS)))], letter)
    elif experiment == "random_grids":
        k = int(rng.integers(RANDOM_MIN_CELLS, RANDOM_MAX_CELLS + 1))
        # Distinct cells: clembench drew with replacement, so collisions could leave fewer than 5.
        flat = rng.choice(SIZE * SIZE, size=k, replace=False)
        target = from_cells((divmod(int(i), SIZE) for i in flat), letter)
    else:
        raise ValueError(f"unknown image experiment {experiment!r}")
    return Instance(experiment, target, letter)


def paper_instance(experiment: str, row: dict) -> Instance:
    """An instance of the paper's (``lm_eval_cog.games.paper``, game ``image``): its target grid."""
    target = parse_grid(row["target_grid"])
    if isinstance(target, str):
        raise ValueError(f"paper image grid {row['target_grid']!r}: {target}")
    letters = sorted({cell for line in target for cell in line if cell != EMPTY})
    return Instance(experiment, target, "".join(letters))
