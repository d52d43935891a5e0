"""The game master of the three Wordle games.

:class:`WordleEnv` plays ``wordle`` and ``wordle_clue`` (one model role, the guesser; the
evaluator is this code); :class:`WordleCriticEnv` adds the critic role. Protocol: ``README.md``
in this folder.
"""

from __future__ import annotations

from typing import Any

from lm_eval_cog.games import paper
from lm_eval_cog.games.base import ABORTED, CONTENT_CHARS, INVALID, LOSE, REJECTED, SUCCESS, VALID, GameEnv, strip_reply
from lm_eval_cog.games.wordle import prompts
from lm_eval_cog.games.wordle.feedback import GREEN, YELLOW, paper_colours, render, standard_colours
from lm_eval_cog.games.wordle.params import WordleParams, pick_experiment
from lm_eval_cog.games.wordle.parse import NOT_VALID_WORD_FOR_GAME, FormError, Reading, read_agreement, read_guess
from lm_eval_cog.games.wordle.scoring import AGREEMENT_ACTION, FINAL_GUESS_ACTION, GUESS_ACTION, speed_score
from lm_eval_cog.games.wordle.words import Target, paper_allowed, word_data

GUESSER, CRITIC = "guesser", "critic"
#: Phases of an attempt: the guess (the only one without a critic), the critic's verdict, the final guess.
GUESS, CRITIQUE, FINAL = "guess", "critique", "final"


