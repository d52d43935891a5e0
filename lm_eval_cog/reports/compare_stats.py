"""What the cross-model comparison's statistics yield, one record per task pair or task.

Below both :mod:`.compare` (which computes them) and :mod:`.compare_figures` (which draws them).
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class TauResult:
    """Kendall tau-b of two tasks across the models that have both scores (n of them)."""

    task_a: str
    task_b: str
    n: int
    tau: float  # NaN when undefined (n < 3 or a constant column)
    p: float  # two-sided; NaN when tau is
    p_adjusted: float | None  # None without correction; NaN when p is NaN


@dataclasses.dataclass(frozen=True)
class PairPoint:
    """One task in the discriminative-power plot of model a (x) against model b (y)."""

    task: str
    a: float
    b: float
    ratio: float | None  # b / a; None when a == 0 (MO: "undefined")
    abs_log_ratio: float | None  # |ln(b / a)|; None unless both scores are > 0
    diagonal_distance: float  # |a - b| / sqrt(2): distance of (a, b) from the line y = x
