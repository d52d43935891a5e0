"""Reliability beside each task's score, for ``report`` and ``compare``: gathers the per-unit values and the
seed runs from lm-eval's files (through :mod:`runs`) and renders :mod:`reliability`'s statistics as HTML,
Markdown and JSON.

Seed runs: ``load_runs`` merges every results file of one model identity (model and model arguments) into
one run, the latest file winning per task. Runs of one model that differ only in ``--metadata '{"seed":
...}'`` are such files; here they are read one by one again. A file's seed is its task config's
``metadata.seed``, else the ``task_seed`` its episode transcripts record; files whose task settings differ
in more than the seed are left out, with a note.
"""

from __future__ import annotations

import dataclasses
import html
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

from lm_eval_cog.reports.errors import ReportInputError
from lm_eval_cog.reports.html import MISSING, Num, fmt, table
from lm_eval_cog.reports.markdown import md
from lm_eval_cog.reports.markdown import table as md_table
from lm_eval_cog.reports.reliability import (
    Z_LIMIT,
    SeedAgreement,
    SeedCorrelation,
    SeedScore,
    SplitHalfConsistency,
    SplitHalfReliability,
    seed_agreement,
    seed_agreement_across_models,
    split_half_across_models,
    split_half_consistency,
    unit_values,
)
from lm_eval_cog.reports.runs import Run, load_runs, read_samples, transcript_in

WITHIN_NOTE = (
    "Split-half consistency: the task's units (items, or episodes) in doc_id order, units 1, 3, 5, … "
    "against 2, 4, 6, …; the difference of the two halves' means over its standard error "
    f"sqrt(SE_odd² + SE_even²) (SE = sample SD / sqrt(n)); |z| ≥ {Z_LIMIT:g} says the halves differ (by chance "
    "alone about 1 task in 20 does). A check, "
    "not a reliability coefficient: a coefficient correlates scores across models, so it needs several "
    "(lm-eval-cog compare with 3 or more)."
)
SEED_NOTE = (
    "Seed agreement: this model's runs that differ only in the task seed (--metadata seed). Spread over "
    "seeds, and Cochran's homogeneity test Q = Σ (x_i − m_w)² / SE_i² (m_w the inverse-variance weighted "
    "mean), p = chi²(k − 1) upper tail: p < 0.05 says the seeds differ by more than their standard errors allow."
)
COMPARE_NOTE = (
    "Split-half reliability across models: each model's mean over the odd and over the even units (doc_id "
    "order; units every model has a defined value for), Pearson r across models between the two halves, "
    "Spearman-Brown corrected to the full length, r_SB = 2r / (1 + r); random splits: the corrected value "
    "over every half-split (1000 random ones where there are more), mean and 2.5–97.5 % range. Seed r: "
    "Pearson r across models between the runs of two seeds, mean over seed pairs (models with runs of "
    "several seeds). Bands: ≥ 0.9 high, ≥ 0.7 acceptable, ≥ 0.5 moderate, below low; with few models "
    "every coefficient is a rough estimate. Shown scores are each model's latest run."
)


# ---------------------------------------------------------------- seed runs of one model


def _seed_value(value: object) -> int | str | None:
    if isinstance(value, bool):
        return None
    return value if isinstance(value, (int, str)) else None


def _settings(config: Mapping) -> str:
    """The task's settings without its seed (and the path of the YAML it was read from)."""
    config = dict(config)
    metadata = config.get("metadata")
    if isinstance(metadata, dict):
        config["metadata"] = {k: v for k, v in metadata.items() if k not in ("seed", "config_source")}
    return json.dumps(config, sort_keys=True, default=str)


