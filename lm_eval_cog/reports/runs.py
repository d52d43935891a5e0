"""Read lm-eval output folders into :class:`Run` objects: one per model, tasks and groups merged.

lm-eval writes ``<output_path>/<model_name_sanitized>/results_<timestamp>.json`` and, with
``--log_samples``, ``samples_<task>_<timestamp>.jsonl`` beside it (same timestamp). Nothing else is
read, so reports work on runs made anywhere.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from lm_eval_cog.reports.errors import ReportInputError
from lm_eval_cog.reports.ranges import Flag, metric_range, outside, stderr_range
from lm_eval_cog.reports.selection import paradigm_of
from lm_eval_cog.reports.task_result import TaskResult
from lm_eval_cog.reports.validation import (
    check_tree,
    count,
    load_json,
    mapping,
    mapping_or_null,
    quote,
    string_list,
)

#: Keys of a results row that are bookkeeping, not metrics.
_NOT_METRICS = {"alias", "name", "sample_len", "sample_count", " ", ""}
_RESULTS_NAME = re.compile(r"^results_(?P<stamp>.+)\.json$")
#: model_args keys whose value names the weights; its basename is the natural display label.
_LABEL_ARGS = ("pretrained", "path", "model", "model_name", "engine")


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
    #: What the reader noticed but read anyway (a file linked from outside its input folder).
    warnings: tuple[str, ...] = ()


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
    if model_args is None:
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
    return json.dumps(value) if isinstance(value, (dict, list)) else str(value)


def default_label(model: str, model_args: str) -> str:
    """Basename of the weights argument, else ``"<model>(k=v,...)"``, else ``model``."""
    args = dict(pair.partition("=")[::2] for pair in model_args.split(",") if pair)
    for key in _LABEL_ARGS:
        value = args.get(key, "").rstrip("/")
        if value:
            return value.rpartition("/")[2]
    return f"{model}({model_args})" if model_args else model


@dataclass
class _File:
    """One parsed results file (internal)."""

    path: Path
    data: dict
    model: str
    model_args: str
    order: tuple
    root: Path  # the input folder it was found in: its samples must lie there too (else a warning)


#: Tables of a results file keyed by task: each must be an object (when present).
_TASK_TABLES = ("groups", "group_subtasks", "configs", "versions", "higher_is_better", "n-samples")


def _read_text(path: Path, kind: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportInputError(f"cannot read {kind} {path}: {exc}") from exc


#: Results files larger than this many MB are refused before they are read (a JSON text takes about
#: 2.5 times its size in memory once parsed); lm-eval's are well under 10 MB even for MMLU's 57 subtasks.
DEFAULT_MAX_RESULTS_MB = 100
MAX_RESULTS_ENV = "LM_EVAL_COG_MAX_RESULTS_MB"


def max_results_bytes() -> int:
    """The size limit of a results file: ``LM_EVAL_COG_MAX_RESULTS_MB`` (MB), else 100 MB."""
    raw = os.environ.get(MAX_RESULTS_ENV, "").strip()
    if not raw:
        return DEFAULT_MAX_RESULTS_MB * 10**6
    try:
        limit = float(raw)
    except ValueError:
        limit = math.nan
    if not (math.isfinite(limit) and limit > 0):
        raise ReportInputError(f"{MAX_RESULTS_ENV} must be a positive number of MB, got {raw!r}")
    return int(limit * 10**6)


def _check_size(path: Path) -> None:
    """Refuse a results file over the limit from its size alone, before a byte of it is read."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise ReportInputError(f"cannot read results file {path}: {exc}") from exc
    limit = max_results_bytes()
    if size > limit:
        raise ReportInputError(
            f"results file {path} is {size / 10**6:.1f} MB, over the limit of {limit / 10**6:g} MB; "
            f"if it really is an lm-eval results file, raise the limit with {MAX_RESULTS_ENV}=<MB>"
        )


