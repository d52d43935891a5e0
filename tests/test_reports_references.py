"""Chance, ideal, human and published references of a task's metric, and the 0-100 normalisation."""

from __future__ import annotations

import math

import pytest
from reports_fixtures import mc_sample, write_results

from lm_eval_cog.reports.references import chance_and_ideal, normalised, references
from lm_eval_cog.reports.runs import load_run


def _interactive(paradigm: str, preset: str, strategy: str = "direct", **extra) -> dict:
    """The config lm-eval logs for an interactive task (only what references read)."""
    return {
        "output_type": "generate_until",
        "metadata": {
            "paradigm": paradigm,
            "preset": preset,
            "strategy": strategy,
            **extra,
        },
    }


def _probe(probe: str, output_type: str) -> dict:
    return {"output_type": output_type, "metadata": {"probe": probe, "version": 1.0}}


def _run(tmp_path, results: dict, configs: dict, **kwargs):
    write_results(tmp_path, results, configs=configs, **kwargs)
    return load_run(tmp_path)


# ---------------------------------------------------------------- interactive paradigms


def test_wcst_chance_from_its_own_column_and_ideal_from_the_simulated_observer(
    tmp_path,
):
    run = _run(
        tmp_path,
        {
            "cog_wcst_direct": {
                "acc,none": 0.25,
                "score,none": 25.0,
                "score_chance,none": 25.0141,
            }
        },
        {"cog_wcst_direct": _interactive("wcst", "wcst64")},
    )
    assert chance_and_ideal(run, "cog_wcst_direct", "score,none") == (
        25.0141,
        86.701484375,
    )
    # acc is score / 100 in WCST: both references scale with it.
    chance, ideal = chance_and_ideal(run, "cog_wcst_direct", "acc,none")
    assert chance == pytest.approx(0.250141) and ideal == pytest.approx(0.86701484375)
    kinds = [(r.kind, r.label) for r in references(run, "cog_wcst_direct", "score")]
    assert kinds == [("chance", "random player"), ("ideal", "ideal player")]


def test_nan_chance_column_means_no_chance_and_a_variant_has_no_ideal(tmp_path):
    # Kennedy's shape-only WCST: chance still applies (the task said so), the ideal does not
    # (an announced fixed rule is a different task for the ideal observer).
    run = _run(
        tmp_path,
        {
            "shape": {"score,none": 90.0, "score_chance,none": 25.0},
            "changed": {"score,none": 50.0, "score_chance,none": float("nan")},
        },
        {
            "shape": _interactive(
                "wcst",
                "kennedy",
                variant={"fixed_rule": "shape", "announce_rule": True},
            ),
            "changed": _interactive("wcst", "wcst64", wcst={"trials": 30}),
        },
    )
    assert chance_and_ideal(run, "shape", "score,none") == (25.0, None)
    assert chance_and_ideal(run, "changed", "score,none") == (None, None)


def test_wcst_prompt_only_variant_keeps_the_ideal(tmp_path):
    run = _run(
        tmp_path,
        {"impaired": {"score,none": 50.0, "score_chance,none": 25.0141}},
        {
            "impaired": _interactive(
                "wcst", "wcst64", "cot", variant={"roleplay": "goal_maintenance"}
            )
        },
    )
    assert chance_and_ideal(run, "impaired", "score,none") == (25.0141, 86.701484375)


def test_results_without_chance_column_use_chance_levels_json(tmp_path):
    # chance_levels.json: lnt/kennedy score mean 24.996; groups/cog_reflection_bench score 36.3797.
    run = _run(
        tmp_path,
        {
            "cog_lnt_direct": {"acc,none": 0.5, "score,none": 50.0},
            "cog_reflection_bench": {"score,none": 40.0},
        },
        {"cog_lnt_direct": _interactive("lnt", "kennedy")},
        groups={"cog_reflection_bench": {"score,none": 40.0}},
        group_subtasks={"cog_reflection_bench": ["cog_wpt"]},
    )
    assert chance_and_ideal(run, "cog_lnt_direct", "score,none") == (24.996, 86.0)
    chance, ideal = chance_and_ideal(run, "cog_lnt_direct", "acc,none")
    assert chance == pytest.approx(0.24996) and ideal == pytest.approx(0.86)
    # The group's stored chance; no ideal: its subtask cog_wpt is absent from the run.
    assert chance_and_ideal(run, "cog_reflection_bench", "score,none") == (
        36.3797,
        None,
    )


