"""Letter-Number Test as a text environment: params, stimuli, reply parsing, env.

Pure Python + numpy. See ``README.md`` in this folder for the protocol and every
choice that differs from Kennedy & Nowak (2024) and their code.
"""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from lm_eval_cog.paradigms.base import (
    AMBIGUOUS,
    STRATEGY_INSTRUCTIONS,
    Env,
    Outcome,
    ParseFailure,
    Reading,
    Strategy,
    coerce_strategy,
    keyword_finder,
    read_choice,
    require_int,
)
from lm_eval_cog.paradigms.switching import CriterionSchedule

# --------------------------------------------------------------------------- #
# Tasks, answers, stimuli
# --------------------------------------------------------------------------- #

#: The two tasks (names as written in the log).
LETTER = "letter"
NUMBER = "number"
TASKS: tuple[str, ...] = (LETTER, NUMBER)

VOWEL, CONSONANT, EVEN, ODD = "vowel", "consonant", "even", "odd"
#: Each task's answer words. The two sets are disjoint, so an answer always reveals
#: the task it was given under (what perseverative errors are read from).
VOCABULARY: Mapping[str, tuple[str, str]] = {LETTER: (VOWEL, CONSONANT), NUMBER: (EVEN, ODD)}
ANSWERS: tuple[str, ...] = (VOWEL, CONSONANT, EVEN, ODD)
ANSWER_TASK: Mapping[str, str] = {word: task for task, words in VOCABULARY.items() for word in words}

#: Kennedy & Nowak's code: ``letter.lower() in 'aeiou'`` ("y" is a consonant).
VOWELS = "aeiou"
#: Letter sets (values of ``LNTParams.letters``); their code draws ``string.ascii_letters``.
LETTER_SETS: Mapping[str, str] = {"mixed": string.ascii_letters, "lower": string.ascii_lowercase}
DIGITS = "0123456789"


def other_task(task: str) -> str:
    """The task the test switches to (there are only two)."""
    return NUMBER if task == LETTER else LETTER


def correct_answer(task: str, stimulus: str) -> str:
    """The right answer to ``stimulus`` (e.g. ``"m5"``) under ``task``.

    >>> correct_answer("letter", "E4"), correct_answer("number", "E4"), correct_answer("number", "y0")
    ('vowel', 'even', 'even')
    """
    letter, digit = stimulus[0], int(stimulus[1])
    if task == LETTER:
        return VOWEL if letter.lower() in VOWELS else CONSONANT
    return EVEN if digit % 2 == 0 else ODD


def draw_stimuli(rng: np.random.Generator, n: int, letters: str) -> list[str]:
    """``n`` stimuli, each a letter then a digit, both uniform and independent (their code).

    Uniform letters make vowels rare (5 of 26): see the README on what that means for
    an "always consonant" player.
    """
    alphabet = LETTER_SETS[letters]
    return [
        alphabet[int(rng.integers(len(alphabet)))] + DIGITS[int(rng.integers(len(DIGITS)))] for _ in range(n)
    ]


