"""N-back metrics from the per-trial log alone (definitions: ``docs/paradigms.md``).

Reads the fields ``target`` (None for the first n trials), ``choice`` and ``outcome``
of the records written by :class:`~lm_eval_cog.paradigms.nback.env.NBackEnv`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from lm_eval_cog.paradigms.base import FALLBACK_SHARE, FALLBACK_SHARE_SPEC, MetricSpec, Outcome
from lm_eval_cog.paradigms.measures import d_prime, fallback_share, ratio

SCORE = "score"
HIT_RATE = "hit_rate"
FALSE_ALARM_RATE = "false_alarm_rate"
D_PRIME = "d_prime"
INVALID_RATE = "invalid_rate"

metric_specs: tuple[MetricSpec, ...] = (
    MetricSpec(SCORE, True, "Reflection-Bench score: 100 x correct answers / all trials (first n included)."),
    MetricSpec(HIT_RATE, True, "Share of 'yes' among the valid answers on target trials."),
    MetricSpec(FALSE_ALARM_RATE, False, "Share of 'yes' among the valid answers on comparable non-target trials."),
    MetricSpec(D_PRIME, True, "z(hit rate) - z(false-alarm rate), log-linear corrected counts."),
    MetricSpec(INVALID_RATE, False, "Share of trials whose reply could not be read."),
    FALLBACK_SHARE_SPEC,
)
METRIC_NAMES: tuple[str, ...] = tuple(s.name for s in metric_specs)


def nback_metrics(log: Sequence[Mapping[str, Any]], params: Any = None) -> dict[str, float]:
    """All n-back metrics of one episode.

    Invalid replies are errors for ``score`` and count in ``invalid_rate``; they are
    neither hits nor false alarms and are left out of the two rates (which are over
    answered trials). "Not available" on a comparable trial is a valid "not yes".
    """
    n = len(log)
    if n == 0:
        return {name: math.nan for name in METRIC_NAMES}
    correct = sum(r["outcome"] == Outcome.CORRECT.value for r in log)
    invalid = sum(r["outcome"] == Outcome.INVALID.value for r in log)
    answered = [r for r in log if r["outcome"] != Outcome.INVALID.value]
    signal = [r for r in answered if r["target"] is True]
    noise = [r for r in answered if r["target"] is False]
    hits = sum(r["choice"] == "yes" for r in signal)
    false_alarms = sum(r["choice"] == "yes" for r in noise)
    return {
        SCORE: 100.0 * correct / n,
        HIT_RATE: ratio(hits, len(signal)),
        FALSE_ALARM_RATE: ratio(false_alarms, len(noise)),
        D_PRIME: d_prime(hits, len(signal), false_alarms, len(noise)),
        INVALID_RATE: invalid / n,
        FALLBACK_SHARE: fallback_share(log),
    }
