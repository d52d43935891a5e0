"""Criterion switching, shared by the set-shifting paradigms (WCST, LNT).

A hidden rule (WCST: the sorting dimension; LNT: the task) holds until the player has given
``criterion`` consecutive correct answers. That completes a category, and the rule switches,
unannounced, from the next trial: the answer that completed the category was scored under the
rule before the switch. Anything but a correct answer (an error, an invalid reply) restarts the
run. A protocol with one fixed rule still counts categories; WCST's fixed schedule changes the
rule at block ends instead (:meth:`CriterionSchedule.switch`).

Each paradigm logs, per trial, the rule in force, the rule before the last switch (None before
the first), the run after the trial (``streak``) and ``category_completed``; the measures both
report are read from those records alone (:func:`switching_measures`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from lm_eval_cog.paradigms.base import FALLBACK_SHARE, Outcome
from lm_eval_cog.paradigms.measures import fallback_share

ACC = "acc"
SCORE = "score"
CATEGORIES_COMPLETED = "categories_completed"
TRIALS_TO_FIRST_CATEGORY = "trials_to_first_category"
PERSEVERATIVE_ERRORS = "perseverative_errors"
NON_PERSEVERATIVE_ERRORS = "non_perseverative_errors"
INVALID_RATE = "invalid_rate"


class CriterionSchedule:
    """The rule in force and the run of correct answers that switches it.

    Arguments:
        rules: The rules in the order they come into force, drawn up front: the first holds
            from trial 1, each switch moves on to the next. ``trials // criterion + 1`` rules
            are enough for any episode switched by completed categories alone.
        criterion: Consecutive correct answers that complete a category.
        switches: Whether a completed category switches the rule (False: a fixed rule, or a
            schedule that switches at block ends; categories are counted all the same).
    """

    def __init__(self, rules: Sequence[str], criterion: int, switches: bool = True) -> None:
        self._rules = list(rules)
        self._index = 0
        self.previous: str | None = None
        self.criterion = criterion
        self.switches = switches
        self.streak = 0

    @property
    def rule(self) -> str:
        """The rule in force for the next trial."""
        return self._rules[self._index]

    def count(self, outcome: Outcome) -> tuple[int, bool]:
        """Count one trial, scored under :attr:`rule`: a correct answer extends the run, anything
        else restarts it. Returns the run after this trial and whether it completed a category;
        a completed category restarts the run and, if the schedule switches, switches the rule
        from the next trial."""
        self.streak = self.streak + 1 if outcome is Outcome.CORRECT else 0
        streak, completed = self.streak, self.streak == self.criterion
        if completed:
            self.streak = 0
            if self.switches:
                self.switch()
        return streak, completed

    def switch(self) -> None:
        """The next rule from the next trial; the run restarts (it counts correct answers under the rule in force)."""
        self.previous = self.rule
        self._index += 1
        self.streak = 0


def perseverative_error(record: Mapping[str, Any], rule: str, previous: str, chosen: str) -> bool:
    """An error (not an invalid reply), after a switch, whose choice follows the previous rule.

    ``rule``, ``previous`` and ``chosen`` name the record's fields: the rule in force, the rule
    before the last switch, and the rule the answer followed. Before the first switch there is
    no previous rule, so no error is perseverative.
    """
    before = record[previous]
    return (
        record["outcome"] == Outcome.ERROR.value
        and before is not None
        and before != record[rule]
        and record[chosen] == before
    )


def switching_measures(
    log: Sequence[Mapping[str, Any]], perseverative: Callable[[Mapping[str, Any]], bool]
) -> dict[str, float]:
    """The measures of a non-empty log that every criterion-switching paradigm reports.

    Accuracy (invalid replies are errors), the score (100 x acc), categories completed, the
    trial completing the first category (NaN if none), perseverative errors (``perseverative``
    says which records are) and the other errors, the invalid rate and the fallback share.
    """
    n = len(log)
    correct = sum(r["outcome"] == Outcome.CORRECT.value for r in log)
    invalid = sum(r["outcome"] == Outcome.INVALID.value for r in log)
    persevered = sum(perseverative(r) for r in log)
    completed = [int(r["trial"]) for r in log if r["category_completed"]]
    return {
        ACC: correct / n,
        SCORE: 100.0 * correct / n,
        CATEGORIES_COMPLETED: float(len(completed)),
        TRIALS_TO_FIRST_CATEGORY: float(completed[0]) if completed else math.nan,
        PERSEVERATIVE_ERRORS: float(persevered),
        NON_PERSEVERATIVE_ERRORS: float(n - correct - persevered),
        INVALID_RATE: invalid / n,
        FALLBACK_SHARE: fallback_share(log),
    }
