"""WPT metrics from the per-trial log alone (``today``, ``sensors``, ``prediction``, ``outcome``)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from lm_eval_cog.paradigms.base import FALLBACK_SHARE, FALLBACK_SHARE_SPEC, MetricSpec, Outcome
from lm_eval_cog.paradigms.measures import fallback_share, mae_score
from lm_eval_cog.paradigms.wpt.env import SENSORS, WEATHERS, transition_probability

SCORE = "score"
ACCURACY = "accuracy"
INVALID_RATE = "invalid_rate"

metric_specs: tuple[MetricSpec, ...] = (
    MetricSpec(
        SCORE,
        True,
        "Reflection-Bench score: (1 - MAE / Max_MAE) x 100 between the transition matrices estimated from "
        "the predictions of days 21-50 (both sensor states) and the true generating matrices.",
    ),
    MetricSpec(ACCURACY, True, "Share of days whose prediction matched the actual weather."),
    MetricSpec(INVALID_RATE, False, "Share of days whose reply could not be read."),
    FALLBACK_SHARE_SPEC,
)
METRIC_NAMES: tuple[str, ...] = tuple(s.name for s in metric_specs)


def estimated_matrices(
    log: Sequence[Mapping[str, Any]], p: float, estimate_from: int = 1
) -> tuple[list[float], list[float]]:
    """Estimated and true P(tomorrow | sensors, today), 8 entries in a fixed order.

    Only days ``estimate_from`` on count (the model has had time to learn). The estimate of an entry is the share of the days with those sensors and that
    weather today on which the model predicted that tomorrow; an unreadable reply
    predicted neither weather, so the row it falls in sums to less than 1. Rows with no
    day (a sensor state that never met a weather) are NaN and left out of the MAE.
    """
    scored = [r for r in log if int(r["day"]) >= estimate_from]
    estimates: list[float] = []
    truths: list[float] = []
    for sensors in SENSORS:
        for today in WEATHERS:
            days = [r for r in scored if r["sensors"] == sensors and r["today"] == today]
            for tomorrow in WEATHERS:
                hits = sum(r["prediction"] == tomorrow for r in days)
                estimates.append(hits / len(days) if days else math.nan)
                truths.append(transition_probability(p, sensors, today, tomorrow))
    return estimates, truths


def wpt_metrics(log: Sequence[Mapping[str, Any]], params: Any) -> dict[str, float]:
    """Score, accuracy (all days) and invalid rate of one episode (``params``: ``p``, ``estimate_from``)."""
    n = len(log)
    if n == 0:
        return {name: math.nan for name in METRIC_NAMES}
    p = float(params.p)
    estimates, truths = estimated_matrices(log, p, int(params.estimate_from))
    # Every true entry is p or 1 - p, so no estimate in [0, 1] is further than max(p, 1 - p).
    return {
        SCORE: mae_score(estimates, truths, max(p, 1.0 - p)),
        ACCURACY: sum(r["outcome"] == Outcome.CORRECT.value for r in log) / n,
        INVALID_RATE: sum(r["outcome"] == Outcome.INVALID.value for r in log) / n,
        FALLBACK_SHARE: fallback_share(log),
    }
