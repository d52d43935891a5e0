"""Cross-model leaderboard: each task's headline value, its 0-100 score between chance and the ideal
player, per-ability means and an overall mean (unweighted over abilities, so an ability with many
tasks weighs as much as one with a single task)."""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lm_eval_cog import strict_json
from lm_eval_cog.reports.abilities import ability_of
from lm_eval_cog.reports.references import chance_and_ideal, normalised
from lm_eval_cog.reports.runs import Run
from lm_eval_cog.reports.ranges import metric_range
from lm_eval_cog.reports.selection import headline_metric, paradigm_of, validate_overrides
from lm_eval_cog.reports.spreadsheet import csv_text

#: The pseudo-ability of tasks that :func:`ability_of` cannot place.
OTHER = "other"


@dataclass(frozen=True)
class Leaderboard:
    """Models ranked by ``overall`` (ties and undefined last, then by name); tasks and abilities sorted."""

    models: list[str]
    tasks: list[str]
    metrics: dict[str, str]
    raw: dict[str, dict[str, float]]
    normalised: dict[str, dict[str, float]]
    by_ability: dict[str, dict[str, float]]
    overall: dict[str, float]
    abilities: dict[str, list[str]] = field(
        default_factory=dict
    )  # ability -> its normalised tasks (incl. "other")
    unnormalised: list[str] = field(
        default_factory=list
    )  # tasks shown raw only (no chance or ideal)
    skipped_groups: list[str] = field(
        default_factory=list
    )  # groups whose subtasks are listed instead
    notes: list[str] = field(default_factory=list)
    inputs: tuple[Path, ...] = ()  # the results and samples files it was built from
    #: The tasks the ability and overall means are over: those every ranked model has a normalised score for.
    ranked_tasks: list[str] = field(default_factory=list)


def _leaf_tasks(run: Run) -> tuple[list[str], list[str]]:
    """(tasks, skipped groups) of one run: a group whose subtasks are present would count them twice."""
    tasks, skipped = [], []
    for name, result in run.tasks.items():
        if result.is_group and any(
            sub in run.tasks for sub in run.group_subtasks.get(name, [])
        ):
            skipped.append(name)
        else:
            tasks.append(name)
    return tasks, skipped


def _selection(
    runs: Sequence[Run], overrides: Mapping[str, str] | None
) -> tuple[list[str], dict[str, str], list[str]]:
    """(tasks, task -> metric, skipped groups) over all runs; a task's metric is one run's choice."""
    validate_overrides(overrides, {t for run in runs for t in run.tasks})
    tasks: set[str] = set()
    skipped: set[str] = set()
    for run in runs:
        leaves, groups = _leaf_tasks(run)
        tasks.update(leaves)
        skipped.update(groups)
    tasks -= skipped  # a group kept in one run but expanded in another: its subtasks speak for it
    metrics = _metrics(sorted(tasks), runs, overrides)
    return sorted(metrics), metrics, sorted(skipped)


def _metrics(names: Sequence[str], runs: Sequence[Run], overrides: Mapping[str, str] | None) -> dict[str, str]:
    """Name -> metric: the first run by label that has the task names it (independent of the input
    order); names no run gives a metric for are left out."""
    metrics: dict[str, str] = {}
    for name in names:
        for run in sorted(runs, key=lambda r: r.label):
            metric = headline_metric(run.tasks[name], overrides) if name in run.tasks else None
            if metric is not None:
                metrics[name] = metric
                break
    return metrics


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def build_leaderboard(
    runs: Sequence[Run], overrides: Mapping[str, str] | None = None
) -> Leaderboard:
    """The leaderboard of ``runs`` (one row per run, labelled by ``run.label``)."""
    tasks, metrics, skipped = _selection(runs, overrides)
    raw: dict[str, dict[str, float]] = {}
    norm: dict[str, dict[str, float]] = {}
    referenced: set[str] = set()
    for run in runs:
        raw[run.label], norm[run.label] = {}, {}
        for task in tasks:
            result = run.tasks.get(task)
            if result is None or metrics[task] not in result.metrics:
                continue
            value = result.metrics[metrics[task]]
            raw[run.label][task] = value
            chance, ideal = chance_and_ideal(run, task, metrics[task])
            if chance is not None and ideal is not None and chance != ideal:
                referenced.add(task)
                score = normalised(value, chance, ideal)
                if math.isfinite(score):
                    norm[run.label][task] = score
    # The ranking compares like with like: only tasks with both references that every ranked model
    # (each with a normalised score at all) has a defined score on enter the ability and overall means.
    ranked_models = [m for m in raw if norm[m]]
    ranked = [t for t in tasks if t in referenced and ranked_models and all(t in norm[m] for m in ranked_models)]
    ability_tasks: dict[str, list[str]] = {}
    for task in ranked:
        ability_tasks.setdefault(ability_of(task) or OTHER, []).append(task)
    by_ability: dict[str, dict[str, float]] = {}
    overall: dict[str, float] = {}
    for label in raw:
        means = {
            ability: _mean([norm[label][t] for t in members if t in norm[label]])
            for ability, members in sorted(ability_tasks.items())
        }
        by_ability[label] = {a: m for a, m in means.items() if math.isfinite(m)}
        overall[label] = _mean(list(by_ability[label].values()))
    unnormalised = [t for t in tasks if t not in referenced]
    models = sorted(
        raw,
        key=lambda m: (
            not math.isfinite(overall[m]),
            -overall[m] if math.isfinite(overall[m]) else 0.0,
            m,
        ),
    )
    inputs = tuple(
        sorted({p for run in runs for p in (*run.results_paths, *run.samples.values())})
    )
    return Leaderboard(
        models=models,
        tasks=tasks,
        metrics=metrics,
        raw={m: raw[m] for m in models},
        normalised={m: norm[m] for m in models},
        by_ability={m: by_ability[m] for m in models},
        overall={m: overall[m] for m in models},
        abilities={a: ability_tasks[a] for a in sorted(ability_tasks)},
        unnormalised=unnormalised,
        skipped_groups=skipped,
        notes=_notes(models, tasks, raw, norm, by_ability, unnormalised, skipped, _impossible(runs, metrics))
        + _ranking_notes(models, tasks, ranked, referenced, norm)
        + impossible_notes(runs, metrics),
        inputs=inputs,
        ranked_tasks=ranked,
    )


