"""Read lm-eval output folders into :class:`Run` objects: one per model, tasks and groups merged.

lm-eval writes ``<output_path>/<model_name_sanitized>/results_<timestamp>.json`` and, with
``--log_samples``, ``samples_<task>_<timestamp>.jsonl`` beside it (same timestamp). Nothing else is
read, so reports work on runs made anywhere.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from lm_eval_cog.reports.errors import ReportInputError

#: Keys of a results row that are bookkeeping, not metrics.
_NOT_METRICS = {"alias", "name", "sample_len", "sample_count", " ", ""}
_RESULTS_NAME = re.compile(r"^results_(?P<stamp>.+)\.json$")
#: model_args keys whose value names the weights; its basename is the natural display label.
_LABEL_ARGS = ("pretrained", "path", "model", "model_name", "engine")


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


@dataclass(frozen=True)
class Run:
    """One model: one or several results files of the same model identity, merged."""

    label: str
    model: str
    model_args: str
    results_paths: tuple[Path, ...]
    lm_eval_version: str | None
    tasks: dict[str, TaskResult]
    group_subtasks: dict[str, list[str]]
    samples: dict[str, Path] = field(default_factory=dict)


def find_results(path: Path) -> list[Path]:
    """``path`` itself when it is a file, else every ``results_*.json`` under the folder (sorted)."""
    path = Path(path)
    if path.is_file():
        return [path]
    if not path.exists():
        raise ReportInputError(f"no such file or folder: {path}")
    found = sorted(p for p in path.rglob("results_*.json") if p.is_file())
    if not found:
        raise ReportInputError(f"no results_*.json under {path}")
    return found


def canonical_model_args(model_args: Any) -> str:
    """``"k=v,k=v"`` sorted by key, from lm-eval's dict or ``"k=v,..."`` string form."""
    if model_args is None or model_args == "":
        return ""
    if isinstance(model_args, dict):
        pairs = [(str(k), _arg_text(v)) for k, v in model_args.items()]
    else:
        pairs = []
        for part in str(model_args).split(","):
            part = part.strip()
            if not part:
                continue
            key, _, value = part.partition("=")
            pairs.append((key.strip(), value.strip()))
    return ",".join(f"{k}={v}" for k, v in sorted(pairs))


def _arg_text(value: Any) -> str:
    # lm-eval passes CLI values as strings; a dict from the Python API may hold bools/numbers.
    return (
        value
        if isinstance(value, str)
        else json.dumps(value)
        if isinstance(value, (dict, list))
        else str(value)
    )


def default_label(model: str, model_args: str) -> str:
    """Basename of the weights argument, else ``"<model>(k=v,...)"``, else ``model``."""
    args = dict(pair.partition("=")[::2] for pair in model_args.split(",") if pair)
    for key in _LABEL_ARGS:
        value = args.get(key, "").rstrip("/")
        if value:
            return value.rsplit("/", 1)[-1]
    return f"{model}({model_args})" if model_args else model


@dataclass
class _File:
    """One parsed results file (internal)."""

    path: Path
    data: dict
    model: str
    model_args: str
    order: tuple