class SeedRuns:
    """The results files of one run read one by one (only when it has several), to find seed runs."""

    def __init__(self, run: Run) -> None:
        self.run = run
        self._files: list[tuple[Path, Run]] | None = None

    def files(self) -> list[tuple[Path, Run]]:
        if self._files is None:
            self._files = []
            if len(self.run.results_paths) >= 2:
                for path in self.run.results_paths:  # oldest first, as the run merged them
                    try:
                        found = load_runs([path])
                    except ReportInputError:  # read once already; changed since: no seed data from it
                        continue
                    if len(found) == 1:
                        self._files.append((path, found[0]))
        return self._files

    def _seed(self, file_run: Run, task: str) -> int | str | None:
        metadata = file_run.tasks[task].config.get("metadata")
        seed = _seed_value(metadata.get("seed")) if isinstance(metadata, dict) else None
        if seed is not None:
            return seed
        try:
            samples = read_samples(file_run, task)
        except ReportInputError:
            return None
        transcript = transcript_in(samples[0]) if samples else None
        return _seed_value(transcript.get("task_seed")) if transcript else None

    def scores(self, task: str, metric: str) -> tuple[list[SeedScore], list[str]]:
        """One score per seed (the latest file of each seed), and notes on files left out."""
        found: list[tuple[Path, int | str | None, str, SeedScore | None]] = []
        for path, file_run in self.files():
            result = file_run.tasks.get(task)
            if result is None or result.is_group or metric not in result.metrics:
                continue
            seed = self._seed(file_run, task)
            score = None if seed is None else SeedScore(
                seed, result.metrics[metric], result.stderrs.get(metric), result.n_samples
            )
            found.append((path, seed, _settings(result.config), score))
        if len(found) < 2:
            return [s for *_, s in found if s is not None], []
        reference = found[-1][2]  # the run's shown score is the latest file's: its settings rule
        notes: list[str] = []
        by_seed: dict[int | str, SeedScore] = {}
        for path, seed, settings, score in found:
            if score is None:
                notes.append(f"{path.name}: no seed recorded for {task}, left out of the seed comparison")
            elif settings != reference:
                notes.append(f"{path.name}: {task} run with other settings than the latest run, left out")
            else:
                by_seed[score.seed] = score  # a seed run twice: its latest run counts
        return list(by_seed.values()), notes


def _seed_result(scores: Sequence[SeedScore]) -> tuple[SeedAgreement | None, str | None]:
    if len(scores) < 2:
        return None, (
            "one seed run: seed agreement needs runs of this model that differ only in --metadata seed"
        )
    return seed_agreement(scores)


# ---------------------------------------------------------------- report: one model


@dataclasses.dataclass
class RunReliability:
    """What ``report`` shows about one task's reliability."""

    task: str
    metric: str | None
    n_units: int
    undefined: int
    consistency: SplitHalfConsistency | None
    consistency_reason: str | None
    seeds: SeedAgreement | None
    seeds_reason: str | None
    notes: list[str]


def run_reliability(seed_runs: SeedRuns, task: str, metric: str | None, samples: Sequence[dict]) -> RunReliability:
    """The split-half check on ``samples`` (the run's logged samples of ``task``) and the seed agreement."""
    if metric is None:
        reason = "no headline metric"
        return RunReliability(task, None, 0, 0, None, reason, None, reason, [])
    units = unit_values(samples, metric)
    if not samples:
        consistency, c_reason = None, "no samples logged (lm-eval --log_samples)"
    elif not units.values:
        consistency, c_reason = None, f"no sample has a numeric per-sample value of {metric.partition(',')[0]}"
    else:
        consistency, c_reason = split_half_consistency(units.values)
    scores, notes = seed_runs.scores(task, metric)
    seeds, s_reason = _seed_result(scores)
    return RunReliability(
        task, metric, len(units.values), units.undefined, consistency, c_reason, seeds, s_reason, notes
    )


def short_text(rel: RunReliability | None) -> str:
    """The summary cell: the verdicts in a few words."""
    if rel is None:
        return MISSING
    parts = []
    c = rel.consistency
    if c is not None:
        verdict = "halves agree" if c.agree else "halves differ"
        parts.append(f"{verdict} (z = {c.z:.2f})" if c.z is not None else verdict)
    s = rel.seeds
    if s is not None:
        k = len(s.scores)
        if s.p is None:
            parts.append(f"{k} seeds, SD {fmt(s.sd, 3)}")
        else:
            parts.append(f"{k} seeds {'agree' if s.agree else 'disagree'} (p = {s.p:.3g})")
    return "; ".join(parts) or MISSING


def _consistency_rows(c: SplitHalfConsistency) -> list[list[object]]:
    return [
        ["odd units (1, 3, 5, …)", c.n_odd, c.odd_mean, c.se_odd],
        ["even units (2, 4, 6, …)", c.n_even, c.even_mean, c.se_even],
        ["difference odd − even", c.n_odd + c.n_even, c.difference, c.se],
    ]


def _consistency_line(c: SplitHalfConsistency) -> str:
    z = "z undefined" if c.z is None else f"z = {fmt(c.z, 3)}"
    return f"{z}: {c.interpretation}."


def _seed_rows(s: SeedAgreement) -> list[list[object]]:
    return [[str(x.seed), x.value, x.stderr, x.n] for x in s.scores]


def _seed_line(s: SeedAgreement) -> str:
    text = f"{len(s.scores)} seeds: mean {fmt(s.mean)}, SD {fmt(s.sd)}, range {fmt(s.range)}"
    if s.q is not None:
        text += f"; weighted mean {fmt(s.weighted_mean)}, Q = {fmt(s.q)} (df {s.df})"  # p: in the reading
    return f"{text}: {s.interpretation}."


