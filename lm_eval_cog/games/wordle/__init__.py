"""Wordle (clembench, as Momentè et al. 2025 ran it), and the code its clue and critic variants share.

Exposes :data:`PARADIGM` for plain ``wordle``; ``lm_eval_cog.games.wordle_clue`` and
``lm_eval_cog.games.wordle_critic`` build theirs with :func:`build_paradigm`. See ``README.md``.
"""

from __future__ import annotations

from lm_eval_cog.games.wordle.env import WordleCriticEnv, WordleEnv
from lm_eval_cog.games.wordle.paradigm import build_paradigm
from lm_eval_cog.games.wordle.params import WordleClueParams, WordleCriticParams, WordleParams

PARADIGM = build_paradigm(WordleParams)

__all__ = ["PARADIGM", "WordleClueParams", "WordleCriticEnv", "WordleCriticParams", "WordleEnv", "WordleParams",
           "build_paradigm"]
