"""The Reflection-Bench tasks and groups inside lm-eval's evaluator, played by reference agents."""

from __future__ import annotations

import json
import math

import pytest
from lm_eval import simple_evaluate
from lm_eval.tasks import TaskManager

from lm_eval_cog._autoload import register_baseline, task_dir
from lm_eval_cog.paradigms import chance, get_paradigm

PARADIGM_TASKS = [f"cog_{p}{s}" for p in ("wpt", "nback", "igt", "prlt", "mbt") for s in ("", "_free", "_cot", "_hard")]
WCST_TASKS = ["cog_wcst_reflection_bench_direct", "cog_wcst_reflection_bench_free", "cog_wcst_reflection_bench_hard"]


def evaluate(tasks, policy="optimal", limit=2, metadata=None):
    register_baseline()
    return by_task_name(simple_evaluate(
        model="cog_baseline",
        model_args=f"policy={policy}",
        tasks=tasks,
        limit=limit,
        task_manager=TaskManager(include_path=str(task_dir()), include_defaults=False, metadata=metadata),
        log_samples=True,
        bootstrap_iters=0,
    ))


def by_task_name(out):
    """lm-eval 0.5 names a group's member ``group::task`` in ``results``; 0.4.13 ``task``."""
    out["results"] = {name.split("::")[-1]: row for name, row in out["results"].items()}
    return out


def test_every_task_loads_with_its_preset_and_strategy():
    """Names follow the WCST convention: default = easy + direct; _free, _cot; _hard = hard + direct."""
    manager = TaskManager(include_path=str(task_dir()), include_defaults=False)
    loaded = manager.load(PARADIGM_TASKS + WCST_TASKS)["tasks"]
    for name in PARADIGM_TASKS:
        task = loaded[name]
        paradigm, *rest = name.removeprefix("cog_").split("_")
        suffix = rest[0] if rest else ""
        assert task.paradigm.name == paradigm
        assert task.params == task.paradigm.make_params(
            "hard" if suffix == "hard" else "easy", {"free": "free", "cot": "cot"}.get(suffix, "direct")
        ), name
    assert loaded["cog_wcst_reflection_bench_hard"].params.trials == 90


def test_group_overall_is_the_mean_of_the_task_scores_without_mbt():
    """cog_reflection_bench: unweighted mean of the six scores; cog_mbt reports no score."""
    out = evaluate(["cog_reflection_bench"], policy="optimal", limit=2)
    results = out["results"]
    members = ["cog_wpt", "cog_wcst_reflection_bench_direct", "cog_oddball", "cog_nback", "cog_igt", "cog_prlt"]
    scores = [results[t]["score,none"] for t in members]
    assert "score,none" not in results["cog_mbt"]
    assert results["cog_mbt"]["anticipation_rate,none"] == pytest.approx(18 / 19)
    assert out["groups"]["cog_reflection_bench"]["score,none"] == pytest.approx(sum(scores) / len(scores))
    assert results["cog_nback"]["score,none"] == 100.0


def test_hard_group_has_the_five_parameterised_tests_and_mbt():
    """No oddball in the hard group (Reflection-Bench: not parameterised)."""
    out = evaluate(["cog_reflection_bench_hard"], policy="random", limit=1)
    assert set(out["results"]) == {
        "cog_reflection_bench_hard", "cog_wpt_hard", "cog_wcst_reflection_bench_hard", "cog_nback_hard",
        "cog_igt_hard", "cog_prlt_hard", "cog_mbt_hard",
    }  # fmt: skip


def test_tasks_report_the_stored_chance_level_unless_a_parameter_changed():
    """score_chance / _p95 are the stored random-player levels; with an override they are NaN."""
    out = evaluate(["cog_nback", "cog_mbt_hard"], policy="random", limit=1)
    level = chance.stored("nback", "easy")
    assert level is not None, "run scripts/chance_levels.py"
    row = out["results"]["cog_nback"]
    assert row["score_chance,none"] == pytest.approx(level.mean)
    assert row["score_chance_p95,none"] == pytest.approx(level.p95)
    assert out["results"]["cog_mbt_hard"]["anticipation_rate_chance,none"] == pytest.approx(
        chance.stored("mbt", "hard").mean
    )
    changed = evaluate(["cog_nback"], policy="random", limit=1, metadata={"nback": {"trials": 20}})
    assert math.isnan(changed["results"]["cog_nback"]["score_chance,none"])


def test_bad_parameter_names_itself():
    """An unknown or invalid paradigm parameter fails before any model call, naming the parameter."""
    with pytest.raises(ValueError, match="Unknown nback parameter 'nn'. Did you mean: n?"):
        evaluate(["cog_nback"], metadata={"nback": {"nn": 3}})
    with pytest.raises(ValueError, match="igt parameter 'p_loss\\[1\\]' must be a number in"):
        evaluate(["cog_igt"], metadata={"igt": {"p_loss": [0.5, 1.5, 0.5, 0.1]}})


def test_transcripts_rescore_to_the_reported_numbers():
    """Each sample's transcript recomputes its metrics offline."""
    from lm_eval_cog.transcripts import score_transcript

    out = evaluate(["cog_igt_hard", "cog_prlt"], policy="random", limit=2)
    for task in ("cog_igt_hard", "cog_prlt"):
        for sample in out["samples"][task]:
            rescored = score_transcript(json.loads(sample["resps"][0][0]), get_paradigm(task.split("_")[1]))
            assert rescored["score"] == pytest.approx(sample["score"])
