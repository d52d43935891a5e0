"""Standard errors: closed forms on hand-built data, agreement with the bootstrap, and the hook."""

from __future__ import annotations

import math

import numpy as np
import pytest
from lm_eval.api import metrics as lm_metrics

from lm_eval_cog import stderr
from lm_eval_cog.lmeval import standard_errors  # noqa: F401  (installs the hook)
from lm_eval_cog.probes import aggregations as agg
from lm_eval_cog.probes.deduction import slope
from lm_eval_cog.probes.false_belief import joint_false_belief
from lm_eval_cog.probes.span import span_score

NAN = math.nan


# ----------------------------------------------------------------- closed forms, by hand
def test_nanmean_error_is_over_the_defined_values_and_their_count():
    # Defined: 1, 2, 3, 4 -> s^2 = 5/3, s / sqrt(4) = 0.645497
    assert stderr.nanmean([1, NAN, 2, 3, None, 4]) == 2.5
    assert stderr.nanmean.stderr([1, NAN, 2, 3, None, 4]) == pytest.approx(0.645497, abs=1e-6)


def test_nanmean_of_nothing_defined_is_nan_and_one_value_has_no_error():
    assert math.isnan(stderr.nanmean([NAN, NAN]))
    assert math.isnan(stderr.nanmean.stderr([NAN, 3.0]))


def test_difference_error_is_that_of_two_independent_means():
    # A = 1,0,1,1: s^2 = 1/4, /4 -> 1/16; B = 0,0,1: s^2 = 1/3, /3 -> 1/9; sqrt(25/144) = 5/12
    a, b = agg.SIDE_A, agg.SIDE_B
    items = [(a, 1), (a, 0), (b, 0), (a, 1), (agg.NEITHER, 1), (b, 0), (a, 1), (b, 1)]
    assert agg.difference(items) == pytest.approx(0.75 - 1 / 3)
    assert agg.difference.stderr(items) == pytest.approx(5 / 12, abs=1e-9)


def test_conditional_mean_error_counts_only_the_included_items():
    items = [(True, 1), (False, 0), (True, 2), (True, 3), (True, 4), (False, 9)]
    assert agg.conditional_mean.stderr(items) == pytest.approx(0.645497, abs=1e-6)


def test_pooled_rate_error_is_the_ratio_estimators_delta_method():
    # R = 3/8; residuals 0.25, 1.25, -1.5 -> 3.875 / (3*2) -> sqrt = 0.803638; / mean(den) 8/3 = 0.301364
    items = [(1, 2), (2, 2), (0, 4)]
    assert agg.pooled_rate(items) == 0.375
    assert agg.pooled_rate.stderr(items) == pytest.approx(0.301364, abs=1e-6)


def test_pooled_dprime_error_is_gourevitch_and_galanter_at_the_corrected_rates():
    # H = 7.5/10 = 0.75, F = 1.5/10 = 0.15; phi(z(.75)) = 0.317777, phi(z(.15)) = 0.233159
    # 0.1875 / (9 * 0.317777^2) + 0.1275 / (9 * 0.233159^2) = 0.206307 + 0.260592 -> sqrt = 0.683300
    items = [(4, 5, 1, 4), (3, 4, 0, 5)]
    assert agg.pooled_dprime.stderr(items) == pytest.approx(0.683300, abs=1e-5)


def test_slope_error_is_the_least_squares_formula():
    # x = 1..4, y = 0,1,1,1: b = 1.5/5 = 0.3, RSS = 0.3, sqrt(0.3/2/5) = 0.173205
    items = [(1, 0), (2, 1), (3, 1), (4, 1)]
    assert slope(items) == pytest.approx(0.3)
    assert slope.stderr(items) == pytest.approx(0.173205, abs=1e-6)
    assert math.isnan(slope.stderr([(1, 0), (1, 1), (1, 1)]))  # one depth: no slope, no error


