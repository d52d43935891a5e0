"""What a new user tries from lm-eval's CLI and Python API on our tasks: each works or is refused at once.

The CLI options that simply work are batched into ONE real ``lm_eval`` run (``--model
dummy``, instant): ``--show_config``, a fractional ``--limit``, ``--predict_only``,
``--hf_hub_log_args`` without pushing, ``--write_out`` and a task mix with an ordinary
lm-eval task (a local multiple-choice YAML over a JSON file, so nothing downloads).
The rest run in-process with lm-eval's own ``simple_evaluate``.
"""

from __future__ import annotations

import glob
import json
import math
import subprocess
import textwrap
from pathlib import Path

import pytest
from lm_eval import simple_evaluate
from lm_eval.tasks import TaskManager

from lm_eval_cog._autoload import task_dir
from lm_eval_cog.lmeval.baseline_model import BaselineLM
from lm_eval_cog.paradigms import make_env
from lm_eval_cli import LM_EVAL, cog_env, write_yes_no_task

# An expensive module fixture: every test of this module on one xdist worker (scripts/test.sh).
pytestmark = pytest.mark.xdist_group("cli_user_paths")

MIXED_TASK = "zz_local_yes_no"


def _first_prompt(task_seed: int, trials: int, system_instruction: str | None = None) -> str:
    """The first plain-format prompt of cog_wcst_direct's episode 0, built from the paradigm."""
    from lm_eval_cog.paradigms.base import episode_seed

    env = make_env({"paradigm": "wcst", "preset": "wcst64", "strategy": "direct", "overrides": {"trials": trials}})
    message, _ = env.reset(seed=episode_seed(task_seed, 0))
    system = env.system_prompt if not system_instruction else f"{system_instruction}\n\n{env.system_prompt}"
    return f"{system}\n\nUser: {message}\nAssistant:"


@pytest.fixture(scope="module")
def cli_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cli")
    rows = [{"question": f"Is {i} even?", "answer": i % 2} for i in range(10)]
    local = write_yes_no_task(tmp / "local_tasks", MIXED_TASK, rows)
    env = cog_env()
    cmd = [
        LM_EVAL, "--model", "dummy", "--tasks", f"cog_wcst_direct,{MIXED_TASK}", "--include_path", str(local),
        "--metadata", json.dumps({"episodes": 20, "wcst": {"trials": 3}}),
        "--limit", "0.1", "--predict_only", "--log_samples", "--show_config", "--write_out",
        "--hf_hub_log_args", "push_results_to_hub=False,push_samples_to_hub=False,results_repo_name=r,details_repo_name=d",
        "--output_path", str(tmp / "out"),
    ]  # fmt: skip
    proc = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"{' '.join(cmd)}\n--- stderr ---\n{proc.stderr[-6000:]}"
    (results,) = glob.glob(str(tmp / "out" / "*" / "results_*.json"))
    samples = {
        task: [json.loads(line) for line in Path(path).read_text().splitlines()]
        for task in ("cog_wcst_direct", MIXED_TASK)
        for path in glob.glob(str(tmp / "out" / "*" / f"samples_{task}_*.jsonl"))
    }
    return proc, json.loads(Path(results).read_text()), samples


def test_fractional_limit_takes_that_share_of_the_episodes(cli_run):
    _, results, samples = cli_run
    assert results["n-samples"]["cog_wcst_direct"] == {"original": 20, "effective": 2}
    assert results["n-samples"][MIXED_TASK]["original"] == 10
    assert len(samples["cog_wcst_direct"]) == 2 and len(samples[MIXED_TASK]) == 1


def test_predict_only_keeps_the_transcripts_of_our_tasks_beside_an_ordinary_task(cli_run):
    _, results, samples = cli_run
    transcript = json.loads(samples["cog_wcst_direct"][0]["resps"][0][0])
    assert transcript["status"] == "completed" and len(transcript["turns"]) == 3  # --metadata trials: 3
    assert len(samples[MIXED_TASK]) == 1 and samples[MIXED_TASK][0]["doc"]["question"] == "Is 0 even?"
    assert "bypass,none" in results["results"]["cog_wcst_direct"]
    assert not any(key.startswith("acc") for key in results["results"]["cog_wcst_direct"])


def test_show_config_prints_the_results_with_our_task_config_and_its_metadata(cli_run):
    stdout = cli_run[0].stdout
    shown, _ = json.JSONDecoder().raw_decode(stdout[stdout.index("{"):])  # lm-eval prints the results JSON
    metadata = shown["configs"]["cog_wcst_direct"]["metadata"]
    assert metadata["paradigm"] == "wcst" and metadata["wcst"] == {"trials": 3} and metadata["episodes"] == 20


def test_write_out_prints_the_real_first_prompt_of_the_episode(cli_run):
    proc, _, samples = cli_run
    expected = _first_prompt(1234, 3)
    assert expected in proc.stdout + proc.stderr
    assert samples["cog_wcst_direct"][0]["arguments"]["gen_args_0"]["arg_0"] == expected


def test_hf_hub_log_args_without_pushing_write_the_ordinary_local_files(cli_run):
    _, results, _ = cli_run
    assert results["config"]["model"] == "dummy" and "cog_wcst_direct" in results["configs"]


def test_ls_tasks_shows_every_task_with_its_output_type():
    # What `lm_eval ls tasks` prints (lm-eval's TaskManager.list_all_tasks), for our folder alone:
    # interactive tasks show generate_until (the type --gen_kwargs applies to), the static probes'
    # _mc forms multiple_choice, every other task (_gen forms, oddball, visual probe) generate_until.
    table = TaskManager(include_path=str(task_dir()), include_defaults=False).list_all_tasks(list_groups=False, list_tags=False)
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in table.splitlines() if line.startswith("|cog_")]
    expected = {
        p.stem: "multiple_choice" if p.stem.endswith("_mc") and p.parent.name == "probes" else "generate_until"
        for p in task_dir().rglob("cog_*.yaml")
    }
    assert {row[0]: row[-1] for row in rows} == expected
    assert sum("InteractiveTask" in p.read_text() for p in task_dir().rglob("cog_*.yaml")) >= 40


