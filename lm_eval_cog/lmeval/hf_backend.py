"""``--batch_size auto`` with lm-eval's HF model (``lm_eval.models.huggingface.HFLM``), made sane for episodes.

HFLM's ``generate_until`` runs ``_detect_batch_size()`` on *every* call while
``batch_size`` is ``"auto"``: it probes ``max_batch_size`` (64) sequences of
``max_length`` tokens, five forward passes, halving on an out-of-memory error. An
episode makes one call per turn, so the probe ran every turn; on CPU there is no
out-of-memory error to catch, the operating system kills the process instead
(SmolLM2-135M: 23 GB resident, exit 137, in turn 1).

For the turn, ``batch_size_per_gpu`` (what HFLM's ``batch_size`` property returns)
is set to a number:

* on CUDA, lm-eval's probe runs **once** per run and the turn uses
  ``min(detected, live episodes)``;
* elsewhere (CPU, MPS: no catchable out-of-memory error), the live episode count,
  capped at ``max_batch_size`` (what the vLLM path does too).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import Any

_LOG = logging.getLogger("lm_eval.cog")


def is_auto_batch(lm: Any) -> bool:
    """An HF-style model asked for ``--batch_size auto`` (or ``auto:N``)."""
    return hasattr(lm, "batch_size_per_gpu") and str(getattr(lm, "batch_size_per_gpu")).startswith("auto")


class AutoBatch:
    """Batch size for each turn of one run; remembers the one probe on CUDA."""

    def __init__(self) -> None:
        self.detected: int | None = None

    def size(self, lm: Any, live: int) -> int:
        cap = int(getattr(lm, "max_batch_size", None) or 64)
        if str(getattr(lm, "device", "cpu")).startswith("cuda"):
            if self.detected is None:
                self.detected = int(lm._detect_batch_size())
                _LOG.info(f"--batch_size auto: detected {self.detected} once for the run (lm-eval re-detects per call)")
            cap = min(cap, self.detected)
        return max(1, min(live, cap))

    @contextlib.contextmanager
    def turn(self, lm: Any, live: int) -> Iterator[None]:
        saved = lm.batch_size_per_gpu
        lm.batch_size_per_gpu = self.size(lm, live)
        try:
            yield
        finally:
            lm.batch_size_per_gpu = saved


__all__ = ["AutoBatch", "is_auto_batch"]
