"""Reference points for a task's metric: chance, the ideal player, humans and published models.

Sources, in the order tried (the first chance and the first ideal found are the ones
:func:`chance_and_ideal` returns):

* chance — the ``<metric>_chance`` column the task reported itself (interactive paradigms: the
  simulated random player of ``paradigms/chance_levels.json`` for exactly these parameters, NaN
  when they left the preset; static probes: the analytic mean of 1/choices); for results without
  that column, ``chance_levels.json`` looked up from the task's config; for ordinary lm-eval
  multiple-choice tasks with logged samples, the mean over documents of 1/number of choices.
* ideal — the expected value of the package's ideal player (``policy=optimal``) under the task's
  parameters where its README documents it (or, for WCST, where the README calls it the ideal
  observer and its mean was simulated, see ``_WCST_IDEAL``); an answer key's 1.0 for accuracies of
  static probes, reflection tasks and ordinary lm-eval tasks (acc, acc_norm, exact_match).
  Unknown -> no ideal (never a guess).
* human / paper — ``paradigms/reference_results.json`` (Hao et al. 2025 Tables I-IV and Fig. 2
  incl. the human row, Kennedy & Nowak 2024 Tables 1-2 and their worst-case bound, CogProbe Table 3).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from lm_eval_cog.paradigms import available, is_game
from lm_eval_cog.reports.runs import Run, TaskResult, read_samples_file


@dataclass(frozen=True)
class Reference:
    """One reference value for a task's metric."""

    kind: str  # "chance" | "ideal" | "human" | "paper"
    label: str
    value: float
    source: str


CHANCE_FILE = "lm_eval_cog/paradigms/chance_levels.json"
REFERENCE_FILE = "lm_eval_cog/paradigms/reference_results.json"
RANDOM_PLAYER = "random player"
IDEAL_PLAYER = "ideal player"

#: Paradigms whose ``score`` is 100 x ``acc`` (their READMEs): a reference of one is one of the other.
_SCORE_IS_100_ACC = frozenset({"wcst", "lnt"})

#: Parameters that change only the prompt, never the task an ideal observer faces (so they do not
#: change its expected score): every paradigm's ``strategy``; WCST's wording and rendering fields
#: (its optimal agent reads only ``fixed_rule``, ``agents.py``); LNT's letter set.
_IDEAL_INVARIANT = {
    "wcst": (
        "strategy",
        "exclusivity_hint",
        "theme",
        "roleplay",
        "modality",
        "image_history",
    ),
    "lnt": ("strategy", "letters"),
}

#: WCST ideal observer (``policy=optimal``; README "Reference agents": an ideal observer that does
#: not know the switch criterion): mean ``score`` of 20,000 episodes per preset through the task's own
#: environment and scorer, ``chance.simulate(get_paradigm("wcst"), preset, 20000, policy="optimal")``
#: (episode seeds ``episode_seed(chance.SIM_SEED, i)``, as for the chance levels). SD 2.15, 4.46, 1.93,
#: 1.55, so SE <= 0.032. The same simulation of LNT's optimal agent gives 85.99 against the exact 86.
_WCST_IDEAL = {
    "wcst64": 86.701484375,
    "kennedy": 78.1486,
    "reflection_bench": 88.19,
    "reflection_bench_hard": 90.552,
}

