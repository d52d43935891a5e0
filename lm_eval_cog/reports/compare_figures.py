"""Figures of the cross-model comparison: the tau heatmap and the discriminative-power scatter (MO Fig. 2)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from lm_eval_cog.reports.compare_stats import PairPoint, TauResult
from lm_eval_cog.reports.plotting import FigureFile, new_figure, plain, save_figure

#: Above this many tasks the cells are too small for numbers; asterisks stay.
ANNOTATE_MAX_TASKS = 15


def tau_heatmap(
    tasks: Sequence[str],
    taus: Sequence[TauResult],
    out_dir: Path,
    *,
    alpha: float = 0.05,
    correction: str | None = None,
) -> FigureFile:
    """Tasks x tasks tau-b, colours fixed to [-1, 1]; * = p (adjusted if set) < alpha; grey = undefined."""
    import matplotlib as mpl

    k = len(tasks)
    index = {t: i for i, t in enumerate(tasks)}
    grid = np.full((k, k), np.nan)
    star = np.zeros((k, k), dtype=bool)
    for t in taus:
        i, j = index[t.task_a], index[t.task_b]
        grid[i, j] = grid[j, i] = t.tau
        p = t.p if t.p_adjusted is None else t.p_adjusted
        star[i, j] = star[j, i] = math.isfinite(p) and p < alpha
    side = min(12.0, 2.5 + 0.45 * k)
    fig, ax = new_figure(side + 1.2, side)
    cmap = mpl.colormaps["RdBu_r"].with_extremes(bad="#bdbdbd")  # grey: undefined tau
    shown = np.ma.masked_invalid(grid)
    image = ax.imshow(shown, cmap=cmap, vmin=-1.0, vmax=1.0)
    for i in range(k):  # a task with itself is not a comparison: blank the diagonal
        ax.add_patch(mpl.patches.Rectangle((i - 0.5, i - 0.5), 1, 1, facecolor="white", edgecolor="none"))
    annotate = k <= ANNOTATE_MAX_TASKS
    for i in range(k):
        for j in range(k):
            if i == j or (not annotate and not star[i, j]):
                continue
            value = grid[i, j]
            text = ("" if not annotate else "n/a" if math.isnan(value) else f"{value:.2f}") + (
                "*" if star[i, j] else ""
            )
            colour = "white" if math.isfinite(value) and abs(value) > 0.6 else "black"
            ax.text(j, i, text, ha="center", va="center", fontsize=7 if annotate else 10, color=colour)
    names = [plain(t) for t in tasks]
    ax.set_xticks(range(k), names, rotation=60, ha="right", fontsize=7)
    ax.set_yticks(range(k), names, fontsize=7)
    ax.spines[:].set_visible(False)
    # A colorbar axis carved out of the heatmap's own keeps tight_layout from clipping the tick labels.
    from mpl_toolkits.axes_grid1 import make_axes_locatable

    cax = make_axes_locatable(ax).append_axes("right", size="4%", pad=0.15)
    fig.colorbar(image, cax=cax, label="Kendall tau-b")
    adjusted = {None: "uncorrected p", "holm": "Holm-adjusted p", "bh": "Benjamini-Hochberg-adjusted p"}[correction]
    caption = (
        f"Kendall tau-b between tasks across models (pairwise complete). * = {adjusted} < {alpha:g}; "
        "grey = undefined (fewer than 3 models with both scores, or one task constant)."
    )
    ax.set_title("Kendall tau-b between tasks")
    return save_figure(fig, out_dir, "kendall_heatmap", "Kendall tau-b between tasks", caption)


def _ratio_text(point: PairPoint) -> str:
    return "undefined" if point.ratio is None else f"{point.ratio:.2f}"


#: Beyond this magnitude matplotlib's axis arithmetic overflows: such scores are drawn divided by a power of ten.
_LARGEST_DRAWN = 1e100


def _scale(values: Sequence[float]) -> float:
    """1, or the power of ten that brings the largest |value| below 10 when it is too large to draw."""
    top = max((abs(v) for v in values), default=0.0)
    return 1.0 if top <= _LARGEST_DRAWN else 10.0 ** math.floor(math.log10(top))


def pair_scatter(model_a: str, model_b: str, points: Sequence[PairPoint], out_dir: Path, *, stem: str) -> FigureFile:
    """Each task at (score of a, score of b) with its name and the ratio b/a; the diagonal is 'no difference'."""
    fig, ax = new_figure(6.0, 6.0)
    scale = _scale([v for p in points for v in (p.a, p.b)])
    unit = "" if scale == 1.0 else f", in units of {scale:.0e}"
    if points:
        xs = [p.a / scale for p in points]
        ys = [p.b / scale for p in points]
        lo = min(0.0, *xs, *ys)
        hi = max(*xs, *ys)
        pad = 0.05 * (hi - lo) if hi > lo else 1.0
        lo, hi = lo - pad, hi + pad
        ax.plot([lo, hi], [lo, hi], color="#888888", linewidth=0.8, linestyle="--", zorder=1)
        ax.scatter(xs, ys, s=18, color="#1f77b4", zorder=2)
        for p, x, y in zip(points, xs, ys):
            ax.annotate(
                plain(f"{p.task} ({_ratio_text(p)})"), (x, y), xytext=(4, 3), textcoords="offset points", fontsize=7
            )
        ax.set_xlim(lo, hi)
        ax.set_ylim(lo, hi)
    else:
        ax.text(0.5, 0.5, "no task scored for both models", ha="center", va="center", transform=ax.transAxes)
    ax.set_aspect("equal", adjustable="box")
    ax.set_xlabel(plain(f"{model_a} (a{unit})"))
    ax.set_ylabel(plain(f"{model_b} (b{unit})"))
    title = f"Discriminative power: {model_a} vs {model_b}"
    ax.set_title(plain(title), fontsize=9)
    caption = (
        "Each point is a task at (score of a, score of b); the farther from the dashed diagonal, the more the task "
        "separates the two models. The number after the task name is the ratio b/a (undefined when a scores 0)."
    )
    return save_figure(fig, out_dir, stem, title, caption)
