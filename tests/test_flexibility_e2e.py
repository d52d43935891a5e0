"""End to end: every text task of the flexibility suite with the real SmolLM2-135M-Instruct through
the stock ``lm_eval`` command, in one invocation (one shortened episode per task, capped replies:
the point is that every variant runs on a real model, not the model's score)."""

from __future__ import annotations

import glob
import json
import math
from pathlib import Path

from test_e2e_cli import run_lm_eval, smollm2_dir

# cog_flexibility brings cog_wcst_kennedy_direct and cog_lnt_direct (lm-eval refuses a task named twice).
GROUP_MEMBERS = ["cog_wcst_kennedy_direct", "cog_lnt_direct"]
TASKS = [
    "cog_lnt", "cog_lnt_letter", "cog_lnt_number", "cog_wcst_kennedy_shape", "cog_wcst_kennedy_colour", "cog_wcst_kennedy_number",
    "cog_wcst_alien", "cog_wcst_alien_direct", "cog_wcst_no_exclusivity",
    "cog_wcst_impaired_goal", "cog_wcst_impaired_inhibition", "cog_wcst_impaired_updating",
]
TRIALS = 4


def test_smollm2_plays_every_flexibility_variant_through_the_stock_cli(tmp_path):
    model = smollm2_dir()
    run_lm_eval(
        tmp_path,
        "--model", "hf",
        "--model_args", f"pretrained={model},dtype=float32,max_length=2048",
        "--tasks", ",".join(TASKS) + ",cog_flexibility",
        "--limit", "1",
        "--apply_chat_template",
        "--gen_kwargs", "max_gen_toks=8",
        "--metadata", json.dumps({"wcst": {"trials": TRIALS}, "lnt": {"trials": TRIALS}}),
    )
    (path,) = glob.glob(str(tmp_path / "out" / "*" / "results_*.json"))
    results = json.loads(Path(path).read_text())["results"]
    for task in TASKS + GROUP_MEMBERS:
        row = results[task]
        assert row["episode_failed,none"] == 0.0, task
        assert 0.0 <= row["acc,none"] <= 1.0 and 0.0 <= row["invalid_rate,none"] <= 1.0, task
        (samples,) = glob.glob(str(tmp_path / "out" / "*" / f"samples_{task}_20*.jsonl"))
        (line,) = Path(samples).read_text().splitlines()
        transcript = json.loads(json.loads(line)["resps"][0][0])
        assert len(transcript["turns"]) == TRIALS, task  # the task's variant survived --metadata
    assert not math.isnan(results["cog_flexibility"]["acc,none"])