#: Ideal player's expected value of a paradigm's metric per preset, with where it is documented.
_IDEAL: dict[tuple[str, str], dict[str, tuple[float, str]]] = {
    **{
        ("wcst", preset): {
            "score": (
                value,
                "lm_eval_cog/reports/references.py _WCST_IDEAL (simulated optimal agent)",
            )
        }
        for preset, value in _WCST_IDEAL.items()
    },
    # LNT: errors after 1 coin-flip guess and then once per 7-trial cycle: 21/25 or 22/25, mean 0.86.
    ("lnt", "kennedy"): {
        "score": (
            86.0,
            "lm_eval_cog/paradigms/lnt/README.md, Bounds (21/25 or 22/25, mean 0.86)",
        )
    },
    # LNT components: the task is announced, every trial is answerable.
    ("lnt", "kennedy_letter"): {
        "score": (
            100.0,
            "lm_eval_cog/paradigms/lnt/README.md, Bounds (components: 1.0)",
        )
    },
    ("lnt", "kennedy_number"): {
        "score": (
            100.0,
            "lm_eval_cog/paradigms/lnt/README.md, Bounds (components: 1.0)",
        )
    },
    # WPT: predicting the likelier weather scores (1 - (1 - p)/p) x 100 exactly; p = 0.9 easy, 0.8 hard.
    ("wpt", "easy"): {
        "score": (
            100.0 * (1.0 - 0.1 / 0.9),
            "lm_eval_cog/paradigms/wpt/README.md, reference agents",
        )
    },
    ("wpt", "hard"): {
        "score": (
            100.0 * (1.0 - 0.2 / 0.8),
            "lm_eval_cog/paradigms/wpt/README.md, reference agents",
        )
    },
    # MBT: 19 reversals (20 blocks); learning the period from the first reversal anticipates the other 18.
    ("mbt", "easy"): {
        "anticipation_rate": (
            18 / 19,
            "lm_eval_cog/paradigms/mbt/README.md, Metrics (18/19)",
        )
    },
    ("mbt", "hard"): {
        "anticipation_rate": (
            18 / 19,
            "lm_eval_cog/paradigms/mbt/README.md, Metrics (18/19)",
        )
    },
    # Wason 2-4-6: the eliminating ideal querier always states the hidden rule.
    ("wason246", "cogprobe6"): {
        "acc": (
            1.0,
            "lm_eval_cog/paradigms/wason246/README.md, reference table (optimal acc 1)",
        )
    },
    ("wason246", "wason1960"): {
        "acc": (
            1.0,
            "lm_eval_cog/paradigms/wason246/README.md, reference table (optimal acc 1)",
        )
    },
}
#: Ideal values that hold for any parameters: n-back's perfect memory answers every trial right;
#: the reflection tasks' optimal player gives the key and keeps it (every accuracy 1, their READMEs).
_IDEAL_ANY = {
    "nback": {
        "score": (
            100.0,
            "lm_eval_cog/paradigms/nback/README.md, reference agents (perfect memory: 100)",
        )
    },
    "reflect": {
        m: (
            1.0,
            "lm_eval_cog/paradigms/reflect/README.md, reference players (optimal: every accuracy 1)",
        )
        for m in ("acc_first", "acc_final")
    },
    "wason246_reflect": {
        m: (
            1.0,
            "lm_eval_cog/paradigms/wason246_reflect/README.md, reference players (optimal: every accuracy 1)",
        )
        for m in ("acc", "acc_first", "acc_final")
    },
}
# The dialogue games: the optimal player wins every episode at once, which each game's scoring rule
# rates 100 (docs/games.md, "Reference players"; pinned through lm_eval by tests/test_games_e2e.py).
_IDEAL_ANY.update(
    {
        game: {m: (100.0, "docs/games.md, reference players (optimal: wins at once, 100)") for m in ("clemscore", "main_score")}
        for game in available()
        if is_game(game)
    }
)
# IGT, PRLT and oddball have no documented ideal for their score: IGT's optimal agent is documented for
# the switching score only, PRLT's reward maximiser is not the score maximiser (its README), and the
# oddball's optimal commenter is "about 40" under one embedding model.

#: Labels of the published analytic bounds (reference_results.json "constants").
_CONSTANT_LABELS = {
    "kennedy_worst_case_wcst": "worst case of a player that switches correctly",
    "kennedy_worst_case_lnt": "worst case of a player that switches correctly",
}
#: Short citations for labels.
_CITE = {
    "hao2025": "Hao et al. 2025",
    "kennedy2024": "Kennedy & Nowak 2024",
    "cogprobe2025": "CogProbe (Cui et al. 2026)",
}


def _split(metric: str) -> tuple[str, str]:
    name, _, filt = metric.partition(",")
    return name, filt or "none"


def _finite(value: Any) -> bool:
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
    )


def _metadata(result: TaskResult) -> dict:
    meta = result.config.get("metadata") if isinstance(result.config, dict) else None
    return meta if isinstance(meta, dict) else {}


def _paradigm_name(result: TaskResult) -> str | None:
    name = _metadata(result).get("paradigm")
    return name if isinstance(name, str) else None


def _is_probe(result: TaskResult) -> bool:
    return isinstance(_metadata(result).get("probe"), str)


def _params(result: TaskResult) -> tuple[Any, Any] | None:
    """(the task's parameters, its preset's parameters) rebuilt from the config's metadata, or None."""
    meta = _metadata(result)
    paradigm_name, preset = meta.get("paradigm"), meta.get("preset")
    if not isinstance(paradigm_name, str) or not isinstance(preset, str):
        return None
    try:
        from lm_eval_cog.paradigms import get_paradigm

        paradigm = get_paradigm(paradigm_name)
        # The overrides the task applied (lm_eval_cog.lmeval.task.paradigm_overrides): the YAML's
        # variant, then metadata.<paradigm> from --metadata on top.
        overrides: dict[str, Any] = {}
        for key in ("variant", paradigm_name):
            part = meta.get(key) or {}
            if not isinstance(part, dict):
                return None
            overrides.update(part)
        strategy = meta.get("strategy")
        params = paradigm.make_params(preset, strategy, overrides)
        return params, paradigm.presets[preset]
    except Exception:  # noqa: BLE001 - an unknown paradigm/preset/field means "no stored reference applies"
        return None


