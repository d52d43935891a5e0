"""The static probes' shared machinery: answer reading, per-document scores, aggregations, YAMLs."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

from lm_eval_cog.probes import aggregations as agg
from lm_eval_cog.probes.core import NO_ANSWER, REGISTRY, get_probe, normalize_answer
from lm_eval_cog.probes.reference import aggregate, play

ROOT = Path(__file__).resolve().parents[1]
STROOP = get_probe("stroop")


def _doc(**changes):
    doc = {
        "probe": "stroop", "index": 1, "seed": 5, "prompt": "p", "choices": ["green", "pink", "red", "yellow"],
        "gold": 3, "condition": "incongruent", "lure": 0, "word": "GREEN", "ink": "yellow",
    }
    return {**doc, **changes}


@pytest.mark.parametrize(
    ("text", "expected"),
    [("**Blue.**", "blue"), ("  'Light   Blue' ", "light blue"), ("Ｙｅｌｌｏｗ", "yellow"), ("(b)", "b"), ("", "")],
)
def test_normalize_answer_strips_decoration_and_case(text, expected):
    assert normalize_answer(text) == expected


def test_an_answer_naming_a_choice_reads_as_that_choice():
    assert STROOP.read(_doc(), "Yellow.") == 3
    assert STROOP.read(_doc(), "**green**") == 0


@pytest.mark.parametrize("answer", ["yellow or green", "the ink is yellow", "blue", "", "3"])
def test_an_answer_that_is_not_exactly_one_choice_is_invalid_never_a_choice(answer):
    assert STROOP.read(_doc(), answer) is None
    scores = STROOP.score_gen(_doc(), answer)
    assert scores["acc"] == 0.0 and scores["invalid_rate"] == 1.0
    assert scores["word_error_share"] == (True, 0.0)  # an invalid reply is an error, not a word reading


def test_a_reply_without_answer_line_is_invalid():
    scores = STROOP.score_gen(_doc(), NO_ANSWER)
    assert scores["invalid_rate"] == 1.0 and scores["acc"] == 0.0


def test_gen_scores_of_a_correct_answer():
    assert STROOP.score_gen(_doc(), "yellow") == {
        "acc": 1.0, "acc_chance": 0.25, "acc_incongruent": 1.0, "invalid_rate": 0.0,
        "interference": (-1, 1.0), "facilitation": (0, 1.0), "congruency_effect": (-1, 1.0),
        "word_error_share": (False, 0.0),
    }


def test_mc_scores_pick_the_argmax_and_report_the_lure_margin():
    # log p: green -0.5 (the lure), pink -3, red -4, yellow -1.25 (gold): the model reads the word.
    scores = STROOP.score_mc(_doc(), [-0.5, -3.0, -4.0, -1.25])
    assert scores["acc"] == 0.0 and scores["acc_incongruent"] == 0.0
    assert scores["lure_margin"] == scores["lure_margin_incongruent"] == -0.75
    assert scores["word_error_share"] == (True, 1.0)
    # acc_norm divides by the choice's length in characters: green -0.1, pink -0.75, red -1.33, yellow -0.208.
    assert scores["acc_norm"] == 0.0
    assert STROOP.score_mc(_doc(), [-6.0, -3.0, -4.0, -1.25])["acc_norm"] == 1.0


def test_mc_without_a_lure_reports_no_margin():
    scores = STROOP.score_mc(_doc(condition="neutral", lure=-1), [-2.0, -1.0, -3.0, -0.5])
    assert "lure_margin" not in scores and scores["acc_neutral"] == 1.0


def test_difference_is_mean_of_side_a_minus_mean_of_side_b():
    # A: 1, 1, 0 -> 2/3; B: 0, 1 -> 1/2; neither side is ignored.
    items = [(1, 1.0), (1, 1.0), (1, 0.0), (-1, 0.0), (-1, 1.0), (0, 1.0)]
    assert agg.difference(items) == pytest.approx(2 / 3 - 1 / 2)
    assert math.isnan(agg.difference([(1, 1.0), (0, 0.0)]))


def test_conditional_mean_counts_only_included_items():
    assert agg.conditional_mean([(True, 1.0), (True, 0.0), (True, 1.0), (False, 1.0)]) == pytest.approx(2 / 3)
    assert math.isnan(agg.conditional_mean([(False, 1.0)]))


def test_pooled_rate_and_dprime_sum_counts_over_documents():
    assert agg.pooled_rate([(1, 4), (2, 4), (0, 0)]) == pytest.approx(3 / 8)
    assert math.isnan(agg.pooled_rate([(0, 0)]))
    # 7 hits of 8 signals, 2 false alarms of 16: H = 7.5/9, F = 2.5/17 (log-linear correction).
    from statistics import NormalDist

    z = NormalDist().inv_cdf
    assert agg.pooled_dprime([(3, 4, 1, 8), (4, 4, 1, 8)]) == pytest.approx(z(7.5 / 9) - z(2.5 / 17))


def test_unknown_probe_and_parameter_name_themselves():
    with pytest.raises(ValueError, match="Unknown probe 'strop'.*Did you mean: stroop"):
        get_probe("strop")
    with pytest.raises(ValueError, match="Unknown stroop parameter 'colors'.*Did you mean: colours"):
        STROOP.make_params({"colors": 4})


@pytest.mark.parametrize(("n", "seed", "param"), [(0, 0, "items"), (3, -1, "seed"), (2.5, 0, "items")])
def test_bad_run_parameters_name_themselves(n, seed, param):
    with pytest.raises(ValueError, match=f"'{param}'"):
        STROOP.generate(seed, n)


def test_document_i_depends_only_on_seed_and_i():
    assert STROOP.generate(7, 10)[4:] == STROOP.generate(7, 10)[4:]
    assert STROOP.generate(7, 10)[:5] == STROOP.generate(7, 5)
    assert STROOP.generate(7, 5) != STROOP.generate(8, 5)


def test_unknown_policy_names_itself():
    with pytest.raises(ValueError, match="Unknown probe policy 'perseverative'"):
        play(STROOP, "perseverative", STROOP.generate(0, 3))


def test_generated_task_yamls_are_up_to_date():
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "probe_yamls.py"), "--check"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("name", sorted(REGISTRY))
@pytest.mark.parametrize("form", ["mc", "gen"])
def test_every_probe_reports_exactly_its_declared_metrics(name, form):
    probe = get_probe(name)
    # Enough documents for every condition's lured items in either form (the towers' _mc form skips the
    # plan items, and Hanoi's first lured d7 item it asks is a count item, document 19).
    docs = probe.generate(0, 6 * len(probe.conditions) + 3)
    reported = set(play(probe, "optimal", docs, form)) | set(play(probe, "random", docs, form))
    assert reported == set(probe.metric_names(form))


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_probe_optimal_player_scores_one_and_random_player_meets_analytic_chance(name):
    probe = get_probe(name)
    docs = probe.generate(0, probe.default_items)
    for form in ("mc", "gen"):
        best = play(probe, "optimal", docs, form)
        assert best["acc"] == 1.0
        assert all(best[f"acc_{c}"] == 1.0 for c in probe.conditions)
        assert best.get("invalid_rate", 0.0) == 0.0
    rand = play(probe, "random", docs, "gen")
    chance = rand["acc_chance"]
    se = math.sqrt(chance * (1 - chance) / len(docs))
    assert abs(rand["acc"] - chance) < 3.5 * se
    # The same choices in both forms, on the documents both ask (the towers' _mc form has no plan items).
    both = [d for d in docs if probe.in_form(d, "mc")]
    assert play(probe, "random", docs, "mc")["acc"] == play(probe, "random", both, "gen")["acc"]


def test_mc_implicit_calibration_brier_score_from_the_softmax_of_the_log_likelihoods():
    # lls ln(0.5), ln(0.25), ln(0.125), ln(0.125): p = (0.5, 0.25, 0.125, 0.125); gold = 3 (yellow).
    lls = [math.log(0.5), math.log(0.25), math.log(0.125), math.log(0.125)]
    scores = STROOP.score_mc(_doc(), lls)
    # Brier = 0.5^2 + 0.25^2 + 0.125^2 + (0.125 - 1)^2 = 0.25 + 0.0625 + 0.015625 + 0.765625 = 1.09375
    assert scores["brier_score"] == pytest.approx(1.09375)
    assert scores["ece"] == (pytest.approx(0.5), 0.0)  # confidence in the chosen (wrong) answer


def test_ece_weights_each_bin_by_its_share_of_items():
    # Bin (0.9, 1.0]: confidences 0.95, 0.95, accuracy 1/2 -> |0.5 - 0.95| = 0.45, weight 2/4.
    # Bin (0.6, 0.7]: confidences 0.65, 0.65, accuracy 1 -> |1 - 0.65| = 0.35, weight 2/4.
    items = [(0.95, 1.0), (0.95, 0.0), (0.65, 1.0), (0.65, 1.0)]
    assert agg.ece(items) == pytest.approx(0.5 * 0.45 + 0.5 * 0.35)
    assert agg.ece([(0.0, 0.0), (1.0, 1.0)]) == 0.0  # the edges fall in the first and the last bin
    assert agg.ece([(0.7, 1.0)]) == pytest.approx(0.3)
    assert math.isnan(agg.ece([]))


@pytest.mark.parametrize(
    "lls",
    [[math.nan] * 4, [math.inf] * 4, [-math.inf] * 4, [-1.0, math.nan, -2.0, -3.0], [math.inf, -9.0, -9.0, -9.0]],
    ids=["all-nan", "all-inf", "all-minus-inf", "one-nan", "one-inf"],
)
def test_a_non_finite_log_likelihood_makes_the_mc_item_invalid_never_a_choice(lls):
    # gold 0: np.argmax of a NaN row is 0, so a NaN backend used to be "right" on every gold-0 item.
    scores = STROOP.score_mc(_doc(gold=0, lure=3), lls)
    assert scores["acc"] == scores["acc_norm"] == scores["acc_incongruent"] == 0.0
    assert scores["invalid_rate"] == 1.0 and scores["acc_chance"] == 0.25
    assert math.isnan(scores["brier_score"]) and math.isnan(scores["ece"][0]) and scores["ece"][1] == 0.0
    assert math.isnan(scores["lure_margin"]) and math.isnan(scores["lure_margin_incongruent"])
    assert scores["word_error_share"] == (True, 0.0)  # an error, but no reading of the word (as in _gen)


def test_a_finite_mc_item_is_valid():
    assert STROOP.score_mc(_doc(), [-0.5, -3.0, -4.0, -1.25])["invalid_rate"] == 0.0


def test_ece_counts_only_the_items_with_a_finite_confidence():
    # 4 items at confidence 0.05, all right: |1 - 0.05| = 0.95. Four NaN confidences beside them used
    # to count in N without falling in any bin: 4/8 * 0.95 = 0.475.
    right = [(0.05, 1.0)] * 4
    assert agg.ece(right + [(math.nan, 0.0)] * 4) == pytest.approx(0.95)
    # Bin (0.8, 0.9]: 0.9, 0.9 with accuracy 1/2 -> 2/3 * 0.4; bin (0.2, 0.3]: 0.3, wrong -> 1/3 * 0.3.
    mixed = [(0.9, 1.0), (0.9, 0.0), (0.3, 0.0), (math.nan, 0.0), (math.inf, 1.0)]
    assert agg.ece(mixed) == pytest.approx(2 / 3 * 0.4 + 1 / 3 * 0.3)
    assert math.isnan(agg.ece([(math.nan, 0.0)] * 4))  # undefined, not 0.0 (the best value)


def test_mc_metrics_of_a_partly_invalid_run_are_over_the_valid_items_and_its_invalid_rate_counts_the_rest():
    # Two valid items, p = (0.5, 0.25, 0.125, 0.125) with gold 3 (Brier 1.09375, conf 0.5, wrong) and
    # lls making gold certain (Brier 0, conf 1, right), then two NaN items.
    half = [math.log(0.5), math.log(0.25), math.log(0.125), math.log(0.125)]
    rows = [STROOP.score_mc(_doc(), half), STROOP.score_mc(_doc(), [-800.0, -800.0, -800.0, 0.0])]
    rows += [STROOP.score_mc(_doc(), [math.nan] * 4)] * 2
    out = aggregate(STROOP, rows)
    assert out["acc"] == 0.25 and out["invalid_rate"] == 0.5
    assert out["brier_score"] == pytest.approx(1.09375 / 2)
    assert out["ece"] == pytest.approx(0.5 * 0.5 + 0.5 * 0.0)  # bins (0.4, 0.5] wrong, (0.9, 1] right
    # log p(gold) - log p(lure, green): ln 0.125 - ln 0.5 = -ln 4, and 0 - (-800) = 800.
    assert out["lure_margin"] == out["lure_margin_incongruent"] == pytest.approx((800.0 - math.log(4)) / 2)
