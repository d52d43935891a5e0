"""Weather prediction task (Reflection-Bench).

Exposes :data:`PARADIGM`; see ``README.md`` in this folder.
"""

from __future__ import annotations

from lm_eval_cog.paradigms.base import Paradigm
from lm_eval_cog.paradigms.wpt.agents import AGENTS
from lm_eval_cog.paradigms.wpt.env import PRESETS, WPTEnv, WPTParams, parse_reply, read_reply, transition_probability
from lm_eval_cog.paradigms.wpt.scoring import METRIC_NAMES, estimated_matrices, metric_specs, wpt_metrics

PARADIGM = Paradigm(
    name="wpt",
    params_cls=WPTParams,
    presets=PRESETS,
    default_preset="easy",
    env_cls=WPTEnv,
    metrics=wpt_metrics,
    metric_specs=metric_specs,
    agents=AGENTS,
    heuristic="persistence",
)

__all__ = ["METRIC_NAMES", "PARADIGM", "PRESETS", "WPTEnv", "WPTParams", "estimated_matrices", "parse_reply", "read_reply",
           "transition_probability", "wpt_metrics"]
