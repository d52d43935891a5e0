"""The figure of a dialogue game: how its episodes ended, and each role's moves by status."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lm_eval_cog.reports.plotting import FigureFile, new_figure, save_figure
from lm_eval_cog.reports.transcript_figures.common import Played, episodes_note, stem_of

OUTCOMES = ("success", "lose", "aborted")
STATUSES = ("valid", "violation", "rejected", "invalid")
_OUTCOME_COLOURS = ("#2ca02c", "#d62728", "#7f7f7f")
_STATUS_COLOURS = ("#1f77b4", "#d62728", "#ff7f0e", "#7f7f7f")


def game_tally(trials: Sequence[Mapping[str, Any]]) -> tuple[str, Counter]:
    """(outcome, Counter of (role, status)) of one episode's log; an episode stopped without an end
    record (the turn bound) counts as aborted, as the game's metrics count it."""
    ends = [r for r in trials if r.get("type") == "end"]
    outcome = str(ends[-1].get("outcome")) if ends else "aborted"
    moves = Counter((str(r.get("role")), str(r.get("status"))) for r in trials if r.get("type") == "move")
    return outcome, moves


def game_figures(task: str, data: Played, trials: list[list[dict]], out_dir: Path, stem: str) -> list[FigureFile]:
    tallies = [game_tally(t) for t in trials]
    outcomes = Counter(outcome for outcome, _ in tallies)
    moves: Counter = sum((m for _, m in tallies), Counter())
    roles = list(dict.fromkeys(role for role, _ in moves))
    fig, (left, right) = new_figure(8.4, 3.4, ncols=2)
    shares = [outcomes[o] / len(tallies) for o in OUTCOMES]
    left.bar(range(3), shares, color=_OUTCOME_COLOURS, width=0.6)
    for i, o in enumerate(OUTCOMES):
        left.annotate(str(outcomes[o]), (i, shares[i]), ha="center", va="bottom", fontsize=8)
    left.set_xticks(range(3), OUTCOMES)
    left.set_ylim(0, 1.1)
    left.set_ylabel("share of episodes")
    left.set_title("how episodes ended", fontsize=9)
    bottoms = [0] * len(roles)
    for status, colour in zip(STATUSES, _STATUS_COLOURS):
        counts = [moves[(role, status)] for role in roles]
        right.bar(range(len(roles)), counts, bottom=bottoms, color=colour, width=0.6, label=status)
        bottoms = [b + c for b, c in zip(bottoms, counts)]
    right.set_xticks(range(len(roles)), roles)
    right.set_ylabel("model calls")
    right.set_title("moves by role and status", fontsize=9)
    right.legend(fontsize=7, frameon=False)
    caption = (
        "Left: share of episodes won, lost within the rules and aborted (a reply not in the required form); "
        "numbers are episodes. Right: every model call by role, as the game master read it: valid, violating "
        "(a rule that loses the game, e.g. a taboo word), rejected (asked again, e.g. a word not in Wordle's "
        f"list) or invalid. {episodes_note(len(tallies), data.skipped)}"
    )
    return [save_figure(fig, out_dir, stem_of(stem, "game"), f"{task}: outcomes and moves", caption)]
