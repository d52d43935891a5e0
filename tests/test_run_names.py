"""Reference players' runs land in readable folders (``cog_baseline__<policy>``), other models' as lm-eval names them.

The end-to-end check through ``lm_eval --output_path`` is in test_e2e_cli.py
(``test_reference_agent_model_writes_ordinary_results_in_a_folder_named_after_its_policy``).
"""

from __future__ import annotations

from lm_eval.loggers.evaluation_tracker import GeneralConfigTracker

from lm_eval_cog.lmeval import run_names


def _logged(model: str, model_args) -> GeneralConfigTracker:
    run_names.install()
    tracker = GeneralConfigTracker()
    tracker.log_experiment_args(model, model_args, None, None, False)
    return tracker


def test_a_baseline_run_is_named_after_its_policy_text_or_dict_args():
    assert _logged("cog_baseline", "policy=heuristic").model_name_sanitized == "cog_baseline__heuristic"
    assert _logged("cog_baseline", {"policy": "optimal"}).model_name_sanitized == "cog_baseline__optimal"
    assert _logged("cog_baseline", "batch_size=2, policy=perseverative").model_name == "cog_baseline/perseverative"


def test_a_baseline_run_without_a_policy_is_named_after_the_default_one():
    assert _logged("cog_baseline", "").model_name_sanitized == "cog_baseline__random"


def test_other_models_keep_lm_evals_names():
    assert _logged("hf", "pretrained=org/model,dtype=float32").model_name_sanitized == "org__model"
    # lm-eval's random name for a model without a name argument: 8 characters, not ours.
    assert not _logged("dummy", "").model_name.startswith("cog_baseline")


def test_install_is_idempotent():
    run_names.install()
    wrapped = GeneralConfigTracker.log_experiment_args
    run_names.install()
    assert GeneralConfigTracker.log_experiment_args is wrapped