def _same_task(params: Any, preset_params: Any, invariant: tuple[str, ...]) -> bool:
    same = {name: getattr(params, name) for name in invariant if hasattr(params, name)}
    return dataclasses.replace(preset_params, **same) == params


# ---------------------------------------------------------------- chance


def _reported_chance(
    result: TaskResult, name: str, filt: str
) -> tuple[float | None, bool, str]:
    """(value, column present, column) of the task's own ``<name>_chance`` (or score_chance / 100)."""
    key = f"{name}_chance,{filt}"
    if key in result.metrics:
        value = result.metrics[key]
        return (value if _finite(value) else None), True, key
    if name == "acc" and _paradigm_name(result) in _SCORE_IS_100_ACC:
        key = f"score_chance,{filt}"
        if key in result.metrics:
            value = result.metrics[key]
            return (value / 100.0 if _finite(value) else None), True, f"{key} / 100"
    return None, False, key


def _stored_chance(result: TaskResult, name: str) -> Reference | None:
    from lm_eval_cog.paradigms import chance, get_paradigm

    if result.is_group:
        level = chance.stored_group(result.task)
        if level is not None and level.metric == name:
            return Reference(
                "chance",
                RANDOM_PLAYER,
                level.mean,
                f"{CHANCE_FILE}: groups[{result.task}]",
            )
        return None
    built = _params(result)
    if built is None:
        return None
    params, _ = built
    meta = _metadata(result)
    paradigm = get_paradigm(meta["paradigm"])
    scale = 1.0
    if (
        name == "acc"
        and paradigm.primary_metric == "score"
        and paradigm.name in _SCORE_IS_100_ACC
    ):
        name, scale = "score", 0.01
    level = chance.for_params(paradigm, meta["preset"], params)
    if level is None or level.metric != name:
        return None
    where = f"{CHANCE_FILE}: levels[{paradigm.name}][{meta['preset']}]" + (
        " / 100" if scale != 1.0 else ""
    )
    return Reference("chance", RANDOM_PLAYER, level.mean * scale, where)


def _mc_chance(run: Run, result: TaskResult, name: str, filt: str) -> Reference | None:
    # One loglikelihood request per choice, so len(arguments) is the number of choices; a uniform
    # guesser is right with probability 1/choices on each document (acc and acc_norm alike).
    if (
        name not in ("acc", "acc_norm")
        or result.config.get("output_type") != "multiple_choice"
    ):
        return None
    path = run.samples.get(result.task)
    if path is None:
        return None
    value, n = _mean_inverse_choices(str(path), filt, path.stat().st_mtime_ns)
    if value is None:
        return None
    return Reference(
        "chance",
        "random guess (1/choices)",
        value,
        f"{path.name}: mean of 1/choices over {n} documents",
    )


@lru_cache(maxsize=256)
def _mean_inverse_choices(path: str, filt: str, mtime: int) -> tuple[float | None, int]:
    # Cached per file version: a report and a leaderboard ask for the same task's chance repeatedly.
    inverse = []
    for sample in read_samples_file(Path(path)):
        if sample.get("filter", filt) != filt:
            continue
        arguments = sample.get("arguments")
        if isinstance(arguments, (list, dict)) and len(arguments) > 0:
            inverse.append(1.0 / len(arguments))
    return (sum(inverse) / len(inverse) if inverse else None), len(inverse)


def _chance(run: Run, result: TaskResult, name: str, filt: str) -> Reference | None:
    value, present, column = _reported_chance(result, name, filt)
    if value is not None:
        if _is_probe(result):
            return Reference(
                "chance",
                "random guess (1/choices)",
                value,
                f"results JSON: {column} (analytic)",
            )
        return Reference(
            "chance",
            RANDOM_PLAYER,
            value,
            f"results JSON: {column} ({CHANCE_FILE}, simulated)",
        )
    if (
        present
    ):  # the task said NaN: its parameters left the preset, no stored level applies
        return None
    if result.is_group:
        return _stored_chance(result, name) or _group_mean(
            run, result, name, filt, "chance"
        )
    return _stored_chance(result, name) or _mc_chance(run, result, name, filt)