class WordleEnv(GameEnv):
    """Wordle and Wordle with clue: guess the target in ``max_guesses`` committed guesses."""

    roles = (GUESSER,)

    def __init__(self, params: WordleParams) -> None:
        if params.variant.critic != (CRITIC in self.roles):
            raise ValueError(f"{type(self).__name__} cannot play {params.variant.name}: use the paradigm's env_cls")
        super().__init__(params)

    def _reset(self, options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        given = options.get("instance")  # a replayed transcript's target (lm_eval_cog.replay)
        if self.params.instances == "paper":
            self.experiment, row = paper.pick("wordle", self.params.experiment, int(options.get("index", 0)))
            self.target: Target = given or Target(word=row["target"], clue=" ".join(row["clue"].split()))
            self.allowed = paper_allowed()
        else:
            self.experiment = pick_experiment(self.params, options)
            band = word_data().bands[self.experiment]
            self.target = given or band[int(self.rng.integers(len(band)))]
            self.allowed = word_data().allowed
        self.guesses: list[str] = []  # committed guesses
        self.phase = GUESS
        self.reprompts = 0  # of the guess now awaited
        self.first: Reading | None = None  # the critic variant's first guess of this attempt
        self.due = GUESSER
        message = prompts.guesser_rules(self.params.variant, self.params.max_guesses, self.target.clue)
        return message, self._info()

    def _step(self, reply: str) -> tuple[str, bool, dict[str, Any]]:
        text = strip_reply(reply)
        if self.phase == CRITIQUE:
            return self._critique(text)
        return self._guess(text)

    # ------------------------------------------------------------ the guesser
    def _guess(self, text: str) -> tuple[str, bool, dict[str, Any]]:
        action = FINAL_GUESS_ACTION if self.phase == FINAL else GUESS_ACTION
        reading = read_guess(text)
        if isinstance(reading, FormError):
            return self._abort(action, text, reading)
        if reading.value not in self.allowed:
            return self._reject(action, text, reading)
        self.reprompts = 0
        if self.phase == GUESS and self.params.variant.critic:
            self.record_move(
                action, VALID, text, guess=reading.value, explanation=_clip(reading.explanation), committed=False
            )
            self.first, self.phase, self.due = reading, CRITIQUE, CRITIC
            message = prompts.critic_message(
                self.target.clue, reading.value, reading.explanation,
                first=not self.guesses, max_guesses=self.params.max_guesses,
            )  # fmt: skip
            return message, False, self._info()
        return self._commit(action, text, reading)

    def _reject(self, action: str, text: str, reading: Reading) -> tuple[str, bool, dict[str, Any]]:
        """A well-formed word missing from the list: ask again, or abort once the reprompts are spent."""
        self.reprompts += 1
        spent = self.reprompts > self.params.max_reprompts
        reason = f"{NOT_VALID_WORD_FOR_GAME}: {reading.value!r} is not in the allowed list"
        if spent:
            reason += f" (after {self.params.max_reprompts} reprompts)"
        self.record_move(action, REJECTED, text, reason, guess=reading.value, reprompt=self.reprompts)
        if spent:
            return self._end(ABORTED, None, reason)
        return prompts.reprompt_message(), False, self._info()

    def _commit(self, action: str, text: str, reading: Reading) -> tuple[str, bool, dict[str, Any]]:
        """A guess that counts: feedback, then a win, a loss or the next attempt."""
        word, target = reading.value, self.target.word
        colours = standard_colours(word, target)
        self.guesses.append(word)
        n = len(self.guesses)
        extra: dict[str, Any] = {
            "guess": word, "explanation": _clip(reading.explanation), "committed": True, "guess_number": n,
            "feedback": render(word, colours), "feedback_paper": render(word, paper_colours(word, target)),
            "greens": colours.count(GREEN), "yellows": colours.count(YELLOW),
        }  # fmt: skip
        if self.first is not None:
            extra["first_guess"] = self.first.value
        self.record_move(action, VALID, text, **extra)
        if word == target:
            return self._end(SUCCESS, speed_score(self.params.variant, n))
        if n == self.params.max_guesses:
            return self._end(LOSE, 0.0)
        self.phase, self.first = GUESS, None
        shown = extra["feedback_paper"] if self.params.feedback == "paper" else extra["feedback"]
        return prompts.feedback_message(shown), False, self._info()

    # ------------------------------------------------------------ the critic
    def _critique(self, text: str) -> tuple[str, bool, dict[str, Any]]:
        reading = read_agreement(text)
        if isinstance(reading, FormError):
            return self._abort(AGREEMENT_ACTION, text, reading)
        self.record_move(AGREEMENT_ACTION, VALID, text, agreement=reading.value, explanation=_clip(reading.explanation))
        self.phase, self.due = FINAL, GUESSER
        return prompts.verdict_message(self.target.clue, reading.value, reading.explanation), False, self._info()

    # ------------------------------------------------------------ shared
    def _abort(self, action: str, text: str, error: FormError) -> tuple[str, bool, dict[str, Any]]:
        reason = f"{error.key}: {error.reason}"
        self.record_move(action, INVALID, text, reason)
        return self._end(ABORTED, None, reason)

    def _end(self, outcome: str, score: float | None, reason: str = "") -> tuple[str, bool, dict[str, Any]]:
        self.finish(outcome, score, target=self.target.word, experiment=self.experiment, guesses=len(self.guesses))
        return prompts.closing_message(outcome, self.target.word, len(self.guesses), reason), True, self._info()

    def _info(self) -> dict[str, Any]:
        """What the scripted players read (never shown to a model)."""
        return {
            "role": self.due,
            "phase": self.phase,
            "target": self.target.word,
            "clue": self.target.clue,
            "experiment": self.experiment,
            "committed": len(self.guesses),
            "guess": self.first.value if self.first is not None else None,
        }


def _clip(explanation: str | None) -> str | None:
    """An explanation as the log keeps it (the first CONTENT_CHARS characters, like a move's content)."""
    if explanation is None or len(explanation) <= CONTENT_CHARS:
        return explanation
    return explanation[:CONTENT_CHARS] + "…"


class WordleCriticEnv(WordleEnv):
    """Wordle with critic: each attempt is a guess, the critic's verdict, then the final guess."""

    roles = (GUESSER, CRITIC)