@pytest.mark.parametrize(
    ("paradigm", "preset", "metric", "ideal"),
    [
        ("lnt", "kennedy_letter", "score", 100.0),  # components: every trial answerable
        ("nback", "gong3", "score", 100.0),  # perfect memory
        (
            "wpt",
            "easy",
            "score",
            100.0 * (1 - 0.1 / 0.9),
        ),  # (1 - (1-p)/p) x 100, p = 0.9: 88.89
        ("wpt", "hard", "score", 75.0),  # p = 0.8: (1 - 0.25) x 100
        (
            "mbt",
            "hard",
            "anticipation_rate",
            18 / 19,
        ),  # 18 of the 19 reversals anticipated
        ("wason246", "wason1960", "acc", 1.0),
        ("igt", "easy", "score", None),  # no documented ideal for the combined score
        (
            "prlt",
            "easy",
            "score",
            None,
        ),  # the reward maximiser is not the score maximiser
    ],
)
def test_ideal_player_values_per_paradigm(tmp_path, paradigm, preset, metric, ideal):
    run = _run(
        tmp_path, {"t": {f"{metric},none": 0.5}}, {"t": _interactive(paradigm, preset)}
    )
    assert chance_and_ideal(run, "t", f"{metric},none")[1] == (
        None if ideal is None else pytest.approx(ideal)
    )


def test_reflection_task_chance_and_ideal(tmp_path):
    run = _run(
        tmp_path,
        {
            "cog_calendar_reflect": {
                "acc_first,none": 0.0,
                "acc_final,none": 0.5,
                "acc_final_chance,none": 0.2497,
            }
        },
        {"cog_calendar_reflect": _interactive("reflect", "calendar", "free")},
    )
    assert chance_and_ideal(run, "cog_calendar_reflect", "acc_final,none") == (
        0.2497,
        1.0,
    )
    assert chance_and_ideal(run, "cog_calendar_reflect", "acc_first,none") == (
        None,
        1.0,
    )


def test_wcst_ideal_table_matches_a_fresh_simulation_of_the_optimal_agent():
    # The first 400 of the 20,000 stored episodes: their mean lies within 4 SE of the stored mean
    # (wcst64: SD 2.15 -> SE 0.107; kennedy: SD 4.46 -> SE 0.223).
    from lm_eval_cog.paradigms import get_paradigm
    from lm_eval_cog.paradigms.chance import simulate
    from lm_eval_cog.reports.references import _WCST_IDEAL

    wcst = get_paradigm("wcst")
    for preset, se in (("wcst64", 0.107), ("kennedy", 0.223)):
        mean = float(simulate(wcst, wcst.presets[preset], 400, policy="optimal").mean())
        assert abs(mean - _WCST_IDEAL[preset]) < 4 * se


# ---------------------------------------------------------------- static probes and groups


def test_static_probe_chance_is_reported_and_ideal_is_the_answer_key(tmp_path):
    run = _run(
        tmp_path,
        {
            "cog_flanker_mc": {
                "acc,none": 0.5,
                "acc_chance,none": 1 / 3,
                "brier_score,none": 0.6,
            },
            "cog_flanker_gen": {
                "acc,answer_line": 0.5,
                "acc_chance,answer_line": 1 / 3,
            },
        },
        {
            "cog_flanker_mc": _probe("flanker", "multiple_choice"),
            "cog_flanker_gen": _probe("flanker", "generate_until"),
        },
    )
    assert chance_and_ideal(run, "cog_flanker_mc", "acc,none") == (1 / 3, 1.0)
    assert chance_and_ideal(run, "cog_flanker_gen", "acc,answer_line") == (1 / 3, 1.0)
    assert chance_and_ideal(run, "cog_flanker_mc", "brier_score,none") == (None, None)
    assert (
        references(run, "cog_flanker_mc", "acc,none")[0].label
        == "random guess (1/choices)"
    )


def test_group_references_are_the_unweighted_mean_of_its_subtasks(tmp_path):
    # _cog_inhibition_mc.yaml: acc, weight_by_size false. Stroop chance 1/4, go/no-go 1/2 -> (0.25 + 0.5) / 2.
    run = _run(
        tmp_path,
        {
            "cog_stroop_mc": {"acc,none": 0.5, "acc_chance,none": 0.25},
            "cog_gonogo_mc": {"acc,none": 0.5, "acc_chance,none": 0.5},
        },
        {
            "cog_stroop_mc": _probe("stroop", "multiple_choice"),
            "cog_gonogo_mc": _probe("gonogo", "multiple_choice"),
        },
        groups={"cog_inhibition_mc": {"acc,none": 0.5}, "not_ours": {"acc,none": 0.5}},
        group_subtasks={
            "cog_inhibition_mc": ["cog_stroop_mc", "cog_gonogo_mc"],
            "not_ours": ["cog_stroop_mc"],
        },
        n_samples={"cog_stroop_mc": 10, "cog_gonogo_mc": 30},
    )
    assert chance_and_ideal(run, "cog_inhibition_mc", "acc,none") == (0.375, 1.0)
    assert chance_and_ideal(run, "not_ours", "acc,none") == (
        None,
        None,
    )  # how it weighs is unknown


# ---------------------------------------------------------------- ordinary lm-eval tasks


