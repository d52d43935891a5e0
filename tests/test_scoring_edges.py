"""Edges of the paradigm scorers (``paradigms/*/scoring.py``) on hand-built logs.

Every expected value is computed by hand from the definitions in ``docs/paradigms.md``
and the paradigm READMEs (the computation is in the comment beside it). Each test pins
a boundary or a rule that a mutation run (``scripts/mutation.py``) showed untested.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import pytest

from lm_eval_cog.paradigms.igt import IGTParams, igt_metrics, trial_credit
from lm_eval_cog.paradigms.nback import NBackParams, nback_metrics
from lm_eval_cog.paradigms.wcst import WCSTParams, wcst_metrics
from lm_eval_cog.paradigms.wpt import WPTParams, estimated_matrices, wpt_metrics
from lm_eval_cog.paradigms.wpt.env import CHANGE, STAY
from test_wcst_metrics import rec as wrec  # one WCST log record with the fields the metrics read

Z = NormalDist().inv_cdf


# --------------------------------------------------------------------------- WCST


def correct_run(start, rule, length, criterion=10, previous_rule=None):
    """``length`` correct sorts from trial ``start``: streaks 1..length, completion at the criterion."""
    return [
        wrec(start + k, rule, "correct", rule, k + 1, previous_rule, completed=(k + 1 == criterion))
        for k in range(length)
    ]


FIXED = WCSTParams(trials=72, criterion=10, schedule="fixed")


def test_wcst_error_after_a_completed_category_under_an_unchanged_fixed_rule_is_not_fms():
    # Fixed schedule: trial 10 completes a category (c = 10 recorded, then c <- 0) and the
    # rule stays colour. Trial 11's error has c_10 = 10, not in 5 <= c < 10 (eq. 6): FMS 0.
    log = correct_run(1, "colour", 10) + [wrec(11, "colour", "error", "shape", 0)]
    m = wcst_metrics(log, FIXED)
    assert m["failure_to_maintain_set"] == 0.0
    assert m["categories_completed"] == 1.0 and m["trials_to_first_category"] == 10.0
    assert m["non_perseverative_errors"] == 1.0  # no switch: the error cannot be perseverative


def test_wcst_error_after_nine_correct_is_the_last_fms_streak():
    # c_9 = 9: 5 <= 9 < 10, so the error on trial 10 is a failure to maintain set.
    log = correct_run(1, "colour", 9) + [wrec(10, "colour", "error", "shape", 0)]
    assert wcst_metrics(log, FIXED)["failure_to_maintain_set"] == 1.0


def test_wcst_fms_criterion_is_the_params_criterion_not_a_constant():
    # c_{i-1} = 5: an FMS error under criterion 6 (5 <= 5 < 6); under criterion 5 a streak of
    # 5 is a completed category, so the same error is not FMS (5 < 5 is false).
    log = correct_run(1, "colour", 5, criterion=6) + [wrec(6, "colour", "error", "shape", 0)]
    assert wcst_metrics(log, WCSTParams(trials=25, criterion=6))["failure_to_maintain_set"] == 1.0
    assert wcst_metrics(log, WCSTParams(trials=25, criterion=5))["failure_to_maintain_set"] == 0.0


def test_wcst_error_on_the_first_trial_carries_no_streak_from_the_end_of_the_log():
    # Trial 1 has c_0 = 0 by definition; the log's last record (c = 6, same rule) must not
    # be read as the streak before trial 1 (Python's log[-1]). FMS 0.
    log = [wrec(1, "colour", "error", "shape", 0)] + correct_run(2, "colour", 6)
    m = wcst_metrics(log, FIXED)
    assert m["failure_to_maintain_set"] == 0.0
    assert m["acc"] == pytest.approx(6 / 7)


def test_wcst_choosing_the_matching_nothing_option_before_the_first_switch_is_not_perseverative():
    # Kennedy deck: one option matches nothing (matched = None) and before the first switch
    # previous_rule is None too. PE needs a previous rule (eq. 2): PE 0, NPE 1.
    log = [wrec(1, "shape", "error", None, 0), wrec(2, "shape", "correct", "shape", 1)]
    m = wcst_metrics(log, WCSTParams(trials=25, criterion=6, deck="per_trial_options"))
    assert m["perseverative_errors"] == 0.0
    assert m["non_perseverative_errors"] == 1.0


def test_wcst_choosing_the_matching_nothing_option_after_a_switch_is_not_perseverative():
    # After a switch from colour, matched None is not the previous rule: NPE, not PE.
    log = correct_run(1, "colour", 6, criterion=6) + [
        wrec(7, "shape", "error", None, 0, previous_rule="colour"),
        wrec(8, "shape", "error", "colour", 0, previous_rule="colour"),  # PE
    ]
    m = wcst_metrics(log, WCSTParams(trials=25, criterion=6, deck="per_trial_options"))
    assert m["perseverative_errors"] == 1.0
    assert m["non_perseverative_errors"] == 1.0


def test_wcst_streak_of_exactly_three_is_a_conceptual_level_response():
    # c = 1, 2, 3 then an error: only trial 3 has c >= 3 -> CLR = 100 x 1/4 = 25.
    log = correct_run(1, "number", 3) + [wrec(4, "number", "error", "colour", 0)]
    assert wcst_metrics(log, FIXED)["conceptual_level_responses"] == pytest.approx(25.0)


def test_wcst_trials_to_first_category_is_the_first_completion_not_the_last():
    # Criterion 3: categories complete on trials 3 and 6 -> TFC 3, CC 2.
    log = correct_run(1, "colour", 3, criterion=3) + correct_run(4, "shape", 3, criterion=3, previous_rule="colour")
    m = wcst_metrics(log, WCSTParams(trials=12, criterion=3))
    assert m["trials_to_first_category"] == 3.0
    assert m["categories_completed"] == 2.0


# --------------------------------------------------------------------------- n-back


def nrec(trial, target, choice, outcome):
    return {"trial": trial, "target": target, "choice": choice, "outcome": outcome}


def test_nback_not_available_on_a_target_is_a_valid_miss_not_a_hit():
    # 2-back. Targets: 3 ("yes": hit), 4 ("not available": valid, not "yes" -> miss).
    # Non-targets: 5 ("no"), 6 ("yes": false alarm). H = 1/2, F = 1/2.
    log = [
        nrec(1, None, "not available", "correct"),
        nrec(2, None, "not available", "correct"),
        nrec(3, True, "yes", "correct"),
        nrec(4, True, "not available", "error"),
        nrec(5, False, "no", "correct"),
        nrec(6, False, "yes", "error"),
    ]
    m = nback_metrics(log, NBackParams())
    assert m["hit_rate"] == pytest.approx(0.5)
    assert m["false_alarm_rate"] == pytest.approx(0.5)
    # H' = (1 + .5) / 3 = .5, F' = (1 + .5) / 3 = .5 -> d' = 0
    assert m["d_prime"] == pytest.approx(0.0)
    assert m["score"] == pytest.approx(100 * 4 / 6)  # trials 1, 2, 3, 5 correct


def test_nback_without_answered_targets_rates_and_d_prime_are_nan_not_zero():
    # The only target reply is invalid: no signal trial answered -> H and d' NaN; F = 1/2.
    log = [
        nrec(1, None, "not available", "correct"),
        nrec(2, None, "not available", "correct"),
        nrec(3, True, None, "invalid"),
        nrec(4, False, "no", "correct"),
        nrec(5, False, "yes", "error"),
    ]
    m = nback_metrics(log, NBackParams())
    assert math.isnan(m["hit_rate"])
    assert math.isnan(m["d_prime"])
    assert m["false_alarm_rate"] == pytest.approx(0.5)
    assert m["invalid_rate"] == pytest.approx(0.2)
    assert m["score"] == pytest.approx(60.0)  # 3 correct / 5


def test_nback_without_answered_non_targets_false_alarm_rate_is_nan():
    log = [nrec(1, None, "not available", "correct"), nrec(2, True, "yes", "correct")]
    m = nback_metrics(log, NBackParams(n=1))
    assert m["hit_rate"] == 1.0
    assert math.isnan(m["false_alarm_rate"]) and math.isnan(m["d_prime"])


def test_nback_empty_log_is_all_nan():
    assert all(math.isnan(v) for v in nback_metrics([], NBackParams()).values())


# --------------------------------------------------------------------------- DC-IGT


def irec(first, preview_loss, final, balance, first_parse="answer_line", final_parse="answer_line"):
    return {
        "first": first,
        "first_invalid": None if first else "no_answer",
        "preview_loss": preview_loss,
        "final": final,
        "final_invalid": None if final else "no_answer",
        "switched": None if first is None or final is None else first != final,
        "balance": balance,
        "first_parse": first_parse if first else "invalid",
        "final_parse": final_parse if final else "invalid",
    }


def test_igt_behaviour_shares_tell_the_four_behaviours_apart():
    # 5 answered trials: stick after no loss x1, stick after a loss x1, switch after no loss x1,
    # switch after a loss x2 -> 1/5, 1/5, 1/5, 2/5 (each behaviour has its own count).
    log = [
        irec("AAA", 0, "AAA", 2100),
        irec("BBB", 1250, "BBB", 950),
        irec("CCC", 0, "DDD", 1000),
        irec("AAA", 260, "DDD", 1050),
        irec("BBB", 250, "CCC", 1100),
    ]
    m = igt_metrics(log, IGTParams(trials=5))
    assert m["stick_after_gain"] == pytest.approx(0.2)
    assert m["stick_after_loss"] == pytest.approx(0.2)
    assert m["switch_after_gain"] == pytest.approx(0.2)
    assert m["switch_after_loss"] == pytest.approx(0.4)


def test_igt_a_loss_of_one_dollar_is_a_loss():
    # Any positive preview loss is a loss (losses are parameters): keeping a deck that
    # previewed -$1 costs -(1/500 + 1) = -1.002; leaving it earns the loss-avoiding +1.
    assert trial_credit({"switched": False, "preview_loss": 1}) == pytest.approx(-1.002)
    assert trial_credit({"switched": True, "preview_loss": 1}) == pytest.approx(1.0)
    assert trial_credit({"switched": True, "preview_loss": 0}) == pytest.approx(-0.5)
    m = igt_metrics([irec("AAA", 1, "AAA", 2099), irec("AAA", 1, "BBB", 2199)], IGTParams(trials=2))
    assert m["stick_after_loss"] == pytest.approx(0.5) and m["switch_after_loss"] == pytest.approx(0.5)
    assert m["stick_after_gain"] == 0.0 and m["switch_after_gain"] == 0.0


def test_igt_fallback_share_counts_both_replies_of_a_trial():
    # 2 trials = 4 replies; the first trial's final choice and the second trial's first
    # choice were read by the fallback: 2 / 4 = 0.5.
    log = [
        irec("AAA", 0, "AAA", 2100, final_parse="fallback"),
        irec("CCC", 0, "CCC", 2150, first_parse="fallback"),
    ]
    assert igt_metrics(log, IGTParams(trials=2))["fallback_share"] == pytest.approx(0.5)
    log[0]["final_parse"] = "answer_line"
    assert igt_metrics(log, IGTParams(trials=2))["fallback_share"] == pytest.approx(0.25)


# --------------------------------------------------------------------------- WPT


def wday(n, sensors, today, actual, prediction):
    outcome = "invalid" if prediction is None else "correct" if prediction == actual else "error"
    return {"day": n, "sensors": sensors, "today": today, "actual": actual, "prediction": prediction,
            "outcome": outcome}  # fmt: skip


def test_wpt_accuracy_counts_correct_predictions_over_all_days():
    # 4 days: correct, correct, invalid, correct -> accuracy 3/4 (errors + invalid would be 1/4);
    # invalid 1/4.
    log = [
        wday(1, STAY, "sunny", "sunny", "sunny"),
        wday(2, STAY, "sunny", "rainy", "rainy"),
        wday(3, CHANGE, "rainy", "sunny", None),
        wday(4, CHANGE, "sunny", "rainy", "rainy"),
    ]
    m = wpt_metrics(log, WPTParams(p=0.9, estimate_from=1))
    assert m["accuracy"] == pytest.approx(0.75)
    assert m["invalid_rate"] == pytest.approx(0.25)


def test_wpt_matrices_use_every_day_by_default():
    # estimate_from defaults to day 1: a one-day log ([1,0], sunny, predicted sunny) gives
    # the estimates (1, 0) for that row, 6 NaN entries for the rows without a day.
    est, truth = estimated_matrices([wday(1, STAY, "sunny", "sunny", "sunny")], 0.9)
    assert est[:2] == [1.0, 0.0] and sum(math.isnan(e) for e in est) == 6
    assert truth[:2] == pytest.approx([0.9, 0.1])