# --------------------------------------------------------------------------- #
# Params
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class LNTParams:
    """Parameters of one LNT protocol (defaults: Kennedy & Nowak, 2024).

    Attributes:
        strategy: Prompting strategy (``direct``/``free``/``cot``); a string is coerced.
        trials: Number of trials (sequences answered) in an episode.
        criterion: Consecutive correct answers after which the task switches, unannounced.
        fixed_task: ``None`` (the switching test), or ``"letter"``/``"number"``: that task
            for every trial, never switching (Kennedy & Nowak's component tasks, Table 2).
        announce_task: Tell the model the fixed task (their component-task prompts); only
            with ``fixed_task``.
        letters: ``"mixed"`` (upper and lower case, their code) or ``"lower"``.
    """

    strategy: Strategy = Strategy.COT
    trials: int = 25
    criterion: int = 6
    fixed_task: str | None = None
    announce_task: bool = False
    letters: str = "mixed"

    def __post_init__(self) -> None:
        object.__setattr__(self, "strategy", coerce_strategy(self.strategy))
        object.__setattr__(self, "trials", require_int("lnt", "trials", self.trials, 1))
        object.__setattr__(self, "criterion", require_int("lnt", "criterion", self.criterion, 1))
        if self.fixed_task is not None and self.fixed_task not in TASKS:
            raise ValueError(
                f"lnt parameter 'fixed_task' must be null or one of {', '.join(TASKS)}, got {self.fixed_task!r}"
            )
        if not isinstance(self.announce_task, bool):
            raise ValueError(f"lnt parameter 'announce_task' must be a bool, got {self.announce_task!r}")
        if self.announce_task and self.fixed_task is None:
            # The switching test never names its task: there would be nothing to announce.
            raise ValueError("lnt parameter 'announce_task' needs a 'fixed_task' (letter or number)")
        if self.letters not in LETTER_SETS:
            raise ValueError(
                f"lnt parameter 'letters' must be one of {', '.join(LETTER_SETS)}, got {self.letters!r}"
            )

    @property
    def max_turns(self) -> int:
        """Turn cap used by :class:`~lm_eval_cog.paradigms.base.Env`: one turn per trial."""
        return self.trials

    @property
    def valid_answers(self) -> tuple[str, ...]:
        """The answers the instructions ask for: the announced task's two words, else all four."""
        return VOCABULARY[self.fixed_task] if self.announce_task and self.fixed_task else ANSWERS


PRESETS: Mapping[str, LNTParams] = {
    # Kennedy & Nowak: 25 trials, switch after 6 consecutive correct, mixed-case letters.
    "kennedy": LNTParams(),
    # Their component tasks (Table 2 "Letter", "Number"): one task, announced as in their code.
    "kennedy_letter": LNTParams(fixed_task=LETTER, announce_task=True),
    "kennedy_number": LNTParams(fixed_task=NUMBER, announce_task=True),
}


# --------------------------------------------------------------------------- #
# Reply parsing
# --------------------------------------------------------------------------- #

# Whole words, singular or plural ("vowels"), case-insensitive; "oddly" or "evenly" are no answers.
find_choices = keyword_finder({VOWEL: "vowels?", CONSONANT: "consonants?", EVEN: "even", ODD: "odd"})


def read_reply(reply: str, strategy: Strategy) -> Reading:
    """The answer word (one of :data:`ANSWERS`) or a :class:`ParseFailure`, and how it was read.

    All four words are always read, also when a component task is announced: "even" in
    the letter task is a wrong answer, not an unreadable one.
    """
    return read_choice(reply, strategy, find_choices)


def parse_reply(reply: str, strategy: Strategy) -> str | ParseFailure:
    """The answer word from a raw reply, or a :class:`ParseFailure`."""
    return read_reply(reply, strategy).value


# --------------------------------------------------------------------------- #
# Messages
# --------------------------------------------------------------------------- #

#: Kennedy & Nowak (2024), Appendix A, verbatim, less its last line ("Acknowledge the
#: feedback and keep performing the task until the end of the test."): here feedback and
#: the next sequence share one message, so there is no feedback turn to acknowledge.
APPENDIX_A: tuple[str, ...] = (
    "In this test, a sequence consisting of a letter and a number is presented to you.",
    "If you are performing the letter task,",
    "you should respond with 'vowel' if the letter is a vowel,",
    "and 'consonant' if the letter is a consonant.",
    "If you are performing the number task,",
    "you should respond with 'even' if the number is even,",
    "or 'odd' if the number is odd.",
    "You must pick one task, do not respond with both in mind.",
    "I will provide feedback if your choice was right or wrong.",
    "If you are correct, you correctly identified the task and gave the right answer.",
    "If you are incorrect, it could be because you are not performing the correct task,",
    "or you are not correctly identifying if a number is odd or even,",
    "or a letter is a consonant or a vowel.",
)

