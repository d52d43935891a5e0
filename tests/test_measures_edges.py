"""Edges of the shared statistics (``paradigms/measures.py``), values computed by hand.

Each test pins one behaviour a mutation run showed untested: NaN (never 0) when nothing
was measured, the exact boundaries of the guards, and the formulas' constants.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import pytest

from lm_eval_cog.paradigms.measures import d_prime, fallback_share, mae_score, ratio

Z = NormalDist().inv_cdf


def test_mae_score_is_one_minus_mean_error_over_max_error_times_100():
    # errors |0.5 - 1| = 0.5 and |1 - 1| = 0 -> MAE 0.25; (1 - 0.25 / 0.5) x 100 = 50
    assert mae_score([0.5, 1.0], [1.0, 1.0], 0.5) == pytest.approx(50.0)


def test_mae_score_divides_by_the_entries_estimated_not_by_all_entries():
    # NaN estimate left out: errors [0.2] only -> MAE 0.2; (1 - 0.2 / 0.8) x 100 = 75
    # (dividing by both entries would give MAE 0.1 -> 87.5)
    assert mae_score([math.nan, 0.8], [0.2, 1.0], 0.8) == pytest.approx(75.0)


def test_mae_score_of_perfect_estimates_is_100_and_of_worst_estimates_is_0():
    assert mae_score([0.9, 0.1], [0.9, 0.1], 0.9) == pytest.approx(100.0)
    # |0 - 0.9| = 0.9 = max_mae and |1 - 0.1| = 0.9 -> (1 - 1) x 100 = 0
    assert mae_score([0.0, 1.0], [0.9, 0.1], 0.9) == pytest.approx(0.0)


def test_mae_score_with_nothing_estimated_is_nan_not_zero():
    assert math.isnan(mae_score([math.nan, math.nan], [0.5, 0.5], 0.5))
    assert math.isnan(mae_score([], [], 0.5))


def test_mae_score_rejects_mismatched_lengths_and_a_max_error_that_is_not_positive():
    with pytest.raises(ValueError, match="2 estimates for 1 true values"):
        mae_score([0.1, 0.2], [0.1], 0.5)
    for bad in (0.0, -0.5):
        with pytest.raises(ValueError, match="max_mae must be positive"):
            mae_score([0.1], [0.1], bad)


def test_d_prime_uses_the_log_linear_correction():
    # H = (3 + .5) / (4 + 1) = .7, F = (1 + .5) / (4 + 1) = .3 -> z(.7) - z(.3) = 2 z(.7) = 1.0488
    assert d_prime(3, 4, 1, 4) == pytest.approx(1.0488010254160813)
    # H = (1 + .5) / (1 + 1) = .75, F = (0 + .5) / (1 + 1) = .25 -> 2 z(.75) = 1.3490
    assert d_prime(1, 1, 0, 1) == pytest.approx(1.3489795003921634)


def test_d_prime_is_not_symmetric_in_hits_and_false_alarms():
    # H = 3.5 / 5 = .7 on 4 targets, F = .5 / 3 on 2 non-targets: z(.7) - z(1/6) = 0.5244 + 0.9674
    assert d_prime(3, 4, 0, 2) == pytest.approx(Z(0.7) - Z(0.5 / 3))
    assert d_prime(3, 4, 0, 2) == pytest.approx(1.4918, abs=1e-4)


def test_d_prime_without_signal_or_without_noise_trials_is_nan():
    assert math.isnan(d_prime(0, 0, 1, 3))  # no target trial answered
    assert math.isnan(d_prime(1, 3, 0, 0))  # no non-target trial answered
    assert math.isnan(d_prime(0, 0, 0, 0))
    # one trial of each is enough to measure something (boundary of the guard)
    assert math.isfinite(d_prime(0, 1, 1, 1))


def test_ratio_is_nan_when_nothing_was_measured_and_the_quotient_otherwise():
    assert math.isnan(ratio(0, 0))
    assert ratio(0, 3) == 0.0
    assert ratio(1, 4) == pytest.approx(0.25)
    assert ratio(3, 2) == pytest.approx(1.5)


def test_fallback_share_is_the_share_of_replies_read_by_the_fallback():
    # 4 records, one reply each: answer_line, fallback, whole_reply, fallback -> 2 / 4
    log = [{"parse": p} for p in ("answer_line", "fallback", "whole_reply", "fallback")]
    assert fallback_share(log) == pytest.approx(0.5)


def test_fallback_share_reads_the_named_fields_of_each_record():
    # two replies per record (DC-IGT): fields first_parse and final_parse -> 1 of 4
    log = [
        {"first_parse": "answer_line", "final_parse": "fallback"},
        {"first_parse": "answer_line", "final_parse": "answer_line"},
    ]
    assert fallback_share(log, ("first_parse", "final_parse")) == pytest.approx(0.25)


def test_fallback_share_is_nan_for_an_empty_log_or_a_log_without_parse_paths():
    assert math.isnan(fallback_share([]))
    assert math.isnan(fallback_share([{"parse": "fallback"}, {"outcome": "correct"}]))
