"""Double-choice Iowa gambling task (Reflection-Bench).

Exposes :data:`PARADIGM`; see ``README.md`` in this folder.
"""

from __future__ import annotations

from lm_eval_cog.paradigms.base import Paradigm
from lm_eval_cog.paradigms.igt.agents import AGENTS, expected_values
from lm_eval_cog.paradigms.igt.env import DECKS, PRESETS, IGTEnv, IGTParams, parse_reply, read_reply
from lm_eval_cog.paradigms.igt.scoring import METRIC_NAMES, igt_metrics, metric_specs, trial_credit

PARADIGM = Paradigm(
    name="igt",
    params_cls=IGTParams,
    presets=PRESETS,
    default_preset="easy",
    env_cls=IGTEnv,
    metrics=igt_metrics,
    metric_specs=metric_specs,
    agents=AGENTS,
    heuristic="stick",
)

__all__ = ["DECKS", "METRIC_NAMES", "PARADIGM", "PRESETS", "IGTEnv", "IGTParams", "expected_values", "igt_metrics",
           "parse_reply", "read_reply", "trial_credit"]
