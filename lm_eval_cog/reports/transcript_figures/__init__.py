"""Behaviour figures of interactive tasks, computed from the logged episode transcripts.

:func:`transcript_figures` draws a task's figures with its paradigm family's module:
:mod:`.switching` (WCST, LNT), :mod:`.nback`, :mod:`.bandit` (PRLT, MBT), :mod:`.igt`,
:mod:`.wpt`, :mod:`.wason` (2-4-6, with or without the metacognition turn), :mod:`.games` (every
dialogue game: outcomes and moves); what they share
(reading transcripts, tallies, the caption conventions) is in :mod:`.common`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lm_eval_cog.reports.names import safe_stem
from lm_eval_cog.reports.plotting import FigureFile
from lm_eval_cog.reports.transcript_figures.bandit import better_arm, reversal_figures, reversal_tally
from lm_eval_cog.reports.transcript_figures.common import (
    Played,
    Rate,
    block_size,
    is_correct,
    played,
    pool,
    stem_of,
    transcript_of,
    usable,
)
from lm_eval_cog.reports.transcript_figures.games import game_figures, game_tally
from lm_eval_cog.reports.transcript_figures.igt import deck_tally, igt_figures
from lm_eval_cog.reports.transcript_figures.nback import nback_figures, nback_tally
from lm_eval_cog.reports.transcript_figures.switching import (
    block_tally,
    perseveration_tally,
    rule_blocks,
    set_shifting_figures,
    switch_cost,
    switch_tally,
)
from lm_eval_cog.reports.transcript_figures.wason import WasonEpisode, solved_of, wason_episode, wason_figures
from lm_eval_cog.reports.transcript_figures.wpt import trial_block_tally, wpt_figures

_DRAWERS: dict[str, Callable[[str, Played, list[list[dict]], Path, str], list[FigureFile]]] = {
    "wcst": set_shifting_figures,
    "lnt": set_shifting_figures,
    "nback": nback_figures,
    "prlt": reversal_figures,
    "mbt": reversal_figures,
    "igt": igt_figures,
    "wpt": wpt_figures,
    "wason246": wason_figures,
    "wason246_reflect": wason_figures,
}


def transcript_figures(task: str, samples: list[dict], out_dir: Path, *, name: str | None = None) -> list[FigureFile]:
    """The behaviour figures of an interactive task's samples; [] when the task has none
    (static probes, paradigms without a figure, no usable transcript). ``name``: the file stem of the
    task's figures (default: from the task's name; a report passes one distinct from every other task's)."""
    data = played(samples)
    if data.paradigm is None:
        return []
    trials = [t["trials"] for t, _ in data.episodes]
    draw = _DRAWERS.get(data.paradigm)
    if draw is None:
        from lm_eval_cog.paradigms import is_game

        draw = game_figures if is_game(data.paradigm) else None
    if draw is None or not trials:
        return []
    return draw(task, data, trials, Path(out_dir), safe_stem(task) if name is None else name)


__all__ = [
    "Played",
    "Rate",
    "WasonEpisode",
    "better_arm",
    "block_size",
    "block_tally",
    "deck_tally",
    "game_tally",
    "is_correct",
    "nback_tally",
    "perseveration_tally",
    "played",
    "pool",
    "reversal_tally",
    "rule_blocks",
    "solved_of",
    "stem_of",
    "switch_cost",
    "switch_tally",
    "transcript_figures",
    "transcript_of",
    "trial_block_tally",
    "usable",
    "wason_episode",
]