@pytest.mark.parametrize("legacy", [False, True])
def test_multiple_choice_chance_is_the_mean_inverse_number_of_choices(tmp_path, legacy):
    # 3 documents with 4, 4 and 2 choices: (1/4 + 1/4 + 1/2) / 3 = 1/3.
    samples = [
        mc_sample(0, 4, 1.0, legacy=legacy),
        mc_sample(1, 4, 0.0, legacy=legacy),
        mc_sample(2, 2, 1.0, legacy=legacy),
    ]
    run = _run(
        tmp_path,
        {"mmlu_x": {"acc,none": 2 / 3, "acc_norm,none": 2 / 3}},
        {"mmlu_x": {"output_type": "multiple_choice"}},
        samples={"mmlu_x": samples},
    )
    # the ideal of an ordinary accuracy is the answer key's 1.0
    assert chance_and_ideal(run, "mmlu_x", "acc,none") == (pytest.approx(1 / 3), 1.0)
    assert chance_and_ideal(run, "mmlu_x", "acc_norm,none")[0] == pytest.approx(1 / 3)
    ref, key = references(run, "mmlu_x", "acc,none")
    assert ref.kind == "chance" and "over 3 documents" in ref.source
    assert (key.kind, key.value) == ("ideal", 1.0) and "answer key" in key.source


def test_no_samples_or_not_multiple_choice_gives_no_chance(tmp_path):
    run = _run(
        tmp_path,
        {"mc": {"acc,none": 0.5}, "gen": {"exact_match,strict-match": 0.5}},
        {
            "mc": {"output_type": "multiple_choice"},
            "gen": {"output_type": "generate_until"},
        },
        samples={"gen": [mc_sample(0, 4, 1.0)]},
    )
    assert chance_and_ideal(run, "mc", "acc,none") == (None, 1.0)
    assert chance_and_ideal(run, "gen", "exact_match,strict-match") == (None, 1.0)
    assert [r.kind for r in references(run, "gen", "exact_match,strict-match")] == ["ideal"]
    assert references(run, "absent", "acc,none") == []


# ---------------------------------------------------------------- published numbers


def test_published_rows_humans_papers_and_bounds(tmp_path):
    run = _run(
        tmp_path,
        {
            "cog_wcst_direct": {"categories_completed,none": 1.0, "score,none": 30.0},
            "cog_lnt_direct": {"score,none": 50.0, "acc,none": 0.5},
        },
        {
            "cog_wcst_direct": _interactive("wcst", "wcst64"),
            "cog_lnt_direct": _interactive("lnt", "kennedy"),
        },
    )
    wcst = references(run, "cog_wcst_direct", "categories_completed,none")
    # Hao Table I human row (STA-VI, compared with every condition): CC 4.73.
    assert [(r.label, r.value) for r in wcst if r.kind == "human"] == [
        ("humans (Hao et al. 2025, Table I, STA-VI)", 4.73)
    ]
    # Hao Table I STA-TI model rows for cog_wcst_direct: GPT-4o CC 0.30.
    assert ("GPT-4o (Hao et al. 2025, Table I, STA-TI)", 0.3) in [
        (r.label, r.value) for r in wcst
    ]
    lnt_score = {
        r.label: r.value
        for r in references(run, "cog_lnt_direct", "score,none")
        if r.kind == "paper"
    }
    # Kennedy Table 2: ChatGPT 4 acc 0.8652 -> score 86.52; worst-case bound 6/7 -> 85.714...
    assert lnt_score[
        "ChatGPT 4 (Kennedy & Nowak 2024, Table 2, Standard Test)"
    ] == pytest.approx(86.52)
    assert lnt_score[
        "worst case of a player that switches correctly (Kennedy & Nowak 2024)"
    ] == pytest.approx(600 / 7)
    lnt_acc = {
        r.label: r.value
        for r in references(run, "cog_lnt_direct", "acc")
        if r.kind == "paper"
    }
    assert lnt_acc["ChatGPT 4 (Kennedy & Nowak 2024, Table 2, Standard Test)"] == 0.8652


# ---------------------------------------------------------------- normalised


def test_normalised_higher_is_better():
    # chance 0.25, ideal 1.0: 0.625 is halfway -> 100 * 0.375 / 0.75 = 50; chance -> 0; ideal -> 100.
    assert normalised(0.625, 0.25, 1.0) == pytest.approx(50.0)
    assert normalised(0.25, 0.25, 1.0) == 0.0
    assert normalised(1.0, 0.25, 1.0) == 100.0
    assert normalised(0.0, 0.25, 1.0) == pytest.approx(
        -100 / 3
    )  # below chance is negative


def test_normalised_lower_is_better():
    # errors: chance 10, ideal 0; 4 errors -> 100 * (4 - 10) / (0 - 10) = 60.
    assert normalised(4.0, 10.0, 0.0) == pytest.approx(60.0)
    assert normalised(12.0, 10.0, 0.0) == pytest.approx(-20.0)


@pytest.mark.parametrize(
    ("value", "chance", "ideal"),
    [(0.5, None, 1.0), (0.5, 0.25, None), (0.5, 0.5, 0.5), (math.nan, 0.25, 1.0)],
)
def test_normalised_undefined_is_nan(value, chance, ideal):
    assert math.isnan(normalised(value, chance, ideal))
