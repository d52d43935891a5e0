"""``lm-eval-cog summary OUTPUT_DIR``: one model's scores on the terminal, each beside its chance
level and its ideal player's level, so a first number can be read without opening a report."""

from __future__ import annotations

import math

from lm_eval_cog.reports.html import fmt
from lm_eval_cog.reports.references import missing_reasons
from lm_eval_cog.reports.report import TaskRow, task_row, value_text
from lm_eval_cog.reports.runs import Run
from lm_eval_cog.reports.task_result import TaskResult


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


def _units(result: TaskResult) -> str:
    metadata = result.config.get("metadata") if isinstance(result.config.get("metadata"), dict) else {}
    return "episodes" if "paradigm" in metadata else "items" if "probe" in metadata else "documents"


def scale_notes(run: Run, row: TaskRow) -> list[str]:
    """Why a 0-100 score may mislead: a run shortened by ``--limit`` below the protocol its levels
    describe, and a score past either end of the scale (the levels are means, not bounds)."""
    if row.normalised is None or not math.isfinite(row.normalised):
        return []
    result = run.tasks[row.task]
    units, notes = _units(result), []
    n, protocol = result.n_samples, result.n_original
    if n is not None and protocol is not None and n < protocol:
        notes.append(
            f"--limit played {n} of the protocol's {protocol} {units}: the chance and ideal levels are "
            f"expected values of the whole protocol, so a score from {n} {units} is a rough estimate of its "
            "place on the 0-100 scale (it can fall below 0 or above 100)"
        )
    if row.normalised > 100:
        notes.append(
            f"{row.normalised:.0f} is above 100: the ideal player's level ({fmt(row.ideal)}) is its mean score, not "
            f"a maximum, and these {units} scored {fmt(row.value)}, above that mean"
        )
    elif row.normalised < 0:
        notes.append(
            f"{row.normalised:.0f} is below 0: the chance level ({fmt(row.chance)}) is a random player's mean score, "
            f"and these {units} scored {fmt(row.value)}, below that mean"
        )
    return notes


def summary_lines(run: Run) -> list[str]:
    """A line per task (groups after), then why any task lacks a chance or ideal level, or has a 0-100
    score to read with care."""
    order = sorted(run.tasks, key=lambda t: (run.tasks[t].is_group, t))
    rows = [task_row(run, task) for task in order]
    lines = [_line(row) for row in rows]
    for row in rows:
        if row.metric is not None:
            lines += [f"  {row.task}: {why}" for why in missing_reasons(run, row.task, row.metric)]
            lines += [f"  {row.task}: {why}" for why in scale_notes(run, row)]
    return lines
