"""Cross-model comparison: Kendall tau-b table, corrections, power threshold, discriminative power, files."""

from __future__ import annotations

import json
import math
import re

import pytest
from scipy import stats

from lm_eval_cog.reports.compare import (
    _adjust,
    _exact_p,
    compare,
    discriminative_power,
    kendall_table,
    min_significant_tau,
    write_comparison,
)
from lm_eval_cog.reports.errors import ReportInputError

NAN = math.nan


def by_pair(taus):
    return {(t.task_a, t.task_b): t for t in taus}


# ---------------------------------------------------------------- Kendall tau-b


def test_tau_b_with_ties_in_both_tasks_matches_the_hand_count_and_scipy():
    # x = [1, 2, 2, 3], y = [1, 3, 2, 2]; the six model pairs:
    #   (1,2): x up, y up -> concordant    (1,3): up, up -> concordant    (1,4): up, up -> concordant
    #   (2,3): x tied, y down -> tied in x only (T_x)   (2,4): x up, y down -> discordant
    #   (3,4): x up, y tied -> tied in y only (T_y)
    # P = 3, Q = 1, T_x = 1, T_y = 1: tau_b = (3 - 1) / sqrt((3 + 1 + 1)(3 + 1 + 1)) = 2 / 5 = 0.4
    matrix = {"m1": {"X": 1, "Y": 1}, "m2": {"X": 2, "Y": 3}, "m3": {"X": 2, "Y": 2}, "m4": {"X": 3, "Y": 2}}
    (t,) = kendall_table(matrix)
    assert (t.task_a, t.task_b, t.n) == ("X", "Y", 4)
    assert t.tau == pytest.approx(0.4)
    expected = stats.kendalltau([1, 2, 2, 3], [1, 3, 2, 2], variant="b")
    assert t.tau == pytest.approx(expected.statistic)
    assert t.p == pytest.approx(expected.pvalue)
    assert t.p_adjusted is None  # no correction by default, as MO


def test_pairs_are_pairwise_complete_and_sorted_by_task_name():
    # m4 has no B (missing) and a NaN C: A-B uses m1..m3 only: x = [1, 2, 3], y = [1, 3, 2]
    #   (1,2) concordant, (1,3) concordant, (2,3) discordant -> tau = (2 - 1) / 3 = 1/3, n = 3;
    #   exact p for n = 3, 1 discordant pair: permutations of 3 with <= 1 inversion = 1 + 2 = 3 of 6,
    #   two-sided p = 2 * 3 / 6 = 1.0
    matrix = {
        "m1": {"C": 4, "A": 1, "B": 1},
        "m2": {"C": 3, "A": 2, "B": 3},
        "m3": {"C": 2, "A": 3, "B": 2},
        "m4": {"C": NAN, "A": 4},
    }
    taus = kendall_table(matrix)
    assert [(t.task_a, t.task_b) for t in taus] == [("A", "B"), ("A", "C"), ("B", "C")]
    ab = by_pair(taus)[("A", "B")]
    assert ab.n == 3
    assert ab.tau == pytest.approx(1 / 3)
    assert ab.p == pytest.approx(1.0)
    # A-C: m1..m3, A rises while C falls: every pair discordant -> tau = -1, n = 3
    assert by_pair(taus)[("A", "C")].n == 3
    assert by_pair(taus)[("A", "C")].tau == pytest.approx(-1.0)


