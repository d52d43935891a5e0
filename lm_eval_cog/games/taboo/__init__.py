"""Taboo (clembench, as Momentè et al. 2025 ran it): a describer clues a target word without its
taboo words, a guesser finds it. Exposes :data:`PARADIGM`; see ``README.md`` in this folder."""

from __future__ import annotations

from lm_eval_cog.games.base import FAILED_SCORES
from lm_eval_cog.games.taboo.agents import AGENTS
from lm_eval_cog.games.taboo.env import PRESETS, TabooEnv, TabooParams
from lm_eval_cog.games.taboo.scoring import METRIC_SPECS, taboo_metrics
from lm_eval_cog.paradigms.base import Paradigm

PARADIGM = Paradigm(
    name="taboo",
    params_cls=TabooParams,
    presets=PRESETS,
    default_preset="default",
    env_cls=TabooEnv,
    metrics=taboo_metrics,
    metric_specs=METRIC_SPECS,
    agents=AGENTS,
    # Wins as late as the rules allow: the game's non-ideal reference row.
    heuristic="slow_winner",
    primary_metric="clemscore",
    failed_scores=FAILED_SCORES,
)

__all__ = ["PARADIGM", "PRESETS", "TabooEnv", "TabooParams", "taboo_metrics"]
