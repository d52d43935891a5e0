"""DC-IGT metrics from the per-trial log alone (``first``, ``final``, ``preview_loss``, ``balance``,
``first_parse``, ``final_parse``)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from lm_eval_cog.paradigms.base import FALLBACK_SHARE, FALLBACK_SHARE_SPEC, MetricSpec
from lm_eval_cog.paradigms.measures import fallback_share

SCORE = "score"
SWITCHING_SCORE = "switching_score"
BALANCE_SCORE = "balance_score"
FINAL_BALANCE = "final_balance"
STICK_AFTER_GAIN = "stick_after_gain"
STICK_AFTER_LOSS = "stick_after_loss"
SWITCH_AFTER_GAIN = "switch_after_gain"
SWITCH_AFTER_LOSS = "switch_after_loss"
INVALID_RATE = "invalid_rate"

#: Per-trial credit (Reflection-Bench's published scorer) for the four behaviours.
STICK_GAIN_CREDIT = 1.0  # "insisting with gain"
SWITCH_GAIN_CREDIT = -0.5  # "unnecessary switch"
SWITCH_LOSS_CREDIT = 1.0  # "loss-avoiding switch"
LOSS_UNIT = 500.0  # "insisting with risk" costs loss / 500 + 1

metric_specs: tuple[MetricSpec, ...] = (
    MetricSpec(SCORE, True, "Reflection-Bench score: mean of switching_score and balance_score."),
    MetricSpec(
        SWITCHING_SCORE,
        True,
        "100 x mean per-trial credit: stick after a preview without loss +1, stick after a loss "
        "-(loss/500 + 1), switch without loss -0.5, switch after a loss +1; 0 for a trial with an invalid reply.",
    ),
    MetricSpec(BALANCE_SCORE, True, "100 x final balance / (start + largest gain x trials)."),
    MetricSpec(FINAL_BALANCE, True, "Balance after the last trial ($)."),
    MetricSpec(STICK_AFTER_GAIN, True, "Share of fully answered trials: kept a deck whose preview had no loss."),
    MetricSpec(STICK_AFTER_LOSS, False, "Share of fully answered trials: kept a deck whose preview had a loss."),
    MetricSpec(SWITCH_AFTER_GAIN, False, "Share of fully answered trials: left a deck whose preview had no loss."),
    MetricSpec(SWITCH_AFTER_LOSS, True, "Share of fully answered trials: left a deck whose preview had a loss."),
    MetricSpec(INVALID_RATE, False, "Share of the 2 x trials replies (first and final choices) that could not be read."),
    FALLBACK_SHARE_SPEC,
)
METRIC_NAMES: tuple[str, ...] = tuple(s.name for s in metric_specs)


def trial_credit(record: Mapping[str, Any]) -> float:
    """The switching credit of one trial; 0 when either reply was invalid (no behaviour to credit)."""
    if record["switched"] is None:
        return 0.0
    loss = float(record["preview_loss"])
    if record["switched"]:
        return SWITCH_LOSS_CREDIT if loss > 0 else SWITCH_GAIN_CREDIT
    return -(loss / LOSS_UNIT + 1.0) if loss > 0 else STICK_GAIN_CREDIT


def igt_metrics(log: Sequence[Mapping[str, Any]], params: Any) -> dict[str, float]:
    """All DC-IGT metrics of one episode (``params``: ``start``, ``gains``, ``trials``)."""
    n = len(log)
    if n == 0:
        return {name: math.nan for name in METRIC_NAMES}
    answered = [r for r in log if r["switched"] is not None]
    kinds = {
        STICK_AFTER_GAIN: (False, False),
        STICK_AFTER_LOSS: (False, True),
        SWITCH_AFTER_GAIN: (True, False),
        SWITCH_AFTER_LOSS: (True, True),
    }
    shares = {
        name: (sum(r["switched"] is sw and (r["preview_loss"] > 0) is lost for r in answered) / len(answered))
        if answered
        else math.nan
        for name, (sw, lost) in kinds.items()
    }
    final_balance = float(log[-1]["balance"])
    max_balance = int(params.start) + max(int(g) for g in params.gains) * int(params.trials)
    switching = 100.0 * sum(trial_credit(r) for r in log) / n
    balance = 100.0 * final_balance / max_balance
    invalid = sum((r["first_invalid"] is not None) + (r["final_invalid"] is not None) for r in log)
    return {
        SCORE: (switching + balance) / 2.0,
        SWITCHING_SCORE: switching,
        BALANCE_SCORE: balance,
        FINAL_BALANCE: final_balance,
        **shares,
        INVALID_RATE: invalid / (2 * n),
        # Over the 2 x trials replies, as invalid_rate.
        FALLBACK_SHARE: fallback_share(log, ("first_parse", "final_parse")),
    }