def run_reliability_html(rel: RunReliability) -> str:
    """The per-task section's reliability block (every text escaped)."""
    parts = ["<h4>Reliability</h4>"]
    if rel.consistency is not None:
        c = rel.consistency
        parts.append(f'<p class="note">{html.escape(WITHIN_NOTE)}</p>')
        parts.append(table(["half", "units", "mean", "SE"], _consistency_rows(c), caption="Split-half consistency"))
        parts.append(f"<p><strong>{html.escape(_consistency_line(c))}</strong></p>")
    else:
        parts.append(f'<p class="note">Split-half consistency: {html.escape(str(rel.consistency_reason))}.</p>')
    if rel.undefined:
        parts.append(f'<p class="note">{rel.undefined} logged unit(s) without a defined value were left out.</p>')
    if rel.seeds is not None:
        parts.append(f'<p class="note">{html.escape(SEED_NOTE)}</p>')
        parts.append(table(["seed", "value", "stderr", "n"], _seed_rows(rel.seeds), caption="Score per task seed"))
        parts.append(f"<p><strong>{html.escape(_seed_line(rel.seeds))}</strong></p>")
    else:
        parts.append(f'<p class="note">Seed agreement: {html.escape(str(rel.seeds_reason))}.</p>')
    parts.extend(f'<p class="note">{html.escape(n)}</p>' for n in rel.notes)
    return "\n".join(parts)


def run_reliability_markdown(rel: RunReliability) -> str:
    """The same block in Markdown."""
    parts = ["#### Reliability"]
    if rel.consistency is not None:
        c = rel.consistency
        parts += [md(WITHIN_NOTE), md_table(["half", "units", "mean", "SE"], _consistency_rows(c))]
        parts.append(f"**{md(_consistency_line(c))}**")
    else:
        parts.append(f"Split-half consistency: {md(str(rel.consistency_reason))}.")
    if rel.undefined:
        parts.append(f"{rel.undefined} logged unit(s) without a defined value were left out.")
    if rel.seeds is not None:
        parts += [md(SEED_NOTE), md_table(["seed", "value", "stderr", "n"], _seed_rows(rel.seeds))]
        parts.append(f"**{md(_seed_line(rel.seeds))}**")
    else:
        parts.append(f"Seed agreement: {md(str(rel.seeds_reason))}.")
    parts.extend(md(n) for n in rel.notes)
    return "\n\n".join(parts)


# ---------------------------------------------------------------- compare: several models


@dataclasses.dataclass
class TaskReliability:
    """What ``compare`` shows about one task's reliability across models."""

    task: str
    metric: str | None
    split_half: SplitHalfReliability | None
    split_half_reason: str | None
    seed_correlation: SeedCorrelation | None
    seed_correlation_reason: str | None
    seed_tests: dict[str, SeedAgreement]  # model -> its homogeneity test over seeds
    notes: list[str]


def _filtered(samples: Sequence[dict], metric: str) -> list[dict]:
    filt = metric.partition(",")[2]
    return [s for s in samples if not filt or s.get("filter") in (None, filt)]


def _drop_mismatched(values: dict[str, dict], hashes: dict[str, dict]) -> int:
    """Units whose logged document differs between models (doc_hash) are not the same item: drop them."""
    shared = set.intersection(*(set(v) for v in values.values())) if values else set()
    bad = set()
    for key in shared:
        seen = {hashes[m].get(key) for m in values} - {None}
        if len(seen) > 1:
            bad.add(key)
    for row in values.values():
        for key in bad:
            row.pop(key, None)
    return len(bad)