def test_too_few_models_or_a_constant_task_gives_nan_and_a_warning_naming_the_pair():
    matrix = {
        "m1": {"A": 1, "B": 5, "K": 7, "R": 1},
        "m2": {"A": 2, "B": 6, "K": 7},
        "m3": {"A": 3, "B": 4, "K": 7, "R": 2},
    }
    comparison = compare(matrix)
    taus = by_pair(comparison.taus)
    assert math.isnan(taus[("A", "K")].tau) and math.isnan(taus[("A", "K")].p)
    assert math.isnan(taus[("A", "R")].tau) and taus[("A", "R")].n == 2
    assert math.isfinite(taus[("A", "B")].tau)
    # One line per cause, naming every pair it covers.
    (constant,) = [w for w in comparison.warnings if "K has the same score" in w]
    # (K vs R is undefined for the other cause: only m1 and m3 have R)
    assert "2 pair(s)" in constant and "A vs K" in constant and "B vs K" in constant
    (too_few,) = [w for w in comparison.warnings if "fewer than 3 models" in w]
    assert "3 pair(s)" in too_few and all(f"{pair} (n=2)" in too_few for pair in ("A vs R", "B vs R", "K vs R"))
    assert not any("A vs B" in w for w in comparison.warnings)


def test_two_models_give_one_warning_not_one_per_pair():
    matrix = {"m1": {"A": 1, "B": 2, "C": 3}, "m2": {"A": 2, "B": 1, "C": 4}}
    comparison = compare(matrix)
    assert all(math.isnan(t.tau) for t in comparison.taus) and len(comparison.taus) == 3
    assert [w for w in comparison.warnings if "undefined" in w] == [
        "only 2 model(s): Kendall tau needs at least 3, so every tau is undefined"
    ]


# Five models; A and C rank them identically, B swaps the last two. Exact p without ties, n = 5
# (5! = 120 orderings; Mahonian counts of orderings with 0, 1 inversions: 1, 4):
#   A-C: 0 discordant pairs -> tau = 1,   p = 2 * 1/120 = 1/60
#   A-B, B-C: 1 discordant  -> tau = 0.8, p = 2 * (1 + 4)/120 = 1/12
# D is constant, so its three pairs are NaN and must not count in the family (m = 3, not 6).
FIVE = {
    "m1": {"A": 1, "B": 1, "C": 1, "D": 0},
    "m2": {"A": 2, "B": 2, "C": 2, "D": 0},
    "m3": {"A": 3, "B": 3, "C": 3, "D": 0},
    "m4": {"A": 4, "B": 5, "C": 4, "D": 0},
    "m5": {"A": 5, "B": 4, "C": 5, "D": 0},
}


def test_exact_p_values_of_the_five_model_example():
    taus = by_pair(kendall_table(FIVE))
    assert taus[("A", "C")].p == pytest.approx(1 / 60)
    assert taus[("A", "B")].tau == pytest.approx(0.8)
    assert taus[("A", "B")].p == pytest.approx(1 / 12)
    assert taus[("B", "C")].p == pytest.approx(1 / 12)


def test_holm_adjustment_over_the_defined_pairs_only():
    # Holm, m = 3, p sorted: 1/60, 1/12, 1/12
    #   1/60 * 3 = 0.05;  1/12 * 2 = 1/6;  1/12 * 1 = 1/12 -> running max 1/6
    # (counting the three NaN pairs, m = 6, A-C would be 0.1 instead of 0.05)
    taus = by_pair(kendall_table(FIVE, correction="holm"))
    assert taus[("A", "C")].p_adjusted == pytest.approx(0.05)
    assert taus[("A", "B")].p_adjusted == pytest.approx(1 / 6)
    assert taus[("B", "C")].p_adjusted == pytest.approx(1 / 6)
    assert math.isnan(taus[("A", "D")].p_adjusted)


def test_benjamini_hochberg_adjustment_over_the_defined_pairs_only():
    # BH, m = 3, p * m / rank: 1/60 * 3/1 = 0.05; 1/12 * 3/2 = 0.125; 1/12 * 3/3 = 1/12;
    # running minimum from the largest rank down: 1/12, min(0.125, 1/12) = 1/12, 0.05
    taus = by_pair(kendall_table(FIVE, correction="bh"))
    assert taus[("A", "C")].p_adjusted == pytest.approx(0.05)
    assert taus[("A", "B")].p_adjusted == pytest.approx(1 / 12)
    assert taus[("B", "C")].p_adjusted == pytest.approx(1 / 12)
    assert math.isnan(taus[("C", "D")].p_adjusted)


