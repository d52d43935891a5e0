"""Cross-model comparison of tasks, after Momentè et al. (MO, App. E.2.2 and Fig. 2).

Input is a plain score matrix ``model -> task -> score`` (one headline score per model and task).
Two analyses:

* Kendall tau-b between every pair of tasks across models (``scipy.stats.kendalltau``, the function
  MO's pingouin calls), pairwise complete, with an optional Holm or Benjamini-Hochberg correction
  (MO used none, so none is the default).
* Discriminative power for a pair of models: per task the two scores, their ratio b/a, |ln(b/a)| and
  the distance from the diagonal |a - b| / sqrt(2) (MO Fig. 2).

Plus the spread of each task across all models. With few models Kendall's tau has little power
(8 models need |tau| >= 0.643 for p < 0.05), so the result carries warnings that say so.
"""

from __future__ import annotations

import dataclasses
import html
import math
import numbers
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
from scipy import stats

from lm_eval_cog import strict_json
from lm_eval_cog.reports.compare_stats import PairPoint, TauResult
from lm_eval_cog.reports.errors import ReportInputError
from lm_eval_cog.reports.files import write_text
from lm_eval_cog.reports.markdown import md
from lm_eval_cog.reports.markdown import table as md_table
from lm_eval_cog.reports.plotting import FigureFile
from lm_eval_cog.reports.spreadsheet import csv_text
from lm_eval_cog.reports.task_reliability import (
    compare_reliability_html,
    compare_reliability_markdown,
    reliability_dict,
)

#: The corrections for multiple comparisons that ``kendall_table`` knows.
CORRECTIONS = ("holm", "bh")
_CORRECTION_NAMES = {None: "none (as Momentè et al.)", "holm": "Holm", "bh": "Benjamini-Hochberg"}

#: Below this many models a tau needs to be large to mean anything: say how large.
FEW_MODELS = 10


@dataclasses.dataclass
class Comparison:
    """Everything ``compare`` found; ``write_comparison`` turns it into files and a page fragment."""

    models: list[str]
    tasks: list[str]
    matrix: dict[str, dict[str, float]]
    taus: list[TauResult]
    correction: str | None
    pairs: dict[tuple[str, str], list[PairPoint]]
    spread: dict[str, dict[str, float]]  # task -> n, min, max, range, sd (sample SD, n - 1)
    warnings: list[str]
    alpha: float = 0.05
    #: Per task, split-half reliability and seed agreement (task_reliability.TaskReliability); filled by
    #: the compare command, which has the samples: the score matrix alone cannot give them.
    reliability: list = dataclasses.field(default_factory=list)
    #: Per task, the scale its scores are on (``score, 0-100``, ``acc, 0-1``): one table may hold several.
    units: dict[str, str] = dataclasses.field(default_factory=dict)


# ---------------------------------------------------------------- input