# ---------------------------------------------------------------- in-process (simple_evaluate)


def _evaluate(tasks, **kwargs):
    manager = kwargs.pop("task_manager", None) or TaskManager(
        include_path=str(task_dir()), include_defaults=False, metadata=kwargs.pop("metadata", None)
    )
    return simple_evaluate(model=BaselineLM(policy="optimal"), tasks=tasks, task_manager=manager, log_samples=True,
                           bootstrap_iters=0, **kwargs)  # fmt: skip


def test_num_fewshot_is_refused_at_once_with_a_reason():
    with pytest.raises(ValueError, match=r"cog_wcst_direct: --num_fewshot 2 is not supported by interactive tasks"):
        _evaluate(["cog_wcst_direct"], limit=1, num_fewshot=2)


def test_num_fewshot_zero_is_accepted_and_reported_as_zero_shot():
    out = _evaluate(["cog_wcst_direct"], limit=1, num_fewshot=0)
    assert out["n-shot"]["cog_wcst_direct"] == 0
    assert not math.isnan(out["results"]["cog_wcst_direct"]["score_chance,none"])


def test_cache_requests_never_replays_requests_built_with_other_parameters(tmp_path, monkeypatch):
    import lm_eval.caching.cache as request_cache

    monkeypatch.setattr(request_cache, "PATH", str(tmp_path))
    first = _evaluate(["cog_wcst_direct"], limit=1, cache_requests=True, metadata={"wcst": {"trials": 8}})
    second = _evaluate(["cog_wcst_direct"], limit=1, cache_requests=True, metadata={"wcst": {"trials": 4}})
    turns = [len(json.loads(o["samples"]["cog_wcst_direct"][0]["resps"][0][0])["turns"]) for o in (first, second)]
    assert turns == [8, 4]
    assert second["configs"]["cog_wcst_direct"]["metadata"]["wcst"] == {"trials": 4}


def test_write_out_prompt_carries_the_system_instruction_and_the_seed():
    manager = TaskManager(include_path=str(task_dir()), include_defaults=False, metadata={"wcst": {"trials": 2}})
    out = simple_evaluate(model=BaselineLM(policy="optimal"), tasks=["cog_wcst_direct"], task_manager=manager, limit=1,
                          log_samples=True, bootstrap_iters=0, system_instruction="Be brief.", fewshot_random_seed=7)  # fmt: skip
    assert out["samples"]["cog_wcst_direct"][0]["arguments"][0][0] == _first_prompt(7, 2, "Be brief.")


PYTHON_API_SNIPPET = textwrap.dedent(
    """
    from lm_eval import simple_evaluate
    from lm_eval.tasks import TaskManager

    results = simple_evaluate(
        model="cog_baseline",                  # or "hf" with model_args="pretrained=...,dtype=float32"
        model_args="policy=optimal",
        tasks=["cog_wcst_direct"],
        # --metadata goes to the TaskManager: simple_evaluate(metadata=...) reaches only
        # a TaskManager that lm-eval builds itself, not one passed in.
        task_manager=TaskManager(metadata={"episodes": 4, "wcst": {"trials": 16}}),
        device="cpu",                          # lm-eval's Python API defaults to CUDA
        limit=2,
    )
    print(results["results"]["cog_wcst_direct"]["score,none"])
    """
)


def test_readme_python_api_snippet_runs_as_written(capsys):
    exec(compile(PYTHON_API_SNIPPET, "README Python API", "exec"), {})  # noqa: S102 - the README's text, verbatim
    printed = float(capsys.readouterr().out.strip().splitlines()[-1])
    # The snippet's metadata really reached the tasks: the same run with the metadata given
    # to our own TaskManager, and not the default 64 trials (a different score).
    assert printed == pytest.approx(100 * _optimal_acc(16))
    assert printed != pytest.approx(100 * _optimal_acc(64))


def _optimal_acc(trials: int) -> float:
    out = _evaluate(["cog_wcst_direct"], limit=2, metadata={"episodes": 4, "wcst": {"trials": trials}})
    return out["results"]["cog_wcst_direct"]["acc,none"]


def test_metadata_beside_an_own_task_manager_is_not_dropped_silently():
    manager = TaskManager(include_path=str(task_dir()), include_defaults=False)
    with pytest.warns(UserWarning, match=r"does not reach the tasks when task_manager= is given.*wcst ignored"):
        out = simple_evaluate(model=BaselineLM(policy="optimal"), tasks=["cog_wcst_direct"], task_manager=manager,
                              metadata={"wcst": {"trials": 2}}, limit=1, log_samples=True, bootstrap_iters=0)  # fmt: skip
    # lm-eval's behaviour is unchanged: the metadata really was dropped (64 trials, not 2).
    assert len(json.loads(out["samples"]["cog_wcst_direct"][0]["resps"][0][0])["turns"]) == 64


def test_metadata_that_reached_the_task_manager_gives_no_warning(recwarn):
    manager = TaskManager(include_path=str(task_dir()), include_defaults=False, metadata={"wcst": {"trials": 2}})
    simple_evaluate(model=BaselineLM(policy="optimal"), tasks=["cog_wcst_direct"], task_manager=manager,
                    metadata={"wcst": {"trials": 2}}, limit=1, bootstrap_iters=0)  # fmt: skip
    assert not [w for w in recwarn if "does not reach the tasks" in str(w.message)]
