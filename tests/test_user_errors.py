"""A misspelt argument is refused, never silently ignored: the error names the argument,
suggests the intended name and lists the allowed ones. Each mistake of issue 30 goes through the
real ``lm_eval`` command, where it must end with our one line, no traceback, within seconds
(``lmeval/preflight.py`` checks before lm-eval's task index is built); the other cases
call the same code lm-eval calls (model construction from ``--model_args``, task building
with ``--metadata``) in-process, which spares CI a process start-up each."""

from __future__ import annotations

import subprocess
import time

import pytest
from lm_eval.tasks import TaskManager, get_task_dict

from lm_eval_cli import LM_EVAL, cog_env
from lm_eval_cog._autoload import task_dir
from lm_eval_cog.lmeval.baseline_model import BaselineLM
from lm_eval_cog.lmeval.metadata_keys import check_metadata_keys


def refusal(tmp_path, *args: str, full_index: bool = True) -> tuple[str, float]:
    """The one stderr line of an ``lm_eval`` run refused before lm-eval's task index, and its seconds.

    ``full_index``: as a user runs it (no LM_EVAL_COG_TASKS_ONLY): lm-eval's index of ~14,000 YAMLs
    alone costs ~19 s of CPU here, so the time limit below fails if the check comes after it."""
    env = cog_env(full_index=full_index)
    cmd = [LM_EVAL, "--model", "cog_baseline", "--limit", "1", "--output_path", str(tmp_path / "out"), *args]
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    seconds = time.perf_counter() - start
    assert proc.returncode == 2, f"{' '.join(cmd)}: exit {proc.returncode}\n{proc.stderr[-3000:]}"
    assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr[-3000:]
    assert not (tmp_path / "out").exists()
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("error: "), proc.stderr[-3000:]
    return last, seconds


#: The mistakes of issue 30 item 1, through the real command: (arguments, the start of the one line).
#: Before the pre-flight check each took 18-53 s and ended a 20-53-line traceback.
MISTAKES = {
    "model_args": (("--model_args", "polcy=optimal,foo=1", "--tasks", "cog_wcst_direct"),
                   "error: Unknown cog_baseline model_args 'foo'. Allowed: policy. "
                   "Unknown cog_baseline model_args 'polcy'. Did you mean: policy? Allowed: policy."),
    "policy": (("--model_args", "policy=optimall", "--tasks", "cog_wcst_direct"),
               "error: Unknown cog_baseline policy 'optimall'. Did you mean: optimal? Allowed: "),
    "policy_of_the_task": (("--model_args", "policy=wsls", "--tasks", "cog_stroop_mc"),
                           "error: cog_stroop_mc: Unknown probe policy 'wsls'. Allowed: heuristic, optimal, prepotent, "
                           "random."),
    "parameter_at_top_level": (("--model_args", "policy=optimal", "--tasks", "cog_wcst_direct",
                                "--metadata", '{"triles": 5}'),
                               "error: --metadata key 'triles' is not a run option but looks like a wcst parameter "
                               "(did you mean 'trials'?): parameters go under the 'wcst' key, e.g. "
                               """--metadata '{"wcst": {"trials": 5}}'"""),
    "override_key": (("--model_args", "policy=optimal", "--tasks", "cog_wcst_direct",
                      "--metadata", '{"wcts": {"trials": 3}}'),
                     "error: Unknown --metadata key (a dict of parameter overrides) 'wcts'. Did you mean: wcst? "),
    "run_key": (("--model_args", "policy=optimal", "--tasks", "cog_stroop_mc", "--metadata", '{"sed": 3}'),
                "error: Unknown --metadata key 'sed'. Did you mean: seed? Allowed: "),
    "non_integer": (("--model_args", "policy=optimal", "--tasks", "cog_stroop_mc", "--metadata", '{"items": "many"}'),
                    "error: metadata parameter 'items' must be a positive int, got 'many'"),
    "num_fewshot": (("--model_args", "policy=optimal", "--tasks", "cog_wcst_direct", "--num_fewshot", "2"),
                    "error: cog_wcst_direct: --num_fewshot 2 is not supported by interactive tasks."),
    "task_name": (("--model_args", "policy=optimal", "--tasks", "cog_wcts"),
                  "error: Tasks not found: cog_wcts. Did you mean: cog_wcst, cog_wpt, cog_wcst_hao? "
                  "(lm-eval-cog tasks lists this package's tasks, lm-eval ls tasks every task)"),
}
#: Seconds a refusal may take on a loaded 2-core CI machine (measured: 2-6 s; lm-eval's task index alone ~19 s).
REFUSAL_SECONDS = 15


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_a_mistake_through_lm_eval_ends_with_one_line_before_the_task_index(tmp_path, mistake):
    args, expected = MISTAKES[mistake]
    line, seconds = refusal(tmp_path, *args)
    assert line.startswith(expected), line
    assert seconds < REFUSAL_SECONDS, f"{mistake}: {seconds:.1f} s"
    if mistake == "policy":
        assert ", heuristic, " in line  # the list is complete: heuristic works and is named
    print(f"{mistake}: {seconds:.1f} s")  # -s shows the times the docs quote


