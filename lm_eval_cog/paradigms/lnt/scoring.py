"""LNT metrics (Kennedy & Nowak, 2024, plus WCST-style switch measures), from the log alone.

Every metric is a pure function of these fields of the per-trial records written by
:class:`~lm_eval_cog.paradigms.lnt.env.LNTEnv`: ``trial``, ``task``, ``previous_task``,
``answer_task``, ``outcome``, ``category_completed`` and ``parse``, so a saved (JSON)
log can be re-scored offline.

The module also derives the protocol's bounds (:func:`reactive_correct`,
:func:`max_categories`): Kennedy & Nowak's worst case n/(n + t - 1) = 6/7 holds for
cycles of one error and n correct answers, but 25 trials end inside a cycle.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from lm_eval_cog.paradigms.base import FALLBACK_SHARE_SPEC, MetricSpec
from lm_eval_cog.paradigms.switching import (
    ACC,
    CATEGORIES_COMPLETED,
    INVALID_RATE,
    NON_PERSEVERATIVE_ERRORS,
    PERSEVERATIVE_ERRORS,
    SCORE,
    TRIALS_TO_FIRST_CATEGORY,
    perseverative_error,
    switching_measures,
)

metric_specs: tuple[MetricSpec, ...] = (
    MetricSpec(ACC, True, "Share of trials answered correctly (Kennedy & Nowak's score; invalid replies are errors)."),
    MetricSpec(SCORE, True, "100 x acc (the project's 0-100 score; chance levels are stored for it)."),
    MetricSpec(CATEGORIES_COMPLETED, True, "Times the run of consecutive correct answers reached the criterion."),
    MetricSpec(
        TRIALS_TO_FIRST_CATEGORY,
        False,
        "1-based trial completing the first category; NaN (excluded from the mean) if none.",
    ),
    MetricSpec(
        PERSEVERATIVE_ERRORS,
        False,
        "Errors after a switch answered in the previous task's words (e.g. 'even' while the letter task is in force).",
    ),
    MetricSpec(NON_PERSEVERATIVE_ERRORS, False, "Errors (incl. invalid replies) minus perseverative errors."),
    MetricSpec(INVALID_RATE, False, "Share of trials whose reply could not be read."),
    FALLBACK_SHARE_SPEC,
)

METRIC_NAMES: tuple[str, ...] = tuple(s.name for s in metric_specs)


def lnt_metrics(log: Sequence[Mapping[str, Any]], params: Any) -> dict[str, float]:
    """All LNT metrics of one episode.

    Args:
        log: Per-trial records (``LNTEnv.log`` or its JSON round-trip), in trial order.
        params: The episode's ``LNTParams`` (unused: the log records completions itself;
            kept for the :class:`~lm_eval_cog.paradigms.base.Paradigm` signature).

    Returns:
        ``{name: value}`` for every name in :data:`METRIC_NAMES`. An empty log gives NaN
        for every metric (nothing was measured); so does TFC when no category completes.
    """
    if not log:
        return {name: math.nan for name in METRIC_NAMES}
    values = switching_measures(log, is_perseverative)
    return {name: values[name] for name in METRIC_NAMES}


def is_perseverative(record: Mapping[str, Any]) -> bool:
    """An error (not an invalid reply), after a switch, answered in the previous task's words.

    Before the first switch there is no previous task: a wrong-task answer there is a
    search for the task, not perseveration (as WCST's eq. 2 counts none before a switch).
    """
    return perseverative_error(record, "task", "previous_task", "answer_task")


# --------------------------------------------------------------------------- #
# Bounds of the protocol (two tasks, switch after `criterion` consecutive correct)
# --------------------------------------------------------------------------- #


def reactive_correct(trials: int, criterion: int, first_guess_right: bool) -> int:
    """Correct answers of the ideal player that is not told the criterion (two tasks).

    It answers every sequence right under the task it believes in force, and changes its
    belief only on "Incorrect!". With two tasks one error identifies the new task, so
    the episode is cycles of one error and ``criterion`` correct answers (n + 1 trials),
    the first cycle without its error when the first guess is right:

    * first guess wrong: errors at trials 1, n + 2, 2n + 3, ...: ceil(T / (n + 1)) errors;
    * first guess right: errors at trials n + 1, 2(n + 1), ...: floor(T / (n + 1)) errors.

    T = 25, n = 6: 25 - 4 = 21 or 25 - 3 = 22 correct (acc 0.84 or 0.88, mean 0.86).
    Kennedy & Nowak's n / (n + t - 1) = 6/7 = 0.857 is the limit of whole cycles; 25
    trials end one trial into the fourth cycle (3 x 7 = 21), after its error, which
    pushes the worst case below 6/7.
    """
    cycle = criterion + 1
    errors = -(-trials // cycle) if not first_guess_right else trials // cycle
    return trials - errors


def reactive_categories(trials: int, criterion: int, first_guess_right: bool) -> int:
    """Categories the same ideal player completes: at trials k(n + 1), or k(n + 1) - 1 when
    its first guess was right. T = 25, n = 6: 3 either way (at 7, 14, 21 or 6, 13, 20)."""
    cycle = criterion + 1
    return (trials + 1) // cycle if first_guess_right else trials // cycle


def max_categories(trials: int, criterion: int, first_guess_right: bool = True) -> int:
    """The most categories any player completes: one that also counts to the criterion and
    switches in advance, so it errs at most once (the first guess). T = 25, n = 6: 4."""
    return (trials - (0 if first_guess_right else 1)) // criterion
