"""Meta-bandit metrics from the per-trial log alone (``reversal``, ``good_arm``, ``choice``, ``reward``)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from lm_eval_cog.paradigms.base import FALLBACK_SHARE, FALLBACK_SHARE_SPEC, MetricSpec, Outcome
from lm_eval_cog.paradigms.measures import fallback_share, ratio

REWARD_RATE = "reward_rate"
ANTICIPATION_RATE = "anticipation_rate"
INVALID_RATE = "invalid_rate"

metric_specs: tuple[MetricSpec, ...] = (
    MetricSpec(REWARD_RATE, True, "Rewards / trials (an unreadable reply pulls no arm: 0)."),
    MetricSpec(
        ANTICIPATION_RATE,
        True,
        "Share of reversal trials (first trial of blocks 2..) on which the newly paying arm was chosen: "
        "0 for win-stay-lose-shift, 1 for a player that learned the period.",
    ),
    MetricSpec(INVALID_RATE, False, "Share of trials whose reply could not be read."),
    FALLBACK_SHARE_SPEC,
)
METRIC_NAMES: tuple[str, ...] = tuple(s.name for s in metric_specs)


def mbt_metrics(log: Sequence[Mapping[str, Any]], params: Any = None) -> dict[str, float]:
    """Reward rate, anticipation rate (invalid replies never anticipate), invalid rate."""
    n = len(log)
    if n == 0:
        return {name: math.nan for name in METRIC_NAMES}
    reversals = [r for r in log if r["reversal"]]
    return {
        REWARD_RATE: sum(int(r["reward"]) for r in log) / n,
        ANTICIPATION_RATE: ratio(sum(r["choice"] == r["good_arm"] for r in reversals), len(reversals)),
        INVALID_RATE: sum(r["outcome"] == Outcome.INVALID.value for r in log) / n,
        FALLBACK_SHARE: fallback_share(log),
    }