def test_adjustments_on_a_hand_example_with_a_nan():
    p = [0.01, 0.04, NAN, 0.03, 0.005]
    # Holm, m = 4 (NaN excluded), sorted 0.005, 0.01, 0.03, 0.04:
    #   0.005*4 = 0.02; 0.01*3 = 0.03; 0.03*2 = 0.06; 0.04*1 = 0.04 -> running max 0.06
    holm = _adjust(p, "holm")
    assert holm[:2] == pytest.approx([0.03, 0.06]) and holm[3:] == pytest.approx([0.06, 0.02])
    assert math.isnan(holm[2])
    # BH: 0.005*4/1 = 0.02; 0.01*4/2 = 0.02; 0.03*4/3 = 0.04; 0.04*4/4 = 0.04 (already monotone)
    bh = _adjust(p, "bh")
    assert bh[:2] == pytest.approx([0.02, 0.04]) and bh[3:] == pytest.approx([0.04, 0.02])
    assert math.isnan(bh[2])
    assert _adjust(p, None) == [None] * 5


def test_holm_caps_at_one():
    # 0.4 * 3 = 1.2 -> 1; 0.5 * 2 = 1.0; 0.9 * 1 = 0.9 -> running max 1
    assert _adjust([0.5, 0.4, 0.9], "holm") == pytest.approx([1.0, 1.0, 1.0])


def test_unknown_correction_is_refused():
    with pytest.raises(ReportInputError, match="bonferroni"):
        kendall_table(FIVE, correction="bonferroni")


# ---------------------------------------------------------------- power


def test_eight_models_need_tau_0643_for_significance():
    # 8 models, 28 pairs: tau = 1 - 4d/56. d = 5 -> 0.643 with p = 0.031; d = 6 -> 0.571 with p = 0.061
    # (the exact null quoted in the research note, section 1.4)
    assert _exact_p(8, 5) == pytest.approx(0.0312, abs=5e-4)
    assert _exact_p(8, 6) == pytest.approx(0.0610, abs=5e-4)
    assert round(min_significant_tau(8), 3) == 0.643


def test_threshold_at_the_edges_of_power():
    # n = 4: even tau = 1 has p = 2/24 = 0.083 -> nothing reaches 0.05
    assert min_significant_tau(4) is None
    # n = 5: tau = 1 has p = 1/60 < 0.05, tau = 0.8 has p = 1/12 -> 1.0
    assert min_significant_tau(5) == pytest.approx(1.0)
    # n = 5 at alpha = 0.1: tau = 0.8 (p = 1/12 < 0.1) qualifies, tau = 0.6 (p = 2*(1+4+9)/120 = 0.233) not
    assert min_significant_tau(5, alpha=0.1) == pytest.approx(0.8)
    assert min_significant_tau(1) is None
    # p must be strictly below alpha: at alpha = 1/12, tau = 0.8 (p = 1/12 exactly) does not qualify
    assert _exact_p(5, 1) == 1 / 12
    assert min_significant_tau(5, alpha=1 / 12) == pytest.approx(1.0)


def test_few_models_warn_with_the_threshold():
    eight = {f"m{i}": {"A": i, "B": i % 3} for i in range(8)}
    assert "only 8 models: |tau| >= 0.643 needed for p < 0.05" in "\n".join(compare(eight).warnings)
    four = {f"m{i}": {"A": i, "B": i % 3} for i in range(4)}
    assert any(w.startswith("too few models for any significance") for w in compare(four).warnings)
    twelve = {f"m{i}": {"A": i, "B": i % 5} for i in range(12)}
    assert not any("models" in w and "tau" in w for w in compare(twelve).warnings)