def _read_results_file(path: Path, root: Path) -> _File:
    where = f"not an lm-eval results file: {path}"
    _check_size(path)
    data = load_json(_read_text(path, "results file"), where)
    if not isinstance(data, dict):
        raise ReportInputError(f"{where} is not a JSON object")
    check_tree(data, where)
    _check_shape(data, where)
    _check_task_tables(data, where)
    match = _RESULTS_NAME.match(path.name)
    stamp = match.group("stamp") if match else ""
    date = data.get("date")
    # Later runs win per task: order by lm-eval's "date" (epoch seconds), then the file's timestamp.
    order = (float(date) if _is_number(date) and not math.isnan(date) else -math.inf, stamp, str(path))
    config = data["config"]
    return _File(
        path,
        data,
        config["model"],
        canonical_model_args(config.get("model_args")),
        order,
        Path(root),
    )


def _check_shape(data: dict, where: str) -> None:
    """The top-level fields every lm-eval results file has, with the types the tools read them as."""
    if not isinstance(data.get("results"), dict):
        raise ReportInputError(f"{where} has no 'results'")
    config = data.get("config")
    if not isinstance(config, dict):
        raise ReportInputError(f"{where} has no 'config'")
    if not isinstance(config.get("model"), str) or not config["model"]:
        raise ReportInputError(f"{where} has no 'config.model'")
    if not isinstance(config.get("model_args"), (str, dict, type(None))):
        raise ReportInputError(f"{where}: config['model_args'] is neither text nor an object: "
                               f"{quote(config['model_args'])}")
    for key in _TASK_TABLES:
        if key in data and not isinstance(data[key], dict):
            raise ReportInputError(f"{where}: '{key}' is not an object")
    for task, row in data["results"].items():
        mapping(row, where, f"results[{task!r}]")


def _check_task_tables(data: dict, where: str) -> None:
    """Each task's entry in the per-task tables: the shapes lm-eval writes (null where it writes null)."""
    for group, row in data.get("groups", {}).items():
        mapping(row, where, f"groups[{group!r}]")
    for group, members in data.get("group_subtasks", {}).items():
        string_list(members, where, f"group_subtasks[{group!r}]")
    for task, config in data.get("configs", {}).items():
        mapping_or_null(config, where, f"configs[{task!r}]")
    for task, version in data.get("versions", {}).items():
        if not isinstance(version, (str, int, float, type(None))):
            raise ReportInputError(f"{where}: versions[{task!r}] is not a version: {quote(version)}")
    for task, table in data.get("higher_is_better", {}).items():
        for metric, flag in mapping_or_null(table, where, f"higher_is_better[{task!r}]").items():
            # lm-eval writes null for a group whose subtasks disagree.
            if not isinstance(flag, (bool, type(None))):
                raise ReportInputError(
                    f"{where}: higher_is_better[{task!r}][{metric!r}] is not true/false: {quote(flag)}"
                )
    for task, counts in data.get("n-samples", {}).items():
        for key, value in mapping_or_null(counts, where, f"n-samples[{task!r}]").items():
            if key in ("original", "effective"):
                count(value, where, f"n-samples[{task!r}][{key!r}]")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _numbers(row: dict) -> tuple[dict[str, float], dict[str, float]]:
    """(metrics, stderrs) of a results row: numbers only ("N/A" stderrs of custom aggregations mean none).

    ``null`` is an undefined value (what our results files hold where lm-eval would write
    ``NaN``) and reads as NaN, as the same file written by a bare lm-eval would.
    """
    metrics: dict[str, float] = {}
    stderrs: dict[str, float] = {}
    for key, value in row.items():
        if value is None and key not in _NOT_METRICS:
            value = math.nan
        if key in _NOT_METRICS or not _is_number(value):
            continue
        name, sep, filt = key.partition(",")
        if name.endswith("_stderr"):
            stderrs[f"{name[: -len('_stderr')]}{sep}{filt}"] = float(value)
        else:
            metrics[key] = float(value)
    return metrics, {k: v for k, v in stderrs.items() if k in metrics}


