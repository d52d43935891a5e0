"""``lm-eval-cog summary OUTPUT_DIR``: one model's scores on the terminal, each beside its chance
level and its ideal player's level, so a first number can be read without opening a report."""

from __future__ import annotations

import math

from lm_eval_cog.reports.html import fmt
from lm_eval_cog.reports.references import missing_reasons
from lm_eval_cog.reports.report import TaskRow, task_row, value_text
from lm_eval_cog.reports.runs import Run


def _level(value: float | None) -> str:
    return "-" if value is None or not math.isfinite(value) else fmt(value)


def _line(row: TaskRow) -> str:
    if row.metric is None or row.value is None:
        return f"{row.task}: no numeric metric"
    name = row.metric.split(",")[0]
    text = f"{row.task}: {name} {value_text(row.value, row.stderr)} | chance {_level(row.chance)} | ideal player {_level(row.ideal)}"
    if row.normalised is not None and math.isfinite(row.normalised):
        text += f" | {row.normalised:.0f} on a 0 (chance) to 100 (ideal) scale"
    quality = [f"{q.replace('_', ' ')} {fmt(v)}" for q, v in sorted(row.quality.items())]
    return text + (f" ({', '.join(quality)})" if quality else "")


def summary_lines(run: Run) -> list[str]:
    """A line per task (groups after), then why any task lacks a chance or ideal level."""
    order = sorted(run.tasks, key=lambda t: (run.tasks[t].is_group, t))
    rows = [task_row(run, task) for task in order]
    lines = [_line(row) for row in rows]
    for row in rows:
        if row.metric is not None:
            lines += [f"  {row.task}: {why}" for why in missing_reasons(run, row.task, row.metric)]
    return lines
