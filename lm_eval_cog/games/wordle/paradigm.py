"""One :class:`~lm_eval_cog.paradigms.base.Paradigm` per variant, from the shared parts."""

from __future__ import annotations

from lm_eval_cog.games.base import game_paradigm
from lm_eval_cog.games.wordle.agents import AGENTS
from lm_eval_cog.games.wordle.env import WordleCriticEnv, WordleEnv
from lm_eval_cog.games.wordle.params import WordleParams
from lm_eval_cog.games.wordle.scoring import metric_specs, wordle_metrics
from lm_eval_cog.paradigms.base import Paradigm


def build_paradigm(params_cls: type[WordleParams]) -> Paradigm:
    """The paradigm of the variant ``params_cls.variant`` (its env, roles and metrics follow from it)."""
    variant = params_cls.variant
    return game_paradigm(
        name=variant.name,
        params_cls=params_cls,
        env_cls=WordleCriticEnv if variant.critic else WordleEnv,
        metrics=wordle_metrics,
        metric_specs=metric_specs(variant),
        agents=AGENTS,
        # Wins as late as the rules allow: the game's non-ideal reference row.
        heuristic="slow_winner",
        # The paper's targets and clues, and its one-pass feedback (a bug, replicated: docs/games.md).
        paper=params_cls(instances="paper", feedback="paper"),
    )
