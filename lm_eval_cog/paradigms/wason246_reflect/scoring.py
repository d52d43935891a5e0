"""Metrics of a 2-4-6 episode with a metacognition turn, from its log alone.

The log holds the play's records (:class:`~lm_eval_cog.paradigms.wason246.env.Wason246Env`)
and, when a readable rule was stated, one ``kind: "reflection"`` record. The ``wason246``
metrics are computed on the log **without** the reflection record (so ``invalid_rate``,
``fallback_share`` and the rest are the play's); the reflection metrics are
:func:`lm_eval_cog.metacognition.episode_values` of a record whose first and final correctness
are recomputed here by the play's exact scorer (:func:`~lm_eval_cog.paradigms.wason246.env.outcome`
re-reads the first rule and the ``new_response``). A saved (JSON) log rescores offline.

Renamed: the reflection's ``invalid_rate`` is ``reflection_invalid_rate`` (``invalid_rate`` is
the play's). Left out: the reflection's ``first_invalid_rate`` (the reflection is asked only
after a readable rule, so it would be 0 by construction). Added: ``rule_stated`` (the share of
episodes whose play ended with a readable rule, the denominator of every reflection metric).
An episode cut without a readable rule has no reflection: its reflection metrics are NaN
(it counts in ``acc``, as 0, but not in ``acc_first``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from lm_eval_cog import metacognition
from lm_eval_cog.paradigms.base import MetricSpec
from lm_eval_cog.paradigms.wason246.scoring import metric_specs as play_specs
from lm_eval_cog.paradigms.wason246.scoring import wason246_metrics
from lm_eval_cog.paradigms.wason246_reflect.env import REFLECTION, outcome

#: Reflection metrics renamed beside the play's (``invalid_rate`` is the play's).
RENAMED: Mapping[str, str] = {"invalid_rate": "reflection_invalid_rate"}
#: Reflection metrics left out (0 by construction here).
DROPPED: frozenset[str] = frozenset({"first_invalid_rate"})
RULE_STATED = "rule_stated"

_DOCS: Mapping[str, str] = {
    "acc_first": "1 if the rule stated in play is exactly right (the play's exact scorer); NaN without a "
                 "readable rule (no reflection).",
    "acc_final": "1 if the final rule (the reflection's new rule, else the first) is exactly right; an unreadable "
                 "new rule is wrong; NaN without a reflection.",
    "revision_rate": "1 if the new rule differs from the first on the domain, or cannot be read; NaN "
                     "without a reflection.",
    "revision_invalid_rate": "1 if the reflection gave a new rule that cannot be read or decided (scored wrong); NaN "
                             "without a reflection.",
}  # fmt: skip

metric_specs: tuple[MetricSpec, ...] = (
    *play_specs,
    MetricSpec(RULE_STATED, True, "1 if the play ended with a readable rule (and the reflection was asked), else 0: "
                                  "the denominator of every reflection metric."),
    *(
        MetricSpec(RENAMED.get(name, name), higher, _DOCS.get(name, doc + " NaN without a reflection."))
        for name, higher, doc in metacognition.METRICS
        if name not in DROPPED
    ),
)  # fmt: skip
METRIC_NAMES: tuple[str, ...] = tuple(s.name for s in metric_specs)
REFLECTION_NAMES: tuple[str, ...] = tuple(RENAMED.get(n, n) for n in metacognition.METRIC_NAMES if n not in DROPPED)


def reflection_values(
    play: Sequence[Mapping[str, Any]], record: Mapping[str, Any] | None, params: Any
) -> dict[str, float]:
    """The reflection metrics of one episode (renamed, NaN throughout without a reflection record
    or a stated rule)."""
    if record is None or not any(r["kind"] == "rule" for r in play):
        return {name: math.nan for name in REFLECTION_NAMES}
    result = outcome(play, record, params.grid, params.query_bound)
    values = metacognition.episode_values({**record, **result})
    return {RENAMED.get(n, n): v for n, v in values.items() if n not in DROPPED}


def wason246_reflect_metrics(log: Sequence[Mapping[str, Any]], params: Any) -> dict[str, float]:
    """Every metric of one episode: the play's (``wason246``), ``rule_stated`` and the
    reflection's. NaN everywhere for an empty log.

    Args:
        log: ``Wason246ReflectEnv.log`` or its JSON round trip.
        params: The episode's params (``grid`` and ``query_bound`` are read).
    """
    if not log:
        return {name: math.nan for name in METRIC_NAMES}
    play = [r for r in log if r["kind"] != REFLECTION]
    reflections = [r for r in log if r["kind"] == REFLECTION]
    return {
        **wason246_metrics(play, params),
        RULE_STATED: float(any(r["kind"] == "rule" for r in play)),
        **reflection_values(play, reflections[-1] if reflections else None, params),
    }
