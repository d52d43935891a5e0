"""Figures of the two-armed bandits with reversals (PRLT, MBT): choices of the better arm around each reversal."""

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

#: Trials shown before / after each reversal on the reversal curve.
REVERSAL_BEFORE, REVERSAL_AFTER = 5, 10


def better_arm(trial: Mapping[str, Any]) -> str | None:
    """The arm that pays more on this trial: MBT's ``good_arm``, PRLT's larger of ``p_left``/``p_right``
    (None on a tie)."""
    if "good_arm" in trial:
        return str(trial["good_arm"])
    left, right = float(trial["p_left"]), float(trial["p_right"])
    return None if left == right else ("left" if left > right else "right")


def reversal_tally(
    trials: Sequence[Mapping[str, Any]], before: int = REVERSAL_BEFORE, after: int = REVERSAL_AFTER
) -> dict[int, Rate]:
    """Share of choices of the currently better arm by trial relative to each reversal.

    A reversal is a trial whose better arm differs from the previous trial's (offset 0).
    Offsets run from ``-before`` to ``after``, clipped to the reversal's own neighbourhood:
    trials before it count back to the previous reversal (inclusive), trials after it up to
    the next reversal (exclusive), so that with short blocks (MBT) no trial is counted twice
    for one offset. An invalid reply chose no arm: not the better one.
    """
    better = [better_arm(t) for t in trials]
    reversals = [i for i in range(1, len(trials)) if better[i] and better[i - 1] and better[i] != better[i - 1]]
    out: dict[int, Rate] = {}
    for j, r in enumerate(reversals):
        low = max(r - before, reversals[j - 1] if j else 0)
        high = min(r + after, (reversals[j + 1] if j + 1 < len(reversals) else len(trials)) - 1)
        for i in range(low, high + 1):
            if better[i] is None:
                continue
            chose = trials[i]["choice"] == better[i] and trials[i]["outcome"] != INVALID
            out[i - r] = out.get(i - r, Rate()) + Rate(int(chose), 1)
    return out


def reversal_figures(task: str, data: Played, trials: list[list[dict]], out_dir: Path, stem: str) -> list[FigureFile]:
    tallies, skipped = per_episode(trials, reversal_tally)
    pooled = pool(tallies)
    if not tallies or not pooled:
        return []
    xs = list(pooled)
    ys = [pooled[x].value for x in xs]
    fig, ax = new_figure(6.0, 3.4)
    ax.plot(xs, ys, marker="o", color="#1f77b4")
    label_counts(ax, xs, ys, [pooled[x].n for x in xs])
    ax.axvline(-0.5, color="#d62728", linestyle=":", linewidth=1)
    ax.text(-0.4, 1.02, "reversal", color="#d62728", fontsize=7, va="bottom")
    ax.axhline(0.5, color="#999999", linestyle="--", linewidth=0.8)
    ax.set_xticks(xs)
    ax.set_ylim(-0.08, 1.08)
    ax.set_xlabel("trial relative to the reversal (0 = first trial with the other arm better)")
    ax.set_ylabel("chose the better arm")
    reversals = pooled.get(0, Rate()).n
    caption = (
        "Share of choices of the arm that currently pays more, around each reversal of the arms "
        f"({reversals} reversals); offsets are clipped at the neighbouring reversals. Dashed: 0.5. "
        f"An invalid reply chose no arm (counted as not the better one). {episodes_note(len(tallies), data.skipped + skipped)} "
        "Small numbers: trials pooled."
    )
    return [save_figure(fig, out_dir, stem_of(stem, "reversals"), f"{task}: choices around reversals", caption)]
