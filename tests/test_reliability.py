"""Reliability statistics: every formula pinned on hand-built data (arithmetic in the comments), the reasons
given when a statistic cannot be computed, and the numbers through ``lm-eval-cog compare`` and ``report``."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from lm_eval_cog.reports.cli import main
from lm_eval_cog.reports.reliability import (
    SeedScore,
    odd_even,
    seed_agreement,
    seed_agreement_across_models,
    spearman_brown,
    split_half_across_models,
    split_half_consistency,
    unit_values,
)
from reports_fixtures import write_results

NAN = math.nan


def reject_nan(name: str) -> None:
    raise AssertionError(f"non-strict JSON constant {name}")


# ---------------------------------------------------------------- Spearman-Brown


def test_spearman_brown_doubles_and_triples_the_test_length():
    # 2 * 0.6 / (1 + 0.6) = 1.2 / 1.6 = 0.75; three times as long: 3 * 0.5 / (1 + 2 * 0.5) = 1.5 / 2 = 0.75
    assert spearman_brown(0.6) == pytest.approx(0.75)
    assert spearman_brown(0.5, factor=3) == pytest.approx(0.75)
    assert spearman_brown(0.0) == 0.0 and spearman_brown(1.0) == 1.0
    # r = -1: 2 * -1 / (1 - 1) has no value
    assert math.isnan(spearman_brown(-1.0))


# ---------------------------------------------------------------- per-unit values


def test_unit_values_keep_the_headline_filter_and_skip_undefined_values():
    samples = [
        {"doc_id": 0, "filter": "strict", "exact_match": 1.0},
        {"doc_id": 0, "filter": "flexible", "exact_match": 0.0},  # another filter: not the headline's
        {"doc_id": 1, "filter": "strict", "exact_match": NAN},  # undefined
        {"doc_id": 2, "filter": "strict", "exact_match": None},  # null
        {"doc_id": 3, "filter": "strict"},  # missing
        {"doc_id": 4, "filter": "strict", "exact_match": [0, 1.0]},  # an aggregation's pair, not a value
        {"doc_id": 5, "filter": "strict", "exact_match": True},  # a flag, not a score
        {"doc_id": 6, "filter": "strict", "exact_match": 0.5},
    ]
    units = unit_values(samples, "exact_match,strict")
    assert units.values == {0: 1.0, 6: 0.5}
    assert units.undefined == 5


def test_odd_even_halves_follow_doc_id_order_not_file_order():
    assert odd_even([5, 0, 3, 1, 10, 2]) == ([0, 2, 5], [1, 3, 10])


# ---------------------------------------------------------------- split-half reliability across models

# 4 models x 4 units (doc_ids 0-3); odd half = units 1 and 3 in doc_id order (doc_ids 0, 2), even = doc_ids 1, 3.
FOUR = {
    "A": {0: 8, 1: 6, 2: 10, 3: 8},
    "B": {0: 6, 1: 6, 2: 4, 3: 6},
    "C": {0: 2, 1: 4, 2: 4, 3: 2},
    "D": {0: 1, 1: 0, 2: 3, 3: 2},
}


def test_split_half_across_models_odd_even_matches_the_hand_computation():
    # Half means: odd x = [9, 5, 3, 2] (mean 4.75), even y = [7, 6, 3, 1] (mean 4.25).
    # dx = [4.25, 0.25, -1.75, -2.75], dy = [2.75, 1.75, -1.25, -3.25]
    # Sxy = 11.6875 + 0.4375 + 2.1875 + 8.9375 = 23.25; Sxx = 28.75; Syy = 22.75
    # r = 23.25 / sqrt(28.75 * 22.75) = 23.25 / 25.5746 = 0.9091; r_SB = 2 * 0.9091 / 1.9091 = 0.9524
    result, reason = split_half_across_models(FOUR)
    assert reason is None
    assert result.models == ("A", "B", "C", "D") and result.n_units == 4
    assert result.odd_even_r == pytest.approx(0.9091, abs=1e-4)
    assert result.odd_even_sb == pytest.approx(0.9524, abs=1e-4)
    assert "0.95" in result.interpretation and "high" in result.interpretation


def test_split_half_random_splits_of_four_units_are_all_three_splits_averaged():
    # With 4 units there are 3 splits (unit 1 with 2, 3 or 4), so every one is used, not random ones:
    #   {1,2}|{3,4}: x = [7, 6, 3, 0.5], y = [9, 5, 3, 2.5]; Sxy = 22.8125, Sxx = Syy = 26.1875
    #                r = 365/419 = 0.8711, r_SB = 730/784 = 0.9311
    #   {1,3}|{2,4}: the odd/even split above, r_SB = 0.9524
    #   {1,4}|{2,3}: x = [8, 6, 2, 1.5], y = [8, 5, 4, 1.5]; Sxy = 23.3125, Sxx = 29.6875, Syy = 21.6875
    #                r = 23.3125 / 25.3742 = 0.9187, r_SB = 0.9577
    # mean = (0.9311 + 0.9524 + 0.9577) / 3 = 0.9471
    # percentiles (linear, positions 0.05 and 1.95 of the sorted three):
    #   2.5 %: 0.9311 + 0.05 * (0.9524 - 0.9311) = 0.9322;  97.5 %: 0.9524 + 0.95 * (0.9577 - 0.9524) = 0.9574
    result, _ = split_half_across_models(FOUR)
    assert result.exhaustive and result.splits == 3
    assert result.random_mean_sb == pytest.approx(0.9471, abs=1e-4)
    assert result.random_low_sb == pytest.approx(0.9322, abs=1e-4)
    assert result.random_high_sb == pytest.approx(0.9574, abs=1e-4)


def test_split_half_uses_only_units_every_model_has_and_is_deterministic():
    # Unit 9 only for A and an undefined unit left out upstream: the shared units are still 0-3.
    values = {m: dict(row) for m, row in FOUR.items()}
    values["A"][9] = 100.0
    result, _ = split_half_across_models(values)
    assert result.n_units == 4 and result.odd_even_sb == pytest.approx(0.9524, abs=1e-4)
    # 12 units: 462 splits would be listed; with n_random=50 random ones are drawn, the same every time.
    many = {m: {u: float((i + 1) * (u % 5) + u) for u in range(12)} for i, m in enumerate("ABCD")}
    one, _ = split_half_across_models(many, n_random=50)
    two, _ = split_half_across_models(many, n_random=50)
    assert not one.exhaustive and one.splits == 50 and one == two


@pytest.mark.parametrize(
    ("values", "needle"),
    [
        ({"A": FOUR["A"], "B": FOUR["B"]}, "a coefficient across models needs 3"),
        ({m: {u: v for u, v in row.items() if u < 3} for m, row in FOUR.items()}, "split halves need at least 4"),
        # odd half (doc_ids 0, 2) has mean 5 for every model: no spread to correlate
        ({"A": {0: 5, 1: 1, 2: 5, 3: 2}, "B": {0: 4, 1: 2, 2: 6, 3: 3}, "C": {0: 6, 1: 5, 2: 4, 3: 9}},
         "same odd-half score"),
    ],
)
def test_split_half_across_models_gives_a_reason_when_it_cannot_be_computed(values, needle):
    result, reason = split_half_across_models(values)
    assert result is None and needle in reason


# ---------------------------------------------------------------- split-half consistency within one model


def test_consistency_check_z_matches_the_hand_computation_and_says_halves_differ():
    # Sample file order shuffled; doc 2 (NaN) and doc 5 (null) are skipped before splitting, so the units in
    # doc_id order are docs 0, 1, 3, 4, 6, 7 with values 0.9, 0.5, 0.7, 0.6, 0.8, 0.7:
    #   odd (docs 0, 3, 6) = [0.9, 0.7, 0.8]: mean 0.8, SD 0.1, SE 0.1 / sqrt(3) = 0.05774
    #   even (docs 1, 4, 7) = [0.5, 0.6, 0.7]: mean 0.6, SD 0.1, SE 0.05774
    #   SE of the difference = sqrt(2) * 0.05774 = 0.08165; z = 0.2 / 0.08165 = sqrt(6) = 2.4495
    rows = [(3, 0.7), (0, 0.9), (5, None), (1, 0.5), (2, NAN), (7, 0.7), (6, 0.8), (4, 0.6)]
    units = unit_values([{"doc_id": d, "acc": v} for d, v in rows], "acc,none")
    result, reason = split_half_consistency(units.values)
    assert reason is None and units.undefined == 2
    assert (result.n_odd, result.n_even) == (3, 3)
    assert result.odd_mean == pytest.approx(0.8) and result.even_mean == pytest.approx(0.6)
    assert result.se_odd == pytest.approx(0.05774, abs=1e-5) and result.se == pytest.approx(0.08165, abs=1e-5)
    assert result.z == pytest.approx(2.4495, abs=1e-4)
    assert not result.agree
    assert result.interpretation == "halves differ (|z| = 2.45): the score depends on which items were drawn"


def test_consistency_check_says_halves_agree_below_z_two():
    # odd = [0.8, 0.7, 0.9] (mean 0.8, SD 0.1), even = [0.7, 0.8, 0.6] (mean 0.7, SD 0.1):
    # z = 0.1 / 0.08165 = sqrt(6) / 2 = 1.2247
    result, _ = split_half_consistency(dict(enumerate([0.8, 0.7, 0.7, 0.8, 0.9, 0.6])))
    assert result.z == pytest.approx(1.2247, abs=1e-4)
    assert result.agree and result.interpretation == "halves agree (|z| = 1.22 < 2)"


def test_consistency_check_without_spread_in_either_half():
    same, _ = split_half_consistency({0: 1.0, 1: 1.0, 2: 1.0, 3: 1.0})
    assert same.z == 0.0 and same.agree and "every unit has the same value" in same.interpretation
    apart, _ = split_half_consistency({0: 1.0, 1: 0.0, 2: 1.0, 3: 0.0})
    assert apart.z is None and not apart.agree and apart.difference == 1.0


def test_consistency_check_gives_a_reason_below_four_units():
    result, reason = split_half_consistency({0: 1.0, 1: 0.0, 2: 1.0})
    assert result is None and reason == "3 unit(s) with a defined value: a split-half check needs at least 4"


# ---------------------------------------------------------------- seed-to-seed agreement


def test_seed_homogeneity_two_seeds_that_disagree():
    # x = [0.30, 0.50], SE 0.05 each: w = 1 / 0.0025 = 400 each, weighted mean 0.40,
    # Q = 400 * 0.1^2 + 400 * 0.1^2 = 8, df = 1: p = erfc(sqrt(Q / 2)) = erfc(2) = 0.004678
    result, reason = seed_agreement([SeedScore(1, 0.30, 0.05), SeedScore(2, 0.50, 0.05)])
    assert reason is None
    assert result.weighted_mean == pytest.approx(0.40)
    assert result.q == pytest.approx(8.0) and result.df == 1
    assert result.p == pytest.approx(math.erfc(2.0)) and result.p == pytest.approx(0.004678, abs=1e-6)
    assert not result.agree
    assert result.interpretation == "seeds disagree beyond sampling error (p = 0.00468)"


def test_seed_homogeneity_three_seeds_that_agree():
    # x = [10, 12, 14], SE = [1, 2, 2]: w = [1, 0.25, 0.25], weighted mean = (10 + 3 + 3.5) / 1.5 = 11,
    # Q = 1 * 1 + 0.25 * 1 + 0.25 * 9 = 3.5, df = 2: p = exp(-Q / 2) = exp(-1.75) = 0.1738;
    # spread: mean 12, SD 2, range 4
    result, _ = seed_agreement([SeedScore(7, 10.0, 1.0), SeedScore(8, 12.0, 2.0), SeedScore(9, 14.0, 2.0)])
    assert result.weighted_mean == pytest.approx(11.0)
    assert result.q == pytest.approx(3.5) and result.df == 2
    assert result.p == pytest.approx(math.exp(-1.75)) and result.p == pytest.approx(0.1738, abs=1e-4)
    assert (result.mean, result.sd, result.range) == pytest.approx((12.0, 2.0, 4.0))
    assert result.agree and result.interpretation == "seeds agree within their standard errors (p = 0.174)"


def test_seed_homogeneity_needs_two_seeds_and_standard_errors():
    result, reason = seed_agreement([SeedScore(1, 0.5, 0.1)])
    assert result is None and "needs runs with two or more seeds" in reason
    untested, reason = seed_agreement([SeedScore(1, 0.5, 0.1), SeedScore(2, 0.7, None)])
    assert reason is None and untested.q is None and untested.p is None
    assert untested.sd == pytest.approx(math.sqrt(0.02))  # two values 0.2 apart: SD = 0.2 / sqrt(2)
    assert untested.interpretation == "no homogeneity test: seed(s) 2 have no positive standard error"


def test_seed_agreement_across_models_is_pearson_r_between_seed_runs():
    # seed 1: x = [0.2, 0.5, 0.8] (mean 0.5), seed 2: y = [0.3, 0.4, 0.9] (mean 0.5333)
    # dx = [-0.3, 0, 0.3], dy = [-0.2333, -0.1333, 0.3667]; Sxy = 0.07 + 0 + 0.11 = 0.18, Sxx = 0.18,
    # Syy = 0.054444 + 0.017778 + 0.134444 = 0.206667; r = 0.18 / sqrt(0.18 * 0.206667) = 0.9333
    # Model D ran one seed only: it does not count.
    scores = {"A": {1: 0.2, 2: 0.3}, "B": {1: 0.5, 2: 0.4}, "C": {1: 0.8, 2: 0.9}, "D": {1: 0.1}}
    result, reason = seed_agreement_across_models(scores)
    assert reason is None and result.n_models == 3 and len(result.pairs) == 1
    assert result.mean_r == pytest.approx(0.9333, abs=1e-4)
    assert result.interpretation.startswith("seed-to-seed r = 0.93 over 1 seed pair(s): high")


def test_seed_agreement_across_models_gives_a_reason_below_three_models():
    result, reason = seed_agreement_across_models({"A": {1: 0.2, 2: 0.3}, "B": {1: 0.5, 2: 0.4}, "C": {1: 0.8}})
    assert result is None
    assert reason == "2 model(s) run with two or more seeds: seed agreement across models needs 3"


# ---------------------------------------------------------------- through the command line

STAMPS = {1: "2025-01-01T00-00-00.000001", 2: "2025-01-02T00-00-00.000001"}
# Seed 2 (the latest run, whose scores the comparison shows) has the FOUR units, as accuracies (/10: a
# linear change that leaves every r as it is); its scores are the unit means 0.8, 0.55, 0.3, 0.15.
# E sits at the mean of A-D in both seeds (0.425 and 0.45), so it adds nothing to the sums of the seed r.
SEED_1_SCORES = {"A": 0.7, "B": 0.6, "C": 0.2, "D": 0.2, "E": 0.425}


def write_model(root: Path, name: str, *, with_samples: bool = True) -> Path:
    folder = root / name
    for seed, stamp in STAMPS.items():
        units = FOUR.get(name, {0: 4.5, 1: 4.5, 2: 4.5, 3: 4.5})
        score = SEED_1_SCORES[name] if seed == 1 else sum(units.values()) / 40
        samples = None
        if seed == 2 and with_samples:
            samples = {"probe_x": [{"doc_id": d, "filter": "none", "acc": v / 10} for d, v in units.items()]}
        write_results(
            folder,
            {"probe_x": {"alias": "probe_x", "acc,none": score, "acc_stderr,none": 0.1}},
            model_args=f"pretrained=org/{name}",
            stamp=stamp,
            configs={"probe_x": {"task": "probe_x", "metadata": {"seed": seed, "version": 1.0}}},
            higher_is_better={"probe_x": {"acc": True}},
            n_samples={"probe_x": 4},
            samples=samples,
        )
    return folder


def test_compare_and_report_show_split_half_and_seed_reliability(tmp_path, capsys):
    root = tmp_path / "in"
    for name in "ABCD":
        write_model(root, name)
    write_model(root, "E", with_samples=False)  # scored, but no samples: named in a note, escaped
    labels = ["A", "B", "C", "D", "E<b>|x"]
    argv = ["compare", *(root / n for n in "ABCDE"), "-o", tmp_path / "c"]
    for label in labels:
        argv += ["--label", label]
    assert main([str(a) for a in argv]) == 0, capsys.readouterr().err

    data = json.loads((tmp_path / "c" / "comparison.json").read_text(encoding="utf-8"), parse_constant=reject_nan)
    (rel,) = data["reliability"]
    assert rel["task"] == "probe_x" and rel["metric"] == "acc,none"
    split = rel["split_half"]
    assert split["models"] == ["A", "B", "C", "D"]  # E has no samples
    assert split["odd_even_sb"] == pytest.approx(0.9524, abs=1e-4)  # the hand value above
    assert split["random_mean_sb"] == pytest.approx(0.9471, abs=1e-4)
    # Seed r across A-E: seed 1 = [0.7, 0.6, 0.2, 0.2, 0.425] (mean 0.425), seed 2 = [0.8, 0.55, 0.3, 0.15, 0.45]
    # (mean 0.45): dx = [.275, .175, -.225, -.225, 0],
    # dy = [.35, .1, -.15, -.3, 0]; Sxy = 0.215, Sxx = 0.2075, Syy = 0.245; r = 0.215 / 0.22547 = 0.9536
    assert rel["seed_correlation"]["mean_r"] == pytest.approx(0.9536, abs=1e-4)
    # A: seeds 0.7 and 0.8, SE 0.1 each: Q = 100 * 0.05^2 * 2 = 0.5, p = erfc(0.5) = 0.4795
    assert rel["seed_tests"]["A"]["q"] == pytest.approx(0.5)
    assert rel["seed_tests"]["A"]["p"] == pytest.approx(math.erfc(0.5))
    assert "no samples logged for E<b>|x" in rel["notes"]

    md = (tmp_path / "c" / "comparison.md").read_text(encoding="utf-8")
    assert "### Reliability" in md
    row = next(line for line in md.splitlines() if line.startswith("| probe_x | acc,none | 4 | 4 |"))
    assert "| 0.909 | 0.952 | 0.947 | 0.932 to 0.957 | 0.954 | seeds agree for 5 of 5 model(s) tested |" in row
    assert r"E\<b\>\|x" in row and "E<b>" not in md
    page = (tmp_path / "c" / "index.html").read_text(encoding="utf-8")
    assert "<h3>Reliability</h3>" in page and "E&lt;b&gt;|x" in page and "E<b>" not in page
    assert re.search(r'<td class="num" data-value="0\.95238786\d*">0\.952</td>', page)  # sorted as a number

    # report on model A: halves of [0.8, 0.6, 1.0, 0.8]: odd [0.8, 1.0] (mean 0.9, SE 0.1), even [0.6, 0.8]
    # (mean 0.7, SE 0.1): z = 0.2 / sqrt(0.02) = sqrt(2) = 1.41; seeds 0.7 and 0.8 agree (p = 0.4795)
    assert main(["report", str(root / "A"), "-o", str(tmp_path / "r")]) == 0, capsys.readouterr().err
    report = (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    assert "halves agree (z = 1.41); 2 seeds agree (p = 0.48)" in report
    assert "#### Reliability" in report and "z = 1.41: halves agree (\\|z\\| = 1.41 \\< 2)" in report
    assert "Q = 0.5 (df 1): seeds agree within their standard errors (p = 0.48)" in report
    page = (tmp_path / "r" / "index.html").read_text(encoding="utf-8")
    assert "<h4>Reliability</h4>" in page and "halves agree (z = 1.41)" in page
