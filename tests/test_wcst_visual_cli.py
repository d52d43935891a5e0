"""The visual WCST through the real ``lm_eval`` command line, with the scripted VLM that reads the
cards from the pixels (``scripted_vlm.py``; ``scripted_vlm_cli.py`` registers it, then runs
lm-eval's own ``cli_evaluate()``). One run of both tasks, ~30 s on 2 cores; and the message a
text-only model gets."""

from __future__ import annotations

import glob
import json
import subprocess
import sys
from pathlib import Path

from lm_eval_cli import LM_EVAL, cog_env

from lm_eval_cog.transcripts import read_transcripts, recompute

LAUNCHER = Path(__file__).resolve().parent / "scripted_vlm_cli.py"


def test_scripted_vlm_completes_five_categories_and_describes_every_image_through_the_cli(tmp_path):
    cmd = [
        sys.executable, str(LAUNCHER), "--model", "cog_scripted_vlm",
        "--tasks", "cog_wcst_visual,cog_wcst_visual_probe", "--apply_chat_template",
        # Two episodes of the visual WCST; the probe's 64 images (its dataset ignores "episodes").
        "--metadata", '{"episodes": 2}',
        "--output_path", str(tmp_path / "out"), "--log_samples",
    ]  # fmt: skip
    proc = subprocess.run(cmd, cwd=tmp_path, env=cog_env(), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-6000:]
    (results,) = glob.glob(str(tmp_path / "out" / "*" / "results_*.json"))
    rows = json.loads(Path(results).read_text())["results"]
    wcst, probe = rows["cog_wcst_visual"], rows["cog_wcst_visual_probe"]
    assert wcst["categories_completed,none"] == 5 and wcst["episode_failed,none"] == 0
    assert probe["acc_overall,none"] == 100 and probe["acc_overall_eq10,none"] == 400 and probe["penalty,none"] == 0

    (samples,) = glob.glob(str(tmp_path / "out" / "*" / "samples_cog_wcst_visual_2*.jsonl"))  # not _probe_
    episodes = read_transcripts(samples)
    assert len(episodes) == 2 and all(len(t["trials"]) == 64 for t in episodes)
    assert all(t["turns"][k]["image"] == {"trial": k + 1} for t in episodes for k in range(64))
    assert "base64" not in Path(samples).read_text()  # what the images showed, never their pixels
    assert recompute(samples)["categories_completed"] == 5
    (probe_samples,) = glob.glob(str(tmp_path / "out" / "*" / "samples_cog_wcst_visual_probe_*.jsonl"))
    assert sum(1 for _ in open(probe_samples)) == 64


def test_a_text_only_model_is_told_the_task_needs_a_multimodal_model(tmp_path):
    proc = subprocess.run(
        [LM_EVAL, "--model", "dummy", "--tasks", "cog_wcst_visual", "--limit", "1", "--output_path", str(tmp_path)],
        env=cog_env(), capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode != 0
    assert "['cog_wcst_visual'] which require multimodal input" in proc.stderr
    assert "['hf-multimodal', 'vllm-vlm']" in proc.stderr


def test_real_hf_multimodal_path_with_a_tiny_random_llava(tmp_path):
    # lm-eval's own HFMultimodalLM: <image> -> the model's image token, the processor expands each
    # into IMAGE_TOKENS tokens; the seam's prompt_tokens must be that real count, not tok_encode's.
    import pytest

    try:
        from lm_eval_cog.smollm2 import model_dir

        tokenizer_dir = str(model_dir())
    except FileNotFoundError as exc:
        pytest.skip(f"embedded SmolLM2 tokenizer not installed: {exc}")
    import tiny_llava
    from transformers import AutoTokenizer

    from lm_eval_cog.transcripts import rebuild_prompt

    model = tiny_llava.build(tmp_path / "llava", tokenizer_dir)
    cmd = [
        LM_EVAL, "--model", "hf-multimodal", "--model_args", f"pretrained={model},max_length=2048,dtype=float32",
        "--tasks", "cog_wcst_visual_direct,cog_wcst_visual_probe", "--limit", "2", "--gen_kwargs", "max_gen_toks=4",
        "--metadata", '{"wcst": {"trials": 4}}', "--output_path", str(tmp_path / "out"), "--log_samples",
    ]  # fmt: skip
    proc = subprocess.run(cmd, cwd=tmp_path, env=cog_env(), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-6000:]
    (samples,) = glob.glob(str(tmp_path / "out" / "*" / "samples_cog_wcst_visual_direct_*.jsonl"))
    tok = AutoTokenizer.from_pretrained(model)
    for t in read_transcripts(samples):
        assert t["status"] == "completed" and len(t["trials"]) == 4
        for k, turn in enumerate(t["turns"]):
            text_tokens = len(tok(rebuild_prompt(t, k))["input_ids"])  # <image> is one token here
            assert turn["prompt_tokens"] == text_tokens + (k + 1) * (tiny_llava.IMAGE_TOKENS - 1)
    (probe,) = glob.glob(str(tmp_path / "out" / "*" / "samples_cog_wcst_visual_probe_*.jsonl"))
    assert sum(1 for _ in open(probe)) == 2