# ---------------------------------------------------------------- ideal

#: Accuracy-type metrics of ordinary lm-eval tasks (the fraction of items matching the key).
_ANSWER_KEY_METRICS = ("acc", "acc_norm", "exact_match")


def _ideal(run: Run, result: TaskResult, name: str, filt: str) -> Reference | None:
    if result.is_group:
        return _group_mean(run, result, name, filt, "ideal")
    if _is_probe(result):
        # A static probe's answer key is the ideal player: every item right.
        if name in ("acc", "acc_norm"):
            return Reference(
                "ideal", IDEAL_PLAYER, 1.0, "answer key (acc 1 by definition)"
            )
        return None
    paradigm = _paradigm_name(result)
    if paradigm is None:
        # Any other lm-eval task scored by accuracy against an answer key (MMLU's acc, GSM8K's
        # exact_match): the ideal answers every item right.
        if name in _ANSWER_KEY_METRICS and result.higher_is_better.get(name, True):
            return Reference("ideal", IDEAL_PLAYER, 1.0, f"answer key ({name} 1 by definition)")
        return None
    scale = 1.0
    if name == "acc" and paradigm in _SCORE_IS_100_ACC:
        name, scale = "score", 0.01
    if paradigm in _IDEAL_ANY and name in _IDEAL_ANY[paradigm]:
        value, source = _IDEAL_ANY[paradigm][name]
        return Reference("ideal", IDEAL_PLAYER, value * scale, source)
    preset = _metadata(result).get("preset")
    entry = (
        _IDEAL.get((paradigm, preset), {}).get(name)
        if isinstance(preset, str)
        else None
    )
    if entry is None:
        return None
    built = _params(result)
    if built is None or not _same_task(
        *built, _IDEAL_INVARIANT.get(paradigm, ("strategy",))
    ):
        return None  # a variant (e.g. an announced fixed rule) faces a different ideal: unknown here
    value, source = entry
    return Reference(
        "ideal",
        IDEAL_PLAYER,
        value * scale,
        source + (" / 100" if scale != 1.0 else ""),
    )


# ---------------------------------------------------------------- groups


def _group_mean(
    run: Run, result: TaskResult, name: str, filt: str, kind: str
) -> Reference | None:
    """A group's chance or ideal: lm-eval aggregates a group's metric as the (size-weighted or plain)
    mean over the subtasks reporting it, and a mean of values maps to the same mean of their
    references. Only for the package's groups, whose YAML says how it weighs; None if any is unknown."""
    from lm_eval_cog.reports.abilities import group_definitions

    spec = group_definitions().get(result.task)
    if spec is None or f"{name},{filt}" not in result.metrics:
        return None
    weighted = None
    for agg in spec.get("aggregate_metric_list") or []:
        if (
            isinstance(agg, dict)
            and agg.get("metric") == name
            and agg.get("filter_list", filt) == filt
        ):
            weighted = bool(agg.get("weight_by_size", False))
    if weighted is None:
        return None
    values, weights = [], []
    for task in run.group_subtasks.get(result.task, []):
        sub = run.tasks.get(task)
        if sub is None or f"{name},{filt}" not in sub.metrics:
            continue  # lm-eval averages only the subtasks that report this metric and filter
        chance, ideal = chance_and_ideal(run, task, f"{name},{filt}")
        value = chance if kind == "chance" else ideal
        if value is None or (weighted and sub.n_samples is None):
            return None
        values.append(value)
        weights.append(float(sub.n_samples) if weighted else 1.0)
    if not values:
        return None
    mean = sum(v * w for v, w in zip(values, weights)) / sum(weights)
    label = RANDOM_PLAYER if kind == "chance" else IDEAL_PLAYER
    how = "size-weighted" if weighted else "unweighted"
    return Reference(
        kind,
        label,
        mean,
        f"{how} mean of the {len(values)} subtasks' {kind} ({name},{filt})",
    )


# ---------------------------------------------------------------- published numbers