def _is_score(value: object) -> bool:
    """A usable score: a finite real number (NaN, inf, None, bools and strings count as missing)."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)


def _clean(matrix: Mapping[str, Mapping[str, float]]) -> tuple[list[str], list[str], dict[str, dict[str, float]]]:
    """Models in the given order, tasks sorted, and the matrix with only finite scores (as floats)."""
    if not isinstance(matrix, Mapping):
        raise ReportInputError(f"score matrix must map model -> task -> score, got {type(matrix).__name__}")
    models = [str(m) for m in matrix]
    clean: dict[str, dict[str, float]] = {}
    tasks: set[str] = set()
    for model, row in matrix.items():
        if not isinstance(row, Mapping):
            raise ReportInputError(f"score matrix row of model {model!r} must map task -> score")
        tasks.update(str(t) for t in row)
        clean[str(model)] = {str(t): float(v) for t, v in row.items() if _is_score(v)}
    return models, sorted(tasks), clean


# ---------------------------------------------------------------- Kendall tau-b


def _holm(p: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (all finite): sort ascending, p_(k) * (m - k + 1) for 1-based k,
    running maximum so the order is kept, capped at 1."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    adjusted = [0.0] * m
    running = 0.0
    for k, i in enumerate(order):  # k is 0-based here, so the factor is m - k
        running = max(running, min(1.0, (m - k) * p[i]))
        adjusted[i] = running
    return adjusted


def _adjust(p: Sequence[float], correction: str | None) -> list[float | None]:
    """Adjusted p-values; NaN p-values stay NaN and do not count in the family size."""
    if correction is None:
        return [None] * len(p)
    finite = [i for i, v in enumerate(p) if math.isfinite(v)]
    out: list[float | None] = [math.nan] * len(p)
    if not finite:
        return out
    values = [p[i] for i in finite]
    if correction == "holm":
        adjusted = _holm(values)
    else:
        adjusted = [float(v) for v in stats.false_discovery_control(values, method="bh")]
    for i, v in zip(finite, adjusted):
        out[i] = v
    return out


def _check_correction(correction: str | None) -> str | None:
    if correction is None or correction in CORRECTIONS:
        return correction
    raise ReportInputError(f"unknown correction {correction!r}: use None, 'holm' or 'bh'")


def _kendall(
    models: Sequence[str], tasks: Sequence[str], matrix: Mapping[str, Mapping[str, float]], correction: str | None
) -> tuple[list[TauResult], list[str]]:
    """The tau table and warnings naming the pairs whose tau is undefined (grouped by cause, so that one
    constant task among twenty gives one line, not nineteen)."""
    rows: list[tuple[str, str, int, float, float]] = []
    too_few: list[str] = []
    constant: dict[str, list[str]] = {}
    for i, task_a in enumerate(tasks):
        for task_b in tasks[i + 1 :]:
            both = [m for m in models if task_a in matrix[m] and task_b in matrix[m]]
            x = [matrix[m][task_a] for m in both]
            y = [matrix[m][task_b] for m in both]
            n = len(both)
            tau = p = math.nan
            if n < 3:
                too_few.append(f"{task_a} vs {task_b} (n={n})")
            elif len(set(x)) == 1 or len(set(y)) == 1:
                constant.setdefault(task_a if len(set(x)) == 1 else task_b, []).append(f"{task_a} vs {task_b}")
            else:
                # method="auto": exact p without ties and small n, asymptotic otherwise (as pingouin/MO).
                result = stats.kendalltau(x, y, variant="b")
                tau, p = float(result.statistic), float(result.pvalue)
            rows.append((task_a, task_b, n, tau, p))
    warnings: list[str] = []
    if len(models) < 3:
        if rows:
            warnings.append(f"only {len(models)} model(s): Kendall tau needs at least 3, so every tau is undefined")
    elif too_few:
        warnings.append(
            f"tau undefined for {len(too_few)} pair(s) with fewer than 3 models scored on both: {', '.join(too_few)}"
        )
    for task, pairs in sorted(constant.items()):
        warnings.append(
            f"tau undefined for {len(pairs)} pair(s) because {task} has the same score for every model scored on "
            f"both: {', '.join(pairs)}"
        )
    adjusted = _adjust([r[4] for r in rows], correction)
    return [TauResult(a, b, n, tau, p, adj) for (a, b, n, tau, p), adj in zip(rows, adjusted)], warnings


def kendall_table(matrix: Mapping[str, Mapping[str, float]], correction: str | None = None) -> list[TauResult]:
    """Kendall tau-b for every task pair (task_a < task_b), over the models with finite scores for both."""
    correction = _check_correction(correction)
    models, tasks, clean = _clean(matrix)
    return _kendall(models, tasks, clean, correction)[0]


def _with_inversions(n: int, d: int) -> list[int]:
    """A permutation of range(n) with exactly d inversions (Lehmer code, greedily)."""
    free = list(range(n))
    out = []
    for _ in range(n):
        c = min(d, len(free) - 1)  # the element picked here is larger than c of those after it
        out.append(free.pop(c))
        d -= c
    return out


def _exact_p(n: int, d: int) -> float:
    """Exact two-sided p of a no-ties tau with d discordant pairs among n models (scipy's exact null)."""
    result = stats.kendalltau(list(range(n)), _with_inversions(n, d), method="exact")
    return float(result.pvalue)


def min_significant_tau(n: int, alpha: float = 0.05) -> float | None:
    """Smallest |tau| with exact two-sided p < alpha for n models without ties; None if none can reach it.

    The attainable taus are 1 - 4d / (n(n - 1)) for d discordant pairs; p grows with d up to half the
    pairs, so a bisection over d finds the boundary.
    """
    if n < 2:
        return None
    pairs = n * (n - 1) // 2
    if not _exact_p(n, 0) < alpha:
        return None
    lo, hi = 0, pairs // 2  # p(lo) < alpha holds; find the largest such d in [lo, hi]
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if _exact_p(n, mid) < alpha:
            lo = mid
        else:
            hi = mid - 1
    return 1.0 - 4.0 * lo / (n * (n - 1))


# ---------------------------------------------------------------- discriminative power and spread


def _point(task: str, a: float, b: float) -> PairPoint:
    ratio = None if a == 0 else b / a
    abs_log = abs(math.log(b / a)) if a > 0 and b > 0 else None
    return PairPoint(task, a, b, ratio, abs_log, abs(a - b) / math.sqrt(2))


def discriminative_power(matrix: Mapping[str, Mapping[str, float]], model_a: str, model_b: str) -> list[PairPoint]:
    """Per task scored for both models: a, b, b/a, |ln(b/a)|, distance from the diagonal; farthest first."""
    models, tasks, clean = _clean(matrix)
    for model in (model_a, model_b):
        if model not in clean:
            raise ReportInputError(f"unknown model {model!r} for the pair; models are: {', '.join(models)}")
    row_a, row_b = clean[model_a], clean[model_b]
    points = [_point(t, row_a[t], row_b[t]) for t in tasks if t in row_a and t in row_b]
    # Task name breaks ties so the order never depends on dict order.
    return sorted(points, key=lambda p: (-p.diagonal_distance, p.task))


def _spread(models: Sequence[str], tasks: Sequence[str], matrix: Mapping[str, Mapping[str, float]]) -> dict:
    """Per task across models: n, min, max, range and the sample SD (ddof = 1; NaN below 2 models)."""
    out: dict[str, dict[str, float]] = {}
    for task in tasks:
        values = [matrix[m][task] for m in models if task in matrix[m]]
        n = len(values)
        lo = min(values) if values else math.nan
        hi = max(values) if values else math.nan
        sd = float(np.std(values, ddof=1)) if n >= 2 else math.nan
        out[task] = {"n": n, "min": lo, "max": hi, "range": hi - lo, "sd": sd}
    return out


def compare(
    matrix: Mapping[str, Mapping[str, float]],
    *,
    correction: str | None = None,
    pairs: Sequence[tuple[str, str]] = (),
    alpha: float = 0.05,
) -> Comparison:
    """Kendall table, discriminative power of the given model pairs, spread per task, and warnings."""
    correction = _check_correction(correction)
    if not 0 < alpha < 1:
        raise ReportInputError(f"alpha must lie in (0, 1), got {alpha!r}")
    models, tasks, clean = _clean(matrix)
    if not models:
        raise ReportInputError("nothing to compare: the score matrix has no models")
    warnings: list[str] = []
    n = len(models)
    threshold = min_significant_tau(n, alpha)
    if threshold is None:
        warnings.append(f"too few models for any significance: with {n} model(s) no Kendall tau reaches p < {alpha:g}")
    elif n <= FEW_MODELS:
        warnings.append(f"only {n} models: |tau| >= {threshold:.3f} needed for p < {alpha:g} (exact test, no ties)")
    if len(tasks) < 2:
        warnings.append(f"only {len(tasks)} task(s): no task pair to correlate")
    taus, tau_warnings = _kendall(models, tasks, clean, correction)
    warnings.extend(tau_warnings)
    pair_points = {(a, b): discriminative_power(clean, a, b) for a, b in pairs}
    return Comparison(
        models=models,
        tasks=tasks,
        matrix={m: {t: clean[m].get(t, math.nan) for t in tasks} for m in models},
        taus=taus,
        correction=correction,
        pairs=pair_points,
        spread=_spread(models, tasks, clean),
        warnings=warnings,
        alpha=alpha,
    )


# ---------------------------------------------------------------- files


def _significant(t: TauResult, alpha: float) -> bool:
    p = t.p if t.p_adjusted is None else t.p_adjusted
    return math.isfinite(p) and p < alpha


def comparison_dict(comparison: Comparison) -> dict:
    """The whole comparison as plain data (what comparison.json holds, NaN written as null)."""
    c = comparison
    return {
        "models": c.models,
        "tasks": c.tasks,
        "alpha": c.alpha,
        "correction": c.correction,
        "min_significant_tau": min_significant_tau(len(c.models), c.alpha),
        "matrix": c.matrix,
        "units": {t: c.units[t] for t in c.tasks if t in c.units},
        "kendall": [{**dataclasses.asdict(t), "significant": _significant(t, c.alpha)} for t in c.taus],
        "pairs": [
            {"model_a": a, "model_b": b, "points": [dataclasses.asdict(p) for p in points]}
            for (a, b), points in c.pairs.items()
        ],
        "spread": c.spread,
        "spread_sd": "sample standard deviation (n - 1 denominator)",
        "reliability": [reliability_dict(r) for r in c.reliability],
        "warnings": c.warnings,
    }


def write_comparison(comparison: Comparison, out_dir: Path) -> tuple[str, str, list[FigureFile]]:
    """Write matrix.csv, kendall.csv, comparison.json and figures/; return (HTML fragment, Markdown, figures)."""
    # matplotlib is imported only when figures are wanted.
    from lm_eval_cog.reports import compare_figures

    c = comparison
    out_dir = Path(out_dir)
    # Text cells (models, tasks) escaped against formulas, numbers kept numbers: see spreadsheet.py.
    matrix_rows = [["model", *c.tasks]] + [[m, *(c.matrix[m].get(t) for t in c.tasks)] for m in c.models]
    tau_rows = [["task_a", "task_b", "n", "tau", "p", "p_adjusted"]] + [
        [t.task_a, t.task_b, t.n, t.tau, t.p, t.p_adjusted] for t in c.taus
    ]
    write_text(out_dir / "matrix.csv", csv_text(matrix_rows), out_dir)
    write_text(out_dir / "kendall.csv", csv_text(tau_rows), out_dir)
    text = strict_json.dumps(comparison_dict(c), indent=2, ensure_ascii=False)
    write_text(out_dir / "comparison.json", text + "\n", out_dir)

    fig_dir = out_dir / "figures"
    figures: list[FigureFile] = []
    if len(c.tasks) >= 2:
        figures.append(compare_figures.tau_heatmap(c.tasks, c.taus, fig_dir, alpha=c.alpha, correction=c.correction))
    pair_figures = {}
    for i, ((a, b), points) in enumerate(c.pairs.items(), start=1):
        fig = compare_figures.pair_scatter(a, b, points, fig_dir, stem=f"pair{i}_{_slug(a)}__{_slug(b)}")
        pair_figures[(a, b)] = fig
        figures.append(fig)
    return _html(c, figures[0] if len(c.tasks) >= 2 else None, pair_figures), _markdown(c), figures


def _slug(name: str) -> str:
    """A file-name-safe form of a model label (the pair index keeps equal slugs apart)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.")[:60] or "model"


# ---------------------------------------------------------------- HTML and Markdown


def _fmt(value: float | None, digits: int = 3) -> str:
    if value is None or not math.isfinite(value):
        return "—"
    return f"{value:.{digits}f}"


def _fmt_p(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return "—"
    return f"{value:.3g}"


def _fmt_score(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return "—"
    return f"{value:.4g}"


def _td(value: float | None, text: str, title: str = "") -> str:
    """A numeric cell: ``data-value`` carries the number for sorting; missing cells have none (the page's
    sorter puts them last and keeps the column numeric only if their text is empty or an em dash)."""
    tip = f' title="{html.escape(title)}"' if title else ""
    if value is None or not math.isfinite(value):
        return f'<td class="missing"{tip}>{html.escape(text)}</td>'
    return f'<td class="num" data-value="{float(value)!r}"{tip}>{html.escape(text)}</td>'


def _text_td(text: str) -> str:
    return f"<td>{html.escape(text)}</td>"


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], caption: str = "") -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "".join(f"<tr>{''.join(r)}</tr>" for r in rows)
    cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    return f'<table class="sortable">{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _figure_html(fig: FigureFile) -> str:
    """The PNG inline (the page needs no other file) and a link to the SVG, relative to out_dir."""
    svg = html.escape(f"{fig.svg.parent.name}/{fig.svg.name}")
    return (
        f'<figure><img src="{fig.data_uri()}" alt="{html.escape(fig.title)}">'
        f"<figcaption><strong>{html.escape(fig.title)}.</strong> {html.escape(fig.caption)} "
        f'<a href="{svg}">SVG</a></figcaption></figure>'
    )


def _with_unit(c: Comparison, task: str) -> str:
    """A column or row name with its scale, so 0-1 and 0-100 scores side by side are told apart."""
    unit = c.units.get(task)
    return f"{task} ({unit})" if unit else task


def _correction_note(c: Comparison) -> str:
    return (
        f"Kendall tau-b across models (pairwise complete, scipy.stats.kendalltau); two-sided p, "
        f"significance at p < {c.alpha:g}; correction for multiple comparisons: {_CORRECTION_NAMES[c.correction]}."
    )


def _html(c: Comparison, heatmap: FigureFile | None, pair_figures: Mapping[tuple[str, str], FigureFile]) -> str:
    parts = ['<section class="comparison">', "<h2>Cross-model comparison</h2>"]
    if c.warnings:
        items = "".join(f"<li>{html.escape(w)}</li>" for w in c.warnings)
        parts.append(f'<div class="warnings" role="alert"><strong>Warnings</strong><ul>{items}</ul></div>')
    parts.append("<h3>Scores</h3>")
    rows = [
        [_text_td(m), *(_td(c.matrix[m].get(t), _fmt_score(c.matrix[m].get(t))) for t in c.tasks)] for m in c.models
    ]
    parts.append(_table(["model", *(_with_unit(c, t) for t in c.tasks)], rows,
                        "Headline score per model and task, on each task's own scale (in parentheses)"))  # fmt: skip
    parts.append("<h3>Spread across models</h3>")
    rows = [
        [_text_td(_with_unit(c, t)), _td(s["n"], str(s["n"])), *(_td(s[k], _fmt_score(s[k])) for k in ("min", "max", "range", "sd"))]
        for t, s in c.spread.items()
    ]
    parts.append(_table(["task", "n", "min", "max", "range", "SD (sample)"], rows))
    if c.reliability:
        parts.append(compare_reliability_html(c.reliability))
    parts.append("<h3>Kendall tau-b between tasks</h3>")
    parts.append(f"<p>{html.escape(_correction_note(c))}</p>")
    if heatmap is not None:
        parts.append(_figure_html(heatmap))
    headers = ["task A", "task B", "n", "tau", "p"] + (["p adjusted"] if c.correction else []) + ["significant"]
    rows = []
    for t in c.taus:
        row = [
            _text_td(t.task_a),
            _text_td(t.task_b),
            _td(t.n, str(t.n)),
            _td(t.tau, _fmt(t.tau)),
            _td(t.p, _fmt_p(t.p)),
        ]
        if c.correction:
            row.append(_td(t.p_adjusted, _fmt_p(t.p_adjusted)))
        row.append(_text_td("*" if _significant(t, c.alpha) else ""))
        rows.append(row)
    parts.append(_table(headers, rows))
    for (a, b), points in c.pairs.items():
        parts.append(f"<h3>Discriminative power: {html.escape(a)} vs {html.escape(b)}</h3>")
        parts.append(_figure_html(pair_figures[(a, b)]))
        rows = [
            [
                _text_td(_with_unit(c, p.task)),
                _td(p.a, _fmt_score(p.a)),
                _td(p.b, _fmt_score(p.b)),
                _td(p.ratio, _fmt(p.ratio, 2), "" if p.ratio is not None else f"undefined: {a} scores 0"),
                _td(p.abs_log_ratio, _fmt(p.abs_log_ratio)),
                _td(p.diagonal_distance, _fmt_score(p.diagonal_distance)),
            ]
            for p in points
        ]
        parts.append(_table(["task", a, b, "ratio b/a", "|ln(b/a)|", "distance from diagonal"], rows))
    parts.append("</section>")
    return "\n".join(parts)


def _markdown(c: Comparison) -> str:
    parts = ["## Cross-model comparison"]
    if c.warnings:
        parts.append("**Warnings**\n\n" + "\n".join(f"- {md(w)}" for w in c.warnings))
    parts.append("### Scores")
    parts.append(
        md_table(["model", *(_with_unit(c, t) for t in c.tasks)],
                 [[m, *(_fmt_score(c.matrix[m].get(t)) for t in c.tasks)] for m in c.models])  # fmt: skip
    )
    parts.append("### Spread across models")
    rows = [[_with_unit(c, t), str(s["n"]), *(_fmt_score(s[k]) for k in ("min", "max", "range", "sd"))] for t, s in c.spread.items()]
    parts.append(md_table(["task", "n", "min", "max", "range", "SD (sample)"], rows))
    if c.reliability:
        parts.append(compare_reliability_markdown(c.reliability))
    parts.append("### Kendall tau-b between tasks")
    parts.append(md(_correction_note(c)))
    headers = ["task A", "task B", "n", "tau", "p"] + (["p adjusted"] if c.correction else []) + ["significant"]
    rows = []
    for t in c.taus:
        row = [t.task_a, t.task_b, str(t.n), _fmt(t.tau), _fmt_p(t.p)]
        if c.correction:
            row.append(_fmt_p(t.p_adjusted))
        rows.append(row + ["*" if _significant(t, c.alpha) else ""])
    parts.append(md_table(headers, rows))
    for (a, b), points in c.pairs.items():
        parts.append(f"### Discriminative power: {md(a)} vs {md(b)}")
        rows = [
            [
                _with_unit(c, p.task),
                _fmt_score(p.a),
                _fmt_score(p.b),
                _fmt(p.ratio, 2) if p.ratio is not None else "undefined",
                _fmt(p.abs_log_ratio),
                _fmt_score(p.diagonal_distance),
            ]
            for p in points
        ]
        parts.append(md_table(["task", a, b, "ratio b/a", "|ln(b/a)|", "distance from diagonal"], rows))
    return "\n\n".join(parts) + "\n"
