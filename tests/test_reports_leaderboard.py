"""Abilities of tasks and the cross-model leaderboard (per-task raw and normalised scores, ability and overall means)."""

from __future__ import annotations

import csv
import io
import json
import math
import re

import pytest
from reports_fixtures import write_results

from lm_eval_cog.reports.abilities import abilities, ability_of, group_definitions
from lm_eval_cog.reports.errors import ReportInputError
from lm_eval_cog.reports.leaderboard import (
    build_leaderboard,
    leaderboard_csv,
    leaderboard_html,
    leaderboard_json,
    score_matrix,
    write_leaderboard,
)
from lm_eval_cog.reports.runs import load_runs

# ---------------------------------------------------------------- abilities


@pytest.mark.parametrize(
    ("task", "ability"),
    [
        ("cog_stroop_mc", "inhibitory control"),  # _cog_inhibition.yaml
        ("cog_span_gen", "working memory"),  # _cog_working_memory.yaml
        (
            "cog_trail_making_mc",
            "cognitive flexibility",
        ),  # _cog_flexibility_static.yaml
        ("cog_wcst_kennedy_direct", "cognitive flexibility"),  # _cog_flexibility.yaml
        ("cog_false_belief_gen", "theory of mind"),
        ("cog_rule_execution_mc", "rule application"),
        ("cog_calendar_reflect", "metacognition"),  # _cog_metacognition.yaml
        (
            "cog_analogy_reflect_cogprobe",
            "metacognition",
        ),  # a reflection task outside the group
        ("cog_wcst_direct", "cognitive flexibility"),
        ("cog_nback_3back", "working memory"),
        ("cog_wpt_hard", "prediction"),
        ("cog_igt", "counterfactual thinking"),
        ("cog_prlt_cot", "belief updating"),
        ("cog_mbt", "meta-reflection"),
        ("cog_oddball", "perception"),
        ("cog_wason246_direct", "induction"),
        ("cog_wason246_reflect", "metacognition"),
        ("mmlu_anatomy", "knowledge"),
        ("leaderboard_bbh_navigate", "multi-step reasoning"),
        ("gsm8k", "mathematical reasoning"),
        ("winogrande", "commonsense reasoning"),
        ("logiqa2", "logical reasoning"),
        ("social_iqa", "social commonsense"),
        ("eq_bench", "emotional intelligence"),
        ("my_private_task", None),
        ("cog_inhibition", None),  # a group is not a task
        ("cog_static", None),
    ],
)
def test_ability_of(task, ability):
    assert ability_of(task) == ability


def test_group_yamls_are_read_with_safe_load():
    groups = group_definitions()
    # One group per form, each scored; the form-free name collects both without a score of its own.
    assert groups["cog_inhibition_mc"]["task"][:2] == ["cog_counting_stroop_mc", "cog_flanker_mc"]
    assert groups["cog_inhibition_gen"]["task"][:2] == ["cog_counting_stroop_gen", "cog_flanker_gen"]
    assert groups["cog_inhibition"]["task"] == ["cog_inhibition_mc", "cog_inhibition_gen"]
    assert "aggregate_metric_list" not in groups["cog_inhibition"]
    assert (
        groups["cog_metacognition"]["aggregate_metric_list"][1]["metric"] == "acc_final"
    )


def test_abilities_groups_tasks_and_drops_unplaced_ones():
    assert abilities(
        ["cog_stroop_mc", "x", "cog_nback", "cog_gonogo_gen", "cog_inhibition"]
    ) == {
        "inhibitory control": ["cog_gonogo_gen", "cog_stroop_mc"],
        "working memory": ["cog_nback"],
    }


# ---------------------------------------------------------------- leaderboard

_CONFIGS = {
    "cog_stroop_mc": {
        "output_type": "multiple_choice",
        "metadata": {"probe": "stroop"},
    },
    "cog_gonogo_mc": {
        "output_type": "multiple_choice",
        "metadata": {"probe": "gonogo"},
    },
    "cog_nback": {
        "output_type": "generate_until",
        "metadata": {"paradigm": "nback", "preset": "easy", "strategy": "direct"},
    },
    "my_task": {"output_type": "generate_until"},
}


