"""Scripted Taboo players. One agent plays both roles of an episode (``info["role"]``); it reads the
target and related words from ``info`` (never shown to a model). Exact scores: README.md."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from lm_eval_cog.games import paper
from lm_eval_cog.games.base import fold
from lm_eval_cog.games.taboo import instances
from lm_eval_cog.games.taboo.env import DESCRIBER
from lm_eval_cog.games.taboo.rules import CLUE_TAG, GUESS_TAG, strict_hits
from lm_eval_cog.paradigms.base import AgentFactory

#: Clues about the word's spelling only, each in other words, so that one of them is free of every
#: taboo word whatever the target; the last uses single letters and a number only.
SAFE_CLUES: tuple[str, ...] = (
    "{n} letters, beginning with {first}.",
    "It is spelled with {n} characters and ends in {last}.",
    "Count {n}; initial {first}, final {last}.",
    "{first} {last} {n}",
)


def breaks_a_rule(clue: str, target: str, related: Sequence[str]) -> bool:
    """Does ``clue`` (the text after ``CLUE:``) break the paper's or the strict taboo rule?"""
    taboo = (target, *related)
    return bool(strict_hits(clue, taboo))  # the strict rule holds every paper hit


def safe_clue(target: str, related: Sequence[str], turn: int = 1) -> str:
    """A ``CLUE:`` reply that breaks neither taboo rule: the first template of :data:`SAFE_CLUES`,
    starting from template ``turn - 1`` (a new clue each turn), that the game's own checks accept."""
    k = len(SAFE_CLUES)
    for i in range(k):
        template = SAFE_CLUES[(turn - 1 + i) % k]
        clue = template.format(n=len(target), first=target[0].upper(), last=target[-1].upper())
        if not breaks_a_rule(clue, target, related):
            return f"{CLUE_TAG} {clue}"
    raise RuntimeError(f"no safe clue template for the target {target!r} and related words {list(related)}")


def _words(experiment: str, params: Any = None) -> list[str]:
    """The targets of ``experiment``: the paper's 20 with its instances, else our band's."""
    if getattr(params, "instances", "ours") == "paper":
        return [i["target"] for i in paper.experiment("taboo", experiment)["instances"]]
    return [w.word for w in instances.word_bands()[experiment]]


class OptimalAgent:
    """Describer: a safe spelling clue; guesser: the target at once. Wins at turn 1: main score 100."""

    def __init__(self, params: Any, rng: np.random.Generator) -> None:
        self.rng = rng
        self.params = params

    def act(self, message: str, info: Mapping[str, Any]) -> str:
        if info["role"] == DESCRIBER:
            return safe_clue(info["target"], info["related"], info["turn"])
        return self.guess(info)

    def guess(self, info: Mapping[str, Any]) -> str:
        return f"{GUESS_TAG} {info['target']}"


class SlowWinnerAgent(OptimalAgent):
    """Guesses other words of the band (valid, wrong, all different; the related words or other bands'
    words if the band runs short) until the last turn, then the
    target: wins at turn ``max_clues``, main score 100 / max_clues (33.33... with 3 clues)."""

    def __init__(self, params: Any, rng: np.random.Generator) -> None:
        super().__init__(params, rng)
        self.guessed: set[str] = set()

    def guess(self, info: Mapping[str, Any]) -> str:
        if info["turn"] >= info["max_clues"]:
            return super().guess(info)
        taken = self.guessed | {fold(info["target"])}
        # The band's other words, else the related words, else any band's (a short list may run out).
        tiers = (_words(info["experiment"], self.params), info["related"],
                 [w for b in instances.EXPERIMENTS for w in _words(b, self.params)])  # fmt: skip
        others = next(o for o in ([w for w in tier if fold(w) not in taken] for tier in tiers) if o)
        word = others[int(self.rng.integers(len(others)))]
        self.guessed.add(fold(word))
        return f"{GUESS_TAG} {word}"


class RuleBreakerAgent:
    """Replies without the required tag: the describer's first reply aborts the game (main score None)."""

    def __init__(self, params: Any, rng: np.random.Generator) -> None:
        pass

    def act(self, message: str, info: Mapping[str, Any]) -> str:
        return "I would rather just talk about the word."


class RandomAgent:
    """Describer: three words drawn from all the bands' targets (redrawn when they break a taboo
    rule, at most 20 times, then a safe spelling clue); guesser: a word drawn uniformly from the
    band's list (the target among them; with the paper's instances, its 20 targets of the band), so
    each guess wins with probability 1 / list size."""

    def __init__(self, params: Any, rng: np.random.Generator) -> None:
        self.rng = rng
        self.params = params

    def act(self, message: str, info: Mapping[str, Any]) -> str:
        if info["role"] == DESCRIBER:
            return self.clue(info)
        words = _words(info["experiment"], self.params)
        return f"{GUESS_TAG} {words[int(self.rng.integers(len(words)))]}"

    def clue(self, info: Mapping[str, Any]) -> str:
        pool = [w for band in instances.EXPERIMENTS for w in _words(band, self.params)]
        for _ in range(20):
            clue = " ".join(pool[int(i)] for i in self.rng.integers(len(pool), size=3))
            if not breaks_a_rule(clue, info["target"], info["related"]):
                return f"{CLUE_TAG} {clue}"
        return safe_clue(info["target"], info["related"], info["turn"])


AGENTS: Mapping[str, AgentFactory] = {
    "optimal": OptimalAgent,
    "slow_winner": SlowWinnerAgent,
    "rule_breaker": RuleBreakerAgent,
    "random": RandomAgent,
}
