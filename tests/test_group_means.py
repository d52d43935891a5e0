"""Our groups' means over the subtasks that define a metric (lm_eval_cog/lmeval/group_means.py),
on hand-built cases; the end-to-end case is in tests/test_games_e2e.py."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from lm_eval_cog.lmeval.group_means import METADATA_KEY, mean_of_defined, regroup, stderr_of_defined


def test_the_mean_leaves_out_undefined_values_and_is_nan_only_when_none_is_defined():
    assert mean_of_defined([40.0, math.nan, 100.0, None], [2, 5, 2, 1], False) == 70.0
    assert mean_of_defined([40.0, math.nan, 100.0], [1, 5, 3], True) == pytest.approx((40 + 300) / 4)
    assert math.isnan(mean_of_defined([math.nan, math.nan], [3, 3], False))
    assert math.isnan(mean_of_defined([], [], False))


def test_the_standard_error_is_the_unweighted_mean_error_of_the_defined_values():
    # sqrt(3^2 + 4^2) / 2 = 2.5; the undefined game's NaN error is left out with it.
    assert stderr_of_defined([10.0, math.nan, 20.0], [3.0, math.nan, 4.0]) == 2.5
    assert stderr_of_defined([10.0, 20.0], [3.0, "N/A"]) == "N/A"
    assert stderr_of_defined([math.nan], [math.nan]) == "N/A"


def _group(listed):
    config = SimpleNamespace(metric="main_score", weight_by_size=False)
    played = SimpleNamespace(metric="played", weight_by_size=False)
    tasks = [SimpleNamespace(task_name=n) for n in ("cog_game_a", "cog_game_b", "cog_game_c")]
    return SimpleNamespace(metadata={METADATA_KEY: listed} if listed is not None else None,
                           aggregate_metric_list=[config, played], get_all_tasks=lambda: tasks)  # fmt: skip


TASK_METRICS = {
    "cog_game_a": {"main_score,none": 50.0, "main_score_stderr,none": 6.0, "played,none": 1.0, "sample_len": 4},
    "cog_game_b": {"main_score,none": math.nan, "main_score_stderr,none": math.nan, "played,none": 0.0, "sample_len": 4},
    "cog_game_c": {"main_score,none": 80.0, "main_score_stderr,none": 8.0, "played,none": 0.5, "sample_len": 4},
}


def test_a_listed_metric_is_regrouped_and_the_others_are_left_as_lm_eval_gave_them():
    lm_eval_out = {"main_score,none": math.nan, "main_score_stderr,none": math.nan, "played,none": 0.5}
    out = regroup(_group(["main_score"]), TASK_METRICS, dict(lm_eval_out))
    assert out["main_score,none"] == 65.0 and out["main_score_stderr,none"] == 5.0  # sqrt(36 + 64) / 2
    assert out["played,none"] == 0.5
    unlisted = regroup(_group(None), TASK_METRICS, dict(lm_eval_out))
    assert math.isnan(unlisted["main_score,none"])


def test_the_games_group_lists_main_score_only():
    """The cog_games YAML asks for it on main_score; played and clemscore keep lm-eval's plain mean."""
    import yaml

    from lm_eval_cog._autoload import task_dir

    text = (task_dir() / "games" / "_cog_games.yaml").read_text()
    assert yaml.safe_load(text)["metadata"][METADATA_KEY] == ["main_score"]
