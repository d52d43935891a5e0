"""End to end: every static probe, both forms, with the real SmolLM2-135M-Instruct through the
stock ``lm_eval`` command, in one invocation (CPU budget: one item per task, capped replies: the
run costs about 1.5 s per 1,000 prompt tokens on one CPU thread, so two items per task took 400 s of
the CI's 2-core budget; every condition and effect on many items, and the scorer's agreement with
lm-eval, are pinned by test_probe_lmeval with the reference players)."""

from __future__ import annotations

import glob
import json
import math
from pathlib import Path

from lm_eval_cog.probes.core import REGISTRY, get_probe
from test_e2e_cli import run_lm_eval, smollm2_dir

LIMIT = 1


def test_smollm2_runs_cog_static_with_per_condition_metrics_and_group_scores(tmp_path):
    model = smollm2_dir()
    run_lm_eval(
        tmp_path,
        "--model", "hf",
        "--model_args", f"pretrained={model},dtype=float32,max_length=2048",
        "--tasks", "cog_static",
        "--limit", str(LIMIT),
        "--batch_size", "8",
        "--apply_chat_template",
        # 16 tokens hold an "Answer: ..." line; what this test pins is the pipeline, not the replies.
        "--gen_kwargs", "max_gen_toks=16",
    )
    (path,) = glob.glob(str(tmp_path / "out" / "*" / "results_*.json"))
    results = json.loads(Path(path).read_text())["results"]
    for name in REGISTRY:
        probe = get_probe(name)
        docs = probe.generate(1234, min(probe.default_items, 2 * LIMIT))
        for form, key in (("mc", "none"), ("gen", "answer_line")):
            got = results[f"cog_{name}_{form}"]
            assert 0.0 <= got[f"acc,{key}"] <= 1.0
            asked = [d for d in docs if probe.in_form(d, form)][:LIMIT]  # --limit: the form's first LIMIT
            for condition in {probe.scored_condition(d) for d in asked} - {None}:
                assert 0.0 <= got[f"acc_{condition},{key}"] <= 1.0, (name, form, condition)
            for effect in probe.form_effects(form):  # present; NaN where --limit left a side out
                assert f"{effect},{key}" in got
        assert 0.0 <= results[f"cog_{name}_gen"]["invalid_rate,answer_line"] <= 1.0
        assert not math.isnan(results[f"cog_{name}_mc"]["acc_norm,none"])
    # Each form has its own group score; no group averages the two forms.
    assert 0.0 <= results["cog_static_mc"]["acc,none"] <= 1.0
    assert 0.0 <= results["cog_static_gen"]["acc,answer_line"] <= 1.0
    assert "acc,answer_line" not in results["cog_static_mc"] and "acc,none" not in results["cog_static_gen"]
    # Every reply is logged with the answer line lm-eval's filter read from it.
    (samples,) = glob.glob(str(tmp_path / "out" / "*" / "samples_cog_stroop_gen_*.jsonl"))
    rows = [json.loads(line) for line in Path(samples).read_text().splitlines()]
    assert len(rows) == LIMIT and all(isinstance(r["filtered_resps"][0], str) for r in rows)
