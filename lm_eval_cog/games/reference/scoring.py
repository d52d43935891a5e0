"""Reference Game metrics: clembench's shared scores and the game's extras, from the log."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from lm_eval_cog.games.base import COMMON_METRIC_SPECS, INVALID, VALID, common_metrics, moves
from lm_eval_cog.paradigms.base import MetricSpec

METRIC_SPECS: tuple[MetricSpec, ...] = COMMON_METRIC_SPECS + (
    MetricSpec("expression_length", False, "Characters of the giver's expression (after 'Expression: '); "
               "NaN when the giver's reply was not read. Descriptive."),
    MetricSpec("expression_tokens", False, "Pieces of the giver's expression split on single spaces; NaN when "
               "the giver's reply was not read. Descriptive."),
    MetricSpec("aborted_at_giver", False, "1 when the giver's reply was not one 'Expression:' line (the game "
               "aborts before the follower plays)."),
    MetricSpec("aborted_at_follower", False, "1 when the follower's reply did not start with 'Answer: <position>'."),
)  # fmt: skip


def reference_metrics(log: Sequence[Mapping[str, Any]], params: Any = None) -> dict[str, float]:
    """:func:`common_metrics` plus the extras of :data:`METRIC_SPECS` (all NaN for an empty log)."""
    calls = moves(log)
    giver = [r for r in calls if r["role"] == "giver"]
    follower = [r for r in calls if r["role"] == "follower"]
    expression = next((r for r in giver if r["status"] == VALID), None)
    played = bool(calls)
    extras = {
        "expression_length": float(expression["expression_length"]) if expression else math.nan,
        "expression_tokens": float(expression["expression_tokens"]) if expression else math.nan,
        "aborted_at_giver": float(any(r["status"] == INVALID for r in giver)) if played else math.nan,
        "aborted_at_follower": float(any(r["status"] == INVALID for r in follower)) if played else math.nan,
    }
    return {**common_metrics(log), **extras}
