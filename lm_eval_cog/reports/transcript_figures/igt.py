"""Figures of the Iowa Gambling Task: the share of each deck among the final choices, block by block."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lm_eval_cog.reports.plotting import FigureFile, new_figure, plain, save_figure
from lm_eval_cog.reports.transcript_figures.common import (
    INVALID,
    Played,
    block_size,
    episodes_note,
    per_episode,
    stem_of,
)

#: IGT decks: the default presets' bad decks (A, B) in warm colours, good decks (C, D) in cool ones.
DECK_COLOURS = {"AAA": "#d62728", "BBB": "#ff7f0e", "CCC": "#2ca02c", "DDD": "#1f77b4"}


def deck_tally(trials: Sequence[Mapping[str, Any]], size: int) -> dict[int, Counter[str]]:
    """IGT: final deck choices per block of ``size`` trials (an unreadable final reply is ``invalid``)."""
    out: dict[int, Counter[str]] = {}
    for i, trial in enumerate(trials):
        final = trial["final"]
        deck = INVALID if final is None or trial.get("final_invalid") else str(final)
        out.setdefault(i // size + 1, Counter())[deck] += 1
    return out


def _deck_values(data: Played) -> dict[str, float]:
    """Expected net value per card of each deck, from the stored parameters (when every episode has the same)."""
    params = {json.dumps(t.get("params"), sort_keys=True) for t, _ in data.episodes}
    if len(params) != 1:
        return {}
    p = data.episodes[0][0].get("params") or {}
    try:
        return {
            deck: float(g) - float(q) * float(loss)
            for deck, g, q, loss in zip(("AAA", "BBB", "CCC", "DDD"), p["gains"], p["p_loss"], p["losses"])
        }
    except (KeyError, TypeError, ValueError):
        return {}


def igt_figures(task: str, data: Played, trials: list[list[dict]], out_dir: Path, stem: str) -> list[FigureFile]:
    size = block_size(max(len(ts) for ts in trials))
    tallies, skipped = per_episode(trials, lambda ts: deck_tally(ts, size))
    if not tallies:
        return []
    pooled: dict[int, Counter[str]] = {}
    for tally in tallies:
        for block, counts in tally.items():
            pooled.setdefault(block, Counter()).update(counts)
    blocks = sorted(pooled)
    values = _deck_values(data)
    # Every deck of the game, chosen or not, so that two reports show the same legend.
    decks = sorted(set(values) | {d for c in pooled.values() for d in c if d != INVALID}) + [INVALID]
    spare = iter(["#9467bd", "#8c564b", "#e377c2", "#17becf"] * len(decks))
    fig, ax = new_figure(6.0, 3.6)
    bottom = [0.0] * len(blocks)
    for deck in decks:
        shares = [pooled[b][deck] / sum(pooled[b].values()) for b in blocks]
        if deck == INVALID and not any(shares):
            continue
        style = (
            {"color": "#bbbbbb", "hatch": "//", "edgecolor": "#555555"}
            if deck == INVALID
            else {"color": DECK_COLOURS.get(deck) or next(spare)}
        )
        label = plain(deck if deck not in values else f"{deck} (EV {values[deck]:+.0f})")
        ax.bar(blocks, shares, bottom=bottom, label=label, **style)
        bottom = [b + s for b, s in zip(bottom, shares)]
    ax.set_xticks(blocks, [f"{(b - 1) * size + 1}-{b * size}" for b in blocks])
    ax.set_xlabel("trials")
    ax.set_ylabel("share of final choices")
    ax.set_ylim(0, 1.0)
    # Legend top-down in the order of the stack.
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=7, frameon=False, reverse=True)
    caption = (
        f"Share of each deck among the final choices, per block of {size} trials (stacked). EV: expected net "
        "value per card from the stored parameters. Unreadable final replies are their own hatched share "
        f"(invalid). {episodes_note(len(tallies), data.skipped + skipped)}"
    )
    return [save_figure(fig, out_dir, stem_of(stem, "decks"), f"{task}: deck choices over trials", caption)]