def _task_reliability(
    task: str, metric: str | None, runs: Sequence[Run], seed_runs: Mapping[str, SeedRuns]
) -> TaskReliability:
    if metric is None:
        return TaskReliability(task, None, None, "no headline metric", None, "no headline metric", {}, [])
    notes: list[str] = []
    values: dict[str, dict] = {}
    hashes: dict[str, dict] = {}
    groups = [r.label for r in runs if r.tasks[task].is_group]
    missing: list[str] = []
    for run in runs:
        if run.tasks[task].is_group:
            continue
        try:
            samples = _filtered(read_samples(run, task), metric)
        except ReportInputError as error:
            notes.append(f"{run.label}: samples not read: {error}")
            continue
        if not samples:
            missing.append(run.label)
            continue
        values[run.label] = dict(unit_values(samples, metric).values)
        # Only text hashes of int/str doc_ids: anything else in a hand-edited file is not a unit.
        hashes[run.label] = {
            s["doc_id"]: s["doc_hash"]
            for s in samples
            if isinstance(s.get("doc_id"), (int, str)) and isinstance(s.get("doc_hash"), str)
        }
    if missing:
        notes.append(f"no samples logged for {', '.join(missing)}")
    dropped = _drop_mismatched(values, hashes)
    if dropped:
        notes.append(f"{dropped} unit(s) left out: their documents differ between models (doc_hash)")
    if groups and not values:
        split, reason = None, "a group: its per-unit values are its subtasks' (compare --level tasks)"
    elif not values:
        split, reason = None, "no samples logged (lm-eval --log_samples)"
    else:
        split, reason = split_half_across_models(values)
    by_model: dict[str, dict] = {}
    tests: dict[str, SeedAgreement] = {}
    for run in runs:
        if run.tasks[task].is_group:
            continue
        scores, seed_notes = seed_runs[run.label].scores(task, metric)
        notes += [f"{run.label}: {n}" for n in seed_notes]
        if len(scores) >= 2:
            by_model[run.label] = {s.seed: s.value for s in scores}
            test, _ = seed_agreement(scores)
            if test is not None:
                tests[run.label] = test
    if by_model:
        correlation, c_reason = seed_agreement_across_models(by_model)
    else:
        correlation, c_reason = None, "no model has runs with two or more seeds"
    return TaskReliability(task, metric, split, reason, correlation, c_reason, tests, notes)


def compare_reliability(
    runs: Sequence[Run],
    tasks: Sequence[str],
    matrix: Mapping[str, Mapping[str, float]],
    overrides: Mapping[str, str] | None = None,
) -> list[TaskReliability]:
    """Per task of the comparison: split-half reliability and seed agreement over the models scored on it
    (``matrix``: the comparison's model -> task -> score, NaN where a model is not compared on a task)."""
    from lm_eval_cog.reports.leaderboard import _metrics  # the metric each task is compared on

    metrics = _metrics(list(tasks), runs, overrides)
    seed_runs = {run.label: SeedRuns(run) for run in runs}
    out = []
    for task in tasks:
        scored = [
            run for run in runs
            if task in run.tasks and _finite(matrix.get(run.label, {}).get(task))
        ]
        out.append(_task_reliability(task, metrics.get(task), scored, seed_runs))
    return out


def _finite(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _homogeneity(t: TaskReliability) -> str:
    tested = [s for s in t.seed_tests.values() if s.agree is not None]
    if not tested:
        return MISSING
    agree = sum(1 for s in tested if s.agree)
    return f"seeds agree for {agree} of {len(tested)} model(s) tested"


def _reading(t: TaskReliability) -> str:
    parts = [t.split_half.interpretation if t.split_half else f"split-half: {t.split_half_reason}"]
    parts.append(t.seed_correlation.interpretation if t.seed_correlation else f"seeds: {t.seed_correlation_reason}")
    return "; ".join([*parts, *t.notes])


_HEADERS = [
    "task", "metric", "models", "units", "odd/even r", "odd/even r_SB", "random splits r_SB (mean)",
    "2.5–97.5 %", "seed r across models", "seed homogeneity", "reading",
]


def _row(t: TaskReliability) -> list[object]:
    s = t.split_half
    rng = MISSING
    if s is not None and s.random_low_sb is not None:
        rng = f"{fmt(s.random_low_sb, 3)} to {fmt(s.random_high_sb, 3)}"
    c = t.seed_correlation
    return [
        t.task,
        t.metric or MISSING,
        None if s is None else len(s.models),
        None if s is None else s.n_units,
        Num(None if s is None else s.odd_even_r, MISSING if s is None else fmt(s.odd_even_r, 3)),
        Num(None if s is None else s.odd_even_sb, MISSING if s is None else fmt(s.odd_even_sb, 3)),
        Num(None if s is None else s.random_mean_sb, MISSING if s is None else fmt(s.random_mean_sb, 3)),
        rng,
        Num(None if c is None else c.mean_r, MISSING if c is None else fmt(c.mean_r, 3)),
        _homogeneity(t),
        _reading(t),
    ]


def compare_reliability_html(items: Sequence[TaskReliability]) -> str:
    return (
        "<h3>Reliability</h3>\n"
        f'<p class="note">{html.escape(COMPARE_NOTE)}</p>\n'
        + table(_HEADERS, [_row(t) for t in items], caption="Reliability of each task's score")
    )


def compare_reliability_markdown(items: Sequence[TaskReliability]) -> str:
    return "### Reliability\n\n" + md(COMPARE_NOTE) + "\n\n" + md_table(_HEADERS, [_row(t) for t in items])


def reliability_dict(t: TaskReliability) -> dict:
    """Plain data for comparison.json (NaN still to be made null by the writer)."""
    return dataclasses.asdict(t)
