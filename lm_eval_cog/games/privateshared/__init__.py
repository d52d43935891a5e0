"""Private/Shared (clembench), as Momentè et al. (2025) ran it: a scorekeeping game.

Exposes :data:`PARADIGM`; see ``README.md`` in this folder.
"""

from __future__ import annotations

from lm_eval_cog.games.base import COMMON_METRIC_SPECS, FAILED_SCORES
from lm_eval_cog.games.privateshared.agents import AGENTS
from lm_eval_cog.games.privateshared.env import PRESETS, PrivateSharedEnv, PrivateSharedParams
from lm_eval_cog.games.privateshared.scoring import EXTRA_SPECS, privateshared_metrics
from lm_eval_cog.paradigms.base import Paradigm

PARADIGM = Paradigm(
    name="privateshared",
    params_cls=PrivateSharedParams,
    presets=PRESETS,
    default_preset="default",
    env_cls=PrivateSharedEnv,
    metrics=privateshared_metrics,
    metric_specs=COMMON_METRIC_SPECS + EXTRA_SPECS,
    agents=AGENTS,
    primary_metric="clemscore",
    heuristic="forgetful",
    failed_scores=FAILED_SCORES,
)

__all__ = ["PARADIGM", "PrivateSharedEnv", "PrivateSharedParams", "privateshared_metrics"]
