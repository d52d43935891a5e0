"""WCST metrics (Hao et al. eqs. 1-6 as defined in ``docs/paradigms.md``), from the log alone.

Every metric is a pure function of these fields of the per-trial records written by
:class:`~lm_eval_cog.paradigms.wcst.env.WCSTEnv`: ``trial``, ``rule``, ``previous_rule``,
``outcome``, ``matched``, ``streak``, ``category_completed`` and ``parse``, so a saved (JSON)
log can be re-scored offline.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from lm_eval_cog.paradigms.base import FALLBACK_SHARE_SPEC, MetricSpec, Outcome
from lm_eval_cog.paradigms.switching import (
    ACC,
    CATEGORIES_COMPLETED,
    INVALID_RATE,
    NON_PERSEVERATIVE_ERRORS,
    PERSEVERATIVE_ERRORS,
    SCORE,
    TRIALS_TO_FIRST_CATEGORY,
    perseverative_error,
    switching_measures,
)

CONCEPTUAL_LEVEL_RESPONSES = "conceptual_level_responses"
FAILURE_TO_MAINTAIN_SET = "failure_to_maintain_set"

#: Streak at or above which a correct sort is a "conceptual level response" (eq. 5).
CLR_MIN_STREAK = 3
#: Streak from which an error is a "failure to maintain set" (eq. 6).
FMS_MIN_STREAK = 5

metric_specs: tuple[MetricSpec, ...] = (
    MetricSpec(ACC, True, "Share of trials sorted correctly (invalid replies count as errors)."),
    MetricSpec(SCORE, True, "Reflection-Bench's WCST score: 100 x acc."),
    MetricSpec(CATEGORIES_COMPLETED, True, "Categories completed: times the streak reached the criterion (eq. 1)."),
    MetricSpec(
        PERSEVERATIVE_ERRORS,
        False,
        "Errors whose matched dimension is the previous category's rule, after a switch (eq. 2).",
    ),
    MetricSpec(NON_PERSEVERATIVE_ERRORS, False, "Errors (incl. invalid replies) minus perseverative errors (eq. 3)."),
    MetricSpec(
        TRIALS_TO_FIRST_CATEGORY,
        False,
        "1-based trial completing the first category (eq. 4); NaN (excluded from the mean) if none.",
    ),
    MetricSpec(CONCEPTUAL_LEVEL_RESPONSES, True, "100 x share of trials with streak >= 3 (eq. 5)."),
    MetricSpec(
        FAILURE_TO_MAINTAIN_SET,
        False,
        "Errors (incl. invalid) made when 5 <= streak before the trial < criterion, same rule (eq. 6).",
    ),
    MetricSpec(INVALID_RATE, False, "Share of trials whose reply could not be read."),
    FALLBACK_SHARE_SPEC,
)

METRIC_NAMES: tuple[str, ...] = tuple(s.name for s in metric_specs)


def wcst_metrics(log: Sequence[Mapping[str, Any]], params: Any) -> dict[str, float]:
    """All WCST metrics of one episode.

    Args:
        log: Per-trial records (``WCSTEnv.log`` or its JSON round-trip), in trial order.
        params: The episode's ``WCSTParams`` (only ``criterion`` is used).

    Returns:
        ``{name: value}`` for every name in :data:`METRIC_NAMES`. An empty log gives NaN
        for every metric (nothing was measured); so does TFC when no category completes.
    """
    n = len(log)
    if n == 0:
        return {name: math.nan for name in METRIC_NAMES}
    criterion = int(params.criterion)
    fms = 0
    for i, r in enumerate(log):
        if r["outcome"] == Outcome.CORRECT.value:
            continue
        before = _streak_before(log, i)
        if FMS_MIN_STREAK <= before < criterion:
            fms += 1
    values = {
        **switching_measures(log, _is_perseverative),  # invalid replies are errors
        CONCEPTUAL_LEVEL_RESPONSES: 100.0 * sum(int(r["streak"]) >= CLR_MIN_STREAK for r in log) / n,
        FAILURE_TO_MAINTAIN_SET: float(fms),
    }
    return {name: values[name] for name in METRIC_NAMES}


def _is_perseverative(record: Mapping[str, Any]) -> bool:
    """An error (not an invalid reply) that sorted by the previous category's rule (eq. 2)."""
    return perseverative_error(record, "rule", "previous_rule", "matched")


def _streak_before(log: Sequence[Mapping[str, Any]], i: int) -> int:
    """c_{i-1}: the streak carried into trial i (0 on the first trial and after a rule change).

    Under the criterion schedule the rule only changes when the previous trial completed
    a category (c = criterion, excluded from FMS anyway), so this is eq. 6 as written;
    under the fixed schedule an error on the first trial of a new block is not a failure
    to maintain a set that was still correct.
    """
    if i == 0 or log[i]["rule"] != log[i - 1]["rule"]:
        return 0
    return int(log[i - 1]["streak"])
