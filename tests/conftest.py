"""Suite-wide collection order: the longest tests first.

pytest-xdist deals tests to its workers in collection order (after the xdist_group units, which it
deals first, largest first). A several-minute real-model test collected late starts when the other
worker has little left, and the suite ends with one worker idle while it finishes: on the 2-core CI
that tail cost minutes. Dealing the longest first (longest-processing-time scheduling) lets the
short tests fill in around them.

``SECONDS`` holds the durations measured on the 2-core CI rehearsal (`.ci/run`'s main lane prints
the slowest 25); it orders, it asserts nothing. A name that matches no collected test is reported,
so a renamed test does not silently fall back to collection order.
"""

from __future__ import annotations

import warnings

import pytest

#: Test (node id without parameters) -> seconds it took on the 2-core CI rehearsal (one torch thread).
SECONDS: dict[str, float] = {
    "tests/test_probe_e2e.py::test_smollm2_runs_cog_static_with_per_condition_metrics_and_group_scores": 220,
    "tests/test_e2e_cli.py::test_smollm2_plays_every_reflection_bench_task_and_group_through_the_stock_cli": 199,
    "tests/test_e2e_cli.py::test_real_model_plays_full_episodes_through_the_stock_cli": 190,
    "tests/test_episode_cache_hostile.py::test_through_the_lm_eval_cli_hostile_rows_are_regenerated_and_a_foreign_cache_is_refused": 152,
    "tests/test_flexibility_e2e.py::test_smollm2_plays_every_flexibility_variant_through_the_stock_cli": 123,
    "tests/test_e2e_cli.py::test_include_path_route_works_with_the_hook_switched_off": 75,
    "tests/test_resume.py::test_a_run_killed_mid_episode_resumes_with_identical_results_and_no_call_for_finished_turns": 70,
    "tests/test_hf_prefix_cache.py::test_smollm2_greedy_replies_are_identical_with_and_without_reuse": 67,
    "tests/test_games_e2e.py::test_smollm2_plays_every_game_in_self_play_and_its_transcripts_rescore": 66,
    "tests/test_e2e_cli.py::test_greedy_rerun_gives_identical_transcripts": 60,
    "tests/test_metacognition_e2e.py::test_smollm2_plays_wason246_and_a_reflection_pass_and_transcripts_rescore": 41,
    "tests/test_chance.py::test_script_is_deterministic_whatever_the_worker_count": 32,
    "tests/test_faults.py::test_faults_through_the_real_lm_eval_cli": 28,
    "tests/test_wcst_visual_cli.py::test_scripted_vlm_completes_five_categories_and_describes_every_image_through_the_cli": 27,
    "tests/test_e2e_cli.py::test_random_players_score_the_groups_chance_level": 25,
}


def _seconds(item: pytest.Item) -> float:
    return SECONDS.get(item.nodeid.split("[", 1)[0], 0.0)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Only a whole-suite run: a chosen subset (`pytest tests/x.py`, `-k`) keeps its own order and
    # is not told about the tests it left out.
    if config.args and [a.rstrip("/") for a in config.args] != ["tests"]:
        return
    if config.getoption("keyword") or config.getoption("markexpr"):
        return
    collected = {item.nodeid.split("[", 1)[0] for item in items}
    stale = sorted(set(SECONDS) - collected)
    if stale:
        warnings.warn(pytest.PytestConfigWarning(f"tests/conftest.py SECONDS names tests not collected: {stale}"))
    items.sort(key=_seconds, reverse=True)  # stable: the rest keep collection order