def _flag_impossible(
    metrics: dict[str, float], stderrs: dict[str, float], paradigm: str | None
) -> tuple[dict[str, float], dict[str, float], dict[str, Flag]]:
    """Metrics with impossible values set to NaN, the stderrs that are possible, and the flags.

    A flagged stderr is keyed as lm-eval writes it (``acc_stderr,none``), so that a note names it.
    """
    flags: dict[str, Flag] = {}
    kept = dict(metrics)
    for key, value in metrics.items():
        span = metric_range(key.partition(",")[0], paradigm)
        if outside(value, span):
            flags[key], kept[key] = Flag(value, span), math.nan
    errors: dict[str, float] = {}
    for key, value in stderrs.items():
        name, _, filt = key.partition(",")
        span = stderr_range(name, paradigm)
        if outside(value, span):
            flags[f"{name}_stderr,{filt}"] = Flag(value, span)
        elif key not in flags:
            errors[key] = value
    return kept, errors, flags


def _task_result(task: str, row: dict, data: dict, is_group: bool) -> TaskResult:
    config = data.get("configs", {}).get(task)
    config = dict(config) if isinstance(config, dict) and not is_group else {}
    metrics, stderrs, flags = _flag_impossible(*_numbers(row), paradigm_of(task, config))
    hib = data.get("higher_is_better", {}).get(task) or {}
    counts = data.get("n-samples", {}).get(task) or {}
    n_samples, n_original = counts.get("effective"), counts.get("original")
    version = data.get("versions", {}).get(task)
    return TaskResult(
        task=task,
        metrics=metrics,
        stderrs=stderrs,
        higher_is_better={str(k): v for k, v in hib.items() if isinstance(v, bool)},
        n_samples=None if n_samples is None else int(n_samples),  # a whole number: checked on load
        version=None if version is None else str(version),
        config=config,
        is_group=is_group,
        out_of_range=flags,
        n_original=None if n_original is None else int(n_original),
    )


def _file_tasks(
    f: _File,
) -> tuple[dict[str, TaskResult], dict[str, list[str]], dict[str, Path]]:
    data = f.data
    # Older lm-eval versions list standalone tasks in group_subtasks with []: only non-empty lists are groups.
    subtasks = {g: list(v) for g, v in data.get("group_subtasks", {}).items() if v}
    groups_rows = data.get("groups", {})
    group_names = set(subtasks) | set(groups_rows)
    rows: dict[str, dict] = dict(data["results"])
    for group, row in groups_rows.items():  # older runs also put group rows in "results": the same numbers
        rows[group] = {**rows.get(group, {}), **row}
    tasks = {t: _task_result(t, row, data, t in group_names) for t, row in rows.items()}
    match = _RESULTS_NAME.match(f.path.name)
    samples: dict[str, Path] = {}
    if match:
        for task in tasks:
            candidate = _samples_file(f.path.parent, task, match.group("stamp"))
            if candidate is not None:
                samples[task] = candidate
    return tasks, subtasks, samples


def _samples_file(folder: Path, task: str, stamp: str) -> Path | None:
    """lm-eval's samples file of ``task`` beside its results file, if there is one.

    A task name is text from the file: one with a path separator (``/``; ``\\`` too on Windows) would
    name a file elsewhere, and one too long for the file system has no samples file either.
    """
    if any(sep in task for sep in (os.sep, os.altsep) if sep):
        return None
    candidate = folder / f"samples_{task}_{stamp}.jsonl"
    try:
        return candidate if candidate.is_file() else None
    except OSError:  # e.g. a name longer than the file system allows
        return None


def linked_from_outside(path: Path, root: Path) -> str | None:
    """A warning when ``path`` (found under the input folder ``root``) is a link to a file outside it.

    Such files are read (lm-eval folders are often assembled from links, e.g. git-annex or a shared
    cache), but the report says so: what it shows may come from anywhere the link points.
    """
    target = path.resolve()
    folder = root.resolve()
    if target == folder or folder in target.parents:
        return None
    return f"{path} is a link to {target}, outside the input folder {root}: read anyway"


