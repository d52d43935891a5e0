"""``--batch_size auto`` with lm-eval's HF model: one probe per run on CUDA, none on CPU.

lm-eval's HFLM probes the largest batch on every ``generate_until`` while its batch size
is "auto", i.e. on every turn; on CPU the probe (64 x max_length tokens) got the process
killed for memory in turn 1.
"""

from __future__ import annotations

import json

import pytest

from fault_backend import TRIALS, FaultLM, requests
from lm_eval_cog.lmeval import seam


class AutoLM(FaultLM):
    """HFLM's batch-size attributes: ``batch_size`` reads ``batch_size_per_gpu``."""

    max_batch_size = 64
    device = "cpu"  # a plain attribute here (lm-eval's LM has a read-only property)

    def __init__(self, device: str, detected: int = 2, **kwargs) -> None:
        super().__init__(**kwargs)
        self.device, self.detected = device, detected
        self.batch_size_per_gpu = "auto"
        self.probes = 0
        self.sizes: list = []

    @property
    def batch_size(self):
        return self.batch_size_per_gpu

    def _detect_batch_size(self, requests=None, pos: int = 0) -> int:
        if self.device == "cpu":
            raise AssertionError("probed on CPU: the OS kills the process instead of an OOM error")
        self.probes += 1
        return self.detected

    def generate_until(self, requests, disable_tqdm: bool = False) -> list:
        self.sizes.append(self.batch_size)
        return super().generate_until(requests, disable_tqdm)


def test_on_cuda_the_batch_size_is_probed_once_per_run_and_capped_by_the_live_episodes():
    lm = AutoLM("cuda:0", detected=2)
    seam.run_requests(requests(3), seam.LMPlayer(lm), progress=False)
    assert lm.probes == 1 and lm.sizes == [2] * TRIALS
    assert lm.batch_size_per_gpu == "auto"  # restored after each turn


def test_on_cpu_the_batch_is_the_live_episodes_capped_at_max_batch_size():
    lm = AutoLM("cpu")
    seam.run_requests(requests(3), seam.LMPlayer(lm), progress=False)
    assert lm.sizes == [3] * TRIALS and lm.probes == 0
    lm = AutoLM("cpu")
    lm.max_batch_size = 2
    seam.run_requests(requests(3), seam.LMPlayer(lm), progress=False)
    assert lm.sizes == [2] * TRIALS


def test_a_fixed_batch_size_is_left_alone():
    lm = AutoLM("cpu")
    lm.batch_size_per_gpu = 1
    seam.run_requests(requests(3), seam.LMPlayer(lm), progress=False)
    assert lm.sizes == [1] * TRIALS


def test_real_hf_model_with_batch_size_auto_on_cpu_plays_without_probing(monkeypatch):
    try:
        from lm_eval_cog.smollm2 import model_dir

        path = str(model_dir())
    except FileNotFoundError as exc:
        pytest.skip(f"embedded model not installed: {exc}")
    from lm_eval.models.huggingface import HFLM

    lm = HFLM(pretrained=path, dtype="float32", batch_size="auto", device="cpu")

    def probe(*args, **kwargs):
        raise AssertionError("HFLM probed the batch size on CPU")

    monkeypatch.setattr(lm, "_detect_batch_size", probe)
    out = seam.run_requests(requests(2, overrides={"trials": 1}, max_gen_toks=2), seam.LMPlayer(lm), progress=False)
    assert [json.loads(t)["status"] for t in out] == ["completed", "completed"]
    assert lm.batch_size == "auto"
