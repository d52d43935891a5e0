"""The three variants and their parameters.

One frozen Params class per variant (:class:`WordleParams`, :class:`WordleClueParams`,
:class:`WordleCriticParams`): the variant is a class constant, not a field, so no override can
turn one paradigm into another (the critic variant has another role and other metrics).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from lm_eval_cog.games import paper
from lm_eval_cog.paradigms.base import Strategy, require_int, unknown_name_message

#: Target-frequency bands the paper played (it had no low-frequency targets: §3 of the research notes).
EXPERIMENTS: tuple[str, ...] = ("high", "medium")
#: Episode i plays EXPERIMENT_CYCLE[i mod 3]: the paper's 10 high + 20 medium, in proportion under any --limit.
EXPERIMENT_CYCLE: tuple[str, ...] = ("high", "medium", "medium")
#: How committed guesses are coloured (``feedback`` parameter).
FEEDBACK_RULES: tuple[str, ...] = ("standard", "paper")
#: The paper's speed score of plain Wordle (v1.6) is defined up to this many guesses.
STEPPED_SPEED_MAX_GUESSES = 6


@dataclass(frozen=True)
class Variant:
    """What distinguishes the three games."""

    name: str
    #: The guesser (and the critic) see the target's crossword clue.
    clue: bool
    #: A critic model judges each first guess before the guesser's final guess.
    critic: bool
    #: Plain Wordle's speed score (100/100/100/50/30/20 for a win at guess 1-6); else round(100/n, 2).
    stepped_speed: bool


WORDLE = Variant("wordle", clue=False, critic=False, stepped_speed=True)
WORDLE_CLUE = Variant("wordle_clue", clue=True, critic=False, stepped_speed=False)
WORDLE_CRITIC = Variant("wordle_critic", clue=True, critic=True, stepped_speed=False)


@dataclass(frozen=True)
class WordleParams:
    """Parameters of plain Wordle (defaults: the paper's).

    Attributes:
        strategy: Only ``direct``: the game has its own two-line reply format.
        experiment: ``high`` or ``medium`` frequency targets, or ``all`` (the paper's 1:2 mix, by episode index).
        max_guesses: Committed guesses allowed (6).
        max_reprompts: Times one guess may be asked again after a word missing from the
            allowed list (5); one more such word aborts the game.
        max_turns: Bound on model calls per episode; must be at least :meth:`max_calls`, so the
            rules always end the game first.
        instances: ``ours`` (targets drawn from our WordNet bands) or ``paper`` (the paper's 30
            targets and clues, :mod:`lm_eval_cog.games.paper`).
        feedback: ``standard`` (two-pass colouring) or ``paper``: the paper's one-pass colouring,
            which replicates a bug (repeated letters, clemcore#153) and tells the model wrong facts.
            Both are logged on every committed guess.
    """

    variant: ClassVar[Variant] = WORDLE

    strategy: str = Strategy.DIRECT.value
    experiment: str = "all"
    max_guesses: int = 6
    max_reprompts: int = 5
    max_turns: int = 80
    instances: str = "ours"
    feedback: str = "standard"

    def __post_init__(self) -> None:
        name = self.variant.name
        strategy = getattr(self.strategy, "value", self.strategy)
        if strategy != Strategy.DIRECT.value:
            raise ValueError(
                f"{name} parameter 'strategy' must be 'direct' (the game has its own reply format, "
                f"'guess: <word>' and 'explanation: <why>'), got {self.strategy!r}"
            )
        object.__setattr__(self, "strategy", strategy)
        if self.experiment not in ("all", *EXPERIMENTS):
            raise ValueError(unknown_name_message(f"{name} experiment", self.experiment, ("all", *EXPERIMENTS)))
        object.__setattr__(self, "max_guesses", require_int(name, "max_guesses", self.max_guesses, 1))
        if self.variant.stepped_speed and self.max_guesses > STEPPED_SPEED_MAX_GUESSES:
            raise ValueError(
                f"{name} parameter 'max_guesses' must be at most {STEPPED_SPEED_MAX_GUESSES} (the speed score "
                f"100/50/30/20 is defined for wins in 1-6 guesses), got {self.max_guesses!r}"
            )
        object.__setattr__(self, "max_reprompts", require_int(name, "max_reprompts", self.max_reprompts, 0))
        object.__setattr__(self, "max_turns", require_int(name, "max_turns", self.max_turns, 1))
        paper.check_choice(name, "instances", self.instances)
        if self.feedback not in FEEDBACK_RULES:
            raise ValueError(unknown_name_message(f"{name} parameter 'feedback'", self.feedback, FEEDBACK_RULES))
        if self.max_turns < self.max_calls():
            raise ValueError(
                f"{name} parameter 'max_turns' must be at least {self.max_calls()} (the most model calls the "
                f"rules allow with max_guesses={self.max_guesses}, max_reprompts={self.max_reprompts}), "
                f"got {self.max_turns!r}"
            )

    def max_calls(self) -> int:
        """The most model calls a game can take: every guess reprompted to the limit (twice a
        turn with the critic), plus one critic call a turn."""
        per_guess = 1 + self.max_reprompts
        per_turn = 2 * per_guess + 1 if self.variant.critic else per_guess
        return self.max_guesses * per_turn


@dataclass(frozen=True)
class WordleClueParams(WordleParams):
    """Parameters of Wordle with clue (the same fields)."""

    variant: ClassVar[Variant] = WORDLE_CLUE


@dataclass(frozen=True)
class WordleCriticParams(WordleParams):
    """Parameters of Wordle with critic (the same fields)."""

    variant: ClassVar[Variant] = WORDLE_CRITIC


def pick_experiment(params: WordleParams, options: dict[str, Any]) -> str:
    """The experiment of an episode: the fixed one, or the cycle's entry for its index."""
    if params.experiment != "all":
        return params.experiment
    return EXPERIMENT_CYCLE[int(options.get("index", 0)) % len(EXPERIMENT_CYCLE)]