def load_runs(paths: Sequence[Path], labels: Sequence[str | None] | None = None) -> list[Run]:
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
        root = path if path.is_dir() else path.parent
        files = [_read_results_file(p, root) for p in find_results(path)]
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
            if resolved in seen:  # the same file reached twice (folder and file both given)
                continue
            seen.add(resolved)
            buckets.setdefault((f.model, f.model_args, label), []).append(f)
    runs = [_merge(key, files, paths) for key, files in buckets.items()]
    return _unique_labels(runs)


def _merge(key: tuple[str, str, str | None], files: list[_File], named: Sequence[Path] = ()) -> Run:
    model, model_args, label = key
    files = sorted(files, key=lambda f: f.order)
    tasks: dict[str, TaskResult] = {}
    subtasks: dict[str, list[str]] = {}
    samples: dict[str, Path] = {}
    roots: dict[Path, Path] = {f.path: f.root for f in files}  # every file read -> its input folder
    held: dict[str, list[tuple[Path, TaskResult]]] = {}  # task -> every file holding it, oldest first
    for f in files:  # later files overwrite earlier ones, task by task
        f_tasks, f_subtasks, f_samples = _file_tasks(f)
        for task, result in f_tasks.items():
            tasks[task] = result
            held.setdefault(task, []).append((f.path, result))
            samples.pop(task, None)
            if task in f_samples:
                samples[task] = f_samples[task]
                roots[f_samples[task]] = f.root
        subtasks.update(f_subtasks)
    version = files[-1].data.get("lm_eval_version")
    read = [f.path for f in files if f.path not in named] + list(samples.values())
    return Run(
        label=label if label is not None else default_label(model, model_args),
        model=model,
        model_args=model_args,
        results_paths=tuple(f.path for f in files),
        lm_eval_version=None if version is None else str(version),
        tasks=tasks,
        group_subtasks=subtasks,
        samples=samples,
        # A results file the user named on the command line was chosen, not found: no warning for it.
        warnings=tuple(w for p in read if (w := linked_from_outside(p, roots[p])) is not None)
        + tuple(_several_files_warnings(model, model_args, held)),
    )


def _settings_but_seed(result: TaskResult) -> tuple[str | None, str, object]:
    """(version, settings without the seed, seed) of a task's run: runs that differ in the seed alone
    are seed runs, merged on purpose (the report's seed agreement reads them all)."""
    config = dict(result.config)
    metadata = config.get("metadata") if isinstance(config.get("metadata"), dict) else {}
    config["metadata"] = {k: v for k, v in metadata.items() if k not in ("seed", "config_source")}
    return result.version, json.dumps(config, sort_keys=True, default=str), metadata.get("seed")


def _several_files_warnings(
    model: str, model_args: str, held: dict[str, list[tuple[Path, TaskResult]]]
) -> list[str]:
    """A warning per task that several results files of one model hold (other than seed runs): the
    files, and the one shown (the newest by lm-eval's date, then the file's timestamp)."""
    warnings = []
    for task, found in sorted(held.items()):
        if len(found) < 2 or found[-1][1].is_group:  # a group: its member tasks' warnings name the files
            continue
        runs = [_settings_but_seed(result) for _, result in found]
        seeds = [seed for *_, seed in runs]
        if len({r[:2] for r in runs}) == 1 and None not in seeds and len(set(map(str, seeds))) == len(seeds):
            continue
        versions = sorted({str(r[0]) for r in runs})
        differ = f"; their task versions differ ({', '.join(versions)})" if len(versions) > 1 else ""
        warnings.append(
            f"{task}: {len(found)} results files of {model}({model_args}) hold it "
            f"({', '.join(str(p) for p, _ in found)}); only the newest, {found[-1][0]}, is shown{differ}: "
            "give the older ones their own folder or remove them"
        )
    return warnings


#: A differing argument value longer than this is shown by its last two path parts (``…/org-a/m``).
_LONG_VALUE = 40


def _arg_pairs(model_args: str) -> dict[str, str]:
    return dict(pair.partition("=")[::2] for pair in model_args.split(",") if pair)


def _short(value: str) -> str:
    if len(value) <= _LONG_VALUE or "/" not in value.strip("/"):
        return value
    return "…/" + "/".join(value.rstrip("/").split("/")[-2:])


