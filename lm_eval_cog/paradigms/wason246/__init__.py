"""Wason's 2-4-6 rule discovery by active querying (Wason, 1960; CogProbe's induction task).

Exposes :data:`PARADIGM`; see ``README.md`` in this folder.
"""

from __future__ import annotations

from lm_eval_cog.paradigms.base import Paradigm
from lm_eval_cog.paradigms.wason246.agents import (
    AGENTS,
    ConfirmatoryAgent,
    IdealAgent,
    RandomAgent,
    RandomConsistentAgent,
    expected_ideal_queries,
    ideal_queries,
    random_chance,
)
from lm_eval_cog.paradigms.wason246.env import (
    CLOSING,
    COGPROBE6,
    PRESETS,
    WASON1960,
    BadMove,
    Move,
    Wason246Env,
    Wason246Params,
    read_move,
    system_prompt,
)
from lm_eval_cog.paradigms.wason246.rules import Rule, RuleError, parse_rule
from lm_eval_cog.paradigms.wason246.scoring import (
    METRIC_NAMES,
    metric_specs,
    score_rule,
    wason246_metrics,
)

PARADIGM = Paradigm(
    name="wason246",
    params_cls=Wason246Params,
    presets=PRESETS,
    default_preset="cogprobe6",
    env_cls=Wason246Env,
    metrics=wason246_metrics,
    metric_specs=metric_specs,
    agents=AGENTS,
    heuristic="confirmatory",
    primary_metric="acc",
)

__all__ = [
    "AGENTS",
    "CLOSING",
    "COGPROBE6",
    "METRIC_NAMES",
    "PARADIGM",
    "PRESETS",
    "WASON1960",
    "BadMove",
    "ConfirmatoryAgent",
    "IdealAgent",
    "Move",
    "RandomAgent",
    "RandomConsistentAgent",
    "Rule",
    "RuleError",
    "Wason246Env",
    "Wason246Params",
    "expected_ideal_queries",
    "ideal_queries",
    "metric_specs",
    "parse_rule",
    "random_chance",
    "read_move",
    "score_rule",
    "system_prompt",
    "wason246_metrics",
]
