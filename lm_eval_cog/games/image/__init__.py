"""clembench's Image Game (as Momentè et al. 2025 ran it): a giver guides a drawer, command by
command, to reproduce a 5x5 letter grid. Exposes :data:`PARADIGM`; see ``README.md`` in this folder."""

from __future__ import annotations

from lm_eval_cog.games.base import game_paradigm
from lm_eval_cog.games.image.agents import AGENTS
from lm_eval_cog.games.image.env import ImageEnv
from lm_eval_cog.games.image.instances import EXPERIMENTS, Instance, draw_instance
from lm_eval_cog.games.image.params import MAX_COMMANDS, ImageParams
from lm_eval_cog.games.image.rules import read_command
from lm_eval_cog.games.image.scoring import METRIC_SPECS, GridScore, image_metrics, score_grid

PARADIGM = game_paradigm(
    name="image",
    params_cls=ImageParams,
    env_cls=ImageEnv,
    metrics=image_metrics,
    metric_specs=METRIC_SPECS,
    agents=AGENTS,
    # One command per cell: the drawing ends right, in the most turns the rules allow.
    # The paper's instances, messages and rules (docs/games.md, "The paper preset").
    paper=ImageParams(instances="paper", messages="paper"),
    heuristic="slow_winner",
)

__all__ = ["EXPERIMENTS", "MAX_COMMANDS", "METRIC_SPECS", "PARADIGM", "GridScore", "ImageEnv", "ImageParams",
           "Instance", "draw_instance", "image_metrics", "read_command", "score_grid"]
