"""Private/Shared (clembench), as Momentè et al. (2025) ran it: a scorekeeping game.

Exposes :data:`PARADIGM`; see ``README.md`` in this folder.
"""

from __future__ import annotations

from lm_eval_cog.games.base import COMMON_METRIC_SPECS, game_paradigm
from lm_eval_cog.games.privateshared.agents import AGENTS
from lm_eval_cog.games.privateshared.env import PrivateSharedEnv, PrivateSharedParams
from lm_eval_cog.games.privateshared.scoring import EXTRA_SPECS, privateshared_metrics

PARADIGM = game_paradigm(
    name="privateshared",
    params_cls=PrivateSharedParams,
    env_cls=PrivateSharedEnv,
    metrics=privateshared_metrics,
    metric_specs=COMMON_METRIC_SPECS + EXTRA_SPECS,
    agents=AGENTS,
    # The paper's instances, messages and rules (docs/games.md, "The paper preset").
    paper=PrivateSharedParams(instances="paper", messages="paper"),
    heuristic="forgetful",
)

__all__ = ["PARADIGM", "PrivateSharedEnv", "PrivateSharedParams", "privateshared_metrics"]