def _ranking_notes(models, tasks, ranked, referenced, norm) -> list[str]:
    left_out = [t for t in tasks if t in referenced and t not in ranked]
    if not left_out:
        return []
    if not ranked:
        return ["No task has a normalised score for every model: the models are not ranked overall "
                "(their task scores are shown)."]
    unranked = [m for m in models if not norm[m]]
    also = f" Not ranked (no normalised score at all): {', '.join(unranked)}." if unranked else ""
    return [
        f"Abilities and overall are means over the {len(ranked)} task(s) every ranked model has a normalised "
        f"score for ({', '.join(ranked)}); shown but left out of the ranking: {', '.join(left_out)}.{also}"
    ]


def _impossible(runs: Sequence[Run], metrics: Mapping[str, str]) -> dict[str, set[str]]:
    """Model -> tasks whose headline value is impossible (NaN by now; :func:`impossible_notes` names them)."""
    return {
        run.label: {t for t, m in metrics.items() if t in run.tasks and m in run.tasks[t].out_of_range}
        for run in runs
    }


def _notes(models, tasks, raw, norm, by_ability, unnormalised, skipped, impossible) -> list[str]:
    notes = []
    if unnormalised:
        notes.append(
            "Shown raw only, left out of the ability and overall means (no chance or no ideal-player reference): "
            + ", ".join(unnormalised)
        )
    if skipped:
        notes.append(
            "Groups left out because their subtasks are listed (no double counting): "
            + ", ".join(skipped)
        )
    missing = [
        f"{m}: {', '.join(t for t in tasks if t not in raw[m])}"
        for m in models
        if any(t not in raw[m] for t in tasks)
    ]
    if missing:
        notes.append("Tasks a model was not run on: " + "; ".join(missing))
    # NaN as lm-eval reported it; the impossible values the reader set to NaN have a note of their own.
    undefined = {
        m: [t for t in tasks if t in raw[m] and t not in norm[m] and t not in unnormalised and t not in impossible[m]]
        for m in models
    }
    undefined = [f"{m}: {', '.join(ts)}" for m, ts in undefined.items() if ts]
    if undefined:
        notes.append(
            "Undefined (NaN) values left out of the means: " + "; ".join(undefined)
        )
    return notes


def impossible_values(run: Run) -> list[str]:
    """One line per value of ``run`` that its metric cannot take (the reader set it to NaN)."""
    return [
        f"{task}: {flag.text(key)} is impossible: "
        + ("left out" if "_stderr," in key else "treated as undefined, left out of scores, profile and rankings")
        for task in sorted(run.tasks)
        for key, flag in run.tasks[task].out_of_range.items()
    ]


def impossible_notes(runs: Sequence[Run], metrics: Mapping[str, str]) -> list[str]:
    """A note naming, per model, the headline values that are impossible (kept out of the scores)."""
    lines = [f"{run.label}: {'; '.join(found)}" for run in runs if (found := _flagged(run, metrics))]
    if not lines:
        return []
    return [
        "Impossible values (outside the metric's range, or infinite) treated as undefined and left out of "
        "the scores and the ranking: " + "; ".join(lines)
    ]


