"""Taboo's metrics, from the episode log alone (records written by :class:`~lm_eval_cog.games.taboo.env.TabooEnv`)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from lm_eval_cog.games.base import COMMON_METRIC_SPECS, INVALID, SUCCESS, common_metrics, end_record, moves
from lm_eval_cog.paradigms.base import MetricSpec

WIN_TURN = "win_turn"
VIOLATION_PAPER = "violation_paper_rule"
VIOLATION_STRICT = "violation_strict_rule"
REPETITION_DESCRIBER = "repetition_describer"
REPETITION_GUESSER = "repetition_guesser"

EXTRA_SPECS: tuple[MetricSpec, ...] = (
    MetricSpec(WIN_TURN, False, "The turn (1-based; one clue then one guess) of the correct guess; NaN when not won. "
               "main_score = 100 / win_turn for a won game, 0 for a lost one."),
    MetricSpec(VIOLATION_PAPER, False, "1 if any clue of the episode breaks clembench's taboo rule (a clue token, "
               "stopwords dropped, with the Snowball stem of the target or a related word), else 0; NaN when no "
               "clue was read. Logged whichever rule decides the game."),
    MetricSpec(VIOLATION_STRICT, False, "1 if any clue breaks the strict rule (the paper's, plus the stem check on "
               "every letter run of the accent-folded clue, stopwords included, and on joins of adjacent runs: "
               "split, accented and inflected forms), else 0; NaN when no clue was read."),
    MetricSpec(REPETITION_DESCRIBER, False, "Clues that repeat an earlier clue of the episode (case, Unicode form "
               "and spacing ignored); NaN when no clue was read. Always 0 in clembench (a bug, fixed here)."),
    MetricSpec(REPETITION_GUESSER, False, "Guesses that repeat an earlier guess of the episode (as compared with "
               "the target); NaN when no guess was read. Always 0 in clembench (a bug, fixed here)."),
)  # fmt: skip
METRIC_SPECS: tuple[MetricSpec, ...] = COMMON_METRIC_SPECS + EXTRA_SPECS


def taboo_metrics(log: Sequence[Mapping[str, Any]], params: Any = None) -> dict[str, float]:
    """The common game metrics and Taboo's extras (definitions in :data:`EXTRA_SPECS`)."""
    read = [r for r in moves(log) if r["status"] != INVALID]
    clues = [r for r in read if r["action"] == "clue"]
    guesses = [r for r in read if r["action"] == "guess"]
    last = end_record(log)
    won = last is not None and last["outcome"] == SUCCESS
    return {
        **common_metrics(log),
        WIN_TURN: float(last["turn"]) if won else math.nan,
        VIOLATION_PAPER: _any(clues, "taboo_paper"),
        VIOLATION_STRICT: _any(clues, "taboo_strict"),
        REPETITION_DESCRIBER: _count(clues, "repeat"),
        REPETITION_GUESSER: _count(guesses, "repeat"),
    }


def _any(records: Sequence[Mapping[str, Any]], flag: str) -> float:
    return float(any(r[flag] for r in records)) if records else math.nan


def _count(records: Sequence[Mapping[str, Any]], flag: str) -> float:
    return float(sum(bool(r[flag]) for r in records)) if records else math.nan
