"""Differences between the lm-eval releases we support (0.4.13 and 0.5.x), in one place.

Feature-detected, never version-compared: a pre-release or a backport gets the
right branch from what the installed lm-eval actually has.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from lm_eval.api.instance import Instance

_INSTANCE_FIELDS = {f.name for f in dataclasses.fields(Instance)}


def make_instance(
    request_type: str,
    arguments: tuple,
    *,
    doc: dict[str, Any] | None = None,
    idx: int = 0,
    task_name: str | None = None,
    doc_id: int | None = None,
    metadata: Any = None,
) -> Instance:
    """An :class:`Instance` on any supported lm-eval.

    0.5 requires ``task_name`` and a keyword-only ``doc_id``; 0.4.13 takes them through
    the ``metadata`` tuple ``(task_name, doc_id, repeats)``.
    """
    kwargs: dict[str, Any] = {"request_type": request_type, "doc": doc or {}, "arguments": arguments, "idx": idx}
    if metadata is not None:
        kwargs["metadata"] = metadata
    if "task_name" in _INSTANCE_FIELDS:
        if metadata is not None and isinstance(metadata, tuple) and len(metadata) >= 2:
            task_name = task_name if task_name is not None else metadata[0]
            doc_id = doc_id if doc_id is not None else metadata[1]
        kwargs["task_name"] = task_name or ""
        kwargs["doc_id"] = 0 if doc_id is None else doc_id
        if "metadata" in kwargs and "metadata" not in _INSTANCE_FIELDS:
            del kwargs["metadata"]
    return Instance(**kwargs)


def metric_fn_names(task: Any) -> set[str]:
    """Names of a task's per-metric functions (0.4.13's ``_metric_fn_list``; gone in 0.5)."""
    return set(getattr(task, "_metric_fn_list", None) or {})


__all__ = ["make_instance", "metric_fn_names"]
