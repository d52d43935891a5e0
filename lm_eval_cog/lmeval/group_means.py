"""Group means that leave out a subtask whose metric is undefined, as clembench's aggregation does.

lm-eval's group aggregation (``Group.aggregate``) averages a metric over every subtask that
reports it, so one NaN makes the group's value NaN. For the games that is the weak-model case: a
game with no played episode has no main score (quality is undefined, not 0), and clembench's
benchmark mean (pandas, NaN skipped) leaves that game out of the average quality, which its
% played already penalises. A group of ours lists such metrics in its metadata::

    metadata:
      mean_of_defined: [main_score]

and for those, :func:`install` makes the group's value the mean over the subtasks where the
metric is a finite number (weighted as the group's ``weight_by_size`` says), its standard error
the unweighted-mean error of those subtasks; NaN only when no subtask defines it. Every other
metric and every other group is left to lm-eval. ``Group.aggregate`` has the same signature on
lm-eval 0.4.13 and 0.5; it is wrapped, never rewritten.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Mapping, Sequence
from typing import Any

#: The group metadata key that lists the metrics averaged over the subtasks that define them.
METADATA_KEY = "mean_of_defined"


def mean_of_defined(values: Sequence[Any], sizes: Sequence[int], weight_by_size: bool) -> float:
    """The (size-weighted when ``weight_by_size``) mean of the finite ``values``; NaN when none is."""
    kept = [(float(v), s if weight_by_size else 1) for v, s in zip(values, sizes) if _finite(v)]
    total = sum(w for _, w in kept)
    return sum(v * w for v, w in kept) / total if kept and total > 0 else math.nan


def stderr_of_defined(values: Sequence[Any], stderrs: Sequence[Any]) -> float | str:
    """The standard error of the unweighted mean of the finite ``values``: sqrt(sum se^2) / k over
    those k subtasks (lm-eval's ``unweighted_mean_stderr``); "N/A" when one of them has none."""
    kept = [se for v, se in zip(values, stderrs) if _finite(v)]
    if not kept or not all(_finite(se) for se in kept):
        return "N/A"
    return math.sqrt(sum(float(se) ** 2 for se in kept)) / len(kept)


def regroup(group: Any, task_metrics: Mapping[str, Mapping[str, Any]], out: dict[str, Any]) -> dict[str, Any]:
    """``out`` (lm-eval's aggregate of ``group``) with the metrics of ``group.metadata[METADATA_KEY]``
    recomputed over the subtasks that define them."""
    listed = set((getattr(group, "metadata", None) or {}).get(METADATA_KEY) or ())
    if not listed:
        return out
    leaves = [t.task_name for t in group.get_all_tasks()]
    for config in group.aggregate_metric_list or ():
        if config.metric not in listed:
            continue
        for key in [k for k in out if k.split(",", 1)[0] == config.metric and "," in k]:
            suffix = key.split(",", 1)[1]
            rows = [task_metrics[name] for name in leaves if key in task_metrics.get(name, {})]
            values = [row[key] for row in rows]
            out[key] = mean_of_defined(values, [row.get("sample_len", 0) for row in rows], config.weight_by_size)
            out[f"{config.metric}_stderr,{suffix}"] = stderr_of_defined(
                values, [row.get(f"{config.metric}_stderr,{suffix}", "N/A") for row in rows]
            )
    return out


def install() -> None:
    """Wrap ``lm_eval.api.group.Group.aggregate`` (idempotent; nothing when lm-eval has no such class)."""
    try:
        module = importlib.import_module("lm_eval.api.group")
    except ImportError:
        return
    cls = getattr(module, "Group", None)
    original = getattr(cls, "aggregate", None)
    if original is None or hasattr(original, "cog_wrapped"):
        return

    def aggregate(self: Any, task_metrics: Mapping[str, Any]) -> Any:
        return regroup(self, task_metrics, original(self, task_metrics))

    aggregate.cog_wrapped = original  # type: ignore[attr-defined]
    aggregate.__doc__ = original.__doc__
    cls.aggregate = aggregate


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
