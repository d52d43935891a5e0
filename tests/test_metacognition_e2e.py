"""End to end: CogProbe's interactive pieces with the real SmolLM2-135M-Instruct through the stock
``lm_eval`` command, in one invocation: Wason's 2-4-6 (a shortened query budget) and the reflection
pass over a static probe; the logged transcripts rescore offline to the results JSON."""

from __future__ import annotations

import glob
import json
import math
from pathlib import Path

import pytest

from lm_eval_cog.transcripts import read_transcripts, recompute
from test_e2e_cli import run_lm_eval, smollm2_dir

TASKS = ["cog_wason246_direct", "cog_syllogism_reflect"]


def test_smollm2_plays_wason246_and_a_reflection_pass_and_transcripts_rescore(tmp_path):
    model = smollm2_dir()
    run_lm_eval(
        tmp_path,
        "--model", "hf",
        "--model_args", f"pretrained={model},dtype=float32,max_length=2048",
        "--tasks", ",".join(TASKS),
        "--limit", "1",
        "--apply_chat_template",
        "--gen_kwargs", "max_gen_toks=40",
        "--metadata", json.dumps({"wason246": {"max_queries": 2, "max_invalid": 1}}),
    )
    (path,) = glob.glob(str(tmp_path / "out" / "*" / "results_*.json"))
    results = json.loads(Path(path).read_text())["results"]
    for task in TASKS:
        row = results[task]
        assert row["episode_failed,none"] == 0.0, task
        (samples,) = glob.glob(str(tmp_path / "out" / "*" / f"samples_{task}_20*.jsonl"))
        transcripts = list(read_transcripts(samples))
        assert len(transcripts) == 1 and all(t["status"] in ("completed", "truncated") for t in transcripts)
        for name, value in recompute(samples).items():
            reported = row[f"{name},none"]
            if reported is None:  # undefined: null in the (strict JSON) results file
                assert math.isnan(value), (task, name)
            else:
                assert value == pytest.approx(reported), (task, name)
    assert 0.0 <= results["cog_wason246_direct"]["acc,none"] <= 1.0
    assert 0.0 <= results["cog_syllogism_reflect"]["acc_first,none"] <= 1.0
