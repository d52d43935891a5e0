"""A misspelt argument is refused, never silently ignored: the error names the argument,
suggests the intended name and lists the allowed ones. One run per kind (model_args, policy,
metadata) goes through the real ``lm_eval`` command (where lm-eval's traceback must end with
our line); the other cases
call the same code lm-eval calls (model construction from ``--model_args``, task building
with ``--metadata``) in-process, which spares CI a process start-up each."""

from __future__ import annotations

import subprocess

import pytest
from lm_eval.tasks import TaskManager, get_task_dict

from lm_eval_cli import LM_EVAL, cog_env
from lm_eval_cog._autoload import task_dir
from lm_eval_cog.lmeval.baseline_model import BaselineLM
from lm_eval_cog.lmeval.metadata_keys import check_metadata_keys


def refusal(tmp_path, *args: str) -> str:
    """The last stderr line of an ``lm_eval`` run that must fail before writing anything."""
    env = cog_env()
    cmd = [LM_EVAL, "--model", "cog_baseline", "--limit", "1", "--output_path", str(tmp_path / "out"), *args]
    proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode != 0, f"{' '.join(cmd)} was accepted"
    assert not (tmp_path / "out").exists()
    return proc.stderr.strip().splitlines()[-1]


def test_misspelt_model_args_end_lm_evals_output_naming_themselves(tmp_path):
    # Before: `polcy=optimal,foo=1` ran the random policy with exit 0.
    line = refusal(tmp_path, "--model_args", "polcy=optimal,foo=1", "--tasks", "cog_wcst_direct")
    assert line == ("ValueError: Unknown cog_baseline model_args 'foo'. Allowed: policy. "
                    "Unknown cog_baseline model_args 'polcy'. Did you mean: policy? Allowed: policy."), line


def test_misspelt_policy_ends_lm_evals_output_with_every_policy(tmp_path):
    line = refusal(tmp_path, "--model_args", "policy=optimall", "--tasks", "cog_wcst_direct")
    assert line.startswith("ValueError: Unknown cog_baseline policy 'optimall'. Did you mean: optimal? Allowed: "), line
    assert ", heuristic, " in line  # the list is complete: heuristic works and is named


def test_misspelt_metadata_key_ends_lm_evals_output_naming_itself(tmp_path):
    line = refusal(tmp_path, "--model_args", "policy=optimal", "--tasks", "cog_wcst_direct",
                   "--metadata", '{"wcts": {"trials": 3}}')
    assert line.startswith("ValueError: Unknown --metadata key (a dict of parameter overrides) 'wcts'. "
                           "Did you mean: wcst? Allowed: "), line


@pytest.mark.parametrize(
    "model_args, expected",
    [
        ("policy=optimall", "Unknown cog_baseline policy 'optimall'. Did you mean: optimal? Allowed: "),
        ("Policy=optimal", "Unknown cog_baseline model_args 'Policy'. Did you mean: policy? Allowed: policy."),
    ],
)
def test_misspelt_model_args_and_policies_are_refused(model_args, expected):
    with pytest.raises(ValueError) as info:
        BaselineLM.create_from_arg_string(model_args, {"batch_size": 1, "max_batch_size": None, "device": None})
    assert str(info.value).startswith(expected), info.value


def test_the_list_of_every_policy_is_complete():
    with pytest.raises(ValueError) as info:
        BaselineLM(policy="optimall")
    allowed = str(info.value).split("Allowed: ")[1].rstrip(".").split(", ")
    assert {"heuristic", "optimal", "random", "prepotent", "perseverative", "wsls"} <= set(allowed)
    for policy in allowed:  # each one is accepted
        BaselineLM(policy=policy)


def test_lm_evals_own_generic_arguments_are_accepted():
    assert BaselineLM.create_from_arg_string("policy=optimal", {"batch_size": 8, "device": "cpu"}).policy == "optimal"


def test_a_policy_of_other_paradigms_names_this_paradigms_list():
    from lm_eval_cog.paradigms import get_paradigm

    wcst = get_paradigm("wcst")
    with pytest.raises(ValueError, match=r"^Unknown wcst policy 'wsls'\. Allowed: heuristic, optimal, perseverative, random\.$"):
        wcst.make_agent("wsls", wcst.make_params(), None)


@pytest.mark.parametrize(
    "metadata, expected",
    [
        ({"wcst": {"trails": 3}}, "Unknown wcst parameter 'trails'. Did you mean: trials?"),
        ({"sed": 3}, "Unknown --metadata key 'sed'. Did you mean: seed?"),
        ({"episode": 3}, "Unknown --metadata key 'episode'. Did you mean: episodes, episodic_memory?"),
        ({"stroop": {"colour": 6}}, "Unknown stroop parameter 'colour'. Did you mean: colours?"),
        ({"strop": {"colours": 6}}, "Unknown --metadata key (a dict of parameter overrides) 'strop'. Did you mean: stroop?"),
    ],
)
def test_misspelt_metadata_keys_are_refused_when_the_tasks_are_built(metadata, expected):
    manager = TaskManager(include_defaults=False, include_path=str(task_dir()), metadata=metadata)
    with pytest.raises(ValueError) as info:
        get_task_dict(["cog_wcst_direct", "cog_stroop_mc", "cog_oddball"], manager)
    assert str(info.value).startswith(expected), info.value


def test_keys_of_other_tasks_and_of_model_args_pass_through():
    """lm-eval merges --model_args and other tasks' metadata into ours: those are not ours to refuse."""
    check_metadata_keys({"max_seq_lengths": [4096], "pretrained": "x", "dtype": "float32", "policy": "random",
                         "wcst": {"trials": 3}, "nback": {}, "stroop": {}, "variant": {"fixed_rule": "shape"}})