# ---------------------------------------------------------------- discriminative power and spread


PAIR = {
    "small": {"easy": 0.5, "zero": 0.0, "neg": -1.0, "same": 0.3, "only_small": 0.9},
    "large": {"easy": 0.25, "zero": 0.4, "neg": 2.0, "same": 0.3, "only_large": 0.1},
}


def test_discriminative_power_per_task():
    points = {p.task: p for p in discriminative_power(PAIR, "small", "large")}
    assert set(points) == {"easy", "zero", "neg", "same"}  # tasks scored by only one model are left out
    easy = points["easy"]
    # b/a = 0.25/0.5 = 0.5; |ln 0.5| = 0.6931; |0.5 - 0.25| / sqrt(2) = 0.17678
    assert (easy.a, easy.b) == (0.5, 0.25)
    assert easy.ratio == pytest.approx(0.5)
    assert easy.abs_log_ratio == pytest.approx(0.693147, abs=1e-6)
    assert easy.diagonal_distance == pytest.approx(0.176777, abs=1e-6)
    # a = 0: ratio undefined (MO's Wordle), no log; distance 0.4 / sqrt(2) = 0.28284
    assert points["zero"].ratio is None and points["zero"].abs_log_ratio is None
    assert points["zero"].diagonal_distance == pytest.approx(0.282843, abs=1e-6)
    # a negative score: ratio -2 is defined, its log is not; distance 3 / sqrt(2) = 2.12132
    assert points["neg"].ratio == pytest.approx(-2.0) and points["neg"].abs_log_ratio is None
    assert points["same"].ratio == 1.0 and points["same"].abs_log_ratio == 0.0


def test_discriminative_power_is_sorted_farthest_from_the_diagonal_first():
    # distances: neg 2.121, zero 0.283, easy 0.177, same 0
    assert [p.task for p in discriminative_power(PAIR, "small", "large")] == ["neg", "zero", "easy", "same"]


def test_unknown_model_lists_the_models():
    with pytest.raises(ReportInputError, match="small, large"):
        discriminative_power(PAIR, "small", "huge")
    with pytest.raises(ReportInputError, match="huge"):
        compare(PAIR, pairs=[("huge", "small")])


def test_spread_per_task_uses_the_sample_sd():
    matrix = {"a": {"T": 1.0}, "b": {"T": 2.0}, "c": {"T": 4.0}, "d": {"T": NAN}, "e": {"U": 3.0}}
    spread = compare(matrix).spread
    # T over a, b, c: mean 7/3, squared deviations 16/9 + 1/9 + 25/9 = 42/9, / (3 - 1) = 7/3, SD = 1.52753
    assert spread["T"]["n"] == 3
    assert (spread["T"]["min"], spread["T"]["max"], spread["T"]["range"]) == (1.0, 4.0, 3.0)
    assert spread["T"]["sd"] == pytest.approx(math.sqrt(7 / 3))
    assert spread["U"]["n"] == 1 and math.isnan(spread["U"]["sd"]) and spread["U"]["range"] == 0.0


# ---------------------------------------------------------------- files


def reject_nan(token):
    raise AssertionError(f"non-strict JSON token {token}")


MIXED = {
    "model<1>": {"A": 0.1, "B": 0.5, "C": 0.3, "K": 1.0},
    "model 2": {"A": 0.2, "B": 0.4, "C": NAN, "K": 1.0},
    "model,3": {"A": 0.3, "B": 0.0, "C": 0.2, "K": 1.0},
    "model4": {"A": 0.4, "B": 0.1, "C": 0.1, "K": 1.0},
}