def test_joint_false_belief_error_is_over_stories_not_questions():
    from lm_eval_cog.probes.false_belief import CONDITIONS

    def story(k: int, right: bool) -> list[tuple[int, str, float, int]]:  # a 3-container story: 6 questions
        return [(k, c, float(right), 6) for c in (*CONDITIONS, "memory")]

    items = story(0, True) + story(1, False) + story(2, True) + story(3, True)
    # per story 1, 0, 1, 1: s^2 = 0.25, / 4 -> sqrt = 0.25
    assert joint_false_belief(items) == 0.75
    assert joint_false_belief.stderr(items) == pytest.approx(0.25)


# ----------------------------------------------------------------- against the bootstrap
def _bootstrap(fn, items, iters=20_000):
    return stderr.bootstrap_stderr(fn, items, iters=iters)


def test_nanmean_error_matches_lm_evals_own_bootstrap_within_its_monte_carlo_error():
    rng = np.random.default_rng(0)
    values = list(rng.normal(0.6, 0.3, 200))
    values = [NAN if i % 5 == 0 else v for i, v in enumerate(values)]
    boot = lm_metrics.bootstrap_stderr(lm_metrics.nanmean, values, iters=20_000)
    # Monte-Carlo error of a bootstrap sd from B draws: about se / sqrt(2B) (0.5% here);
    # the plug-in bootstrap also differs by the random count of defined values (~1/sqrt(n)).
    assert stderr.nanmean.stderr(values) == pytest.approx(boot, rel=0.04)


@pytest.mark.parametrize(
    "fn, make",
    [
        (agg.difference, lambda r: [(int(r.choice([1, -1])), float(r.random() < 0.7)) for _ in range(300)]),
        (agg.conditional_mean, lambda r: [(bool(r.random() < 0.5), float(r.random())) for _ in range(300)]),
        (agg.pooled_rate, lambda r: [(int(r.integers(0, 4)), 4) for _ in range(300)]),
        (agg.pooled_dprime, lambda r: [(int(r.integers(2, 6)), 5, int(r.integers(0, 3)), 5) for _ in range(200)]),
        (slope, lambda r: [(d, float(r.random() < 0.9 - 0.1 * d)) for d in r.integers(1, 6, 300)]),
    ],
    ids=["difference", "conditional_mean", "pooled_rate", "pooled_dprime", "slope"],
)
def test_closed_forms_match_a_document_bootstrap(fn, make):
    items = make(np.random.default_rng(1))
    assert fn.stderr(items) == pytest.approx(_bootstrap(fn, items), rel=0.06)


def test_bootstrapped_aggregations_are_seeded_and_sized_by_the_environment(monkeypatch):
    items = [(0.9, 1.0), (0.8, 0.0), (0.6, 1.0), (0.95, 1.0), (0.3, 0.0), (0.7, 1.0)] * 5
    monkeypatch.setenv(stderr.BOOTSTRAP_ENV, "300")
    first, second = agg.ece.stderr(items), agg.ece.stderr(items)
    assert first == second and first > 0
    monkeypatch.setenv(stderr.BOOTSTRAP_ENV, "0")
    with pytest.raises(ValueError, match="LM_EVAL_COG_BOOTSTRAP_ITERS"):
        agg.ece.stderr(items)
    assert callable(span_score.stderr)


# ----------------------------------------------------------------- the hook into lm-eval
def test_lm_eval_asks_our_aggregations_for_their_own_error_and_others_as_before():
    import lm_eval.evaluator_utils as evaluator_utils

    for lookup in (lm_metrics.stderr_for_metric, evaluator_utils.stderr_for_metric):
        assert lookup(metric=stderr.nanmean, bootstrap_iters=100_000) is stderr.nanmean.stderr
        assert lookup(metric=agg.difference, bootstrap_iters=100_000) is agg.difference.stderr
        assert lookup(metric=stderr.nanmean, bootstrap_iters=0) is None  # --bootstrap_iters 0: off
        assert lookup(metric=lm_metrics.mean, bootstrap_iters=100_000) is lm_metrics.mean_stderr
        assert lookup(metric=lm_metrics.median, bootstrap_iters=10).__name__ == "<lambda>"  # still bootstrapped


def test_installing_twice_wraps_once():
    standard_errors.install()
    standard_errors.install()
    wrapped = lm_metrics.stderr_for_metric.cog_wrapped
    assert not hasattr(wrapped, "cog_wrapped")