def _read_results_file(path: Path) -> _File:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportInputError(f"cannot read results file {path}: {exc}") from exc
    try:
        data = json.loads(text)  # lm-eval writes NaN as a bare NaN, which json accepts
    except json.JSONDecodeError as exc:
        raise ReportInputError(
            f"not an lm-eval results file: {path} is not valid JSON ({exc})"
        ) from exc
    if not isinstance(data, dict):
        raise ReportInputError(
            f"not an lm-eval results file: {path} is not a JSON object"
        )
    if not isinstance(data.get("results"), dict):
        raise ReportInputError(f"not an lm-eval results file: {path} has no 'results'")
    config = data.get("config")
    if not isinstance(config, dict):
        raise ReportInputError(f"not an lm-eval results file: {path} has no 'config'")
    if not isinstance(config.get("model"), str) or not config["model"]:
        raise ReportInputError(
            f"not an lm-eval results file: {path} has no 'config.model'"
        )
    for key in (
        "groups",
        "group_subtasks",
        "configs",
        "versions",
        "higher_is_better",
        "n-samples",
    ):
        if key in data and not isinstance(data[key], dict):
            raise ReportInputError(
                f"not an lm-eval results file: {path}: '{key}' is not an object"
            )
    match = _RESULTS_NAME.match(path.name)
    stamp = match.group("stamp") if match else ""
    date = data.get("date")
    # Later runs win per task: order by lm-eval's "date" (epoch seconds), then the file's timestamp.
    order = (
        float(date)
        if isinstance(date, (int, float)) and not isinstance(date, bool)
        else -math.inf,
        stamp,
        str(path),
    )
    return _File(
        path,
        data,
        config["model"],
        canonical_model_args(config.get("model_args")),
        order,
    )


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _task_result(task: str, row: dict, data: dict, is_group: bool) -> TaskResult:
    metrics: dict[str, float] = {}
    stderrs: dict[str, float] = {}
    for key, value in row.items():
        if key in _NOT_METRICS:
            continue
        name, sep, filt = key.partition(",")
        if name.endswith("_stderr"):
            # "N/A" (custom aggregations without a bootstrap) means no stderr, not zero.
            if _is_number(value):
                stderrs[f"{name[: -len('_stderr')]}{sep}{filt}"] = float(value)
            continue
        if _is_number(value):
            metrics[key] = float(value)
    hib = data.get("higher_is_better", {}).get(task) or {}
    n_samples = (data.get("n-samples", {}).get(task) or {}).get("effective")
    version = data.get("versions", {}).get(task)
    config = data.get("configs", {}).get(task)
    return TaskResult(
        task=task,
        metrics=metrics,
        stderrs={k: v for k, v in stderrs.items() if k in metrics},
        higher_is_better={
            str(k): bool(v) for k, v in hib.items() if isinstance(v, bool)
        },
        n_samples=int(n_samples) if _is_number(n_samples) else None,
        version=None if version is None else str(version),
        config=dict(config) if isinstance(config, dict) and not is_group else {},
        is_group=is_group,
    )


def _file_tasks(
    f: _File,
) -> tuple[dict[str, TaskResult], dict[str, list[str]], dict[str, Path]]:
    data = f.data
    # Older lm-eval versions list standalone tasks in group_subtasks with []: only non-empty lists are groups.
    subtasks = {
        g: list(v)
        for g, v in data.get("group_subtasks", {}).items()
        if isinstance(v, list) and v
    }
    groups_rows = {
        g: r for g, r in data.get("groups", {}).items() if isinstance(r, dict)
    }
    group_names = set(subtasks) | set(groups_rows)
    rows: dict[str, dict] = {}
    for task, row in data["results"].items():
        if not isinstance(row, dict):
            raise ReportInputError(
                f"not an lm-eval results file: {f.path}: results['{task}'] is not an object"
            )
        rows[task] = row
    for (
        group,
        row,
    ) in (
        groups_rows.items()
    ):  # older runs also put group rows in "results": the same numbers
        rows[group] = {**rows.get(group, {}), **row}
    tasks = {t: _task_result(t, row, data, t in group_names) for t, row in rows.items()}
    match = _RESULTS_NAME.match(f.path.name)
    samples: dict[str, Path] = {}
    if match:
        for task in tasks:
            candidate = f.path.parent / f"samples_{task}_{match.group('stamp')}.jsonl"
            if candidate.is_file():
                samples[task] = candidate
    return tasks, subtasks, samples


