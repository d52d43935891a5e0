"""One task's row of a results file, as the report tools hold it.

Below both :mod:`.runs` (which reads results files into it) and :mod:`.selection` (which picks its
headline metric).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lm_eval_cog.reports.ranges import Flag


@dataclass(frozen=True)
class TaskResult:
    """One task's (or group's) row of a results file."""

    task: str
    metrics: dict[str, float]
    stderrs: dict[str, float]
    higher_is_better: dict[str, bool]
    n_samples: int | None
    version: str | None
    config: dict
    is_group: bool
    #: Reported values the metric cannot take (key -> the value and its possible range): their entries in
    #: ``metrics`` are NaN (undefined) and their stderrs dropped, so that no score or ranking uses them.
    out_of_range: dict[str, Flag] = field(default_factory=dict)
    #: The documents the task has (lm-eval's ``n-samples`` ``original``): ``n_samples`` is fewer under ``--limit``.
    n_original: int | None = None
