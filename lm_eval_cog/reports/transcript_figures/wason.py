"""Figures of Wason's 2-4-6 (with or without the metacognition turn): queries asked, solutions, positive tests."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lm_eval_cog.reports.plotting import FigureFile, new_figure, save_figure
from lm_eval_cog.reports.transcript_figures.common import Played, Rate, episodes_note, stem_of


@dataclass(frozen=True)
class WasonEpisode:
    """One 2-4-6 episode: queries asked, of which expected "yes" (positive tests), solved (None: unknown)."""

    queries: int
    positive: int
    solved: bool | None


def wason_episode(trials: Sequence[Mapping[str, Any]], solved: bool | None) -> WasonEpisode:
    """Count the queries (``kind`` ``query``) and the positive tests (``expect`` ``yes``) among them."""
    queries = [t for t in trials if t["kind"] == "query"]
    return WasonEpisode(len(queries), sum(t["expect"] == "yes" for t in queries), solved)


def solved_of(sample: Mapping[str, Any]) -> bool | None:
    """Whether the sample's episode found the rule: its per-sample ``acc`` (1/0), None if absent or NaN."""
    value = sample.get("acc")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        return None
    return value >= 0.5


def wason_figures(task: str, data: Played, trials: list[list[dict]], out_dir: Path, stem: str) -> list[FigureFile]:
    solved = [solved_of(s) for _, s in data.episodes]
    rows, skipped = [], 0
    for ts, ok in zip(trials, solved):
        try:
            rows.append(wason_episode(ts, ok))
        except (KeyError, TypeError, ValueError):
            skipped += 1
    if not rows:
        return []
    fig, (left, right) = new_figure(7.2, 3.4, ncols=2, gridspec_kw={"width_ratios": [3, 1.2]})
    top = max(r.queries for r in rows)
    xs = list(range(top + 1))
    bottom = [0] * len(xs)
    for state, label, style in (
        (True, "solved", {"color": "#2ca02c"}),
        (False, "not solved", {"color": "#d62728", "hatch": "//", "edgecolor": "white"}),
        (None, "unknown", {"color": "#bbbbbb"}),
    ):
        counts = [sum(r.queries == x and r.solved is state for r in rows) for x in xs]
        if any(counts):
            left.bar(xs, counts, bottom=bottom, label=label, **style)
            bottom = [b + c for b, c in zip(bottom, counts)]
    left.set_xlabel("queries asked in the episode")
    left.set_ylabel("episodes")
    left.set_xlim(-0.6, max(top, 5) + 0.6)
    left.set_ylim(0, max(bottom) * 1.25)  # headroom for the legend
    left.xaxis.get_major_locator().set_params(integer=True)
    left.yaxis.get_major_locator().set_params(integer=True)
    left.legend(loc="upper left", ncols=3, fontsize=7, frameon=False)
    positive = Rate(sum(r.positive for r in rows), sum(r.queries for r in rows))
    right.bar([0], [positive.value if positive.n else 0.0], color="#1f77b4", width=0.5)
    shares = [r.positive / r.queries for r in rows if r.queries]
    right.scatter([0] * len(shares), shares, s=10, color="black", zorder=3, alpha=0.6)
    right.set_xticks([0], ["positive tests"])
    right.set_xlim(-0.8, 0.8)
    right.set_ylim(0, 1.05)
    right.set_title("n/a (no query)" if not positive.n else f"{positive.value:.2f} of {positive.n} queries", fontsize=8)
    n_solved = sum(r.solved is True for r in rows)
    caption = (
        f"Left: queries asked per episode, coloured by whether the stated rule was exactly right "
        f"({n_solved} of {len(rows)} solved; from the sample's acc). Right: share of queries expected to get "
        "a Yes (positive tests), pooled (bar) and per episode (dots). "
        f"{episodes_note(len(rows), data.skipped + skipped)}"
    )
    return [save_figure(fig, out_dir, stem_of(stem, "queries"), f"{task}: queries and solutions", caption)]
