"""Reference Game parameters."""

from __future__ import annotations

from dataclasses import dataclass

from lm_eval_cog.games import paper
from lm_eval_cog.games.reference.instances import CATEGORIES
from lm_eval_cog.paradigms.base import Strategy, require_int, unknown_name_message

#: The rules take exactly two model calls (one expression, one answer).
RULE_CALLS = 2


@dataclass(frozen=True)
class ReferenceParams:
    """Attributes:
    strategy: Only ``direct``: the game has its own reply formats (``Expression:``, ``Answer:``).
    experiment: A grid category (one of ``CATEGORIES``) or ``all`` (episode i plays category
        i mod 6).
    max_turns: Safety bound on model calls per episode (the rules take 2).
    instances: ``ours`` (triples drawn from our pools) or ``paper`` (the paper's 180 triples,
        :mod:`lm_eval_cog.games.paper`).
    messages: ``ours`` (our wording) or ``paper`` (clembench's prompts).
    """

    strategy: str = "direct"
    experiment: str = "all"
    max_turns: int = 4
    instances: str = "ours"
    messages: str = "ours"

    def __post_init__(self) -> None:
        strategy = self.strategy.value if isinstance(self.strategy, Strategy) else self.strategy
        if strategy != Strategy.DIRECT.value:
            raise ValueError(
                f"reference parameter 'strategy' must be 'direct' (the game asks for its own reply formats, "
                f"'Expression: ...' and 'Answer: ...'), got {self.strategy!r}"
            )
        object.__setattr__(self, "strategy", strategy)
        allowed = ("all", *CATEGORIES)
        if self.experiment not in allowed:
            raise ValueError(unknown_name_message("reference parameter 'experiment'", self.experiment, allowed))
        object.__setattr__(self, "max_turns", require_int("reference", "max_turns", self.max_turns, RULE_CALLS))
        paper.check_choice("reference", "instances", self.instances)
        paper.check_choice("reference", "messages", self.messages)


