"""lm-eval's per-task warnings that do not apply to our tasks: said once per run, or not at all.

* ``<task>: Custom kwargs can be passed to `--metadata` ...`` (two lines, with an example of
  another task's ``max_seq_lengths``) is logged for every task built from a ``custom_dataset``:
  every static probe, so 48 times for ``cog_static``. For our tasks it becomes one INFO line per
  process saying what our tasks do take from ``--metadata``; other tasks keep lm-eval's warning.
* ``[<task>] Metrics were not scored on the same number of documents ...`` warns that a
  size-weighted group would weight every metric by the task's largest count. Our probes score
  ``acc_<condition>`` and the effects on their condition's documents only, by design, and our
  groups aggregate without size weights (``weight_by_size: false``), so for our tasks it is
  dropped unless one of our groups holding the task weights by size a metric scored on fewer
  documents (:func:`count_warning_misleads`), where it stays.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping

CUSTOM_KWARGS = ": Custom kwargs can be passed to `--metadata`"
METRIC_COUNTS = re.compile(r"^\[(?P<task>[^\]]+)\] Metrics were not scored on the same number of documents \((?P<counts>[^)]*)\)")
#: The one line said instead, once per process.
METADATA_HINT = ("cog_* tasks take their run parameters from --metadata (e.g. --metadata '{\"items\": 50, \"seed\": 7}' "
                 "or '{\"wcst\": {\"trials\": 40}}'); see docs/tasks.md")
TASK_LOGGER = "lm_eval.api.task"
#: lm-eval 0.5's module of the same warning.
TASK_LOGGER_05 = "lm_eval.api.task._task"
AGGREGATION_LOGGER = "lm_eval.evaluator_utils"


def _ours(task: str) -> bool:
    return task.rsplit("::", 1)[-1].startswith("cog_")


def count_warning_misleads(task: str, counts: Mapping[str, int], groups: Mapping[str, Mapping[str, bool]]) -> bool:
    """Whether lm-eval's metric-count warning for ``task`` points at a real distortion: some group in
    ``groups`` (group -> {aggregated metric: weight_by_size}, the groups holding the task) weights by
    size a metric that was scored on fewer documents than the most-scored metric."""
    if not counts:
        return False
    most = max(counts.values())
    fewer = {key.split(",", 1)[0] for key, n in counts.items() if n < most}
    return any(weighted and metric in fewer for group in groups.values() for metric, weighted in group.items())


def _parse_counts(text: str) -> dict[str, int]:
    counts = {}
    for part in text.split(", "):
        key, _, n = part.rpartition("=")
        if key and n.isdigit():
            counts[key] = int(n)
    return counts


def _groups_holding(task: str) -> dict[str, dict[str, bool]]:
    from lm_eval_cog.task_index import entries

    return {e.name: dict(e.aggregates) for e in entries().values() if e.kind == "group" and task in e.members}


class _OurTasksFilter(logging.Filter):
    """Drops the two warnings above for our tasks (see the module docstring)."""

    def __init__(self) -> None:
        super().__init__("lm_eval_cog")
        self.hinted = False

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno != logging.WARNING:
            return True
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a record we cannot read is not ours to drop
            return True
        if CUSTOM_KWARGS in message:
            if not _ours(message.split(CUSTOM_KWARGS, 1)[0].strip()):
                return True
            if not self.hinted:
                self.hinted = True
                logging.getLogger(record.name).info(METADATA_HINT)
            return False
        match = METRIC_COUNTS.match(message)
        if match and _ours(match["task"]):
            task = match["task"].rsplit("::", 1)[-1]
            return count_warning_misleads(task, _parse_counts(match["counts"]), _groups_holding(task))
        return True


_FILTER = _OurTasksFilter()


def install() -> None:
    """Add the filter to lm-eval's loggers of these warnings (idempotent)."""
    for name in (TASK_LOGGER, TASK_LOGGER_05, AGGREGATION_LOGGER):
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)
