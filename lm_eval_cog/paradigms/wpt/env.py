"""Weather prediction task (Reflection-Bench A.2): learn two sensor-dependent transition matrices.

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
    Outcome,
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

SUNNY = "sunny"
RAINY = "rainy"
WEATHERS: tuple[str, ...] = (SUNNY, RAINY)
#: Sensor states as shown to the model. [1,0]: the weather tends to stay; [0,1]: to change.
STAY = "[1,0]"
CHANGE = "[0,1]"
SENSORS: tuple[str, ...] = (STAY, CHANGE)


@dataclass(frozen=True)
class WPTParams:
    """Parameters of one weather-prediction protocol (defaults: Reflection-Bench easy).

    Attributes:
        strategy: Prompting strategy (``direct``/``free``/``cot``).
        p: With sensors [1,0] tomorrow repeats today's weather with probability ``p``; with
            [0,1] it changes with probability ``p`` (easy 0.9, hard 0.8).
        trials: Days predicted (50, as in the published code).
        estimate_from: First day whose prediction enters the estimated matrices (21: the
            published scorer uses days 21-50, after 20 days of learning).
    """

    strategy: Strategy = Strategy.DIRECT
    p: float = 0.9
    trials: int = 50
    estimate_from: int = 21

    def __post_init__(self) -> None:
        object.__setattr__(self, "strategy", coerce_strategy(self.strategy))
        object.__setattr__(self, "p", require_probability("wpt", "p", self.p, low=0.5))
        object.__setattr__(self, "trials", require_int("wpt", "trials", self.trials, 1))
        object.__setattr__(self, "estimate_from", require_int("wpt", "estimate_from", self.estimate_from, 1))
        if self.estimate_from > self.trials:
            raise ValueError(
                f"wpt parameter 'estimate_from' must be <= trials ({self.trials}), got {self.estimate_from!r}"
            )

    @property
    def max_turns(self) -> int:
        """One turn per day."""
        return self.trials


PRESETS: Mapping[str, WPTParams] = {"easy": WPTParams(p=0.9), "hard": WPTParams(p=0.8)}


def other(weather: str) -> str:
    """The weather that is not ``weather``."""
    return RAINY if weather == SUNNY else SUNNY


def transition_probability(p: float, sensors: str, today: str, tomorrow: str) -> float:
    """True P(tomorrow | sensors, today): the generating matrices of section 3.3."""
    stays = p if sensors == STAY else 1.0 - p
    return stays if tomorrow == today else round(1.0 - stays, 12)


_FIND = keyword_finder({SUNNY: "sunny|sun", RAINY: "rainy|rain"})


def find_choices(text: str) -> list[tuple[int, str]]:
    """Every mention of a weather as ``(position, "sunny" | "rainy")``."""
    return _FIND(text)


def read_reply(reply: str, strategy: Strategy) -> Reading:
    """``"sunny"``, ``"rainy"`` or a :class:`ParseFailure`, and how it was read."""
    return read_choice(reply, strategy, find_choices)


def parse_reply(reply: str, strategy: Strategy) -> str | ParseFailure:
    """``"sunny"``, ``"rainy"`` or a :class:`ParseFailure`."""
    return read_reply(reply, strategy).value


FEEDBACK_INVALID: Mapping[str, str] = {
    NO_ANSWER: "Your reply could not be read: predict sunny or rainy.",
    AMBIGUOUS: "Your reply named both sunny and rainy: predict one of them.",
}
CLOSING = "That was the last day. The task is over."


def system_prompt(params: WPTParams) -> str:
    """Instructions (Reflection-Bench A.2; "four sensor devices" there corrected to two)."""
    return "\n".join(
        [
            "You are an expert forecaster working in a weather station. There are two devices collecting data "
            "from nature. Your task is to predict tomorrow's weather based on (1) today's weather and (2) the "
            "current states of the two sensor devices in the weather station.",
            "Here's how the task works: 1. There are two devices, each represented by either 0 (inactive) or "
            "1 (active). 2. The device states will be given to you in the format [d1,d2], where each d is "
            "either 0 or 1. 3. Based on these device states and today's weather, you need to predict whether "
            "tomorrow's weather will be sunny or rainy. 4. After your prediction, I will inform you of the "
            "actual weather outcome. 5. We will repeat this process multiple times, and you should try to "
            "improve your predictions based on the feedback.",
            "At each time, make your prediction of the next day's weather (sunny or rainy). "
            + STRATEGY_INSTRUCTIONS[params.strategy],
        ]
    )


def stimulus_text(day: int, today: str, sensors: str) -> str:
    """The question of one day."""
    return f"Day {day}. Today's weather: {today}. Device states: {sensors}. Predict tomorrow's weather: sunny or rainy?"


class WPTEnv(Env):
    """Weather prediction.

    Description:
        Each day the model sees today's weather and the state of two sensors and predicts
        tomorrow's weather. Sensors [1,0] keep the weather with probability ``p``, [0,1]
        change it with probability ``p``. The first weather, the sensor states (uniform)
        and every outcome are drawn at reset: the weather sequence does not depend on the
        predictions. The model then learns the actual weather, which is the next "today".

    Reply format:
        sunny or rainy; with ``cot``/``free`` a final ``Answer: ...`` line. Anything else is an
        ``invalid`` trial (no prediction; never turned into one).

    Messages:
        Turn 1: the first day's question. Later turns: ``The actual weather was rainy.``
        (with the could-not-read notice for an invalid reply) and the next day's question.

    Scoring:
        See ``scoring.wpt_metrics``: the MAE score between the transition matrices estimated
        from the predictions and the true ones, and prediction accuracy.

    Episode end:
        ``terminated`` after ``trials`` days.

    Arguments:
        params: :class:`WPTParams`.

    References:
        Reflection-Bench (Li et al.), section 3.3 and appendix A.2; Knowlton et al. (1994).

    Version history:
        v1: first version.

    Example:
        >>> env = WPTEnv(PRESETS["easy"])
        >>> message, info = env.reset(seed=0)
        >>> message.startswith("Day 1. Today's weather:")
        True
        >>> message, terminated, truncated, info = env.step("sunny")
        >>> env.log[0]["prediction"]
        'sunny'
    """

    name = "wpt"

    def _reset(self, options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        p: WPTParams = self.params
        rng = self.rng
        weather = [WEATHERS[int(rng.integers(2))]]
        self._sensors = [SENSORS[int(rng.integers(2))] for _ in range(p.trials)]
        for sensors in self._sensors:
            stays = transition_probability(p.p, sensors, weather[-1], weather[-1])
            weather.append(weather[-1] if rng.random() < stays else other(weather[-1]))
        self._weather = weather  # day d's weather is weather[d - 1]; its outcome weather[d]
        self.system_prompt = system_prompt(p)
        return stimulus_text(1, weather[0], self._sensors[0]), self._info(1)

    def _info(self, next_day: int) -> dict[str, Any]:
        done = next_day > self.params.trials
        return {
            "choices": list(WEATHERS),
            "day": next_day,
            "today": None if done else self._weather[next_day - 1],
            "sensors": None if done else self._sensors[next_day - 1],
        }

    def _step(self, reply: str) -> tuple[str, bool, dict[str, Any]]:
        p: WPTParams = self.params
        day = len(self.log) + 1
        today, sensors, actual = self._weather[day - 1], self._sensors[day - 1], self._weather[day]
        reading = read_reply(reply, p.strategy)
        parsed = reading.value
        if isinstance(parsed, ParseFailure):
            prediction, invalid, outcome = None, parsed.code, Outcome.INVALID
            notice = FEEDBACK_INVALID[parsed.code]
        else:
            prediction, invalid, notice = parsed, None, ""
            outcome = Outcome.CORRECT if prediction == actual else Outcome.ERROR
        feedback = join_message(notice, f"The actual weather was {actual}.")
        self.log.append(
            {
                "day": day,
                "today": today,
                "sensors": sensors,
                "actual": actual,
                "prediction": prediction,
                "invalid": invalid,
                "parse": reading.path.value,
                "outcome": outcome.value,
                "feedback": feedback,
            }
        )
        info = self._info(day + 1)
        if day >= p.trials:
            return join_message(feedback, CLOSING), True, info
        return join_message(feedback, stimulus_text(day + 1, actual, self._sensors[day])), False, info
