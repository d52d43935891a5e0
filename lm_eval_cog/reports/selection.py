"""Which metric headlines each task: the task's primary metric, or a user's ``task=metric`` override."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from lm_eval_cog.reports.errors import ReportInputError
from lm_eval_cog.reports.task_result import TaskResult

#: Oddball is a probe, not a paradigm: its score is its primary metric.
_PROBE_PRIMARY = {"oddball": "score"}


def _primary(paradigm: str | None) -> str | None:
    """The paradigm's ``primary_metric`` (the metric its chance levels are stored for); used only when
    a results row lacks the ``<metric>_chance`` column that marks it (older runs). Reflection tasks:
    ``acc_final`` (where the answer ends after self-checking; ``acc_first`` is the ``_gen`` task's)."""
    if paradigm is None:
        return None
    if paradigm in _PROBE_PRIMARY:
        return _PROBE_PRIMARY[paradigm]
    from lm_eval_cog.paradigms import available, get_paradigm

    return get_paradigm(paradigm).primary_metric if paradigm in available() else None


#: Ordinary lm-eval tasks: the first of these present headlines (MMLU in MO used acc).
_PRIORITY = (
    "acc,none",
    "exact_match,strict-match",
    "exact_match,flexible-extract",
    "acc_norm,none",
)
_PRIORITY_PREFIXES = ("exact_match,", "f1,")


def _name(key: str) -> str:
    return key.partition(",")[0]


def _is_reference_column(key: str) -> bool:
    # "<metric>_chance" / "<metric>_chance_p95" are reference rows reported beside the metric, never a headline.
    name = _name(key)
    return name.endswith(("_chance", "_chance_p95"))


def _paradigm(result: TaskResult) -> str | None:
    return paradigm_of(result.task, result.config)


def paradigm_of(task: str, config: object) -> str | None:
    """The paradigm (or probe) a task runs: its config's ``metadata.paradigm``, else read off its name."""
    metadata = config.get("metadata") if isinstance(config, dict) else None
    paradigm = metadata.get("paradigm") if isinstance(metadata, dict) else None
    if isinstance(paradigm, str):
        return paradigm
    # Name fallback for rows without a config (longest name first: wason246_reflect before wason246).
    from lm_eval_cog.paradigms import available

    for name in sorted([*available(), *_PROBE_PRIMARY], key=len, reverse=True):
        if name != "reflect" and task.startswith(f"cog_{name}"):
            return name
    if task.startswith("cog_") and task.endswith("_reflect"):
        return "reflect"
    return None


def _with_filter(result: TaskResult, name: str) -> str | None:
    keys = [k for k in result.metrics if _name(k) == name]
    if not keys:
        return None
    return f"{name},none" if f"{name},none" in keys else keys[0]


def _default(result: TaskResult) -> str | None:
    metrics = result.metrics
    # 1. Our interactive tasks and static probes mark their primary metric by reporting its chance level.
    for key in metrics:
        name, _, filt = key.partition(",")
        if name.endswith("_chance"):
            primary = f"{name[: -len('_chance')]},{filt}"
            if primary in metrics:
                return primary
    # 2. Interactive paradigm whose row lacks the chance column.
    primary = _primary(_paradigm(result))
    if primary is not None:
        key = _with_filter(result, primary)
        if key is not None:
            return key
    # 3. Static probes: the multiple-choice form scores log-likelihoods, the generative form the answer line.
    if (
        result.task.startswith("cog_")
        and result.task.endswith("_gen")
        and "acc,answer_line" in metrics
    ):
        return "acc,answer_line"
    # 4. Ordinary lm-eval tasks and groups.
    for key in _PRIORITY:
        if key in metrics:
            return key
    for prefix in _PRIORITY_PREFIXES:
        for key in metrics:
            if key.startswith(prefix):
                return key
    candidates = [k for k in metrics if not _is_reference_column(k)]
    for key in candidates:
        if result.higher_is_better.get(_name(key)) is True:
            return key
    return candidates[0] if candidates else None


def _resolve_override(result: TaskResult, wanted: str) -> str:
    available = ", ".join(sorted(result.metrics)) or "(none)"
    if "," in wanted:
        if wanted in result.metrics:
            return wanted
        raise ReportInputError(
            f"--metric {result.task}={wanted}: the task has no such metric; available: {available}"
        )
    keys = [k for k in result.metrics if _name(k) == wanted]
    if len(keys) == 1:
        return keys[0]
    if not keys:
        raise ReportInputError(
            f"--metric {result.task}={wanted}: the task has no such metric; available: {available}"
        )
    raise ReportInputError(
        f"--metric {result.task}={wanted}: several filters ({', '.join(sorted(keys))}); "
        f"name one as {result.task}={wanted},<filter>"
    )


def headline_metric(
    result: TaskResult, overrides: Mapping[str, str] | None = None
) -> str | None:
    """The ``"metric,filter"`` key that headlines ``result``; ``None`` when the row has no metric."""
    if overrides and result.task in overrides:
        return _resolve_override(result, overrides[result.task])
    return _default(result)


def parse_metric_overrides(items: Sequence[str]) -> dict[str, str]:
    """``["cog_wcst=score", "mmlu=acc,none"]`` -> ``{"cog_wcst": "score", "mmlu": "acc,none"}``."""
    out: dict[str, str] = {}
    for item in items:
        task, sep, metric = item.partition("=")
        task, metric = task.strip(), metric.strip()
        if (
            not sep
            or not task
            or not metric
            or metric.startswith(",")
            or metric.endswith(",")
        ):
            raise ReportInputError(
                f"--metric {item!r}: expected TASK=METRIC or TASK=METRIC,FILTER"
            )
        if task in out and out[task] != metric:
            raise ReportInputError(
                f"--metric given twice for {task}: {out[task]!r} and {metric!r}"
            )
        out[task] = metric
    return out


def validate_overrides(
    overrides: Mapping[str, str] | None, tasks: Iterable[str]
) -> None:
    """Every overridden task must be among ``tasks``; the error lists them."""
    known = set(tasks)
    unknown = sorted(t for t in (overrides or {}) if t not in known)
    if unknown:
        raise ReportInputError(
            f"--metric names unknown task(s) {', '.join(unknown)}; tasks in the results: {', '.join(sorted(known))}"
        )
