"""lm-eval hooks of ``cog_wcst_visual_probe`` (Hao et al. Table II; scoring in
:mod:`lm_eval_cog.paradigms.wcst.visual_probe`).

A plain YAML task: ``custom_dataset`` builds the 64 documents (one per trial image of a seeded
wcst64 episode; the cards, never the pixels), ``doc_to_image`` draws a document's image when
lm-eval builds its request, which makes the task multimodal (lm-eval then refuses text-only
models). The task seed follows lm-eval's ``--seed`` unless ``--metadata '{"seed": N}'`` names one.
"""

from __future__ import annotations

from typing import Any

import datasets

from lm_eval_cog.lmeval.compat import GenerateTaskBase, process_results_metric
from lm_eval_cog.paradigms.base import require_int
from lm_eval_cog.paradigms.wcst import visual_probe
from lm_eval_cog.paradigms.wcst.cards import COLOUR, NUMBER, SHAPE

DEFAULT_SEED = 1234  # lm-eval's default task-side (fewshot) seed


def dataset(**metadata: Any) -> dict[str, datasets.Dataset]:
    """``custom_dataset``: the 64 trial documents of seed ``metadata["seed"]`` (default 1234)."""
    seed = require_int("metadata", "seed", metadata.get("seed", DEFAULT_SEED), 0)
    return {"test": datasets.Dataset.from_list(visual_probe.documents(seed))}


def doc_to_image(doc: dict[str, Any]) -> list[Any]:
    """The document's trial image (one, drawn now; the log of the sample keeps its hash)."""
    from lm_eval_cog.paradigms.wcst.visual import render_trial

    cards = [{SHAPE: c[SHAPE], COLOUR: c[COLOUR], NUMBER: int(c[NUMBER])} for c in doc["cards"]]
    return [render_trial(cards[4], cards[:4])]


def process_results(doc: dict[str, Any], results: list[str]) -> dict[str, float]:
    """Eqs. 7-10 and the weighted overall for one image (see the scoring module)."""
    return visual_probe.score(doc["cards"], results[0])


class VisualProbeTask(GenerateTaskBase):
    """The YAML task, with the documents following lm-eval's ``--seed`` (as ``cog_oddball``)."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        cfg = {k: v for k, v in (config or {}).items() if k != "class"}
        self._metadata_seed = (cfg.get("metadata") or {}).get("seed") is not None
        cfg["metric_list"] = [{**m, "metric": process_results_metric(m["metric"])} for m in cfg.get("metric_list") or []]
        super().__init__(config=cfg)
        self._doc_seed = DEFAULT_SEED

    def set_fewshot_seed(self, seed: int | None = None) -> None:
        super().set_fewshot_seed(seed)
        if seed is None or self._metadata_seed or int(seed) == self._doc_seed:
            return
        self._doc_seed = int(seed)
        self.dataset = dataset(**{**(self.config.metadata or {}), "seed": self._doc_seed})
