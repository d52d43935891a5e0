"""Summary figures from the results JSON alone: a model's ability profile and a probe's condition effects."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from lm_eval_cog.reports.plotting import FigureFile, new_figure, save_figure
from lm_eval_cog.reports.transcript_figures import stem_of

#: Metrics named ``acc_<something>`` that are never a condition's accuracy (a condition so named is skipped).
NOT_CONDITIONS = frozenset({"chance", "chance_p95", "norm", "first", "final", "final_chance", "final_chance_p95"})
_PROBE_TASK = re.compile(r"^cog_(?P<probe>.+)_(?:mc|gen)$")


def profile_figure(model: str, by_ability: Mapping[str, float], out_dir: Path) -> FigureFile:
    """Horizontal bars of the model's abilities on the normalised scale (0 = chance, 100 = ideal).

    The axis widens to show values below 0 or above 100; a NaN ability is written "n/a", not drawn.
    """
    names = list(by_ability)
    values = [float(by_ability[n]) for n in names]
    finite = [v for v in values if math.isfinite(v)]
    low = min([0.0, *finite]) - 10.0
    high = max([100.0, *finite]) + 15.0  # room for the value labels right of the bars
    fig, ax = new_figure(6.0, 1.2 + 0.38 * max(len(names), 1))
    ys = list(range(len(names)))[::-1]  # first ability at the top
    for y, v in zip(ys, values):
        if math.isfinite(v):
            ax.barh(y, v, color="#1f77b4" if v >= 0 else "#d62728", height=0.6)
            ax.text(
                v + (1.5 if v >= 0 else -1.5), y, f"{v:.1f}", va="center", ha="left" if v >= 0 else "right", fontsize=7
            )
        else:
            ax.text(1.5, y, "n/a", va="center", ha="left", fontsize=7, color="#555555")
    for x, label in ((0.0, "chance"), (100.0, "ideal")):
        ax.axvline(x, color="#555555", linestyle="--" if x else "-", linewidth=0.9)
        ax.text(x, 1.0, label, transform=ax.get_xaxis_transform(), ha="center", va="bottom", fontsize=7)
    ax.set_yticks(ys, names)
    ax.set_xlim(low, high)
    ax.set_ylim(-0.7, max(len(names), 1) - 0.3)
    ax.set_xlabel("normalised score (0 = chance, 100 = ideal player)")
    if not names:
        ax.text(50, 0, "no ability could be scored", ha="center", va="center", fontsize=8)
    missing = sum(not math.isfinite(v) for v in values)
    caption = (
        f"Ability profile of {model}: each ability is the mean normalised score of its tasks, "
        "100 x (score - chance) / (ideal - chance), so 0 is the random player and 100 the ideal one; "
        "below 0 is worse than chance, above 100 better than the ideal reference."
        + (
            f" n/a: {missing} abilit{'y' if missing == 1 else 'ies'} without a chance/ideal reference."
            if missing
            else ""
        )
    )
    return save_figure(fig, out_dir, stem_of(f"profile_{model}", "abilities"), f"Ability profile: {model}", caption)


@dataclass(frozen=True)
class Condition:
    """One condition's accuracy and its standard error (NaN when lm-eval wrote none)."""

    name: str
    acc: float
    stderr: float


def probe_conditions(
    task: str, metrics: Mapping[str, float], stderrs: Mapping[str, float]
) -> tuple[list[Condition], float | None, str | None]:
    """The per-condition accuracies of a static probe task, its ``acc_chance`` and the filter used.

    Metrics are ``acc_<condition>,<filter>``; the conditions and their order come from the probe's
    registry entry, so only ``cog_<probe>_mc|_gen`` tasks of a registered probe have any (an
    ``acc_norm`` or ``acc_first`` of another task is no condition). The filter is that of
    ``acc_chance`` (else of ``acc``, else the first found), so that one filter's numbers are drawn.
    """
    order = _registered_conditions(task)
    if not order:
        return [], None, None
    found: dict[str, dict[str, tuple[str, float]]] = {}  # filter -> suffix -> (key, value)
    for key, value in metrics.items():
        metric, _, filt = key.partition(",")
        if metric.startswith("acc_"):
            found.setdefault(filt, {})[metric[4:]] = (key, float(value))
    if not found:
        return [], None, None
    filt = next((f for f in found if "chance" in found[f]), None)
    filt = filt or next((k.partition(",")[2] for k in metrics if k.partition(",")[0] == "acc"), None)
    filt = filt if filt in found else next(iter(found))
    suffixes = found[filt]
    names = [c for c in order if c in suffixes and c not in NOT_CONDITIONS]
    conditions = [Condition(name, suffixes[name][1], _stderr(stderrs, suffixes[name][0])) for name in names]
    chance = suffixes["chance"][1] if "chance" in suffixes else None
    return conditions, chance, filt


