"""Differences between the lm-eval releases we support (0.4.13 and 0.5.x), in one place.

Feature-detected, never version-compared: a pre-release or a backport gets the
right branch from what the installed lm-eval actually has.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from lm_eval.api.instance import Instance
from lm_eval.api.task import ConfigurableTask

_INSTANCE_FIELDS = {f.name for f in dataclasses.fields(Instance)}
#: The class of a YAML ``generate_until`` task: 0.5 dispatches ``output_type`` to
#: ``GenerateTask`` (its ``Task``/``ConfigurableTask`` is abstract); 0.4.13 has one class.
try:
    from lm_eval.api.task import GenerateTask as GenerateTaskBase

    # 0.5's class of ``output_type: multiple_choice`` (its requests are log-likelihoods);
    # 0.4.13 also has a (legacy, unrelated) MultipleChoiceTask, hence imported only here.
    from lm_eval.api.task import MultipleChoiceTask as MultipleChoiceTaskBase
except ImportError:  # lm-eval 0.4.x
    GenerateTaskBase = ConfigurableTask
    MultipleChoiceTaskBase = ConfigurableTask

#: 0.5 scores through a pipeline of scorers, each metric name resolved against the
#: metric registry and type-checked against the task's output type (``parse_metric``).
SCORER_PIPELINE = hasattr(ConfigurableTask, "_build_scorers")


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
    """Names of a task's metrics: 0.4.13's ``_metric_fn_list``, or 0.5's scorers' metrics.

    ``--predict_only`` replaces them with the single metric ``bypass`` on both.
    """
    legacy = getattr(task, "_metric_fn_list", None)
    if legacy is not None:
        return set(legacy)
    return {m.name for scorer in getattr(task, "_scorers", None) or () for m in (scorer.metrics or ())}


def process_results_metric(name: str) -> str | Callable[..., Any]:
    """The ``metric`` entry of a ``metric_list`` for a metric computed by ``process_results``.

    0.4.13 takes the name. 0.5 resolves a name against its metric registry and
    type-checks it: our ``acc`` would resolve to lm-eval's loglikelihood ``acc`` and
    fail ("has output_type ... which does not match ... generate_until"), and every
    unregistered name logs a placeholder warning. A callable is taken as is, named by
    its ``__name__``, so the results key stays ``<name>,none``. It is never called:
    the values come from ``process_results``.
    """
    if not SCORER_PIPELINE:
        return name

    def from_process_results(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"metric {name!r} is computed by the task's process_results, never called")

    from_process_results.__name__ = from_process_results.__qualname__ = name
    return from_process_results


__all__ = [
    "SCORER_PIPELINE",
    "GenerateTaskBase",
    "MultipleChoiceTaskBase",
    "make_instance",
    "metric_fn_names",
    "process_results_metric",
]
