"""Metrics of a reflection episode, from its log alone (see :mod:`lm_eval_cog.metacognition`).

The log holds two records: the answer (``phase: answer``, with the ``_gen`` form's reading
and the parse path) and the reflection (``phase: reflection``, the fields of
:func:`lm_eval_cog.metacognition.reflection_record`). A saved (JSON) log rescores offline.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from lm_eval_cog import metacognition
from lm_eval_cog.paradigms.base import FALLBACK_SHARE, FALLBACK_SHARE_SPEC, MetricSpec
from lm_eval_cog.paradigms.measures import fallback_share

metric_specs: tuple[MetricSpec, ...] = (
    *(MetricSpec(name, higher, doc) for name, higher, doc in metacognition.METRICS),
    FALLBACK_SHARE_SPEC,
)
METRIC_NAMES: tuple[str, ...] = tuple(s.name for s in metric_specs)


def reflect_metrics(log: Sequence[Mapping[str, Any]], params: Any) -> dict[str, float]:
    """Every metric of one episode: the reflection's values (NaN outside a metric's
    denominator) and ``fallback_share`` (always 0 once answered: the ``_gen`` reading has no
    fallback). An empty log, or one without its reflection, is NaN throughout (nothing
    measured); ``params`` is unused (the log is self-contained)."""
    answers = [r for r in log if r.get("phase") == "answer"]
    reflections = [r for r in log if r.get("phase") == "reflection"]
    if not answers or not reflections:
        return {name: math.nan for name in METRIC_NAMES}
    return {**metacognition.episode_values(reflections[-1]), FALLBACK_SHARE: fallback_share(answers)}