#: Their component-task prompts (``experiments/run_component_tasks.py``), first two lines;
#: the third ("Respond only with 'vowel' or 'consonant'.") is replaced by the strategy line.
ANNOUNCED: Mapping[str, tuple[str, ...]] = {
    LETTER: (
        "You are performing a letter classification task.",
        "For each sequence, identify if the letter is a vowel or consonant.",
    ),
    NUMBER: (
        "You are performing a number classification task.",
        "For each sequence, identify if the number is even or odd.",
    ),
}
#: Appendix A's feedback sentence, kept in the announced prompts (their component script gave no feedback).
FEEDBACK_SENTENCE = "I will provide feedback if your choice was right or wrong."

#: The feedback strings of their code (``experiments/run_lnt.py``).
FEEDBACK_CORRECT = "Correct!"
FEEDBACK_INCORRECT = "Incorrect!"
CLOSING = "That was the last sequence. The test is over."


def _word_list(words: Sequence[str]) -> str:
    """"'vowel' or 'consonant'", "'vowel', 'consonant', 'even' or 'odd'"."""
    quoted = [f"'{w}'" for w in words]
    return f"{', '.join(quoted[:-1])} or {quoted[-1]}"


def invalid_feedback(code: str, params: LNTParams) -> str:
    """Feedback for an unreadable reply, selected by its :class:`ParseFailure` code."""
    expected = f"answer with one word: {_word_list(params.valid_answers)}."
    if code == AMBIGUOUS:
        return f"Your reply named more than one answer: {expected}"
    return f"Your reply could not be read: {expected}"


def system_prompt(params: LNTParams) -> str:
    """Task instructions: Appendix A (Kennedy & Nowak, 2024), or their component prompt when announced."""
    if params.announce_task and params.fixed_task is not None:
        lines = [*ANNOUNCED[params.fixed_task], FEEDBACK_SENTENCE]
    else:
        lines = list(APPENDIX_A)
    lines.append(f"Your choice is one word: {_word_list(params.valid_answers)}. {STRATEGY_INSTRUCTIONS[params.strategy]}")
    return "\n".join(lines)


def stimulus_text(stimulus: str) -> str:
    """The question of one trial, as in Kennedy & Nowak's Fig. 2 (e.g. ``Sequence: m5``)."""
    return f"Sequence: {stimulus}\nYour guess:"


# --------------------------------------------------------------------------- #
# Environment
# --------------------------------------------------------------------------- #


