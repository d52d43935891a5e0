"""One model's report: index.html (self-contained), report.md, figures/ and one episode viewer per task.

Only lm-eval's output is read (through :mod:`runs`); the page holds no timestamp of its own, so the same
input gives the same files.
"""

from __future__ import annotations

import dataclasses
import html
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from lm_eval_cog.reports.abilities import ability_of
from lm_eval_cog.reports.episodes import episode_viewer_html
from lm_eval_cog.reports.errors import ReportInputError
from lm_eval_cog.reports.html import MISSING, Markup, Num, check_output_dir, figure, fmt, fmt_stderr, page, table, warnings_box
from lm_eval_cog.reports.html import write_new as _write_new
from lm_eval_cog.reports.leaderboard import build_leaderboard, impossible_values
from lm_eval_cog.reports.markdown import Md, md
from lm_eval_cog.reports.markdown import table as md_table
from lm_eval_cog.reports.names import unique_slugs
from lm_eval_cog.reports.plotting import FigureFile
from lm_eval_cog.reports.profile_figures import probe_effects_figure, profile_figure
from lm_eval_cog.reports.references import Reference, chance_and_ideal, missing_reasons, normalised, references
from lm_eval_cog.reports.runs import Run, read_samples
from lm_eval_cog.reports.selection import headline_metric
from lm_eval_cog.reports.task_result import TaskResult
from lm_eval_cog.reports.task_reliability import (
    RunReliability,
    SeedRuns,
    run_reliability,
    run_reliability_html,
    run_reliability_markdown,
    short_text,
)
from lm_eval_cog.reports.transcript_figures import transcript_figures

#: Columns of the summary that only show when some task reports them.
QUALITY_METRICS = ("invalid_rate", "episode_failed")

NORMALISED_NOTE = (
    "normalised = 100 × (value − chance) / (ideal − chance): 0 is the chance level (a random player), "
    "100 the ideal player; empty where a task has no chance or ideal level."
)
RELIABILITY_NOTE = (
    "reliability: do the task's odd and even units (items or episodes) give the same score within sampling "
    "error (z of their difference), and, where this model was run with several --metadata seeds, do the "
    "seeds agree (homogeneity p); numbers and reading in each task's section."
)


@dataclasses.dataclass
class TaskRow:
    """What the summary says about one task (or group)."""

    task: str
    ability: str | None
    metric: str | None  # "acc,none"; None when the task has no numeric metric to headline
    value: float | None
    stderr: float | None
    chance: float | None
    ideal: float | None
    normalised: float | None
    quality: dict[str, float]  # invalid_rate / episode_failed with the headline's filter, when reported
    n_samples: int | None
    references: list[Reference]  # of kind human/paper
    subtasks: list[str]


# ---------------------------------------------------------------- small helpers


def _split(metric: str) -> tuple[str, str]:
    name, _, filt = metric.partition(",")
    return name, filt


