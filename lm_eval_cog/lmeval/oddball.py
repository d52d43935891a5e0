"""lm-eval hooks of the ``cog_oddball`` YAML task (a single-turn, free-comment probe).

``custom_dataset`` builds the seeded passages; ``process_results`` scores a reply
with the local sentence-embedding model. :class:`OddballTask` takes the task seed
as the interactive tasks do: ``--metadata '{"seed": N}'`` if given, else the fourth
value of lm-eval's ``--seed`` (its task-side seed, 1234 by default). Metrics per passage:

* ``score``: 100 x the highest cosine similarity of the reply's sentences to the
  standard surprise sentence (0 for an empty reply); the task mean is
  Reflection-Bench's oddball score on a 0-100 scale (they summed, see the README);
* ``invalid_rate``: 1 for a reply with no sentence;
* ``score_chance`` / ``score_chance_p95``: the random-comment reference level.
"""

from __future__ import annotations

from typing import Any

import datasets

from lm_eval_cog.lmeval.compat import GenerateTaskBase, process_results_metric
from lm_eval_cog.lmeval.metadata_keys import check_metadata_keys
from lm_eval_cog.paradigms import chance
from lm_eval_cog.paradigms.base import require_int
from lm_eval_cog.probes.oddball.scoring import surprise
from lm_eval_cog.probes.oddball.stimuli import OddballParams, documents

PROBE = "oddball"
DEFAULT_PASSAGES = 50  # as in Reflection-Bench
DEFAULT_SEED = 1234  # lm-eval's default task-side (fewshot) seed


def dataset(**metadata: Any) -> dict[str, datasets.Dataset]:
    """``custom_dataset``: ``episodes`` passages (default 50) from ``seed`` (default 1234).

    lm-eval passes the task metadata merged with ``--metadata`` and ``--model_args``;
    ``{"oddball": {...}}`` overrides :class:`OddballParams` fields.
    """
    count = require_int("metadata", "episodes", metadata.get("episodes", DEFAULT_PASSAGES), 1)
    seed = require_int("metadata", "seed", metadata.get("seed", DEFAULT_SEED), 0)
    overrides = metadata.get(PROBE) or {}
    if not isinstance(overrides, dict):
        raise ValueError(f"metadata.{PROBE} must be a dict of parameter overrides, got {overrides!r}")
    params = OddballParams(**overrides)
    return {"test": datasets.Dataset.from_list(documents(seed, count, params))}


def process_results(doc: dict[str, Any], results: list[str]) -> dict[str, float]:
    """Score one reply (see the module docstring)."""
    from lm_eval_cog.embeddings import embed  # loads sentence-transformers on first use only

    value = surprise(results[0], embed)
    return {
        "score": 0.0 if value is None else 100.0 * value,
        "invalid_rate": float(value is None),
        **chance.reported("score", chance.stored(PROBE, "default")),
    }


class OddballTask(GenerateTaskBase):
    """The YAML task with one addition: the passages follow lm-eval's ``--seed``.

    lm-eval builds the dataset when the task is made and only then hands over its
    task-side seed (``set_fewshot_seed``); the passages are rebuilt from it unless
    ``--metadata`` names a seed, exactly as :class:`~lm_eval_cog.lmeval.task.InteractiveTask`
    derives its episodes.
    """

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        cfg = {k: v for k, v in (config or {}).items() if k != "class"}
        check_metadata_keys(cfg.get("metadata") or {})
        self._metadata_seed = (cfg.get("metadata") or {}).get("seed") is not None
        cfg["metric_list"] = [{**m, "metric": process_results_metric(m["metric"])} for m in cfg.get("metric_list") or []]
        super().__init__(config=cfg)
        self._passage_seed = DEFAULT_SEED

    def set_fewshot_seed(self, seed: int | None = None) -> None:
        super().set_fewshot_seed(seed)
        if seed is None or self._metadata_seed or int(seed) == self._passage_seed:
            return
        self._passage_seed = int(seed)
        self.dataset = dataset(**{**(self.config.metadata or {}), "seed": self._passage_seed})
