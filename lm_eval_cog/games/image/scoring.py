"""Image Game scores: precision, recall and F1 of a drawn grid, and the episode's metrics."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lm_eval_cog.games.base import COMMON_METRIC_SPECS, VALID, common_metrics, moves
from lm_eval_cog.games.grids import EMPTY, Grid
from lm_eval_cog.paradigms.base import MetricSpec
from lm_eval_cog.paradigms.measures import mean

#: F1 (0-100) from which a drawing counts as a win (clembench's threshold).
SUCCESS_F1 = 99.0


@dataclass(frozen=True)
class GridScore:
    """Precision, recall and F1 of a drawn grid against the target, x100, unrounded."""

    precision: float
    recall: float
    f1: float


def score_grid(drawn: Grid, target: Grid) -> GridScore:
    """Cell-by-cell comparison, case-insensitive.

    correct = filled target cells that the drawing fills with the same letter;
    recall = correct / filled target cells; precision = correct / filled drawn cells (0 when
    nothing is drawn); F1 = 2PR / (P + R) (0 when both are 0), computed as 2 * correct /
    (drawn + target), the same number with a single rounding.
    """
    pairs = [(d.upper(), t.upper()) for d_row, t_row in zip(drawn, target) for d, t in zip(d_row, t_row)]
    filled_target = sum(t != EMPTY for _, t in pairs)
    filled_drawn = sum(d != EMPTY for d, _ in pairs)
    correct = sum(t != EMPTY and d == t for d, t in pairs)
    precision = 100 * correct / filled_drawn if filled_drawn else 0.0
    recall = 100 * correct / filled_target if filled_target else 0.0
    f1 = 200 * correct / (filled_drawn + filled_target) if correct else 0.0
    return GridScore(precision, recall, f1)


def changed_cells(before: Grid, after: Grid) -> int:
    """Cells whose content differs between two grids."""
    return sum(b != a for b_row, a_row in zip(before, after) for b, a in zip(b_row, a_row))


METRIC_SPECS: tuple[MetricSpec, ...] = COMMON_METRIC_SPECS + (
    MetricSpec("f1_per_turn", True, "Mean F1 (0-100) of the drawer's grids over its turns; NaN without a drawn grid."),
    MetricSpec("changed_cells", False, "Mean number of cells each drawn grid changes from the drawer's previous "
               "grid (the first from the empty grid); NaN without a drawn grid. Descriptive."),
    MetricSpec("command_length", False, "Mean characters of the giver's instructions (after 'Command: '; DONE "
               "not counted); NaN without a command. Descriptive."),
    MetricSpec("drawer_turns", False, "Grids the drawer drew in the required form; NaN for an empty log."),
)  # fmt: skip


def image_metrics(log: Sequence[Mapping[str, Any]], params: Any = None) -> dict[str, float]:
    """:func:`common_metrics` plus the extras of :data:`METRIC_SPECS`."""
    calls = moves(log)
    grids = [r for r in calls if r["role"] == "drawer" and r["status"] == VALID]
    commands = [r for r in calls if r["action"] == "command" and r["status"] == VALID]
    extras = {
        "f1_per_turn": mean([r["f1"] for r in grids]),
        "changed_cells": mean([r["changed_cells"] for r in grids]),
        "command_length": mean([r["command_length"] for r in commands]),
        "drawer_turns": float(len(grids)) if calls else math.nan,
    }
    return {**common_metrics(log), **extras}
