"""Meta-bandit task (Reflection-Bench): reversals every n trials, to be anticipated.

Exposes :data:`PARADIGM`; see ``README.md`` in this folder.
"""

from __future__ import annotations

from lm_eval_cog.paradigms.base import Paradigm
from lm_eval_cog.paradigms.mbt.agents import AGENTS
from lm_eval_cog.paradigms.mbt.env import PRESETS, MBTEnv, MBTParams
from lm_eval_cog.paradigms.mbt.scoring import ANTICIPATION_RATE, METRIC_NAMES, mbt_metrics, metric_specs

PARADIGM = Paradigm(
    name="mbt",
    params_cls=MBTParams,
    presets=PRESETS,
    default_preset="easy",
    env_cls=MBTEnv,
    metrics=mbt_metrics,
    metric_specs=metric_specs,
    agents=AGENTS,
    heuristic="wsls",
    primary_metric=ANTICIPATION_RATE,
)

__all__ = ["METRIC_NAMES", "PARADIGM", "PRESETS", "MBTEnv", "MBTParams", "mbt_metrics"]
