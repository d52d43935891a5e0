"""``accelerate launch -m lm_eval --model hf``: each process evaluates its share of the documents, on CPUs too.

lm-eval 0.4.13's ``HFLM`` takes its rank and world size from Accelerate only when it counts more
than one GPU (``elif gpus > 1:`` in ``HFLM.__init__``). Launched as several CPU processes (or several
processes sharing one GPU), every process kept rank 0 of 1: each evaluated every document, and each
wrote the results files. :func:`patch_hflm` gives such a process Accelerate's process index and
process count, as lm-eval does on several GPUs, so that lm-eval's evaluator shards the documents
(process r gets documents r, r + n, r + 2n, ... of every task: our episodes too), gathers the
metrics and samples on rank 0, and only rank 0 writes them.

lm-eval gathers the per-document samples and metric values on rank 0 rank by rank (documents
0, 2, 4, ..., then 1, 3, 5, ...). The values are the same as in one process, but not their order,
and the order reaches the results: a bootstrap standard error (ECE) resamples by position, and a
float sum can round differently. ``gather_object`` therefore hands rank 0 the values back in
document order (:func:`in_document_order`): the results and samples of a run shared over n
processes are those of one process, to the last digit.

Nothing changes for a single process, for ``tp_plan`` (no Accelerator), or where lm-eval already
set a world size above 1 (several GPUs: lm-eval's own order).
"""

from __future__ import annotations

import functools
from typing import Any


def share_processes(lm: Any) -> bool:
    """Give ``lm`` Accelerate's rank and world size where lm-eval left it rank 0 of 1 although
    Accelerate launched several processes. Returns whether it changed anything."""
    accelerator = getattr(lm, "accelerator", None)
    processes = int(getattr(accelerator, "num_processes", 1) or 1)
    if processes <= 1 or getattr(lm, "_world_size", 1) != 1:
        return False
    # The global index (lm-eval's GPU path uses the local one: the same on one machine).
    lm._rank = int(accelerator.process_index)
    lm._world_size = processes
    lm._cog_shared = True
    return True


def _interleave(parts: list[list[Any]]) -> list[Any] | None:
    """The round-robin merge of per-rank lists (rank r held documents r, r + n, ...), or None when
    their lengths are not those of one value per document."""
    lengths = [len(p) for p in parts]
    if any(a < b for a, b in zip(lengths, lengths[1:])) or lengths[0] - lengths[-1] > 1:
        return None
    return [parts[i % len(parts)][i // len(parts)] for i in range(sum(lengths))]


def _samples_in_order(parts: list[list[Any]]) -> list[Any] | None:
    """One process's order of lm-eval's logged samples: filter by filter (as first met), document by
    document; None unless every sample names its ``doc_id`` and ``filter``."""
    samples = [sample for part in parts for sample in part]
    if not all(isinstance(x, dict) and isinstance(x.get("doc_id"), int) and "filter" in x for x in samples):
        return None
    filters: dict[Any, int] = {}
    for sample in samples:
        filters.setdefault(sample["filter"], len(filters))
    return sorted(samples, key=lambda x: (filters[x["filter"]], x["doc_id"]))


def in_document_order(gathered: list[Any]) -> list[Any]:
    """lm-eval's gathered ``{task: [samples]}`` or ``{task: {metric: [values]}}`` (one per rank),
    rearranged so that rank-major concatenation (what lm-eval does next) yields document order:
    everything in the first entry, empty lists in the others. Anything else, or lists that are not
    one value per document, is returned as it came."""
    if len(gathered) < 2 or not all(isinstance(part, dict) for part in gathered):
        return gathered
    first: dict[str, Any] = {}
    rest: dict[str, Any] = {}
    for task, value in gathered[0].items():
        parts = [part.get(task) for part in gathered]
        if all(isinstance(p, list) for p in parts):  # samples
            merged = _samples_in_order(parts)
            if merged is None:
                return gathered
            first[task], rest[task] = merged, []
        elif all(isinstance(p, dict) for p in parts):  # metric -> values
            keys = list(value)
            if any(set(p) != set(keys) for p in parts):
                return gathered
            merged_metrics = {}
            for key in keys:
                merged = _interleave([p[key] for p in parts])
                if merged is None:
                    return gathered
                merged_metrics[key] = merged
            first[task], rest[task] = merged_metrics, {key: [] for key in keys}
        else:
            return gathered
    if any(set(part) != set(first) for part in gathered):
        return gathered
    return [first] + [rest] * (len(gathered) - 1)


def patch_hflm(module: Any) -> None:
    """Wrap ``module.HFLM.__init__`` and ``gather_object`` (idempotent); its subclasses
    (``hf-multimodal``) inherit them."""
    cls = getattr(module, "HFLM", None)
    if cls is None or getattr(cls.__init__, "_lm_eval_cog", False):
        return
    original = cls.__init__

    gather = cls.gather_object

    @functools.wraps(original)
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        share_processes(self)

    @functools.wraps(gather)
    def gather_object(self, obj: Any, dst: int = 0) -> Any:
        gathered = gather(self, obj, dst=dst)
        if getattr(self, "_cog_shared", False) and isinstance(gathered, list):
            return in_document_order(gathered)
        return gathered

    __init__._lm_eval_cog = True  # type: ignore[attr-defined]
    cls.__init__ = __init__
    cls.gather_object = gather_object