def load_runs(paths: Sequence[Path], labels: Sequence[str] | None = None) -> list[Run]:
    """Runs from results files/folders, one per model identity (model, model_args), in input order.

    ``labels[i]`` names every result under ``paths[i]`` (which must then hold one model identity);
    results of one identity with different labels stay separate runs.
    """
    paths = [Path(p) for p in paths]
    if labels is not None and len(labels) != len(paths):
        raise ReportInputError(f"{len(labels)} labels for {len(paths)} inputs")
    buckets: dict[tuple[str, str, str | None], list[_File]] = {}
    seen: set[Path] = set()
    for i, path in enumerate(paths):
        files = [_read_results_file(p) for p in find_results(path)]
        label = labels[i] if labels is not None else None
        if label is not None:
            identities = sorted({(f.model, f.model_args) for f in files})
            if len(identities) > 1:
                shown = "; ".join(f"{m}({a})" for m, a in identities)
                raise ReportInputError(
                    f"label {label!r} given for {path}, which holds several models: {shown}"
                )
        for f in files:
            resolved = f.path.resolve()
            if (
                resolved in seen
            ):  # the same file reached twice (folder and file both given)
                continue
            seen.add(resolved)
            buckets.setdefault((f.model, f.model_args, label), []).append(f)
    runs = [_merge(key, files) for key, files in buckets.items()]
    return _unique_labels(runs)


def _merge(key: tuple[str, str, str | None], files: list[_File]) -> Run:
    model, model_args, label = key
    files = sorted(files, key=lambda f: f.order)
    tasks: dict[str, TaskResult] = {}
    subtasks: dict[str, list[str]] = {}
    samples: dict[str, Path] = {}
    for f in files:  # later files overwrite earlier ones, task by task
        f_tasks, f_subtasks, f_samples = _file_tasks(f)
        for task, result in f_tasks.items():
            tasks[task] = result
            samples.pop(task, None)
            if task in f_samples:
                samples[task] = f_samples[task]
        subtasks.update(f_subtasks)
    version = files[-1].data.get("lm_eval_version")
    return Run(
        label=label if label is not None else default_label(model, model_args),
        model=model,
        model_args=model_args,
        results_paths=tuple(f.path for f in files),
        lm_eval_version=None if version is None else str(version),
        tasks=tasks,
        group_subtasks=subtasks,
        samples=samples,
    )


def _unique_labels(runs: list[Run]) -> list[Run]:
    # Two models can share a basename (org-a/m vs org-b/m, or one checkpoint at two dtypes):
    # append the arguments so every label names one run.
    counts: dict[str, int] = {}
    for run in runs:
        counts[run.label] = counts.get(run.label, 0) + 1
    out: list[Run] = []
    used: set[str] = set()
    for run in runs:
        label = run.label
        if (
            counts[label] > 1
            and run.model_args
            and not label.endswith(f"({run.model_args})")
        ):
            label = f"{label} ({run.model_args})"
        base, n = label, 2
        while label in used:
            label, n = f"{base} #{n}", n + 1
        used.add(label)
        out.append(run if label == run.label else replace(run, label=label))
    return out


def load_run(path: Path, label: str | None = None) -> Run:
    """The one model under ``path``; several model identities there is an error."""
    runs = load_runs([path], None if label is None else [label])
    if len(runs) != 1:
        shown = "; ".join(f"{r.label} [{r.model}({r.model_args})]" for r in runs)
        raise ReportInputError(
            f"{path} holds {len(runs)} models, expected one: {shown}"
        )
    return runs[0]


def read_samples(run: Run, task: str) -> list[dict]:
    """The logged samples of ``task`` (``[]`` when not logged); a corrupt line is an error."""
    path = run.samples.get(task)
    return [] if path is None else read_samples_file(path)


def read_samples_file(path: Path) -> list[dict]:
    """Every sample of one ``samples_<task>_<timestamp>.jsonl``; a corrupt line is an error naming it."""
    out: list[dict] = []
    try:
        with open(path, encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    sample = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ReportInputError(
                        f"{path}, line {lineno}: corrupt sample ({exc})"
                    ) from exc
                if not isinstance(sample, dict):
                    raise ReportInputError(
                        f"{path}, line {lineno}: a sample is not a JSON object"
                    )
                out.append(sample)
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportInputError(f"cannot read samples file {path}: {exc}") from exc
    return out
