"""Letter-Number Test (Kennedy & Nowak, 2024; after Rogers & Monsell, 1995).

Exposes :data:`PARADIGM`; see ``README.md`` in this folder.
"""

from __future__ import annotations

from lm_eval_cog.paradigms.base import Paradigm
from lm_eval_cog.paradigms.lnt.agents import AGENTS, AnticipatoryAgent, OptimalAgent, PerseverativeAgent
from lm_eval_cog.paradigms.lnt.env import (
    ANSWERS,
    APPENDIX_A,
    PRESETS,
    VOCABULARY,
    LNTEnv,
    LNTParams,
    correct_answer,
    find_choices,
    parse_reply,
    read_reply,
    system_prompt,
)
from lm_eval_cog.paradigms.lnt.scoring import (
    METRIC_NAMES,
    lnt_metrics,
    max_categories,
    metric_specs,
    reactive_categories,
    reactive_correct,
)

PARADIGM = Paradigm(
    name="lnt",
    params_cls=LNTParams,
    presets=PRESETS,
    default_preset="kennedy",
    env_cls=LNTEnv,
    metrics=lnt_metrics,
    metric_specs=metric_specs,
    agents=AGENTS,
    heuristic="perseverative",
    # Letter case changes nothing for a random player (uniform over the four answer words).
    chance_invariant=("strategy", "letters"),
)

__all__ = [
    "ANSWERS",
    "APPENDIX_A",
    "METRIC_NAMES",
    "PARADIGM",
    "PRESETS",
    "VOCABULARY",
    "AnticipatoryAgent",
    "LNTEnv",
    "LNTParams",
    "OptimalAgent",
    "PerseverativeAgent",
    "correct_answer",
    "find_choices",
    "lnt_metrics",
    "max_categories",
    "metric_specs",
    "parse_reply",
    "reactive_categories",
    "reactive_correct",
    "read_reply",
    "system_prompt",
]