def _flagged(run: Run, metrics: Mapping[str, str]) -> list[str]:
    return [
        f"{task} {run.tasks[task].out_of_range[metric].text(metric)}"
        for task, metric in sorted(metrics.items())
        if task in run.tasks and metric in run.tasks[task].out_of_range
    ]


def score_matrix(
    runs: Sequence[Run], overrides: Mapping[str, str] | None = None
) -> dict[str, dict[str, float]]:
    """Model -> task -> raw headline value (finite values only; the leaderboard's tasks and metrics)."""
    lb = build_leaderboard(runs, overrides)
    return {
        m: {t: v for t, v in lb.raw[m].items() if math.isfinite(v)} for m in lb.models
    }


def top_level(run: Run) -> list[str]:
    """The tasks and groups of ``run`` that sit in no other group of it: what the user named with
    ``--tasks`` (``mmlu`` rather than its 57 subjects, ``cog_flexibility`` rather than WCST and LNT)."""
    inner = {sub for name, subs in run.group_subtasks.items() for sub in subs if sub != name}
    return [name for name in run.tasks if name not in inner]


def comparison_matrix(
    runs: Sequence[Run],
    overrides: Mapping[str, str] | None = None,
    *,
    level: str = "top",
    scores: str = "raw",
) -> dict[str, dict[str, float]]:
    """Model -> task -> score for ``compare`` (finite values only, models in the order of ``runs``).

    ``level="top"``: each run's top-level tasks and groups (as Momentè et al. correlate whole
    benchmarks); ``"tasks"``: the leaderboard's leaf tasks. ``scores="normalised"``: 0 = chance,
    100 = ideal player (entries without both references drop out).
    """
    return comparison_inputs(runs, overrides, level=level, scores=scores)[0]


def comparison_inputs(
    runs: Sequence[Run],
    overrides: Mapping[str, str] | None = None,
    *,
    level: str = "top",
    scores: str = "raw",
) -> tuple[dict[str, dict[str, float]], list[str]]:
    """:func:`comparison_matrix` and the notes on impossible values it left out (see :func:`impossible_notes`)."""
    if level not in ("top", "tasks") or scores not in ("raw", "normalised"):
        raise ValueError(f"level must be top|tasks and scores raw|normalised, got {level!r}, {scores!r}")
    if level == "tasks":
        lb = build_leaderboard(runs, overrides)
        table = lb.raw if scores == "raw" else lb.normalised
        matrix = {r.label: {t: v for t, v in table[r.label].items() if math.isfinite(v)} for r in runs}
        return matrix, impossible_notes(runs, lb.metrics)
    validate_overrides(overrides, {t for run in runs for t in run.tasks})
    tops = {run.label: set(top_level(run)) for run in runs}
    metrics = _metrics(sorted(set().union(*tops.values())), runs, overrides)
    matrix: dict[str, dict[str, float]] = {}
    for run in runs:
        row = {}
        for name, metric in metrics.items():
            result = run.tasks.get(name)
            if result is None or name not in tops[run.label] or metric not in result.metrics:
                continue
            value = result.metrics[metric]
            if scores == "normalised":
                value = normalised(value, *chance_and_ideal(run, name, metric))
            if math.isfinite(value):
                row[name] = value
        matrix[run.label] = row
    return matrix, impossible_notes(runs, metrics)


def comparison_units(
    runs: Sequence[Run], overrides: Mapping[str, str] | None = None, *, level: str = "top", scores: str = "raw"
) -> dict[str, str]:
    """Task -> the scale of its column in ``compare``: ``normalised, 0 chance-100 ideal`` for normalised
    scores, else the headline metric and its range where the metric fixes one (``score, 0-100``,
    ``acc, 0-1``), or the metric's name alone."""
    if level == "tasks":
        metrics = build_leaderboard(runs, overrides).metrics
    else:
        metrics = _metrics(sorted({t for run in runs for t in top_level(run)}), runs, overrides)
    if scores == "normalised":
        return {task: "normalised, 0 chance-100 ideal" for task in metrics}
    out = {}
    for task, metric in metrics.items():
        name = metric.partition(",")[0]
        config = next((run.tasks[task].config for run in runs if task in run.tasks), {})
        span = metric_range(name, paradigm_of(task, config))
        out[task] = f"{name}, {span[0]:g}-{span[1]:g}" if span else name
    return out


# ---------------------------------------------------------------- output


