"""Wisconsin Card Sorting Test (Hao et al.; Kennedy & Nowak; Reflection-Bench).

Exposes :data:`PARADIGM`; see ``README.md`` in this folder.
"""

from __future__ import annotations

from lm_eval_cog.paradigms.base import Paradigm
from lm_eval_cog.paradigms.wcst.agents import AGENTS, OptimalAgent, PerseverativeAgent
from lm_eval_cog.paradigms.wcst.cards import KEY_CARDS, UNAMBIGUOUS_CARDS
from lm_eval_cog.paradigms.wcst.env import (
    PRESETS,
    WCSTEnv,
    WCSTParams,
    card_text,
    find_choices,
    parse_reply,
    read_reply,
    system_prompt,
)
from lm_eval_cog.paradigms.wcst.scoring import METRIC_NAMES, metric_specs, wcst_metrics

PARADIGM = Paradigm(
    name="wcst",
    params_cls=WCSTParams,
    presets=PRESETS,
    default_preset="wcst64",
    env_cls=WCSTEnv,
    metrics=wcst_metrics,
    metric_specs=metric_specs,
    agents=AGENTS,
    heuristic="perseverative",
    # A random sort is right with p = 1/4 on every trial whatever the rule, its schedule or
    # the words used (exactly one option matches per dimension): the score is unchanged.
    # Nor whether the cards are described or drawn, nor how many past images are kept.
    chance_invariant=(
        "strategy", "exclusivity_hint", "fixed_rule", "announce_rule", "theme", "roleplay", "modality", "image_history",
    ),
)

__all__ = [
    "KEY_CARDS",
    "METRIC_NAMES",
    "PARADIGM",
    "PRESETS",
    "UNAMBIGUOUS_CARDS",
    "OptimalAgent",
    "PerseverativeAgent",
    "WCSTEnv",
    "WCSTParams",
    "card_text",
    "find_choices",
    "metric_specs",
    "parse_reply",
    "read_reply",
    "system_prompt",
    "wcst_metrics",
]