def test_a_misspelt_name_that_is_not_ours_gets_lm_evals_message_in_one_line(tmp_path):
    # Not cog_*: only lm-eval's index can tell, so this one comes after it (our folder alone here).
    line, _ = refusal(tmp_path, "--model_args", "policy=optimal", "--tasks", "wcst_direct", full_index=False)
    assert line.startswith("error: Tasks not found: wcst_direct. Did you mean: cog_wcst_direct, "), line
    assert line.endswith("? (lm-eval-cog tasks lists this package's tasks, lm-eval ls tasks every task)"), line


def test_a_good_run_is_not_refused(tmp_path):
    """The pre-flight check passes what lm-eval's own tasks and models need (``--model_args`` merged
    into the metadata) and the other tasks' parameters; the run then goes on as before."""
    from lm_eval_cog.lmeval.preflight import check_run

    check_run(model="hf", model_args={"pretrained": "x", "max_length": 2048},
              tasks=["cog_wcst_direct,cog_stroop_mc", "mmlu"],
              metadata={"pretrained": "x", "max_length": 2048, "wcst": {"trials": 3}, "stroop": {"colours": 4},
                        "episodes": 2, "items": 4, "seed": 7},
              num_fewshot=0)
    check_run(model="cog_baseline", model_args={"policy": "perseverative"}, tasks=["cog_wcst"],
              metadata={"policy": "perseverative"})
    check_run(model="hf", model_args={}, tasks=["cog_not_here"], metadata={}, include_path="/some/folder")


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


@pytest.mark.parametrize("policy", ["random", "optimal"])
def test_every_task_and_group_of_ours_passes_the_pre_flight_check_with_its_own_settings(policy):
    """No false refusal: each of our 174 names, with its YAML's metadata, cog_baseline's two universal
    policies and lm-eval's merge of --model_args into the metadata."""
    from lm_eval_cog.lmeval.preflight import check_run
    from lm_eval_cog.task_index import entries

    for name in sorted(entries()):
        check_run(model="cog_baseline", model_args={"policy": policy}, tasks=[name], metadata={"policy": policy})


def _time_table() -> str:
    """The docs' table (docs/internals.md): each mistake's line and seconds, as a user runs it (lm-eval's
    full task index on) and with LM_EVAL_COG_TASKS_ONLY=1. Run: python tests/test_user_errors.py"""
    import tempfile
    from pathlib import Path

    rows = ["| mistake | arguments | the one line (start) | s | s, TASKS_ONLY=1 |", "|---|---|---|---|---|"]
    for name in sorted(MISTAKES):
        args, expected = MISTAKES[name]
        times = []
        for full in (True, False):
            with tempfile.TemporaryDirectory() as tmp:
                line, seconds = refusal(Path(tmp), *args, full_index=full)
                assert line.startswith(expected), line
                times.append(f"{seconds:.1f}")
        shown = " ".join(a if " " not in a and "{" not in a else f"'{a}'" for a in args)
        rows.append(f"| {name} | `{shown}` | `{expected[:70].rstrip()}...` | {times[0]} | {times[1]} |")
    return "\n".join(rows)


if __name__ == "__main__":
    print(_time_table())