def _stderr(stderrs: Mapping[str, float], key: str) -> float:
    """The stderr of ``key`` ("acc_x,filter"), also when given under lm-eval's own name ("acc_x_stderr,filter")."""
    metric, _, filt = key.partition(",")
    value = stderrs.get(key, stderrs.get(f"{metric}_stderr,{filt}", math.nan))
    try:
        return float(value)
    except (TypeError, ValueError):  # lm-eval writes "N/A" when it has none
        return math.nan


def _registered_conditions(task: str) -> list[str] | None:
    """The probe's conditions in its reported order, or None for a task that is no registered probe."""
    match = _PROBE_TASK.match(task)
    if not match:
        return None
    from lm_eval_cog.probes.core import (  # the probes import numpy and their banks
        REGISTRY,
        get_probe,
    )

    if match["probe"] not in REGISTRY:
        return None
    return list(get_probe(match["probe"]).conditions)


def _usable(stderr: float) -> bool:
    return math.isfinite(stderr) and stderr >= 0


def probe_effects_figure(
    task: str, metrics: Mapping[str, float], stderrs: Mapping[str, float], out_dir: Path, *, name: str | None = None
) -> FigureFile | None:
    """Bars of a static probe's accuracy per condition with standard errors and the chance line;
    None when the task reports no per-condition accuracy."""
    conditions, chance, filt = probe_conditions(task, metrics, stderrs)
    if not conditions:
        return None
    fig, ax = new_figure(max(3.6, 1.2 + 0.9 * len(conditions)), 3.4)
    xs = list(range(len(conditions)))
    accs = [c.acc for c in conditions]
    # A negative or infinite stderr is no error bar (matplotlib refuses negative ones): drawn as none.
    errs = [c.stderr if _usable(c.stderr) else 0.0 for c in conditions]
    ax.bar(xs, [a if math.isfinite(a) else 0.0 for a in accs], yerr=errs, capsize=4, color="#1f77b4", width=0.6)
    tops = []
    for x, c, err in zip(xs, conditions, errs):
        label = "n/a" if not math.isfinite(c.acc) else f"{c.acc:.2f}"
        top = (c.acc if math.isfinite(c.acc) else 0.0) + err  # above the error bar, not on it
        ax.text(x + 0.08, top + 0.02, label, ha="left", va="bottom", fontsize=7)
        tops.append(top)
    if chance is not None and math.isfinite(chance):
        ax.axhline(chance, color="#d62728", linestyle="--", linewidth=1, label=f"chance (acc_chance) {chance:.2f}")
        ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), fontsize=7, frameon=False)
    ax.set_xticks(xs, [c.name for c in conditions])
    ax.set_ylim(0, max(1.1, *(t + 0.1 for t in tops)))
    ax.set_ylabel("accuracy")
    no_err = [c.name for c in conditions if not _usable(c.stderr)]
    caption = (
        f"Accuracy of {task} in each condition (metrics acc_<condition>, filter {filt}), with standard "
        "errors as error bars; dashed: acc_chance, the expected accuracy of a uniform guess."
        + (f" No standard error from lm-eval for: {', '.join(no_err)}." if no_err else "")
    )
    stem = stem_of(task if name is None else name, "conditions")
    return save_figure(fig, out_dir, stem, f"{task}: accuracy by condition", caption)
