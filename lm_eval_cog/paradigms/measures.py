"""Small statistics shared by paradigm scorers (pure Python + numpy).

Kept here so that two paradigms that use the same published formula
(Reflection-Bench's MAE score for WPT and PRLT) compute it with one function, and
every paradigm reports its ``fallback_share`` the same way.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from statistics import NormalDist
from typing import Any

from lm_eval_cog.paradigms.base import ParsePath


def mae_score(estimates: Sequence[float], truths: Sequence[float], max_mae: float) -> float:
    """Reflection-Bench's ``(1 - MAE / Max_MAE) x 100``.

    Entries whose estimate is NaN (nothing to estimate it from) are left out of the
    mean; NaN when no entry is left. ``max_mae`` is the largest MAE any estimate in
    [0, 1] can reach against these truths (the paradigm derives it).
    """
    if len(estimates) != len(truths):
        raise ValueError(f"{len(estimates)} estimates for {len(truths)} true values")
    if not max_mae > 0:
        raise ValueError(f"max_mae must be positive, got {max_mae!r}")
    errors = [abs(e - t) for e, t in zip(estimates, truths) if not math.isnan(e)]
    if not errors:
        return math.nan
    return (1.0 - (sum(errors) / len(errors)) / max_mae) * 100.0


def d_prime(hits: int, signal_trials: int, false_alarms: int, noise_trials: int) -> float:
    """Sensitivity d' = z(H) - z(F) with the log-linear correction (Hautus, 1995).

    H = (hits + 0.5) / (signal trials + 1), F = (false alarms + 0.5) / (noise trials + 1):
    finite for rates of 0 and 1, and nearly unbiased. NaN without signal or noise trials.
    """
    if signal_trials <= 0 or noise_trials <= 0:
        return math.nan
    z = NormalDist().inv_cdf
    h = (hits + 0.5) / (signal_trials + 1)
    f = (false_alarms + 0.5) / (noise_trials + 1)
    return z(h) - z(f)


def ratio(numerator: int | float, denominator: int | float) -> float:
    """``numerator / denominator``, NaN when the denominator is 0 (nothing was measured)."""
    return numerator / denominator if denominator else math.nan


def mean(values: Sequence[float]) -> float:
    """The mean of ``values``, NaN when there are none (nothing was measured)."""
    return ratio(float(sum(values)), len(values))


def fallback_share(log: Sequence[Mapping[str, Any]], fields: Sequence[str] = ("parse",)) -> float:
    """Share of the replies of ``log`` read by the free/cot fallback (``ParsePath.FALLBACK``).

    ``fields`` name the record fields holding a reply's parse path (one per reply: IGT
    logs two replies per trial). NaN for an empty log, or for a log written before
    parse paths were recorded (nothing to measure).
    """
    paths = [record.get(field) for record in log for field in fields]
    if not paths or any(path is None for path in paths):
        return math.nan
    return sum(path == ParsePath.FALLBACK.value for path in paths) / len(paths)
