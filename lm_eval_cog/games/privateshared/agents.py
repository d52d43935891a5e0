"""Scripted Private/Shared answerers (reference rows and test oracles).

Each reads ``info["phase"]`` (``"probe"`` or ``"answer"``) and, where it plays by the rules, the
ground truth of the probe (``info["truth"]``) or the requested value (``info["value"]``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from lm_eval_cog.paradigms.base import AgentFactory


def _answer(info: Mapping[str, Any]) -> str:
    """Exactly the requested value, in the required form."""
    return f"ANSWER: {info['value']}"


class OptimalAgent:
    """Answers each request with exactly its value and every probe truthfully: main score 100."""

    def __init__(self, params: Any, rng: np.random.Generator) -> None:
        pass

    def act(self, message: str, info: Mapping[str, Any]) -> str:
        if info["phase"] == "probe":
            return "ASIDE: yes" if info["truth"] else "ASIDE: no"
        return _answer(info)


class RuleBreakerAgent:
    """Never writes a tag: the first probe is asked 5 times, then the game aborts (5 calls)."""

    def __init__(self, params: Any, rng: np.random.Generator) -> None:
        pass

    def act(self, message: str, info: Mapping[str, Any]) -> str:
        return "no" if info["phase"] == "probe" else str(info["value"])


class ForgetfulAgent:
    """Fills every slot but answers every probe "no", as if it kept no track of what it told:
    half the probes right (the truth is "yes" in n(n+1)/2 of the n(n+1)), kappa 0, main score 0."""

    def __init__(self, params: Any, rng: np.random.Generator) -> None:
        pass

    def act(self, message: str, info: Mapping[str, Any]) -> str:
        return "ASIDE: no" if info["phase"] == "probe" else _answer(info)


class RandomAgent:
    """Fills every slot and answers each probe yes or no at random (probability 1/2)."""

    def __init__(self, params: Any, rng: np.random.Generator) -> None:
        self.rng = rng

    def act(self, message: str, info: Mapping[str, Any]) -> str:
        if info["phase"] == "probe":
            return "ASIDE: yes" if self.rng.integers(2) else "ASIDE: no"
        return _answer(info)


AGENTS: Mapping[str, AgentFactory] = {
    "optimal": OptimalAgent,
    "rule_breaker": RuleBreakerAgent,
    "forgetful": ForgetfulAgent,
    "random": RandomAgent,
}