class LNTEnv(Env):
    """Letter-Number Test (Rogers & Monsell, 1995, as adapted by Kennedy & Nowak, 2024).

    Description:
        Each trial shows a letter and a digit (``"m5"``). Under the letter task the right
        answer is ``vowel``/``consonant``, under the number task ``even``/``odd``. The
        task in force is never named: the model infers it from "Correct!"/"Incorrect!".
        After ``criterion`` consecutive correct answers it switches, unannounced, to the
        other task. With ``fixed_task`` it never switches (component tasks).

    Reply format:
        One of the words ``vowel``, ``consonant``, ``even``, ``odd``; with ``cot``/``free``
        a final ``Answer: <word>`` line. Unreadable or ambiguous replies are ``invalid``
        trials: errors that reset the streak, explained to the model.

    Messages:
        Turn 1: ``Sequence: m5`` / ``Your guess:``. Each later message: feedback on the
        previous reply and the next sequence. After the last trial: the closing feedback only.

    Scoring:
        An answer is correct iff it is the right answer under the task in force for that
        trial. The answer that completes a run of ``criterion`` is scored (and reported
        "Correct!") under the task before the switch; the switch applies from the next trial.

    Episode end:
        ``terminated`` after trial ``params.trials``; never truncated (``max_turns == trials``).

    Arguments:
        params: :class:`LNTParams`.

    References:
        Kennedy & Nowak (2024), *Cognitive flexibility of large language models* (Appendix A,
        Fig. 2, Table 2) and their code (``src/tests/lnt.py``, ``experiments/run_lnt.py``);
        Rogers & Monsell (1995; dated 1993 in Kennedy & Nowak's references), the letter-number
        task-switching paradigm.

    Version history:
        v1: first version.

    Example:
        >>> env = LNTEnv(PRESETS["kennedy"])
        >>> message, info = env.reset(seed=0)
        >>> message.startswith("Sequence: ")
        True
        >>> message, terminated, truncated, info = env.step("Answer: vowel")
        >>> env.log[0]["trial"], env.log[0]["outcome"] in ("correct", "error")
        (1, True)
    """

    name = "lnt"

    def _reset(self, options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        p: LNTParams = self.params
        rng = self.rng
        if rng is None:  # pragma: no cover - Env.reset sets it before calling _reset
            raise RuntimeError("LNTEnv._reset() called outside reset()")
        # Drawn up front, first task then stimuli, so that stimuli depend on the seed only.
        first = TASKS[int(rng.integers(len(TASKS)))]
        self._stimuli = draw_stimuli(rng, p.trials, p.letters)
        if p.fixed_task is not None:
            self._schedule = CriterionSchedule([p.fixed_task], p.criterion, switches=False)
        else:  # the two tasks take turns, switched by completed categories alone
            turns = (first, other_task(first))
            self._schedule = CriterionSchedule([turns[k % 2] for k in range(p.trials // p.criterion + 1)], p.criterion)
        self.system_prompt = system_prompt(p)
        info = self._info(next_trial=1, last_outcome=None, last_answer=None)
        return stimulus_text(self._stimuli[0]), info

    def _info(self, next_trial: int, last_outcome: str | None, last_answer: str | None) -> dict[str, Any]:
        """What agents may see: the stimulus and the announced task, never the hidden one."""
        p: LNTParams = self.params
        done = next_trial > p.trials
        return {
            "choices": list(p.valid_answers),
            "stimulus": None if done else self._stimuli[next_trial - 1],
            "trial": next_trial,
            "announced_task": p.fixed_task if p.announce_task else None,
            "last_outcome": last_outcome,
            "last_answer": last_answer,
        }

    def _step(self, reply: str) -> tuple[str, bool, dict[str, Any]]:
        p: LNTParams = self.params
        trial = len(self.log) + 1
        stimulus = self._stimuli[trial - 1]
        task, previous_task = self._schedule.rule, self._schedule.previous
        right = correct_answer(task, stimulus)

        reading = read_reply(reply, p.strategy)
        parsed = reading.value
        if isinstance(parsed, ParseFailure):
            answer, invalid = None, parsed.code
            outcome = Outcome.INVALID
            feedback = invalid_feedback(parsed.code, p)
        else:
            answer, invalid = str(parsed), None
            outcome = Outcome.CORRECT if answer == right else Outcome.ERROR
            feedback = FEEDBACK_CORRECT if outcome is Outcome.CORRECT else FEEDBACK_INCORRECT

        # As in their code: a correct answer extends the streak, anything else resets it (an
        # invalid reply too: their code skipped those instead, see the README). A switch applies
        # from the next trial: this answer was scored above.
        streak, completed = self._schedule.count(outcome)
        self.log.append(
            {
                "trial": trial,
                "task": task,
                "previous_task": previous_task,
                "stimulus": stimulus,
                "correct_answer": right,
                "answer": answer,
                "answer_task": None if answer is None else ANSWER_TASK[answer],
                "invalid": invalid,
                "parse": reading.path.value,
                "outcome": outcome.value,
                "streak": streak,
                "category_completed": completed,
                "feedback": feedback,
            }
        )

        terminated = trial >= p.trials
        info = self._info(next_trial=trial + 1, last_outcome=outcome.value, last_answer=answer)
        if terminated:
            return f"{feedback}\n\n{CLOSING}", True, info
        return f"{feedback}\n\n{stimulus_text(self._stimuli[trial])}", False, info

    @property
    def current_task(self) -> str:
        """The task in force for the next trial (for tests and debugging; never shown to agents)."""
        if not self._reset_called:
            raise RuntimeError("LNTEnv.current_task read before reset()")
        return self._schedule.rule

    @property
    def stimuli(self) -> list[str]:
        """The episode's sequences, in trial order (for tests; agents see one at a time in ``info``)."""
        if not self._reset_called:
            raise RuntimeError("LNTEnv.stimuli read before reset()")
        return list(self._stimuli)
