"""Wordle with clue: the guesser also sees the target's crossword clue; speed score round(100/n, 2).

Exposes :data:`PARADIGM`; the game is :mod:`lm_eval_cog.games.wordle`'s (see its README).
"""

from __future__ import annotations

from lm_eval_cog.games.wordle import WordleClueParams, build_paradigm

PARADIGM = build_paradigm(WordleClueParams)

__all__ = ["PARADIGM"]
