"""Image Game parameters."""

from __future__ import annotations

from dataclasses import dataclass

from lm_eval_cog.games import paper
from lm_eval_cog.games.grids import SIZE
from lm_eval_cog.games.image.instances import EXPERIMENTS
from lm_eval_cog.paradigms.base import Strategy, require_int, unknown_name_message

#: The giver may give one command per cell of the grid (clembench's max turns = 25).
MAX_COMMANDS = SIZE * SIZE
#: The most model calls the rules allow: 25 commands and 25 drawings (the game then ends).
RULE_CALLS = 2 * MAX_COMMANDS


@dataclass(frozen=True)
class ImageParams:
    """Attributes:
    strategy: Only ``direct``: the game has its own reply formats (``Command:``, a grid).
    experiment: ``compact_grids``, ``random_grids`` or ``all`` (episode i plays experiment i mod 2).
    max_turns: Safety bound on model calls per episode (the rules take at most 50).
    instances: ``ours`` (targets drawn per episode) or ``paper`` (the paper's 40 target grids,
        :mod:`lm_eval_cog.games.paper`).
    messages: ``ours`` (our wording) or ``paper`` (clembench's prompts).
    """

    strategy: str = "direct"
    experiment: str = "all"
    max_turns: int = 60
    instances: str = "ours"
    messages: str = "ours"

    def __post_init__(self) -> None:
        strategy = self.strategy.value if isinstance(self.strategy, Strategy) else self.strategy
        if strategy != Strategy.DIRECT.value:
            raise ValueError(
                f"image parameter 'strategy' must be 'direct' (the game asks for its own reply formats, "
                f"'Command: ...' and a drawn grid), got {self.strategy!r}"
            )
        object.__setattr__(self, "strategy", strategy)
        allowed = ("all", *EXPERIMENTS)
        if self.experiment not in allowed:
            raise ValueError(unknown_name_message("image parameter 'experiment'", self.experiment, allowed))
        object.__setattr__(self, "max_turns", require_int("image", "max_turns", self.max_turns, RULE_CALLS))
        paper.check_choice("image", "instances", self.instances)
        paper.check_choice("image", "messages", self.messages)


