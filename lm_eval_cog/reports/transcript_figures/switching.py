"""Figures of the set-shifting paradigms (WCST, LNT): the perseveration curve, accuracy by rule block, switch cost."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lm_eval_cog.reports.plotting import FigureFile, new_figure, save_figure
from lm_eval_cog.reports.transcript_figures.common import (
    INVALID_NOTE,
    Played,
    Rate,
    episodes_note,
    is_correct,
    label_counts,
    per_episode,
    pool,
    stem_of,
)

#: Trials since a rule change shown on the perseveration curve (positions 0 .. MAX_POSITION - 1).
MAX_POSITION = 20
#: Trials after a switch that count as "just after the switch" for the switch cost.
SWITCH_WINDOW = 3
#: The field that holds the rule in force, per set-shifting paradigm.
RULE_KEYS = {"wcst": "rule", "lnt": "task"}


def rule_blocks(trials: Sequence[Mapping[str, Any]], key: str) -> list[list[Mapping[str, Any]]]:
    """Maximal runs of consecutive trials under the same rule (``trial[key]``)."""
    blocks: list[list[Mapping[str, Any]]] = []
    for trial in trials:
        if blocks and blocks[-1][-1][key] == trial[key]:
            blocks[-1].append(trial)
        else:
            blocks.append([trial])
    return blocks


def perseveration_tally(trials: Sequence[Mapping[str, Any]], key: str, *, first_block: bool = False) -> dict[int, Rate]:
    """Accuracy by trials since the rule last changed (0 = first trial under the new rule).

    With ``first_block=False`` only blocks that follow a rule change count; with ``True``
    only the episode's first block (position = trials since the start), where nothing
    was learned yet to persevere on.
    """
    blocks = rule_blocks(trials, key)
    chosen = blocks[:1] if first_block else blocks[1:]
    out: dict[int, Rate] = {}
    for block in chosen:
        for position, trial in enumerate(block):
            out[position] = out.get(position, Rate()) + Rate(int(is_correct(trial)), 1)
    return out


def block_tally(trials: Sequence[Mapping[str, Any]], key: str) -> dict[int, Rate]:
    """Accuracy in each rule block, numbered from 1 in episode order."""
    return {
        number: Rate(sum(is_correct(t) for t in block), len(block))
        for number, block in enumerate(rule_blocks(trials, key), start=1)
    }


def switch_tally(trials: Sequence[Mapping[str, Any]], key: str, k: int = SWITCH_WINDOW) -> dict[str, Rate]:
    """The two accuracies of the switch cost.

    ``after_switch``: the first ``k`` trials of every block that follows a rule change;
    ``rest``: every trial at position >= ``k`` of any block (the first block included).
    The first ``k`` trials of the episode are in neither: they are the initial search,
    not a switch. Under a criterion schedule a block ends with a run of correct trials,
    so ``rest`` is favoured by construction: compare models, not against zero.
    """
    after, rest = Rate(), Rate()
    for number, block in enumerate(rule_blocks(trials, key)):
        for position, trial in enumerate(block):
            hit = Rate(int(is_correct(trial)), 1)
            if position >= k:
                rest = rest + hit
            elif number > 0:
                after = after + hit
    return {"after_switch": after, "rest": rest}


def switch_cost(tally: Mapping[str, Rate]) -> float:
    """Accuracy on ``rest`` minus accuracy just after a switch (NaN when either is empty)."""
    return tally["rest"].value - tally["after_switch"].value


def set_shifting_figures(task: str, data: Played, trials: list[list[dict]], out_dir: Path, stem: str) -> list[FigureFile]:
    key = RULE_KEYS[str(data.paradigm)]
    what = "rule" if key == "rule" else "task (letter/number)"
    # All four measures per episode at once: an episode missing a field drops out of every one.
    rows, skip = per_episode(
        trials,
        lambda ts: (
            perseveration_tally(ts, key),
            perseveration_tally(ts, key, first_block=True),
            block_tally(ts, key),
            switch_tally(ts, key),
        ),
    )
    skipped, used = data.skipped + skip, len(rows)
    if not used:
        return []
    after_p, first_p, blocks, cost_tally = (pool(column) for column in zip(*rows))
    figures = []

    fig, ax = new_figure(6.4, 3.6)
    for curve, style, label in (
        (after_p, {"marker": "o", "color": "#1f77b4"}, f"after a {what} change"),
        (
            first_p,
            {"marker": "s", "color": "#999999", "linestyle": "--", "markersize": 3},
            "first block (episode start)",
        ),
    ):
        xs = [x for x in curve if x < MAX_POSITION]
        if xs:
            ax.plot(xs, [curve[x].value for x in xs], label=label, **style)
    labelled = after_p or first_p  # the counts of the main curve; of the first block when no switch
    xs = [x for x in labelled if x < MAX_POSITION]
    label_counts(ax, xs, [labelled[x].value for x in xs], [labelled[x].n for x in xs])
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_ylim(-0.08, 1.05)
    ax.set_xlabel(f"trials since the {what} last changed (0 = first trial under the new one)")
    ax.set_ylabel("accuracy")
    ax.legend(loc="best", fontsize=7, frameon=False)
    switches = sum(v.n for k, v in after_p.items() if k == 0)
    caption = (
        f"Accuracy (correct / all trials) by trials since the {what} changed: the perseveration curve. "
        f"{INVALID_NOTE} {episodes_note(used, skipped)} {switches} switches; the small numbers are the "
        f"trials pooled at each point. Positions from {MAX_POSITION} on are not shown."
        + ("" if switches else " No episode reached a switch, so only the first block is drawn.")
    )
    figures.append(save_figure(fig, out_dir, stem_of(stem, "perseveration"), f"{task}: perseveration curve", caption))

    cost_tally = {"after_switch": cost_tally.get("after_switch", Rate()), "rest": cost_tally.get("rest", Rate())}
    cost = switch_cost(cost_tally)
    fig, (left, right) = new_figure(7.6, 3.4, ncols=2, gridspec_kw={"width_ratios": [3, 1.3]})
    numbers = list(blocks)
    values = [blocks[b].value for b in numbers]
    left.bar(numbers, values, color="#1f77b4")
    label_counts(left, numbers, [0.0] * len(numbers), [blocks[b].n for b in numbers])
    left.set_xticks(numbers)
    left.set_ylim(-0.08, 1.05)
    left.set_xlabel(f"{what} block (1 = first)")
    left.set_ylabel("accuracy")
    names = ["after_switch", "rest"]
    right.bar([0, 1], [cost_tally[n].value for n in names], color=["#d62728", "#2ca02c"])
    label_counts(right, [0, 1], [0.0, 0.0], [cost_tally[n].n for n in names])
    for x, name in enumerate(names):
        if not cost_tally[name].n:
            right.text(x, 0.05, "n/a", ha="center", fontsize=7)
    right.set_xticks([0, 1], [f"first {SWITCH_WINDOW}\nafter switch", "rest"])
    right.set_xlim(-0.6, 1.6)
    right.set_ylim(-0.08, 1.05)
    right.set_title("switch cost " + ("n/a" if math.isnan(cost) else f"{cost:+.2f}"), fontsize=8)
    caption = (
        f"Left: accuracy in each {what} block (a block is a run of trials under one {what}). Right: the switch "
        f"cost, accuracy on every trial from position {SWITCH_WINDOW} of a block minus accuracy on the first "
        f"{SWITCH_WINDOW} trials after a change (the episode's first {SWITCH_WINDOW} trials are in neither; "
        f"n/a without a switch). {INVALID_NOTE} {episodes_note(used, skipped)} Small numbers: trials pooled."
    )
    figures.append(
        save_figure(fig, out_dir, stem_of(stem, "blocks"), f"{task}: accuracy by block and switch cost", caption)
    )
    return figures
