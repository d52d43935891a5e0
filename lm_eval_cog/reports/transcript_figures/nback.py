"""Figures of the n-back paradigm: hit and false-alarm rates."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lm_eval_cog.reports.plotting import FigureFile, new_figure, save_figure
from lm_eval_cog.reports.transcript_figures.common import (
    INVALID,
    Played,
    Rate,
    episodes_note,
    label_counts,
    per_episode,
    pool,
    stem_of,
)


def nback_tally(trials: Sequence[Mapping[str, Any]]) -> dict[str, Rate]:
    """Hit rate, false-alarm rate and invalid share of one n-back episode.

    As the paradigm's own metrics: ``hit`` = "yes" among the valid replies on target trials,
    ``false_alarm`` = "yes" among the valid replies on comparable non-target trials (the first
    n trials, ``target`` None, are neither); ``invalid`` = invalid replies among all trials.
    """
    hit, fa, invalid = Rate(), Rate(), Rate()
    for trial in trials:
        bad = trial["outcome"] == INVALID
        invalid = invalid + Rate(int(bad), 1)
        if bad:
            continue
        said_yes = int(trial["choice"] == "yes")
        if trial["target"] is True:
            hit = hit + Rate(said_yes, 1)
        elif trial["target"] is False:
            fa = fa + Rate(said_yes, 1)
    return {"hit": hit, "false_alarm": fa, "invalid": invalid}


def nback_figures(task: str, data: Played, trials: list[list[dict]], out_dir: Path, stem: str) -> list[FigureFile]:
    tallies, skipped = per_episode(trials, nback_tally)
    if not tallies:
        return []
    pooled = pool(tallies)
    names = ["hit", "false_alarm", "invalid"]
    labels = ["hit rate", "false-alarm rate", "invalid share"]
    fig, ax = new_figure(4.8, 3.4)
    ax.bar(range(3), [pooled[n].value for n in names], color=["#2ca02c", "#d62728", "#7f7f7f"], width=0.6)
    for i, name in enumerate(names):  # per-episode rates as dots, so the spread shows
        ys = [t[name].value for t in tallies if t[name].n]
        ax.scatter([i] * len(ys), ys, s=10, color="black", zorder=3, alpha=0.6)
    label_counts(ax, range(3), [0.0] * 3, [pooled[n].n for n in names])
    ax.set_xticks(range(3), labels)
    ax.set_ylim(-0.08, 1.05)
    ax.set_ylabel("share")
    caption = (
        "Hit rate (yes on target trials) and false-alarm rate (yes on comparable non-targets), over valid "
        "replies as the paradigm's metrics; invalid share over all trials. Invalid replies are their own "
        f"outcome: neither hit nor false alarm. Bars pool all trials; dots are episodes. {episodes_note(len(tallies), data.skipped + skipped)} "
        "Small numbers: trials in each denominator."
    )
    return [save_figure(fig, out_dir, stem_of(stem, "nback_rates"), f"{task}: hit and false-alarm rates", caption)]
