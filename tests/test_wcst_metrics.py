"""WCST metrics on hand-built logs (expected values computed by hand)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from lm_eval_cog.paradigms.wcst import PARADIGM, WCSTEnv, WCSTParams, metric_specs, wcst_metrics
from lm_eval_cog.paradigms.wcst.scoring import METRIC_NAMES

CRIT3 = WCSTParams(trials=12, criterion=3)  # short categories keep hand-built logs small
CRIT10 = WCSTParams()  # wcst64: criterion 10


def rec(trial, rule, outcome, matched, streak, previous_rule=None, completed=False):
    """One log record with only the fields the metrics read (plus `trial`)."""
    return {
        "trial": trial,
        "rule": rule,
        "previous_rule": previous_rule,
        "outcome": outcome,
        "matched": matched,
        "streak": streak,
        "category_completed": completed,
    }


def correct_run(start, rule, length, previous_rule=None, criterion=10):
    """`length` correct sorts from trial `start`, streaks 1..length."""
    return [
        rec(start + k, rule, "correct", rule, k + 1, previous_rule, completed=(k + 1 == criterion))
        for k in range(length)
    ]


# Log with no category completed, an error and an invalid reply (criterion 3).
NO_CATEGORY_LOG = [
    rec(1, "colour", "error", "shape", 0),
    rec(2, "colour", "correct", "colour", 1),
    rec(3, "colour", "correct", "colour", 2),
    rec(4, "colour", "invalid", None, 0),  # invalid breaks the streak
    rec(5, "colour", "correct", "colour", 1),
]

# Two categories (criterion 3), perseveration after each switch, one invalid reply.
SWITCH_LOG = [
    rec(1, "colour", "correct", "colour", 1),
    rec(2, "colour", "correct", "colour", 2),
    rec(3, "colour", "correct", "colour", 3, completed=True),  # category 1; switch to shape
    rec(4, "shape", "error", "colour", 0, previous_rule="colour"),  # PE: sorted by old rule
    rec(5, "shape", "error", "number", 0, previous_rule="colour"),  # NPE
    rec(6, "shape", "correct", "shape", 1, previous_rule="colour"),
    rec(7, "shape", "correct", "shape", 2, previous_rule="colour"),
    rec(8, "shape", "correct", "shape", 3, previous_rule="colour", completed=True),  # category 2
    rec(9, "number", "invalid", None, 0, previous_rule="shape"),  # invalid: error, never PE
    rec(10, "number", "error", "shape", 0, previous_rule="shape"),  # PE
]


def test_metrics_no_category_completed_gives_nan_tfc_and_counts_invalid():
    """No category: CC 0, TFC NaN; an invalid reply is a non-perseverative error."""
    m = wcst_metrics(NO_CATEGORY_LOG, CRIT3)
    assert m["acc"] == pytest.approx(0.6)  # 3 correct / 5 trials
    assert m["score"] == pytest.approx(60.0)  # Reflection-Bench's WCST score: 100 x acc
    assert m["categories_completed"] == 0.0
    assert math.isnan(m["trials_to_first_category"])
    assert m["perseverative_errors"] == 0.0  # no switch yet: PE impossible
    assert m["non_perseverative_errors"] == 2.0  # trials 1 (error) + 4 (invalid)
    assert m["conceptual_level_responses"] == 0.0  # no streak >= 3
    assert m["failure_to_maintain_set"] == 0.0
    assert m["invalid_rate"] == pytest.approx(0.2)  # 1 invalid / 5 trials


def test_metrics_perseveration_after_switch_counts_only_errors_matching_previous_rule():
    """PE = errors matched to previous_rule after a switch; invalid replies are never PE."""
    m = wcst_metrics(SWITCH_LOG, CRIT3)
    assert m["acc"] == pytest.approx(0.6)  # 6 correct (1-3, 6-8) / 10
    assert m["categories_completed"] == 2.0  # trials 3 and 8
    assert m["trials_to_first_category"] == 3.0
    assert m["perseverative_errors"] == 2.0  # trials 4 (colour) and 10 (shape)
    assert m["non_perseverative_errors"] == 2.0  # 4 errors (4, 5, 9, 10) - 2 PE
    assert m["conceptual_level_responses"] == pytest.approx(20.0)  # 100 * 2 (trials 3, 8) / 10
    assert m["failure_to_maintain_set"] == 0.0  # 5 <= c < 3 is impossible
    assert m["invalid_rate"] == pytest.approx(0.1)  # 1 / 10


def test_metrics_failure_to_maintain_set_counts_errors_after_five_to_nine_correct():
    """FMS counts errors (incl. invalid) with 5 <= c_{i-1} < criterion; c_{i-1} = 4 does not count."""
    log = (
        correct_run(1, "colour", 6)  # trials 1-6, c = 1..6
        + [rec(7, "colour", "error", "shape", 0)]  # c_6 = 6 -> FMS
        + correct_run(8, "colour", 5)  # trials 8-12, c = 1..5
        + [rec(13, "colour", "invalid", None, 0)]  # c_12 = 5 -> FMS
        + correct_run(14, "colour", 4)  # trials 14-17, c = 1..4
        + [rec(18, "colour", "error", "number", 0)]  # c_17 = 4 -> not FMS
    )
    m = wcst_metrics(log, CRIT10)
    assert m["failure_to_maintain_set"] == 2.0  # trials 7 and 13
    assert m["acc"] == pytest.approx(15 / 18)  # 6 + 5 + 4 correct
    # CLR: c >= 3 on trials 3-6 (4), 10-12 (3), 16-17 (2) = 9 of 18
    assert m["conceptual_level_responses"] == pytest.approx(50.0)
    assert m["non_perseverative_errors"] == 3.0
    assert m["invalid_rate"] == pytest.approx(1 / 18)


def test_metrics_error_on_new_fixed_block_is_perseverative_not_failure_to_maintain_set():
    """Fixed schedule: an error right after an unannounced block change does not lose a still-valid set."""
    log = correct_run(1, "colour", 7) + [rec(8, "shape", "error", "colour", 0, previous_rule="colour")]
    m = wcst_metrics(log, CRIT10)
    assert m["failure_to_maintain_set"] == 0.0  # rule changed: carried-in streak is 0
    assert m["perseverative_errors"] == 1.0
    assert m["non_perseverative_errors"] == 0.0


def test_metrics_category_completion_is_counted_once_with_streak_equal_to_criterion():
    """CC counts trials whose streak reached the criterion; TFC is that 1-based trial."""
    log = [rec(1, "number", "error", "colour", 0)] + [
        rec(2 + k, "number", "correct", "number", k + 1, completed=(k + 1 == 10)) for k in range(10)
    ]
    m = wcst_metrics(log, CRIT10)
    assert m["categories_completed"] == 1.0
    assert m["trials_to_first_category"] == 11.0  # 1 error + 10 correct
    assert m["conceptual_level_responses"] == pytest.approx(100 * 8 / 11)  # c = 3..10 on 8 trials


def test_metrics_empty_log_is_all_nan():
    """Nothing measured: every metric is NaN (never 0, which would read as a score)."""
    m = wcst_metrics([], CRIT10)
    assert set(m) == set(METRIC_NAMES)
    assert all(math.isnan(v) for v in m.values())


def test_metric_specs_order_and_direction():
    """The metric specs list every metric once, with the documented direction."""
    assert [(s.name, s.higher_is_better) for s in metric_specs] == [
        ("acc", True),
        ("score", True),
        ("categories_completed", True),
        ("perseverative_errors", False),
        ("non_perseverative_errors", False),
        ("trials_to_first_category", False),
        ("conceptual_level_responses", True),
        ("failure_to_maintain_set", False),
        ("invalid_rate", False),
        ("fallback_share", False),
    ]
    assert PARADIGM.metric_specs == metric_specs


@pytest.mark.parametrize("preset", ["wcst64", "kennedy", "reflection_bench"])
def test_metrics_recomputed_from_json_log_equal_originals(preset):
    """The log is plain JSON: metrics of its round-trip equal the live ones."""
    params = PARADIGM.make_params(preset)
    for seed in range(5):
        env = WCSTEnv(params)
        message, info = env.reset(seed=seed)
        agent = PARADIGM.make_agent("optimal" if seed % 2 else "random", params, np.random.default_rng(seed))
        done = False
        while not done:
            reply = agent.act(message, info) if seed != 3 or info["trial"] % 7 else "no idea"
            message, terminated, truncated, info = env.step(reply)
            done = terminated or truncated
        original = wcst_metrics(env.log, params)
        reloaded = wcst_metrics(json.loads(json.dumps(env.log)), params)
        assert original.keys() == reloaded.keys()
        for key, value in original.items():
            assert value == reloaded[key] or (math.isnan(value) and math.isnan(reloaded[key]))