def _model(
    tmp_path,
    name: str,
    stroop: float,
    gonogo: float,
    nback: float,
    mine: float,
    **kwargs,
):
    results = {
        "cog_stroop_mc": {"acc,none": stroop, "acc_chance,none": 0.25},
        "cog_gonogo_mc": {"acc,none": gonogo, "acc_chance,none": 0.5},
        "cog_nback": {"score,none": nback, "score_chance,none": 50.0},
        "my_task": {"acc,none": mine},
        "cog_inhibition": {"acc,none": (stroop + gonogo) / 2},
    }
    write_results(
        tmp_path / name,
        results,
        model_args=f"pretrained=org/{name}",
        configs=_CONFIGS,
        groups={"cog_inhibition": results["cog_inhibition"]},
        group_subtasks={"cog_inhibition": ["cog_stroop_mc", "cog_gonogo_mc"]},
        **kwargs,
    )
    return tmp_path / name


@pytest.fixture
def three_models(tmp_path):
    # Normalised (chance -> 0, ideal -> 100): stroop chance 0.25, go/no-go 0.5, n-back 50 (ideal 100).
    #   A: stroop 1.0 -> 100, gonogo 0.75 -> 50, nback 75 -> 50
    #   B: stroop 0.625 -> 50, gonogo 1.0 -> 100, nback 50 -> 0
    #   C: stroop 0.25 -> 0, gonogo 0.5 -> 0, nback 100 -> 100
    paths = [
        _model(tmp_path, "B", 0.625, 1.0, 50.0, 0.8),
        _model(tmp_path, "A", 1.0, 0.75, 75.0, 0.9),
        _model(tmp_path, "C", 0.25, 0.5, 100.0, 0.7),
    ]
    return load_runs(paths)


def test_leaderboard_means_are_unweighted_over_tasks_then_abilities(three_models):
    lb = build_leaderboard(three_models)
    assert lb.normalised["A"] == {
        "cog_gonogo_mc": 50.0,
        "cog_nback": 50.0,
        "cog_stroop_mc": 100.0,
    }
    assert lb.normalised["B"] == {
        "cog_gonogo_mc": 100.0,
        "cog_nback": 0.0,
        "cog_stroop_mc": 50.0,
    }
    # inhibitory control = mean of stroop and go/no-go; working memory = n-back.
    assert lb.by_ability == {
        "A": {"inhibitory control": 75.0, "working memory": 50.0},
        "C": {"inhibitory control": 0.0, "working memory": 100.0},
        "B": {"inhibitory control": 75.0, "working memory": 0.0},
    }
    # overall = mean over the two abilities: A (75 + 50) / 2 = 62.5 (not the task mean 66.7),
    # B (75 + 0) / 2 = 37.5, C (0 + 100) / 2 = 50; ranked A, C, B.
    assert lb.overall == {"A": 62.5, "C": 50.0, "B": 37.5}
    assert lb.models == ["A", "C", "B"]
    assert lb.abilities == {
        "inhibitory control": ["cog_gonogo_mc", "cog_stroop_mc"],
        "working memory": ["cog_nback"],
    }


def test_tasks_without_references_are_raw_only_and_groups_are_not_double_counted(
    three_models,
):
    lb = build_leaderboard(three_models)
    assert lb.tasks == ["cog_gonogo_mc", "cog_nback", "cog_stroop_mc", "my_task"]
    assert lb.metrics == {
        "cog_gonogo_mc": "acc,none",
        "cog_nback": "score,none",
        "cog_stroop_mc": "acc,none",
        "my_task": "acc,none",
    }
    assert lb.raw["A"]["my_task"] == 0.9 and "my_task" not in lb.normalised["A"]
    assert lb.unnormalised == ["my_task"] and lb.skipped_groups == ["cog_inhibition"]
    assert any("raw only" in n and "my_task" in n for n in lb.notes)
    assert any("cog_inhibition" in n for n in lb.notes)


def test_metric_override_applies_and_unknown_task_is_refused(three_models):
    lb = build_leaderboard(three_models, {"cog_stroop_mc": "acc_chance"})
    assert lb.metrics["cog_stroop_mc"] == "acc_chance,none"
    with pytest.raises(ReportInputError, match="unknown task"):
        build_leaderboard(three_models, {"cog_strop_mc": "acc"})


