"""The real vLLM code path (vLLM's CPU build) with the embedded SmolLM2: `scripts/test_vllm.sh` runs these.

Skipped where vLLM is not installed (the main test venv). Engine settings for a 2-core CPU:
eager mode (no compilation), float32 (bfloat16 SmolLM2 on CPU talks nonsense), a 1 GiB KV
cache (VLLM_CPU_KVCACHE_SPACE, set by the script) and 32-token cache blocks (the CPU default,
128, only caches whole blocks of 128).
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("vllm")

from lm_eval_cog.smollm2 import model_dir  # noqa: E402
from lm_eval_cog.transcripts import read_transcripts  # noqa: E402

BIN = Path(sys.executable).parent
ENGINE_ARGS = "enforce_eager=True,dtype=float32,max_model_len=4096,gpu_memory_utilization=0.5,block_size=32"
#: Shorter WCST episodes than the tasks' own (CI's 2-core CPU): what these tests pin (one engine
#: call per turn, the prefix cache, every episode completing through a server) holds at any length.
KENNEDY_TRIALS = 6
WCST_TRIALS = 16
# LM_EVAL_COG_TASKS_ONLY: only our tasks indexed (lm-eval's ~14,000 YAMLs cost ~12 s per start).
OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "VLLM_CPU_KVCACHE_SPACE": "1", "LM_EVAL_COG_TASKS_ONLY": "1"}


def run_lm_eval(tmp: Path, *args: str, env_extra: dict | None = None) -> dict:
    env = {**os.environ, **OFFLINE, **(env_extra or {})}
    cmd = [str(BIN / "lm_eval"), *args, "--output_path", str(tmp / "out"), "--log_samples"]
    proc = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True, timeout=1500)
    assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stderr[-6000:]}"
    (results,) = glob.glob(str(tmp / "out" / "*" / "results_*.json"))
    return json.loads(Path(results).read_text())


def samples(tmp: Path, task: str) -> list[dict]:
    (path,) = glob.glob(str(tmp / "out" / "*" / f"samples_{task}_*.jsonl"))
    return read_transcripts(path)


def test_lm_eval_vllm_plays_cog_wcst_with_the_prefix_cache(tmp_path):
    """`lm_eval --model vllm --tasks cog_wcst --limit 2`: whole episodes (16 trials), every turn's
    cached tokens recorded, and most of each prompt served from vLLM's prefix cache."""
    results = run_lm_eval(
        tmp_path,
        "--model", "vllm",
        "--model_args", f"pretrained={model_dir()},{ENGINE_ARGS}",
        "--tasks", "cog_wcst",
        "--limit", "2",
        "--metadata", json.dumps({"wcst": {"trials": WCST_TRIALS}}),
        "--gen_kwargs", "max_gen_toks=8",
        env_extra={"VLLM_ENABLE_V1_MULTIPROCESSING": "0"},
    )  # fmt: skip
    row = results["results"]["cog_wcst"]
    assert row["episode_failed,none"] == 0 and "acc,none" in row
    assert row["prefix_cached_share,none"] > 0.7
    for t in samples(tmp_path, "cog_wcst"):
        assert t["status"] == "completed" and len(t["turns"]) == WCST_TRIALS
        assert all(turn["cached_tokens"] is not None for turn in t["turns"])
        later = t["turns"][1:]
        share = sum(x["cached_tokens"] for x in later) / sum(x["prompt_tokens"] for x in later)
        assert share > 0.8, share  # after the first turn the history is (almost) all cached


def test_vllm_model_makes_one_engine_generate_per_turn(monkeypatch):
    """In process, with lm-eval's own VLLM model and its default batch_size 1: 6 turns of
    cog_wcst_kennedy, 3 episodes each, are 6 engine calls of 3 prompts."""
    monkeypatch.setenv("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
    from lm_eval import simple_evaluate
    from lm_eval.models.vllm_causallms import VLLM

    calls: list[int] = []
    original = VLLM._model_generate

    def counting(self, requests, generate=False, sampling_params=None):
        if generate:
            calls.append(len(requests))
        return original(self, requests, generate=generate, sampling_params=sampling_params)

    monkeypatch.setattr(VLLM, "_model_generate", counting)
    out = simple_evaluate(
        model="vllm",
        model_args=f"pretrained={model_dir()},{ENGINE_ARGS},batch_size=1",
        tasks=["cog_wcst_kennedy"],
        limit=3,
        gen_kwargs="max_gen_toks=4",
        bootstrap_iters=0,
        metadata={"wcst": {"trials": KENNEDY_TRIALS}},
    )
    assert calls == [3] * KENNEDY_TRIALS
    assert out["results"]["cog_wcst_kennedy"]["episode_failed,none"] == 0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def vllm_server():
    """`vllm serve` (OpenAI-compatible) with SmolLM2 on loopback; yields its base URL."""
    port = _free_port()
    log = open(Path(os.environ.get("TMPDIR", "/tmp")) / f"vllm_serve_{port}.log", "w")
    cmd = [str(BIN / "vllm"), "serve", str(model_dir()), "--host", "127.0.0.1", "--port", str(port),
           "--served-model-name", "smollm2", "--enforce-eager", "--dtype", "float32", "--max-model-len", "4096",
           "--block-size", "32", "--enable-prompt-tokens-details"]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **OFFLINE})
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            if proc.poll() is not None:
                pytest.fail(f"vllm serve exited with {proc.returncode}; see {log.name}")
            try:
                urllib.request.urlopen(f"{base}/health", timeout=2)
                break
            except OSError:
                time.sleep(1)
        else:
            pytest.fail(f"vllm serve did not start within 300 s; see {log.name}")
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.mark.parametrize("model", ["local-completions", "local-chat-completions"])
def test_episodes_through_a_vllm_serve_replica(tmp_path, vllm_server, model):
    """The scale-out route: lm-eval's OpenAI-compatible models against a `vllm serve` replica on
    loopback, with concurrent requests; every episode completes with real replies."""
    endpoint = "chat/completions" if model == "local-chat-completions" else "completions"
    extra = ["--apply_chat_template"] if model == "local-chat-completions" else []
    results = run_lm_eval(
        tmp_path,
        "--model", model,
        "--model_args", f"base_url={vllm_server}/v1/{endpoint},model=smollm2,tokenizer={model_dir()},"
                        f"tokenizer_backend=huggingface,num_concurrent=2,max_length=4096,tokenized_requests=False",
        "--tasks", "cog_wcst_kennedy",
        "--limit", "2",
        "--metadata", json.dumps({"wcst": {"trials": KENNEDY_TRIALS}}),
        "--gen_kwargs", "max_gen_toks=8",
        *extra,
    )  # fmt: skip
    assert results["results"]["cog_wcst_kennedy"]["episode_failed,none"] == 0
    for t in samples(tmp_path, "cog_wcst_kennedy"):
        assert t["status"] == "completed" and len(t["turns"]) == KENNEDY_TRIALS
        assert any(turn["reply"] for turn in t["turns"])


def test_shim_is_test_only_and_names_the_cpu_build():
    """The alias distribution only answers version("vllm") with vllm-cpu's version + "+cpu"."""
    from importlib.metadata import version

    assert version("vllm") == version("vllm-cpu") + "+cpu"
    assert shutil.which("vllm", path=str(BIN))