def leaderboard_csv(lb: Leaderboard) -> str:
    """One row per model: overall, ability means, each task's normalised and raw value (numbers in full
    precision, so the CSV is reproducible bit for bit; text cells escaped against formulas)."""
    abilities = list(lb.abilities)
    header = ["model", "overall"] + [f"ability:{a}" for a in abilities]
    header += [f"normalised:{t}" for t in lb.tasks] + [f"raw:{t} ({lb.metrics[t]})" for t in lb.tasks]
    rows: list[list[object]] = [header]
    for m in lb.models:
        row: list[object] = [m, lb.overall[m]] + [lb.by_ability[m].get(a) for a in abilities]
        row += [lb.normalised[m].get(t) for t in lb.tasks] + [lb.raw[m].get(t) for t in lb.tasks]
        rows.append(row)
    return csv_text(rows)


def leaderboard_json(lb: Leaderboard) -> str:
    """Everything in the leaderboard as JSON (NaN as null; no timestamps, stable order)."""
    data = {
        "models": lb.models,
        "tasks": lb.tasks,
        "metrics": lb.metrics,
        "abilities": lb.abilities,
        "overall": {m: v for m, v in lb.overall.items()},
        "by_ability": {
            m: {a: v for a, v in d.items()}
            for m, d in lb.by_ability.items()
        },
        "normalised": {
            m: {t: v for t, v in d.items()}
            for m, d in lb.normalised.items()
        },
        "raw": {
            m: {t: v for t, v in d.items()} for m, d in lb.raw.items()
        },
        "ranked_tasks": lb.ranked_tasks,
        "unnormalised": lb.unnormalised,
        "skipped_groups": lb.skipped_groups,
        "notes": lb.notes,
    }
    return strict_json.dumps(data, indent=2) + "\n"


def leaderboard_html(lb: Leaderboard) -> str:
    """HTML fragment: one sortable table (class "sortable", numbers in data-value) and its notes."""
    from lm_eval_cog.reports.html import Markup, Num, fmt, table

    def header(name: str, detail: str) -> Markup:
        return Markup(f"{html.escape(name)}<br><small>{html.escape(detail)}</small>")

    over = ", ".join(lb.ranked_tasks) or "none"
    headers: list[object] = ["Model", header("Overall", f"0 chance, 100 ideal; ranked over: {over}")]
    headers += [header(a, f"{len(lb.abilities[a])} task(s)") for a in lb.abilities]
    headers += [
        header(t + (" *" if t in lb.unnormalised else " †" if t not in lb.ranked_tasks else ""), lb.metrics[t])
        for t in lb.tasks
    ]
    rows = []
    for m in lb.models:
        row: list[object] = [m, Num(lb.overall[m], fmt(lb.overall[m], 3))]
        row += [
            Num(lb.by_ability[m].get(a), fmt(lb.by_ability[m].get(a), 3))
            for a in lb.abilities
        ]
        for t in lb.tasks:
            value = lb.raw[m].get(t)
            if t in lb.unnormalised:
                row.append(Num(value, fmt(value)))  # raw only, sorted by the raw value
            else:
                score = lb.normalised[m].get(t)
                text = (
                    f"{fmt(score, 3)} ({fmt(value)})"
                    if value is not None
                    else fmt(None)
                )
                row.append(Num(score, text))
        rows.append(row)
    caption = (
        "Task cells: normalised score (0 = chance, 100 = ideal player), raw headline value in parentheses; "
        "* raw only; † not run (or undefined) for every model, so left out of the ranking. Click a header to sort."
    )
    notes = "".join(f'<p class="note">{html.escape(n)}</p>' for n in lb.notes)
    return Markup(
        table(headers, rows, sortable=True, classes="leaderboard", caption=caption)
        + notes
    )


def write_leaderboard(
    lb: Leaderboard, out_dir: Path, inputs: Sequence[Path] = ()
) -> dict[str, Path]:
    """Write leaderboard.csv, leaderboard.json and leaderboard.html (the fragment) under ``out_dir``.

    ``out_dir`` may not lie in a folder holding the results files, nor in any of ``inputs`` (pass the
    folders the user named: they may be lm-eval's ``--output_path``, above the model folders).
    """
    from lm_eval_cog.reports.html import write_new

    out_dir = Path(out_dir)
    protected = (*lb.inputs, *(Path(p) for p in inputs))
    files = {
        "csv": (out_dir / "leaderboard.csv", leaderboard_csv(lb)),
        "json": (out_dir / "leaderboard.json", leaderboard_json(lb)),
        "html": (out_dir / "leaderboard.html", leaderboard_html(lb)),
    }
    for path, text in files.values():
        # Never over or beside an lm-eval input, nor through a link (the files sit in out_dir itself).
        write_new(path, text, protected)
    return {kind: path for kind, (path, _) in files.items()}
