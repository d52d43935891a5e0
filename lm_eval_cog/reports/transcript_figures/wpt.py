"""Figures of the Weather Prediction Task: accuracy over blocks of days."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lm_eval_cog.reports.plotting import FigureFile, new_figure, save_figure
from lm_eval_cog.reports.transcript_figures.common import (
    INVALID_NOTE,
    Played,
    Rate,
    block_size,
    episodes_note,
    is_correct,
    label_counts,
    per_episode,
    pool,
    stem_of,
)


def trial_block_tally(trials: Sequence[Mapping[str, Any]], size: int) -> dict[int, Rate]:
    """Accuracy per block of ``size`` consecutive trials, blocks numbered from 1."""
    out: dict[int, Rate] = {}
    for i, trial in enumerate(trials):
        block = i // size + 1
        out[block] = out.get(block, Rate()) + Rate(int(is_correct(trial)), 1)
    return out


def wpt_figures(task: str, data: Played, trials: list[list[dict]], out_dir: Path, stem: str) -> list[FigureFile]:
    size = block_size(max(len(ts) for ts in trials))
    tallies, skipped = per_episode(trials, lambda ts: trial_block_tally(ts, size))
    if not tallies:
        return []
    pooled = pool(tallies)
    blocks = list(pooled)
    ys = [pooled[b].value for b in blocks]
    fig, ax = new_figure(5.4, 3.4)
    ax.plot(blocks, ys, marker="o", color="#1f77b4")
    label_counts(ax, blocks, ys, [pooled[b].n for b in blocks])
    ax.axhline(0.5, color="#999999", linestyle="--", linewidth=0.8)
    ax.set_xticks(blocks, [f"{(b - 1) * size + 1}-{b * size}" for b in blocks])
    ax.set_ylim(-0.08, 1.05)
    ax.set_xlabel("days")
    ax.set_ylabel("accuracy")
    caption = (
        f"Share of days whose prediction matched the actual weather, per block of {size} days (dashed: 0.5, "
        f"a coin flip). {INVALID_NOTE} {episodes_note(len(tallies), data.skipped + skipped)} "
        "Small numbers: days pooled."
    )
    return [save_figure(fig, out_dir, stem_of(stem, "accuracy_blocks"), f"{task}: accuracy over days", caption)]
