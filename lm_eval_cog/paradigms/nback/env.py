"""N-back (Reflection-Bench A.5) as a text environment: params, sequence, reply parsing, env.

Pure Python + numpy. Protocol, scoring and divergences from the published code:
``README.md`` in this folder.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

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

YES = "yes"
NO = "no"
NOT_AVAILABLE = "not available"
CHOICES: tuple[str, ...] = (YES, NO, NOT_AVAILABLE)

#: Reflection-Bench's sequence has 21 targets among the 50 comparable trials of 52 (2-back).
DEFAULT_TARGET_RATE = 21 / 50


@dataclass(frozen=True)
class NBackParams:
    """Parameters of one n-back protocol (defaults: Reflection-Bench easy, 2-back).

    Attributes:
        strategy: Prompting strategy (``direct``/``free``/``cot``).
        n: How many steps back the current letter is compared with (easy 2, hard 4).
        trials: Letters shown, one per turn (52 as in Reflection-Bench); the first ``n``
            have nothing to compare with and expect "Not Available".
        target_rate: Share of the ``trials - n`` comparable trials that are targets (the
            letter equals the one ``n`` back); the count is rounded and exact per episode.
        letters: The alphabet letters are drawn from (E-H, as in the published sequence: with
            four letters non-targets often match a neighbouring position, which is what
            makes the task hard).
        feedback: Tell the model after each answer whether it was correct (as the
            published code does).
    """

    strategy: Strategy = Strategy.DIRECT
    n: int = 2
    trials: int = 52
    target_rate: float = DEFAULT_TARGET_RATE
    letters: str = "EFGH"
    feedback: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "strategy", coerce_strategy(self.strategy))
        object.__setattr__(self, "n", require_int("nback", "n", self.n, 1))
        object.__setattr__(self, "trials", require_int("nback", "trials", self.trials, self.n + 1))
        object.__setattr__(self, "target_rate", require_probability("nback", "target_rate", self.target_rate))
        if not isinstance(self.letters, str) or len(set(self.letters)) < 2 or not self.letters.isalpha():
            raise ValueError(f"nback parameter 'letters' must be a string of >= 2 distinct letters, got {self.letters!r}")
        if not isinstance(self.feedback, bool):
            raise ValueError(f"nback parameter 'feedback' must be a bool, got {self.feedback!r}")

    @property
    def max_turns(self) -> int:
        """One turn per letter."""
        return self.trials

    @property
    def targets(self) -> int:
        """Number of target trials in every episode."""
        return int(round(self.target_rate * (self.trials - self.n)))


#: Gong et al. (2024) verbal n-back blocks, the working-memory test of Momentè et al. (2025):
#: 24 letters with 8 targets, consonants, no feedback (their prompt gives none).
GONG_CONSONANTS = "BCDFGHJKLMNPQRSTVWXZ"

PRESETS: Mapping[str, NBackParams] = {
    "easy": NBackParams(n=2),
    "hard": NBackParams(n=4),
    "gong3": NBackParams(n=3, trials=24, target_rate=8 / 21, letters=GONG_CONSONANTS, feedback=False),
}


def draw_sequence(rng: np.random.Generator, params: NBackParams) -> tuple[list[str], list[bool | None]]:
    """Letters and target flags (None for the first ``n`` trials).

    Exactly ``params.targets`` comparable trials, chosen uniformly, repeat the letter
    ``n`` back; every other comparable letter differs from the one ``n`` back.
    """
    n, total = params.n, params.trials
    alphabet = sorted(set(params.letters.upper()))
    target_positions = set(int(i) + n for i in rng.choice(total - n, size=params.targets, replace=False))
    letters: list[str] = []
    flags: list[bool | None] = []
    for i in range(total):
        if i < n:
            letters.append(alphabet[int(rng.integers(len(alphabet)))])
            flags.append(None)
        elif i in target_positions:
            letters.append(letters[i - n])
            flags.append(True)
        else:
            others = [a for a in alphabet if a != letters[i - n]]
            letters.append(others[int(rng.integers(len(others)))])
            flags.append(False)
    return letters, flags


_FIND = keyword_finder({NOT_AVAILABLE: r"not\s+available|n/a", YES: "yes", NO: "no"})


def find_choices(text: str) -> list[tuple[int, str]]:
    """Every mention of an answer in ``text`` as ``(position, answer)``."""
    return _FIND(text)


def read_reply(reply: str, strategy: Strategy) -> Reading:
    """``"yes"``, ``"no"``, ``"not available"`` or a :class:`ParseFailure`, and how it was read."""
    return read_choice(reply, strategy, find_choices)


def parse_reply(reply: str, strategy: Strategy) -> str | ParseFailure:
    """``"yes"``, ``"no"``, ``"not available"`` or a :class:`ParseFailure`."""
    return read_reply(reply, strategy).value


FEEDBACK_CORRECT = "Correct."
FEEDBACK_INCORRECT = "Incorrect."
FEEDBACK_INVALID: Mapping[str, str] = {
    NO_ANSWER: "Your reply could not be read: answer Yes, No or Not Available.",
    AMBIGUOUS: "Your reply gave more than one answer: answer Yes, No or Not Available.",
}
CLOSING = "That was the last letter. The test is over."


def system_prompt(params: NBackParams) -> str:
    """Instructions (Reflection-Bench A.5, with ``n`` filled in)."""
    n = params.n
    lines = [
        "You are playing a game. I will give you a series of letters in sequence, showing only one at a time.",
        f"Your task is to determine whether the current letter is the same as the letter {n} steps before.",
        f"If the current letter is the same as the letter {n} steps before, answer Yes. "
        f"If it is different from the letter {n} steps before, answer No.",
        f"For the first {n} letters, since there are not enough preceding letters for comparison, "
        "answer Not Available.",
        "Your choice is Yes, No or Not Available. " + STRATEGY_INSTRUCTIONS[params.strategy],
    ]
    return "\n".join(lines)


def stimulus_text(trial: int, letter: str) -> str:
    """The question of one trial."""
    return f"Letter {trial}: {letter}"


class NBackEnv(Env):
    """N-back working-memory test.

    Description:
        Letters are shown one per turn; for each the model answers whether it equals the
        letter ``n`` steps before (Yes/No), or "Not Available" for the first ``n``.

    Reply format:
        Yes, No or Not Available (``N/A``); with ``cot``/``free`` a final ``Answer: ...`` line.
        Anything else is an ``invalid`` trial (an error for the score, never an answer).

    Messages:
        Turn 1: ``Letter 1: K``. Later turns: the feedback (only with ``feedback=True``, or
        when the previous reply could not be read) and the next letter.

    Scoring:
        The expected answer is "not available" for trials 1..n, else "yes" on targets and
        "no" otherwise. See ``scoring.nback_metrics``.

    Episode end:
        ``terminated`` after ``params.trials`` letters.

    Arguments:
        params: :class:`NBackParams`.

    References:
        Reflection-Bench (Li et al.), section 3.3 and appendix A.5.

    Version history:
        v1: first version.

    Example:
        >>> env = NBackEnv(PRESETS["easy"])
        >>> message, info = env.reset(seed=0)
        >>> message.startswith("Letter 1:")
        True
        >>> message, terminated, truncated, info = env.step("Not Available")
        >>> env.log[0]["expected"], env.log[0]["outcome"]
        ('not available', 'correct')
    """

    name = "nback"

    def _reset(self, options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        self._letters, self._targets = draw_sequence(self.rng, self.params)
        self.system_prompt = system_prompt(self.params)
        return stimulus_text(1, self._letters[0]), self._info(1, None)

    def _info(self, next_trial: int, last_outcome: str | None) -> dict[str, Any]:
        done = next_trial > self.params.trials
        return {
            "choices": [NOT_AVAILABLE] if next_trial <= self.params.n else [YES, NO],
            "letter": None if done else self._letters[next_trial - 1],
            "trial": next_trial,
            "last_outcome": last_outcome,
        }

    def _step(self, reply: str) -> tuple[str, bool, dict[str, Any]]:
        p: NBackParams = self.params
        trial = len(self.log) + 1
        target = self._targets[trial - 1]
        expected = NOT_AVAILABLE if target is None else YES if target else NO
        reading = read_reply(reply, p.strategy)
        parsed = reading.value
        if isinstance(parsed, ParseFailure):
            choice, invalid, outcome = None, parsed.code, Outcome.INVALID
            feedback = FEEDBACK_INVALID[parsed.code]
        else:
            choice, invalid = parsed, None
            outcome = Outcome.CORRECT if choice == expected else Outcome.ERROR
            feedback = (FEEDBACK_CORRECT if outcome is Outcome.CORRECT else FEEDBACK_INCORRECT) if p.feedback else ""
        self.log.append(
            {
                "trial": trial,
                "letter": self._letters[trial - 1],
                "target": target,
                "expected": expected,
                "choice": choice,
                "invalid": invalid,
                "parse": reading.path.value,
                "outcome": outcome.value,
                "feedback": feedback,
            }
        )
        info = self._info(trial + 1, outcome.value)
        if trial >= p.trials:
            return join_message(feedback, CLOSING), True, info
        return join_message(feedback, stimulus_text(trial + 1, self._letters[trial])), False, info
