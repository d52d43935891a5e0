"""Double-choice Iowa gambling task (Reflection-Bench A.6): preview a deck, then keep or switch.

Pure Python + numpy; see ``README.md`` in this folder.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lm_eval_cog.paradigms.base import (
    AMBIGUOUS,
    NO_ANSWER,
    STRATEGY_INSTRUCTIONS,
    Env,
    ParseFailure,
    Reading,
    Strategy,
    coerce_strategy,
    read_choice,
    join_message,
    keyword_finder,
    require_int,
    require_probability,
)

DECKS: tuple[str, ...] = ("AAA", "BBB", "CCC", "DDD")
FIRST = "first"
SECOND = "second"


@dataclass(frozen=True)
class IGTParams:
    """Parameters of one DC-IGT protocol (defaults: Reflection-Bench easy).

    Attributes:
        strategy: Prompting strategy (``direct``/``free``/``cot``).
        p_loss: Probability that a card of deck AAA, BBB, CCC, DDD carries a loss
            (easy .5/.1/.5/.1, hard .5/.2/.5/.2).
        gains: What every card of each deck wins (100, 100, 50, 50).
        losses: The loss a losing card of each deck carries (260, 1250, 50, 200).
        start: Starting balance ($2000).
        trials: Number of trials (50, as in the published config), each a first choice and a
            final choice (two turns).
    """

    strategy: Strategy = Strategy.DIRECT
    p_loss: tuple[float, ...] = (0.5, 0.1, 0.5, 0.1)
    gains: tuple[int, ...] = (100, 100, 50, 50)
    losses: tuple[int, ...] = (260, 1250, 50, 200)
    start: int = 2000
    trials: int = 50

    def __post_init__(self) -> None:
        object.__setattr__(self, "strategy", coerce_strategy(self.strategy))
        for name in ("p_loss", "gains", "losses"):
            value = getattr(self, name)
            if not isinstance(value, (list, tuple)) or len(value) != len(DECKS):
                raise ValueError(f"igt parameter {name!r} must be a list of {len(DECKS)} values, got {value!r}")
        object.__setattr__(
            self, "p_loss", tuple(require_probability("igt", f"p_loss[{k}]", v) for k, v in enumerate(self.p_loss))
        )
        object.__setattr__(self, "gains", tuple(require_int("igt", f"gains[{k}]", v, 0) for k, v in enumerate(self.gains)))
        object.__setattr__(
            self, "losses", tuple(require_int("igt", f"losses[{k}]", v, 0) for k, v in enumerate(self.losses))
        )
        object.__setattr__(self, "start", require_int("igt", "start", self.start, 0))
        object.__setattr__(self, "trials", require_int("igt", "trials", self.trials, 1))
        if self.start + max(self.gains) * self.trials <= 0:
            raise ValueError("igt parameters 'start', 'gains' and 'trials' leave no balance to score against")

    @property
    def max_turns(self) -> int:
        """Two turns per trial (first choice, final choice)."""
        return 2 * self.trials

    @property
    def max_balance(self) -> int:
        """The balance of a player who never loses: the denominator of the balance score."""
        return self.start + max(self.gains) * self.trials


PRESETS: Mapping[str, IGTParams] = {
    "easy": IGTParams(p_loss=(0.5, 0.1, 0.5, 0.1)),
    "hard": IGTParams(p_loss=(0.5, 0.2, 0.5, 0.2)),
}

# A lone letter counts only after "deck" ("deck A"): a bare "A" is usually an article.
_FIND = keyword_finder({deck: rf"{deck}|deck\s+{deck[0]}" for deck in DECKS})


def find_choices(text: str) -> list[tuple[int, str]]:
    """Every mention of a deck as ``(position, deck)``: ``AAA`` (any case) or ``deck A``."""
    return _FIND(text)


def read_reply(reply: str, strategy: Strategy) -> Reading:
    """A deck name or a :class:`ParseFailure`, and how it was read."""
    return read_choice(reply, strategy, find_choices)


def parse_reply(reply: str, strategy: Strategy) -> str | ParseFailure:
    """A deck name or a :class:`ParseFailure`."""
    return read_reply(reply, strategy).value


FEEDBACK_INVALID: Mapping[str, str] = {
    NO_ANSWER: "Your reply could not be read: answer with one deck, AAA, BBB, CCC or DDD.",
    AMBIGUOUS: "Your reply named more than one deck: answer with one deck, AAA, BBB, CCC or DDD.",
}
CLOSING = "That was the last trial. The game is over."


def system_prompt(params: IGTParams) -> str:
    """Instructions (Reflection-Bench A.6)."""
    return "\n".join(
        [
            "You are participating in an interesting game. There are four decks of cards in front of you, "
            f"labeled 'AAA', 'BBB', 'CCC', and 'DDD'. You start with ${params.start} in your account. Your goal "
            "is to maximize your account assets by making a series of choices from these decks.",
            "For each trial: 1. Choose one deck ('AAA', 'BBB', 'CCC', or 'DDD'). 2. You will receive feedback on "
            "the outcome of your choice, including any gains and losses. 3. After receiving the feedback, you "
            "have one opportunity to reconsider your initial decision; you can either stick with your original "
            "choice or make a new choice. 4. Your final choice would determine your actual gain or loss for the "
            "trial.",
            "Respond with your deck choice (AAA, BBB, CCC, or DDD) for each choice. "
            + STRATEGY_INSTRUCTIONS[params.strategy],
        ]
    )


def first_question(trial: int) -> str:
    return f"Trial {trial}: choose a deck (AAA, BBB, CCC or DDD)."


def second_question(trial: int, first: str) -> str:
    return (
        f"You may stick with {first} or choose another deck. "
        f"Which deck is your final choice for trial {trial} (AAA, BBB, CCC or DDD)?"
    )


def outcome_text(gain: int, loss: int) -> str:
    return f"win ${gain} and lose ${loss}"


class IGTEnv(Env):
    """Double-choice Iowa gambling task.

    Description:
        Each trial has two turns. The model picks a deck and is shown what that card would
        bring (its gain and its loss, if any); it then makes its final choice, keeping the
        deck or switching, and only the final choice is paid. Whether each deck's card of
        each trial carries a loss is drawn at reset, so the outcome table is fixed by the
        seed: keeping the previewed deck realises exactly the previewed outcome, and
        switching realises the other deck's card of that trial.

    Reply format:
        A deck, ``AAA``..``DDD`` (or ``deck A``); with ``cot``/``free`` a final ``Answer: ...``
        line. An unreadable first choice previews nothing; an unreadable final choice draws no
        card (balance unchanged). Neither is ever turned into a deck.

    Messages:
        ``Trial t: choose a deck ...`` -> ``You chose CCC: this card would win $50 and lose $0.
        You may stick with CCC or choose another deck. ...`` -> ``Final choice DDD: you won $50
        and lost $0. Your balance is $2050.`` + the next trial's question.

    Scoring:
        One record per trial; see ``scoring.igt_metrics``.

    Episode end:
        ``terminated`` after the final choice of trial ``trials``.

    Arguments:
        params: :class:`IGTParams`.

    References:
        Reflection-Bench (Li et al.), section 3.3 and appendix A.6; Bechara et al. (1994).

    Version history:
        v1: first version.

    Example:
        >>> env = IGTEnv(PRESETS["easy"])
        >>> message, info = env.reset(seed=0)
        >>> message
        'Trial 1: choose a deck (AAA, BBB, CCC or DDD).'
        >>> message, terminated, truncated, info = env.step("CCC")
        >>> message.startswith("You chose CCC: this card would win $50")
        True
        >>> message, terminated, truncated, info = env.step("CCC")
        >>> env.log[0]["first"], env.log[0]["final"], env.log[0]["switched"]
        ('CCC', 'CCC', False)
    """

    name = "igt"

    def _reset(self, options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        p: IGTParams = self.params
        draws = self.rng.random((p.trials, len(DECKS)))
        self._loses = [[bool(draws[t, k] < p.p_loss[k]) for k in range(len(DECKS))] for t in range(p.trials)]
        self._phase = FIRST
        self._first: str | None = None
        self._first_invalid: str | None = None
        self._first_parse: str | None = None
        self.balance = p.start
        self.system_prompt = system_prompt(p)
        return first_question(1), self._info(1, None, None)

    def card(self, trial: int, deck: str) -> tuple[int, int]:
        """(gain, loss) of ``deck``'s card on a 1-based trial."""
        k = DECKS.index(deck)
        return self.params.gains[k], self.params.losses[k] if self._loses[trial - 1][k] else 0

    def _info(self, trial: int, first: str | None, preview: tuple[int, int] | None) -> dict[str, Any]:
        return {"choices": list(DECKS), "trial": trial, "phase": self._phase, "first": first,
                "preview": preview, "balance": self.balance}  # fmt: skip

    def _step(self, reply: str) -> tuple[str, bool, dict[str, Any]]:
        p: IGTParams = self.params
        trial = len(self.log) + 1
        reading = read_reply(reply, p.strategy)
        parsed = reading.value
        if self._phase == FIRST:
            self._phase = SECOND
            self._first_parse = reading.path.value
            if isinstance(parsed, ParseFailure):
                self._first, self._first_invalid = None, parsed.code
                message = join_message(FEEDBACK_INVALID[parsed.code] + " No card was shown.",
                                       f"Which deck is your final choice for trial {trial} (AAA, BBB, CCC or DDD)?")
                return message, False, self._info(trial, None, None)
            self._first, self._first_invalid = parsed, None
            preview = self.card(trial, parsed)
            message = f"You chose {parsed}: this card would {outcome_text(*preview)}. " + second_question(trial, parsed)
            return message, False, self._info(trial, parsed, preview)

        self._phase = FIRST
        first = self._first
        preview = self.card(trial, first) if first is not None else None
        if isinstance(parsed, ParseFailure):
            final, final_invalid, realised = None, parsed.code, None
            feedback = FEEDBACK_INVALID[parsed.code] + " No card was drawn this trial."
        else:
            final, final_invalid = parsed, None
            realised = self.card(trial, final)
            self.balance += realised[0] - realised[1]
            feedback = f"Final choice {final}: you won ${realised[0]} and lost ${realised[1]}."
        feedback += f" Your balance is ${self.balance}."
        self.log.append(
            {
                "trial": trial,
                "first": first,
                "first_invalid": self._first_invalid,
                "first_parse": self._first_parse,
                "preview_gain": None if preview is None else preview[0],
                "preview_loss": None if preview is None else preview[1],
                "final": final,
                "final_invalid": final_invalid,
                "final_parse": reading.path.value,
                "switched": None if first is None or final is None else first != final,
                "gain": None if realised is None else realised[0],
                "loss": None if realised is None else realised[1],
                "balance": self.balance,
                "feedback": feedback,
            }
        )
        info = self._info(trial + 1, None, None)
        if trial >= p.trials:
            return join_message(feedback, CLOSING), True, info
        return join_message(feedback, first_question(trial + 1)), False, info