def test_files_are_strict_deterministic_and_complete(tmp_path):
    comparison = compare(MIXED, correction="holm", pairs=[("model<1>", "model 2")])
    write_comparison(comparison, tmp_path / "one")
    write_comparison(compare(MIXED, correction="holm", pairs=[("model<1>", "model 2")]), tmp_path / "two")
    for name in ("matrix.csv", "kendall.csv", "comparison.json"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()
    data = json.loads((tmp_path / "one" / "comparison.json").read_text(), parse_constant=reject_nan)
    assert data["matrix"]["model 2"]["C"] is None
    ak = next(t for t in data["kendall"] if (t["task_a"], t["task_b"]) == ("A", "K"))
    assert ak["tau"] is None and ak["p"] is None and ak["p_adjusted"] is None
    assert data["correction"] == "holm" and data["pairs"][0]["model_a"] == "model<1>"
    assert data["warnings"] == comparison.warnings
    matrix_csv = (tmp_path / "one" / "matrix.csv").read_text().splitlines()
    assert matrix_csv[0] == "model,A,B,C,K"
    assert matrix_csv[2] == "model 2,0.2,0.4,,1.0"  # missing cell left empty
    assert matrix_csv[3].startswith('"model,3",')  # CSV quoting of a comma in a label
    kendall_csv = (tmp_path / "one" / "kendall.csv").read_text().splitlines()
    assert kendall_csv[0] == "task_a,task_b,n,tau,p,p_adjusted"
    assert len(kendall_csv) == 1 + 6  # 4 tasks -> 6 pairs


def test_figures_exist_and_are_not_empty(tmp_path):
    _, _, figures = write_comparison(compare(MIXED, pairs=[("model<1>", "model 2"), ("model4", "model,3")]), tmp_path)
    assert figures[0].stem == "kendall_heatmap"
    assert len(figures) == 3
    for fig in figures:
        assert fig.png.parent == tmp_path / "figures"
        assert fig.png.stat().st_size > 1000 and fig.svg.stat().st_size > 1000
        assert re.fullmatch(r"[A-Za-z0-9._-]+", fig.stem)


def test_html_fragment_is_escaped_sortable_and_shows_warnings_first(tmp_path):
    fragment, markdown, _ = write_comparison(compare(MIXED, pairs=[("model<1>", "model 2")]), tmp_path)
    assert "model<1>" not in fragment and "model&lt;1&gt;" in fragment
    assert fragment.count('class="sortable"') >= 4  # scores, spread, kendall, pair
    assert '<td class="num" data-value="0.1">0.1</td>' in fragment
    assert 'href="figures/kendall_heatmap.svg"' in fragment
    warnings_at = fragment.index('class="warnings"')
    assert warnings_at < fragment.index("<table")
    assert "too few models for any significance" in fragment
    assert "data:image/png;base64," in fragment
    assert "| model | A | B | C | K |" in markdown
    assert "too few models for any significance" in markdown


def test_an_undefined_ratio_keeps_its_column_numeric(tmp_path):
    # The page sorts a column by number only if every filled cell has data-value or shows an em dash.
    fragment, markdown, _ = write_comparison(compare(PAIR, pairs=[("small", "large")]), tmp_path)
    assert '<td class="missing" title="undefined: small scores 0">—</td>' in fragment
    assert '<td class="num" data-value="-2.0">-2.00</td>' in fragment
    assert "| zero | 0 | 0.4 | undefined |" in markdown


def test_significance_marks_follow_the_adjusted_p(tmp_path):
    # FIVE: A-C has p = 1/60 < 0.05 uncorrected; Holm makes it 3 * 1/60 = 0.05, which is not < 0.05
    def significant(correction, folder):
        write_comparison(compare(FIVE, correction=correction), tmp_path / folder)
        data = json.loads((tmp_path / folder / "comparison.json").read_text())
        return {(t["task_a"], t["task_b"]) for t in data["kendall"] if t["significant"]}

    assert significant(None, "plain") == {("A", "C")}
    assert significant("holm", "holm") == set()


def test_empty_matrix_is_refused():
    with pytest.raises(ReportInputError, match="no models"):
        compare({})
