"""Behaviour figures of interactive tasks, computed from the logged episode transcripts.

Each sample of an interactive task holds its episode's transcript (JSON) in ``resps[0][0]``;
its ``trials`` list is the paradigm's per-trial log. The numbers behind every figure come from
pure per-episode functions (``*_tally``) over that log, pooled over episodes by :func:`pool`.

Conventions, stated in every caption:

* Accuracy is correct / all trials: an invalid (unreadable) reply is its own outcome, never
  correct and never a random choice, so it lowers accuracy like an error does.
* A transcript that failed (``status`` ``failed``), holds no trials, or lacks a field a figure
  needs is skipped, and the number skipped is given in the caption.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lm_eval_cog.reports.names import safe_stem
from lm_eval_cog.reports.plotting import FigureFile, new_figure, plain, save_figure
from lm_eval_cog.reports.runs import transcript_in

#: Trials since a rule change shown on the perseveration curve (positions 0 .. MAX_POSITION - 1).
MAX_POSITION = 20
#: Trials after a switch that count as "just after the switch" for the switch cost.
SWITCH_WINDOW = 3
#: Trials shown before / after each reversal on the reversal curve.
REVERSAL_BEFORE, REVERSAL_AFTER = 5, 10
#: Episodes are cut into this many trial blocks (IGT: 100 trials -> blocks of 20).
TRIAL_BLOCKS = 5
#: Said in every caption that shows an accuracy.
INVALID_NOTE = "Invalid (unreadable) replies count as not correct."

CORRECT, ERROR, INVALID = "correct", "error", "invalid"
#: The field that holds the rule in force, per set-shifting paradigm.
RULE_KEYS = {"wcst": "rule", "lnt": "task"}
#: IGT decks: the default presets' bad decks (A, B) in warm colours, good decks (C, D) in cool ones.
DECK_COLOURS = {"AAA": "#d62728", "BBB": "#ff7f0e", "CCC": "#2ca02c", "DDD": "#1f77b4"}


# --------------------------------------------------------------------------- #
# Reading transcripts out of samples
# --------------------------------------------------------------------------- #


def transcript_of(sample: Mapping[str, Any]) -> dict[str, Any] | None:
    """The episode transcript of a sample (``resps[0][0]``), or None when it holds none
    (a static probe's sample, whose reply is plain text)."""
    return transcript_in(sample)


def usable(transcript: Mapping[str, Any]) -> bool:
    """A transcript whose trials can be analysed: not failed, with a non-empty list of records."""
    trials = transcript.get("trials")
    return (
        transcript.get("status") != "failed"
        and isinstance(trials, list)
        and bool(trials)
        and all(isinstance(t, Mapping) for t in trials)
    )


@dataclass(frozen=True)
class Played:
    """The transcripts of one task's samples: the paradigm, the usable episodes, how many were skipped."""

    paradigm: str | None
    episodes: list[tuple[dict[str, Any], Mapping[str, Any]]]  # (transcript, its sample)
    skipped: int


def played(samples: Iterable[Mapping[str, Any]]) -> Played:
    """The usable transcripts of ``samples`` in document order (samples without a transcript are ignored)."""
    ordered = sorted(samples, key=lambda s: s.get("doc_id", 0) if isinstance(s.get("doc_id"), int) else 0)
    found = [(t, s) for s in ordered if (t := transcript_of(s)) is not None]
    kinds = Counter(str(t["paradigm"]) for t, _ in found)
    paradigm = kinds.most_common(1)[0][0] if kinds else None
    good = [(t, s) for t, s in found if t["paradigm"] == paradigm and usable(t)]
    return Played(paradigm, good, len(found) - len(good))


# --------------------------------------------------------------------------- #
# Pure measures: one episode's trials -> a tally; pool() sums tallies over episodes
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class Rate:
    """``hits`` out of ``n``; ``value`` is NaN when nothing was counted."""

    hits: int = 0
    n: int = 0

    @property
    def value(self) -> float:
        return self.hits / self.n if self.n else math.nan

    def __add__(self, other: Rate) -> Rate:
        return Rate(self.hits + other.hits, self.n + other.n)


def pool(tallies: Iterable[Mapping[Any, Rate]]) -> dict[Any, Rate]:
    """Sum per-episode tallies key by key (pooled over episodes: every trial weighs the same)."""
    out: dict[Any, Rate] = {}
    for tally in tallies:
        for key, rate in tally.items():
            out[key] = out.get(key, Rate()) + rate
    return dict(sorted(out.items(), key=lambda kv: (str(type(kv[0])), kv[0])))


def is_correct(trial: Mapping[str, Any]) -> bool:
    """The trial's ``outcome`` is ``correct`` (errors and invalid replies are not); KeyError without one."""
    outcome = trial["outcome"]
    if outcome not in (CORRECT, ERROR, INVALID):
        raise ValueError(f"trial outcome {outcome!r} is not correct/error/invalid")
    return outcome == CORRECT


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


def block_size(n_trials: int, blocks: int = TRIAL_BLOCKS) -> int:
    """Trials per block when an episode of ``n_trials`` is cut into ``blocks`` blocks (last may be short)."""
    return max(1, math.ceil(n_trials / blocks))


def trial_block_tally(trials: Sequence[Mapping[str, Any]], size: int) -> dict[int, Rate]:
    """Accuracy per block of ``size`` consecutive trials, blocks numbered from 1."""
    out: dict[int, Rate] = {}
    for i, trial in enumerate(trials):
        block = i // size + 1
        out[block] = out.get(block, Rate()) + Rate(int(is_correct(trial)), 1)
    return out


def deck_tally(trials: Sequence[Mapping[str, Any]], size: int) -> dict[int, Counter[str]]:
    """IGT: final deck choices per block of ``size`` trials (an unreadable final reply is ``invalid``)."""
    out: dict[int, Counter[str]] = {}
    for i, trial in enumerate(trials):
        final = trial["final"]
        deck = INVALID if final is None or trial.get("final_invalid") else str(final)
        out.setdefault(i // size + 1, Counter())[deck] += 1
    return out


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


# --------------------------------------------------------------------------- #
# Figures
# --------------------------------------------------------------------------- #

def stem_of(task: str, kind: str) -> str:
    """A file stem safe on every file system: ``<task>_<kind>`` (a long task name cut, with a hash)."""
    return f"{safe_stem(task)}_{kind}"


def _apply(episodes: Sequence[Sequence[Mapping[str, Any]]], fn: Callable[[Any], Any]) -> tuple[list[Any], int]:
    """``fn`` on each episode's trials; an episode lacking a field ``fn`` reads is skipped and counted."""
    out, skipped = [], 0
    for trials in episodes:
        try:
            out.append(fn(trials))
        except (KeyError, TypeError, ValueError, AttributeError):
            skipped += 1
    return out, skipped


def _episodes_note(used: int, skipped: int) -> str:
    note = f"Pooled over {used} episode{'s' if used != 1 else ''}"
    return note + (f"; {skipped} skipped (failed or missing fields)." if skipped else ".")


def _label_counts(ax: Any, xs: Sequence[float], ys: Sequence[float], ns: Sequence[int]) -> None:
    """Write n under each point (or at the axis floor for NaN), so thin points are visible as thin."""
    for x, y, n in zip(xs, ys, ns):
        ax.annotate(
            f"{n}",
            (x, 0.0 if math.isnan(y) else y),
            textcoords="offset points",
            xytext=(0, -11),
            ha="center",
            fontsize=6,
            color="#555555",
        )


def transcript_figures(task: str, samples: list[dict], out_dir: Path, *, name: str | None = None) -> list[FigureFile]:
    """The behaviour figures of an interactive task's samples; [] when the task has none
    (static probes, paradigms without a figure, no usable transcript). ``name``: the file stem of the
    task's figures (default: from the task's name; a report passes one distinct from every other task's)."""
    data = played(samples)
    if data.paradigm is None:
        return []
    trials = [t["trials"] for t, _ in data.episodes]
    draw = _DRAWERS.get(data.paradigm)
    if draw is None or not trials:
        return []
    return draw(task, data, trials, Path(out_dir), safe_stem(task) if name is None else name)


def _set_shifting(task: str, data: Played, trials: list[list[dict]], out_dir: Path, stem: str) -> list[FigureFile]:
    key = RULE_KEYS[str(data.paradigm)]
    what = "rule" if key == "rule" else "task (letter/number)"
    # All four measures per episode at once: an episode missing a field drops out of every one.
    rows, skip = _apply(
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
    _label_counts(ax, xs, [labelled[x].value for x in xs], [labelled[x].n for x in xs])
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_ylim(-0.08, 1.05)
    ax.set_xlabel(f"trials since the {what} last changed (0 = first trial under the new one)")
    ax.set_ylabel("accuracy")
    ax.legend(loc="best", fontsize=7, frameon=False)
    switches = sum(v.n for k, v in after_p.items() if k == 0)
    caption = (
        f"Accuracy (correct / all trials) by trials since the {what} changed: the perseveration curve. "
        f"{INVALID_NOTE} {_episodes_note(used, skipped)} {switches} switches; the small numbers are the "
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
    _label_counts(left, numbers, [0.0] * len(numbers), [blocks[b].n for b in numbers])
    left.set_xticks(numbers)
    left.set_ylim(-0.08, 1.05)
    left.set_xlabel(f"{what} block (1 = first)")
    left.set_ylabel("accuracy")
    names = ["after_switch", "rest"]
    right.bar([0, 1], [cost_tally[n].value for n in names], color=["#d62728", "#2ca02c"])
    _label_counts(right, [0, 1], [0.0, 0.0], [cost_tally[n].n for n in names])
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
        f"n/a without a switch). {INVALID_NOTE} {_episodes_note(used, skipped)} Small numbers: trials pooled."
    )
    figures.append(
        save_figure(fig, out_dir, stem_of(stem, "blocks"), f"{task}: accuracy by block and switch cost", caption)
    )
    return figures


def _nback(task: str, data: Played, trials: list[list[dict]], out_dir: Path, stem: str) -> list[FigureFile]:
    tallies, skipped = _apply(trials, nback_tally)
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
    _label_counts(ax, range(3), [0.0] * 3, [pooled[n].n for n in names])
    ax.set_xticks(range(3), labels)
    ax.set_ylim(-0.08, 1.05)
    ax.set_ylabel("share")
    caption = (
        "Hit rate (yes on target trials) and false-alarm rate (yes on comparable non-targets), over valid "
        "replies as the paradigm's metrics; invalid share over all trials. Invalid replies are their own "
        f"outcome: neither hit nor false alarm. Bars pool all trials; dots are episodes. {_episodes_note(len(tallies), data.skipped + skipped)} "
        "Small numbers: trials in each denominator."
    )
    return [save_figure(fig, out_dir, stem_of(stem, "nback_rates"), f"{task}: hit and false-alarm rates", caption)]


def _bandit(task: str, data: Played, trials: list[list[dict]], out_dir: Path, stem: str) -> list[FigureFile]:
    tallies, skipped = _apply(trials, reversal_tally)
    pooled = pool(tallies)
    if not tallies or not pooled:
        return []
    xs = list(pooled)
    ys = [pooled[x].value for x in xs]
    fig, ax = new_figure(6.0, 3.4)
    ax.plot(xs, ys, marker="o", color="#1f77b4")
    _label_counts(ax, xs, ys, [pooled[x].n for x in xs])
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
        f"An invalid reply chose no arm (counted as not the better one). {_episodes_note(len(tallies), data.skipped + skipped)} "
        "Small numbers: trials pooled."
    )
    return [save_figure(fig, out_dir, stem_of(stem, "reversals"), f"{task}: choices around reversals", caption)]


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


def _igt(task: str, data: Played, trials: list[list[dict]], out_dir: Path, stem: str) -> list[FigureFile]:
    size = block_size(max(len(ts) for ts in trials))
    tallies, skipped = _apply(trials, lambda ts: deck_tally(ts, size))
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
        f"(invalid). {_episodes_note(len(tallies), data.skipped + skipped)}"
    )
    return [save_figure(fig, out_dir, stem_of(stem, "decks"), f"{task}: deck choices over trials", caption)]


def _wpt(task: str, data: Played, trials: list[list[dict]], out_dir: Path, stem: str) -> list[FigureFile]:
    size = block_size(max(len(ts) for ts in trials))
    tallies, skipped = _apply(trials, lambda ts: trial_block_tally(ts, size))
    if not tallies:
        return []
    pooled = pool(tallies)
    blocks = list(pooled)
    ys = [pooled[b].value for b in blocks]
    fig, ax = new_figure(5.4, 3.4)
    ax.plot(blocks, ys, marker="o", color="#1f77b4")
    _label_counts(ax, blocks, ys, [pooled[b].n for b in blocks])
    ax.axhline(0.5, color="#999999", linestyle="--", linewidth=0.8)
    ax.set_xticks(blocks, [f"{(b - 1) * size + 1}-{b * size}" for b in blocks])
    ax.set_ylim(-0.08, 1.05)
    ax.set_xlabel("days")
    ax.set_ylabel("accuracy")
    caption = (
        f"Share of days whose prediction matched the actual weather, per block of {size} days (dashed: 0.5, "
        f"a coin flip). {INVALID_NOTE} {_episodes_note(len(tallies), data.skipped + skipped)} "
        "Small numbers: days pooled."
    )
    return [save_figure(fig, out_dir, stem_of(stem, "accuracy_blocks"), f"{task}: accuracy over days", caption)]


def _wason(task: str, data: Played, trials: list[list[dict]], out_dir: Path, stem: str) -> list[FigureFile]:
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
        f"{_episodes_note(len(rows), data.skipped + skipped)}"
    )
    return [save_figure(fig, out_dir, stem_of(stem, "queries"), f"{task}: queries and solutions", caption)]


_DRAWERS: dict[str, Callable[[str, Played, list[list[dict]], Path, str], list[FigureFile]]] = {
    "wcst": _set_shifting,
    "lnt": _set_shifting,
    "nback": _nback,
    "prlt": _bandit,
    "mbt": _bandit,
    "igt": _igt,
    "wpt": _wpt,
    "wason246": _wason,
    "wason246_reflect": _wason,
}
