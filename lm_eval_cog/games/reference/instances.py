"""Reference Game instances: six categories of 5x5 X-grids, and the triple of one episode.

The pools are ours (clembench's 10 hand-made grids per category are not available here) and
fixed: every pool is built deterministically at import, ``random_grids`` from a fixed seed (123,
as clembench's generator). An episode draws its target from the pool with the episode's
generator; its two distractors are the pool's grids nearest to the target by Levenshtein
distance (:func:`lm_eval_cog.games.grids.nearest`), as in clembench's instance generator.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from lm_eval_cog.games.grids import LETTER_GRIDS, SHAPE_GRIDS, SIZE, Grid, from_cells, nearest, parse_grid

CATEGORIES: tuple[str, ...] = (
    "line_grids_rows", "line_grids_columns", "diagonal_grids", "letter_grids", "shape_grids", "random_grids",
)  # fmt: skip
#: clembench's seed for its random grids; here it seeds the fixed ``random_grids`` pool.
RANDOM_POOL_SEED = 123
RANDOM_POOL_SIZE = 10
RANDOM_MARKS = 10
#: The follower sees three grids (the target and two distractors).
POSITIONS = 3


def _line_sets() -> list[tuple[int, ...]]:
    """Every choice of 1 or 2 of the 5 lines: 5 + 10 = 15."""
    return [combo for k in (1, 2) for combo in combinations(range(SIZE), k)]


def row_grids() -> tuple[Grid, ...]:
    """1 or 2 full rows."""
    return tuple(from_cells((r, c) for r in rows for c in range(SIZE)) for rows in _line_sets())


def column_grids() -> tuple[Grid, ...]:
    """1 or 2 full columns."""
    return tuple(from_cells((r, c) for c in cols for r in range(SIZE)) for cols in _line_sets())


def _main_diagonal(offset: int) -> set[tuple[int, int]]:
    return {(r, r + offset) for r in range(SIZE) if 0 <= r + offset < SIZE}


def _anti_diagonal(offset: int) -> set[tuple[int, int]]:
    return {(r, SIZE - 1 - r + offset) for r in range(SIZE) if 0 <= SIZE - 1 - r + offset < SIZE}


def diagonal_grids() -> tuple[Grid, ...]:
    """The main and the anti diagonal, each shifted by -2..2 columns, and both unshifted together: 11."""
    shifts = (0, 1, -1, 2, -2)
    singles = [_main_diagonal(k) for k in shifts] + [_anti_diagonal(k) for k in shifts]
    return tuple(from_cells(cells) for cells in [*singles, _main_diagonal(0) | _anti_diagonal(0)])


def random_grids(seed: int = RANDOM_POOL_SEED) -> tuple[Grid, ...]:
    """``RANDOM_POOL_SIZE`` distinct grids of ``RANDOM_MARKS`` X's in random cells, from a fixed seed."""
    rng = np.random.default_rng(seed)
    pool: list[Grid] = []
    while len(pool) < RANDOM_POOL_SIZE:
        flat = rng.choice(SIZE * SIZE, size=RANDOM_MARKS, replace=False)
        grid = from_cells(divmod(int(i), SIZE) for i in flat)
        if grid not in pool:
            pool.append(grid)
    return tuple(pool)


POOLS: Mapping[str, tuple[Grid, ...]] = {
    "line_grids_rows": row_grids(),
    "line_grids_columns": column_grids(),
    "diagonal_grids": diagonal_grids(),
    "letter_grids": LETTER_GRIDS,
    "shape_grids": SHAPE_GRIDS,
    "random_grids": random_grids(),
}


@dataclass(frozen=True)
class Instance:
    """One episode: the target, its two nearest distractors (the giver's order), and the target's
    position (0-2) among the three grids the follower sees."""

    category: str
    target: Grid
    distractors: tuple[Grid, Grid]
    target_position: int
    #: The follower's three grids when given (the paper's instances fix them), else derived.
    follower_order: tuple[Grid, ...] | None = None

    def follower_grids(self) -> tuple[Grid, ...]:
        """The follower's First/Second/Third grids: ``follower_order`` when set, else the target at
        ``target_position`` and the distractors in the giver's order in the other two places."""
        if self.follower_order is not None:
            return self.follower_order
        grids = list(self.distractors)
        grids.insert(self.target_position, self.target)
        return tuple(grids)


def draw_instance(rng: np.random.Generator, category: str, target_position: int | None = None) -> Instance:
    """A target drawn uniformly from ``category``'s pool, its two nearest distractors, and the
    target's position (drawn uniformly when not given)."""
    pool = POOLS[category]
    target = pool[int(rng.integers(len(pool)))]
    first, second = nearest(target, pool, 2)
    if target_position is None:
        target_position = int(rng.integers(POSITIONS))
    return Instance(category, target, (first, second), target_position)


def paper_instance(category: str, row: dict) -> Instance:
    """An instance of the paper's (``lm_eval_cog.games.paper``, game ``reference``): the giver's
    three grids (target first) and the follower's three, as the paper's file gives them."""
    giver = [_grid(text) for text in row["giver_grids"]]
    follower = tuple(_grid(text) for text in row["follower_grids"])
    return Instance(category, giver[0], (giver[1], giver[2]), int(row["target_position"]), follower)


def _grid(text: str) -> Grid:
    grid = parse_grid(text)
    if isinstance(grid, str):
        raise ValueError(f"paper reference grid {text!r}: {grid}")
    return grid
