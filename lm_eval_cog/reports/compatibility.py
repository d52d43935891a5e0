"""Whether runs set side by side can be compared: the same task played with other parameters,
another task version or another number of documents (``--limit``), or the same results given
twice, each gets a warning that names the task and the runs, on the terminal and in the files."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from lm_eval_cog.reports.runs import Run
from lm_eval_cog.reports.task_result import TaskResult

#: Metadata keys that define what a task of ours asks (the seed is left out: runs of several seeds
#: are compared on purpose, for seed-to-seed agreement).
_DEFINING_KEYS = ("preset", "strategy", "variant", "episodes", "items")


def _parameters(result: TaskResult) -> dict[str, Any]:
    config = result.config if isinstance(result.config, dict) else {}
    meta = config.get("metadata") if isinstance(config.get("metadata"), dict) else {}
    # lm-eval merges --model_args and every task's --metadata into each task's metadata: only
    # this task's own override dict (metadata[<paradigm or probe>]) and defining keys count.
    own = meta.get("paradigm") or meta.get("probe")
    out = {key: meta[key] for key in _DEFINING_KEYS if key in meta}
    if isinstance(own, str) and isinstance(meta.get(own), dict) and meta[own]:
        out[own] = meta[own]
    if config.get("num_fewshot") is not None:
        out["num_fewshot"] = config["num_fewshot"]
    return out


def _text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str) if isinstance(value, (dict, list)) else str(value)


_CHECKS: tuple[tuple[str, Callable[[TaskResult], Any]], ...] = (
    ("parameters", _parameters),
    ("task version", lambda r: r.version),
    ("documents scored (--limit)", lambda r: r.n_samples),
)


def compatibility_warnings(runs: Sequence[Run]) -> list[str]:
    """One warning per task whose runs differ in parameters, version or document count, and per duplicate input.

    In label order, so the same runs given in another order give the same warnings (and files)."""
    runs = sorted(runs, key=lambda run: run.label)
    warnings = []
    first_of: dict[tuple[str, ...], str] = {}
    for run in runs:
        files = tuple(sorted(str(p.resolve()) for p in run.results_paths))
        if files in first_of:
            warnings.append(f"{first_of[files]} and {run.label} are the same results files: "
                            "the comparison holds one model less than it shows")
        first_of.setdefault(files, run.label)
    for task in sorted({t for run in runs for t in run.tasks}):
        having = [run for run in runs if task in run.tasks]
        for what, read in _CHECKS:
            values = {run.label: _text(read(run.tasks[task])) for run in having}
            if len(set(values.values())) > 1:
                shown = "; ".join(f"{label}: {value}" for label, value in values.items())
                warnings.append(f"{task}: {what} differ between runs ({shown}), so its scores are not comparable")
    return warnings