def _published(result: TaskResult, name: str) -> list[Reference]:
    from lm_eval_cog.paradigms import reference_results

    paradigm = _paradigm_name(result)
    # Records are in the package's units; WCST/LNT accuracies also serve their score (x 100).
    wanted = {name: 1.0}
    if name == "score" and paradigm in _SCORE_IS_100_ACC:
        wanted["acc"] = 100.0
    out: list[Reference] = []
    records = reference_results.lookup(task=result.task, language="en", trust="ok")
    if paradigm == "wcst" and _metadata(result).get("preset") == "wcst64":
        # Hao et al. compare every WCST-64 condition with their human row (labelled STA-VI).
        records += [
            r
            for r in reference_results.lookup(
                source="hao2025", model="Human", language="en", trust="ok"
            )
            if r.task != result.task
        ]
    for r in records:
        if r.metric not in wanted:
            continue
        cite = _CITE.get(r.source, r.source)
        table = r.table if r.table.startswith("Fig") else f"Table {r.table}"
        where = f"{REFERENCE_FILE}: {r.source} {table}, {r.condition}"
        value = r.mean * wanted[r.metric]
        if r.model == "Human":
            out.append(
                Reference(
                    "human", f"humans ({cite}, {table}, {r.condition})", value, where
                )
            )
        else:
            out.append(
                Reference(
                    "paper", f"{r.model} ({cite}, {table}, {r.condition})", value, where
                )
            )
    for c in reference_results.constants():
        if (
            result.task in c.tasks
            and c.metric in wanted
            and not c.name.endswith("_scale")
        ):
            label = f"{_CONSTANT_LABELS.get(c.name, c.name)} ({_CITE.get(c.source, c.source)})"
            out.append(
                Reference(
                    "paper",
                    label,
                    c.value * wanted[c.metric],
                    f"{REFERENCE_FILE}: constants[{c.name}]",
                )
            )
    return out


# ---------------------------------------------------------------- API


def references(run: Run, task: str, metric: str) -> list[Reference]:
    """Every reference for ``task``'s ``metric`` ("acc,none" or "acc"): chance, ideal, then published rows."""
    result = run.tasks.get(task)
    if result is None:
        return []
    name, filt = _split(metric)
    out = [
        ref
        for ref in (_chance(run, result, name, filt), _ideal(run, result, name, filt))
        if ref is not None
    ]
    return out + _published(result, name)


def chance_and_ideal(
    run: Run, task: str, metric: str
) -> tuple[float | None, float | None]:
    """(chance, ideal) of ``task``'s ``metric``; None where unknown."""
    result = run.tasks.get(task)
    if result is None:
        return None, None
    name, filt = _split(metric)
    chance = _chance(run, result, name, filt)
    ideal = _ideal(run, result, name, filt)
    return (chance.value if chance else None), (ideal.value if ideal else None)


def missing_reasons(run: Run, task: str, metric: str) -> list[str]:
    """Why ``task``'s ``metric`` has no chance level or no ideal-player value, in words (empty when it has both)."""
    result = run.tasks.get(task)
    if result is None:
        return []
    name, filt = _split(metric)
    reasons = []
    if _chance(run, result, name, filt) is None:
        _, present, _column = _reported_chance(result, name, filt)
        paradigm = _paradigm_name(result)
        if present:
            reasons.append(
                "no chance level: this run changed the task's parameters (--metadata, e.g. fewer trials), and "
                "chance levels are simulated for the shipped protocols only"
            )
        elif paradigm is not None:
            reasons.append(f"no chance level: none is simulated for {paradigm}'s {name}")
        elif result.is_group:
            reasons.append("no chance level: not every member task has one")
        else:
            reasons.append("no chance level: not a task of this package, and not scored by multiple choice")
    if _ideal(run, result, name, filt) is None:
        paradigm = _paradigm_name(result)
        if result.is_group:
            reasons.append("no ideal-player value: not every member task has one")
        elif paradigm is not None and name in _IDEAL.get((paradigm, _metadata(result).get("preset")), {}):
            reasons.append(
                "no ideal-player value: this run changed the task's parameters, and the ideal player's level "
                "is known for the shipped protocols only"
            )
        elif paradigm is not None:
            reasons.append(
                f"no ideal-player value: none is documented for {paradigm}'s {name} "
                "(its best strategy's expected score is not derived)"
            )
        else:
            reasons.append(f"no ideal-player value: {name} is not an accuracy against an answer key")
    return reasons


def normalised(value: float, chance: float | None, ideal: float | None) -> float:
    """100 * (value - chance) / (ideal - chance): 0 at chance, 100 at the ideal; NaN when undefined.

    For a lower-is-better metric the ideal lies below chance and the same formula still maps
    chance -> 0 and ideal -> 100.
    """
    if (
        chance is None
        or ideal is None
        or not (_finite(value) and _finite(chance) and _finite(ideal))
    ):
        return math.nan
    if ideal == chance:
        return math.nan
    return 100.0 * (value - chance) / (ideal - chance)


__all__ = ["Reference", "chance_and_ideal", "missing_reasons", "normalised", "references"]
