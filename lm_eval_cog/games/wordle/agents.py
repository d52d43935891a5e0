"""Scripted players of the Wordle games, with exactly known scores.

One instance plays every role of an episode; it reads ``info`` (role, target, the guess under
review), which no model sees. Scores with the default 6 guesses (wordle / wordle_clue / wordle_critic):

* ``optimal``: the target at once (first and final guess); a truthful critic: 100 / 100 / 100.
* ``slow_winner``: 5 distinct wrong allowed words, then the target: 20 / 16.67 / 16.67.
* ``rule_breaker``: a first reply without ``guess:``: aborted (main score None, clemscore 0).
* ``random``: uniform allowed words, a coin-flip critic: loses (0) unless it hits the word by chance.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from lm_eval_cog.games.wordle.env import CRITIC
from lm_eval_cog.games.wordle.params import WordleParams
from lm_eval_cog.games.wordle.words import word_data


def guess_reply(word: str, why: str) -> str:
    return f"guess: {word}\nexplanation: {why}"


def agreement_reply(agree: bool, why: str) -> str:
    return f"agreement: {'yes' if agree else 'no'}\nexplanation: {why}"


def truthful_verdict(info: Mapping[str, Any]) -> str:
    """A critic that knows the target: yes to the right word, no otherwise."""
    right = info["guess"] == info["target"]
    return agreement_reply(right, "It is the word." if right else "It is not the word.")


class OptimalAgent:
    """Guesses the target at once (first and final guess); as critic, says yes to it."""

    def __init__(self, params: WordleParams, rng: np.random.Generator) -> None:
        self.params = params

    def act(self, message: str, info: Mapping[str, Any]) -> str:
        if info["role"] == CRITIC:
            return truthful_verdict(info)
        return guess_reply(info["target"], "I know the word.")


class SlowWinnerAgent:
    """Wins at the last committed guess: ``max_guesses - 1`` distinct allowed words that are not the
    target (drawn from ``rng``), then the target; the critic is truthful."""

    def __init__(self, params: WordleParams, rng: np.random.Generator) -> None:
        self.params = params
        self.rng = rng
        self.wrong: list[str] | None = None

    def act(self, message: str, info: Mapping[str, Any]) -> str:
        if info["role"] == CRITIC:
            return truthful_verdict(info)
        if self.wrong is None:
            self.wrong = self._draw_wrong(info["target"])
        n = info["committed"]
        if n < len(self.wrong):
            return guess_reply(self.wrong[n], "Not yet the word, on purpose.")
        return guess_reply(info["target"], "Now the word.")

    def _draw_wrong(self, target: str) -> list[str]:
        words = word_data().allowed_sorted
        picks = self.rng.choice(len(words), size=self.params.max_guesses, replace=False)
        return [w for w in (words[int(i)] for i in picks) if w != target][: self.params.max_guesses - 1]


class RuleBreakerAgent:
    """Answers without the required tag: the game aborts at its first reply."""

    def __init__(self, params: WordleParams, rng: np.random.Generator) -> None:
        self.params = params

    def act(self, message: str, info: Mapping[str, Any]) -> str:
        return "I think the word could be crane."


class RandomAgent:
    """Guesses uniform allowed words (with repeats); as critic, yes or no at random."""

    def __init__(self, params: WordleParams, rng: np.random.Generator) -> None:
        self.rng = rng

    def act(self, message: str, info: Mapping[str, Any]) -> str:
        if info["role"] == CRITIC:
            return agreement_reply(bool(self.rng.integers(2)), "A coin flip.")
        words = word_data().allowed_sorted
        return guess_reply(words[int(self.rng.integers(len(words)))], "A random word.")


AGENTS = {
    "optimal": OptimalAgent,
    "slow_winner": SlowWinnerAgent,
    "rule_breaker": RuleBreakerAgent,
    "random": RandomAgent,
}