def _finite(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def value_text(value: float | None, stderr: float | None) -> str:
    """'value ± stderr' at the tables' precision (stderr noise as 0), or the missing mark."""
    if not _finite(value):
        return MISSING
    return f"{fmt(value)} ± {fmt_stderr(stderr)}" if _finite(stderr) else fmt(value)


def _ref_text(refs: Sequence[Reference]) -> str:
    if not refs:
        return "no reference"
    return "; ".join(f"{r.label}: {fmt(r.value)}" for r in refs)


def _ref_html(refs: Sequence[Reference]) -> str:
    """One line per human/paper reference, so a task with many stays readable in a table cell."""
    if not refs:
        return "no reference"
    items = "".join(f"<li>{html.escape(r.label)}: <strong>{html.escape(fmt(r.value))}</strong></li>" for r in refs)
    return Markup(f'<ul class="refs">{items}</ul>')


def clembench_form_note(result: TaskResult | None) -> str | None:
    """For a group of dialogue games (it reports ``played`` and ``main_score``): clembench's leaderboard
    clemscore, mean(played) x mean(main_score), beside the group's own (the mean of per-game products)."""
    if result is None or not result.is_group:
        return None
    played, main = result.metrics.get("played,none"), result.metrics.get("main_score,none")
    if not (_finite(played) and _finite(main)):
        return None
    own = result.metrics.get("clemscore,none")
    own_text = f"; the group's clemscore (the mean of the games' main_score x played) is {own:.4g}" if _finite(own) else ""
    return (
        f"{result.task}: clembench's leaderboard clemscore, mean played x mean main_score over the games "
        f"(a product of macro-averages), is {played:.4g} x {main:.4g} = {played * main:.4g}{own_text}."
    )


def run_date(path: Path) -> str:
    """The date lm-eval put in a results file's name (results_2025-01-31T12-00-00.123.json)."""
    m = re.match(r"results_(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})", Path(path).name)
    return f"{m[1]} {m[2]}:{m[3]}:{m[4]}" if m else "unknown"


def _link(href: str, text: str) -> Markup:
    return Markup(f'<a href="{html.escape(href)}">{html.escape(text)}</a>')


# ---------------------------------------------------------------- runs header (also used by compare/leaderboard)


def _run_rows(runs: Sequence[Run]) -> list[list[object]]:
    return [
        [
            r.label,
            r.model,
            r.model_args or MISSING,
            r.lm_eval_version or MISSING,
            ", ".join(sorted({run_date(p) for p in r.results_paths})),
            "\n".join(str(p) for p in r.results_paths),
        ]
        for r in runs
    ]


_RUN_HEADERS = ["label", "model", "model args", "lm-eval", "date", "results files"]


def runs_html(runs: Sequence[Run]) -> str:
    """A table of the models read: label, model, arguments, lm-eval version, date, results files."""
    return table(_RUN_HEADERS, _run_rows(runs))


def runs_markdown(runs: Sequence[Run]) -> str:
    return md_table(_RUN_HEADERS, _run_rows(runs)) + "\n"


# ---------------------------------------------------------------- gathering


def task_row(run: Run, task: str, overrides: Mapping[str, str] | None = None) -> TaskRow:
    """What the summary says about one task or group: headline metric and value, chance, ideal, normalised."""

    result = run.tasks[task]
    metric = headline_metric(result, overrides)
    value = stderr = chance = ideal = norm = None
    quality: dict[str, float] = {}
    refs: list = []
    if metric is not None:
        value = result.metrics.get(metric)
        stderr = result.stderrs.get(metric)
        chance, ideal = chance_and_ideal(run, task, metric)
        norm = normalised(value, chance, ideal) if _finite(value) else None
        refs = [r for r in references(run, task, metric) if r.kind in ("human", "paper")]
        filt = _split(metric)[1]
        for name in QUALITY_METRICS:
            key = f"{name},{filt}"
            if key in result.metrics:
                quality[name] = result.metrics[key]
    return TaskRow(
        task=task,
        ability=ability_of(task),
        metric=metric,
        value=value,
        stderr=stderr,
        chance=chance,
        ideal=ideal,
        normalised=norm,
        quality=quality,
        n_samples=result.n_samples,
        references=refs,
        subtasks=list(run.group_subtasks.get(task, [])),
    )


def _layout(run: Run) -> tuple[list[str], list[str]]:
    """(tasks for the summary, groups for the group table): a group whose subtasks are shown is listed
    with the groups; a group none of whose members is in the results stands in the summary itself."""
    tasks, groups = [], []
    for name in sorted(run.tasks):
        result = run.tasks[name]
        members = run.group_subtasks.get(name, [])
        if result.is_group and any(m in run.tasks for m in members):
            groups.append(name)
        else:
            tasks.append(name)
    return tasks, groups


# ---------------------------------------------------------------- the report


class _Writer:
    """Collects the page's parts, the Markdown's parts and the warnings while the files are written."""

    def __init__(self, run: Run, out_dir: Path, overrides: Mapping[str, str] | None) -> None:
        self.run = run
        self.out_dir = out_dir
        self.overrides = overrides
        self.inputs = [*run.results_paths, *run.samples.values()]
        self.fig_dir = out_dir / "figures"
        self.html: list[str] = []
        self.md: list[str] = []
        self.warnings: list[str] = [*run.warnings, *impossible_values(run)]
        self.episode_pages: dict[str, str] = {}  # task -> relative href
        self.reliability: dict[str, RunReliability] = {}  # task -> split-half check and seed agreement
        self.seed_runs = SeedRuns(run)
        # Page names and ids: two task names may clean up to one slug (see names.py).
        self.slugs = unique_slugs(run.tasks)

    def write(self, path: Path, text: str) -> None:
        _write_new(path, text, self.inputs, self.out_dir)

    def anchor(self, task: str) -> str:
        return f"task-{self.slugs[task]}"

    # ------------------------------------------------------------ sections

    def header(self) -> None:
        run = self.run
        items = [
            ("Model", run.label),
            ("lm-eval model", run.model),
            ("Model arguments", run.model_args or MISSING),
            ("lm-eval version", run.lm_eval_version or MISSING),
            ("Date of the run", ", ".join(sorted({run_date(p) for p in run.results_paths}))),
            ("Results files", "\n".join(str(p) for p in run.results_paths)),
        ]
        dl = "".join(
            f"<dt>{html.escape(key)}</dt><dd>{'<br>'.join(html.escape(line) for line in text.splitlines())}</dd>"
            for key, text in items
        )
        self.html.append(f'<dl class="meta">{dl}</dl>')
        self.md.append("\n".join(f"- **{k}:** {md(v.replace(chr(10), ', '))}" for k, v in items))

    def summary(self, rows: list[TaskRow], groups: list[TaskRow]) -> None:
        quality = [q for q in QUALITY_METRICS if any(q in r.quality for r in rows)]
        headers = ["task", "ability", "metric", "value ± stderr", "reliability", "chance", "ideal", "normalised"]
        headers += ["humans and papers"] + [q.replace("_", " ") for q in quality] + ["n", "episodes"]

        def cells(r: TaskRow, linked: bool) -> list[object]:
            name = _link(f"#{self.anchor(r.task)}", r.task) if linked else r.task
            episodes = self.episode_pages.get(r.task)
            return [
                name,
                r.ability or MISSING,
                r.metric or "no numeric metric",
                Num(r.value, value_text(r.value, r.stderr)),
                short_text(self.reliability.get(r.task)),
                r.chance,
                r.ideal,
                r.normalised,
                _ref_html(r.references) if linked else _ref_text(r.references),
                *(r.quality.get(q) for q in quality),
                r.n_samples,
                (_link(episodes, "episodes") if linked else Md(f"[episodes]({episodes})")) if episodes else "",
            ]

        self.html.append('<h2 id="summary">Summary</h2>')
        self.html.append(f'<p class="note">{html.escape(NORMALISED_NOTE)}</p>')
        self.html.append(f'<p class="note">{html.escape(RELIABILITY_NOTE)}</p>')
        self.html.append(table(headers, [cells(r, True) for r in rows]))
        self.md += ["## Summary", NORMALISED_NOTE, md(RELIABILITY_NOTE)]
        self.md.append(md_table(headers, [cells(r, False) for r in rows]))
        # A blank chance or ideal cell says why, so "no normalised score" is never a mystery.
        missing = [(r.task, why) for r in rows if r.metric for why in missing_reasons(self.run, r.task, r.metric)]
        if missing:
            self.html.append(
                '<p class="note">Without a reference level (so without a normalised score):</p><ul class="note">'
                + "".join(f"<li>{html.escape(task)}: {html.escape(why)}</li>" for task, why in missing)
                + "</ul>"
            )
            self.md.append("Without a reference level (so without a normalised score):\n\n"
                           + "\n".join(f"- {md(task)}: {md(why)}" for task, why in missing))
        if groups:
            gh = ["group", "metric", "value ± stderr", "chance", "ideal", "normalised", "n", "subtasks"]

            def gcells(r: TaskRow, linked: bool) -> list[object]:
                return [
                    _link(f"#{self.anchor(r.task)}", r.task) if linked else r.task,
                    r.metric or "no numeric metric",
                    Num(r.value, value_text(r.value, r.stderr)),
                    r.chance,
                    r.ideal,
                    r.normalised,
                    r.n_samples,
                    ", ".join(r.subtasks),
                ]

            self.html.append('<h2 id="groups">Groups</h2>')
            self.html.append(
                '<p class="note">Aggregates lm-eval computed over each group\'s subtasks (listed above).</p>'
            )
            self.html.append(table(gh, [gcells(r, True) for r in groups]))
            self.md += ["## Groups", md_table(gh, [gcells(r, False) for r in groups])]
            for r in groups:
                line = clembench_form_note(self.run.tasks.get(r.task))
                if line:
                    self.html.append(f'<p class="note">{html.escape(line)}</p>')
                    self.md.append(md(line))

    def profile(self) -> None:

        self.html.append('<h2 id="profile">Cognitive profile</h2>')
        self.md.append("## Cognitive profile")
        lb = build_leaderboard([self.run], self.overrides)
        model = lb.models[0] if lb.models else self.run.label
        by_ability = {a: v for a, v in lb.by_ability.get(model, {}).items() if _finite(v)}
        if not by_ability:
            text = "No task of this run has both a chance and an ideal level, so there is no profile."
            self.html.append(f'<p class="note">{html.escape(text)}</p>')
            self.md.append(text)
            return
        scored = lb.normalised.get(model, {})
        members = {a: [t for t in tasks if _finite(scored.get(t))] for a, tasks in lb.abilities.items()}
        headers = ["ability", "normalised (mean of its tasks)", "tasks"]
        prow = [[a, by_ability[a], ", ".join(members.get(a, []))] for a in sorted(by_ability)]
        overall = lb.overall.get(model)
        note = (
            f"Each ability's score is the mean of its tasks' normalised scores; overall = mean over abilities "
            f"= {fmt(overall)}."
        )
        self.html.append(f'<p class="note">{html.escape(note)}</p>')
        self.html.extend(f'<p class="note">{html.escape(n)}</p>' for n in lb.notes)
        self.html.append(table(headers, prow))
        fig = profile_figure(self.run.label, by_ability, self.fig_dir)
        self.html.append(figure(fig))
        self.md += [note, *map(md, lb.notes), md_table(headers, prow), _md_figure(fig)]

    def task_section(self, row: TaskRow) -> None:

        run, task = self.run, row.task
        result = run.tasks[task]
        kind = "Group" if result.is_group else "Task"
        self.html.append(f'<section class="task" id="{self.anchor(task)}"><h3>{kind} {html.escape(task)}</h3>')
        self.md.append(f"### {kind} {md(task)}")
        facts = [f"ability: {row.ability or MISSING}", f"headline metric: {row.metric or MISSING}"]
        if result.n_samples is not None:
            facts.append(f"{result.n_samples} samples")
        if result.version:
            facts.append(f"version {result.version}")
        self.html.append(f'<p class="note">{html.escape("; ".join(facts))}.</p>')
        self.md.append(md("; ".join(facts) + "."))

        others = self._all_references(task, row.metric) if row.metric is not None else []
        if others and _finite(row.value):
            # The model's number beside every reference for the same metric: chance, ideal, humans, papers.
            headers = ["who", "value", "kind", "source"]
            refs = [[run.label, row.value, "this model", "results file"]]
            refs += [[r.label, r.value, r.kind, r.source] for r in others]
            self.html.append(table(headers, refs, caption=f"{row.metric}: this model and references"))
            self.md += [f"References for {md(row.metric)}:", md_table(headers, refs)]
        elif row.metric is not None:
            self.html.append(f'<p class="note">No reference for {html.escape(row.metric)}.</p>')
            self.md.append(f"No reference for {md(row.metric)}.")

        headers = ["metric", "filter", "value", "stderr", "higher is better"]
        mrows = []
        for key, value in result.metrics.items():
            name, filt = _split(key)
            hib = result.higher_is_better.get(name)
            label = Markup(f"<strong>{html.escape(name)}</strong> (headline)") if key == row.metric else name
            if key in result.out_of_range:  # shown as undefined: say what the file held
                flag = result.out_of_range[key]
                shown = label if isinstance(label, Markup) else html.escape(label)
                label = Markup(f"{shown} (reported {flag.value:g}: impossible, possible {flag.possible})")
            mrows.append([label, filt, value, result.stderrs.get(key), MISSING if hib is None else str(hib)])
        self.html.append(table(headers, mrows, caption="All metrics lm-eval reported"))
        self.md.append(md_table(headers, mrows))

        if not result.is_group:
            samples = self._samples(task)
            name = self.slugs[task]
            figures: list[FigureFile] = []
            if samples:
                figures += transcript_figures(task, samples, self.fig_dir, name=name)
            effects = probe_effects_figure(task, result.metrics, result.stderrs, self.fig_dir, name=name)
            if effects is not None:
                figures.append(effects)
            for fig in figures:
                self.html.append(figure(fig))
                self.md.append(_md_figure(fig))
            rel = run_reliability(self.seed_runs, task, row.metric, samples)
            self.reliability[task] = rel
            self.html.append(run_reliability_html(rel))
            self.md.append(run_reliability_markdown(rel))
            if samples:
                href = self._episode_page(task, samples)
                self.html.append(f"<p>{_link(href, f'Episodes and samples of {task} ({len(samples)})')}</p>")
                self.md.append(f"[Episodes and samples of {md(task)}]({href})")
            else:
                self.html.append('<p class="note">No samples were logged for this task (lm-eval --log_samples).</p>')
        self.html.append("</section>")

    def _all_references(self, task: str, metric: str) -> list[Reference]:

        return list(references(self.run, task, metric))

    def _samples(self, task: str) -> list[dict]:

        try:
            return read_samples(self.run, task)
        except ReportInputError as error:
            # One corrupt samples file costs that task's figures and viewer, not the whole report.
            self.warnings.append(f"{task}: samples not shown: {error}")
            return []

    def _episode_page(self, task: str, samples: list[dict]) -> str:

        href = f"episodes/{self.slugs[task]}.html"
        body = f'<p><a href="../index.html#{self.anchor(task)}">Back to the report</a></p>\n'
        body += episode_viewer_html(task, samples)
        self.write(self.out_dir / href, page(f"{self.run.label}: {task}", body))
        self.episode_pages[task] = href
        return href


def _md_figure(fig: FigureFile) -> str:
    png = f"{fig.png.parent.name}/{fig.png.name}"
    svg = f"{fig.svg.parent.name}/{fig.svg.name}"
    caption = f" {fig.caption}" if fig.caption else ""
    return f"![{md(fig.title)}]({png})\n\n*{md(fig.title)}.*{md(caption)} ([SVG]({svg}))"


def write_report(
    run: Run, out_dir: Path, overrides: Mapping[str, str] | None = None, warnings_out: list[str] | None = None
) -> Path:
    """Write index.html, report.md, figures/ and episodes/<task>.html for one run; return index.html.
    The page's warnings (e.g. a corrupt samples file) are also appended to ``warnings_out``."""
    out_dir = Path(out_dir)
    w = _Writer(run, out_dir, overrides)
    check_output_dir(out_dir, w.inputs)
    out_dir.mkdir(parents=True, exist_ok=True)
    task_names, group_names = _layout(run)
    rows = [task_row(run, t, overrides) for t in task_names]
    groups = [task_row(run, g, overrides) for g in group_names]

    # Task sections first (they write the figures and episode pages the summary links to), then
    # assemble: header, summary, profile, sections.
    w.header()
    head_html, head_md = w.html, w.md
    w.html, w.md = [], []
    for r in rows + groups:
        w.task_section(r)
    sections_html, sections_md = w.html, w.md
    w.html, w.md = [], []
    w.summary(rows, groups)
    w.profile()
    nav = (
        '<nav class="toc"><strong>Contents:</strong> <a href="#summary">Summary</a> · '
        '<a href="#profile">Cognitive profile</a> · <a href="report.md">report.md</a><ul>'
        + "".join(f'<li><a href="#{w.anchor(r.task)}">{html.escape(r.task)}</a></li>' for r in rows + groups)
        + "</ul></nav>"
    )
    body = "\n".join([*head_html, warnings_box(w.warnings), nav, *w.html, '<h2 id="tasks">Tasks</h2>', *sections_html])
    md_parts = [f"# {md(run.label)}: lm-eval-cog report", *head_md]
    if w.warnings:
        md_parts.append("**Warnings**\n\n" + "\n".join(f"- {md(m)}" for m in w.warnings))
    md_parts += [*w.md, "## Tasks", *sections_md]
    index = out_dir / "index.html"
    w.write(index, page(f"{run.label}: lm-eval-cog report", body))
    w.write(out_dir / "report.md", "\n\n".join(md_parts) + "\n")
    if warnings_out is not None:
        warnings_out.extend(w.warnings)
    return index
