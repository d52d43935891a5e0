"""clembench's Reference Game (as Momentè et al. 2025 ran it): a giver describes one of three
5x5 grids, a follower picks it out. Exposes :data:`PARADIGM`; see ``README.md`` in this folder."""

from __future__ import annotations

from lm_eval_cog.games.base import game_paradigm
from lm_eval_cog.games.reference.agents import AGENTS
from lm_eval_cog.games.reference.env import ReferenceEnv
from lm_eval_cog.games.reference.instances import CATEGORIES, POOLS, Instance, draw_instance
from lm_eval_cog.games.reference.params import ReferenceParams
from lm_eval_cog.games.reference.rules import read_answer, read_expression
from lm_eval_cog.games.reference.scoring import METRIC_SPECS, reference_metrics

PARADIGM = game_paradigm(
    name="reference",
    params_cls=ReferenceParams,
    env_cls=ReferenceEnv,
    metrics=reference_metrics,
    metric_specs=METRIC_SPECS,
    agents=AGENTS,
    # The paper's instances, messages and rules (docs/games.md, "The paper preset").
    paper=ReferenceParams(instances="paper", messages="paper"),
    heuristic="first_always",
)

__all__ = ["CATEGORIES", "METRIC_SPECS", "PARADIGM", "POOLS", "Instance", "ReferenceEnv", "ReferenceParams",
           "draw_instance", "read_answer", "read_expression", "reference_metrics"]
