"""Quality score and metrics of the Wordle games, from the log alone."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from lm_eval_cog.games.base import COMMON_METRIC_SPECS, SUCCESS, VALID, common_metrics, end_record, moves
from lm_eval_cog.games.wordle.params import Variant, WordleParams
from lm_eval_cog.paradigms.base import MetricSpec
from lm_eval_cog.paradigms.measures import mean

#: Plain Wordle's speed score for a win after n guesses (v1.6, as the paper ran it).
STEPPED_SPEED = {1: 100.0, 2: 100.0, 3: 100.0, 4: 50.0, 5: 30.0, 6: 20.0}
#: Closeness points per letter of a committed guess (the paper's turn score; 25 for the word itself).
GREEN_POINTS, YELLOW_POINTS = 5, 3
AGREE = "yes"
#: Log actions: a guess (committed unless the critic judges it next), the critic's verdict, the final guess.
GUESS_ACTION, AGREEMENT_ACTION, FINAL_GUESS_ACTION = "guess", "agreement", "final_guess"

EXTRA_SPECS: tuple[MetricSpec, ...] = (
    MetricSpec("win_guess", False, "Committed guesses it took to win (NaN unless won)."),
    MetricSpec(
        "closeness", True,
        "Mean over committed guesses of 5 x greens + 3 x yellows (standard colours; 25 for the word). "
        "NaN without a committed guess.",
    ),
    MetricSpec(
        "repeated_guesses", False, "Committed guesses that repeat an earlier one. NaN without a committed guess.",
    ),
    MetricSpec(
        "feedback_differs_from_paper", False,
        "Committed guesses whose standard feedback differs from the paper's (repeated-letter bug, clemcore#153): "
        "how much the fix can matter. NaN without a committed guess.",
    ),
)  # fmt: skip
CRITIC_SPECS: tuple[MetricSpec, ...] = (
    MetricSpec(
        "critic_agreement_rate", False,
        "Share of the critic's well-formed replies that agree ('yes'); descriptive. NaN without one.",
    ),
    MetricSpec(
        "guess_changed_after_critic", False,
        "Share of completed attempts whose final guess differs from the first; descriptive. NaN without one.",
    ),
)  # fmt: skip


def metric_specs(variant: Variant) -> tuple[MetricSpec, ...]:
    """The metrics a variant reports: the shared ones, Wordle's, and the critic's where it has one."""
    return COMMON_METRIC_SPECS + EXTRA_SPECS + (CRITIC_SPECS if variant.critic else ())


def speed_score(variant: Variant, guesses: int) -> float:
    """Quality score of a win after ``guesses`` committed guesses."""
    return STEPPED_SPEED[guesses] if variant.stepped_speed else round(100 / guesses, 2)


def wordle_metrics(log: Sequence[Mapping[str, Any]], params: WordleParams) -> dict[str, float]:
    """Every metric of ``metric_specs(params.variant)`` for one episode's log."""
    calls = moves(log)
    committed = [r for r in calls if r.get("committed")]
    last = end_record(log)
    won = last is not None and last["outcome"] == SUCCESS
    guesses = [r["guess"] for r in committed]
    scores = {
        **common_metrics(log),
        "win_guess": float(len(committed)) if won else math.nan,
        "closeness": mean([GREEN_POINTS * r["greens"] + YELLOW_POINTS * r["yellows"] for r in committed]),
        "repeated_guesses": float(len(guesses) - len(set(guesses))) if guesses else math.nan,
        "feedback_differs_from_paper": (
            float(sum(r["feedback"] != r["feedback_paper"] for r in committed)) if committed else math.nan
        ),
    }
    if params.variant.critic:
        verdicts = [r["agreement"] for r in calls if r["action"] == AGREEMENT_ACTION and r["status"] == VALID]
        scores["critic_agreement_rate"] = mean([float(v == AGREE) for v in verdicts])
        scores["guess_changed_after_critic"] = mean([float(r["guess"] != r["first_guess"]) for r in committed])
    return scores
