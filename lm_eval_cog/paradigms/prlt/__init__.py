"""Probabilistic reversal learning task (Reflection-Bench).

Exposes :data:`PARADIGM`; see ``README.md`` in this folder.
"""

from __future__ import annotations

from lm_eval_cog.paradigms.base import Paradigm
from lm_eval_cog.paradigms.prlt.agents import AGENTS
from lm_eval_cog.paradigms.prlt.env import PRESETS, PRLTEnv, PRLTParams
from lm_eval_cog.paradigms.prlt.scoring import METRIC_NAMES, belief_errors, metric_specs, prlt_metrics

PARADIGM = Paradigm(
    name="prlt",
    params_cls=PRLTParams,
    presets=PRESETS,
    default_preset="easy",
    env_cls=PRLTEnv,
    metrics=prlt_metrics,
    metric_specs=metric_specs,
    agents=AGENTS,
    heuristic="wsls",
)

__all__ = ["METRIC_NAMES", "PARADIGM", "PRESETS", "PRLTEnv", "PRLTParams", "belief_errors", "prlt_metrics"]
