"""What the two-armed bandit paradigms (PRLT, MBT) share: the arms, reply parsing, texts, the trial loop."""

from __future__ import annotations

import abc
from collections.abc import Mapping
from typing import Any

from lm_eval_cog.paradigms.base import (
    AMBIGUOUS,
    NO_ANSWER,
    Env,
    Outcome,
    ParseFailure,
    Reading,
    Strategy,
    read_choice,
    join_message,
    keyword_finder,
)

LEFT = "left"
RIGHT = "right"
ARMS: tuple[str, ...] = (LEFT, RIGHT)

_FIND = keyword_finder({LEFT: "left", RIGHT: "right"})

FEEDBACK_INVALID: Mapping[str, str] = {
    NO_ANSWER: "Your reply could not be read, so no arm was pulled: answer left arm or right arm.",
    AMBIGUOUS: "Your reply named both arms, so no arm was pulled: answer left arm or right arm.",
}
CHOICE_SENTENCE = "Respond with your choice (left arm or right arm)."


def other(arm: str) -> str:
    """The arm that is not ``arm``."""
    return RIGHT if arm == LEFT else LEFT


def find_choices(text: str) -> list[tuple[int, str]]:
    """Every mention of an arm as ``(position, "left" | "right")``."""
    return _FIND(text)


def read_reply(reply: str, strategy: Strategy) -> Reading:
    """``"left"``, ``"right"`` or a :class:`ParseFailure`, and how it was read."""
    return read_choice(reply, strategy, find_choices)


def parse_reply(reply: str, strategy: Strategy) -> str | ParseFailure:
    """``"left"``, ``"right"`` or a :class:`ParseFailure`."""
    return read_reply(reply, strategy).value


def stimulus_text(trial: int) -> str:
    """The question of one trial."""
    return f"Trial {trial}: choose the left arm or the right arm."


def reward_text(arm: str, reward: int) -> str:
    """Feedback on a pull."""
    return f"You chose the {arm} arm and received {reward}."


CLOSING = "That was the last trial. The game is over."


class BanditEnv(Env):
    """One pull per turn: parse the arm, pay it, log the trial, ask for the next pull.

    Subclasses draw their schedule in ``_reset`` (ending with :meth:`_start`) and say
    what an arm pays (:meth:`pull`) and which hidden fields each trial logs
    (:meth:`trial_fields`). ``params`` must have ``strategy`` and ``trials``. An
    unreadable reply pulls no arm: reward 0, an ``invalid`` trial, never an arm.
    """

    @abc.abstractmethod
    def pull(self, trial: int, arm: str) -> tuple[int, bool]:
        """(reward, whether ``arm`` was the better arm) on a 1-based trial."""

    @abc.abstractmethod
    def trial_fields(self, trial: int) -> dict[str, Any]:
        """Hidden state of a trial, for the log (never shown to the model or the agents)."""

    def _start(self, system_prompt: str) -> tuple[str, dict[str, Any]]:
        self.system_prompt = system_prompt
        return stimulus_text(1), self._info(1, None, None)

    def _info(self, next_trial: int, last_choice: str | None, last_reward: int | None) -> dict[str, Any]:
        return {"choices": list(ARMS), "trial": next_trial, "last_choice": last_choice, "last_reward": last_reward}

    def _step(self, reply: str) -> tuple[str, bool, dict[str, Any]]:
        trial = len(self.log) + 1
        reading = read_reply(reply, self.params.strategy)
        parsed = reading.value
        if isinstance(parsed, ParseFailure):
            choice, invalid, reward, outcome = None, parsed.code, 0, Outcome.INVALID
            feedback = FEEDBACK_INVALID[parsed.code]
        else:
            choice, invalid = parsed, None
            reward, better = self.pull(trial, choice)
            outcome = Outcome.CORRECT if better else Outcome.ERROR
            feedback = reward_text(choice, reward)
        self.log.append(
            {
                "trial": trial,
                **self.trial_fields(trial),
                "choice": choice,
                "invalid": invalid,
                "parse": reading.path.value,
                "reward": reward,
                "outcome": outcome.value,
                "feedback": feedback,
            }
        )
        info = self._info(trial + 1, choice, reward)
        if trial >= self.params.trials:
            return join_message(feedback, CLOSING), True, info
        return join_message(feedback, stimulus_text(trial + 1)), False, info
