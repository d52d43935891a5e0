"""PRLT metrics from the per-trial log alone (``p_left``, ``p_right``, ``choice``, ``reward``)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from lm_eval_cog.paradigms import arms
from lm_eval_cog.paradigms.base import FALLBACK_SHARE, FALLBACK_SHARE_SPEC, MetricSpec, Outcome
from lm_eval_cog.paradigms.measures import fallback_share, mae_score

SCORE = "score"
REWARD_RATE = "reward_rate"
INVALID_RATE = "invalid_rate"

metric_specs: tuple[MetricSpec, ...] = (
    MetricSpec(
        SCORE,
        True,
        "Reflection-Bench score: (1 - MAE / Max_MAE) x 100 between the moving average (window 5) of the "
        "choices and the true reward probabilities of both arms.",
    ),
    MetricSpec(REWARD_RATE, True, "Rewards / trials (an unreadable reply pulls no arm: 0)."),
    MetricSpec(INVALID_RATE, False, "Share of trials whose reply could not be read."),
    FALLBACK_SHARE_SPEC,
)
METRIC_NAMES: tuple[str, ...] = tuple(s.name for s in metric_specs)


def belief_errors(log: Sequence[Mapping[str, Any]], window: int) -> tuple[list[float], list[float]]:
    """Estimated and true probabilities, two per trial from trial ``window`` on.

    The model's belief that an arm pays is estimated as the share of the last
    ``window`` trials (this one included) on which it chose that arm. An unreadable
    reply chose neither arm, so the two estimates of a window with one sum to less
    than 1: it costs accuracy instead of becoming a choice.
    """
    estimates: list[float] = []
    truths: list[float] = []
    for t in range(window - 1, len(log)):
        recent = [r["choice"] for r in log[t - window + 1 : t + 1]]
        for arm in arms.ARMS:
            estimates.append(sum(c == arm for c in recent) / window)
            truths.append(float(log[t][f"p_{arm}"]))
    return estimates, truths


def prlt_metrics(log: Sequence[Mapping[str, Any]], params: Any) -> dict[str, float]:
    """Score, reward rate and invalid rate of one episode (``params``: ``p``, ``window``)."""
    n = len(log)
    if n == 0:
        return {name: math.nan for name in METRIC_NAMES}
    estimates, truths = belief_errors(log, int(params.window))
    # An estimate in [0, 1] is at most max(p, 1 - p) away from a true p or 1 - p.
    max_mae = max(float(params.p), 1.0 - float(params.p))
    return {
        SCORE: mae_score(estimates, truths, max_mae),
        REWARD_RATE: sum(int(r["reward"]) for r in log) / n,
        INVALID_RATE: sum(r["outcome"] == Outcome.INVALID.value for r in log) / n,
        FALLBACK_SHARE: fallback_share(log),
    }
