"""Taboo (clembench, as Momentè et al. 2025 ran it): a describer clues a target word without its
taboo words, a guesser finds it. Exposes :data:`PARADIGM`; see ``README.md`` in this folder."""

from __future__ import annotations

from lm_eval_cog.games.base import game_paradigm
from lm_eval_cog.games.taboo.agents import AGENTS
from lm_eval_cog.games.taboo.env import TabooEnv, TabooParams
from lm_eval_cog.games.taboo.scoring import METRIC_SPECS, taboo_metrics

PARADIGM = game_paradigm(
    name="taboo",
    params_cls=TabooParams,
    env_cls=TabooEnv,
    metrics=taboo_metrics,
    metric_specs=METRIC_SPECS,
    agents=AGENTS,
    # Wins as late as the rules allow: the game's non-ideal reference row.
    # The paper's instances, messages and rules (docs/games.md, "The paper preset").
    paper=TabooParams(instances="paper", messages="paper", taboo_rule="paper", stopwords="nltk"),
    heuristic="slow_winner",
)

__all__ = ["PARADIGM", "TabooEnv", "TabooParams", "taboo_metrics"]