def differing_arguments(runs: Sequence[Run]) -> list[str]:
    """What tells each of ``runs`` from the others: its lm-eval model where they differ, then each
    ``--model_args`` key whose value differs (``max_length=2048``; ``no max_length`` where a run has none)."""
    parsed = [_arg_pairs(run.model_args) for run in runs]
    keys = sorted({k for args in parsed for k in args if len({a.get(k) for a in parsed}) > 1})
    models_differ = len({run.model for run in runs}) > 1
    out = []
    for run, args in zip(runs, parsed):
        parts = [run.model] if models_differ else []
        parts += [f"{k}={_short(args[k])}" if k in args else f"no {k}" for k in keys]
        out.append(", ".join(parts))
    return out


def _unique_labels(runs: list[Run]) -> list[Run]:
    # Two runs can share a label: one checkpoint run with two max_length values, org-a/m vs org-b/m,
    # one --label given to several inputs. Each then shows what differs (never the whole argument
    # string, which runs to 100+ characters with a local path), and a number where nothing does.
    by_label: dict[str, list[int]] = {}
    for i, run in enumerate(runs):
        by_label.setdefault(run.label, []).append(i)
    labels = [run.label for run in runs]
    for label, members in by_label.items():
        if len(members) > 1:
            for i, what in zip(members, differing_arguments([runs[i] for i in members])):
                if what:
                    labels[i] = f"{label} ({what})"
    out: list[Run] = []
    used: set[str] = set()
    for run, label in zip(runs, labels):
        base, n = label, 2
        while label in used:
            label, n = f"{base} #{n}", n + 1
        used.add(label)
        out.append(replace(run, label=label))
    return out


def load_run(path: Path, label: str | None = None) -> Run:
    """The one model under ``path``; several model identities there is an error."""
    runs = load_runs([path], [label])  # a None label is no label
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
                if line.strip():
                    out.append(_sample(line, f"{path}, line {lineno}"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportInputError(f"cannot read samples file {path}: {exc}") from exc
    return out


#: Fields of a sample that the tools index into, with the JSON types lm-eval writes for them.
_SAMPLE_FIELDS: dict[str, tuple[type, ...]] = {"resps": (list,), "filtered_resps": (list,), "arguments": (list, dict)}
#: Fields of an episode transcript that the tools iterate over.
_TRANSCRIPT_LISTS = ("turns", "trials")


def _sample(line: str, where: str) -> dict:
    """One sample line, checked: a JSON object whose fields have the shapes the viewer and figures read."""
    sample = load_json(line, f"{where}: corrupt sample")
    if not isinstance(sample, dict):
        raise ReportInputError(f"{where}: a sample is not a JSON object")
    check_tree(sample, where)
    for key, kinds in _SAMPLE_FIELDS.items():
        if sample.get(key) is not None and not isinstance(sample[key], kinds):
            raise ReportInputError(f"{where}: {key} is not a {' or '.join(k.__name__ for k in kinds)}: "
                                   f"{quote(sample[key])}")
    if sample.get("metrics") is not None:
        string_list(sample["metrics"], where, "metrics")
    transcript = transcript_in(sample)
    if transcript is not None:
        check_tree(transcript, where, ("resps", 0, 0))
        for key in _TRANSCRIPT_LISTS:
            if transcript.get(key) is not None and not isinstance(transcript[key], list):
                raise ReportInputError(f"{where}: resps[0][0][{key!r}] is not a list: {quote(transcript[key])}")
    return sample


def transcript_in(sample: dict) -> dict | None:
    """The episode transcript a sample's first reply holds (JSON text or an object with a ``paradigm``),
    or None: a static probe's reply is plain text, even one that starts with a brace."""
    try:
        raw = sample["resps"][0][0]
    except (KeyError, IndexError, TypeError):
        return None
    if isinstance(raw, str):
        if not raw.lstrip().startswith("{"):
            return None
        try:
            raw = json.loads(raw)
        except (ValueError, RecursionError):  # a model's own braces, however deep, are a reply
            return None
    return raw if isinstance(raw, dict) and "paradigm" in raw else None