def test_the_ranking_is_over_the_tasks_every_model_has_a_score_for(tmp_path):
    full = _model(tmp_path, "full", 1.0, 1.0, 100.0, 0.5)
    write_results(
        tmp_path / "partial",
        {
            "cog_stroop_mc": {"acc,none": float("nan"), "acc_chance,none": 0.25},
            "cog_nback": {"score,none": 75.0, "score_chance,none": 50.0},
        },
        model_args="pretrained=org/partial",
        configs=_CONFIGS,
    )
    lb = build_leaderboard(load_runs([full, tmp_path / "partial"]))
    # partial: stroop NaN, go/no-go not run; n-back 75 -> 50. full: stroop 1.0 -> 100, go/no-go 1.0 -> 100,
    # n-back 100 -> 100. Only n-back has a score for both: both are ranked on it alone (full's 100 on
    # inhibitory control would otherwise weigh against a model that never played those tasks).
    assert lb.ranked_tasks == ["cog_nback"]
    assert lb.by_ability == {"full": {"working memory": 100.0}, "partial": {"working memory": 50.0}}
    assert lb.overall == {"full": 100.0, "partial": 50.0}
    assert lb.normalised["full"]["cog_stroop_mc"] == 100.0  # still shown, only not ranked
    assert math.isnan(lb.raw["partial"]["cog_stroop_mc"])
    assert any("not run on" in n and "cog_gonogo_mc" in n for n in lb.notes)
    assert any("NaN" in n and "cog_stroop_mc" in n for n in lb.notes)
    assert any("over the 1 task(s) every ranked model has a normalised score for (cog_nback); shown but left out "
               "of the ranking: cog_gonogo_mc, cog_stroop_mc" in n for n in lb.notes)  # fmt: skip
    fragment = leaderboard_html(lb)
    assert "ranked over: cog_nback" in fragment and "cog_stroop_mc †" in fragment and "cog_nback †" not in fragment


def test_score_matrix_is_raw_headline_values(three_models):
    matrix = score_matrix(three_models)
    assert matrix["C"] == {
        "cog_gonogo_mc": 0.5,
        "cog_nback": 100.0,
        "cog_stroop_mc": 0.25,
        "my_task": 0.7,
    }
    assert list(matrix) == ["A", "C", "B"]


def test_csv_and_json_are_reproducible_and_hold_the_numbers(three_models, tmp_path):
    lb = build_leaderboard(three_models)
    rows = list(csv.DictReader(io.StringIO(leaderboard_csv(lb))))
    assert [r["model"] for r in rows] == ["A", "C", "B"]
    assert rows[0]["overall"] == "62.5" and rows[0]["ability:working memory"] == "50.0"
    assert (
        rows[0]["raw:my_task (acc,none)"] == "0.9"
        and rows[0]["normalised:cog_stroop_mc"] == "100.0"
    )
    data = json.loads(leaderboard_json(lb))
    assert data["overall"] == {"A": 62.5, "C": 50.0, "B": 37.5}
    assert data["unnormalised"] == ["my_task"]
    # Same inputs in another order: byte-identical outputs.
    again = build_leaderboard(list(reversed(three_models)))
    assert leaderboard_csv(again) == leaderboard_csv(lb) and leaderboard_json(
        again
    ) == leaderboard_json(lb)
    files = write_leaderboard(lb, tmp_path / "out")
    assert sorted(p.name for p in files.values()) == [
        "leaderboard.csv",
        "leaderboard.html",
        "leaderboard.json",
    ]
    assert files["csv"].read_text() == leaderboard_csv(lb)


def test_write_refuses_an_input_folder(three_models, tmp_path):
    lb = build_leaderboard(three_models)
    with pytest.raises(ReportInputError):
        write_leaderboard(lb, tmp_path / "A")
    # Inside the folder the user named (lm-eval's --output_path above the model folders): refused too.
    with pytest.raises(ReportInputError):
        write_leaderboard(lb, tmp_path / "report", inputs=[tmp_path])
    assert not (tmp_path / "report").exists()


def test_html_is_one_sortable_table_with_numeric_data_values(three_models):
    fragment = leaderboard_html(build_leaderboard(three_models))
    assert fragment.count("<table") == 1 and 'class="sortable' in fragment
    first_row = fragment.split("<tbody>")[1].split("</tr>")[0]
    # A: model, overall 62.5, inhibitory control 75, working memory 50, gonogo 50, nback 50, stroop 100, my_task 0.9
    assert re.findall(r'data-value="([^"]+)"', first_row) == [
        "62.5",
        "75.0",
        "50.0",
        "50.0",
        "50.0",
        "100.0",
        "0.9",
    ]
    assert "my_task *" in fragment and "raw only" in fragment
    assert "<script" not in fragment
