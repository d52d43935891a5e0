"""Reference players on the static probes, scored without lm-eval.

``--model cog_baseline --model_args policy=random|optimal|prepotent`` answers the
probes' requests with :meth:`~lm_eval_cog.paradigms.probe_base.Probe.policy_choice`; this
module plays the same choices straight through the probe's scorer and the YAML's
aggregations, for the tests and ``scripts/`` (the same numbers as the results JSON).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from lm_eval_cog.paradigms.base import agent_rng
from lm_eval_cog.probes.core import Probe

AGGREGATIONS = "lm_eval_cog.probes.aggregations"


def aggregation(probe: Probe, metric: str) -> Any:
    """The aggregation function of one of ``probe``'s metrics (mean for the standard ones)."""
    if metric not in probe.custom_aggregations:
        return lambda values: float(np.mean(values))
    path = probe.custom_aggregations[metric][0]
    module, _, name = (path if "." in path else f"{AGGREGATIONS}.{path}").rpartition(".")
    return getattr(importlib.import_module(module), name)


def aggregate(probe: Probe, per_doc: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """Task-level metrics from per-document metric dicts, as lm-eval aggregates them."""
    values: dict[str, list[Any]] = {}
    for row in per_doc:
        for key, value in row.items():
            values.setdefault(key, []).append(value)
    return {key: float(aggregation(probe, key)(items)) for key, items in values.items()}


def play(probe: Probe, policy: str, docs: Sequence[Mapping[str, Any]], form: str = "gen") -> dict[str, float]:
    """Task metrics of a reference player (seeded per document as ``cog_baseline`` is) on the documents
    of ``docs`` that the ``form`` task asks (:meth:`~lm_eval_cog.paradigms.probe_base.Probe.in_form`)."""
    rows = []
    for doc in (d for d in docs if probe.in_form(d, form)):
        choice = probe.policy_choice(policy, doc, agent_rng(doc["seed"]))
        if form == "gen":
            rows.append(probe.score_gen(doc, str(doc["choices"][choice])))
        else:
            rows.append(probe.score_mc(doc, [0.0 if k == choice else -1.0 for k in range(len(doc["choices"]))]))
    return aggregate(probe, rows)
