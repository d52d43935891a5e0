"""Abilities of tasks and the cross-model leaderboard (per-task raw and normalised scores, ability and overall means)."""

from __future__ import annotations

import pytest

from lm_eval_cog.reports.abilities import abilities, ability_of, group_definitions

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
    assert groups["cog_inhibition"]["task"][:2] == [
        "cog_counting_stroop_mc",
        "cog_counting_stroop_gen",
    ]
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
