"""Wordle with critic: a critic model judges each first guess before the guesser's final guess.

Exposes :data:`PARADIGM`; the game is :mod:`lm_eval_cog.games.wordle`'s (see its README).
"""

from __future__ import annotations

from lm_eval_cog.games.wordle import WordleCriticParams, build_paradigm

PARADIGM = build_paradigm(WordleCriticParams)

__all__ = ["PARADIGM"]
