"""N-back working-memory test (Reflection-Bench).

Exposes :data:`PARADIGM`; see ``README.md`` in this folder.
"""

from __future__ import annotations

from lm_eval_cog.paradigms.base import Paradigm
from lm_eval_cog.paradigms.nback.agents import AGENTS
from lm_eval_cog.paradigms.nback.env import PRESETS, NBackEnv, NBackParams, draw_sequence, parse_reply, read_reply
from lm_eval_cog.paradigms.nback.scoring import METRIC_NAMES, metric_specs, nback_metrics

PARADIGM = Paradigm(
    name="nback",
    params_cls=NBackParams,
    presets=PRESETS,
    default_preset="easy",
    env_cls=NBackEnv,
    metrics=nback_metrics,
    metric_specs=metric_specs,
    agents=AGENTS,
    heuristic="always_no",
)

__all__ = ["METRIC_NAMES", "PARADIGM", "PRESETS", "NBackEnv", "NBackParams", "draw_sequence", "nback_metrics",
           "parse_reply", "read_reply"]
